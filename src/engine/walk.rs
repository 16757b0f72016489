//! Walks: the traversal every face shares, from either end, over the whole
//! collection or over a range of Z.
//!
//! Back to front, a collection is its two chains merged by Z: the level
//! chain's entries and the tree chain's never share a Z, so a walk takes
//! from one chain the run of entries below the other's next Z, then
//! switches. Each end keeps a cursor in each chain and hands out one run
//! at a time: occupied slots of a block (a bit mask), or a slice of a leaf.
//! Within a run a step is the next bit of a mask or the next slot of a
//! slice, with no pool lookup, no call and no comparison of Z. A
//! collection of levels only, or of other Z values only, is one run per
//! node. Empty buckets waiting for pruning are in neither chain, so they
//! cost a walk nothing.
//!
//! A fold (internal iteration: `for_each`, `fold`, `sum`, `collect`) by
//! an end whose other end has taken nothing, once one chain has nothing
//! left for it, goes through the rest of the other chain node by node,
//! with no merge and no count: the whole walk, when the collection holds
//! levels only or other Z values only.
//!
//! The two ends walk independently and stop when they have yielded, in
//! all, as many entries as the walk covers: a walk of the whole collection
//! knows that number from the start; a walk of a range counts it, from the
//! end used first, when the other end is first used. So the ends never
//! yield one entry twice, however calls to them are mixed (their runs may
//! overlap where they meet).

use super::block::{ALL, BLOCK_SLOTS, Block, Mask, highest};
use super::entry::Entry;
use super::leaf::{Cursor, Leaf};
use super::levels::BlockCursor;
use super::pool::{NONE, Pool};

/// The nodes of both chains.
pub(crate) struct Chains<'a, E: Entry> {
    pub(crate) blocks: &'a Pool<Block<E>>,
    pub(crate) leaves: &'a Pool<Leaf<E>>,
}

impl<E: Entry> Clone for Chains<'_, E> {
    fn clone(&self) -> Self {
        *self
    }
}

impl<E: Entry> Copy for Chains<'_, E> {}

impl<'a, E: Entry> Chains<'a, E> {
    /// Block `id`, if not `NONE`, with its occupied slots among `left`.
    #[inline]
    fn block_and_mask(self, id: u32, left: Mask) -> Option<(&'a Block<E>, Mask)> {
        (id != NONE).then(|| {
            let block = self.blocks.get(id);
            (block, left & block.occupied)
        })
    }

    /// The leaf of `cursor`, if not `NONE`, with its slot (at most the
    /// leaf's length).
    #[inline]
    fn leaf_and_slot(self, cursor: Cursor) -> Option<(&'a Leaf<E>, usize)> {
        (cursor.leaf != NONE).then(|| {
            let leaf = self.leaves.get(cursor.leaf);
            (leaf, cursor.slot.min(leaf.len))
        })
    }

