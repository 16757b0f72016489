//! The level chain: the entries at the levels `0..=max_level` and, in a
//! fixed-point core, at the default Z, as one chain of leaves in
//! back-to-front order, with the quick-access array of the article: for
//! each bucket, the leaf that holds its last entry (its *tail*).
//!
//! Filing at a bucket goes to its tail leaf, right after its last entry;
//! filing at an empty bucket goes right after the last entry of the
//! nearest occupied bucket below it, found in the occupancy bitmap (no
//! other Z lies between two levels in this chain: those live in the tree
//! chain). So every operation touches one leaf and at most one neighbour,
//! moves at most [`LEAF_SLOTS`] entries, and needs no index: O(1) in the
//! worst case, not on average.
//!
//! Invariants: the chain's entries ascend by Z; `tails[b]` names the leaf
//! holding bucket `b`'s last entry, and is empty exactly when `b` is;
//! the occupancy bitmap marks the buckets that have entries; every leaf
//! holds at least [`MIN_FILL`] entries unless it is the chain's only one.

use alloc::vec;
use alloc::vec::Vec;

use super::entry::{Book, Entry};
use super::leaf::{Cursor, Leaf, MIN_FILL, split_point};
use super::occupancy::Occupancy;
use super::place::{Chain, LEAF_IDS, LEAF_SLOTS, Place};
use super::pool::{NONE, Pool};
use crate::z::{DEFAULT_Z, level_z};

