//! A small hash map from integer keys to 32-bit values: the pruning
//! ledger's map from a waiting bucket's Z to its record, and the keyed
//! face's table for keys whose index is far beyond the others.
//!
//! Open addressing with linear probing and backward-shift deletion, at
//! most half full, over a power-of-two table. It grows without a stall:
//! a full table is replaced by one twice its size, and the old table's
//! entries move over a few at a time, at each later insertion or removal,
//! while lookups read both; so no operation moves more than a few entries,
//! where a doubling map copies all of them at once.
//!
//! The crate's dependencies are `fixed` and nothing else, so no hash map
//! crate is at hand, and this one needs only the operations below. Values
//! are below `u32::MAX - 1`: a slot stores its value plus 2, and 0 and 1
//! mark free and moved slots, so a new table is zeroed memory.

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
/// growth is under way: enough to finish before the new table is half
/// full (it starts a quarter full, with twice the old table's slots).
const MOVES_PER_CALL: usize = 4;

/// A key of an [`IntMap`].
pub(crate) trait IntKey: Copy + Eq + Default {
    /// 64 well-mixed bits (Fibonacci hashing: the top bits are used).
    fn hash(self) -> u64;
}

impl IntKey for i32 {
    #[inline]
    fn hash(self) -> u64 {
        u64::from(self as u32).wrapping_mul(0x9E37_79B9_7F4A_7C15)
    }
}

impl IntKey for usize {
    #[inline]
    fn hash(self) -> u64 {
        let folded = (self as u64) ^ ((self as u64) >> 32);
        folded.wrapping_mul(0x9E37_79B9_7F4A_7C15)
    }
}

/// A table of power-of-two slots: keys, and values (stored plus
/// [`OFFSET`]) beside them.
#[derive(Debug, Clone, Default)]
struct Table<K> {
    keys: Vec<K>,
    values: Vec<u32>,
}

impl<K: IntKey> Table<K> {
    /// `slots` free slots, from zeroed memory.
    fn new(slots: usize) -> Self {
        Table {
            keys: vec![K::default(); slots],
            values: vec![FREE; slots],
        }
    }

    /// `slots` free slots, or the allocation error.
    fn try_new(slots: usize) -> Result<Self, TryReserveError> {
        let mut table = Table {
            keys: Vec::new(),
            values: Vec::new(),
        };
        table.keys.try_reserve_exact(slots)?;
        table.values.try_reserve_exact(slots)?;
        table.keys.resize(slots, K::default());
        table.values.resize(slots, FREE);
        Ok(table)
    }

    fn slots(&self) -> usize {
        self.values.len()
    }

    /// The slot for `key`'s probe to start at.
    #[inline]
    fn home(&self, key: K) -> usize {
        let bits = self.slots().trailing_zeros();
        key.hash().checked_shr(64 - bits).unwrap_or(0) as usize
    }

    /// The slot holding `key`, if any.
    #[inline]
    fn find(&self, key: K) -> Option<usize> {
        if self.values.is_empty() {
            return None;
        }
        let mask = self.slots() - 1;
        let mut slot = self.home(key);
        loop {
            match self.values[slot] {
                FREE => return None,
                MOVED => {}
                _ if self.keys[slot] == key => return Some(slot),
                _ => {}
            }
            slot = (slot + 1) & mask;
        }
    }

    /// Puts `key`, absent, into a free slot (there is one).
    #[inline]
    fn put(&mut self, key: K, stored: u32) {
        let mask = self.slots() - 1;
        let mut slot = self.home(key);
        while self.values[slot] != FREE {
            slot = (slot + 1) & mask;
        }
        self.keys[slot] = key;
        self.values[slot] = stored;
    }

    /// Removes the entry at `hole`, shifting back the entries its slot
    /// displaced (the table holds no moved slot).
    fn remove_at(&mut self, mut hole: usize) {
        let mask = self.slots() - 1;
        let mut slot = hole;
        loop {
            slot = (slot + 1) & mask;
            if self.values[slot] == FREE {
                break;
            }
            // An entry may fill the hole if the hole lies on its probe path
            // (cyclically between its home and its slot).
            let home = self.home(self.keys[slot]);
            if (slot.wrapping_sub(home) & mask) >= (slot.wrapping_sub(hole) & mask) {
                self.keys[hole] = self.keys[slot];
                self.values[hole] = self.values[slot];
                hole = slot;
            }
        }
        self.values[hole] = FREE;
    }

