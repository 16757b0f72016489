//! The fixed-point collection: every `I16F16` is a legal Z.
//!
//! Buckets sit in one intrusive chain sorted by Z. Natural levels
//! `0..=max_level` are opened up front and reached through a quick-access
//! array; the default Z has a dedicated bucket at the end of the chain. Any
//! other Z joins the bucket with exactly that Z or opens one in its sorted
//! place. Finding that place is where the legacy engine walked the chain from
//! the nearest optimized level; here an ordered index over the non-optimized
//! buckets finds it, in O(log b) for `b` of them instead of a walk over every
//! bucket in between (which the benchmarks measured at 256 fractional
//! buckets in one unit interval). The chain, and so the order, is the same.
//!
//! Empty non-optimized buckets are pruned: each records the traversal count
//! when it became empty and waits in a first-in first-out list, and a
//! traversal that starts with no other alive frees those that
//! [`prune_after`](FixedPointZCollection::prune_after) traversals have
//! found empty. A bucket refilled in time leaves the list, and its count
//! starts over when it empties again.
//!
//! The chain, the list and the index sit in `UnsafeCell`s for one reason: a
//! traversal (which only borrows the collection) frees stale buckets when it
//! starts, provided no other traversal is alive. All other changes to them
//! happen under `&mut self`.

use alloc::collections::BTreeMap;
use alloc::rc::Rc;
use alloc::vec::Vec;
use core::cell::{Cell, UnsafeCell};
use core::fmt;
use core::ptr::NonNull;

use intrusive_collections::LinkedList;

use crate::bucket::{Bucket, BucketKind, ChainAdapter, EmptiedAdapter, Owner, OwnerToken};
use crate::collection::Collection;
use crate::collection::sealed::LevelsImpl;
use crate::iter::Traversals;
use crate::sections::Layout;
use crate::z::{nearest_level, optimized_level};
use crate::{DEFAULT_Z, I16F16, MAX_LEVEL_LIMIT, ZError};

/// How many traversals in a row must find a non-optimized bucket empty
/// before a [`FixedPointZCollection`] frees it, unless set otherwise with
/// [`FixedPointZCollection::with_prune_after`]. A game traverses twice a
/// frame (draw, then touch), so 8 is about four frames.
pub const DEFAULT_PRUNE_AFTER: u32 = 8;

/// The fixed-point Z collection: every `I16F16` value is a legal Z, with
/// O(1) add, remove and change at the optimized levels `0..=max_level` and
/// at [`DEFAULT_Z`].
///
/// A drop-in for the legacy `FixedPointZCollection`.
///
/// ```
/// use std::cell::Cell;
/// use std::rc::Rc;
/// use zorder::{DEFAULT_Z, FixedPointZCollection, I16F16, ZObject};
///
/// let mut scene = FixedPointZCollection::new(100)?;
/// // The legacy creation pattern: the default Z first, then the layer.
/// let jelly = Rc::new(ZObject::new(Cell::new(DEFAULT_Z)));
/// scene.add(&jelly)?;
/// jelly.set(I16F16::from_num(-1.5)); // any Z: negative, fractional, huge
/// scene.change(&jelly)?;
/// assert_eq!(scene.nonoptimized_buckets(), 1);
/// # Ok::<(), zorder::ZError>(())
/// ```
pub type FixedPointZCollection<T> = Collection<T, FixedPointLevels<T>>;

/// The bucket storage of a [`FixedPointZCollection`]: an intrusive chain of
/// buckets sorted by Z, a quick-access array over the optimized levels, a
/// dedicated bucket for the default Z, and an index and a pruning list over
/// the other buckets.
pub struct FixedPointLevels<T> {
    chain: UnsafeCell<LinkedList<ChainAdapter<T>>>,
    /// The bucket of each optimized level; never freed.
    quick_access: Vec<NonNull<Bucket<T>>>,
    default_bucket: NonNull<Bucket<T>>,
    /// Every non-optimized bucket, by the bits of its Z.
    index: UnsafeCell<BTreeMap<i32, NonNull<Bucket<T>>>>,
    /// The empty non-optimized buckets, in the order they became empty.
    emptied: UnsafeCell<LinkedList<EmptiedAdapter<T>>>,
    nonoptimized: Cell<usize>,
    prune_after: u32,
    token: OwnerToken,
}

impl<T> FixedPointZCollection<T> {
    /// A collection with optimized levels `0..=max_level` and the
    /// [default pruning threshold](DEFAULT_PRUNE_AFTER).
    ///
    /// # Errors
    ///
    /// [`ZError::MaxLevelTooLarge`] if `max_level` exceeds
    /// [`MAX_LEVEL_LIMIT`].
    pub fn new(max_level: u16) -> Result<Self, ZError> {
        Self::with_prune_after(max_level, DEFAULT_PRUNE_AFTER)
    }

