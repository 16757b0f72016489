//! A small hash map from integer keys to 32-bit values: the keyed face's
//! table for keys whose index is far beyond the others.
//!
//! Open addressing with linear probing and backward-shift deletion, at
//! most half full, over a power-of-two table. It grows without a stall:
//! a full table is replaced by one twice its size, and the old table's
//! entries move over a few at a time, in slot order, at each later
//! insertion or removal, while lookups read both; so no operation moves
//! more than a few entries, where a doubling map copies all of them at
//! once. A table is allocated in chunks of [`CHUNK`] slots, each when a
//! slot of it is first written, and the old table's chunks are freed as
//! the moves pass them, so no operation allocates, zeroes or frees more
//! than a few chunks either, beside the directory of a new table (16
//! bytes per chunk).
//!
//! A key's home slot is the top bits of its hash, so an old slot's
//! entries have their homes at twice its position in the new table, and
//! the moves fill the new table's chunks in order: a growth holds about
//! the new table's size at most, not the old and the new tables whole.
//! For that, a key arriving during a growth whose home the moves have not
//! reached yet goes to the old table (the first free or moved slot on
//! from its home there), not to a chunk of the new table that would come
//! early.
//! A slot holds its key and value side by side, so a probe reads one
//! cache line.
//!
//! The crate's dependencies are `fixed` and nothing else, so no hash map
//! crate is at hand, and this one needs only the operations below. Values
//! are below `u32::MAX - 1`: a slot stores its value plus 2, and 0 and 1
//! mark free and moved slots, so a new table is zeroed memory.

use alloc::boxed::Box;
use alloc::collections::TryReserveError;
use alloc::vec;
use alloc::vec::Vec;

/// A free slot's value.
const FREE: u32 = 0;
/// An old table's slot whose entry moved to the new table or was removed:
/// a lookup probes on past it, as past an occupied slot.
const MOVED: u32 = 1;
/// Values are stored plus this, so a new table is zeroed memory, which the
/// allocator hands out without writing it (a growth costs no fill).
const OFFSET: u32 = 2;

/// Old slots moved to the new table at each insertion or removal while a
/// growth is under way: a growth ends before the new table is five
/// sixteenths full (it starts a quarter full, with twice the old table's
/// slots), and the old table's slots not moved yet stay about five
/// eighths taken at most, the keys arriving meanwhile included.
const MOVES_PER_CALL: usize = 8;

/// A key of an [`IntMap`].
pub(crate) trait IntKey: Copy + Eq + Default {
    /// The key as stored in a slot: 32-bit words, so a slot is packed
    /// with its value at the alignment of a `u32`.
    type Packed: Copy + Eq + Default + core::fmt::Debug;

    /// 64 well-mixed bits (Fibonacci hashing: the top bits are used).
    fn hash(self) -> u64;

    fn pack(self) -> Self::Packed;

    fn unpack(packed: Self::Packed) -> Self;
}

impl IntKey for usize {
    type Packed = [u32; 2];

    #[inline]
    fn hash(self) -> u64 {
        let folded = (self as u64) ^ ((self as u64) >> 32);
        folded.wrapping_mul(0x9E37_79B9_7F4A_7C15)
    }

    #[inline]
    fn pack(self) -> [u32; 2] {
        let bits = self as u64;
        [bits as u32, (bits >> 32) as u32]
    }

    #[inline]
    fn unpack([low, high]: [u32; 2]) -> usize {
        (u64::from(low) | (u64::from(high) << 32)) as usize
    }
}

/// Slots per chunk: a table is allocated a chunk at a time, each when a
/// slot of it is first written, so a growth allocates no large block at
/// once (a large zeroed block costs a fill of all of it). Fuzzing builds
/// and Miri use small chunks, so small maps span many.
const CHUNK_BITS: u32 = if cfg!(any(fuzzing, miri)) { 3 } else { 10 };
const CHUNK: usize = 1 << CHUNK_BITS;

/// A slot: a key and its value (stored plus [`OFFSET`]) side by side, so
/// a probe reads one cache line.
#[derive(Debug, Clone, Copy, Default)]
struct Slot<P> {
    key: P,
    stored: u32,
}

