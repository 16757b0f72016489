//! The fixed-point collection: every `I16F16` is a legal Z.
//!
//! Buckets sit in one intrusive chain sorted by Z. Natural levels
//! `0..=max_level` are opened up front and reached through a quick-access
//! array; the default Z has a dedicated bucket at the end of the chain. Any
//! other Z walks the chain from the nearest optimized level, joining the
//! bucket with that exact Z or opening one in its sorted place. Empty
//! non-optimized buckets are pruned by traversals.
//!
//! The chain sits in an `UnsafeCell` for one reason: a traversal (which only
//! borrows the collection) frees stale buckets when it starts, provided no
//! other traversal is alive. All other changes to the chain happen under
//! `&mut self`.

use alloc::rc::Rc;
use alloc::vec::Vec;
use core::cell::{Cell, UnsafeCell};
use core::fmt;
use core::ptr::NonNull;

use intrusive_collections::LinkedList;

use crate::bucket::{Bucket, BucketKind, ChainAdapter, Owner, OwnerToken};
use crate::collection::Collection;
use crate::collection::sealed::LevelsImpl;
use crate::iter::BucketIter;
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
/// buckets sorted by Z, a quick-access array over the optimized levels, and
/// a dedicated bucket for the default Z.
pub struct FixedPointLevels<T> {
    chain: UnsafeCell<LinkedList<ChainAdapter<T>>>,
    /// The bucket of each optimized level; never freed.
    quick_access: Vec<NonNull<Bucket<T>>>,
    default_bucket: NonNull<Bucket<T>>,
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
            let bucket = Rc::new(Bucket::new(z, kind, owner));
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

    /// Walks the chain from the optimized bucket `start` toward `z`, and
    /// returns the bucket with exactly that Z, opening it if needed.
    fn walk_from(&mut self, start: NonNull<Bucket<T>>, z: I16F16) -> NonNull<Bucket<T>> {
        let owner = self.token.owner();
        let chain = self.chain.get_mut();
        // SAFETY: `start` is an optimized bucket of this chain, and those are
        // never freed.
        let mut cursor = unsafe { chain.cursor_mut_from_ptr(start.as_ptr()) };
        let upward = cursor.get().is_some_and(|bucket| bucket.z() < z);
        loop {
            if upward {
                cursor.move_next();
            } else {
                cursor.move_prev();
            }
            match cursor.get() {
                Some(bucket) if bucket.z() == z => {
                    return cursor.get_ptr().expect("the cursor points at a bucket");
                }
                Some(bucket) if (bucket.z() < z) == upward => continue,
                _ => break,
            }
        }
        // The cursor passed `z` (or ran off the chain's front): open the
        // bucket between it and the previous step.
        let bucket = Rc::new(Bucket::new(z, BucketKind::Between, owner));
        let pointer = bucket_pointer(&bucket);
        if upward {
            cursor.insert_before(bucket);
        } else {
            cursor.insert_after(bucket);
        }
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

    fn prune_after(&self) -> u32 {
        self.prune_after
    }

    #[inline]
    fn locate(&mut self, z: I16F16) -> Result<NonNull<Bucket<T>>, ZError> {
        if z == DEFAULT_Z {
            return Ok(self.default_bucket);
        }
        let max_level = self.max_level();
        if let Some(level) = optimized_level(z, max_level) {
            return Ok(self.quick_access[level]);
        }
        let start = self.quick_access[nearest_level(z, max_level)];
        Ok(self.walk_from(start, z))
    }

    fn buckets(&self) -> BucketIter<'_, T> {
        BucketIter::Chain(self.chain().iter())
    }

    fn nonoptimized_buckets(&self) -> usize {
        self.nonoptimized.get()
    }

    unsafe fn prune_stale(&self) {
        // SAFETY: no reference into the chain is alive, by this function's
        // contract, so this is the only access to it.
        let chain = unsafe { &mut *self.chain.get() };
        let mut cursor = chain.front_mut();
        while let Some(bucket) = cursor.get() {
            if bucket.is_stale(self.prune_after) {
                cursor.remove();
                self.nonoptimized.set(self.nonoptimized.get() - 1);
            } else {
                cursor.move_next();
            }
        }
    }

    fn free_empty_nonoptimized(&mut self) {
        let mut cursor = self.chain.get_mut().front_mut();
        while let Some(bucket) = cursor.get() {
            if bucket.kind() == BucketKind::Between {
                debug_assert!(bucket.is_empty());
                cursor.remove();
            } else {
                cursor.move_next();
            }
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
