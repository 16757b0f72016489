//! The level chain: the entries at the levels `0..=max_level` and, in a
//! fixed-point core, at the default Z, as one chain of [`Block`]s in
//! back-to-front order, with the quick-access array of the article: for
//! each bucket, the block that holds its last entry (its *tail*).
//!
//! Filing at a bucket goes to its tail block, right after its last entry;
//! filing at an empty bucket goes right after the last entry of the
//! nearest occupied bucket below it, found in the occupancy bitmap (no
//! other Z lies between two levels in this chain: those live in the tree
//! chain). There the entry takes the free slot, or the entries between it
//! and the nearest hole move by one; a full block splits. Taking an entry
//! out clears its slot, and a block left at most half full merges with a
//! neighbour when the two fit in one. So every operation touches one block
//! and at most one neighbour, moves at most [`BLOCK_SLOTS`] entries, and
//! needs no index: O(1) in the worst case, not on average. A bucket with
//! many entries has blocks of its own; a few entries of many buckets share
//! one, so a small collection is walked as one array.
//!
//! Invariants: the chain's entries ascend by Z in slot order; `tails[b]`
//! names the block holding bucket `b`'s last entry, and is empty exactly
//! when `b` is; the occupancy bitmap marks the buckets that have entries;
//! no block is empty, and of two neighbouring blocks one is over half full
//! or together they do not fit in one.

use alloc::vec;
use alloc::vec::Vec;

use super::block::{ALL, BLOCK_SLOTS, Block, Mask, from, highest};
use super::entry::{Book, Entry};
use super::occupancy::Occupancy;
use super::place::{Chain, LEAF_IDS, Place};
use super::pool::{NONE, Pool};
use crate::z::{DEFAULT_Z, level_z};

/// A position in the level chain for a walk: a block, and the occupied
/// slots of it not yet visited from this end (`block` is `NONE` past the
/// end).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) struct BlockCursor {
    pub(crate) block: u32,
    pub(crate) left: Mask,
}

impl BlockCursor {
    pub(crate) const NONE: BlockCursor = BlockCursor {
        block: NONE,
        left: 0,
    };
}

pub(crate) struct Levels<E: Entry> {
    pub(crate) blocks: Pool<Block<E>>,
    /// For each bucket (the levels, then the default Z if there is its
    /// bucket), its tail block plus one; 0 for an empty bucket. (Plus one,
    /// so a collection of 32,768 levels starts from zeroed memory.)
    tails: Vec<u32>,
    occupancy: Occupancy,
    pub(crate) first: u32,
    pub(crate) last: u32,
    max_level: usize,
}

impl<E: Entry> Levels<E> {
    /// An empty chain of `buckets` buckets: the levels `0..=max_level`,
    /// then the default Z's if `buckets` is one more.
    pub(crate) fn new(max_level: u16, buckets: usize) -> Self {
        Levels {
            blocks: Pool::new(LEAF_IDS),
            tails: vec![0; buckets],
            occupancy: Occupancy::new(buckets),
            first: NONE,
            last: NONE,
            max_level: usize::from(max_level),
        }
    }

    /// The same buckets, all empty, and no block.
    pub(crate) fn emptied(&self) -> Self {
        Levels::new(self.max_level as u16, self.tails.len())
    }

    /// The bucket of an entry at Z bits `z`, which is a level or the
    /// default Z.
    #[inline]
    fn bucket_of(&self, z: i32) -> usize {
        if z == DEFAULT_Z.to_bits() {
            self.max_level + 1
        } else {
            (z >> 16) as usize
        }
    }

    /// The Z bits of bucket `bucket`.
    #[inline]
    fn z_of(&self, bucket: usize) -> i32 {
        if bucket > self.max_level {
            DEFAULT_Z.to_bits()
        } else {
            level_z(bucket).to_bits()
        }
    }

    #[inline]
    fn tail(&self, bucket: usize) -> u32 {
        self.tails[bucket].wrapping_sub(1)
    }

    #[inline]
    fn set_tail(&mut self, bucket: usize, block: u32) {
        self.tails[bucket] = block.wrapping_add(1);
    }