/// A table of power-of-two slots, in chunks of [`CHUNK`] slots (one
/// shorter chunk if the table is smaller); an empty chunk is all free
/// slots, not allocated yet.
#[derive(Debug, Clone, Default)]
struct Table<K: IntKey> {
    chunks: Vec<Box<[Slot<K::Packed>]>>,
    slots: usize,
    /// `64 - log2(slots)`: a key's home slot is its hash shifted right by
    /// this (0 for a table of no slots, which is never probed).
    shift: u32,
}

impl<K: IntKey> Table<K> {
    /// `slots` free slots (a power of two), none allocated yet.
    fn new(slots: usize) -> Self {
        Table {
            chunks: (0..slots.div_ceil(CHUNK)).map(|_| Box::default()).collect(),
            slots,
            shift: Self::shift_for(slots),
        }
    }

    /// [`new`](Self::new), or the error of allocating its directory.
    fn try_new(slots: usize) -> Result<Self, TryReserveError> {
        let mut chunks = Vec::new();
        chunks.try_reserve_exact(slots.div_ceil(CHUNK))?;
        chunks.resize_with(slots.div_ceil(CHUNK), Box::default);
        Ok(Table {
            chunks,
            slots,
            shift: Self::shift_for(slots),
        })
    }

    /// The `shift` of a table of `slots` slots (a power of two, and
    /// never 1: tables start at 2 slots).
    fn shift_for(slots: usize) -> u32 {
        debug_assert!(slots != 1 && slots.is_power_of_two() || slots == 0);
        if slots == 0 {
            0
        } else {
            64 - slots.trailing_zeros()
        }
    }

    fn slots(&self) -> usize {
        self.slots
    }

    /// The slot at `slot`, if its chunk is allocated.
    #[inline]
    fn slot(&self, slot: usize) -> Option<&Slot<K::Packed>> {
        self.chunks[slot >> CHUNK_BITS].get(slot % CHUNK)
    }

    /// The stored value of `slot`: [`FREE`], [`MOVED`] or a value.
    #[inline]
    fn value(&self, slot: usize) -> u32 {
        self.slot(slot).map_or(FREE, |slot| slot.stored)
    }

    /// The stored value of `slot` and its key (meaningful only if the
    /// slot holds a value), from one look at its chunk.
    #[inline]
    fn probe(&self, slot: usize) -> (u32, K::Packed) {
        self.slot(slot)
            .map_or((FREE, K::Packed::default()), |slot| (slot.stored, slot.key))
    }

    /// Writes `slot`, allocating its chunk if it has none.
    #[inline]
    fn set(&mut self, slot: usize, key: K::Packed, stored: u32) {
        if self.chunks[slot >> CHUNK_BITS].is_empty() {
            self.allocate(slot >> CHUNK_BITS);
        }
        self.chunks[slot >> CHUNK_BITS][slot % CHUNK] = Slot { key, stored };
    }

    /// Allocates chunk `chunk`, free slots.
    #[cold]
    fn allocate(&mut self, chunk: usize) {
        self.chunks[chunk] = vec![Slot::default(); self.slots.min(CHUNK)].into_boxed_slice();
    }

    /// Writes the value of `slot`, which holds one.
    #[inline]
    fn set_value(&mut self, slot: usize, stored: u32) {
        if let Some(slot) = self.chunks[slot >> CHUNK_BITS].get_mut(slot % CHUNK) {
            slot.stored = stored;
        }
    }

    /// The slot for `key`'s probe to start at.
    #[inline]
    fn home(&self, key: K) -> usize {
        (key.hash() >> self.shift) as usize
    }

    /// The slot holding `key`, if any, and its stored value, in a table
    /// whose slots below `from` are gone (an old table's, moved during a
    /// growth; 0 for a table that has all its slots): the probe passes
    /// over them as over moved slots, reading none, and gives up after
    /// the slots left (the old table's last few may all be taken).
    #[inline]
    fn find(&self, key: K, from: usize) -> Option<(usize, u32)> {
        let mut slot = self.home(key).max(from);
        let key = key.pack();
        for _ in from..self.slots {
            let held = self.slot(slot)?;
            match held.stored {
                FREE => return None,
                MOVED => {}
                stored if held.key == key => return Some((slot, stored)),
                _ => {}
            }
            slot = self.next(slot, from);
        }
        None
    }