pub(crate) struct Levels<E: Entry> {
    pub(crate) leaves: Pool<Leaf<E>>,
    /// For each bucket (the levels, then the default Z if there is its
    /// bucket), its tail leaf plus one; 0 for an empty bucket. (Plus one,
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
            leaves: Pool::new(LEAF_IDS),
            tails: vec![0; buckets],
            occupancy: Occupancy::new(buckets),
            first: NONE,
            last: NONE,
            max_level: usize::from(max_level),
        }
    }

    /// The same buckets, all empty, and no leaf.
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
    fn set_tail(&mut self, bucket: usize, leaf: u32) {
        self.tails[bucket] = leaf.wrapping_add(1);
    }

    #[inline]
    pub(crate) fn leaf(&self, leaf: u32) -> &Leaf<E> {
        self.leaves.get(leaf)
    }

    /// Whether `count` insertions cannot run out of leaf ids (each may
    /// split a leaf, or make the first).
    pub(crate) fn has_room(&self, count: usize) -> bool {
        self.leaves.has_room(count)
    }

    /// The slot of the entry of `leaf` for which `is` holds, if `leaf` is
    /// a live leaf holding one.
    pub(crate) fn find(&self, leaf: u32, hint: usize, is: impl Fn(&E) -> bool) -> Option<usize> {
        self.leaves.get_checked(leaf)?.find(hint, is)
    }

    fn new_leaf(&mut self, template: &E) -> u32 {
        self.leaves
            .alloc(|| Leaf::new(template), Leaf::reset)
            .expect("has_room checked for a free leaf id")
    }

    /// Files `entry` at Z bits `z` of bucket `bucket`, after every entry
    /// at or below `z`. [`has_room`](Self::has_room) must hold.
    pub(crate) fn insert<B: Book<E>>(&mut self, z: i32, bucket: usize, entry: E, book: &mut B) {
        let joins = self.tails[bucket] != 0;
        let mut leaf = if joins {
            self.tail(bucket)
        } else {
            match self.occupancy.prev_from(bucket) {
                Some(below) => self.tail(below),
                None => self.first,
            }
        };
        if leaf == NONE {
            leaf = self.new_leaf(&entry);
            (self.first, self.last) = (leaf, leaf);
        }
        let leaf_ref = self.leaves.get(leaf);
        let mut slot = leaf_ref.rank(z);
        if leaf_ref.is_full() {
            let mid = split_point(slot, joins);
            let right = self.split(leaf, mid, &entry, book);
            if slot > mid {
                (leaf, slot) = (right, slot - mid);
            }
        }
        let leaf_ref = self.leaves.get_mut(leaf);
        leaf_ref.insert(slot, z, entry);
        book.set(leaf_ref.get(slot), Place::leaf(Chain::Levels, leaf, slot));
        self.set_tail(bucket, leaf);
        if !joins {
            self.occupancy.filled(bucket);
        }
    }

    /// Moves the entries of `leaf` from `mid` on to a new leaf after it,
    /// and returns the new leaf.
    fn split<B: Book<E>>(&mut self, leaf: u32, mid: usize, template: &E, book: &mut B) -> u32 {
        let right = self.new_leaf(template);
        let (left_ref, right_ref) = self.leaves.pair_mut(leaf, right);
        let count = left_ref.len - mid;
        Leaf::shift_right(left_ref, right_ref, count, |entry, slot| {
            book.set(entry, Place::leaf(Chain::Levels, right, slot));
        });
        right_ref.prev = leaf;
        right_ref.next = left_ref.next;
        left_ref.next = right;
        match right_ref.next {
            NONE => self.last = right,
            next => self.leaves.get_mut(next).prev = right,
        }
        self.retail(leaf, right);
        right
    }

    /// After entries moved between the neighbouring leaves `left` and
    /// `right`: every bucket whose tail was one of them gets as its tail
    /// the later of the two that holds an entry of it.
    fn retail(&mut self, left: u32, right: u32) {
        for id in [left, right] {
            let Some(leaf) = self.leaves.get_checked(id) else {
                continue;
            };
            for slot in 0..leaf.len {
                let z = leaf.z(slot);
                if slot + 1 < leaf.len && leaf.z(slot + 1) == z {
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

    /// Takes the entry at `slot` of `leaf` out, and returns it with its Z
    /// bits. The slot must hold an entry.
    pub(crate) fn remove<B: Book<E>>(&mut self, leaf: u32, slot: usize, book: &mut B) -> (E, i32) {
        let leaf_ref = self.leaves.get_mut(leaf);
        let (z, entry) = leaf_ref.remove(slot);
        let bucket = self.bucket_of(z);
        if self.tail(bucket) == leaf {
            let leaf_ref = self.leaves.get(leaf);
            let after = slot < leaf_ref.len && leaf_ref.z(slot) == z;
            let before = slot > 0 && leaf_ref.z(slot - 1) == z;
            if !after && !before {
                let prev = leaf_ref.prev;
                let prev_leaf = (slot == 0 && prev != NONE).then(|| self.leaves.get(prev));
                if prev_leaf.is_some_and(|p| p.z(p.len - 1) == z) {
                    self.set_tail(bucket, prev);
                } else {
                    self.tails[bucket] = 0;
                    self.occupancy.emptied(bucket);
                }
            }
        }
        self.rebalance(leaf, book);
        (entry, z)
    }

    /// Restores the fill of `leaf` after a removal: an empty leaf goes; a
    /// leaf under [`MIN_FILL`] merges with a neighbour, or takes entries
    /// from it if the two do not fit in one leaf.
    fn rebalance<B: Book<E>>(&mut self, leaf: u32, book: &mut B) {
        let leaf_ref = self.leaves.get(leaf);
        if leaf_ref.len >= MIN_FILL {
            return;
        }
        if leaf_ref.len == 0 {
            self.unlink(leaf);
            self.leaves.free(leaf);
            return;
        }
        let (left, right) = match (leaf_ref.prev, leaf_ref.next) {
            (NONE, NONE) => return,
            (NONE, next) => (leaf, next),
            (prev, _) => (prev, leaf),
        };
        let (left_ref, right_ref) = self.leaves.pair_mut(left, right);
        let total = left_ref.len + right_ref.len;
        if total <= LEAF_SLOTS {
            let count = right_ref.len;
            Leaf::shift_left(left_ref, right_ref, count, |entry, slot| {
                book.set(entry, Place::leaf(Chain::Levels, left, slot));
            });
            self.retail(left, right);
            self.unlink(right);
            self.leaves.free(right);
            return;
        }
        let keep = total / 2;
        if left_ref.len < keep {
            Leaf::shift_left(left_ref, right_ref, keep - left_ref.len, |entry, slot| {
                book.set(entry, Place::leaf(Chain::Levels, left, slot));
            });
        } else {
            Leaf::shift_right(left_ref, right_ref, left_ref.len - keep, |entry, slot| {
                book.set(entry, Place::leaf(Chain::Levels, right, slot));
            });
        }
        self.retail(left, right);
    }

    /// Takes `leaf` out of the chain.
    fn unlink(&mut self, leaf: u32) {
        let leaf_ref = self.leaves.get(leaf);
        let (prev, next) = (leaf_ref.prev, leaf_ref.next);
        match prev {
            NONE => self.first = next,
            prev => self.leaves.get_mut(prev).next = next,
        }
        match next {
            NONE => self.last = prev,
            next => self.leaves.get_mut(next).prev = prev,
        }
    }

    /// The position of the first entry with Z bits at or above `low`.
    pub(crate) fn first_at_or_above(&self, low: i64) -> Cursor {
        let bucket = if low <= 0 {
            0
        } else if low > i64::from(DEFAULT_Z.to_bits()) {
            return Cursor::NONE;
        } else {
            // The first level at or above `low`, or the default Z.
            ((low + 0xFFFF) >> 16) as usize
        };
        let Some(bucket) = self.occupancy.next_from(bucket.min(self.max_level + 1)) else {
            return Cursor::NONE;
        };
        // The bucket's run starts right after the last entry of the
        // occupied bucket below it.
        let below = bucket
            .checked_sub(1)
            .and_then(|b| self.occupancy.prev_from(b));
        let Some(below) = below else {
            return Cursor {
                leaf: self.first,
                slot: 0,
            };
        };
        let tail = self.tail(below);
        let leaf = self.leaves.get(tail);
        let slot = leaf.rank(self.z_of(below));
        if slot == leaf.len {
            Cursor {
                leaf: leaf.next,
                slot: 0,
            }
        } else {
            Cursor { leaf: tail, slot }
        }
    }

    /// The position right after the last entry with Z bits at or below
    /// `high` (`slot` is one past it, in its leaf).
    pub(crate) fn last_at_or_below(&self, high: i64) -> Cursor {
        if high < 0 || self.tails.is_empty() {
            return Cursor::NONE;
        }
        let bucket = if high >= i64::from(DEFAULT_Z.to_bits()) {
            self.tails.len() - 1
        } else {
            ((high >> 16) as usize).min(self.max_level)
        };
        let Some(bucket) = self.occupancy.prev_from(bucket) else {
            return Cursor::NONE;
        };
        let tail = self.tail(bucket);
        Cursor {
            leaf: tail,
            slot: self.leaves.get(tail).rank(self.z_of(bucket)),
        }
    }

    /// Gives back the spare leaves and unused capacity.
    pub(crate) fn shrink_to_fit(&mut self) {
        self.leaves.shrink_to_fit();
    }

    /// Checks every invariant of the chain (tests and fuzzing), and
    /// returns every entry with its Z bits and place, in order.
    #[cfg(any(test, feature = "check"))]
    pub(crate) fn check(&self) -> Vec<(&E, i32, Place)> {
        let mut entries = Vec::new();
        let (mut leaf, mut prev, mut leaves) = (self.first, NONE, 0);
        // The last leaf of each bucket found in the chain, in bucket order.
        let mut last_of: Vec<(usize, u32)> = Vec::new();
        while leaf != NONE {
            let leaf_ref = self.leaves.get(leaf);
            assert_eq!(leaf_ref.prev, prev, "chain links agree");
            assert_eq!(leaf_ref.parent, NONE, "level leaves have no parent");
            assert!(leaf_ref.len > 0, "no leaf is empty");
            assert!(
                leaf_ref.len >= MIN_FILL || (self.first == self.last),
                "leaves stay filled"
            );
            for slot in 0..leaf_ref.len {
                let z = leaf_ref.z(slot);
                let bucket = self.bucket_of(z);
                assert!(bucket < self.tails.len(), "only levels and the default Z");
                assert_eq!(self.z_of(bucket), z, "only levels and the default Z");
                match last_of.last_mut() {
                    Some((b, last)) if *b == bucket => *last = leaf,
                    _ => last_of.push((bucket, leaf)),
                }
                entries.push((
                    leaf_ref.get(slot),
                    z,
                    Place::leaf(Chain::Levels, leaf, slot),
                ));
            }
            leaves += 1;
            (prev, leaf) = (leaf, leaf_ref.next);
        }
        assert_eq!(self.last, prev, "the last leaf ends the chain");
        assert_eq!(leaves, self.leaves.live(), "no leaf is lost");
        assert!(entries.windows(2).all(|w| w[0].1 <= w[1].1), "sorted by Z");
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