    #[inline]
    pub(crate) fn block(&self, block: u32) -> &Block<E> {
        self.blocks.get(block)
    }

    /// Whether `count` insertions cannot run out of block ids (each may
    /// split a block, or make one).
    pub(crate) fn has_room(&self, count: usize) -> bool {
        self.blocks.has_room(count)
    }

    /// The slot of the entry of `block` for which `is` holds, if it is at
    /// `slot` (a block's places are exact).
    #[inline]
    pub(crate) fn find(&self, block: u32, slot: usize, is: impl Fn(&E) -> bool) -> Option<usize> {
        let entry = self.blocks.get_checked(block)?.get_checked(slot)?;
        is(entry).then_some(slot)
    }

    fn new_block(&mut self, template: &E) -> u32 {
        self.blocks
            .alloc(|| Block::new(template), Block::reset)
            .expect("has_room checked for a free block id")
    }

    /// Chains the new block `block` right after `after`.
    fn link_after(&mut self, after: u32, block: u32) {
        let next = self.blocks.get(after).next;
        let block_ref = self.blocks.get_mut(block);
        block_ref.prev = after;
        block_ref.next = next;
        self.blocks.get_mut(after).next = block;
        match next {
            NONE => self.last = block,
            next => self.blocks.get_mut(next).prev = block,
        }
    }

    /// Files `entry` at Z bits `z` of bucket `bucket`, after every entry
    /// at or below `z`. [`has_room`](Self::has_room) must hold for 1.
    pub(crate) fn insert<B: Book<E>>(&mut self, z: i32, bucket: usize, entry: E, book: &mut B) {
        let joins = self.tails[bucket] != 0;
        let mut block = if joins {
            self.tail(bucket)
        } else {
            match self.occupancy.prev_from(bucket) {
                Some(below) => self.tail(below),
                None => self.first,
            }
        };
        if block == NONE {
            block = self.new_block(&entry);
            (self.first, self.last) = (block, block);
        }
        let mut slot = self.blocks.get(block).position(z);
        let block_ref = self.blocks.get(block);
        // A block this insertion makes, and the block it split, to tidy.
        let mut made = [NONE; 2];
        if slot == BLOCK_SLOTS || block_ref.occupied & (1 << slot) != 0 {
            if block_ref.is_full() && slot == BLOCK_SLOTS {
                // Past a full block: a new one after it.
                let next = self.new_block(&entry);
                self.link_after(block, next);
                made = [next, NONE];
                (block, slot) = (next, 0);
            } else if block_ref.is_full() {
                // A full block splits where the entry goes.
                let right = self.new_block(&entry);
                made = [block, right];
                let (left_ref, right_ref) = self.blocks.pair_mut(block, right);
                left_ref.split_off(slot, right_ref, |entry, slot| {
                    book.set(entry, Place::leaf(Chain::Levels, right, slot));
                });
                self.link_after(block, right);
                self.retail(block, right);
            } else {
                // Room from the nearest hole.
                let (above, below) = block_ref.free_around(slot);
                let up = (above != 0).then(|| above.trailing_zeros() as usize - slot);
                let down = (below != 0).then(|| slot - highest(below));
                let mut moved = |entry: &E, slot| {
                    book.set(entry, Place::leaf(Chain::Levels, block, slot));
                };
                let block_ref = self.blocks.get_mut(block);
                match (up, down) {
                    (Some(up), Some(down)) if up <= down => block_ref.open_up(slot, &mut moved),
                    (Some(_), None) => block_ref.open_up(slot, &mut moved),
                    _ => {
                        block_ref.open_down(slot, &mut moved);
                        slot -= 1;
                    }
                }
            }
        }
        let block_ref = self.blocks.get_mut(block);
        block_ref.put(slot, z, entry);
        book.set(block_ref.get(slot), Place::leaf(Chain::Levels, block, slot));
        self.set_tail(bucket, block);
        if !joins {
            self.occupancy.filled(bucket);
        }
        for block in made {
            if self.blocks.get_checked(block).is_some() {
                self.tidy(block, book);
            }
        }
    }

