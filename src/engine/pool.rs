//! A pool of nodes addressed by 32-bit ids.
//!
//! Blocks, leaves and inner nodes live here rather than behind pointers: an
//! id is half the size of a pointer (a key's place fits in 32 bits), it
//! cannot dangle (every access is bounds-checked), and the whole crate stays
//! free of `unsafe`. Each node is its own allocation, so ids stay valid and
//! nodes never move while the pool grows.
//!
//! The id table is a directory of fixed chunks of [`CHUNK`] ids, so the
//! pool grows by one small chunk at a time: no operation ever copies the
//! whole table, as a doubling `Vec` would at each new high-water mark (the
//! directory itself doubles, but it holds one pointer per chunk).
//!
//! A freed node keeps its allocation in a bounded stock of spares, so a
//! collection in a steady state (as many nodes freed as taken) allocates
//! nothing; beyond the bound, freed nodes go back to the allocator at once,
//! so memory follows the live nodes down after a burst. A pass that frees
//! nodes to store as many again (the level chain's rebuild) keeps them
//! all until it ends, then trims the stock to the bound.

use alloc::boxed::Box;
use alloc::collections::TryReserveError;
use alloc::vec::Vec;

/// No node: the id stored where there is none.
pub(crate) const NONE: u32 = u32::MAX;

/// Spare nodes kept whatever the pool's size.
const MIN_SPARES: usize = 8;

/// Ids per chunk of the id table.
const CHUNK_BITS: u32 = 6;
const CHUNK: usize = 1 << CHUNK_BITS;

/// Spares kept when `live` nodes are in use: a quarter of them, or
/// `MIN_SPARES`.
fn spares_bound(live: usize) -> usize {
    MIN_SPARES.max(live / 4)
}

/// A chunk of the id table: a node for each live id, `None` for a free one.
type Chunk<N> = [Option<Box<N>>; CHUNK];

#[derive(Debug)]
pub(crate) struct Pool<N> {
    /// The id table: id `i` is slot `i % CHUNK` of chunk `i / CHUNK`.
    #[expect(
        clippy::vec_box,
        reason = "boxed chunks: growing the directory copies one pointer per chunk"
    )]
    chunks: Vec<Box<Chunk<N>>>,
    /// Ids handed out so far (live or free); the chunks cover them.
    ids: usize,
    /// Free ids, reused last-freed first.
    free_ids: Vec<u32>,
    /// Freed nodes kept for reuse.
    spares: Vec<Box<N>>,
    /// Ids below this bound fit the places that name them.
    id_limit: u32,
}

impl<N> Pool<N> {
    /// A pool whose ids stay below `id_limit`.
    pub(crate) const fn new(id_limit: u32) -> Self {
        Pool {
            chunks: Vec::new(),
            ids: 0,
            free_ids: Vec::new(),
            spares: Vec::new(),
            id_limit,
        }
    }

    /// Nodes in use.
    pub(crate) fn live(&self) -> usize {
        self.ids - self.free_ids.len()
    }

    #[inline]
    fn slot(&self, id: u32) -> Option<&Option<Box<N>>> {
        let id = id as usize;
        self.chunks
            .get(id >> CHUNK_BITS)
            .map(|chunk| &chunk[id % CHUNK])
    }

    #[inline]
    fn slot_mut(&mut self, id: u32) -> &mut Option<Box<N>> {
        let id = id as usize;
        &mut self.chunks[id >> CHUNK_BITS][id % CHUNK]
    }

    /// Stores a node and returns its id: a spare reset by `reuse`, or a new
    /// one from `make`. `None` once every id below the limit is in use.
    pub(crate) fn alloc(
        &mut self,
        make: impl FnOnce() -> N,
        reuse: impl FnOnce(&mut N),
    ) -> Option<u32> {
        let node = match self.spares.pop() {
            Some(mut spare) => {
                reuse(&mut spare);
                spare
            }
            None => Box::new(make()),
        };
        let id = match self.free_ids.pop() {
            Some(id) => id,
            None => match u32::try_from(self.ids)
                .ok()
                .filter(|&id| id < self.id_limit)
            {
                Some(id) => {
                    if self.ids == self.chunks.len() * CHUNK {
                        self.chunks.push(Box::new([const { None }; CHUNK]));
                    }
                    self.ids += 1;
                    id
                }
                None => {
                    self.spares.push(node);
                    return None;
                }
            },
        };
        *self.slot_mut(id) = Some(node);
        Some(id)
    }

