//! A vector in fixed chunks: it grows a chunk at a time and never copies
//! its elements, so no push or growth costs more than allocating one
//! chunk (a doubling `Vec` copies everything at each new high-water mark).
//! Only the directory of chunks doubles, and it holds one pointer per
//! [`CHUNK`] elements. A chunk is allocated with room for [`CHUNK`]
//! elements and written one push at a time, so its pages are first
//! touched by the pushes that reach them, not all by the one that
//! allocates it (the first touch of a page costs a fault, as much as
//! hundreds of pushes).

use alloc::boxed::Box;
use alloc::collections::TryReserveError;
use alloc::vec::Vec;

/// Elements per chunk.
const CHUNK_BITS: u32 = 10;
const CHUNK: usize = 1 << CHUNK_BITS;

#[derive(Debug)]
pub(crate) struct ChunkedVec<T> {
    /// The full chunks: chunk `c` holds elements `c * CHUNK..`. Arrays,
    /// so an index within one is not checked.
    full: Vec<Box<[T; CHUNK]>>,
    /// The chunk after them, with room for [`CHUNK`] elements from its
    /// first push (so it never reallocates), written a push at a time; it
    /// joins the full chunks when the next push needs a new one. It and
    /// the full chunks may hold elements past `len`, left by `clear` and
    /// overwritten by later pushes.
    tail: Vec<T>,
    len: usize,
}

impl<T: Copy> ChunkedVec<T> {
    pub(crate) const fn new() -> Self {
        ChunkedVec {
            full: Vec::new(),
            tail: Vec::new(),
            len: 0,
        }
    }

    #[inline]
    pub(crate) fn len(&self) -> usize {
        self.len
    }

    /// Appends `value`.
    pub(crate) fn push(&mut self, value: T) {
        let (number, at) = (self.len >> CHUNK_BITS, self.len % CHUNK);
        if number > self.full.len() {
            // The tail is full (its `CHUNK` elements fill its room): it
            // becomes an array with no copy, and a new tail starts.
            let tail = core::mem::take(&mut self.tail);
            let Ok(chunk) = tail.into_boxed_slice().try_into() else {
                unreachable!("a full chunk")
            };
            self.full.push(chunk);
        }
        match self.full.get_mut(number) {
            Some(chunk) => chunk[at] = value,
            None => match self.tail.get_mut(at) {
                Some(slot) => *slot = value,
                None => {
                    if self.tail.capacity() == 0 {
                        self.tail.reserve_exact(CHUNK);
                    }
                    self.tail.push(value);
                }
            },
        }
        self.len += 1;
    }

    /// Sets every element to `value`.
    pub(crate) fn fill(&mut self, value: T) {
        let mut left = self.len;
        for chunk in &mut self.full {
            let count = left.min(CHUNK);
            chunk[..count].fill(value);
            left -= count;
        }
        let count = left.min(self.tail.len());
        self.tail[..count].fill(value);
    }

    /// Removes every element and keeps the chunks.
    pub(crate) fn clear(&mut self) {
        self.len = 0;
    }

    /// Room in the directory for `len` elements, so growth to `len` only
    /// allocates chunks; or the allocation error.
    pub(crate) fn try_reserve_to(&mut self, len: usize) -> Result<(), TryReserveError> {
        let chunks = len / CHUNK;
        self.full
            .try_reserve(chunks.saturating_sub(self.full.len()))
    }

    /// Gives back the directory's unused capacity (the chunks stay: a
    /// collection that shrinks makes a new vector).
    pub(crate) fn shrink_to_fit(&mut self) {
        self.full.shrink_to_fit();
    }

    /// Bytes allocated.
    #[cfg(test)]
    pub(crate) fn allocated(&self) -> usize {
        self.full.capacity() * core::mem::size_of::<Box<[T; CHUNK]>>()
            + (self.full.len() * CHUNK + self.tail.capacity()) * core::mem::size_of::<T>()
    }
}

/// The element at an index below `len`. Only the chunk's bounds are
/// checked: an index past `len` but within the chunks reads an element
/// `clear` left (a caller's bug, as an index past a `Vec`'s length is);
/// past them it panics.
impl<T: Copy> core::ops::Index<usize> for ChunkedVec<T> {
    type Output = T;

    #[inline]
    fn index(&self, index: usize) -> &T {
        debug_assert!(index < self.len, "an index below the length");
        match self.full.get(index >> CHUNK_BITS) {
            Some(chunk) => &chunk[index % CHUNK],
            None => &self.tail[index % CHUNK],
        }
    }
}

impl<T: Copy> core::ops::IndexMut<usize> for ChunkedVec<T> {
    #[inline]
    fn index_mut(&mut self, index: usize) -> &mut T {
        debug_assert!(index < self.len, "an index below the length");
        match self.full.get_mut(index >> CHUNK_BITS) {
            Some(chunk) => &mut chunk[index % CHUNK],
            None => &mut self.tail[index % CHUNK],
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn grows_across_chunks_without_copying() {
        let mut vec = ChunkedVec::new();
        for i in 0..3 * CHUNK as u32 + 5 {
            vec.push(i);
        }
        assert_eq!(vec[CHUNK + 1], CHUNK as u32 + 1);
        vec[CHUNK] = 9;
        assert_eq!(vec[CHUNK], 9);
        vec.fill(7);
        assert!((0..vec.len()).all(|i| vec[i] == 7));
        assert_eq!((vec.full.len(), vec.tail.len()), (3, 5));
        // Cleared, it refills its chunks in place, the tail included.
        vec.clear();
        for i in 0..4 * CHUNK as u32 + 1 {
            vec.push(i + 1);
        }
        assert!((0..vec.len()).all(|i| vec[i] == i as u32 + 1));
        assert_eq!(vec.full.len(), 4);
        assert_eq!(vec.tail.len(), 1);
        vec.clear();
        for i in 0..3 * CHUNK as u32 + 5 {
            vec.push(i);
        }
        vec.shrink_to_fit();
        let pointer = core::mem::size_of::<Box<[u32; CHUNK]>>();
        assert_eq!(vec.allocated(), 4 * pointer + 5 * CHUNK * 4);
    }
}