    /// After entries moved between the neighbouring blocks `left` and
    /// `right`: every bucket whose tail was one of them gets as its tail
    /// the later of the two that holds an entry of it.
    fn retail(&mut self, left: u32, right: u32) {
        for id in [left, right] {
            let Some(block) = self.blocks.get_checked(id) else {
                continue;
            };
            let mut bits = block.occupied;
            while bits != 0 {
                let slot = bits.trailing_zeros() as usize;
                bits &= bits - 1;
                let z = block.z(slot);
                if bits != 0 && block.z(bits.trailing_zeros() as usize) == z {
                    continue;
                }
                let bucket = self.bucket_of(z);
                let tail = self.tails[bucket].wrapping_sub(1);
                if tail == left || tail == right {
                    self.tails[bucket] = id.wrapping_add(1);
                }
            }
        }
    }

    /// Takes the entry at `slot` of `block` out, and returns it with its Z
    /// bits. The slot must hold an entry.
    pub(crate) fn remove<B: Book<E>>(&mut self, block: u32, slot: usize, book: &mut B) -> (E, i32) {
        let (z, entry) = self.blocks.get_mut(block).take(slot);
        let bucket = self.bucket_of(z);
        let block_ref = self.blocks.get(block);
        if self.tail(bucket) == block && block_ref.at(z) == 0 {
            // That was the bucket's last entry in its tail block: its run
            // may end in the block before, or be gone.
            let prev = block_ref.prev;
            if prev != NONE && self.blocks.get(prev).last_z() == z {
                self.set_tail(bucket, prev);
            } else {
                self.tails[bucket] = 0;
                self.occupancy.emptied(bucket);
            }
        }
        self.tidy(block, book);
        (entry, z)
    }

    /// Keeps the chain dense around `block`, after a removal from it or a
    /// split that made it: an empty block goes; a block at most half full
    /// merges with a neighbour when the two fit in one.
    fn tidy<B: Book<E>>(&mut self, block: u32, book: &mut B) {
        let block_ref = self.blocks.get(block);
        let count = block_ref.count();
        if count == 0 {
            self.unlink(block);
            self.blocks.free(block);
            return;
        }
        if count > BLOCK_SLOTS / 2 {
            return;
        }
        let fits =
            |other: u32| other != NONE && self.blocks.get(other).count() + count <= BLOCK_SLOTS;
        let (left, right) = if fits(block_ref.prev) {
            (block_ref.prev, block)
        } else if fits(block_ref.next) {
            (block, block_ref.next)
        } else {
            return;
        };
        let (left_ref, right_ref) = self.blocks.pair_mut(left, right);
        left_ref.absorb(right_ref, |entry, slot| {
            book.set(entry, Place::leaf(Chain::Levels, left, slot));
        });
        self.retail(left, right);
        self.unlink(right);
        self.blocks.free(right);
    }

    /// Takes `block` out of the chain.
    fn unlink(&mut self, block: u32) {
        let block_ref = self.blocks.get(block);
        let (prev, next) = (block_ref.prev, block_ref.next);
        match prev {
            NONE => self.first = next,
            prev => self.blocks.get_mut(prev).next = next,
        }
        match next {
            NONE => self.last = prev,
            next => self.blocks.get_mut(next).prev = prev,
        }
    }

    /// The walk position of the first entry with Z bits at or above `low`.
    pub(crate) fn first_at_or_above(&self, low: i64) -> BlockCursor {
        let bucket = if low <= 0 {
            0
        } else if low > i64::from(DEFAULT_Z.to_bits()) {
            return BlockCursor::NONE;
        } else {
            // The first level at or above `low`, or the default Z.
            ((low + 0xFFFF) >> 16) as usize
        };
        let Some(bucket) = self.occupancy.next_from(bucket.min(self.max_level + 1)) else {
            return BlockCursor::NONE;
        };
        // The bucket's run starts right after the last entry of the
        // occupied bucket below it.
        let below = bucket
            .checked_sub(1)
            .and_then(|b| self.occupancy.prev_from(b));
        let Some(below) = below else {
            return self.up_from(self.first, 0);
        };
        let tail = self.tail(below);
        self.up_from(tail, self.blocks.get(tail).position(self.z_of(below)))
    }