    /// The slot a probe at `slot` goes on to, in a table whose slots
    /// below `from` are gone (see [`find`](Self::find)).
    #[inline]
    fn next(&self, slot: usize, from: usize) -> usize {
        let next = (slot + 1) & (self.slots - 1);
        if next < from { from } else { next }
    }

    /// Sets the stored value of `key` to `stored` if the table holds it,
    /// and says whether it did: the probe of [`find`](Self::find), then
    /// a write where it stopped.
    #[inline]
    fn replace(&mut self, key: K, stored: u32, from: usize) -> bool {
        match self.find(key, from) {
            Some((slot, _)) => {
                self.set_value(slot, stored);
                true
            }
            None => false,
        }
    }

    /// Puts `key`, absent, into a free slot (there is one).
    #[inline]
    fn put(&mut self, key: K, stored: u32) {
        let mask = self.slots() - 1;
        let mut slot = self.home(key);
        while self.value(slot) != FREE {
            slot = (slot + 1) & mask;
        }
        self.set(slot, key.pack(), stored);
    }

    /// Puts `key`, absent, into the first free or moved slot on from its
    /// home before the table's end, if there is one, and says whether it
    /// did. (Not wrapping around, it never reaches the slots below its
    /// home, gone or not.)
    fn put_before_end(&mut self, key: K, stored: u32) -> bool {
        let home = self.home(key);
        let Some(slot) = (home..self.slots).find(|&slot| self.value(slot) < OFFSET) else {
            return false;
        };
        self.set(slot, key.pack(), stored);
        true
    }

    /// Frees the chunk of slots `chunk`, whose slots are all gone.
    fn free(&mut self, chunk: usize) {
        self.chunks[chunk] = Box::default();
    }

    /// Removes the entry at `hole`, shifting back the entries its slot
    /// displaced (the table holds no moved slot).
    fn remove_at(&mut self, mut hole: usize) {
        let mask = self.slots() - 1;
        let mut slot = hole;
        loop {
            slot = (slot + 1) & mask;
            let (stored, key) = self.probe(slot);
            if stored == FREE {
                break;
            }
            // An entry may fill the hole if the hole lies on its probe path
            // (cyclically between its home and its slot).
            let home = self.home(K::unpack(key));
            if (slot.wrapping_sub(home) & mask) >= (slot.wrapping_sub(hole) & mask) {
                self.set(hole, key, stored);
                hole = slot;
            }
        }
        self.set_value(hole, FREE);
    }

    /// Every entry, with its stored value.
    fn entries(&self) -> impl Iterator<Item = (K, u32)> + '_ {
        self.chunks
            .iter()
            .flat_map(|chunk| chunk.iter())
            .filter(|slot| slot.stored >= OFFSET)
            .map(|slot| (K::unpack(slot.key), slot.stored))
    }

    #[cfg(test)]
    fn allocated(&self) -> usize {
        self.chunks.capacity() * core::mem::size_of::<Box<[Slot<K::Packed>]>>()
            + self.chunks.iter().map(|chunk| chunk.len()).sum::<usize>()
                * core::mem::size_of::<Slot<K::Packed>>()
    }
}

#[derive(Debug, Clone, Default)]
pub(crate) struct IntMap<K: IntKey> {
    table: Table<K>,
    /// The table being emptied into `table` during a growth, else empty.
    old: Table<K>,
    /// Old slots moved so far (0 while no growth is under way): the old
    /// table's slots below this are gone.
    moved: usize,
    len: usize,
}

impl<K: IntKey> IntMap<K> {
    pub(crate) fn len(&self) -> usize {
        self.len
    }

    pub(crate) fn get(&self, key: K) -> Option<u32> {
        if self.len == 0 {
            return None;
        }
        let (_, stored) = self
            .table
            .find(key, 0)
            .or_else(|| self.old.find(key, self.moved))?;
        Some(stored - OFFSET)
    }

    /// Sets the value of `key` to `value` (below `u32::MAX - 1`) if the
    /// map holds it, and says whether it did.
    #[inline]
    pub(crate) fn replace(&mut self, key: K, value: u32) -> bool {
        let stored = value + OFFSET;
        self.table.replace(key, stored, 0) || self.old.replace(key, stored, self.moved)
    }

