//! The object handle: a user's value carrying its own collection link.

use core::cell::Cell;
use core::fmt;
use core::ops::Deref;
use core::ptr::NonNull;

use crate::block::Block;
use crate::bucket::{self, Owner};

/// A game object as a Z collection holds it: the user's value plus the place
/// where the collection filed it (its block and slot), so removal never
/// searches (the legacy `getCurrentLink()`/`setCurrentLink()`).
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
    /// The block the object is filed in: `Some` exactly while a slot of that
    /// block holds the object (the `block` module's invariant 1).
    block: Cell<Option<NonNull<Block<T>>>>,
    /// That slot, meaningful while `block` is `Some`. A cell of its own
    /// rather than part of a tuple, so it can share padding with `value`.
    slot: Cell<u8>,
    value: T,
}

impl<T> ZObject<T> {
    /// Wraps `value`; the object starts in no collection.
    pub const fn new(value: T) -> Self {
        ZObject {
            block: Cell::new(None),
            slot: Cell::new(0),
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
        self.block.get().is_some()
    }

    /// Whether `self` and `other` are the same object.
    pub fn same(&self, other: &ZObject<T>) -> bool {
        core::ptr::eq(self, other)
    }

    /// Where the object is filed: its block and slot.
    #[inline]
    pub(crate) fn place(&self) -> Option<(NonNull<Block<T>>, u8)> {
        self.block.get().map(|block| (block, self.slot.get()))
    }

    #[inline]
    pub(crate) fn set_place(&self, place: Option<(NonNull<Block<T>>, u8)>) {
        self.block.set(place.map(|(block, _)| block));
        if let Some((_, slot)) = place {
            self.slot.set(slot);
        }
    }

    /// The collection the object is in, if any.
    pub(crate) fn owner(&self) -> Option<Owner> {
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