    /// A collection with optimized levels `0..=max_level` whose empty
    /// non-optimized buckets are freed once `prune_after` traversals in a
    /// row have found them empty.
    ///
    /// # Errors
    ///
    /// [`ZError::MaxLevelTooLarge`] if `max_level` exceeds
    /// [`MAX_LEVEL_LIMIT`], [`ZError::ZeroPruneThreshold`] if `prune_after`
    /// is 0.
    pub fn with_prune_after(max_level: u16, prune_after: u32) -> Result<Self, ZError> {
        if max_level > MAX_LEVEL_LIMIT {
            return Err(ZError::MaxLevelTooLarge { max_level });
        }
        if prune_after == 0 {
            return Err(ZError::ZeroPruneThreshold);
        }
        let token = OwnerToken::new();
        let owner = token.owner();
        let mut chain = LinkedList::new(ChainAdapter::NEW);
        let mut open = |z, kind| {
            let bucket = Rc::new(Bucket::new(z, kind, section_of(z, max_level), owner));
            let pointer = bucket_pointer(&bucket);
            chain.push_back(bucket);
            pointer
        };
        let quick_access = (0..=i32::from(max_level))
            .map(|level| {
                open(
                    I16F16::from_bits(level << I16F16::FRAC_NBITS),
                    BucketKind::Level,
                )
            })
            .collect();
        let default_bucket = open(DEFAULT_Z, BucketKind::Default);
        Ok(Collection::with_levels(FixedPointLevels {
            chain: UnsafeCell::new(chain),
            quick_access,
            default_bucket,
            index: UnsafeCell::new(BTreeMap::new()),
            emptied: UnsafeCell::new(LinkedList::new(EmptiedAdapter::NEW)),
            nonoptimized: Cell::new(0),
            prune_after,
            token,
        }))
    }

    /// The pruning threshold: how many traversals in a row must find a
    /// non-optimized bucket empty before it is freed.
    pub fn prune_after(&self) -> u32 {
        self.levels().prune_after
    }
}

/// The section (see `sections`) of Z `z` with levels `0..=max_level`:
/// negatives first, then one per level, then the default Z.
fn section_of(z: I16F16, max_level: u16) -> usize {
    if z == DEFAULT_Z {
        usize::from(max_level) + 2
    } else if z < 0 {
        0
    } else {
        nearest_level(z, max_level) + 1
    }
}

/// A bucket pointer that keeps the provenance of the whole `Rc` allocation.
fn bucket_pointer<T>(bucket: &Rc<Bucket<T>>) -> NonNull<Bucket<T>> {
    NonNull::new(Rc::as_ptr(bucket).cast_mut()).expect("an Rc is never null")
}

impl<T> FixedPointLevels<T> {
    fn chain(&self) -> &LinkedList<ChainAdapter<T>> {
        // SAFETY: the chain is mutated only under `&mut self` or in
        // `prune_stale`, whose contract rules out any live borrow of it, so
        // a shared borrow here cannot overlap a mutation.
        unsafe { &*self.chain.get() }
    }

    /// The non-optimized bucket for `z`, opened in its sorted place if need
    /// be: right after the bucket with the greatest Z below `z`, which is
    /// either the greatest non-optimized one (from the index) or the level
    /// just below `z`.
    fn between(&mut self, z: I16F16) -> NonNull<Bucket<T>> {
        let max_level = self.max_level();
        let index = self.index.get_mut();
        let key = z.to_bits();
        if let Some(&bucket) = index.get(&key) {
            return bucket;
        }
        let below_between = index.range(..key).next_back().map(|(_, &bucket)| bucket);
        let below_level = (z >= 0).then(|| self.quick_access[nearest_level(z, max_level)]);
        // SAFETY: both are buckets of this chain, alive while in it.
        let z_of = |bucket: NonNull<Bucket<T>>| unsafe { bucket.as_ref() }.z();
        let after = match (below_between, below_level) {
            (Some(a), Some(b)) => Some(if z_of(a) > z_of(b) { a } else { b }),
            (a, b) => a.or(b),
        };
        let bucket = Rc::new(Bucket::new(
            z,
            BucketKind::Between,
            section_of(z, max_level),
            self.token.owner(),
        ));
        let pointer = bucket_pointer(&bucket);
        let chain = self.chain.get_mut();
        match after {
            Some(after) => {
                // SAFETY: `after` is a bucket of this chain, from `Rc::as_ptr`.
                let mut cursor = unsafe { chain.cursor_mut_from_ptr(after.as_ptr()) };
                cursor.insert_after(bucket);
            }
            None => chain.push_front(bucket),
        }
        index.insert(key, pointer);
        self.nonoptimized.set(self.nonoptimized.get() + 1);
        pointer
    }
}

