//! The core every collection shares: the level buckets, the default bucket,
//! the sorted tree for every other Z, the pruning ledger, and the book of
//! places; filing, unfiling and refiling entries in O(1) at the levels and
//! the default Z, O(log n) elsewhere.
//!
//! The core is generic over what an entry is and where its place is kept
//! (see [`entry`](crate::entry)), and knows nothing of keys or handles. The
//! two layouts of the mission differ in one field: a fixed-point core takes
//! every Z, a simple one only the levels.

use crate::buckets::Buckets;
use crate::entry::{Book, Entry};
use crate::error::ZError;
use crate::ledger::Ledger;
use crate::place::{Place, Spot};
use crate::pool::NONE;
use crate::tree::Tree;
use crate::z::{DEFAULT_Z, I16F16, MAX_LEVEL, level_z, optimized_level};

/// Where an entry goes.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
enum Target {
    Bucket(usize),
    Tree(i32),
}

/// Where an entry is, exactly.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) enum Exact {
    Block { block: u32, slot: usize },
    Leaf { leaf: u32, slot: usize },
}

pub(crate) struct Core<E: Entry, B: Book<E>> {
    max_level: u16,
    /// Whether every Z is taken (fixed-point) or only the levels (simple).
    every_z: bool,
    /// The levels `0..=max_level`, then, if `every_z`, the default Z.
    pub(crate) buckets: Buckets<E>,
    pub(crate) tree: Tree<E>,
    pub(crate) ledger: Ledger,
    len: usize,
    pub(crate) book: B,
}

impl<E: Entry, B: Book<E>> Core<E, B> {
    /// An empty core with levels `0..=max_level`; `prune_after` is `Some`
    /// for a fixed-point core and `None` for a simple one.
    pub(crate) fn new(max_level: u16, prune_after: Option<u32>, book: B) -> Result<Self, ZError> {
        if max_level > MAX_LEVEL {
            return Err(ZError::MaxLevelTooLarge { max_level });
        }
        if prune_after == Some(0) {
            return Err(ZError::ZeroPruneThreshold);
        }
        let every_z = prune_after.is_some();
        let buckets = usize::from(max_level) + 1 + usize::from(every_z);
        Ok(Core {
            max_level,
            every_z,
            buckets: Buckets::new(buckets),
            tree: Tree::new(),
            ledger: Ledger::new(prune_after.unwrap_or(1)),
            len: 0,
            book,
        })
    }

    #[inline]
    pub(crate) fn len(&self) -> usize {
        self.len
    }

    pub(crate) fn max_level(&self) -> u16 {
        self.max_level
    }

    pub(crate) fn prune_after(&self) -> Option<u32> {
        self.every_z.then(|| self.ledger.prune_after())
    }

    pub(crate) fn nonoptimized_buckets(&self) -> usize {
        self.ledger.buckets()
    }

    /// The Z of bucket `bucket`.
    #[inline]
    pub(crate) fn bucket_z(&self, bucket: usize) -> I16F16 {
        if bucket > usize::from(self.max_level) {
            DEFAULT_Z
        } else {
            level_z(bucket)
        }
    }

    /// Where an entry at `z` goes, or why it cannot.
    fn target(&self, z: I16F16) -> Result<Target, ZError> {
        if let Some(level) = optimized_level(z, self.max_level) {
            Ok(Target::Bucket(level))
        } else if !self.every_z {
            Err(ZError::ZOutOfRange {
                z,
                max_level: self.max_level,
            })
        } else if z == DEFAULT_Z {
            Ok(Target::Bucket(usize::from(self.max_level) + 1))
        } else {
            Ok(Target::Tree(z.to_bits()))
        }
    }

    /// Whether an entry at `z` would be taken now; nothing changes.
    pub(crate) fn check_z(&self, z: I16F16) -> Result<(), ZError> {
        let target = self.target(z)?;
        let room = match target {
            Target::Bucket(bucket) => self.buckets.can_file(bucket),
            Target::Tree(_) => self.tree.has_room(),
        };
        if room {
            Ok(())
        } else {
            Err(ZError::CapacityOverflow)
        }
    }

    /// The exact position of `probe`, which the book places at `place`, if
    /// it is there.
    pub(crate) fn exact(&self, place: Place, probe: &E) -> Option<Exact> {
        self.exact_by(place, |entry| entry.same(probe))
    }

