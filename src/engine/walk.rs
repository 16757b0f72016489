//! Walks: the traversal every face shares, from either end, over the whole
//! collection or over a range of Z.
//!
//! Back to front, a collection is its two chains merged by Z: the level
//! chain's entries and the tree chain's never share a Z, so a walk takes
//! from one chain the run of entries below the other's next Z, then
//! switches. Each end keeps a cursor in each chain and hands out one run
//! at a time, a slice of a leaf: within a run, a step is the next slot of a
//! slice, with no pool lookup, no call and no comparison of Z. A
//! collection of levels only, or of other Z values only, is one run per
//! leaf. Empty buckets waiting for pruning are in neither chain, so they
//! cost a walk nothing.
//!
//! The two ends walk independently and stop when they have yielded, in
//! all, as many entries as the walk covers: a walk of the whole collection
//! knows that number from the start; a walk of a range counts it, from the
//! end used first, when the other end is first used. So the ends never
//! yield one entry twice, however calls to them are mixed.

use super::entry::Entry;
use super::leaf::{Cursor, Leaf};
use super::pool::{NONE, Pool};

/// The leaves of both chains: `[levels, tree]`.
pub(crate) type Pools<'a, E> = [&'a Pool<Leaf<E>>; 2];

/// A run a walk hands out: `leaf`'s slots `start..stop` in chain `chain`.
#[derive(Clone, Copy)]
pub(crate) struct Run<'a, E: Entry> {
    pub(crate) chain: usize,
    pub(crate) leaf_id: u32,
    pub(crate) leaf: &'a Leaf<E>,
    pub(crate) start: usize,
    pub(crate) stop: usize,
}

/// Where the two ends of a walk are, and how far they may go: the state a
/// walk and a detached collection share, with no borrow in it.
#[derive(Clone, Copy, Debug)]
pub(crate) struct Ends {
    /// For each chain, the next entry walking up.
    up: [Cursor; 2],
    /// For each chain, one past the next entry walking down; a slot of
    /// `usize::MAX` means the end of its leaf.
    down: [Cursor; 2],
    /// The Z bits the walk covers, both included.
    low: i64,
    high: i64,
    /// Entries left to yield. A range does not know it until its second
    /// end is first used (then it counts them), and until then it is a
    /// large number that the first end's yields lower.
    pub(crate) remaining: usize,
    counted: bool,
    /// Whether each end has handed out a run.
    up_used: bool,
    down_used: bool,
}

impl Ends {
    /// The ends of a walk over a whole collection of `len` entries, whose
    /// chains run `first[c]..=last[c]`.
    pub(crate) fn whole(first: [u32; 2], last: [u32; 2], len: usize) -> Self {
        let cursor = |leaf, slot| Cursor { leaf, slot };
        Ends {
            up: [cursor(first[0], 0), cursor(first[1], 0)],
            down: [cursor(last[0], usize::MAX), cursor(last[1], usize::MAX)],
            low: i64::MIN,
            high: i64::MAX,
            remaining: len,
            counted: true,
            up_used: false,
            down_used: false,
        }
    }

    /// The ends of a walk over the entries with Z bits in `low..=high`,
    /// from the first (`up`, per chain) to the last (`down`, one past).
    pub(crate) fn range(up: [Cursor; 2], down: [Cursor; 2], low: i64, high: i64) -> Self {
        Ends {
            up,
            down,
            low,
            high,
            remaining: if low > high { 0 } else { usize::MAX },
            counted: low > high,
            up_used: false,
            down_used: false,
        }
    }

    /// An empty walk.
    pub(crate) fn empty() -> Self {
        Ends::whole([NONE; 2], [NONE; 2], 0)
    }

    /// Entries left to yield, if known (always, for a walk of a whole
    /// collection).
    #[inline]
    pub(crate) fn known_remaining(&self) -> Option<usize> {
        self.counted.then_some(self.remaining)
    }