// The sealed trait speaks of crate-private types on purpose.
#[allow(private_interfaces)]
impl<T> LevelsImpl<T> for FixedPointLevels<T> {
    const NAME: &'static str = "FixedPointZCollection";

    fn owner(&self) -> Owner {
        self.token.owner()
    }

    fn max_level(&self) -> u16 {
        (self.quick_access.len() - 1) as u16
    }

    fn sections(&self) -> usize {
        self.quick_access.len() + 2
    }

    #[inline]
    fn locate(&mut self, z: I16F16) -> Result<NonNull<Bucket<T>>, ZError> {
        if z == DEFAULT_Z {
            return Ok(self.default_bucket);
        }
        match optimized_level(z, self.max_level()) {
            Some(level) => Ok(self.quick_access[level]),
            None => Ok(self.between(z)),
        }
    }

    fn layout(&self) -> Layout<'_, T> {
        Layout::Chain {
            chain: self.chain(),
            levels: &self.quick_access,
            default: self.default_bucket,
        }
    }

    fn nonoptimized_buckets(&self) -> usize {
        self.nonoptimized.get()
    }

    fn emptied(&mut self, bucket: NonNull<Bucket<T>>, traversals: &Traversals) {
        // SAFETY: a bucket of this collection, from `locate` (invariant 3 of
        // `bucket`).
        let bucket_ref = unsafe { bucket.as_ref() };
        if bucket_ref.kind() == BucketKind::Between {
            bucket_ref.set_emptied_at(traversals.started());
            // SAFETY: the chain owns the bucket, so an `Rc` for it exists;
            // this makes one more for the list to own, given back when the
            // list lets go of it.
            let handle = unsafe {
                Rc::increment_strong_count(bucket.as_ptr());
                Rc::from_raw(bucket.as_ptr())
            };
            self.emptied.get_mut().push_back(handle);
        }
    }

    fn filled(&mut self, bucket: NonNull<Bucket<T>>) {
        // SAFETY: as in `emptied`.
        if unsafe { bucket.as_ref() }.is_waiting_for_pruning() {
            // SAFETY: the bucket is in the list, and the pointer comes from
            // `Rc::as_ptr`.
            let mut cursor = unsafe { self.emptied.get_mut().cursor_mut_from_ptr(bucket.as_ptr()) };
            drop(cursor.remove());
        }
    }

    unsafe fn prune_stale(&self, traversals: &Traversals) {
        // SAFETY: no reference into the chain, the list or the index is
        // alive, by this function's contract, so these are the only ones.
        let (chain, emptied, index) = unsafe {
            (
                &mut *self.chain.get(),
                &mut *self.emptied.get(),
                &mut *self.index.get(),
            )
        };
        let now = traversals.started();
        while let Some(emptied_at) = emptied.front().get().map(Bucket::emptied_at) {
            if now - emptied_at < u64::from(self.prune_after) {
                break;
            }
            let bucket = emptied.pop_front().expect("the front bucket");
            index.remove(&bucket.z().to_bits());
            // SAFETY: a non-optimized bucket is in the chain until pruned,
            // and the pointer comes from the `Rc` the list held.
            drop(unsafe { chain.cursor_mut_from_ptr(Rc::as_ptr(&bucket)) }.remove());
            self.nonoptimized.set(self.nonoptimized.get() - 1);
        }
    }

    fn free_nonoptimized(&mut self) {
        // The list's handles go first, so unlinking a bucket from the chain
        // drops its last one.
        self.emptied.get_mut().clear();
        let chain = self.chain.get_mut();
        for (_, bucket) in core::mem::take(self.index.get_mut()) {
            // SAFETY: every bucket of the index is in the chain, and its
            // pointer comes from `Rc::as_ptr`.
            let freed = unsafe { chain.cursor_mut_from_ptr(bucket.as_ptr()) }.remove();
            debug_assert!(freed.is_some_and(|bucket| bucket.is_empty()));
        }
        self.nonoptimized.set(0);
    }
}

impl<T> fmt::Debug for FixedPointLevels<T> {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_struct("FixedPointLevels")
            .field("max_level", &self.max_level())
            .field("nonoptimized_buckets", &self.nonoptimized.get())
            .field("prune_after", &self.prune_after)
            .finish()
    }
}
