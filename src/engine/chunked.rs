//! A vector in fixed chunks: it grows a chunk at a time and never copies
//! its elements, so no push or growth costs more than allocating one
//! chunk (a doubling `Vec` copies everything at each new high-water mark).
//! Only the directory of chunks doubles, and it holds one pointer per
//! [`CHUNK`] elements.

use alloc::boxed::Box;
use alloc::collections::TryReserveError;
use alloc::vec;
use alloc::vec::Vec;

/// Elements per chunk.
const CHUNK_BITS: u32 = 10;
const CHUNK: usize = 1 << CHUNK_BITS;

/// A chunk: an array, so an index within it needs no bounds check.
type Chunk<T> = Box<[T; CHUNK]>;

#[derive(Debug, Clone)]
pub(crate) struct ChunkedVec<T> {
    chunks: Vec<Chunk<T>>,
    len: usize,
}

impl<T: Copy> ChunkedVec<T> {
    pub(crate) const fn new() -> Self {
        ChunkedVec {
            chunks: Vec::new(),
            len: 0,
        }
    }

    #[inline]
    pub(crate) fn len(&self) -> usize {
        self.len
    }

    #[inline]
    pub(crate) fn get(&self, index: usize) -> Option<&T> {
        if index >= self.len {
            return None;
        }
        Some(&self.chunks[index >> CHUNK_BITS][index % CHUNK])
    }

    #[inline]
    pub(crate) fn get_mut(&mut self, index: usize) -> Option<&mut T> {
        if index >= self.len {
            return None;
        }
        Some(&mut self.chunks[index >> CHUNK_BITS][index % CHUNK])
    }

    /// Appends `value`.
    pub(crate) fn push(&mut self, value: T) {
        if self.len == self.chunks.len() * CHUNK {
            let Ok(chunk) = vec![value; CHUNK].into_boxed_slice().try_into() else {
                unreachable!("a chunk's length")
            };
            self.chunks.push(chunk);
        }
        let index = self.len;
        self.len += 1;
        self.chunks[index >> CHUNK_BITS][index % CHUNK] = value;
    }

    /// Sets every element to `value`.
    pub(crate) fn fill(&mut self, value: T) {
        let mut left = self.len;
        for chunk in &mut self.chunks {
            let count = left.min(CHUNK);
            chunk[..count].fill(value);
            left -= count;
        }
    }

    /// Removes every element and keeps the chunks.
    pub(crate) fn clear(&mut self) {
        self.len = 0;
    }

    /// Room in the directory for `len` elements, so growth to `len` only
    /// allocates chunks; or the allocation error.
    pub(crate) fn try_reserve_to(&mut self, len: usize) -> Result<(), TryReserveError> {
        let chunks = len.div_ceil(CHUNK);
        self.chunks
            .try_reserve(chunks.saturating_sub(self.chunks.len()))
    }

    /// Gives back the directory's unused capacity (the chunks stay: a
    /// collection that shrinks makes a new vector).
    pub(crate) fn shrink_to_fit(&mut self) {
        self.chunks.shrink_to_fit();
    }

    /// Bytes allocated.
    #[cfg(test)]
    pub(crate) fn allocated(&self) -> usize {
        self.chunks.capacity() * core::mem::size_of::<Chunk<T>>()
            + self.chunks.len() * CHUNK * core::mem::size_of::<T>()
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
        assert_eq!(vec.get(CHUNK + 1), Some(&(CHUNK as u32 + 1)));
        assert_eq!(vec.get(vec.len()), None);
        *vec.get_mut(CHUNK).unwrap() = 9;
        assert_eq!(vec.get(CHUNK), Some(&9));
        vec.fill(7);
        assert!((0..vec.len()).all(|i| vec.get(i) == Some(&7)));
        assert_eq!(vec.chunks.len(), 4);
        vec.shrink_to_fit();
        let pointer = core::mem::size_of::<Chunk<u32>>();
        assert_eq!(vec.allocated(), 4 * pointer + 4 * CHUNK * 4);
    }
}
