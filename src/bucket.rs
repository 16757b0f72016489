//! A bucket: the objects at one Z value, in the order of their last
//! Z-action, and the pointer mechanics every collection shares.
//!
//! This is one of the two modules with `unsafe` code (the other is
//! `fixed_point`, for the bucket chain). The invariants it relies on:
//!
//! 1. An object's cached bucket pointer is `Some(b)` exactly while the object
//!    is linked into `b`'s object list, and `b` is alive: a bucket holding
//!    objects is never freed, and a collection unfiles every object before
//!    it drops its buckets.
//! 2. An object list is mutated only by code holding exclusive access (`&mut`)
//!    to the collection that owns the bucket, so no shared borrow of the list
//!    ([`Bucket::objects`]) is alive then.
//! 3. Every pointer to a bucket or an object that is turned back into a
//!    reference or an `Rc` comes from `Rc::as_ptr`, `Rc::into_raw` (inside the
//!    lists), or a shared reference to a bucket, whose mutable parts all sit
//!    in cells.

use alloc::boxed::Box;
use alloc::rc::Rc;
use core::cell::{Cell, UnsafeCell};
use core::ptr::NonNull;

use intrusive_collections::{LinkedList, LinkedListLink, intrusive_adapter, linked_list};

use crate::{I16F16, ZObject};

intrusive_adapter!(pub(crate) ObjectAdapter<T> = Rc<ZObject<T>>: ZObject<T> { link => LinkedListLink });
intrusive_adapter!(pub(crate) ChainAdapter<T> = Rc<Bucket<T>>: Bucket<T> { chain_link => LinkedListLink });

/// The objects of one bucket, back to front.
pub(crate) type ObjectIter<'a, T> = linked_list::Iter<'a, ObjectAdapter<T>>;

/// Which collection a bucket belongs to: the address of a small allocation
/// the collection owns for its whole life, so two live collections never
/// share one.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) struct Owner(NonNull<u8>);

/// The allocation behind an [`Owner`]; the collection keeps it alive.
#[derive(Debug)]
pub(crate) struct OwnerToken(Box<u8>);

impl OwnerToken {
    pub(crate) fn new() -> Self {
        OwnerToken(Box::new(0))
    }

    pub(crate) fn owner(&self) -> Owner {
        Owner(NonNull::from(&*self.0))
    }
}

/// What part a bucket plays in its collection.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) enum BucketKind {
    /// An optimized natural level, reached through the quick-access array.
    Level,
    /// The dedicated bucket for [`DEFAULT_Z`](crate::DEFAULT_Z).
    Default,
    /// Any other Z, opened on demand and pruned once traversals keep finding
    /// it empty.
    Between,
}

/// Every object at one Z value, in the order of their last Z-action.
pub(crate) struct Bucket<T> {
    /// The bucket's place in a fixed-point collection's chain (unused by the
    /// simple collection's array).
    chain_link: LinkedListLink,
    z: I16F16,
    kind: BucketKind,
    owner: Owner,
    objects: UnsafeCell<LinkedList<ObjectAdapter<T>>>,
    /// How many traversals in a row found this bucket empty.
    empty_traversals: Cell<u32>,
}

impl<T> Bucket<T> {
    pub(crate) fn new(z: I16F16, kind: BucketKind, owner: Owner) -> Self {
        Bucket {
            chain_link: LinkedListLink::new(),
            z,
            kind,
            owner,
            objects: UnsafeCell::new(LinkedList::new(ObjectAdapter::NEW)),
            empty_traversals: Cell::new(0),
        }
    }

    pub(crate) fn z(&self) -> I16F16 {
        self.z
    }

    pub(crate) fn kind(&self) -> BucketKind {
        self.kind
    }

    /// The bucket's objects, back to front.
    pub(crate) fn objects(&self) -> &LinkedList<ObjectAdapter<T>> {
        // SAFETY: invariant 2: the list is mutated only under exclusive access
        // to the owning collection, which cannot coexist with this `&self`
        // borrow reached through that collection.
        unsafe { &*self.objects.get() }
    }