    /// Sets `key` to `value` (below `u32::MAX - 1`).
    pub(crate) fn insert(&mut self, key: K, value: u32) {
        let stored = value + OFFSET;
        self.move_some();
        if (self.len + 1) * 2 > self.table.slots() {
            self.grow();
        }
        // One probe: the key's slot, or the free slot that ends its probe.
        let mask = self.table.slots() - 1;
        let mut slot = self.table.home(key);
        loop {
            match self.table.probe(slot) {
                (FREE, _) => break,
                (held, at) if held != MOVED && at == key.pack() => {
                    self.table.set_value(slot, stored);
                    return;
                }
                _ => slot = (slot + 1) & mask,
            }
        }
        if self.old.replace(key, stored, self.moved) {
            return;
        }
        self.len += 1;
        // A home the moves have not reached: the old table, if it has a
        // free or moved slot on from it (see the module's doc).
        if self.growing()
            && self.old.home(key) >= self.moved
            && self.old.put_before_end(key, stored)
        {
            return;
        }
        self.table.set(slot, key.pack(), stored);
    }

    /// Removes `key`, returning its value.
    pub(crate) fn remove(&mut self, key: K) -> Option<u32> {
        self.move_some();
        if let Some((slot, stored)) = self.table.find(key, 0) {
            self.table.remove_at(slot);
            self.len -= 1;
            return Some(stored - OFFSET);
        }
        let (slot, stored) = self.old.find(key, self.moved)?;
        self.old.set_value(slot, MOVED);
        self.len -= 1;
        Some(stored - OFFSET)
    }

    /// Starts a growth: the table becomes the old one, and a table of
    /// twice its slots takes its place. A growth still under way is
    /// finished first (it never is, given [`MOVES_PER_CALL`]).
    fn grow(&mut self) {
        while self.growing() {
            self.move_some();
        }
        let slots = (self.table.slots() * 2).max(16);
        self.old = core::mem::replace(&mut self.table, Table::new(slots));
        self.moved = 0;
    }

    /// Moves the entries of the next few old slots to the new table,
    /// freeing each old chunk the moves leave behind.
    #[inline]
    fn move_some(&mut self) {
        if self.growing() {
            self.move_on();
        }
    }

    fn move_on(&mut self) {
        let start = self.moved;
        let end = (start + MOVES_PER_CALL).min(self.old.slots());
        for slot in start..end {
            let (stored, key) = self.old.probe(slot);
            if stored >= OFFSET {
                self.table.put(K::unpack(key), stored);
                // So that the rest of its chunk iterates without it.
                self.old.set_value(slot, MOVED);
            }
        }
        self.moved = end;
        if end == self.old.slots() {
            self.old = Table::default();
            self.moved = 0;
        } else {
            for chunk in start >> CHUNK_BITS..end >> CHUNK_BITS {
                self.old.free(chunk);
            }
        }
    }

    /// Whether a growth is under way.
    pub(crate) fn growing(&self) -> bool {
        self.old.slots() != 0
    }

    /// Slots of the table, the range of [`at`](Self::at)'s argument.
    pub(crate) fn slots(&self) -> usize {
        self.table.slots()
    }

    /// The entry in slot `slot` (below [`slots`](Self::slots)) of the
    /// table, if it holds one and no growth is under way (during one, an
    /// entry may be in either table). A scan of the slots while entries
    /// are removed: a removal may shift an entry of a later slot into the
    /// removed one's.
    pub(crate) fn at(&self, slot: usize) -> Option<(K, u32)> {
        if self.growing() {
            return None;
        }
        let (stored, key) = self.table.probe(slot);
        (stored >= OFFSET).then(|| (K::unpack(key), stored - OFFSET))
    }

