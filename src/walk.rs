//! Traversal: the walk both kinds of collection share, from either end.
//!
//! Back to front, a collection is: the tree's entries below the first
//! occupied bucket, that bucket, the tree's entries between it and the
//! next occupied bucket, and so on; the tree's entries above the last
//! bucket (between the last level and the default Z) close it. Each end of
//! a walk holds the block or leaf it reads, so the step from one entry to
//! the next reads no pool and makes no call: a bit of the block's mask, or
//! the next slot of the run of the leaf that comes before the next bucket,
//! found once per run. Empty levels are
//! skipped through the occupancy bitmap; empty buckets waiting for pruning
//! are not in the tree at all, so they cost a walk nothing.
//!
//! The two ends walk independently; the walk stops when it has yielded as
//! many entries as the collection holds, so the ends never yield one entry
//! twice, however they are mixed.

use crate::block::{Block, Mask};
use crate::buckets::Buckets;
use crate::entry::Entry;
use crate::place::BLOCK_SLOTS;
use crate::pool::NONE;
use crate::tree::{Leaf, Tree};
use crate::z::{DEFAULT_Z, I16F16, level_z};

/// One end of a walk.
struct End<'a, E: Entry> {
    /// Whether the end has found its first position yet.
    started: bool,
    /// The block being read, and its slots not yet visited from this end:
    /// walking down, with its bits reversed (bit `i` is slot `31 - i`), so
    /// both ends take the lowest set bit, the cheaper step.
    block: Option<&'a Block<E>>,
    mask: Mask,
    /// The next block of the bucket in this end's direction and its mask
    /// (reversed like `mask`), found on entering `block` (see
    /// [`look_ahead`]).
    ahead_block: Option<&'a Block<E>>,
    ahead: Mask,
    /// The Z of the bucket being read.
    bucket_z: I16F16,
    /// The next bucket this end enters, and its Z bits (or beyond every Z:
    /// `i64::MAX` walking up, `i64::MIN` walking down).
    next_bucket: Option<usize>,
    bound: i64,
    /// The leaf being read; walking up, its slots below `slot` are
    /// visited (or in `run`), walking down those at `slot` and above.
    leaf: Option<&'a Leaf<E>>,
    slot: usize,
    /// The entries of the leaf this end reads now and has not visited,
    /// with their Z values.
    run: &'a [E::Slot],
    run_zs: &'a [i32],
}

impl<E: Entry> Clone for End<'_, E> {
    fn clone(&self) -> Self {
        *self
    }
}

impl<E: Entry> Copy for End<'_, E> {}

impl<E: Entry> End<'_, E> {
    const UNSTARTED: Self = End {
        started: false,
        block: None,
        mask: 0,
        ahead_block: None,
        ahead: 0,
        bucket_z: DEFAULT_Z,
        next_bucket: None,
        bound: 0,
        leaf: None,
        slot: 0,
        run: &[],
        run_zs: &[],
    };
}

/// A walk over a collection's entries, yielding each with its Z (or, when
/// asked not to, with a placeholder Z, skipping the load).
pub(crate) struct Walk<'a, E: Entry> {
    buckets: &'a Buckets<E>,
    tree: &'a Tree<E>,
    max_level: usize,
    /// The end walking up, from the back-most entry.
    up: End<'a, E>,
    /// The end walking down, from the front-most entry.
    down: End<'a, E>,
    remaining: usize,
}

impl<E: Entry> Clone for Walk<'_, E> {
    fn clone(&self) -> Self {
        *self
    }
}

impl<E: Entry> Copy for Walk<'_, E> {}

impl<'a, E: Entry> Walk<'a, E> {
    pub(crate) fn new(
        buckets: &'a Buckets<E>,
        tree: &'a Tree<E>,
        max_level: u16,
        len: usize,
    ) -> Self {
        Walk {
            buckets,
            tree,
            max_level: usize::from(max_level),
            up: End::UNSTARTED,
            down: End::UNSTARTED,
            remaining: len,
        }
    }

    #[inline]
    pub(crate) fn remaining(&self) -> usize {
        self.remaining
    }

    /// The next entry walking up (back to front), with its Z if `Z`.
    #[inline]
    pub(crate) fn next_up<const Z: bool>(&mut self) -> Option<(&'a E, I16F16)> {
        if self.remaining == 0 {
            return None;
        }
        loop {
            let end = &mut self.up;
            if end.mask != 0 {
                let slot = end.mask.trailing_zeros() as usize;
                end.mask &= end.mask - 1;
                self.remaining -= 1;
                return Some((end.block?.get(slot & (BLOCK_SLOTS - 1)), end.bucket_z));
            }
            if let Some((entry, rest)) = end.run.split_first() {
                end.run = rest;
                let mut z = I16F16::ZERO;
                if Z {
                    let (&bits, rest) = end.run_zs.split_first()?;
                    end.run_zs = rest;
                    z = I16F16::from_bits(bits);
                }
                self.remaining -= 1;
                return Some((E::get(entry), z));
            }
            if !self.advance_up() {
                self.remaining = 0;
                return None;
            }
        }
    }