    /// The exact position of the entry for which `is` holds, which the book
    /// places at `place`, if it is there.
    pub(crate) fn exact_by(&self, place: Place, is: impl Fn(&E) -> bool) -> Option<Exact> {
        match place.spot()? {
            Spot::Block { block, slot } => self
                .buckets
                .entry_at(block, slot)
                .filter(|&entry| is(entry))
                .map(|_| Exact::Block { block, slot }),
            Spot::Leaf { leaf, hint } => self
                .tree
                .find(leaf, hint, is)
                .map(|slot| Exact::Leaf { leaf, slot }),
        }
    }

    /// The Z an entry is filed at.
    pub(crate) fn z_at(&self, at: Exact) -> I16F16 {
        match at {
            Exact::Block { block, .. } => self.bucket_z(self.buckets.bucket_of(block)),
            Exact::Leaf { leaf, slot } => I16F16::from_bits(self.tree.leaf(leaf).zs[slot]),
        }
    }

    /// Files `entry` at `z`, after every entry at or below `z`.
    pub(crate) fn insert(&mut self, z: I16F16, entry: E) -> Result<(), ZError> {
        self.check_z(z)?;
        let target = self.target(z)?;
        if let Some(opened) = self.put(target, entry) {
            self.ledger.opened(opened);
        }
        Ok(())
    }

    /// Takes the entry at `at` out, and returns it with the Z it had.
    pub(crate) fn remove(&mut self, at: Exact) -> (E, I16F16) {
        let (entry, z, closed) = self.take(at);
        if let Some(closed) = closed {
            self.ledger.closed(closed);
        }
        (entry, z)
    }

    /// Re-files the entry at `at` at `z`, after every entry at or below
    /// `z`, even when `z` is the Z it had; on error nothing changes.
    pub(crate) fn refile(&mut self, at: Exact, z: I16F16) -> Result<(), ZError> {
        self.check_z(z)?;
        let target = self.target(z)?;
        let (entry, _, closed) = self.take(at);
        let opened = self.put(target, entry);
        // A run that closes and opens again at once never waited.
        if opened != closed {
            if let Some(opened) = opened {
                self.ledger.opened(opened);
            }
            if let Some(closed) = closed {
                self.ledger.closed(closed);
            }
        }
        Ok(())
    }

    /// Files an entry; returns the Z of the run it opened in the tree.
    fn put(&mut self, target: Target, entry: E) -> Option<i32> {
        self.len += 1;
        match target {
            Target::Bucket(bucket) => {
                self.buckets.file(bucket, entry, &mut self.book);
                None
            }
            Target::Tree(z) => self.tree.insert(z, entry, &mut self.book).then_some(z),
        }
    }

    /// Unfiles an entry; returns it, its Z, and the Z of the run it closed
    /// in the tree.
    fn take(&mut self, at: Exact) -> (E, I16F16, Option<i32>) {
        self.len -= 1;
        match at {
            Exact::Block { block, slot } => {
                let (entry, bucket, _) = self.buckets.unfile(block, slot, &mut self.book);
                (entry, self.bucket_z(bucket), None)
            }
            Exact::Leaf { leaf, slot } => {
                let removed = self.tree.remove(leaf, slot, &mut self.book);
                let z = removed.z;
                (
                    removed.entry,
                    I16F16::from_bits(z),
                    removed.run_gone.then_some(z),
                )
            }
        }
    }

    /// Takes every entry out at once: the core is left empty (its book
    /// untouched), and the entries come back back to front from the
    /// returned value.
    pub(crate) fn detach(&mut self) -> Detached<E> {
        let empty = self.buckets.emptied();
        let buckets = core::mem::replace(&mut self.buckets, empty);
        let tree = core::mem::replace(&mut self.tree, Tree::new());
        self.ledger.clear();
        let len = core::mem::take(&mut self.len);
        Detached::new(buckets, tree, usize::from(self.max_level), len)
    }

    pub(crate) fn reserve(&mut self, additional: usize) {
        self.buckets.reserve(additional);
        if self.every_z {
            self.tree.reserve(additional);
        }
    }