    /// Frees node `id`; its allocation becomes a spare while spares number
    /// fewer than the bound. Within a reservation it allocates nothing
    /// (see [`try_reserve`](Self::try_reserve)); past one, the free list
    /// and the stock grow as a `Vec` does.
    pub(crate) fn free(&mut self, id: u32) {
        let node = self.slot_mut(id).take().expect("a live node");
        self.free_ids.push(id);
        if self.spares.len() < spares_bound(self.live()) {
            self.spares.push(node);
        }
    }

    /// Frees node `id` and keeps its allocation whatever the bound, for a
    /// pass that frees nodes and stores as many again; the pass ends with
    /// [`trim_spares`](Self::trim_spares).
    pub(crate) fn free_for_reuse(&mut self, id: u32) {
        let node = self.slot_mut(id).take().expect("a live node");
        self.free_ids.push(id);
        self.spares.push(node);
    }

    /// Takes node `id` out of its slot, the id staying in use, for a pass
    /// that works on the node while it reaches others through the pool;
    /// [`put_back`](Self::put_back) or
    /// [`free_taken_for_reuse`](Self::free_taken_for_reuse) ends that.
    pub(crate) fn take_out(&mut self, id: u32) -> Box<N> {
        self.slot_mut(id).take().expect("a live node")
    }

    /// Puts node `id`, taken out, back in its slot.
    pub(crate) fn put_back(&mut self, id: u32, node: Box<N>) {
        let slot = self.slot_mut(id);
        debug_assert!(slot.is_none(), "a node taken out");
        *slot = Some(node);
    }

    /// Frees id `id`, whose node was taken out, and keeps the node as
    /// [`free_for_reuse`](Self::free_for_reuse) does.
    pub(crate) fn free_taken_for_reuse(&mut self, id: u32, node: Box<N>) {
        debug_assert!(
            self.slot(id).is_some_and(Option::is_none),
            "a node taken out"
        );
        self.free_ids.push(id);
        self.spares.push(node);
    }

    /// Gives back the spares beyond the bound.
    pub(crate) fn trim_spares(&mut self) {
        let bound = spares_bound(self.live());
        self.spares.truncate(bound);
    }

    #[inline]
    pub(crate) fn get(&self, id: u32) -> &N {
        self.get_checked(id).expect("a live node")
    }

    #[inline]
    pub(crate) fn get_mut(&mut self, id: u32) -> &mut N {
        self.slot_mut(id).as_deref_mut().expect("a live node")
    }

    /// Node `id`, if it is a live node.
    #[inline]
    pub(crate) fn get_checked(&self, id: u32) -> Option<&N> {
        self.slot(id)?.as_deref()
    }

    /// How many more nodes can be stored.
    #[inline]
    pub(crate) fn room(&self) -> usize {
        let unused = (self.id_limit as usize).saturating_sub(self.ids);
        self.free_ids.len() + unused
    }

    /// Two different live nodes at once.
    pub(crate) fn pair_mut(&mut self, a: u32, b: u32) -> (&mut N, &mut N) {
        assert_ne!(a, b, "two different nodes");
        let (low, high) = (a.min(b) as usize, a.max(b) as usize);
        let (first, second) = if low >> CHUNK_BITS == high >> CHUNK_BITS {
            let chunk = &mut self.chunks[low >> CHUNK_BITS];
            let (front, back) = chunk.split_at_mut(high % CHUNK);
            (&mut front[low % CHUNK], &mut back[0])
        } else {
            let (front, back) = self.chunks.split_at_mut(high >> CHUNK_BITS);
            (
                &mut front[low >> CHUNK_BITS][low % CHUNK],
                &mut back[0][high % CHUNK],
            )
        };
        let (first, second) = (first.as_deref_mut(), second.as_deref_mut());
        let (first, second) = (first.expect("a live node"), second.expect("a live node"));
        if a < b {
            (first, second)
        } else {
            (second, first)
        }
    }

    /// Every live node, in id order, with its id.
    pub(crate) fn iter(&self) -> impl Iterator<Item = (u32, &N)> {
        self.chunks
            .iter()
            .flat_map(|chunk| chunk.iter())
            .take(self.ids)
            .enumerate()
            .filter_map(|(id, node)| Some((id as u32, node.as_deref()?)))
    }

    /// Room for `additional` more nodes without growing the id table's
    /// directory, and for freeing every id the room covers without
    /// growing the free list or the stock of spares; or the allocation
    /// error.
    pub(crate) fn try_reserve(&mut self, additional: usize) -> Result<(), TryReserveError> {
        let new_ids = additional.saturating_sub(self.free_ids.len());
        let chunks = self.ids.saturating_add(new_ids).div_ceil(CHUNK);
        self.chunks
            .try_reserve(chunks.saturating_sub(self.chunks.len()))?;
        let ids = chunks.saturating_mul(CHUNK);
        self.free_ids
            .try_reserve(ids.saturating_sub(self.free_ids.len()))?;
        self.spares
            .try_reserve(spares_bound(ids).saturating_sub(self.spares.len()))
    }