    /// The next entry walking down (front to back), with its Z if `Z`.
    #[inline]
    pub(crate) fn next_down<const Z: bool>(&mut self) -> Option<(&'a E, I16F16)> {
        if self.remaining == 0 {
            return None;
        }
        loop {
            let end = &mut self.down;
            if end.mask != 0 {
                let slot = Mask::BITS as usize - 1 - end.mask.trailing_zeros() as usize;
                end.mask &= end.mask - 1;
                self.remaining -= 1;
                return Some((end.block?.get(slot & (BLOCK_SLOTS - 1)), end.bucket_z));
            }
            if let Some((entry, rest)) = end.run.split_last() {
                end.run = rest;
                let mut z = I16F16::ZERO;
                if Z {
                    let (&bits, rest) = end.run_zs.split_last()?;
                    end.run_zs = rest;
                    z = I16F16::from_bits(bits);
                }
                self.remaining -= 1;
                return Some((E::get(entry), z));
            }
            if !self.advance_down() {
                self.remaining = 0;
                return None;
            }
        }
    }

    /// Folds every remaining entry walking up, with its Z if `Z`: the
    /// walk's internal iteration, a tight loop over each block's mask and
    /// each leaf run, with the state in locals.
    #[inline]
    pub(crate) fn fold_up<const Z: bool, B>(
        mut self,
        mut acc: B,
        mut f: impl FnMut(B, &'a E, I16F16) -> B,
    ) -> B {
        loop {
            let end = &mut self.up;
            let mut mask = core::mem::take(&mut end.mask);
            if let Some(block) = end.block.filter(|_| mask != 0) {
                let z = end.bucket_z;
                let mut remaining = self.remaining;
                while mask != 0 && remaining != 0 {
                    let slot = mask.trailing_zeros() as usize;
                    mask &= mask - 1;
                    remaining -= 1;
                    acc = f(acc, block.get(slot & (BLOCK_SLOTS - 1)), z);
                }
                self.remaining = remaining;
            }
            let run = core::mem::take(&mut end.run);
            let zs = core::mem::take(&mut end.run_zs);
            let take = run.len().min(self.remaining);
            self.remaining -= take;
            for (i, slot) in run[..take].iter().enumerate() {
                let z = if Z {
                    I16F16::from_bits(zs[i])
                } else {
                    I16F16::ZERO
                };
                acc = f(acc, E::get(slot), z);
            }
            if self.remaining == 0 || !self.advance_up() {
                return acc;
            }
        }
    }

    /// Folds every remaining entry walking down, with its Z if `Z`.
    #[inline]
    pub(crate) fn fold_down<const Z: bool, B>(
        mut self,
        mut acc: B,
        mut f: impl FnMut(B, &'a E, I16F16) -> B,
    ) -> B {
        loop {
            let end = &mut self.down;
            let mut mask = core::mem::take(&mut end.mask);
            if let Some(block) = end.block.filter(|_| mask != 0) {
                let z = end.bucket_z;
                let mut remaining = self.remaining;
                while mask != 0 && remaining != 0 {
                    let slot = Mask::BITS as usize - 1 - mask.trailing_zeros() as usize;
                    mask &= mask - 1;
                    remaining -= 1;
                    acc = f(acc, block.get(slot & (BLOCK_SLOTS - 1)), z);
                }
                self.remaining = remaining;
            }
            let run = core::mem::take(&mut end.run);
            let zs = core::mem::take(&mut end.run_zs);
            let take = run.len().min(self.remaining);
            self.remaining -= take;
            let start = run.len() - take;
            for (i, slot) in run[start..].iter().enumerate().rev() {
                let z = if Z {
                    I16F16::from_bits(zs[start + i])
                } else {
                    I16F16::ZERO
                };
                acc = f(acc, E::get(slot), z);
            }
            if self.remaining == 0 || !self.advance_down() {
                return acc;
            }
        }
    }

    /// Moves the up end to its next run of entries: the next block of the
    /// bucket being read, the leaf entries below the next bucket, or the
    /// next bucket. Returns whether there is one.
    ///
    /// Always inlined: a call in the loop of a walk would make the caller's
    /// own state (a renderer's floating-point sums, say) live in memory
    /// across it, since the call may clobber every vector register.
    #[inline(always)]
    fn advance_up(&mut self) -> bool {
        let (buckets, tree, max_level) = (self.buckets, self.tree, self.max_level);
        let end = &mut self.up;
        if !end.started {
            end.started = true;
            end.next_bucket = buckets.occupancy().next_from(0);
            end.bound = bound_of(end.next_bucket, max_level, i64::MAX);
            end.leaf = (tree.first != NONE).then(|| tree.leaf(tree.first));
        }
        loop {
            if end.block.is_some() {
                if let Some(next) = end.ahead_block {
                    (end.block, end.mask) = (Some(next), end.ahead);
                    (end.ahead_block, end.ahead) = look_ahead(buckets, next.next);
                    return true;
                }
                end.block = None;
            }
            // The leaf's entries below the next bucket come first.
            if let Some(leaf) = end.leaf {
                let stop = leaf.count_below(end.bound);
                if stop > end.slot {
                    end.run = &leaf.slots()[end.slot..stop];
                    end.run_zs = &leaf.zs[end.slot..stop];
                    end.slot = stop;
                    return true;
                }
                if end.slot == leaf.len {
                    end.leaf = (leaf.next != NONE).then(|| tree.leaf(leaf.next));
                    end.slot = 0;
                    continue;
                }
            }
            let Some(bucket) = end.next_bucket else {
                return false;
            };
            let block = buckets.block(buckets.bucket(bucket).head);
            (end.block, end.mask) = (Some(block), block.occupied());
            (end.ahead_block, end.ahead) = look_ahead(buckets, block.next);
            end.bucket_z = bucket_z(bucket, max_level);
            end.next_bucket = buckets.occupancy().next_from(bucket + 1);
            end.bound = bound_of(end.next_bucket, max_level, i64::MAX);
            return true;
        }
    }

    /// Moves the down end to its next run of entries.
    #[inline(always)]
    fn advance_down(&mut self) -> bool {
        let (buckets, tree, max_level) = (self.buckets, self.tree, self.max_level);
        let end = &mut self.down;
        if !end.started {
            end.started = true;
            end.next_bucket = buckets.occupancy().prev_from(buckets.count() - 1);
            end.bound = bound_of(end.next_bucket, max_level, i64::MIN);
            end.leaf = (tree.last != NONE).then(|| tree.leaf(tree.last));
            end.slot = end.leaf.map_or(0, |leaf| leaf.len);
        }
        loop {
            if end.block.is_some() {
                if let Some(prev) = end.ahead_block {
                    (end.block, end.mask) = (Some(prev), end.ahead);
                    (end.ahead_block, end.ahead) = look_ahead(buckets, prev.prev);
                    end.ahead = end.ahead.reverse_bits();
                    return true;
                }
                end.block = None;
            }
            // The leaf's entries above the next bucket down come first.
            if let Some(leaf) = end.leaf {
                let stop = leaf.count_at_or_below(end.bound);
                if stop < end.slot {
                    end.run = &leaf.slots()[stop..end.slot];
                    end.run_zs = &leaf.zs[stop..end.slot];
                    end.slot = stop;
                    return true;
                }
                if end.slot == 0 {
                    end.leaf = (leaf.prev != NONE).then(|| tree.leaf(leaf.prev));
                    end.slot = end.leaf.map_or(0, |leaf| leaf.len);
                    continue;
                }
            }
            let Some(bucket) = end.next_bucket else {
                return false;
            };
            let block = buckets.block(buckets.bucket(bucket).tail);
            (end.block, end.mask) = (Some(block), block.occupied().reverse_bits());
            (end.ahead_block, end.ahead) = look_ahead(buckets, block.prev);
            end.ahead = end.ahead.reverse_bits();
            end.bucket_z = bucket_z(bucket, max_level);
            end.next_bucket = bucket
                .checked_sub(1)
                .and_then(|below| buckets.occupancy().prev_from(below));
            end.bound = bound_of(end.next_bucket, max_level, i64::MIN);
            return true;
        }
    }
}

/// Block `block` (if there is one) and its mask. A walk looks up the block
/// it will read next, and reads its mask, as it enters the current one: that
/// block comes into the cache while the current one is read, and the step
/// to it waits on no lookup.
#[inline(always)]
fn look_ahead<E: Entry>(buckets: &Buckets<E>, block: u32) -> (Option<&Block<E>>, Mask) {
    if block == NONE {
        (None, 0)
    } else {
        let block = buckets.block(block);
        (Some(block), block.occupied())
    }
}

/// The Z of bucket `bucket` of a collection with levels `0..=max_level`.
#[inline]
fn bucket_z(bucket: usize, max_level: usize) -> I16F16 {
    if bucket > max_level {
        DEFAULT_Z
    } else {
        level_z(bucket)
    }
}

/// The Z bits of `bucket`, or `beyond` if there is none.
#[inline]
fn bound_of(bucket: Option<usize>, max_level: usize, beyond: i64) -> i64 {
    bucket.map_or(beyond, |bucket| {
        i64::from(bucket_z(bucket, max_level).to_bits())
    })
}
