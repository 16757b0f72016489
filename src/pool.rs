//! A pool of nodes addressed by 32-bit ids.
//!
//! Blocks, leaves and inner nodes live here rather than behind pointers: an
//! id is half the size of a pointer (a key's place fits in 32 bits), it
//! cannot dangle (every access is bounds-checked), and the whole crate stays
//! free of `unsafe`. Each node is its own allocation, so ids stay valid and
//! nodes never move while the pool grows.
//!
//! A freed node keeps its allocation in a bounded stock of spares, so a
//! collection in a steady state (as many nodes freed as taken) allocates
//! nothing; beyond the bound, freed nodes go back to the allocator at once,
//! so memory follows the live nodes down after a burst.

use alloc::boxed::Box;
use alloc::vec::Vec;

/// No node: the id stored where there is none.
pub(crate) const NONE: u32 = u32::MAX;

/// Spare nodes kept whatever the pool's size.
const MIN_SPARES: usize = 8;

#[derive(Debug)]
pub(crate) struct Pool<N> {
    /// Every id handed out; `None` for a free id.
    nodes: Vec<Option<Box<N>>>,
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
            nodes: Vec::new(),
            free_ids: Vec::new(),
            spares: Vec::new(),
            id_limit,
        }
    }

    /// Nodes in use.
    pub(crate) fn live(&self) -> usize {
        self.nodes.len() - self.free_ids.len()
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
        if let Some(id) = self.free_ids.pop() {
            self.nodes[id as usize] = Some(node);
            return Some(id);
        }
        let id = u32::try_from(self.nodes.len())
            .ok()
            .filter(|&id| id < self.id_limit);
        match id {
            Some(id) => {
                self.nodes.push(Some(node));
                Some(id)
            }
            None => {
                self.spares.push(node);
                None
            }
        }
    }

    /// Frees node `id`; its allocation becomes a spare while spares number
    /// fewer than a quarter of the live nodes (or `MIN_SPARES`).
    pub(crate) fn free(&mut self, id: u32) {
        let node = self.nodes[id as usize].take().expect("a live node");
        self.free_ids.push(id);
        if self.spares.len() < MIN_SPARES.max(self.live() / 4) {
            self.spares.push(node);
        }
    }

    #[inline]
    pub(crate) fn get(&self, id: u32) -> &N {
        self.nodes[id as usize].as_deref().expect("a live node")
    }

    #[inline]
    pub(crate) fn get_mut(&mut self, id: u32) -> &mut N {
        self.nodes[id as usize].as_deref_mut().expect("a live node")
    }

    /// Node `id`, if it is a live node.
    pub(crate) fn get_checked(&self, id: u32) -> Option<&N> {
        self.nodes.get(id as usize)?.as_deref()
    }

    /// Whether `count` more nodes can be stored.
    pub(crate) fn has_room(&self, count: usize) -> bool {
        let unused = (self.id_limit as usize).saturating_sub(self.nodes.len());
        self.free_ids.len() + unused >= count
    }

    /// Two different live nodes at once.
    pub(crate) fn pair_mut(&mut self, a: u32, b: u32) -> (&mut N, &mut N) {
        let (a, b) = (a as usize, b as usize);
        assert_ne!(a, b, "two different nodes");
        let (low, high) = self.nodes.split_at_mut(a.max(b));
        let (first, second) = (low[a.min(b)].as_deref_mut(), high[0].as_deref_mut());
        let (first, second) = (first.expect("a live node"), second.expect("a live node"));
        if a < b {
            (first, second)
        } else {
            (second, first)
        }
    }

    /// Every live node, in id order, with its id.
    pub(crate) fn iter(&self) -> impl Iterator<Item = (u32, &N)> {
        self.nodes
            .iter()
            .enumerate()
            .filter_map(|(id, node)| Some((id as u32, node.as_deref()?)))
    }

    /// Room for `additional` more nodes without growing the id table.
    pub(crate) fn reserve(&mut self, additional: usize) {
        let free = self.free_ids.len();
        self.nodes.reserve(additional.saturating_sub(free));
    }

    /// Gives back every spare node and the id table's unused capacity.
    pub(crate) fn shrink_to_fit(&mut self) {
        self.spares = Vec::new();
        while self.nodes.last().is_some_and(Option::is_none) {
            self.nodes.pop();
        }
        let len = self.nodes.len() as u32;
        self.free_ids.retain(|&id| id < len);
        self.nodes.shrink_to_fit();
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
