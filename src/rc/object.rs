//! The object handle of the `Rc` collections: a value that reports its Z
//! and carries the place a collection filed it at.

use alloc::boxed::Box;
use alloc::rc::Rc;
use core::cell::Cell;
use core::fmt;
use core::ops::Deref;

use crate::engine::entry::{Book, Entry};
use crate::engine::place::Place;
use crate::z::I16F16;

/// An object that reports its Z, like the legacy `ZSortable.getZOrder()`.
///
/// The `Rc` collections read it in `add` and `change`, never at any other
/// time, so the object may change its Z freely in between; the new Z takes
/// effect at the next `change`. It runs before the collection changes
/// anything, so a `z_order` that panics, or that files the object in
/// another collection, leaves the collection as it was.
///
/// ```
/// use std::cell::Cell;
/// use zorder::{I16F16, ZSortable};
///
/// struct Sprite {
///     z: Cell<I16F16>,
/// }
///
/// impl ZSortable for Sprite {
///     fn z_order(&self) -> I16F16 {
///         self.z.get()
///     }
/// }
/// let hero = Sprite { z: Cell::new(I16F16::from_num(3)) };
/// assert_eq!(hero.z_order(), 3);
/// ```
pub trait ZSortable {
    /// The object's current Z.
    fn z_order(&self) -> I16F16;
}

/// A boxed object reports its Z, as the object does (trait objects
/// included).
///
/// ```
/// use zorder::{I16F16, ZSortable};
///
/// struct Cloud;
/// impl ZSortable for Cloud {
///     fn z_order(&self) -> I16F16 { I16F16::from_num(9) }
/// }
/// let boxed: Box<dyn ZSortable> = Box::new(Cloud);
/// assert_eq!(boxed.z_order(), 9);
/// ```
impl<T: ZSortable + ?Sized> ZSortable for Box<T> {
    fn z_order(&self) -> I16F16 {
        (**self).z_order()
    }
}

/// A shared object reports its Z, as the object does.
///
/// ```
/// use std::cell::Cell;
/// use std::rc::Rc;
/// use zorder::{I16F16, ZSortable};
///
/// assert_eq!(Rc::new(Cell::new(I16F16::from_num(4))).z_order(), 4);
/// ```
impl<T: ZSortable + ?Sized> ZSortable for Rc<T> {
    fn z_order(&self) -> I16F16 {
        (**self).z_order()
    }
}

/// A borrowed object reports its Z, as the object does.
///
/// ```
/// use std::cell::Cell;
/// use zorder::{I16F16, ZSortable};
///
/// let z = Cell::new(I16F16::from_num(-1));
/// assert_eq!((&z).z_order(), -1);
/// ```
impl<T: ZSortable + ?Sized> ZSortable for &T {
    fn z_order(&self) -> I16F16 {
        (**self).z_order()
    }
}

/// A bare Z cell is the smallest sortable object, handy in tests and tools.
///
/// ```
/// use std::cell::Cell;
/// use zorder::{I16F16, ZSortable};
///
/// assert_eq!(Cell::new(I16F16::from_num(2)).z_order(), 2);
/// ```
impl ZSortable for Cell<I16F16> {
    fn z_order(&self) -> I16F16 {
        self.get()
    }
}

/// A game object as an `Rc` collection holds it: the value, and the place
/// the collection filed it at (the legacy `getCurrentLink()` and
/// `setCurrentLink()`), so removal never searches.
///
/// Wrap it in an [`Rc`], keep your handle, and a collection keeps a clone
/// while the object is in it. `ZObject<T>` dereferences to `T`; like
/// [`Rc`], it has no methods of its own, only associated functions
/// (`ZObject::ptr_eq(&a, &b)`), so every method call reaches your `T`.
///
/// The value may be unsized, so one collection can hold objects of many
/// types as `Rc<ZObject<dyn Trait>>`, where the trait has [`ZSortable`] as
/// a supertrait:
///
/// ```
/// use std::rc::Rc;
/// use zorder::{FixedPointZCollection, I16F16, ZObject, ZSortable};
///
/// trait GameObject: ZSortable {
///     fn name(&self) -> &str;
/// }
/// struct Hero;
/// struct Coin(I16F16);
/// impl ZSortable for Hero { fn z_order(&self) -> I16F16 { I16F16::from_num(5) } }
/// impl ZSortable for Coin { fn z_order(&self) -> I16F16 { self.0 } }
/// impl GameObject for Hero { fn name(&self) -> &str { "hero" } }
/// impl GameObject for Coin { fn name(&self) -> &str { "coin" } }
///
/// let hero: Rc<ZObject<dyn GameObject>> = Rc::new(ZObject::new(Hero));
/// let coin: Rc<ZObject<dyn GameObject>> = Rc::new(ZObject::new(Coin(I16F16::from_num(2.5))));
/// let mut scene = FixedPointZCollection::new(10)?;
/// scene.add(&hero)?;
/// scene.add(&coin)?;
/// let names: Vec<&str> = scene.back_to_front().map(|o| o.name()).collect();
/// assert_eq!(names, ["coin", "hero"]);
/// # Ok::<(), zorder::ZError>(())
/// ```
///
/// The `Rc` collections are single-threaded (`Rc` is neither `Send` nor
/// `Sync`); for threads or an ECS, use the keyed [`ZOrder`](crate::ZOrder).
///
/// ```
/// use std::cell::Cell;
/// use std::rc::Rc;
/// use zorder::{FixedPointZCollection, I16F16, ZObject};
///
/// let hero = Rc::new(ZObject::new(Cell::new(I16F16::from_num(2))));
/// let mut layers = FixedPointZCollection::new(10)?;
/// layers.add(&hero)?;
/// assert!(ZObject::is_in_collection(&hero));
/// assert_eq!(hero.get(), I16F16::from_num(2)); // `Cell::get`, through `Deref`
/// # Ok::<(), zorder::ZError>(())
/// ```
pub struct ZObject<T: ?Sized> {
    /// The collection holding the object (its token), or 0.
    owner: Cell<usize>,
    /// Where that collection filed it.
    place: Cell<u32>,
    value: T,
}