    /// Gives back every spare node, the chunks past the highest live id,
    /// and the unused capacity of the tables.
    pub(crate) fn shrink_to_fit(&mut self) {
        self.spares = Vec::new();
        while self.ids > 0 && self.slot(self.ids as u32 - 1).is_some_and(Option::is_none) {
            self.ids -= 1;
        }
        self.chunks.truncate(self.ids.div_ceil(CHUNK));
        let ids = self.ids as u32;
        self.free_ids.retain(|&id| id < ids);
        self.chunks.shrink_to_fit();
        self.free_ids.shrink_to_fit();
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn ids_are_reused_and_spares_are_bounded() {
        let mut pool = Pool::new(100);
        let ids: Vec<u32> = (0..40).map(|i| pool.alloc(|| i, |_| {}).unwrap()).collect();
        assert_eq!(ids, (0..40).collect::<Vec<_>>());
        for &id in &ids[..30] {
            pool.free(id);
        }
        assert_eq!(pool.live(), 10);
        assert!(pool.spares.len() <= MIN_SPARES.max(40 / 4));
        let again = pool.alloc(|| 99, |n| *n = 77).unwrap();
        assert_eq!(again, 29, "the last freed id first");
        assert_eq!(*pool.get(again), 77, "a spare, reset");
        let (a, b) = pool.pair_mut(again, 35);
        core::mem::swap(a, b);
        assert_eq!((*pool.get(again), *pool.get(35)), (35, 77));
        assert_eq!(pool.iter().count(), 11);
    }

    #[test]
    fn ids_span_chunks_and_shrinking_gives_back_the_trailing_ones() {
        let count = 3 * CHUNK as u32 + 5;
        let mut pool = Pool::new(NONE);
        for i in 0..count {
            assert_eq!(pool.alloc(|| i, |_| {}), Some(i));
        }
        assert_eq!(pool.chunks.len(), 4);
        // Pairs within one chunk and across chunks, in either order.
        for (a, b) in [(1, 2), (CHUNK as u32 - 1, CHUNK as u32), (count - 1, 0)] {
            let (x, y) = pool.pair_mut(a, b);
            assert_eq!((*x, *y), (a, b));
            core::mem::swap(x, y);
            let (y, x) = pool.pair_mut(b, a);
            assert_eq!((*x, *y), (b, a));
            core::mem::swap(x, y);
        }
        for id in CHUNK as u32..count {
            pool.free(id);
        }
        assert_eq!(pool.get_checked(count), None, "past every id");
        assert_eq!(pool.get_checked(CHUNK as u32), None, "a free id");
        pool.shrink_to_fit();
        assert_eq!(
            (pool.ids, pool.chunks.len(), pool.live()),
            (CHUNK, 1, CHUNK)
        );
        assert_eq!(
            pool.alloc(|| 7, |_| {}),
            Some(CHUNK as u32),
            "ids go on after the live ones"
        );
        assert_eq!(pool.iter().map(|(id, _)| id).max(), Some(CHUNK as u32));
    }

    /// The free list's and the stock's capacities, which `free` must
    /// not change.
    fn room(pool: &Pool<u32>) -> (usize, usize) {
        (pool.free_ids.capacity(), pool.spares.capacity())
    }

    #[test]
    fn freeing_within_a_reservation_never_grows_a_table() {
        let count = 5 * CHUNK as u32 + 3;
        let mut pool = Pool::new(u32::MAX);
        pool.try_reserve(count as usize).unwrap();
        let reserved = room(&pool);
        let ids: Vec<u32> = (0..count)
            .map(|i| pool.alloc(|| i, |_| {}).unwrap())
            .collect();
        for &id in ids.iter().rev() {
            pool.free(id);
        }
        assert_eq!(room(&pool), reserved);
        assert_eq!(pool.live(), 0);
    }

    #[test]
    fn the_id_limit_is_an_error_not_a_panic() {
        let mut pool = Pool::new(2);
        assert!(pool.alloc(|| 0, |_| {}).is_some());
        assert!(pool.alloc(|| 0, |_| {}).is_some());
        assert!(pool.alloc(|| 0, |_| {}).is_none());
        pool.free(0);
        assert_eq!(pool.alloc(|| 0, |_| {}), Some(0));
        pool.shrink_to_fit();
        assert_eq!(pool.live(), 2);
    }
}