    /// Every entry, with its stored value.
    fn entries(&self) -> impl Iterator<Item = (K, u32)> + '_ {
        self.keys
            .iter()
            .zip(&self.values)
            .filter(|&(_, &stored)| stored >= OFFSET)
            .map(|(&key, &stored)| (key, stored))
    }

    #[cfg(test)]
    fn allocated(&self) -> usize {
        self.keys.capacity() * core::mem::size_of::<K>()
            + self.values.capacity() * core::mem::size_of::<u32>()
    }
}

#[derive(Debug, Clone, Default)]
pub(crate) struct IntMap<K> {
    table: Table<K>,
    /// The table being emptied into `table` during a growth, else empty.
    old: Table<K>,
    /// Old slots moved so far.
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
        if let Some(slot) = self.table.find(key) {
            return Some(self.table.values[slot] - OFFSET);
        }
        let slot = self.old.find(key)?;
        Some(self.old.values[slot] - OFFSET)
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
            match self.table.values[slot] {
                FREE => break,
                value if value != MOVED && self.table.keys[slot] == key => {
                    self.table.values[slot] = stored;
                    return;
                }
                _ => slot = (slot + 1) & mask,
            }
        }
        if let Some(old) = self.old.find(key) {
            self.old.values[old] = MOVED;
        } else {
            self.len += 1;
        }
        self.table.keys[slot] = key;
        self.table.values[slot] = stored;
    }

    /// Removes `key`, returning its value.
    pub(crate) fn remove(&mut self, key: K) -> Option<u32> {
        self.move_some();
        let stored = if let Some(slot) = self.table.find(key) {
            let stored = self.table.values[slot];
            self.table.remove_at(slot);
            stored
        } else {
            let slot = self.old.find(key)?;
            core::mem::replace(&mut self.old.values[slot], MOVED)
        };
        self.len -= 1;
        Some(stored - OFFSET)
    }

    /// Starts a growth: the table becomes the old one, and a table of
    /// twice its slots takes its place. A growth still under way is
    /// finished first (it never is, given [`MOVES_PER_CALL`]).
    fn grow(&mut self) {
        while self.old.slots() != 0 {
            self.move_some();
        }
        let slots = (self.table.slots() * 2).max(16);
        self.old = core::mem::replace(&mut self.table, Table::new(slots));
        self.moved = 0;
    }

    /// Moves a few entries of the old table to the new one.
    fn move_some(&mut self) {
        if self.old.slots() == 0 {
            return;
        }
        let end = (self.moved + MOVES_PER_CALL).min(self.old.slots());
        for slot in self.moved..end {
            let stored = self.old.values[slot];
            if stored >= OFFSET {
                self.table.put(self.old.keys[slot], stored);
                self.old.values[slot] = MOVED;
            }
        }
        self.moved = end;
        if end == self.old.slots() {
            self.old = Table::default();
        }
    }

    /// Every entry, in no particular order.
    #[cfg(any(test, feature = "check"))]
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
    }

    /// Room for `additional` more entries without a growth, or the
    /// allocation error (nothing changes then).
    pub(crate) fn try_reserve(&mut self, additional: usize) -> Result<(), TryReserveError> {
        let needed = self.len.saturating_add(additional).saturating_mul(2);
        if needed <= self.table.slots() {
            return Ok(());
        }
        let slots = needed.checked_next_power_of_two().unwrap_or(usize::MAX);
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
        let mut map = IntMap::<i32>::default();
        let mut model = BTreeMap::new();
        let mut state = 0x2545_F491_4F6C_DD1Du64;
        let steps = if cfg!(miri) { 2000 } else { 200_000 };
        for step in 0..steps as u32 {
            state ^= state << 13;
            state ^= state >> 7;
            state ^= state << 17;
            // Keys collide, come back and leave often; the key set grows
            // over the run, so growths happen while entries come and go.
            let spread = 64 + step / 2;
            let key = (state % u64::from(spread)) as i32 - 150
                + i32::from((state >> 40) % 2 == 0) * (1 << 16);
            if state >> 62 != 0 {
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