    /// Folds the rest of one chain from a cursor on (in the tree, walking
    /// down, one past the next entry), walking up if `UP`, else down: an
    /// end that walks alone needs no merge with the other chain and no
    /// count, only each node's entries in turn.
    #[inline]
    fn fold_rest<const UP: bool, const Z: bool, B>(
        self,
        rest: Rest,
        mut acc: B,
        mut f: impl FnMut(B, &'a E, i32) -> B,
    ) -> B {
        match rest {
            Rest::Blocks(cursor) => {
                let mut next = self.block_and_mask(cursor.block, cursor.left);
                while let Some((block, mask)) = next {
                    // The next node's header loads while this one's
                    // entries are read (after churn, a cache miss a node).
                    next = self.block_and_mask(if UP { block.next } else { block.prev }, ALL);
                    // Walking down, the mask is reversed, so that each step
                    // takes its lowest bit too.
                    let mut mask = if UP { mask } else { reversed(mask) };
                    while mask != 0 {
                        let slot = if UP {
                            mask.trailing_zeros() as usize & (BLOCK_SLOTS - 1)
                        } else {
                            reversed_lowest(mask)
                        };
                        mask &= mask - 1;
                        acc = f(acc, block.get(slot), if Z { block.z(slot) } else { 0 });
                    }
                }
            }
            Rest::Leaves(cursor) => {
                let mut next = self.leaf_and_slot(cursor);
                while let Some((leaf, slot)) = next {
                    next = self.leaf_and_slot(if UP {
                        Cursor {
                            leaf: leaf.next,
                            slot: 0,
                        }
                    } else {
                        Cursor {
                            leaf: leaf.prev,
                            slot: usize::MAX,
                        }
                    });
                    let range = if UP { slot..leaf.len } else { 0..slot };
                    let (slots, zs) = (&leaf.slots()[range.clone()], &leaf.zs()[range]);
                    let mut step =
                        |acc, i: usize, slot| f(acc, E::get(slot), if Z { zs[i] } else { 0 });
                    if UP {
                        for (i, slot) in slots.iter().enumerate() {
                            acc = step(acc, i, slot);
                        }
                    } else {
                        for (i, slot) in slots.iter().enumerate().rev() {
                            acc = step(acc, i, slot);
                        }
                    }
                }
            }
        }
        acc
    }
}

/// A run a walk hands out.
pub(crate) enum Run<'a, E: Entry> {
    /// The slots `mask` of block `id`.
    Block {
        id: u32,
        block: &'a Block<E>,
        mask: Mask,
    },
    /// The slots `start..stop` of leaf `id`.
    Leaf {
        id: u32,
        leaf: &'a Leaf<E>,
        start: usize,
        stop: usize,
    },
}

/// All a walk's end has left, when it is the rest of one chain from a
/// cursor on: see [`Ends::rest_up`].
enum Rest {
    Blocks(BlockCursor),
    Leaves(Cursor),
}

/// Where the two ends of a walk are, and how far they may go: the state a
/// walk and a detached collection share, with no borrow in it.
#[derive(Clone, Copy, Debug)]
pub(crate) struct Ends {
    /// The next entries walking up, in each chain.
    up_block: BlockCursor,
    up_leaf: Cursor,
    /// The next entries walking down, in each chain (in the tree, one past
    /// the next entry; a slot of `usize::MAX` means the end of its leaf).
    down_block: BlockCursor,
    down_leaf: Cursor,
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
    /// level chain runs `blocks` and tree chain `leaves` (first, last).
    pub(crate) fn whole(blocks: [u32; 2], leaves: [u32; 2], len: usize) -> Self {
        Ends {
            up_block: BlockCursor {
                block: blocks[0],
                left: ALL,
            },
            up_leaf: Cursor {
                leaf: leaves[0],
                slot: 0,
            },
            down_block: BlockCursor {
                block: blocks[1],
                left: ALL,
            },
            down_leaf: Cursor {
                leaf: leaves[1],
                slot: usize::MAX,
            },
            low: i64::MIN,
            high: i64::MAX,
            remaining: len,
            counted: true,
            up_used: false,
            down_used: false,
        }
    }