    /// The next run walking up, or `None` at the end. `held` is how many
    /// entries the up end holds in a run handed out before and not yet
    /// yielded (they count when the walk counts its entries).
    #[inline(always)]
    pub(crate) fn next_up<'a, E: Entry>(
        &mut self,
        pools: Pools<'a, E>,
        held: usize,
    ) -> Option<Run<'a, E>> {
        if !self.counted && self.down_used && !self.up_used {
            let mut counter = *self;
            self.remaining = held + counter.count_down(pools);
            self.counted = true;
        }
        self.up_used = true;
        // The head of each chain: its next leaf and slot, and Z.
        let mut heads = [(NONE, 0, i64::MAX); 2];
        for (chain, head) in heads.iter_mut().enumerate() {
            let cursor = &mut self.up[chain];
            while cursor.leaf != NONE {
                let leaf = pools[chain].get(cursor.leaf);
                if cursor.slot < leaf.len {
                    *head = (cursor.leaf, cursor.slot, i64::from(leaf.z(cursor.slot)));
                    break;
                }
                *cursor = Cursor {
                    leaf: leaf.next,
                    slot: 0,
                };
            }
        }
        let chain = usize::from(heads[1].2 < heads[0].2);
        let (leaf_id, start, z) = heads[chain];
        if leaf_id == NONE || z > self.high {
            return None;
        }
        let leaf = pools[chain].get(leaf_id);
        let bound = heads[1 - chain].2.min(self.high.saturating_add(1));
        let stop = if bound > i64::from(i32::MAX) {
            leaf.len
        } else {
            leaf.count_below(bound)
        };
        self.up[chain].slot = stop;
        Some(Run {
            chain,
            leaf_id,
            leaf,
            start,
            stop,
        })
    }

    /// The next run walking down (its entries are yielded from `stop`
    /// down), or `None` at the end.
    #[inline(always)]
    pub(crate) fn next_down<'a, E: Entry>(
        &mut self,
        pools: Pools<'a, E>,
        held: usize,
    ) -> Option<Run<'a, E>> {
        if !self.counted && self.up_used && !self.down_used {
            let mut counter = *self;
            self.remaining = held + counter.count_up(pools);
            self.counted = true;
        }
        self.down_used = true;
        let mut heads = [(NONE, 0, i64::MIN); 2];
        for (chain, head) in heads.iter_mut().enumerate() {
            let cursor = &mut self.down[chain];
            while cursor.leaf != NONE {
                let leaf = pools[chain].get(cursor.leaf);
                let slot = cursor.slot.min(leaf.len);
                if slot > 0 {
                    cursor.slot = slot;
                    *head = (cursor.leaf, slot, i64::from(leaf.z(slot - 1)));
                    break;
                }
                *cursor = Cursor {
                    leaf: leaf.prev,
                    slot: usize::MAX,
                };
            }
        }
        let chain = usize::from(heads[1].2 > heads[0].2);
        let (leaf_id, stop, z) = heads[chain];
        if leaf_id == NONE || z < self.low {
            return None;
        }
        let leaf = pools[chain].get(leaf_id);
        let bound = heads[1 - chain].2.max(self.low.saturating_sub(1));
        let start = if bound < i64::from(i32::MIN) {
            0
        } else {
            leaf.count_at_or_below(bound)
        };
        self.down[chain].slot = start;
        Some(Run {
            chain,
            leaf_id,
            leaf,
            start,
            stop,
        })
    }

    /// The entries from the up end to the range's end (on a copy).
    fn count_up<E: Entry>(&mut self, pools: Pools<'_, E>) -> usize {
        self.down_used = false;
        let mut count = 0;
        while let Some(run) = self.next_up(pools, 0) {
            count += run.stop - run.start;
        }
        count
    }

    /// The entries from the down end to the range's start (on a copy).
    fn count_down<E: Entry>(&mut self, pools: Pools<'_, E>) -> usize {
        self.up_used = false;
        let mut count = 0;
        while let Some(run) = self.next_down(pools, 0) {
            count += run.stop - run.start;
        }
        count
    }
}