    pub(crate) fn is_empty(&self) -> bool {
        self.objects().is_empty()
    }

    /// Called by a traversal passing this bucket: counts the traversals in a
    /// row that found it empty.
    pub(crate) fn note_traversal(&self) {
        let count = if self.is_empty() {
            self.empty_traversals.get().saturating_add(1)
        } else {
            0
        };
        self.empty_traversals.set(count);
    }

    /// Whether traversals have found this non-optimized bucket empty at least
    /// `threshold` times in a row, so it may be freed.
    pub(crate) fn is_stale(&self, threshold: u32) -> bool {
        self.kind == BucketKind::Between
            && self.is_empty()
            && self.empty_traversals.get() >= threshold
    }

    /// Takes every object out of the bucket, front first, handing each to
    /// `release` once it is fully unfiled.
    ///
    /// # Safety
    ///
    /// The caller holds exclusive access to the collection owning the bucket
    /// (invariant 2).
    pub(crate) unsafe fn drain(&self, mut release: impl FnMut(Rc<ZObject<T>>)) {
        // SAFETY: exclusive access, by this function's contract.
        let objects = unsafe { &mut *self.objects.get() };
        while let Some(object) = objects.pop_front() {
            object.bucket.set(None);
            release(object);
        }
    }
}

impl<T> Drop for Bucket<T> {
    /// A collection being dropped drops its buckets: the objects still in
    /// them are told they are free again before the list releases their
    /// handles, so even a panicking `T::drop` cannot leave an object pointing
    /// at a freed bucket.
    fn drop(&mut self) {
        for object in self.objects.get_mut().iter() {
            object.bucket.set(None);
        }
    }
}

/// Files `object` at the tail of `bucket` (the object becomes the front-most
/// of its Z) and caches the bucket in the object.
///
/// # Safety
///
/// `bucket` points to a live bucket, the caller holds exclusive access to
/// the collection owning it, and `object` is in no collection.
pub(crate) unsafe fn file<T>(bucket: NonNull<Bucket<T>>, object: Rc<ZObject<T>>) {
    debug_assert!(object.bucket.get().is_none());
    // SAFETY: the bucket is alive, by this function's contract.
    let bucket_ref = unsafe { bucket.as_ref() };
    // SAFETY: exclusive access, by this function's contract (invariant 2).
    let objects = unsafe { &mut *bucket_ref.objects.get() };
    bucket_ref.empty_traversals.set(0);
    object.bucket.set(Some(bucket));
    objects.push_back(object);
}

/// Unlinks `object` from its bucket in O(1) and returns the collection's
/// handle to it.
///
/// # Safety
///
/// `object` is in a collection to which the caller holds exclusive access.
pub(crate) unsafe fn unfile<T>(object: &Rc<ZObject<T>>) -> Rc<ZObject<T>> {
    let bucket = object
        .bucket
        .get()
        .expect("unfile: the object is in no bucket");
    // SAFETY: the object is in a collection (contract), so its bucket is
    // alive (invariant 1).
    let bucket_ref = unsafe { bucket.as_ref() };
    // SAFETY: exclusive access, by this function's contract (invariant 2).
    let objects = unsafe { &mut *bucket_ref.objects.get() };
    // SAFETY: the object is linked into this very list (invariant 1), and the
    // pointer comes from `Rc::as_ptr`, so it carries the provenance of the
    // whole allocation that the list's `Rc::from_raw` needs (invariant 3).
    let mut cursor = unsafe { objects.cursor_mut_from_ptr(Rc::as_ptr(object)) };
    let handle = cursor
        .remove()
        .expect("unfile: the cursor points at the object");
    object.bucket.set(None);
    handle
}

/// The collection an object's bucket belongs to, if the object is in one.
pub(crate) fn owner_of<T>(object: &ZObject<T>) -> Option<Owner> {
    // SAFETY: a set bucket pointer points to a live bucket (invariant 1); we
    // read one plain field through it and keep no reference.
    object
        .bucket
        .get()
        .map(|bucket| unsafe { bucket.as_ref() }.owner)
}