    /// The ends of a walk over the entries with Z bits in `low..=high`,
    /// from the first (`up`, per chain) to the last (`down`).
    pub(crate) fn range(
        up: (BlockCursor, Cursor),
        down: (BlockCursor, Cursor),
        low: i64,
        high: i64,
    ) -> Self {
        Ends {
            up_block: up.0,
            up_leaf: up.1,
            down_block: down.0,
            down_leaf: down.1,
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
    /// entries the down end holds in a run handed out before and not yet
    /// yielded (they count when the walk counts its entries).
    #[inline(always)]
    pub(crate) fn next_up<'a, E: Entry>(
        &mut self,
        chains: Chains<'a, E>,
        held: usize,
    ) -> Option<Run<'a, E>> {
        if !self.counted && self.down_used && !self.up_used {
            let mut counter = *self;
            self.remaining = held + counter.count_down(chains);
            self.counted = true;
        }
        self.up_used = true;
        // The next entry of each chain, and its Z.
        let mut block_head = (None, i64::MAX);
        let cursor = &mut self.up_block;
        while cursor.block != NONE {
            let block = chains.blocks.get(cursor.block);
            cursor.left &= block.occupied;
            if cursor.left != 0 {
                let z = block.z(cursor.left.trailing_zeros() as usize);
                block_head = (Some(block), i64::from(z));
                break;
            }
            *cursor = BlockCursor {
                block: block.next,
                left: ALL,
            };
        }
        let mut leaf_head = (None, i64::MAX);
        let cursor = &mut self.up_leaf;
        while cursor.leaf != NONE {
            let leaf = chains.leaves.get(cursor.leaf);
            if cursor.slot < leaf.len {
                leaf_head = (Some(leaf), i64::from(leaf.z(cursor.slot)));
                break;
            }
            *cursor = Cursor {
                leaf: leaf.next,
                slot: 0,
            };
        }
        if block_head.1 < leaf_head.1 {
            let block = block_head.0?;
            if block_head.1 > self.high {
                return None;
            }
            let bound = leaf_head.1.min(self.high.saturating_add(1));
            let mut mask = self.up_block.left;
            if bound <= i64::from(i32::MAX) {
                mask &= block.below(bound);
            }
            let id = self.up_block.block;
            self.up_block.left &= !mask;
            if self.up_block.left == 0 && block.next != NONE {
                // On to the next block now: its header loads while the
                // caller reads this run.
                let next = chains.blocks.get(block.next);
                self.up_block = BlockCursor {
                    block: block.next,
                    left: next.occupied,
                };
            }
            Some(Run::Block { id, block, mask })
        } else {
            let leaf = leaf_head.0?;
            if leaf_head.1 > self.high {
                return None;
            }
            let bound = block_head.1.min(self.high.saturating_add(1));
            let stop = if bound > i64::from(i32::MAX) {
                leaf.len
            } else {
                leaf.count_below(bound)
            };
            let id = self.up_leaf.leaf;
            let start = core::mem::replace(&mut self.up_leaf.slot, stop);
            Some(Run::Leaf {
                id,
                leaf,
                start,
                stop,
            })
        }
    }

