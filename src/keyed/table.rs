//! The key table: the place of each key a [`ZOrder`](super::ZOrder) holds,
//! found by the key's index.
//!
//! Game storage hands out small dense indices, and for those the table is
//! an array indexed by the index, in chunks allocated where keys are (a
//! lookup is two loads). An index far beyond the others (a key made of an
//! entity's bits, a hostile document's `u32::MAX`) goes to a hash map
//! instead, so memory stays proportional to the keys held whatever their
//! indices: an index is dense while it is below [`DENSE_FACTOR`] times
//! the keys held (at least [`DENSE_MIN`]).
//!
//! Invariant: each held key's index has its place in exactly one of the
//! two, chosen when the key arrived; an absent index has none.

use alloc::boxed::Box;
use alloc::collections::TryReserveError;
use alloc::vec;
use alloc::vec::Vec;

use crate::engine::IntMap;
use crate::engine::place::Place;

/// Indices per chunk of the dense array.
const CHUNK_BITS: u32 = 10;
const CHUNK: usize = 1 << CHUNK_BITS;

/// An index is dense below this many times the keys held...
const DENSE_FACTOR: usize = 8;
/// ...or below this.
const DENSE_MIN: usize = 4096;

/// A chunk of no places, from zeroed memory.
fn new_chunk() -> Box<[u32; CHUNK]> {
    vec![0; CHUNK]
        .into_boxed_slice()
        .try_into()
        .expect("a chunk's length")
}

#[derive(Debug, Clone, Default)]
pub(crate) struct KeyTable {
    /// Chunk `c` holds the places of indices `c * CHUNK..`, each plus one
    /// (0 for none, so chunks start as zeroed memory), if any was held.
    dense: Vec<Option<Box<[u32; CHUNK]>>>,
    /// The places of the other indices.
    sparse: IntMap<usize>,
    /// Keys held.
    held: usize,
}

impl KeyTable {
    /// The place of the key at `index`, or [`Place::NOWHERE`].
    #[inline]
    pub(crate) fn get(&self, index: usize) -> Place {
        if let Some(Some(chunk)) = self.dense.get(index >> CHUNK_BITS) {
            let bits = chunk[index % CHUNK];
            if bits != 0 {
                return Place::from_bits(bits - 1);
            }
        }
        if self.sparse.len() == 0 {
            return Place::NOWHERE;
        }
        self.sparse
            .get(index)
            .map_or(Place::NOWHERE, Place::from_bits)
    }

    /// Sets the place of the key at `index` (a key arriving if none was
    /// set).
    #[inline]
    pub(crate) fn set(&mut self, index: usize, place: Place) {
        debug_assert_ne!(place, Place::NOWHERE);
        let bits = place.to_bits() + 1;
        if let Some(Some(chunk)) = self.dense.get_mut(index >> CHUNK_BITS) {
            let slot = &mut chunk[index % CHUNK];
            if *slot != 0 || self.sparse.len() == 0 || self.sparse.get(index).is_none() {
                self.held += usize::from(*slot == 0);
                *slot = bits;
                return;
            }
        }
        if self.sparse.len() != 0 && self.sparse.get(index).is_some() {
            self.sparse.insert(index, place.to_bits());
            return;
        }
        // A key arriving at an index with no chunk.
        self.held += 1;
        if index < DENSE_FACTOR.saturating_mul(self.held).max(DENSE_MIN) {
            let chunk = index >> CHUNK_BITS;
            if self.dense.len() <= chunk {
                self.dense.resize_with(chunk + 1, || None);
            }
            let chunk = self.dense[chunk].get_or_insert_with(new_chunk);
            chunk[index % CHUNK] = bits;
        } else {
            self.sparse.insert(index, place.to_bits());
        }
    }

    /// The key at `index` leaves.
    pub(crate) fn forget(&mut self, index: usize) {
        if let Some(Some(chunk)) = self.dense.get_mut(index >> CHUNK_BITS) {
            let slot = &mut chunk[index % CHUNK];
            if *slot != 0 {
                *slot = 0;
                self.held -= 1;
                return;
            }
        }
        if self.sparse.len() != 0 && self.sparse.remove(index).is_some() {
            self.held -= 1;
        }
    }

