//! The key table: the place of each key a [`ZOrder`](super::ZOrder) holds,
//! found by the key's index.
//!
//! Places are kept in chunks of [`CHUNK`] consecutive indices (a lookup is
//! a few loads, and keys with neighbouring indices have neighbouring
//! places). Game storage hands out small dense indices, and their chunks
//! sit in an array indexed by the chunk's number: an index is near while
//! it is below [`DENSE_FACTOR`] times the keys held (at least
//! [`DENSE_MIN`]). Other indices are far (a key made of an entity's or a
//! slotmap key's bits, whose index sits in the low bits under a
//! generation; a hostile document's `u32::MAX`): a far chunk is found by
//! its number, among the few there are or through a small hash map from
//! the chunk's number, so runs of far keys stay as local as dense ones. A
//! far key arriving where no chunk is starts one only if it continues a
//! run (see `in_a_run`) and far chunks would still hold at most
//! [`FAR_FACTOR`] slots per key held (beyond [`FAR_SPARE`] chunks); else
//! it goes to a hash map of single keys; a chunk that comes later takes
//! the single keys of its indices a few at a time as keys arrive single,
//! before the map would grow for them (see `sweep`). So memory stays
//! proportional to the keys held, whatever their indices. A far chunk
//! counts its keys, and goes when the last one leaves (a near chunk its
//! keys left stays until `shrink_to_fit`: it is bounded by the near
//! bound).
//!
//! Invariant: each held key's index has its place in exactly one chunk
//! slot or one entry of the single keys' map, chosen when the key
//! arrived; a single key a chunk has come around since moves in when its
//! place is next set or a sweep finds it. An absent index has none. A
//! chunk's number is in at most one of the near array and the far map.

use alloc::boxed::Box;
use alloc::collections::TryReserveError;
use alloc::vec;
use alloc::vec::Vec;

use crate::engine::IntMap;
use crate::engine::place::Place;

/// Indices per chunk (fewer under Miri and fuzzing, so that their small
/// inputs cross chunks' edges, and Miri retags a small chunk on each
/// access).
const CHUNK_BITS: u32 = if cfg!(any(fuzzing, miri)) { 6 } else { 10 };
const CHUNK: usize = 1 << CHUNK_BITS;

/// An index is near below this many times the keys held...
const DENSE_FACTOR: usize = 8;
/// ...or below this (four chunks).
const DENSE_MIN: usize = 4 * CHUNK;

/// Far chunks hold at most this many slots per key held...
const FAR_FACTOR: usize = 2;
/// ...beyond this many chunks.
const FAR_SPARE: usize = 1;

/// Far chunks found by comparing their numbers, up to this many (more are
/// found through the map of their numbers).
const FAR_SCANNED: usize = 4;

/// A far chunk that `shrink_to_fit` finds holding fewer keys than this
/// gives them to the single keys' map.
const FAR_KEEP: usize = CHUNK / 4;

/// Slots of the single keys' map a sweep looks at in a call.
const SWEPT: usize = 4;

/// The places of a chunk's indices, each plus one (0 for none, so a chunk
/// starts as zeroed memory).
type Chunk = Box<[u32; CHUNK]>;

/// A chunk of no places, from zeroed memory; or the allocation error.
fn try_new_chunk() -> Result<Chunk, TryReserveError> {
    let mut places = Vec::new();
    places.try_reserve_exact(CHUNK)?;
    places.resize(CHUNK, 0);
    Ok(places
        .into_boxed_slice()
        .try_into()
        .expect("a chunk's length"))
}

/// A chunk of no places.
fn new_chunk() -> Chunk {
    vec![0; CHUNK]
        .into_boxed_slice()
        .try_into()
        .expect("a chunk's length")
}

/// Keys held in a chunk.
fn population(chunk: &Chunk) -> usize {
    chunk.iter().filter(|&&bits| bits != 0).count()
}

/// A chunk slot, with its chunk's count of keys if the chunk is far.
type SlotMut<'a> = (&'a mut u32, Option<&'a mut usize>);

/// A far chunk: its number, how many keys it holds (never 0), its places.
#[derive(Debug, Clone)]
struct Far {
    number: usize,
    keys: usize,
    places: Chunk,
}