    pub(crate) fn shrink_to_fit(&mut self) {
        self.buckets.shrink_to_fit();
        self.tree.shrink_to_fit();
        self.ledger.shrink_to_fit();
    }

    /// Checks every invariant (tests and fuzzing), and returns every entry
    /// with its place, for the caller to check its book against.
    pub(crate) fn check(&self) -> alloc::vec::Vec<(&E, Place)> {
        let mut places = self.buckets.check();
        let tree = self.tree.check();
        let mut runs = 0;
        for (i, &(entry, z, leaf, slot)) in tree.iter().enumerate() {
            if i == 0 || tree[i - 1].1 != z {
                runs += 1;
            }
            let value = I16F16::from_bits(z);
            assert!(
                self.every_z
                    && value != DEFAULT_Z
                    && optimized_level(value, self.max_level).is_none(),
                "only other Z values are in the tree"
            );
            places.push((entry, Place::leaf(leaf, slot)));
        }
        self.ledger.check(runs);
        assert_eq!(places.len(), self.len, "the core counts its entries");
        places
    }
}

/// Every entry of a detached core, back to front, taken out one by one.
pub(crate) struct Detached<E: Entry> {
    buckets: Buckets<E>,
    tree: Tree<E>,
    /// The bucket being emptied, and its block, slots still to take, and Z
    /// bits; `usize::MAX` between buckets.
    bucket: usize,
    block: u32,
    mask: u32,
    /// The next bucket to empty, if any, and the next tree entry.
    next_bucket: Option<usize>,
    leaf: u32,
    slot: usize,
    max_level: usize,
    remaining: usize,
}

impl<E: Entry> Detached<E> {
    fn new(buckets: Buckets<E>, tree: Tree<E>, max_level: usize, remaining: usize) -> Self {
        let next_bucket = buckets.occupancy().next_from(0);
        let leaf = tree.first;
        Detached {
            buckets,
            tree,
            bucket: usize::MAX,
            block: NONE,
            mask: 0,
            next_bucket,
            leaf,
            slot: 0,
            max_level,
            remaining,
        }
    }

    /// Every entry not taken out yet, in no particular order.
    pub(crate) fn entries(&self) -> impl Iterator<Item = &E> + '_ {
        debug_assert_eq!(
            self.remaining,
            self.buckets.entries().count() + self.tree.entries().count()
        );
        self.buckets.entries().chain(self.tree.entries())
    }

    fn bucket_bits(&self, bucket: usize) -> i64 {
        if bucket > self.max_level {
            i64::from(DEFAULT_Z.to_bits())
        } else {
            i64::from(level_z(bucket).to_bits())
        }
    }
}

impl<E: Entry> Iterator for Detached<E> {
    type Item = (E, I16F16);

    fn next(&mut self) -> Option<(E, I16F16)> {
        if self.remaining == 0 {
            return None;
        }
        self.remaining -= 1;
        loop {
            if self.mask != 0 {
                let slot = self.mask.trailing_zeros() as usize;
                self.mask &= self.mask - 1;
                let z = I16F16::from_bits(self.bucket_bits(self.bucket) as i32);
                return Some((self.buckets.take_at(self.block, slot), z));
            }
            if self.block != NONE {
                self.block = self.buckets.block(self.block).next;
                if self.block != NONE {
                    self.mask = self.buckets.block(self.block).occupied();
                    continue;
                }
            }
            let bound = self.next_bucket.map_or(i64::MAX, |b| self.bucket_bits(b));
            if self.leaf != NONE {
                let leaf = self.tree.leaf(self.leaf);
                if self.slot == leaf.len {
                    (self.leaf, self.slot) = (leaf.next, 0);
                    continue;
                }
                let z = leaf.zs[self.slot];
                if i64::from(z) < bound {
                    let entry = self.tree.take_at(self.leaf, self.slot);
                    self.slot += 1;
                    return Some((entry, I16F16::from_bits(z)));
                }
            }
            let bucket = self.next_bucket?;
            self.bucket = bucket;
            self.block = self.buckets.bucket(bucket).head;
            self.mask = self.buckets.block(self.block).occupied();
            self.next_bucket = self.buckets.occupancy().next_from(bucket + 1);
        }
    }

    fn size_hint(&self) -> (usize, Option<usize>) {
        (self.remaining, Some(self.remaining))
    }
}
