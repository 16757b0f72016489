//! Buckets: the entries at one Z value, in the order of their last
//! Z-action, for the Z values a collection reaches in O(1): the optimized
//! levels `0..=max_level` (the quick-access array) and, in a fixed-point
//! collection, the default Z.
//!
//! A bucket is a chain of [`Block`]s. Appends go to the tail block; taking
//! an entry out clears its slot in O(1) and then keeps the blocks dense
//! with a bounded amount of work:
//!
//! - a full tail block with holes is compacted before an append, so a block
//!   stops being the tail only when every slot holds an entry;
//! - a block left empty goes back to the pool;
//! - a block left at most half full is merged with a neighbour when the two
//!   fit in one block: the entries of the smaller one move.
//!
//! So of two neighbouring blocks, one is over half full or they hold more
//! than [`BLOCK_SLOTS`] entries together, and each operation touches at most
//! two blocks and moves at most [`BLOCK_SLOTS`] entries: O(1) in the worst
//! case, not on average.

use alloc::vec;
use alloc::vec::Vec;

use crate::block::Block;
use crate::entry::{Book, Entry};
use crate::occupancy::Occupancy;
use crate::place::{BLOCK_IDS, BLOCK_SLOTS, Place};
use crate::pool::{NONE, Pool};

/// One bucket: the first and last blocks of its chain (`NONE` for an
/// empty bucket, which has no block).
#[derive(Debug, Clone, Copy)]
pub(crate) struct Bucket {
    pub(crate) head: u32,
    pub(crate) tail: u32,
}

/// A bucket as the array stores it: its head and tail ids plus one, so an
/// empty bucket is all zero bits and a collection of 32,768 levels starts
/// from zeroed memory the allocator hands out for free.
type Stored = [u32; 2];

/// A fixed array of buckets, their blocks, and which of them hold entries.
pub(crate) struct Buckets<E: Entry> {
    list: Vec<Stored>,
    blocks: Pool<Block<E>>,
    occupancy: Occupancy,
}

impl<E: Entry> Buckets<E> {
    /// `count` empty buckets.
    pub(crate) fn new(count: usize) -> Self {
        Buckets {
            list: vec![[0; 2]; count],
            blocks: Pool::new(BLOCK_IDS),
            occupancy: Occupancy::new(count),
        }
    }

    /// The same number of buckets, all empty, and no block.
    pub(crate) fn emptied(&self) -> Self {
        Buckets::new(self.list.len())
    }

    pub(crate) fn count(&self) -> usize {
        self.list.len()
    }

    #[inline]
    pub(crate) fn bucket(&self, bucket: usize) -> Bucket {
        let [head, tail] = self.list[bucket];
        Bucket {
            head: head.wrapping_sub(1),
            tail: tail.wrapping_sub(1),
        }
    }

    fn set_head(&mut self, bucket: usize, block: u32) {
        self.list[bucket][0] = block.wrapping_add(1);
    }

    fn set_tail(&mut self, bucket: usize, block: u32) {
        self.list[bucket][1] = block.wrapping_add(1);
    }

    pub(crate) fn occupancy(&self) -> &Occupancy {
        &self.occupancy
    }

    #[inline]
    pub(crate) fn block(&self, block: u32) -> &Block<E> {
        self.blocks.get(block)
    }

    /// The entry at slot `slot` of block `block`, if there is such a live
    /// block and slot.
    pub(crate) fn entry_at(&self, block: u32, slot: usize) -> Option<&E> {
        self.blocks
            .get_checked(block)
            .and_then(|block| block.get_checked(slot))
    }

    /// The bucket of block `block`.
    pub(crate) fn bucket_of(&self, block: u32) -> usize {
        self.blocks.get(block).bucket as usize
    }

    /// Whether an entry can be filed in `bucket` now: its tail block has
    /// room, or a block id is free.
    pub(crate) fn can_file(&self, bucket: usize) -> bool {
        let tail = self.bucket(bucket).tail;
        (tail != NONE && self.blocks.get(tail).live() < BLOCK_SLOTS) || self.blocks.has_room(1)
    }

    /// Files `entry` at the tail of `bucket` (it becomes the front-most of
    /// its Z), tells `book` its place, and returns whether the bucket was
    /// empty. [`can_file`](Self::can_file) must hold.
    pub(crate) fn file<B: Book<E>>(&mut self, bucket: usize, entry: E, book: &mut B) -> bool {
        let tail = self.bucket(bucket).tail;
        let mut target = NONE;
        if tail != NONE {
            let block = self.blocks.get_mut(tail);
            if block.is_full() && block.live() < BLOCK_SLOTS {
                block.compact(|entry, slot| book.set(entry, Place::block(tail, slot)));
            }
            if !block.is_full() {
                target = tail;
            }
        }
        if target == NONE {
            target = self
                .blocks
                .alloc(
                    || Block::new(&entry, bucket as u32),
                    |block| block.reset(bucket as u32),
                )
                .expect("can_file checked for a free block id");
            self.blocks.get_mut(target).prev = tail;
            match tail {
                NONE => self.set_head(bucket, target),
                tail => self.blocks.get_mut(tail).next = target,
            }
            self.set_tail(bucket, target);
        }
        let block = self.blocks.get_mut(target);
        let slot = block.push(entry);
        book.set(block.get(slot), Place::block(target, slot));
        if tail == NONE {
            self.occupancy.filled(bucket);
            return true;
        }
        false
    }