impl<T> ZObject<T> {
    /// Wraps `value`; the object starts in no collection.
    ///
    /// ```
    /// use zorder::ZObject;
    ///
    /// let object = ZObject::new("jelly");
    /// assert!(!ZObject::is_in_collection(&object));
    /// ```
    pub const fn new(value: T) -> Self {
        ZObject {
            owner: Cell::new(0),
            place: Cell::new(Place::NOWHERE.to_bits()),
            value,
        }
    }

    /// Unwraps the value (possible only for an object no collection holds,
    /// since a collection holds an `Rc` clone of each object it contains).
    ///
    /// ```
    /// use std::rc::Rc;
    /// use zorder::ZObject;
    ///
    /// let object = Rc::new(ZObject::new(5));
    /// let object = Rc::try_unwrap(object).ok().unwrap();
    /// assert_eq!(ZObject::into_inner(object), 5);
    /// ```
    pub fn into_inner(this: Self) -> T {
        this.value
    }
}

impl<T: ?Sized> ZObject<T> {
    /// Whether the object is in some `Rc` collection (this answers for any
    /// collection; a collection's `contains` answers for itself).
    ///
    /// ```
    /// use std::cell::Cell;
    /// use std::rc::Rc;
    /// use zorder::{I16F16, SimpleZCollection, ZObject};
    ///
    /// let object = Rc::new(ZObject::new(Cell::new(I16F16::ZERO)));
    /// let mut hud = SimpleZCollection::new(3)?;
    /// hud.add(&object)?;
    /// assert!(ZObject::is_in_collection(&object));
    /// hud.remove(&object)?;
    /// assert!(!ZObject::is_in_collection(&object));
    /// # Ok::<(), zorder::ZError>(())
    /// ```
    pub fn is_in_collection(this: &Self) -> bool {
        this.owner.get() != 0
    }

    /// Whether `a` and `b` are the same object (as `Rc::ptr_eq` for the
    /// handles).
    ///
    /// ```
    /// use std::rc::Rc;
    /// use zorder::ZObject;
    ///
    /// let a = Rc::new(ZObject::new(1));
    /// let b = Rc::new(ZObject::new(1));
    /// assert!(ZObject::ptr_eq(&a, &Rc::clone(&a)) && !ZObject::ptr_eq(&a, &b));
    /// ```
    pub fn ptr_eq(a: &Self, b: &Self) -> bool {
        core::ptr::addr_eq(a, b)
    }

    /// The collection token holding the object, or 0.
    pub(crate) fn owner(this: &Self) -> usize {
        this.owner.get()
    }

    /// Where the collection with token `owner` filed the object, if it did.
    pub(crate) fn place_in(this: &Self, owner: usize) -> Place {
        if this.owner.get() == owner {
            Place::from_bits(this.place.get())
        } else {
            Place::NOWHERE
        }
    }

    /// The object leaves its collection.
    pub(crate) fn forget(this: &Self) {
        this.owner.set(0);
        this.place.set(Place::NOWHERE.to_bits());
    }
}

impl<T: ?Sized> Deref for ZObject<T> {
    type Target = T;

    fn deref(&self) -> &T {
        &self.value
    }
}

impl<T: Default> Default for ZObject<T> {
    /// An object wrapping `T::default()`, in no collection.
    fn default() -> Self {
        ZObject::new(T::default())
    }
}

impl<T> From<T> for ZObject<T> {
    /// Wraps `value`, as [`ZObject::new`].
    fn from(value: T) -> Self {
        ZObject::new(value)
    }
}

impl<T: fmt::Debug + ?Sized> fmt::Debug for ZObject<T> {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_struct("ZObject")
            .field("value", &&self.value)
            .field("in_collection", &ZObject::is_in_collection(self))
            .finish()
    }
}

impl<T: ?Sized> Entry for Rc<ZObject<T>> {
    type Slot = Option<Rc<ZObject<T>>>;

    #[inline]
    fn vacant(&self) -> Self::Slot {
        None
    }

    #[inline]
    fn into_slot(self) -> Self::Slot {
        Some(self)
    }

    #[inline]
    fn take(slot: &mut Self::Slot) -> Self {
        slot.take().expect("a slot holding an object")
    }

    #[inline]
    fn get(slot: &Self::Slot) -> &Self {
        slot.as_ref().expect("a slot holding an object")
    }

    #[inline]
    fn peek(slot: &Self::Slot) -> Option<&Self> {
        slot.as_ref()
    }

    #[inline]
    fn same(&self, other: &Self) -> bool {
        core::ptr::addr_eq(Rc::as_ptr(self), Rc::as_ptr(other))
    }
}

/// The places of objects live in the objects themselves, stamped with the
/// token of the collection that filed them.
#[derive(Debug)]
pub(crate) struct ObjectBook {
    pub(crate) owner: usize,
}

impl<T: ?Sized> Book<Rc<ZObject<T>>> for ObjectBook {
    #[inline]
    fn set(&mut self, object: &Rc<ZObject<T>>, place: Place) {
        if place == Place::NOWHERE {
            ZObject::forget(object);
        } else {
            object.place.set(place.to_bits());
            object.owner.set(self.owner);
        }
    }

    #[inline]
    fn get(&self, object: &Rc<ZObject<T>>) -> Place {
        ZObject::place_in(object, self.owner)
    }
}