    /// The next run walking down (its entries are yielded from its end),
    /// or `None` at the end.
    #[inline(always)]
    pub(crate) fn next_down<'a, E: Entry>(
        &mut self,
        chains: Chains<'a, E>,
        held: usize,
    ) -> Option<Run<'a, E>> {
        if !self.counted && self.up_used && !self.down_used {
            let mut counter = *self;
            self.remaining = held + counter.count_up(chains);
            self.counted = true;
        }
        self.down_used = true;
        let mut block_head = (None, i64::MIN);
        let cursor = &mut self.down_block;
        while cursor.block != NONE {
            let block = chains.blocks.get(cursor.block);
            cursor.left &= block.occupied;
            if cursor.left != 0 {
                let z = block.z(highest(cursor.left));
                block_head = (Some(block), i64::from(z));
                break;
            }
            *cursor = BlockCursor {
                block: block.prev,
                left: ALL,
            };
        }
        let mut leaf_head = (None, i64::MIN);
        let cursor = &mut self.down_leaf;
        while cursor.leaf != NONE {
            let leaf = chains.leaves.get(cursor.leaf);
            let slot = cursor.slot.min(leaf.len);
            if slot > 0 {
                cursor.slot = slot;
                leaf_head = (Some(leaf), i64::from(leaf.z(slot - 1)));
                break;
            }
            *cursor = Cursor {
                leaf: leaf.prev,
                slot: usize::MAX,
            };
        }
        if block_head.1 > leaf_head.1 {
            let block = block_head.0?;
            if block_head.1 < self.low {
                return None;
            }
            let bound = leaf_head.1.max(self.low.saturating_sub(1));
            let mut mask = self.down_block.left;
            if bound >= i64::from(i32::MIN) {
                mask &= !block.below(bound + 1);
            }
            let id = self.down_block.block;
            self.down_block.left &= !mask;
            if self.down_block.left == 0 && block.prev != NONE {
                // On to the previous block now (see `next_up`).
                let prev = chains.blocks.get(block.prev);
                self.down_block = BlockCursor {
                    block: block.prev,
                    left: prev.occupied,
                };
            }
            Some(Run::Block { id, block, mask })
        } else {
            let leaf = leaf_head.0?;
            if leaf_head.1 < self.low {
                return None;
            }
            let bound = block_head.1.max(self.low.saturating_sub(1));
            let start = if bound < i64::from(i32::MIN) {
                0
            } else {
                leaf.count_at_or_below(bound)
            };
            let stop = core::mem::replace(&mut self.down_leaf.slot, start);
            Some(Run::Leaf {
                id: self.down_leaf.leaf,
                leaf,
                start,
                stop,
            })
        }
    }

    /// What the up end has left, if it is the rest of one chain that the
    /// up end alone yields: the other chain has nothing left for it, the
    /// walk has no top bound, and the down end has taken nothing (so no
    /// count needs keeping).
    #[inline]
    fn rest_up(&self) -> Option<Rest> {
        if self.down_used || self.high < i64::from(i32::MAX) {
            None
        } else if self.up_leaf.leaf == NONE {
            Some(Rest::Blocks(self.up_block))
        } else if self.up_block.block == NONE {
            Some(Rest::Leaves(self.up_leaf))
        } else {
            None
        }
    }

    /// What the down end has left, if it is the rest of one chain that the
    /// down end alone yields (see [`rest_up`](Self::rest_up)).
    #[inline]
    fn rest_down(&self) -> Option<Rest> {
        if self.up_used || self.low > i64::from(i32::MIN) {
            None
        } else if self.down_leaf.leaf == NONE {
            Some(Rest::Blocks(self.down_block))
        } else if self.down_block.block == NONE {
            Some(Rest::Leaves(self.down_leaf))
        } else {
            None
        }
    }

    /// The entries from the up end to the range's end (on a copy).
    fn count_up<E: Entry>(&mut self, chains: Chains<'_, E>) -> usize {
        self.down_used = false;
        let mut count = 0;
        while let Some(run) = self.next_up(chains, 0) {
            count += run.len();
        }
        count
    }

    /// The entries from the down end to the range's start (on a copy).
    fn count_down<E: Entry>(&mut self, chains: Chains<'_, E>) -> usize {
        self.up_used = false;
        let mut count = 0;
        while let Some(run) = self.next_down(chains, 0) {
            count += run.len();
        }
        count
    }

    /// Counts the set bits of `mask` as yielded and returns them, or as
    /// many of its lowest as are left to yield (where the ends meet, or a
    /// range's count ends inside a run).
    #[inline]
    fn yield_lowest(&mut self, mask: Mask) -> Mask {
        let count = mask.count_ones() as usize;
        if count <= self.remaining {
            self.remaining -= count;
            return mask;
        }
        let mut rest = mask;
        let mut kept = 0;
        for _ in 0..self.remaining {
            let lowest = rest & rest.wrapping_neg();
            kept |= lowest;
            rest ^= lowest;
        }
        self.remaining = 0;
        kept
    }
}

impl<E: Entry> Run<'_, E> {
    fn len(&self) -> usize {
        match self {
            Run::Block { mask, .. } => mask.count_ones() as usize,
            Run::Leaf { start, stop, .. } => stop - start,
        }
    }
}

/// A block's mask with slot `s` at bit `BLOCK_SLOTS - 1 - s`, so that
/// the lowest bit is the highest slot.
#[inline]
fn reversed(mask: Mask) -> Mask {
    mask.reverse_bits() >> (Mask::BITS as usize - BLOCK_SLOTS)
}

/// The slot of a [`reversed`] mask's lowest bit (the mask not empty);
/// masked, so indexing with it needs no bounds check.
#[inline]
fn reversed_lowest(mask: Mask) -> usize {
    (BLOCK_SLOTS - 1 - mask.trailing_zeros() as usize) & (BLOCK_SLOTS - 1)
}