    /// Keys held.
    #[cfg(any(test, feature = "check"))]
    pub(crate) fn held(&self) -> usize {
        self.held
    }

    /// Chunks for the indices `..end` (below the dense bound for `end`
    /// keys), so that keys arriving there allocate nothing; or the
    /// allocation error (the chunks allocated so far stay).
    pub(crate) fn try_reserve_dense(&mut self, end: usize) -> Result<(), TryReserveError> {
        let chunks = end.div_ceil(CHUNK);
        if self.dense.len() < chunks {
            self.dense.try_reserve(chunks - self.dense.len())?;
            self.dense.resize_with(chunks, || None);
        }
        for chunk in &mut self.dense[..chunks] {
            if chunk.is_none() {
                let mut places = Vec::new();
                places.try_reserve_exact(CHUNK)?;
                places.resize(CHUNK, 0);
                *chunk = Some(
                    places
                        .into_boxed_slice()
                        .try_into()
                        .expect("a chunk's length"),
                );
            }
        }
        Ok(())
    }

    /// Gives back chunks no key uses, and capacity: afterwards the table
    /// holds what one filled with the same keys would (indices the dense
    /// rule no longer takes move to the hash map).
    pub(crate) fn shrink_to_fit(&mut self) {
        let limit = DENSE_FACTOR.saturating_mul(self.held).max(DENSE_MIN);
        let mut far = Vec::new();
        for (c, chunk) in self.dense.iter_mut().enumerate() {
            let Some(places) = chunk else { continue };
            for (i, &bits) in places.iter().enumerate() {
                let index = c * CHUNK + i;
                if bits != 0 && index >= limit {
                    far.push((index, bits - 1));
                }
            }
            if c * CHUNK >= limit || places.iter().all(|&bits| bits == 0) {
                *chunk = None;
            }
        }
        while self.dense.last().is_some_and(Option::is_none) {
            self.dense.pop();
        }
        self.dense.shrink_to_fit();
        for (index, bits) in far {
            self.sparse.insert(index, bits);
        }
        self.sparse.shrink_to_fit();
    }

    /// Every held index with its place.
    #[cfg(any(test, feature = "check"))]
    pub(crate) fn iter(&self) -> impl Iterator<Item = (usize, Place)> + '_ {
        let dense = self.dense.iter().enumerate().flat_map(|(c, chunk)| {
            chunk.iter().flat_map(move |places| {
                places
                    .iter()
                    .enumerate()
                    .filter(|&(_, &bits)| bits != 0)
                    .map(move |(i, &bits)| (c * CHUNK + i, Place::from_bits(bits - 1)))
            })
        });
        dense.chain(
            self.sparse
                .iter()
                .map(|(index, bits)| (index, Place::from_bits(bits))),
        )
    }

    /// Bytes allocated.
    #[cfg(test)]
    pub(crate) fn allocated(&self) -> usize {
        let chunks = self.dense.iter().flatten().count();
        self.dense.capacity() * core::mem::size_of::<Option<Box<[u32; CHUNK]>>>()
            + chunks * CHUNK * core::mem::size_of::<u32>()
            + self.sparse.allocated()
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
            4095,
            4096,
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
        table.set(50_000, place(1));
        for index in 0..7000 {
            table.set(index, place(2));
        }
        // 50,000 is now below 8 × 7001: its chunk may appear...
        table.set(50_001, place(3));
        assert_eq!((table.get(50_000), table.get(50_001)), (place(1), place(3)));
        table.set(50_000, place(4));
        assert_eq!(table.get(50_000), place(4));
        table.forget(50_000);
        assert_eq!(table.get(50_000), Place::NOWHERE);
        assert_eq!(table.held(), 7001);
        assert_eq!(table.iter().count(), 7001);
    }
}