#[derive(Debug, Clone, Default)]
pub(crate) struct KeyTable {
    /// Chunk `c` holds the places of indices `c * CHUNK..`, if any was
    /// held there as a near index.
    near: Vec<Option<Chunk>>,
    /// The far chunks' numbers, each to its position in `far`.
    far_numbers: IntMap<usize>,
    /// The far chunks.
    far: Vec<Far>,
    /// The places of the far keys that have no chunk.
    single: IntMap<usize>,
    /// The index of the last key that went to `single`.
    last_single: Option<usize>,
    /// Slots of `single` still to look at for keys a chunk has come
    /// around since they went there (see [`sweep`](Self::sweep)).
    sweep_left: usize,
    /// The slot of `single` the sweep looks at next.
    sweep_at: usize,
    /// Keys held.
    held: usize,
}

impl KeyTable {
    /// The chunk slot of `index`, if its chunk exists.
    #[inline]
    fn slot(&self, index: usize) -> Option<&u32> {
        match self.near.get(index >> CHUNK_BITS) {
            Some(Some(chunk)) => Some(&chunk[index % CHUNK]),
            _ if self.far.is_empty() => None,
            _ => self.far_slot(index),
        }
    }

    /// [`slot`](Self::slot) in a far chunk, out of the near path.
    #[inline(never)]
    fn far_slot(&self, index: usize) -> Option<&u32> {
        let at = Self::far_position(&self.far_numbers, &self.far, index >> CHUNK_BITS)?;
        Some(&self.far[at].places[index % CHUNK])
    }

    /// The position in `far` of far chunk `number`, if it exists: a look
    /// at each while there are at most [`FAR_SCANNED`] (a game's entities
    /// of a few generations make a few, and comparing a few numbers costs
    /// less than a probe of the map), else the map's.
    #[inline]
    fn far_position(far_numbers: &IntMap<usize>, far: &[Far], number: usize) -> Option<usize> {
        if far.len() <= FAR_SCANNED {
            // Every number compared, none branched on: which chunk a key is
            // in is as unpredictable as the keys.
            let mut found = None;
            for (at, far) in far.iter().enumerate() {
                found = if far.number == number {
                    Some(at)
                } else {
                    found
                };
            }
            return found;
        }
        far_numbers.get(number).map(|at| at as usize)
    }