    /// Every entry, in no particular order.
    pub(crate) fn iter(&self) -> impl Iterator<Item = (K, u32)> + '_ {
        self.table
            .entries()
            .chain(self.old.entries())
            .map(|(key, stored)| (key, stored - OFFSET))
    }

    /// All the entries, in a table of `slots` slots.
    fn rebuild(&mut self, mut table: Table<K>) {
        for (key, stored) in self.table.entries().chain(self.old.entries()) {
            table.put(key, stored);
        }
        self.table = table;
        self.old = Table::default();
        self.moved = 0;
    }

    /// Makes room for `additional` more entries, so that none of them
    /// starts a growth: a table that holds them all at most half full,
    /// the entries moved over now (O(`len`), as `Vec::reserve` copies).
    /// Only its directory is allocated (16 bytes per [`CHUNK`] slots);
    /// its chunks come when first written, as ever. (The key table asks
    /// for at most a collection's largest number of entries, so the
    /// directory is at most 32 MiB.)
    pub(crate) fn try_reserve(&mut self, additional: usize) -> Result<(), TryReserveError> {
        let wanted = self.len.saturating_add(additional).saturating_mul(2);
        if wanted <= self.table.slots() {
            return Ok(());
        }
        // Past the largest power of two, the directory's allocation fails.
        let slots = wanted
            .checked_next_power_of_two()
            .unwrap_or(1 << (usize::BITS - 1))
            .max(16);
        let table = Table::try_new(slots)?;
        self.rebuild(table);
        Ok(())
    }

    /// The smallest table that holds the entries at most half full.
    pub(crate) fn shrink_to_fit(&mut self) {
        let slots = match self.len {
            0 => 0,
            len => (len * 2).next_power_of_two().max(16),
        };
        self.rebuild(Table::new(slots));
    }

    /// Bytes allocated.
    #[cfg(test)]
    pub(crate) fn allocated(&self) -> usize {
        self.table.allocated() + self.old.allocated()
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use alloc::collections::BTreeMap;

    #[test]
    fn agrees_with_a_btreemap_under_churn_and_growth() {
        let mut map = IntMap::<usize>::default();
        let mut model = BTreeMap::new();
        let mut next = zorder_testkit::xorshift(0x2545_F491_4F6C_DD1D);
        let steps = if cfg!(miri) { 500 } else { 200_000 };
        for step in 0..steps as u32 {
            let state = next();
            // Keys collide, come back and leave often; the key set grows
            // over the run, so growths happen while entries come and go.
            let spread = 64 + step / 2;
            let key = (state % u64::from(spread)) as usize
                + usize::from((state >> 40) % 2 == 0) * (1 << 40);
            if state >> 62 != 0 && state >> 20 & 3 == 0 {
                // An update of a held key only.
                let held = model.contains_key(&key);
                assert_eq!(map.replace(key, step), held);
                if held {
                    model.insert(key, step);
                }
            } else if state >> 62 != 0 {
                map.insert(key, step);
                model.insert(key, step);
            } else {
                assert_eq!(map.remove(key), model.remove(&key));
            }
            assert_eq!(map.get(key), model.get(&key).copied());
            assert_eq!(map.len(), model.len());
        }
        for (&key, &value) in &model {
            assert_eq!(map.get(key), Some(value));
        }
        assert_eq!(map.iter().count(), model.len());
        map.shrink_to_fit();
        assert!(map.table.slots() <= (model.len() * 4).max(16));
        for (&key, &value) in &model {
            assert_eq!(map.get(key), Some(value));
        }
        for &key in model.keys() {
            map.remove(key);
        }
        assert_eq!(map.get(*model.keys().next().unwrap()), None);
        map.shrink_to_fit();
        assert_eq!(map.allocated(), 0);
    }

    /// Keys whose probes all wrap around the end of the table, found in
    /// whichever table they are during growths.
    #[test]
    fn a_growth_finds_entries_whose_probe_wraps_past_freed_chunks() {
        let mut map = IntMap::<usize>::default();
        // A table of `slots` slots grows to twice that at `slots / 2`
        // entries; every key's home is in the last sixth of any table.
        let slots = 4 * CHUNK;
        let keys: Vec<usize> = (0..)
            .filter(|&key: &usize| key.hash() >> 32 >= u64::from(u32::MAX) / 6 * 5)
            .take(slots / 2 + slots / 4)
            .collect();
        let mut growths = 0;
        for (value, &key) in keys.iter().enumerate() {
            map.insert(key, value as u32);
            if map.old.slots() != 0 && map.moved % CHUNK < MOVES_PER_CALL {
                growths += 1;
                for (value, &key) in keys[..=value].iter().enumerate() {
                    assert_eq!(
                        map.get(key),
                        Some(value as u32),
                        "{} slots moved",
                        map.moved
                    );
                }
            }
        }
        assert!(growths >= 2, "checked during growths");
        for (value, &key) in keys.iter().enumerate() {
            assert_eq!(map.remove(key), Some(value as u32));
        }
        assert_eq!(map.len(), 0);
    }

    /// A reservation made during a growth keeps every entry, and no
    /// insertion within it starts a growth.
    #[test]
    fn a_reservation_keeps_the_entries_and_prevents_growth() {
        let mut map = IntMap::<usize>::default();
        let mut key = 0;
        while map.old.slots() == 0 || map.moved == 0 {
            map.insert(key << 40, key as u32);
            key += 1;
        }
        let held = key;
        map.try_reserve(3 * CHUNK).expect("memory");
        let slots = map.table.slots();
        assert!(slots >= 2 * (held + 3 * CHUNK));
        assert_eq!(map.old.slots(), 0, "the growth under way is over");
        for key in held..held + 3 * CHUNK {
            map.insert(key << 40, key as u32);
            assert_eq!(map.table.slots(), slots, "no growth");
            assert_eq!(map.old.slots(), 0);
        }
        for key in 0..held + 3 * CHUNK {
            assert_eq!(map.get(key << 40), Some(key as u32));
        }
        assert_eq!(map.len(), held + 3 * CHUNK);
    }

    /// A growth allocates one chunk at a time.
    #[test]
    fn a_growth_allocates_a_chunk_at_a_time() {
        let mut map = IntMap::<usize>::default();
        for key in 0..8 * CHUNK {
            let allocated = |map: &IntMap<usize>| {
                map.table
                    .chunks
                    .iter()
                    .filter(|chunk| !chunk.is_empty())
                    .count()
            };
            let chunks = allocated(&map);
            map.insert(key, 0);
            let after = allocated(&map);
            assert!(after <= chunks + 1 + MOVES_PER_CALL || after == map.table.chunks.len());
        }
    }

    /// During a growth, the chunks of the old and the new tables together
    /// are about as many as the new table's: the old table's are freed as
    /// the moves pass them, and the new table's come as the moves reach
    /// them.
    #[test]
    fn a_growth_holds_about_the_new_tables_size() {
        let mut map = IntMap::<usize>::default();
        let mut next = zorder_testkit::xorshift(0x9E37_79B9);
        let allocated = |table: &Table<usize>| {
            table
                .chunks
                .iter()
                .filter(|chunk| !chunk.is_empty())
                .count()
        };
        let (mut growths, mut most, mut slots) = (0, 0, 0);
        let keys = if cfg!(miri) { 500 } else { 40 * CHUNK };
        let mut filed = Vec::with_capacity(keys);
        for step in 0..keys {
            let key = (next() >> 8) as usize;
            map.insert(key, 0);
            filed.push(key);
            // A removal now and then, of a key filed half as many steps
            // ago (during a growth, in either table).
            if step % 5 == 0 {
                assert_eq!(map.remove(filed[step / 2]), Some(0));
            }
            if map.growing() {
                let held = allocated(&map.table) + allocated(&map.old);
                most = most.max(held as isize - map.table.chunks.len() as isize);
            }
            growths += usize::from(map.table.slots() != slots);
            slots = map.table.slots();
        }
        assert!(growths >= 3, "{growths} growths");
        assert!(most <= 1, "{most} chunks beyond the new table's");
    }

    #[test]
    fn any_usize_is_a_key() {
        let mut map = IntMap::<usize>::default();
        let keys = [0, 1, usize::MAX, usize::MAX - 1, 1 << 40, 1 << 63];
        for (value, &key) in keys.iter().enumerate() {
            map.insert(key, value as u32);
        }
        for (value, &key) in keys.iter().enumerate() {
            assert_eq!(map.get(key), Some(value as u32));
        }
        assert_eq!(map.remove(usize::MAX), Some(2));
        assert_eq!(map.get(usize::MAX), None);
        assert_eq!(map.len(), keys.len() - 1);
    }
}