/// A walk over a collection's entries, yielding each with its Z bits (or,
/// when asked not to, with 0, skipping the load).
pub(crate) struct Walk<'a, E: Entry> {
    pools: Pools<'a, E>,
    ends: Ends,
    /// The run the up end reads, and its Z bits.
    up: &'a [E::Slot],
    up_zs: &'a [i32],
    /// The run the down end reads, from its end.
    down: &'a [E::Slot],
    down_zs: &'a [i32],
}

impl<E: Entry> Clone for Walk<'_, E> {
    fn clone(&self) -> Self {
        *self
    }
}

impl<E: Entry> Copy for Walk<'_, E> {}

impl<'a, E: Entry> Walk<'a, E> {
    pub(crate) fn new(pools: Pools<'a, E>, ends: Ends) -> Self {
        Walk {
            pools,
            ends,
            up: &[],
            up_zs: &[],
            down: &[],
            down_zs: &[],
        }
    }

    /// Entries left, if known (always, for a walk of a whole collection).
    #[inline]
    pub(crate) fn remaining(&self) -> Option<usize> {
        self.ends.known_remaining()
    }

    /// Entries left to yield: known, or counted now (a range's).
    pub(crate) fn len(&self) -> usize {
        match self.remaining() {
            Some(remaining) => remaining,
            None => self.fold_up::<false, _>(0, |count, _, _| count + 1),
        }
    }

    /// The next entry walking up (back to front), with its Z bits if `Z`.
    #[inline]
    pub(crate) fn next_up<const Z: bool>(&mut self) -> Option<(&'a E, i32)> {
        if self.ends.remaining == 0 {
            return None;
        }
        loop {
            if let Some((entry, rest)) = self.up.split_first() {
                self.up = rest;
                let mut z = 0;
                if Z {
                    let (&bits, rest) = self.up_zs.split_first()?;
                    self.up_zs = rest;
                    z = bits;
                }
                self.ends.remaining -= 1;
                return Some((E::get(entry), z));
            }
            if !self.advance_up() {
                return None;
            }
        }
    }

    /// The next entry walking down (front to back), with its Z bits if `Z`.
    #[inline]
    pub(crate) fn next_down<const Z: bool>(&mut self) -> Option<(&'a E, i32)> {
        if self.ends.remaining == 0 {
            return None;
        }
        loop {
            if let Some((entry, rest)) = self.down.split_last() {
                self.down = rest;
                let mut z = 0;
                if Z {
                    let (&bits, rest) = self.down_zs.split_last()?;
                    self.down_zs = rest;
                    z = bits;
                }
                self.ends.remaining -= 1;
                return Some((E::get(entry), z));
            }
            if !self.advance_down() {
                return None;
            }
        }
    }