    /// The walk position from `slot` of `block` up.
    fn up_from(&self, block: u32, slot: usize) -> BlockCursor {
        let left = self.blocks.get(block).occupied & from(slot);
        BlockCursor { block, left }
    }

    /// The walk position from the last entry with Z bits at or below
    /// `high` down.
    pub(crate) fn last_at_or_below(&self, high: i64) -> BlockCursor {
        if high < 0 || self.tails.is_empty() {
            return BlockCursor::NONE;
        }
        let bucket = if high >= i64::from(DEFAULT_Z.to_bits()) {
            self.tails.len() - 1
        } else {
            ((high >> 16) as usize).min(self.max_level)
        };
        let Some(bucket) = self.occupancy.prev_from(bucket) else {
            return BlockCursor::NONE;
        };
        let tail = self.tail(bucket);
        let block = self.blocks.get(tail);
        let end = block.position(self.z_of(bucket));
        BlockCursor {
            block: tail,
            left: block.occupied & !from(end) & ALL,
        }
    }

    /// Gives back the spare blocks and unused capacity.
    pub(crate) fn shrink_to_fit(&mut self) {
        self.blocks.shrink_to_fit();
    }

    /// Checks every invariant of the chain (tests and fuzzing), and
    /// returns every entry with its Z bits and place, in order.
    #[cfg(any(test, feature = "check"))]
    pub(crate) fn check(&self) -> Vec<(&E, i32, Place)> {
        let mut entries = Vec::new();
        let (mut block, mut prev, mut blocks) = (self.first, NONE, 0);
        // The last block of each bucket found in the chain, in bucket order.
        let mut last_of: Vec<(usize, u32)> = Vec::new();
        let mut counts = Vec::new();
        while block != NONE {
            let block_ref = self.blocks.get(block);
            assert_eq!(block_ref.prev, prev, "chain links agree");
            assert!(block_ref.count() > 0, "no block is empty");
            assert_eq!(block_ref.occupied & !ALL, 0, "no slot past the block");
            block_ref.check();
            counts.push(block_ref.count());
            let mut bits = block_ref.occupied;
            while bits != 0 {
                let slot = bits.trailing_zeros() as usize;
                bits &= bits - 1;
                let z = block_ref.z(slot);
                let bucket = self.bucket_of(z);
                assert!(bucket < self.tails.len(), "only levels and the default Z");
                assert_eq!(self.z_of(bucket), z, "only levels and the default Z");
                match last_of.last_mut() {
                    Some((b, last)) if *b == bucket => *last = block,
                    _ => last_of.push((bucket, block)),
                }
                entries.push((
                    block_ref.get(slot),
                    z,
                    Place::leaf(Chain::Levels, block, slot),
                ));
            }
            blocks += 1;
            (prev, block) = (block, block_ref.next);
        }
        assert_eq!(self.last, prev, "the last block ends the chain");
        assert_eq!(blocks, self.blocks.live(), "no block is lost");
        assert!(entries.windows(2).all(|w| w[0].1 <= w[1].1), "sorted by Z");
        for pair in counts.windows(2) {
            let dense = pair.iter().any(|&count| count > BLOCK_SLOTS / 2);
            assert!(
                dense || pair[0] + pair[1] > BLOCK_SLOTS,
                "blocks stay dense: {counts:?}"
            );
        }
        // Occupied buckets are exactly those found, with their tails.
        let mut occupied = Vec::new();
        let mut next = self.occupancy.next_from(0);
        while let Some(bucket) = next {
            occupied.push((bucket, self.tail(bucket)));
            next = self.occupancy.next_from(bucket + 1);
        }
        assert_eq!(occupied, last_of, "occupancy and tails");
        let held = self.tails.iter().filter(|&&t| t != 0).count();
        assert_eq!(held, occupied.len(), "empty buckets have no tail");
        entries
    }
}
