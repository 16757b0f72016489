//! The object handle: a user's value carrying its own collection link.

use core::cell::Cell;
use core::fmt;
use core::ops::Deref;
use core::ptr::NonNull;

use intrusive_collections::LinkedListLink;

use crate::bucket::{self, Bucket};

/// A game object as a Z collection holds it: the user's value plus the link
/// that files it in a bucket and a cached pointer to that bucket, so removal
/// never searches (the legacy `getCurrentLink()`/`setCurrentLink()`).
///
/// Objects are shared handles: wrap them in an [`Rc`](alloc::rc::Rc), keep
/// your handle, and the collection keeps a clone while the object is in it.
/// `ZObject<T>` dereferences to `T`.
///
/// ```
/// use std::cell::Cell;
/// use std::rc::Rc;
/// use zorder::{FixedPointZCollection, I16F16, ZObject};
///
/// let hero = Rc::new(ZObject::new(Cell::new(I16F16::from_num(2))));
/// let mut layers = FixedPointZCollection::new(10)?;
/// layers.add(&hero)?;
/// assert!(hero.is_in_collection());
/// assert_eq!(hero.get(), I16F16::from_num(2)); // `Cell::get`, through `Deref`
/// # Ok::<(), zorder::ZError>(())
/// ```
pub struct ZObject<T> {
    pub(crate) link: LinkedListLink,
    /// The bucket the object is filed in: `Some` exactly while `link` is
    /// linked into that bucket's object list.
    pub(crate) bucket: Cell<Option<NonNull<Bucket<T>>>>,
    value: T,
}

impl<T> ZObject<T> {
    /// Wraps `value`; the object starts in no collection.
    pub const fn new(value: T) -> Self {
        ZObject {
            link: LinkedListLink::new(),
            bucket: Cell::new(None),
            value,
        }
    }

    /// The wrapped value (also reachable through `Deref`).
    pub const fn value(&self) -> &T {
        &self.value
    }

    /// Unwraps the value. Possible only for an object in no collection,
    /// since a collection holds an `Rc` clone of every object it contains.
    pub fn into_inner(self) -> T {
        self.value
    }

    /// Whether the object is in some Z collection (this answers for any
    /// collection; [`Collection::contains`](crate::Collection::contains)
    /// answers for one).
    pub fn is_in_collection(&self) -> bool {
        self.bucket.get().is_some()
    }

    /// Whether `self` and `other` are the same object.
    pub fn same(&self, other: &ZObject<T>) -> bool {
        core::ptr::eq(self, other)
    }

    /// The owner of the object's bucket, if it is in a collection.
    pub(crate) fn owner(&self) -> Option<bucket::Owner> {
        bucket::owner_of(self)
    }
}

impl<T> Deref for ZObject<T> {
    type Target = T;

    fn deref(&self) -> &T {
        &self.value
    }
}

impl<T: Default> Default for ZObject<T> {
    fn default() -> Self {
        ZObject::new(T::default())
    }
}

impl<T> From<T> for ZObject<T> {
    fn from(value: T) -> Self {
        ZObject::new(value)
    }
}

impl<T: fmt::Debug> fmt::Debug for ZObject<T> {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_struct("ZObject")
            .field("value", &self.value)
            .field("in_collection", &self.is_in_collection())
            .finish()
    }
}