    /// The chunk slot of `index`, if its chunk exists, with the chunk's
    /// count of keys if it is a far one (over the fields, so that the
    /// single keys' map stays free to borrow).
    #[inline]
    fn slot_mut<'a>(
        near: &'a mut [Option<Chunk>],
        far_numbers: &IntMap<usize>,
        far: &'a mut [Far],
        index: usize,
    ) -> Option<SlotMut<'a>> {
        match near.get_mut(index >> CHUNK_BITS) {
            Some(Some(chunk)) => Some((&mut chunk[index % CHUNK], None)),
            _ if far.is_empty() => None,
            _ => Self::far_slot_mut(far_numbers, far, index),
        }
    }

    /// [`slot_mut`](Self::slot_mut) in a far chunk, out of the near path.
    #[inline(never)]
    fn far_slot_mut<'a>(
        far_numbers: &IntMap<usize>,
        far: &'a mut [Far],
        index: usize,
    ) -> Option<SlotMut<'a>> {
        let at = Self::far_position(far_numbers, far, index >> CHUNK_BITS)?;
        let far = &mut far[at];
        Some((&mut far.places[index % CHUNK], Some(&mut far.keys)))
    }

    /// The place of the key at `index`, or [`Place::NOWHERE`].
    #[inline]
    pub(crate) fn get(&self, index: usize) -> Place {
        if let Some(&bits) = self.slot(index)
            && bits != 0
        {
            return Place::from_bits(bits - 1);
        }
        if self.single.len() == 0 {
            return Place::NOWHERE;
        }
        self.single
            .get(index)
            .map_or(Place::NOWHERE, Place::from_bits)
    }

    /// Sets the place of the key at `index`, which the table holds (a
    /// moved entry's): the write alone when its slot is in a chunk.
    #[inline(always)]
    pub(crate) fn moved(&mut self, index: usize, place: Place) {
        match Self::slot_mut(&mut self.near, &self.far_numbers, &mut self.far, index) {
            Some((slot, _)) if *slot != 0 => *slot = place.to_bits() + 1,
            _ => self.moved_out_of_line(index, place),
        }
    }

    /// [`moved`](Self::moved) for a key with no place in a chunk, kept out
    /// of its callers: a single key's place written in one probe of its
    /// map, unless a chunk has come around it (`set` moves it in).
    #[inline(never)]
    fn moved_out_of_line(&mut self, index: usize, place: Place) {
        if self.single.len() == 0
            || self.slot(index).is_some()
            || !self.single.replace(index, place.to_bits())
        {
            self.set_out_of_line(index, place);
        }
    }

    /// [`set`](Self::set), kept out of line: inlined into
    /// [`moved_out_of_line`](Self::moved_out_of_line), its code would make
    /// that function save more registers at every call, which is one for
    /// each far key a block operation moves.
    #[inline(never)]
    fn set_out_of_line(&mut self, index: usize, place: Place) {
        self.set(index, place);
    }

    /// Sets the place of the key at `index` (a key arriving if none was
    /// set).
    #[inline]
    pub(crate) fn set(&mut self, index: usize, place: Place) {
        debug_assert_ne!(place, Place::NOWHERE);
        let bits = place.to_bits() + 1;
        if let Some((slot, keys)) =
            Self::slot_mut(&mut self.near, &self.far_numbers, &mut self.far, index)
        {
            if *slot != 0 {
                *slot = bits;
                return;
            }
            // A single key a chunk has come around moves into the chunk, so
            // that its lookups stop paying for both.
            if self.single.len() != 0 && self.single.remove(index).is_some() {
                *slot = bits;
                if let Some(keys) = keys {
                    *keys += 1;
                }
                return;
            }
            *slot = bits;
            self.held += 1;
            if let Some(keys) = keys {
                *keys += 1;
            }
            return;
        }
        self.sweep_if_due();
        // No chunk holds the index: a single key's, or a key arriving where
        // a chunk may start if it arrives (as `held + 1` keys would allow).
        let number = index >> CHUNK_BITS;
        let arriving = self.held + 1;
        let near = index < DENSE_FACTOR.saturating_mul(arriving).max(DENSE_MIN);
        let far = !near
            && self.in_a_run(index)
            && (self.far.len() + 1) * CHUNK
                <= FAR_FACTOR.saturating_mul(arriving) + FAR_SPARE * CHUNK;
        if !near && !far {
            // Single, arriving or not: the map's insertion finds the key or
            // its free slot in one probe.
            let before = self.single.len();
            self.single.insert(index, place.to_bits());
            if self.single.len() > before {
                self.held += 1;
                self.last_single = Some(index);
            }
            return;
        }
        if self.single.len() != 0 && self.single.replace(index, place.to_bits()) {
            return;
        }
        self.held += 1;
        let chunk = if near {
            if self.near.len() <= number {
                self.near.resize_with(number + 1, || None);
            }
            self.near[number].insert(new_chunk())
        } else {
            self.far_numbers.insert(number, self.far.len() as u32);
            self.far.push(Far {
                number,
                keys: 1,
                places: new_chunk(),
            });
            &mut self.far.last_mut().expect("a chunk just pushed").places
        };
        chunk[index % CHUNK] = bits;
        self.sweep_from_now();
    }

    /// A chunk has come: the single keys it may have come around are
    /// looked for, over a whole pass of the single keys' map.
    fn sweep_from_now(&mut self) {
        if self.single.len() != 0 {
            self.sweep_left = self.single.slots();
        }
    }

    /// Looks at a few slots of the single keys' map, moving each key a
    /// chunk has come around into the chunk, so that the map does not
    /// grow for keys that have a chunk (and their lookups stop paying for
    /// both): [`SWEPT`] slots a call, a pass over the map's whole table
    /// from the last chunk's coming. It looks only while the map is at
    /// least three eighths full (it grows at half), so keys arriving pay
    /// for it only when it saves a growth, and never while the map grows
    /// (an entry may then be in either of its tables).
    #[inline(never)]
    fn sweep(&mut self) {
        if self.single.growing() {
            return;
        }
        let slots = self.single.slots();
        if self.single.len() == 0 || slots == 0 {
            self.sweep_left = 0;
            return;
        }
        if self.single.len() * 8 < slots * 3 {
            return;
        }
        for _ in 0..SWEPT {
            if self.sweep_left == 0 {
                return;
            }
            let at = self.sweep_at % slots;
            let moved = self.single.at(at).is_some_and(|(index, place)| {
                let Some((slot, keys)) =
                    Self::slot_mut(&mut self.near, &self.far_numbers, &mut self.far, index)
                else {
                    return false;
                };
                debug_assert_eq!(*slot, 0, "a single key has no place in a chunk");
                *slot = place + 1;
                if let Some(keys) = keys {
                    *keys += 1;
                }
                self.single.remove(index);
                true
            });
            // After a removal the slot is looked at again: the removal may
            // have shifted a later slot's entry into it.
            if !moved {
                self.sweep_at = at + 1;
                self.sweep_left -= 1;
            }
        }
    }

    /// Whether a far key arriving at `index`, where no chunk is, continues
    /// a run: the chunk before or after its own exists, or the last single
    /// key is its neighbour or in its chunk. A run of keys arriving in
    /// order, either way, leaves one key in `single` and fills chunks; so
    /// do keys of a few chunks arriving in any order (an entity's bits:
    /// a generation above the indices of a slab); scattered keys make
    /// none.
    fn in_a_run(&self, index: usize) -> bool {
        let number = index >> CHUNK_BITS;
        self.last_single
            .is_some_and(|last| last.abs_diff(index) == 1 || last >> CHUNK_BITS == number)
            || !self.far.is_empty()
                && [number.wrapping_sub(1), number.wrapping_add(1)]
                    .into_iter()
                    .any(|next| Self::far_position(&self.far_numbers, &self.far, next).is_some())
    }

    /// The key at `index` leaves.
    #[inline]
    pub(crate) fn forget(&mut self, index: usize) {
        if let Some((slot, keys)) =
            Self::slot_mut(&mut self.near, &self.far_numbers, &mut self.far, index)
            && *slot != 0
        {
            *slot = 0;
            self.held -= 1;
            if let Some(keys) = keys {
                *keys -= 1;
                if *keys == 0 {
                    self.free_far(index >> CHUNK_BITS);
                }
            }
            return;
        }
        if self.single.len() != 0 && self.single.remove(index).is_some() {
            self.held -= 1;
        }
    }

    /// A [`sweep`](Self::sweep)'s step if one is under way: taken by the
    /// keys arriving where no chunk is, those that may make the single
    /// keys' map grow (keys arriving in a chunk, dense ones among them,
    /// pay nothing for it, nor removals).
    #[inline]
    fn sweep_if_due(&mut self) {
        if self.sweep_left != 0 {
            self.sweep();
        }
    }

    /// Frees far chunk `number`, whose last key left.
    #[inline(never)]
    fn free_far(&mut self, number: usize) {
        let at = self
            .far_numbers
            .remove(number)
            .expect("a far chunk is found by its number") as usize;
        self.far.swap_remove(at);
        if let Some(moved) = self.far.get(at) {
            self.far_numbers.insert(moved.number, at as u32);
        }
    }

    /// Checks that each far chunk counts its keys, holds one at least,
    /// and is found by its number (tests and fuzzing).
    #[cfg(any(test, feature = "check"))]
    pub(crate) fn check(&self) {
        for (at, far) in self.far.iter().enumerate() {
            assert_eq!(
                far.keys,
                population(&far.places),
                "a far chunk counts its keys"
            );
            assert_ne!(far.keys, 0, "a far chunk its keys left goes");
            assert_eq!(self.far_numbers.get(far.number), Some(at as u32));
        }
        assert_eq!(self.far_numbers.len(), self.far.len());
    }

    /// Keys held.
    #[cfg(any(test, feature = "check"))]
    pub(crate) fn held(&self) -> usize {
        self.held
    }

    /// Room for `end` keys: chunks for the indices `..end` (near for
    /// `end` keys), so that keys arriving there allocate nothing; and the
    /// directories of far keys' tables sized for `end` keys, so that keys
    /// arriving elsewhere allocate a chunk at a time, never a larger
    /// table. Or the allocation error (what was allocated so far stays).
    pub(crate) fn try_reserve(&mut self, end: usize) -> Result<(), TryReserveError> {
        // Any of the keys may arrive single; far chunks hold at most
        // `FAR_FACTOR` slots per key held, beyond `FAR_SPARE`.
        self.single
            .try_reserve(end.saturating_sub(self.single.len()))?;
        let far_chunks = FAR_FACTOR.saturating_mul(end) / CHUNK + FAR_SPARE;
        self.far
            .try_reserve(far_chunks.saturating_sub(self.far.len()))?;
        self.far_numbers
            .try_reserve(far_chunks.saturating_sub(self.far_numbers.len()))?;
        let chunks = end.div_ceil(CHUNK);
        if self.near.len() < chunks {
            self.near.try_reserve(chunks - self.near.len())?;
            self.near.resize_with(chunks, || None);
        }
        let mut came = false;
        for (number, chunk) in self.near[..chunks].iter_mut().enumerate() {
            if chunk.is_none() && self.far_numbers.get(number).is_none() {
                *chunk = Some(try_new_chunk()?);
                came = true;
            }
        }
        if came {
            self.sweep_from_now();
        }
        Ok(())
    }

    /// Gives back chunks no key uses, and capacity: afterwards the table
    /// holds what one filled with the same keys would (near chunks beyond
    /// the near bound and far chunks of few keys give their keys to the
    /// single keys' map; far chunks now below the bound become near; single
    /// keys go into their index's chunk if it is kept, or if a quarter of
    /// a chunk's keys are single).
    pub(crate) fn shrink_to_fit(&mut self) {
        let limit = DENSE_FACTOR.saturating_mul(self.held).max(DENSE_MIN);
        let mut numbered: Vec<(usize, Chunk)> = Vec::new();
        for (number, chunk) in core::mem::take(&mut self.near).into_iter().enumerate() {
            numbered.extend(chunk.map(|chunk| (number, chunk)));
        }
        numbered.extend(self.far.drain(..).map(|far| (far.number, far.places)));
        self.far_numbers = IntMap::default();
        for (number, chunk) in numbered {
            let keys = population(&chunk);
            if keys == 0 {
                continue;
            }
            if number * CHUNK < limit || keys >= FAR_KEEP {
                self.keep_chunk(number, keys, chunk, limit);
            } else {
                for (i, &bits) in chunk.iter().enumerate() {
                    if bits != 0 {
                        self.single.insert(number * CHUNK + i, bits - 1);
                    }
                }
            }
        }
        // Single keys go into the chunk of their index if it is kept, or
        // if they are enough to keep one of their own (keys that arrived
        // far, or scattered, before the keys around them came).
        let mut singles: Vec<(usize, u32)> = self.single.iter().collect();
        singles.sort_unstable_by_key(|&(index, _)| index);
        self.single = IntMap::default();
        for run in singles.chunk_by(|a, b| a.0 >> CHUNK_BITS == b.0 >> CHUNK_BITS) {
            let number = run[0].0 >> CHUNK_BITS;
            let kept = matches!(self.near.get(number), Some(Some(_)))
                || self.far_numbers.get(number).is_some();
            if !kept && run.len() < FAR_KEEP {
                for &(index, place) in run {
                    self.single.insert(index, place);
                }
                continue;
            }
            if !kept {
                self.keep_chunk(number, 0, new_chunk(), limit);
            }
            let (near, far_numbers, far) = (&mut self.near, &self.far_numbers, &mut self.far);
            for &(index, place) in run {
                let (slot, keys) =
                    Self::slot_mut(near, far_numbers, far, index).expect("a chunk for the run");
                *slot = place + 1;
                if let Some(keys) = keys {
                    *keys += 1;
                }
            }
        }
        self.near.shrink_to_fit();
        self.far.shrink_to_fit();
        self.far_numbers.shrink_to_fit();
        self.single.shrink_to_fit();
        // No single key is left in a kept chunk's range.
        self.sweep_left = 0;
    }

    /// Keeps chunk `number`, holding `keys` keys: near if it lies below
    /// `limit`, else far (a step of [`shrink_to_fit`](Self::shrink_to_fit)).
    fn keep_chunk(&mut self, number: usize, keys: usize, places: Chunk, limit: usize) {
        if number * CHUNK < limit {
            if self.near.len() <= number {
                self.near.resize_with(number + 1, || None);
            }
            self.near[number] = Some(places);
        } else {
            self.far_numbers.insert(number, self.far.len() as u32);
            self.far.push(Far {
                number,
                keys,
                places,
            });
        }
    }

    /// Every held index with its place.
    #[cfg(any(test, feature = "check"))]
    pub(crate) fn iter(&self) -> impl Iterator<Item = (usize, Place)> + '_ {
        let near = self
            .near
            .iter()
            .enumerate()
            .filter_map(|(number, chunk)| Some((number, chunk.as_ref()?)));
        let far = self.far.iter().map(|far| (far.number, &far.places));
        near.chain(far)
            .flat_map(|(number, chunk)| {
                chunk
                    .iter()
                    .enumerate()
                    .filter(|&(_, &bits)| bits != 0)
                    .map(move |(i, &bits)| (number * CHUNK + i, Place::from_bits(bits - 1)))
            })
            .chain(
                self.single
                    .iter()
                    .map(|(index, bits)| (index, Place::from_bits(bits))),
            )
    }

    /// Bytes allocated.
    #[cfg(test)]
    pub(crate) fn allocated(&self) -> usize {
        let chunks = self.near.iter().flatten().count() + self.far.len();
        self.near.capacity() * core::mem::size_of::<Option<Chunk>>()
            + self.far.capacity() * core::mem::size_of::<Far>()
            + chunks * CHUNK * core::mem::size_of::<u32>()
            + self.far_numbers.allocated()
            + self.single.allocated()
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::engine::place::Chain;

    fn place(n: u32) -> Place {
        Place::leaf(Chain::Tree, n, 0)
    }

    #[test]
    fn dense_and_far_indices_share_one_table() {
        let mut table = KeyTable::default();
        let indices = [
            0,
            5,
            DENSE_MIN - 1,
            DENSE_MIN,
            10_000,
            u32::MAX as usize,
            usize::MAX,
            1 << 40,
        ];
        for (n, &index) in indices.iter().enumerate() {
            table.set(index, place(n as u32));
        }
        assert_eq!(table.held(), indices.len());
        for (n, &index) in indices.iter().enumerate() {
            assert_eq!(table.get(index), place(n as u32), "{index}");
        }
        assert_eq!(table.get(6), Place::NOWHERE);
        // Far indices take no chunk.
        assert!(table.allocated() < 64 * 1024);
        table.set(usize::MAX, place(99));
        assert_eq!(table.get(usize::MAX), place(99));
        for &index in &indices {
            table.forget(index);
        }
        assert_eq!(table.held(), 0);
        table.shrink_to_fit();
        assert_eq!(table.allocated(), 0);
    }

    #[test]
    fn a_far_index_that_later_falls_in_a_chunk_stays_found() {
        let mut table = KeyTable::default();
        let far = 50 * CHUNK;
        table.set(far, place(1));
        let dense = far / DENSE_FACTOR + CHUNK;
        for index in 0..dense {
            table.set(index, place(2));
        }
        // `far` is now below DENSE_FACTOR times the keys held: its chunk
        // may appear...
        table.set(far + 1, place(3));
        assert_eq!((table.get(far), table.get(far + 1)), (place(1), place(3)));
        table.set(far, place(4));
        assert_eq!(table.get(far), place(4));
        table.forget(far);
        assert_eq!(table.get(far), Place::NOWHERE);
        assert_eq!(table.held(), dense + 1);
        assert_eq!(table.iter().count(), dense + 1);
    }

    #[test]
    fn runs_of_far_keys_fill_far_chunks() {
        let keys = 10 * CHUNK;
        let mut table = KeyTable::default();
        let base = usize::MAX - 20 * CHUNK;
        for (n, index) in (base..base + keys).enumerate() {
            table.set(index, place(n as u32));
        }
        // The run's first key is single; the others fill the chunks the
        // run spans (one more where it straddles a chunk's edge).
        assert_eq!(table.single.len(), 1);
        let most = keys.div_ceil(CHUNK) + 1;
        assert!(table.far.len() <= most, "{} > {most}", table.far.len());
        for (n, index) in (base..base + keys).enumerate() {
            assert_eq!(table.get(index), place(n as u32));
        }
        assert_eq!(table.get(base - 1), Place::NOWHERE);
        assert_eq!(table.get(base + keys), Place::NOWHERE);
    }

    #[test]
    fn scattered_far_keys_take_few_chunk_slots() {
        let keys = if cfg!(miri) { 600 } else { 10_000 };
        let mut table = KeyTable::default();
        let index = |n: usize| (n as u64).wrapping_mul(0x9E37_79B9_7F4A_7C15) as usize | 1 << 40;
        for n in 0..keys {
            table.set(index(n), place(n as u32));
            assert!(table.far.len() * CHUNK <= FAR_FACTOR * table.held() + FAR_SPARE * CHUNK);
        }
        assert!(table.single.len() > keys / 10 * 9);
        assert_eq!(table.held(), keys);
        assert_eq!(table.iter().count(), keys);
        for n in 0..keys {
            assert_eq!(table.get(index(n)), place(n as u32));
            table.set(index(n), place(n as u32 + 1));
        }
        for n in 0..keys {
            assert_eq!(table.get(index(n)), place(n as u32 + 1));
            table.forget(index(n));
            assert_eq!(table.get(index(n)), Place::NOWHERE);
        }
        assert_eq!(table.held(), 0);
        table.shrink_to_fit();
        assert_eq!(table.allocated(), 0);
    }

    #[test]
    fn entity_bits_in_any_order_fill_far_chunks() {
        // A slab's indices under a generation of 1 for four keys in five
        // and 2 for the rest (an entity's bits), filed in a random order:
        // a key arriving in the chunk of the last single key starts the
        // chunk, so the keys fill two far chunks, but for those that
        // arrive before far chunks may hold them, or before their chunk.
        let keys = CHUNK * 125 / 128;
        let mut next = zorder_testkit::xorshift(0x9E37_79B9);
        let mut indices: Vec<usize> = (0..keys)
            .map(|index| (1 + usize::from(next() % 5 == 0)) << 32 | index)
            .collect();
        for i in (1..indices.len()).rev() {
            indices.swap(i, (next() % (i as u64 + 1)) as usize);
        }
        let mut table = KeyTable::default();
        for (n, &index) in indices.iter().enumerate() {
            table.set(index, place(n as u32));
        }
        table.check();
        assert_eq!(table.far.len(), 2);
        assert!(
            table.single.len() < keys / 5,
            "{} single",
            table.single.len()
        );
        for (n, &index) in indices.iter().enumerate() {
            assert_eq!(table.get(index), place(n as u32));
            table.moved(index, place(n as u32 + 1));
        }
        // A single key moves into its chunk when it moves.
        table.check();
        assert_eq!(table.single.len(), 0);
        assert_eq!(table.held(), keys);
        for (n, &index) in indices.iter().enumerate() {
            assert_eq!(table.get(index), place(n as u32 + 1));
            table.forget(index);
            assert_eq!(table.get(index), Place::NOWHERE);
        }
        table.check();
        assert_eq!(
            (table.held(), table.far.len(), table.single.len()),
            (0, 0, 0)
        );
    }

    #[test]
    fn a_sweep_moves_single_keys_into_the_chunk_that_came_around_them() {
        let mut table = KeyTable::default();
        let far = 1 << 40;
        // A first far chunk, of two keys: the budget has room for no
        // other until half a chunk's keys are held.
        table.set(far, place(0));
        table.set(far + 1, place(0));
        assert_eq!(table.far.len(), 1);
        // A run of keys of another chunk: single until the budget lets
        // their chunk start, the keys after that in it.
        let run = far + 10 * CHUNK;
        let filed: Vec<usize> = (run..run + CHUNK / 2 + CHUNK / 10).collect();
        for (i, &index) in filed.iter().enumerate() {
            table.set(index, place(i as u32));
        }
        assert_eq!(table.far.len(), 2);
        let before = table.single.len();
        assert!(before > CHUNK / 4, "{before} single");
        // Scattered keys arriving single, as many as the map holds before
        // it grows, drive the sweep, which moves the run's single keys
        // into their chunk to make room: the map does not grow.
        let scattered = |n: usize| far + (n + 100) * 16 * CHUNK;
        let slots = table.single.slots();
        let count = slots / 2 - 1;
        for n in 0..count {
            table.set(scattered(n), place(7));
        }
        table.check();
        assert_eq!(table.single.slots(), slots, "no growth");
        assert_eq!(
            table.single.len(),
            count,
            "only the scattered keys are single"
        );
        assert_eq!(table.held(), 2 + filed.len() + count);
        for (i, &index) in filed.iter().enumerate() {
            assert_eq!(table.get(index), place(i as u32));
        }
        for n in 0..count {
            assert_eq!(table.get(scattered(n)), place(7));
        }
    }

    #[test]
    fn a_far_chunk_goes_when_its_last_key_leaves() {
        // An entity's bits with a rising generation: each generation's
        // keys (125 in 128 of a chunk's, 1,000 natively) replace the last
        // one's. Their chunks go with them, so every generation fills
        // chunks (none is left to the single keys by chunks that only old
        // generations used).
        let mut table = KeyTable::default();
        let key = |generation: usize, index: usize| generation << 32 | index;
        // (Under Miri, a few generations.)
        let last = if cfg!(miri) { 6 } else { 199 };
        let keys = CHUNK * 125 / 128;
        for generation in 1..=last {
            for index in 0..keys {
                table.set(key(generation, index), place(index as u32));
                if generation > 1 {
                    table.forget(key(generation - 1, index));
                }
            }
            table.check();
            assert_eq!(table.held(), keys);
            assert!(table.far.len() <= 3, "{}", table.far.len());
            assert!(table.single.len() <= 2, "{}", table.single.len());
        }
        for index in 0..keys {
            table.forget(key(last, index));
        }
        table.check();
        assert_eq!((table.held(), table.far.len()), (0, 0));
    }

    #[test]
    fn shrinking_sorts_chunks_by_what_they_hold() {
        let mut table = KeyTable::default();
        // Two far runs, and a near one.
        let far = 1 << 40;
        for i in 0..2 * CHUNK {
            table.set(far + i, place(1));
        }
        for i in 0..CHUNK {
            table.set(i, place(2));
        }
        assert_eq!(table.far.len(), 2);
        // The first far chunk keeps few keys: they move to the single keys.
        for i in 1..CHUNK {
            table.forget(far + i);
        }
        table.shrink_to_fit();
        assert_eq!((table.far.len(), table.single.len()), (1, 1));
        assert_eq!(table.held(), 2 * CHUNK + 1);
        assert_eq!(table.iter().count(), 2 * CHUNK + 1);
        assert_eq!(table.get(far), place(1));
        assert_eq!(table.get(far + CHUNK + 5), place(1));
        assert_eq!(table.get(far + 1), Place::NOWHERE);
        assert_eq!(table.get(7), place(2));
        // A key arriving beside the single one lands in a far chunk, and
        // both stay found; the single one moves in place.
        table.set(far + 1, place(3));
        table.set(far, place(4));
        assert_eq!((table.get(far), table.get(far + 1)), (place(4), place(3)));
        table.forget(far);
        assert_eq!(
            (table.get(far), table.get(far + 1)),
            (Place::NOWHERE, place(3))
        );
    }

    #[test]
    fn shrinking_gives_single_keys_their_chunks() {
        let mut table = KeyTable::default();
        // Keys arriving in a scattered order, each far for the few keys
        // held when it came, and each in another chunk than the last: many
        // go to the single keys.
        let n = if cfg!(miri) { 2 * CHUNK } else { 8 * CHUNK };
        let chunks = n / CHUNK;
        let keys: Vec<usize> = (0..n)
            .map(|i| {
                (5 * n).max(2 * DENSE_MIN)
                    + i % chunks * CHUNK
                    + (i / chunks * 2_654_435_761) % CHUNK
            })
            .collect();
        for (i, &index) in keys.iter().enumerate() {
            table.set(index, place(i as u32));
        }
        // And a few scattered far keys, too few for a chunk.
        let far = 1 << 40;
        for i in 0..FAR_KEEP - 1 {
            table.set(far + 3 * i, place(7));
        }
        assert!(table.single.len() > FAR_KEEP);
        let before = table.allocated();
        table.shrink_to_fit();
        assert!(table.allocated() < before);
        table.check();
        // The run's keys are all in chunks; the scattered ones stay single.
        assert_eq!(table.single.len(), FAR_KEEP - 1);
        assert_eq!(table.held(), n + FAR_KEEP - 1);
        for (i, &index) in keys.iter().enumerate() {
            assert_eq!(table.get(index), place(i as u32));
        }
        assert_eq!(table.get(far + 3), place(7));
        let mut held: Vec<usize> = table.iter().map(|(index, _)| index).collect();
        held.sort_unstable();
        let mut expected: Vec<usize> = keys.clone();
        expected.extend((0..FAR_KEEP - 1).map(|i| far + 3 * i));
        expected.sort_unstable();
        assert_eq!(held, expected, "every key is listed once, at its index");
    }

    #[test]
    fn a_far_chunk_below_the_near_bound_is_reserved_around() {
        // An index far for a few keys (past DENSE_MIN), and near once half
        // as many keys as it arrive (DENSE_FACTOR times them passes it).
        let far = 100 * CHUNK;
        let mut table = KeyTable::default();
        // A run of two makes a far chunk.
        table.set(far - 1, place(1));
        table.set(far, place(1));
        assert_eq!(table.far.len(), 1);
        // A reservation for twice as many keys covers its chunk's number.
        table.try_reserve(2 * far).expect("memory");
        table.set(far + 1, place(2));
        assert_eq!((table.get(far), table.get(far + 1)), (place(1), place(2)));
        for index in 0..far / 2 {
            table.set(index, place(3));
        }
        // Now near: shrinking moves the chunk into the near array.
        table.shrink_to_fit();
        assert_eq!(table.far.len(), 0);
        assert_eq!((table.get(far), table.get(far + 1)), (place(1), place(2)));
        assert_eq!(table.held(), far / 2 + 3);
    }
}