    /// Folds every remaining entry walking up, with its Z bits if `Z`:
    /// the walk's internal iteration, a tight loop over each run.
    #[inline]
    pub(crate) fn fold_up<const Z: bool, B>(
        mut self,
        mut acc: B,
        mut f: impl FnMut(B, &'a E, i32) -> B,
    ) -> B {
        loop {
            let take = self.up.len().min(self.ends.remaining);
            for (i, slot) in self.up[..take].iter().enumerate() {
                let z = if Z { self.up_zs[i] } else { 0 };
                acc = f(acc, E::get(slot), z);
            }
            self.ends.remaining -= take;
            self.up = &[];
            if self.ends.remaining == 0 || !self.advance_up() {
                return acc;
            }
        }
    }

    /// Folds every remaining entry walking down, with its Z bits if `Z`.
    #[inline]
    pub(crate) fn fold_down<const Z: bool, B>(
        mut self,
        mut acc: B,
        mut f: impl FnMut(B, &'a E, i32) -> B,
    ) -> B {
        loop {
            let take = self.down.len().min(self.ends.remaining);
            let start = self.down.len() - take;
            for (i, slot) in self.down[start..].iter().enumerate().rev() {
                let z = if Z { self.down_zs[start + i] } else { 0 };
                acc = f(acc, E::get(slot), z);
            }
            self.ends.remaining -= take;
            self.down = &[];
            if self.ends.remaining == 0 || !self.advance_down() {
                return acc;
            }
        }
    }

    /// Hands the up end its next run. Returns whether there is one.
    ///
    /// Always inlined: a call in the loop of a walk would make the caller's
    /// own state (a renderer's floating-point sums, say) live in memory
    /// across it, since the call may clobber every vector register.
    #[inline(always)]
    fn advance_up(&mut self) -> bool {
        let Some(run) = self.ends.next_up(self.pools, self.down.len()) else {
            self.ends.remaining = 0;
            return false;
        };
        self.up = &run.leaf.slots()[run.start..run.stop];
        self.up_zs = &run.leaf.zs()[run.start..run.stop];
        true
    }

    /// Hands the down end its next run.
    #[inline(always)]
    fn advance_down(&mut self) -> bool {
        let Some(run) = self.ends.next_down(self.pools, self.up.len()) else {
            self.ends.remaining = 0;
            return false;
        };
        self.down = &run.leaf.slots()[run.start..run.stop];
        self.down_zs = &run.leaf.zs()[run.start..run.stop];
        true
    }
}

/// Every entry of a detached collection, taken out one by one from either
/// end, with its Z bits: what `drain` and `into_iter` yield.
pub(crate) struct Detached<E: Entry> {
    pools: [Pool<Leaf<E>>; 2],
    ends: Ends,
    /// The run each end takes from: `(chain, leaf, start, stop)`; the up
    /// end takes at `start`, the down end at `stop - 1`.
    up: (usize, u32, usize, usize),
    down: (usize, u32, usize, usize),
}

impl<E: Entry> Detached<E> {
    /// The entries of the two chains' leaves (`[levels, tree]`), which run
    /// `first[c]..=last[c]`; `len` of them.
    pub(crate) fn new(
        pools: [Pool<Leaf<E>>; 2],
        first: [u32; 2],
        last: [u32; 2],
        len: usize,
    ) -> Self {
        Detached {
            pools,
            ends: Ends::whole(first, last, len),
            up: (0, NONE, 0, 0),
            down: (0, NONE, 0, 0),
        }
    }

    pub(crate) fn len(&self) -> usize {
        self.ends.remaining
    }

    /// Every entry not taken out yet, in no particular order (before any
    /// is taken out: all of them).
    pub(crate) fn entries(&self) -> impl Iterator<Item = &E> + '_ {
        self.pools
            .iter()
            .flat_map(|pool| pool.iter())
            .flat_map(|(_, leaf)| (0..leaf.len).map(move |slot| leaf.get(slot)))
    }

    /// The next entry from the back.
    pub(crate) fn next_up(&mut self) -> Option<(E, i32)> {
        if self.ends.remaining == 0 {
            return None;
        }
        loop {
            let (chain, leaf, start, stop) = self.up;
            if start < stop {
                self.up.2 += 1;
                self.ends.remaining -= 1;
                let leaf = self.pools[chain].get_mut(leaf);
                return Some((leaf.take_at(start), leaf.z(start)));
            }
            let held = self.down.3 - self.down.2;
            let pools = [&self.pools[0], &self.pools[1]];
            let run = self.ends.next_up(pools, held)?;
            self.up = (run.chain, run.leaf_id, run.start, run.stop);
        }
    }

    /// The next entry from the front.
    pub(crate) fn next_down(&mut self) -> Option<(E, i32)> {
        if self.ends.remaining == 0 {
            return None;
        }
        loop {
            let (chain, leaf, start, stop) = self.down;
            if start < stop {
                self.down.3 -= 1;
                self.ends.remaining -= 1;
                let leaf = self.pools[chain].get_mut(leaf);
                return Some((leaf.take_at(stop - 1), leaf.z(stop - 1)));
            }
            let held = self.up.3 - self.up.2;
            let pools = [&self.pools[0], &self.pools[1]];
            let run = self.ends.next_down(pools, held)?;
            self.down = (run.chain, run.leaf_id, run.start, run.stop);
        }
    }
}