    /// Takes the entry at `slot` of `block` out of its bucket in O(1), and
    /// returns it with its bucket, and whether that bucket is now empty.
    /// The slot must hold an entry.
    pub(crate) fn unfile<B: Book<E>>(
        &mut self,
        block: u32,
        slot: usize,
        book: &mut B,
    ) -> (E, usize, bool) {
        let block_ref = self.blocks.get_mut(block);
        let entry = block_ref.take(slot);
        let bucket = block_ref.bucket as usize;
        let live = block_ref.live();
        if live == 0 {
            self.unlink(block);
            self.blocks.free(block);
        } else if live <= BLOCK_SLOTS / 2 {
            self.merge_with_neighbour(block, book);
        }
        let emptied = self.bucket(bucket).head == NONE;
        if emptied {
            self.occupancy.emptied(bucket);
        }
        (entry, bucket, emptied)
    }

    /// Takes `block` out of its bucket's chain.
    fn unlink(&mut self, block: u32) {
        let block_ref = self.blocks.get(block);
        let (prev, next, bucket) = (block_ref.prev, block_ref.next, block_ref.bucket);
        let bucket = bucket as usize;
        match prev {
            NONE => self.set_head(bucket, next),
            prev => self.blocks.get_mut(prev).next = next,
        }
        match next {
            NONE => self.set_tail(bucket, prev),
            next => self.blocks.get_mut(next).prev = prev,
        }
    }

    /// Merges `block`, just left at most half full, with its predecessor or
    /// else its successor if the two fit in one block: the entries of the
    /// smaller one move into the larger, and the emptied block is freed.
    fn merge_with_neighbour<B: Book<E>>(&mut self, block: u32, book: &mut B) {
        let this = self.blocks.get(block);
        let live = this.live();
        let fits =
            |other: u32| other != NONE && self.blocks.get(other).live() + live <= BLOCK_SLOTS;
        let (neighbour, neighbour_first) = if fits(this.prev) {
            (this.prev, true)
        } else if fits(this.next) {
            (this.next, false)
        } else {
            return;
        };
        let (this, other) = self.blocks.pair_mut(block, neighbour);
        let emptied = if other.live() > this.live() {
            other.absorb(this, !neighbour_first, |entry, slot| {
                book.set(entry, Place::block(neighbour, slot));
            });
            block
        } else {
            this.absorb(other, neighbour_first, |entry, slot| {
                book.set(entry, Place::block(block, slot));
            });
            neighbour
        };
        self.unlink(emptied);
        self.blocks.free(emptied);
    }

    /// Every entry, in no particular order.
    pub(crate) fn entries(&self) -> impl Iterator<Item = &E> + '_ {
        self.blocks
            .iter()
            .flat_map(|(_, block)| block.entries().map(|(_, entry)| entry))
    }

    /// Takes the entry at `slot` of `block` out and nothing else: only for
    /// taking detached buckets apart, entry by entry.
    pub(crate) fn take_at(&mut self, block: u32, slot: usize) -> E {
        self.blocks.get_mut(block).take(slot)
    }

    /// Reserves blocks for about `entries` more entries.
    pub(crate) fn reserve(&mut self, entries: usize) {
        self.blocks.reserve(entries / BLOCK_SLOTS + 1);
    }

    pub(crate) fn shrink_to_fit(&mut self) {
        self.blocks.shrink_to_fit();
    }

    /// Checks every invariant of the buckets (tests and fuzzing): chains,
    /// counts, density, occupancy; returns every entry with its place. Looks
    /// at the occupied buckets only, so it costs O(entries), not O(levels).
    pub(crate) fn check(&self) -> Vec<(&E, Place)> {
        let mut places = Vec::new();
        let mut blocks = 0;
        let mut index = self.occupancy.next_from(0);
        while let Some(bucket_index) = index {
            let bucket = self.bucket(bucket_index);
            let (mut block, mut prev, mut len) = (bucket.head, NONE, 0);
            assert_ne!(block, NONE, "an occupied bucket has a block");
            let mut lives = Vec::new();
            while block != NONE {
                let block_ref = self.blocks.get(block);
                assert_eq!(
                    block_ref.bucket as usize, bucket_index,
                    "a block knows its bucket"
                );
                assert_eq!(block_ref.prev, prev, "links agree");
                assert!(block_ref.live() > 0, "no empty block stays in a chain");
                assert_eq!(block_ref.live(), block_ref.occupied().count_ones() as usize);
                for (slot, entry) in block_ref.entries() {
                    places.push((entry, Place::block(block, slot)));
                }
                lives.push(block_ref.live());
                len += block_ref.live();
                blocks += 1;
                (prev, block) = (block, block_ref.next);
            }
            assert_eq!(bucket.tail, prev, "the tail is the last block");
            assert!(len > 0);
            for pair in lives.windows(2) {
                let dense = pair.iter().any(|&live| live > BLOCK_SLOTS / 2);
                assert!(
                    dense || pair[0] + pair[1] > BLOCK_SLOTS,
                    "blocks stay dense: {lives:?}"
                );
            }
            index = self.occupancy.next_from(bucket_index + 1);
        }
        // Every block is in an occupied bucket's chain, so the others are
        // empty.
        assert_eq!(blocks, self.blocks.live(), "no block is lost");
        places
    }
}