/// A walk over a collection's entries, yielding each with its Z bits (or,
/// when asked not to, with 0, skipping the load).
pub(crate) struct Walk<'a, E: Entry> {
    chains: Chains<'a, E>,
    ends: Ends,
    /// The block run the up end reads, and its slots not yet yielded.
    up_block: Option<&'a Block<E>>,
    up_mask: Mask,
    /// The leaf run the up end reads, and its Z bits.
    up: &'a [E::Slot],
    up_zs: &'a [i32],
    /// The runs the down end reads, from their ends.
    down_block: Option<&'a Block<E>>,
    /// The down end's slots not yet yielded, reversed (see
    /// [`reversed`]): walking down takes the lowest bit, the cheaper
    /// step.
    down_mask: Mask,
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
    pub(crate) fn new(chains: Chains<'a, E>, ends: Ends) -> Self {
        Walk {
            chains,
            ends,
            up_block: None,
            up_mask: 0,
            up: &[],
            up_zs: &[],
            down_block: None,
            down_mask: 0,
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
        loop {
            // (A range counts its entries when its second end starts: that
            // may leave none, even with a run in hand.)
            if self.ends.remaining == 0 {
                return None;
            }
            if self.up_mask != 0 {
                let block = self.up_block?;
                let slot = self.up_mask.trailing_zeros() as usize & (BLOCK_SLOTS - 1);
                self.up_mask &= self.up_mask - 1;
                self.ends.remaining -= 1;
                return Some((block.get(slot), if Z { block.z(slot) } else { 0 }));
            }
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
            if !self.advance_up_cold() {
                return None;
            }
        }
    }

    /// The next entry walking down (front to back), with its Z bits if `Z`.
    #[inline]
    pub(crate) fn next_down<const Z: bool>(&mut self) -> Option<(&'a E, i32)> {
        loop {
            // (A range counts its entries when its second end starts: that
            // may leave none, even with a run in hand.)
            if self.ends.remaining == 0 {
                return None;
            }
            if self.down_mask != 0 {
                let block = self.down_block?;
                let slot = reversed_lowest(self.down_mask);
                self.down_mask &= self.down_mask - 1;
                self.ends.remaining -= 1;
                return Some((block.get(slot), if Z { block.z(slot) } else { 0 }));
            }
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
            if !self.advance_down_cold() {
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
        // A walk that has handed out nothing (most folds) holds no run, and
        // this first step is then no code at all: such a walk of one chain
        // goes straight to `fold_rest`.
        acc = self.fold_up_held::<Z, B>(acc, &mut f);
        loop {
            if self.ends.remaining == 0 {
                return acc;
            }
            if let Some(rest) = self.ends.rest_up() {
                return self.chains.fold_rest::<true, Z, B>(rest, acc, f);
            }
            if !self.advance_up() {
                return acc;
            }
            acc = self.fold_up_held::<Z, B>(acc, &mut f);
        }
    }

    /// Folds the entries of the runs the up end holds, and lets them go.
    #[inline(always)]
    fn fold_up_held<const Z: bool, B>(
        &mut self,
        mut acc: B,
        f: &mut impl FnMut(B, &'a E, i32) -> B,
    ) -> B {
        if let Some(block) = self.up_block {
            // The slots to yield, counted once (the loop keeps the mask in
            // a register); the slot masked, so indexing needs no bounds
            // check.
            let mut mask = self.ends.yield_lowest(core::mem::take(&mut self.up_mask));
            while mask != 0 {
                let slot = mask.trailing_zeros() as usize & (BLOCK_SLOTS - 1);
                mask &= mask - 1;
                acc = f(acc, block.get(slot), if Z { block.z(slot) } else { 0 });
            }
        }
        let take = self.up.len().min(self.ends.remaining);
        for (i, slot) in self.up[..take].iter().enumerate() {
            let z = if Z { self.up_zs[i] } else { 0 };
            acc = f(acc, E::get(slot), z);
        }
        self.ends.remaining -= take;
        self.up = &[];
        acc
    }

    /// Folds every remaining entry walking down, with its Z bits if `Z`.
    #[inline]
    pub(crate) fn fold_down<const Z: bool, B>(
        mut self,
        mut acc: B,
        mut f: impl FnMut(B, &'a E, i32) -> B,
    ) -> B {
        // See `fold_up`.
        acc = self.fold_down_held::<Z, B>(acc, &mut f);
        loop {
            if self.ends.remaining == 0 {
                return acc;
            }
            if let Some(rest) = self.ends.rest_down() {
                return self.chains.fold_rest::<false, Z, B>(rest, acc, f);
            }
            if !self.advance_down() {
                return acc;
            }
            acc = self.fold_down_held::<Z, B>(acc, &mut f);
        }
    }

    /// Folds the entries of the runs the down end holds, and lets them go.
    #[inline(always)]
    fn fold_down_held<const Z: bool, B>(
        &mut self,
        mut acc: B,
        f: &mut impl FnMut(B, &'a E, i32) -> B,
    ) -> B {
        if let Some(block) = self.down_block {
            let mut mask = self.ends.yield_lowest(core::mem::take(&mut self.down_mask));
            while mask != 0 {
                let slot = reversed_lowest(mask);
                mask &= mask - 1;
                acc = f(acc, block.get(slot), if Z { block.z(slot) } else { 0 });
            }
        }
        let take = self.down.len().min(self.ends.remaining);
        let start = self.down.len() - take;
        for (i, slot) in self.down[start..].iter().enumerate().rev() {
            let z = if Z { self.down_zs[start + i] } else { 0 };
            acc = f(acc, E::get(slot), z);
        }
        self.ends.remaining -= take;
        self.down = &[];
        acc
    }

    /// [`advance_up`](Self::advance_up) out of line: one entry at a time,
    /// the call is rare and the caller's loop stays small. Cold, so that
    /// the caller's loop keeps its own state (a floating-point sum, say)
    /// in registers and spills it only around the call, which may clobber
    /// every vector register; else it lives in memory at every step.
    #[cold]
    #[inline(never)]
    fn advance_up_cold(&mut self) -> bool {
        self.advance_up()
    }

    /// [`advance_down`](Self::advance_down) out of line.
    #[cold]
    #[inline(never)]
    fn advance_down_cold(&mut self) -> bool {
        self.advance_down()
    }

    /// Hands the up end its next run. Returns whether there is one.
    ///
    /// Always inlined: a call in the loop of a walk would make the caller's
    /// own state (a renderer's floating-point sums, say) live in memory
    /// across it, since the call may clobber every vector register.
    #[inline(always)]
    fn advance_up(&mut self) -> bool {
        let held = self.down_mask.count_ones() as usize + self.down.len();
        match self.ends.next_up(self.chains, held) {
            None => {
                self.ends.remaining = 0;
                false
            }
            Some(Run::Block { block, mask, .. }) => {
                (self.up_block, self.up_mask) = (Some(block), mask);
                true
            }
            Some(Run::Leaf {
                leaf, start, stop, ..
            }) => {
                self.up = &leaf.slots()[start..stop];
                self.up_zs = &leaf.zs()[start..stop];
                true
            }
        }
    }

    /// Hands the down end its next run.
    #[inline(always)]
    fn advance_down(&mut self) -> bool {
        let held = self.up_mask.count_ones() as usize + self.up.len();
        match self.ends.next_down(self.chains, held) {
            None => {
                self.ends.remaining = 0;
                false
            }
            Some(Run::Block { block, mask, .. }) => {
                (self.down_block, self.down_mask) = (Some(block), reversed(mask));
                true
            }
            Some(Run::Leaf {
                leaf, start, stop, ..
            }) => {
                self.down = &leaf.slots()[start..stop];
                self.down_zs = &leaf.zs()[start..stop];
                true
            }
        }
    }
}

/// Where a detached collection's end takes its entries from.
#[derive(Clone, Copy)]
enum Taking {
    None,
    Block(u32, Mask),
    Leaf(u32, usize, usize),
}

impl Taking {
    fn held(&self) -> usize {
        match *self {
            Taking::None => 0,
            Taking::Block(_, mask) => mask.count_ones() as usize,
            Taking::Leaf(_, start, stop) => stop - start,
        }
    }

    fn of<E: Entry>(run: Run<'_, E>) -> Taking {
        match run {
            Run::Block { id, mask, .. } => Taking::Block(id, mask),
            Run::Leaf {
                id, start, stop, ..
            } => Taking::Leaf(id, start, stop),
        }
    }
}

/// Every entry of a detached collection, taken out one by one from either
/// end, with its Z bits: what `drain` and `into_iter` yield.
pub(crate) struct Detached<E: Entry> {
    blocks: Pool<Block<E>>,
    leaves: Pool<Leaf<E>>,
    ends: Ends,
    up: Taking,
    down: Taking,
}

impl<E: Entry> Detached<E> {
    /// The entries of the two chains' nodes, which run `blocks` and
    /// `leaves` (first, last); `len` of them.
    pub(crate) fn new(
        blocks: Pool<Block<E>>,
        leaves: Pool<Leaf<E>>,
        block_ends: [u32; 2],
        leaf_ends: [u32; 2],
        len: usize,
    ) -> Self {
        Detached {
            blocks,
            leaves,
            ends: Ends::whole(block_ends, leaf_ends, len),
            up: Taking::None,
            down: Taking::None,
        }
    }

    pub(crate) fn len(&self) -> usize {
        self.ends.remaining
    }

    /// Every entry not taken out yet, in no particular order (before any
    /// is taken out: all of them).
    pub(crate) fn entries(&self) -> impl Iterator<Item = &E> + '_ {
        let in_blocks = self.blocks.iter().flat_map(|(_, block)| {
            let mut bits = block.occupied;
            core::iter::from_fn(move || {
                (bits != 0).then(|| {
                    let slot = bits.trailing_zeros() as usize;
                    bits &= bits - 1;
                    block.get(slot)
                })
            })
        });
        let in_leaves = self
            .leaves
            .iter()
            .flat_map(|(_, leaf)| (0..leaf.len).map(move |slot| leaf.get(slot)));
        in_blocks.chain(in_leaves)
    }

    fn chains(&self) -> Chains<'_, E> {
        Chains {
            blocks: &self.blocks,
            leaves: &self.leaves,
        }
    }

    /// Takes the entry at `slot` of the node of `taking`.
    fn take(&mut self, taking: Taking, slot: usize) -> (E, i32) {
        match taking {
            Taking::Block(block, _) => {
                let (z, entry) = self.blocks.get_mut(block).take(slot);
                (entry, z)
            }
            Taking::Leaf(leaf, ..) => {
                let leaf = self.leaves.get_mut(leaf);
                let z = leaf.z(slot);
                (leaf.take_at(slot), z)
            }
            Taking::None => unreachable!("a run to take from"),
        }
    }

    /// The next entry from the back.
    pub(crate) fn next_up(&mut self) -> Option<(E, i32)> {
        if self.ends.remaining == 0 {
            return None;
        }
        loop {
            let slot = match &mut self.up {
                Taking::Block(_, mask) if *mask != 0 => {
                    let slot = mask.trailing_zeros() as usize;
                    *mask &= *mask - 1;
                    Some(slot)
                }
                Taking::Leaf(_, start, stop) if *start < *stop => {
                    *start += 1;
                    Some(*start - 1)
                }
                _ => None,
            };
            if let Some(slot) = slot {
                self.ends.remaining -= 1;
                return Some(self.take(self.up, slot));
            }
            let held = self.down.held();
            let mut ends = self.ends;
            let run = ends.next_up(self.chains(), held).map(Taking::of);
            self.ends = ends;
            self.up = run?;
        }
    }

    /// The next entry from the front.
    pub(crate) fn next_down(&mut self) -> Option<(E, i32)> {
        if self.ends.remaining == 0 {
            return None;
        }
        loop {
            let slot = match &mut self.down {
                Taking::Block(_, mask) if *mask != 0 => {
                    let slot = highest(*mask);
                    *mask &= !(1 << slot);
                    Some(slot)
                }
                Taking::Leaf(_, start, stop) if *start < *stop => {
                    *stop -= 1;
                    Some(*stop)
                }
                _ => None,
            };
            if let Some(slot) = slot {
                self.ends.remaining -= 1;
                return Some(self.take(self.down, slot));
            }
            let held = self.up.held();
            let mut ends = self.ends;
            let run = ends.next_down(self.chains(), held).map(Taking::of);
            self.ends = ends;
            self.down = run?;
        }
    }
}
