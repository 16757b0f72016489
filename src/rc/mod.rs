//! The `Rc` face of the legacy port: [`RcZCollection`] in its two layouts
//! ([`FixedPointZCollection`], [`SimpleZCollection`]), the object handle,
//! the [`ZCollection`] trait over both, and their iterators.

mod iter;
mod object;

use alloc::boxed::Box;
use alloc::rc::Rc;
use alloc::vec::Vec;
use core::fmt;
use core::iter::Rev;
use core::marker::PhantomData;
use core::ops::{ControlFlow, RangeBounds};

pub use self::iter::{BackToFront, Drain, IntoIter, Range};
use self::object::ObjectBook;
pub use self::object::{ZObject, ZSortable};
use crate::engine::{At, Core, Step};
use crate::error::ZError;
use crate::keyed::Applied;
use crate::layout::{FixedPoint, Layout, Simple};
use crate::visit::{Updated, Visit};
use crate::z::{DEFAULT_PRUNE_AFTER, I16F16, MAX_LEVEL};

type Handle<T> = Rc<ZObject<T>>;

mod sealed {
    /// The core of an `Rc` collection. Public in a private module, so the
    /// [`ZCollection`](super::ZCollection) trait can reach it and no one
    /// else can name it.
    pub struct RcCore<T: ?Sized>(
        pub(crate) crate::engine::Core<super::Handle<T>, super::object::ObjectBook>,
    );

    impl<T: ?Sized> core::fmt::Debug for RcCore<T> {
        fn fmt(&self, f: &mut core::fmt::Formatter<'_>) -> core::fmt::Result {
            f.debug_struct("RcCore")
                .field("len", &self.0.len())
                .finish_non_exhaustive()
        }
    }

    /// Access to an `Rc` collection's core; seals
    /// [`ZCollection`](super::ZCollection).
    pub trait Sealed<T: ?Sized> {
        fn core_mut(&mut self) -> &mut RcCore<T>;
    }
}

use sealed::{RcCore, Sealed};

/// An always-sorted collection of shared game objects, `Rc<ZObject<T>>`,
/// whose `T` reports its Z: the legacy engine's collections, in the legacy
/// API's shape. Use it as [`FixedPointZCollection`] (every `I16F16` is a
/// Z) or [`SimpleZCollection`] (only the levels `0..=max_level`).
///
/// Back to front is ascending Z, and among equal Z the object whose last
/// Z-action (add or change) came earlier is further back; front to back is
/// the exact reverse; `change` re-files an object at the front of its Z
/// even when the Z did not change. An object is in at most one collection
/// at a time.
///
/// Single-threaded, like the `Rc` handles it holds; for threads or an ECS,
/// use the keyed [`ZOrder`](crate::ZOrder).
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
pub struct RcZCollection<T: ?Sized, L: Layout> {
    core: RcCore<T>,
    /// The allocation whose address marks the objects this collection
    /// holds: unique among live collections, and never in an object after
    /// the collection is gone (it gives every object back).
    _token: Box<u8>,
    /// The decisions of an in-walk update, kept between calls.
    decided: Vec<(Handle<T>, Visit)>,
    layout: PhantomData<L>,
}

/// The fixed-point `Rc` collection: every `I16F16` value is a legal Z,
/// with O(1) add, remove and change at the optimized levels `0..=max_level`
/// and at [`DEFAULT_Z`](crate::DEFAULT_Z), and O(log n) elsewhere. A
/// drop-in for the legacy `FixedPointZCollection` (where the legacy engine
/// stored 16.16 ints, `I16F16::from_bits(legacy_int)` is the same Z).
pub type FixedPointZCollection<T> = RcZCollection<T, FixedPoint>;

/// The simple `Rc` collection: Z must be a natural number in
/// `0..=max_level`, and every operation is O(1). Any other Z, the default Z
/// included, is refused with [`ZError::ZOutOfRange`]. A drop-in for the
/// legacy `SimpleZCollection`, which took plain int levels: the legacy
/// level `n` is `I16F16::from_num(n)` here (not `from_bits`).
///
/// ```
/// use std::cell::Cell;
/// use std::rc::Rc;
/// use zorder::{I16F16, SimpleZCollection, ZError, ZObject};
///
/// let mut hud = SimpleZCollection::new(3)?;
/// let button = Rc::new(ZObject::new(Cell::new(I16F16::from_num(3))));
/// hud.add(&button)?;
/// button.set(I16F16::from_num(3.5));
/// assert!(matches!(hud.change(&button), Err(ZError::ZOutOfRange { .. })));
/// assert!(hud.contains(&button)); // still at level 3
/// # Ok::<(), ZError>(())
/// ```
pub type SimpleZCollection<T> = RcZCollection<T, Simple>;

impl<T: ?Sized> RcZCollection<T, FixedPoint> {
    /// An empty collection with optimized levels `0..=max_level` (the
    /// legacy `new FixedPointZCollection(maxZ)`).
    ///
    /// # Errors
    ///
    /// [`ZError::MaxLevelTooLarge`] if `max_level` exceeds
    /// [`MAX_LEVEL`](Self::MAX_LEVEL).
    ///
    /// ```
    /// use std::cell::Cell;
    /// use zorder::{FixedPointZCollection, I16F16};
    ///
    /// let scene = FixedPointZCollection::<Cell<I16F16>>::new(100)?;
    /// assert_eq!(scene.prune_after(), 8);
    /// assert!(FixedPointZCollection::<Cell<I16F16>>::new(40_000).is_err());
    /// # Ok::<(), zorder::ZError>(())
    /// ```
    pub fn new(max_level: u16) -> Result<Self, ZError> {
        Self::build(max_level, Some(DEFAULT_PRUNE_AFTER))
    }

    /// An empty collection whose empty buckets of non-optimized Z values
    /// are pruned once `prune_after` counting traversals in a row have
    /// found them empty.
    ///
    /// # Errors
    ///
    /// [`ZError::MaxLevelTooLarge`], or [`ZError::ZeroPruneThreshold`] if
    /// `prune_after` is 0.
    ///
    /// ```
    /// use std::cell::Cell;
    /// use zorder::{FixedPointZCollection, I16F16, ZError};
    ///
    /// let scene = FixedPointZCollection::<Cell<I16F16>>::with_prune_after(10, 2)?;
    /// assert_eq!(scene.prune_after(), 2);
    /// assert_eq!(
    ///     FixedPointZCollection::<Cell<I16F16>>::with_prune_after(10, 0).unwrap_err(),
    ///     ZError::ZeroPruneThreshold
    /// );
    /// # Ok::<(), ZError>(())
    /// ```
    pub fn with_prune_after(max_level: u16, prune_after: u32) -> Result<Self, ZError> {
        Self::build(max_level, Some(prune_after))
    }

    /// The pruning threshold.
    ///
    /// ```
    /// use std::cell::Cell;
    /// use zorder::{FixedPointZCollection, I16F16};
    ///
    /// type Scene = FixedPointZCollection<Cell<I16F16>>;
    /// assert_eq!(Scene::new(1)?.prune_after(), Scene::DEFAULT_PRUNE_AFTER);
    /// # Ok::<(), zorder::ZError>(())
    /// ```
    pub fn prune_after(&self) -> u32 {
        self.core.0.prune_after().unwrap_or(DEFAULT_PRUNE_AFTER)
    }
}

impl<T: ?Sized> RcZCollection<T, Simple> {
    /// An empty collection with levels `0..=max_level` (the legacy
    /// `new SimpleZCollection(maxZ)`).
    ///
    /// # Errors
    ///
    /// [`ZError::MaxLevelTooLarge`] if `max_level` exceeds
    /// [`MAX_LEVEL`](Self::MAX_LEVEL).
    ///
    /// ```
    /// use std::cell::Cell;
    /// use zorder::{I16F16, SimpleZCollection};
    ///
    /// let hud = SimpleZCollection::<Cell<I16F16>>::new(3)?;
    /// assert_eq!(hud.max_level(), 3);
    /// # Ok::<(), zorder::ZError>(())
    /// ```
    pub fn new(max_level: u16) -> Result<Self, ZError> {
        Self::build(max_level, None)
    }
}

impl<T: ?Sized, L: Layout> RcZCollection<T, L> {
    /// The largest `max_level`: the largest integer an `I16F16` holds.
    ///
    /// ```
    /// use std::cell::Cell;
    /// use zorder::{I16F16, SimpleZCollection, ZError};
    ///
    /// type Hud = SimpleZCollection<Cell<I16F16>>;
    /// assert!(Hud::new(Hud::MAX_LEVEL).is_ok());
    /// assert_eq!(Hud::new(Hud::MAX_LEVEL + 1).err(), Some(ZError::MaxLevelTooLarge { max_level: 32768 }));
    /// ```
    pub const MAX_LEVEL: u16 = MAX_LEVEL;

    /// The pruning threshold of `new`: a game traverses twice a frame
    /// (draw, then touch), so 8 is about four frames.
    ///
    /// ```
    /// use std::cell::Cell;
    /// use zorder::{FixedPointZCollection, I16F16};
    ///
    /// assert_eq!(FixedPointZCollection::<Cell<I16F16>>::DEFAULT_PRUNE_AFTER, 8);
    /// ```
    pub const DEFAULT_PRUNE_AFTER: u32 = DEFAULT_PRUNE_AFTER;

    fn build(max_level: u16, prune_after: Option<u32>) -> Result<Self, ZError> {
        let token = Box::new(0u8);
        let owner = &*token as *const u8 as usize;
        let prune_after = prune_after.filter(|_| L::EVERY_Z);
        Ok(RcZCollection {
            core: RcCore(Core::new(max_level, prune_after, ObjectBook { owner })?),
            _token: token,
            decided: Vec::new(),
            layout: PhantomData,
        })
    }

    /// The number of objects.
    ///
    /// ```
    /// # use std::{cell::Cell, rc::Rc};
    /// # use zorder::{FixedPointZCollection, I16F16, ZObject};
    /// let mut scene = FixedPointZCollection::new(10)?;
    /// scene.add(&Rc::new(ZObject::new(Cell::new(I16F16::from_num(2)))))?;
    /// assert_eq!(scene.len(), 1);
    /// # Ok::<(), zorder::ZError>(())
    /// ```
    pub fn len(&self) -> usize {
        self.core.0.len()
    }

    /// Whether the collection holds no object.
    ///
    /// ```
    /// # use std::cell::Cell;
    /// # use zorder::{FixedPointZCollection, I16F16};
    /// assert!(FixedPointZCollection::<Cell<I16F16>>::new(10)?.is_empty());
    /// # Ok::<(), zorder::ZError>(())
    /// ```
    pub fn is_empty(&self) -> bool {
        self.len() == 0
    }

    /// The highest optimized level.
    ///
    /// ```
    /// # use std::cell::Cell;
    /// # use zorder::{FixedPointZCollection, I16F16};
    /// assert_eq!(FixedPointZCollection::<Cell<I16F16>>::new(10)?.max_level(), 10);
    /// # Ok::<(), zorder::ZError>(())
    /// ```
    pub fn max_level(&self) -> u16 {
        self.core.0.max_level()
    }

    /// The buckets of Z values other than the levels and the default Z
    /// that exist now (see the crate docs on pruning); always 0 for a
    /// simple collection.
    ///
    /// ```
    /// # use std::{cell::Cell, rc::Rc};
    /// # use zorder::{FixedPointZCollection, I16F16, ZObject};
    /// let mut scene = FixedPointZCollection::new(10)?;
    /// scene.add(&Rc::new(ZObject::new(Cell::new(I16F16::from_num(2.5)))))?;
    /// assert_eq!(scene.nonoptimized_buckets(), 1);
    /// # Ok::<(), zorder::ZError>(())
    /// ```
    pub fn nonoptimized_buckets(&self) -> usize {
        self.core.0.nonoptimized_buckets()
    }

    /// Where `object` is, if this collection holds it.
    #[inline]
    fn locate(&self, object: &ZObject<T>) -> Option<At> {
        let place = ZObject::place_in(object, self.core.0.book().owner);
        self.core
            .0
            .find(place, |held| core::ptr::addr_eq(&**held, object))
    }

    /// Whether this collection holds `object`.
    ///
    /// ```
    /// # use std::{cell::Cell, rc::Rc};
    /// # use zorder::{FixedPointZCollection, I16F16, ZObject};
    /// let object = || Rc::new(ZObject::new(Cell::new(I16F16::from_num(2))));
    /// let (a, b) = (object(), object());
    /// let mut scene = FixedPointZCollection::new(10)?;
    /// scene.add(&a)?;
    /// assert!(scene.contains(&a) && !scene.contains(&b));
    /// # Ok::<(), zorder::ZError>(())
    /// ```
    pub fn contains(&self, object: &ZObject<T>) -> bool {
        ZObject::owner(object) == self.core.0.book().owner
    }

    /// The Z `object` is filed at, if this collection holds it (the Z of
    /// its last add or change, which may differ from what it reports now).
    ///
    /// ```
    /// # use std::{cell::Cell, rc::Rc};
    /// # use zorder::{FixedPointZCollection, I16F16, ZObject};
    /// let a = Rc::new(ZObject::new(Cell::new(I16F16::from_num(2))));
    /// let mut scene = FixedPointZCollection::new(10)?;
    /// scene.add(&a)?;
    /// a.set(I16F16::from_num(5)); // not re-filed yet
    /// assert_eq!(scene.z_of(&a), Some(I16F16::from_num(2)));
    /// # Ok::<(), zorder::ZError>(())
    /// ```
    pub fn z_of(&self, object: &ZObject<T>) -> Option<I16F16> {
        self.locate(object).map(|at| self.core.0.z_at(at))
    }

    /// Removes `object` in O(1) at a level or the default Z (O(log n) at
    /// other Z values), and gives back the collection's handle of it.
    ///
    /// # Errors
    ///
    /// [`ZError::NotInCollection`] if this collection does not hold it;
    /// nothing changes then.
    ///
    /// ```
    /// # use std::{cell::Cell, rc::Rc};
    /// # use zorder::{FixedPointZCollection, I16F16, ZError, ZObject};
    /// let a = Rc::new(ZObject::new(Cell::new(I16F16::from_num(2))));
    /// let mut scene = FixedPointZCollection::new(10)?;
    /// scene.add(&a)?;
    /// scene.remove(&a)?;
    /// assert_eq!(scene.remove(&a), Err(ZError::NotInCollection));
    /// # Ok::<(), ZError>(())
    /// ```
    pub fn remove(&mut self, object: &Rc<ZObject<T>>) -> Result<(), ZError> {
        let at = self.locate(object).ok_or(ZError::NotInCollection)?;
        let (held, _) = self.core.0.unfile(at);
        ZObject::forget(&held);
        // The caller's handle keeps the object alive: this drop runs no
        // user code.
        drop(held);
        Ok(())
    }

    /// Removes every object (each is free once the call returns), and
    /// every bucket of a non-optimized Z. The objects' handles are dropped
    /// last; if dropping one panics, the rest are still dropped, then the
    /// panic resumes.
    ///
    /// ```
    /// # use std::{cell::Cell, rc::Rc};
    /// # use zorder::{FixedPointZCollection, I16F16, ZObject};
    /// let a = Rc::new(ZObject::new(Cell::new(I16F16::from_num(2.5))));
    /// let mut scene = FixedPointZCollection::new(10)?;
    /// scene.add(&a)?;
    /// scene.clear();
    /// assert!(scene.is_empty() && !ZObject::is_in_collection(&a));
    /// # Ok::<(), zorder::ZError>(())
    /// ```
    pub fn clear(&mut self) {
        self.core.0.release_scratch();
        drop(self.drain());
    }

    /// Walks the objects back to front: ascending Z, and at equal Z in the
    /// order of their last Z-action (the legacy `backToFrontIterator()`).
    /// Each call counts as a traversal for pruning. For a walk on a hot
    /// path, `for_each` or `fold` read each run in one tight loop, where
    /// a `for` loop takes a step a call (as on the keyed face:
    /// [`ZOrder::back_to_front`](crate::ZOrder::back_to_front)).
    ///
    /// ```
    /// # use std::{cell::Cell, rc::Rc};
    /// # use zorder::{FixedPointZCollection, I16F16, ZObject};
    /// let object = |z: i32| Rc::new(ZObject::new(Cell::new(I16F16::from_num(z))));
    /// let mut scene = FixedPointZCollection::new(10)?;
    /// for z in [3, 1, 2] {
    ///     scene.add(&object(z))?;
    /// }
    /// let zs: Vec<_> = scene.back_to_front().map(|o| o.get()).collect();
    /// assert_eq!(zs, [1, 2, 3]);
    /// # Ok::<(), zorder::ZError>(())
    /// ```
    #[inline]
    pub fn back_to_front(&self) -> BackToFront<'_, T> {
        BackToFront(self.core.0.walk())
    }

    /// Walks the objects front to back: the exact reverse of
    /// [`back_to_front`](Self::back_to_front) (the legacy
    /// `frontToBackIterator()`).
    ///
    /// ```
    /// # use std::{cell::Cell, rc::Rc};
    /// # use zorder::{FixedPointZCollection, I16F16, ZObject};
    /// let object = |z: i32| Rc::new(ZObject::new(Cell::new(I16F16::from_num(z))));
    /// let mut scene = FixedPointZCollection::new(10)?;
    /// scene.add(&object(1))?;
    /// scene.add(&object(2))?;
    /// assert_eq!(scene.front_to_back().next().unwrap().get(), 2);
    /// # Ok::<(), zorder::ZError>(())
    /// ```
    #[inline]
    pub fn front_to_back(&self) -> Rev<BackToFront<'_, T>> {
        self.back_to_front().rev()
    }

    /// The objects whose Z is in `range`, back to front (front to back
    /// from the other end). O(log n) to find the range's ends, then the
    /// objects it yields; a lookup, not a traversal for pruning.
    ///
    /// ```
    /// # use std::{cell::Cell, rc::Rc};
    /// # use zorder::{FixedPointZCollection, I16F16, ZObject};
    /// let object = |z: f32| Rc::new(ZObject::new(Cell::new(I16F16::from_num(z))));
    /// let mut scene = FixedPointZCollection::new(10)?;
    /// for z in [0.5, 4.0, 4.5, 9.0] {
    ///     scene.add(&object(z))?;
    /// }
    /// let band: Vec<f32> = scene.range(I16F16::from_num(4)..I16F16::from_num(9)).map(|o| o.get().to_num()).collect();
    /// assert_eq!(band, [4.0, 4.5]);
    /// # Ok::<(), zorder::ZError>(())
    /// ```
    pub fn range(&self, range: impl RangeBounds<I16F16>) -> Range<'_, T> {
        Range(self.core.0.range(range))
    }

    /// The back-most object (drawn first).
    ///
    /// ```
    /// # use std::{cell::Cell, rc::Rc};
    /// # use zorder::{FixedPointZCollection, I16F16, ZObject};
    /// let object = |z: i32| Rc::new(ZObject::new(Cell::new(I16F16::from_num(z))));
    /// let mut scene = FixedPointZCollection::new(10)?;
    /// scene.add(&object(4))?;
    /// scene.add(&object(-4))?;
    /// assert_eq!(scene.first().unwrap().get(), -4);
    /// # Ok::<(), zorder::ZError>(())
    /// ```
    pub fn first(&self) -> Option<&Rc<ZObject<T>>> {
        self.core.0.first().map(|(object, _)| object)
    }

    /// The front-most object (drawn last, hit first).
    ///
    /// ```
    /// # use std::{cell::Cell, rc::Rc};
    /// # use zorder::{FixedPointZCollection, I16F16, ZObject};
    /// let object = |z: i32| Rc::new(ZObject::new(Cell::new(I16F16::from_num(z))));
    /// let mut scene = FixedPointZCollection::new(10)?;
    /// scene.add(&object(4))?;
    /// scene.add(&object(-4))?;
    /// assert_eq!(scene.last().unwrap().get(), 4);
    /// # Ok::<(), zorder::ZError>(())
    /// ```
    pub fn last(&self) -> Option<&Rc<ZObject<T>>> {
        self.core.0.last().map(|(object, _)| object)
    }

    /// Takes every object out, back to front (front to back from the other
    /// end); each is free (in no collection) before the call returns.
    ///
    /// ```
    /// # use std::{cell::Cell, rc::Rc};
    /// # use zorder::{FixedPointZCollection, I16F16, ZObject};
    /// let object = |z: i32| Rc::new(ZObject::new(Cell::new(I16F16::from_num(z))));
    /// let mut level1 = FixedPointZCollection::new(10)?;
    /// level1.add(&object(1))?;
    /// let mut level2 = FixedPointZCollection::new(10)?;
    /// for moved in level1.drain() {
    ///     level2.add(&moved)?;
    /// }
    /// assert_eq!((level1.len(), level2.len()), (0, 1));
    /// # Ok::<(), zorder::ZError>(())
    /// ```
    pub fn drain(&mut self) -> Drain<T> {
        let detached = self.core.0.detach();
        detached
            .entries()
            .for_each(|object| ZObject::forget(object));
        IntoIter(detached)
    }

    /// Gives back the memory the collection does not need now: it
    /// rewrites its blocks and leaves, in order, into as few full ones as
    /// hold its objects, and drops the records of pruned buckets, spare
    /// nodes and unused capacity. Afterwards it holds what a new
    /// collection of the same objects in the same order holds once
    /// shrunk, and a walk reads full blocks again.
    ///
    /// It is O(n), as `Vec::shrink_to_fit` is: call it at a moment the game
    /// chooses, such as a loading screen, not in every frame.
    ///
    /// ```
    /// # use std::cell::Cell;
    /// # use zorder::{FixedPointZCollection, I16F16};
    /// let mut scene = FixedPointZCollection::<Cell<I16F16>>::new(10)?;
    /// scene.shrink_to_fit();
    /// # Ok::<(), zorder::ZError>(())
    /// ```
    pub fn shrink_to_fit(&mut self) {
        self.core.0.shrink_to_fit();
        self.decided = Vec::new();
    }

    /// An empty collection, as `new` makes it, with room for `capacity`
    /// objects: growing to that many allocates nothing but a leaf at a
    /// time (see [`try_reserve`](Self::try_reserve)).
    ///
    /// # Errors
    ///
    /// As `new`, or [`ZError::CapacityOverflow`].
    ///
    /// ```
    /// use std::cell::Cell;
    /// use zorder::{FixedPointZCollection, I16F16, SimpleZCollection};
    ///
    /// let scene = FixedPointZCollection::<Cell<I16F16>>::with_capacity(100, 10_000)?;
    /// assert!(scene.is_empty());
    /// let hud = SimpleZCollection::<Cell<I16F16>>::with_capacity(3, 100)?;
    /// assert_eq!(hud.max_level(), 3);
    /// # Ok::<(), zorder::ZError>(())
    /// ```
    pub fn with_capacity(max_level: u16, capacity: usize) -> Result<Self, ZError> {
        let mut collection = Self::build(max_level, L::EVERY_Z.then_some(DEFAULT_PRUNE_AFTER))?;
        collection.try_reserve(capacity)?;
        Ok(collection)
    }

    /// Makes room for `additional` more objects, so that growing to that
    /// many allocates nothing but a leaf at a time, and removals among
    /// them reallocate nothing: the directories of the leaves and the lists
    /// of freed ones, and the records of buckets they could leave waiting.
    ///
    /// # Errors
    ///
    /// [`ZError::CapacityOverflow`] if `len() + additional` is more
    /// objects than a collection can hold (about 2^30), or if the memory
    /// cannot be had; the collection is unchanged but for what it
    /// reserved.
    ///
    /// ```
    /// use std::cell::Cell;
    /// use zorder::{FixedPointZCollection, I16F16};
    ///
    /// let mut scene = FixedPointZCollection::<Cell<I16F16>>::new(100)?;
    /// scene.try_reserve(1000)?;
    /// assert!(scene.try_reserve(usize::MAX).is_err());
    /// # Ok::<(), zorder::ZError>(())
    /// ```
    pub fn try_reserve(&mut self, additional: usize) -> Result<(), ZError> {
        self.core.0.try_reserve(additional)
    }

    /// Like [`try_reserve`](Self::try_reserve), as far as it can: a
    /// reservation it cannot make is made as far as it goes, and the
    /// collection grows as it needs later. It never panics.
    ///
    /// ```
    /// use std::cell::Cell;
    /// use zorder::{FixedPointZCollection, I16F16};
    ///
    /// let mut scene = FixedPointZCollection::<Cell<I16F16>>::new(100)?;
    /// scene.reserve(1000);
    /// # Ok::<(), zorder::ZError>(())
    /// ```
    pub fn reserve(&mut self, additional: usize) {
        let room = crate::engine::place::MAX_ENTRIES.saturating_sub(self.len());
        let _ = self.try_reserve(additional.min(room));
    }

    /// Makes pruning behave as if `walks` counting traversals had found a
    /// bucket waiting all along (tests of long runs; the `check` feature).
    #[cfg(feature = "check")]
    #[doc(hidden)]
    pub fn pretend_walks(&mut self, walks: u64) {
        self.core.0.pretend_walks(walks);
    }

    /// Checks every invariant, and that each object knows where it is (the
    /// `check` feature, for tests and fuzzing).
    #[cfg(feature = "check")]
    #[doc(hidden)]
    pub fn check_invariants(&self) {
        let owner = self.core.0.book().owner;
        for (object, place) in self.core.0.check() {
            assert_eq!(
                ZObject::owner(object),
                owner,
                "an object knows its collection"
            );
            assert!(
                place.same_leaf(ZObject::place_in(object, owner)),
                "an object knows its leaf"
            );
        }
    }
}

impl<T: ZSortable + ?Sized, L: Layout> RcZCollection<T, L> {
    /// Files `object` at the Z it reports, at the front of that Z (the
    /// legacy `add`). O(1) at a level or the default Z, O(log n) at any
    /// other Z.
    ///
    /// # Errors
    ///
    /// [`ZError::AlreadyInCollection`] if the object is in a collection
    /// (this one or another), [`ZError::ZOutOfRange`] if a simple
    /// collection has no such level; nothing changes then.
    ///
    /// ```
    /// # use std::{cell::Cell, rc::Rc};
    /// # use zorder::{FixedPointZCollection, I16F16, ZError, ZObject};
    /// let a = Rc::new(ZObject::new(Cell::new(I16F16::from_num(2))));
    /// let mut scene = FixedPointZCollection::new(10)?;
    /// scene.add(&a)?;
    /// assert_eq!(scene.add(&a), Err(ZError::AlreadyInCollection));
    /// # Ok::<(), ZError>(())
    /// ```
    pub fn add(&mut self, object: &Rc<ZObject<T>>) -> Result<(), ZError> {
        // User code first, before anything is looked at or changed.
        let z = object.z_order();
        if ZObject::is_in_collection(object) {
            return Err(ZError::AlreadyInCollection);
        }
        self.core.0.file(z, Rc::clone(object))
    }

    /// Re-reads `object`'s Z and re-files it at the front of that Z, even
    /// when its Z did not change (the legacy `change`).
    ///
    /// # Errors
    ///
    /// [`ZError::NotInCollection`] if this collection does not hold it,
    /// [`ZError::ZOutOfRange`] if a simple collection has no such level;
    /// nothing changes then.
    ///
    /// ```
    /// # use std::{cell::Cell, rc::Rc};
    /// # use zorder::{FixedPointZCollection, I16F16, ZObject};
    /// let object = || Rc::new(ZObject::new(Cell::new(I16F16::from_num(2))));
    /// let (a, b) = (object(), object());
    /// let mut scene = FixedPointZCollection::new(10)?;
    /// scene.add(&a)?;
    /// scene.add(&b)?;
    /// scene.change(&a)?; // same Z: `a` comes to the front
    /// assert!(Rc::ptr_eq(scene.front_to_back().next().unwrap(), &a));
    /// # Ok::<(), zorder::ZError>(())
    /// ```
    #[inline]
    pub fn change(&mut self, object: &Rc<ZObject<T>>) -> Result<(), ZError> {
        let z = object.z_order();
        let at = self.locate(object).ok_or(ZError::NotInCollection)?;
        self.core.0.refile(at, z)
    }

    /// Re-reads the Z of each object and re-files it, as `change` does one
    /// by one and in this order (ties among them included), as one batch:
    /// at the cost of sorting them, where one by one each would descend
    /// the tree. Every Z is read before anything changes. An object this
    /// collection does not hold, or whose Z a simple collection has no
    /// level for, is skipped and counted as refused.
    ///
    /// ```
    /// # use std::{cell::Cell, rc::Rc};
    /// # use zorder::{FixedPointZCollection, I16F16, ZObject};
    /// let object = |z: f32| Rc::new(ZObject::new(Cell::new(I16F16::from_num(z))));
    /// let crowd: Vec<_> = (0..4).map(|i| object(i as f32 + 0.5)).collect();
    /// let mut scene = FixedPointZCollection::new(10)?;
    /// for walker in &crowd {
    ///     scene.add(walker)?;
    /// }
    /// for walker in &crowd {
    ///     walker.set(I16F16::from_num(9.5) - walker.get()); // the crowd turns round
    /// }
    /// let done = scene.change_all(&crowd);
    /// assert_eq!((done.moved, done.refused), (4, 0));
    /// assert!(Rc::ptr_eq(scene.first().unwrap(), &crowd[3]));
    /// # Ok::<(), zorder::ZError>(())
    /// ```
    pub fn change_all<'a>(
        &mut self,
        objects: impl IntoIterator<Item = &'a Rc<ZObject<T>>>,
    ) -> Applied
    where
        T: 'a,
    {
        // User code first: every Z, before anything changes.
        let owner = self.core.0.book().owner;
        let mut refused = 0;
        let steps: Vec<Step<Handle<T>>> = objects
            .into_iter()
            .filter_map(|object| {
                let z = object.z_order();
                if ZObject::owner(object) == owner {
                    Some(Step::File(Rc::clone(object), z))
                } else {
                    refused += 1;
                    None
                }
            })
            .collect();
        let mut released = Vec::new();
        let applied = self.core.0.apply(steps, |handle| released.push(handle));
        // Every change has taken effect: now extra handles may be dropped.
        release(released.into_iter());
        Applied {
            inserted: applied.filed,
            moved: applied.refiled,
            removed: applied.unfiled,
            refused: applied.refused + refused,
        }
    }

    /// Visits the objects back to front, and lets `visit` keep, remove or
    /// re-file each, and stop the walk. See
    /// [`update_front_to_back`](Self::update_front_to_back).
    ///
    /// ```
    /// # use std::{cell::Cell, rc::Rc};
    /// # use std::ops::ControlFlow::Continue;
    /// # use zorder::{FixedPointZCollection, I16F16, Visit, ZObject};
    /// let object = |z: i32| Rc::new(ZObject::new(Cell::new(I16F16::from_num(z))));
    /// let mut scene = FixedPointZCollection::new(10)?;
    /// for z in 0..4 {
    ///     scene.add(&object(z))?;
    /// }
    /// let done = scene.update_back_to_front(|o| Continue(if o.get() % 2 == 0 { Visit::Remove } else { Visit::Keep }));
    /// assert_eq!((done.visited, done.removed, scene.len()), (4, 2, 2));
    /// # Ok::<(), zorder::ZError>(())
    /// ```
    pub fn update_back_to_front(
        &mut self,
        mut visit: impl FnMut(&Rc<ZObject<T>>) -> ControlFlow<Visit, Visit>,
    ) -> Updated {
        self.update(false, &mut visit)
    }

    /// Visits the objects front to back, and lets `visit` keep, remove or
    /// re-file each (`Continue(action)`), or do so and stop the walk
    /// (`Break(action)`): touch dispatch stops at the first object hit.
    ///
    /// The decisions take effect when the walk ends, in visiting order,
    /// exactly as `remove` and `change` would; an object re-filed ahead of
    /// the walk is not visited again. If `visit` panics, nothing has
    /// changed. The handles of removed objects are dropped after every
    /// decision has taken effect. The walk does not count as a traversal
    /// for pruning.
    ///
    /// ```
    /// # use std::{cell::Cell, rc::Rc};
    /// # use std::ops::ControlFlow::{Break, Continue};
    /// # use zorder::{FixedPointZCollection, I16F16, Visit, ZObject};
    /// let object = |z: i32| Rc::new(ZObject::new(Cell::new(I16F16::from_num(z))));
    /// let mut scene = FixedPointZCollection::new(10)?;
    /// for z in 0..4 {
    ///     scene.add(&object(z))?;
    /// }
    /// // The front-most object under the finger (Z below 2) takes the touch.
    /// let done = scene.update_front_to_back(|o| if o.get() < 2 { Break(Visit::Remove) } else { Continue(Visit::Keep) });
    /// assert_eq!((done.visited, done.removed), (3, 1));
    /// # Ok::<(), zorder::ZError>(())
    /// ```
    pub fn update_front_to_back(
        &mut self,
        mut visit: impl FnMut(&Rc<ZObject<T>>) -> ControlFlow<Visit, Visit>,
    ) -> Updated {
        self.update(true, &mut visit)
    }

    #[allow(
        clippy::type_complexity,
        reason = "the callback of the legacy interface, spelled out"
    )]
    fn update(
        &mut self,
        front_to_back: bool,
        visit: &mut dyn FnMut(&Rc<ZObject<T>>) -> ControlFlow<Visit, Visit>,
    ) -> Updated {
        let mut decided = core::mem::take(&mut self.decided);
        decided.clear();
        let visited = self
            .core
            .0
            .decide(front_to_back, Visit::Keep, &mut decided, |object, _| {
                visit(object)
            });
        let mut updated = Updated {
            visited,
            ..Updated::default()
        };
        for (object, decision) in &decided {
            match decision {
                Visit::Remove => updated.removed += usize::from(self.remove(object).is_ok()),
                Visit::Change => match self.change(object) {
                    Ok(()) => updated.changed += 1,
                    Err(_) => updated.refused += 1,
                },
                Visit::Keep => {}
            }
        }
        // Every decision has taken effect: now the handles of removed
        // objects may run their `Drop`.
        release(decided.drain(..).map(|(object, _)| object));
        self.decided = decided;
        updated
    }

    /// Keeps only the objects for which `keep` returns `true`, visiting
    /// back to front.
    ///
    /// ```
    /// # use std::{cell::Cell, rc::Rc};
    /// # use zorder::{FixedPointZCollection, I16F16, ZObject};
    /// let object = |z: i32| Rc::new(ZObject::new(Cell::new(I16F16::from_num(z))));
    /// let mut scene = FixedPointZCollection::new(10)?;
    /// for z in 0..6 {
    ///     scene.add(&object(z))?;
    /// }
    /// scene.retain(|o| o.get() >= 3);
    /// assert_eq!(scene.len(), 3);
    /// # Ok::<(), zorder::ZError>(())
    /// ```
    pub fn retain(&mut self, mut keep: impl FnMut(&Rc<ZObject<T>>) -> bool) {
        let _ = self.update(false, &mut |object| {
            ControlFlow::Continue(if keep(object) {
                Visit::Keep
            } else {
                Visit::Remove
            })
        });
    }

    /// Moves every object of `source` here, back to front, each at the Z
    /// it was filed at there (ties keep their order); or, if this
    /// collection refuses one of those Z values, moves nothing.
    ///
    /// # Errors
    ///
    /// [`ZError::ZOutOfRange`] if a simple collection has no level for one
    /// of the Z values, [`ZError::CapacityOverflow`] past 2^28 objects;
    /// nothing changes then.
    ///
    /// ```
    /// # use std::{cell::Cell, rc::Rc};
    /// # use zorder::{FixedPointZCollection, I16F16, SimpleZCollection, ZObject};
    /// let object = |z: f32| Rc::new(ZObject::new(Cell::new(I16F16::from_num(z))));
    /// let mut level = FixedPointZCollection::new(10)?;
    /// level.add(&object(1.5))?;
    /// level.add(&object(2.0))?;
    /// let mut hud = SimpleZCollection::new(10)?;
    /// assert!(hud.append(&mut level).is_err()); // 1.5 is no level
    /// assert_eq!(level.len(), 2); // nothing lost, nothing half-moved
    /// let mut next_level = FixedPointZCollection::new(10)?;
    /// next_level.append(&mut level)?;
    /// assert_eq!((level.len(), next_level.len()), (0, 2));
    /// # Ok::<(), zorder::ZError>(())
    /// ```
    pub fn append(&mut self, source: &mut dyn ZCollection<T>) -> Result<(), ZError> {
        let source = &mut source.core_mut().0;
        let mut walk = source.quiet_walk();
        while let Some((_, bits)) = walk.next_up::<true>() {
            self.core.0.check_z(I16F16::from_bits(bits))?;
        }
        if !self.core.0.has_room(source.len()) {
            return Err(ZError::CapacityOverflow);
        }
        let mut moving = source.detach();
        let steps = core::iter::from_fn(|| {
            moving
                .next_up()
                .map(|(object, bits)| Step::File(object, I16F16::from_bits(bits)))
        });
        let mut released = Vec::new();
        let applied = self.core.0.apply(steps, |handle| released.push(handle));
        debug_assert_eq!(applied.refused, 0);
        release(released.into_iter());
        Ok(())
    }
}

impl<T: ?Sized, L: Layout> Drop for RcZCollection<T, L> {
    /// Gives every object back, as `clear` does.
    fn drop(&mut self) {
        self.clear();
    }
}

/// Drops every handle; if dropping one panics, drops the rest, then
/// resumes the panic (a second panic aborts, as in `std`).
pub(crate) fn release<T: ?Sized>(objects: impl Iterator<Item = Handle<T>>) {
    struct Rest<I: Iterator>(I);
    impl<I: Iterator> Drop for Rest<I> {
        fn drop(&mut self) {
            self.0.by_ref().for_each(drop);
        }
    }
    let mut rest = Rest(objects);
    rest.0.by_ref().for_each(drop);
}

impl<'a, T: ?Sized, L: Layout> IntoIterator for &'a RcZCollection<T, L> {
    type Item = &'a Rc<ZObject<T>>;
    type IntoIter = BackToFront<'a, T>;

    /// Back to front, like `back_to_front`.
    fn into_iter(self) -> BackToFront<'a, T> {
        self.back_to_front()
    }
}

impl<T: ?Sized, L: Layout> IntoIterator for RcZCollection<T, L> {
    type Item = Rc<ZObject<T>>;
    type IntoIter = IntoIter<T>;

    /// Every object, back to front, free as it comes out.
    fn into_iter(mut self) -> IntoIter<T> {
        self.drain()
    }
}

impl<T: fmt::Debug + ?Sized, L: Layout> fmt::Debug for RcZCollection<T, L> {
    /// The settings, and the objects back to front. Printing does not
    /// count as a traversal.
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        struct Objects<'a, T: ?Sized>(BackToFront<'a, T>);
        impl<T: fmt::Debug + ?Sized> fmt::Debug for Objects<'_, T> {
            fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
                f.debug_list()
                    .entries(self.0.clone().map(|o| &**o))
                    .finish()
            }
        }
        let name = if L::EVERY_Z {
            "FixedPointZCollection"
        } else {
            "SimpleZCollection"
        };
        f.debug_struct(name)
            .field("max_level", &self.max_level())
            .field("len", &self.len())
            .field("nonoptimized_buckets", &self.nonoptimized_buckets())
            .field(
                "back_to_front",
                &Objects(BackToFront(self.core.0.quiet_walk())),
            )
            .finish()
    }
}

/// The operations both `Rc` layouts share, for engine code that works
/// with either as `dyn ZCollection<T>`, like the legacy `ZCollection`
/// interface. Each method does exactly what the method of the same name
/// of [`RcZCollection`] does. Sealed: [`RcZCollection`] is its one
/// implementation.
///
/// ```
/// use std::cell::Cell;
/// use std::ops::ControlFlow::Continue;
/// use std::rc::Rc;
/// use zorder::{FixedPointZCollection, I16F16, SimpleZCollection, Visit, ZCollection, ZObject};
///
/// type Sprite = Cell<I16F16>;
///
/// fn top_at_level(scene: &dyn ZCollection<Sprite>, level: i32) -> Option<Rc<ZObject<Sprite>>> {
///     scene.front_to_back().find(|s| s.get() == level).cloned()
/// }
///
/// let a = Rc::new(ZObject::new(Cell::new(I16F16::from_num(1))));
/// let b = Rc::new(ZObject::new(Cell::new(I16F16::from_num(1))));
/// let mut scenes: Vec<Box<dyn ZCollection<Sprite>>> = vec![
///     Box::new(FixedPointZCollection::new(4)?),
///     Box::new(SimpleZCollection::new(4)?),
/// ];
/// for scene in &mut scenes {
///     scene.add(&a)?;
///     assert!(scene.add(&a).is_err() && scene.contains(&a));
///     scene.add(&b)?;
///     let top = top_at_level(scene.as_ref(), 1).unwrap();
///     assert!(ZObject::ptr_eq(&top, &b));
///     scene.change(&top)?; // found by a walk, changed through its handle
///     assert_eq!((scene.len(), scene.z_of(&a), scene.max_level()), (2, Some(I16F16::ONE), 4));
///     assert_eq!(scene.nonoptimized_buckets(), 0);
///     let done = scene.update_back_to_front(&mut |_| Continue(Visit::Keep));
///     assert_eq!(done.visited, 2);
///     scene.retain(&mut |o| !ZObject::ptr_eq(o, &a));
///     scene.remove(&b)?;
///     assert!(scene.is_empty() && scene.drain().next().is_none());
///     scene.add(&a)?;
///     scene.clear();
/// }
/// let (mut from, mut to) = (FixedPointZCollection::new(4)?, FixedPointZCollection::new(4)?);
/// from.add(&a)?;
/// ZCollection::append(&mut to, &mut from)?;
/// assert_eq!(ZCollection::len(&to), 1);
/// # Ok::<(), zorder::ZError>(())
/// ```
#[allow(
    clippy::type_complexity,
    reason = "the callbacks of the legacy interface, spelled out"
)]
pub trait ZCollection<T: ZSortable + ?Sized>: Sealed<T> {
    /// See [`RcZCollection::add`].
    fn add(&mut self, object: &Rc<ZObject<T>>) -> Result<(), ZError>;
    /// See [`RcZCollection::remove`].
    fn remove(&mut self, object: &Rc<ZObject<T>>) -> Result<(), ZError>;
    /// See [`RcZCollection::change`].
    fn change(&mut self, object: &Rc<ZObject<T>>) -> Result<(), ZError>;
    /// See [`RcZCollection::contains`].
    fn contains(&self, object: &ZObject<T>) -> bool;
    /// See [`RcZCollection::z_of`].
    fn z_of(&self, object: &ZObject<T>) -> Option<I16F16>;
    /// See [`RcZCollection::len`].
    fn len(&self) -> usize;
    /// See [`RcZCollection::is_empty`].
    fn is_empty(&self) -> bool {
        self.len() == 0
    }
    /// See [`RcZCollection::max_level`].
    fn max_level(&self) -> u16;
    /// See [`RcZCollection::nonoptimized_buckets`].
    fn nonoptimized_buckets(&self) -> usize;
    /// See [`RcZCollection::clear`].
    fn clear(&mut self);
    /// See [`RcZCollection::back_to_front`].
    fn back_to_front(&self) -> BackToFront<'_, T>;
    /// See [`RcZCollection::front_to_back`].
    fn front_to_back(&self) -> Rev<BackToFront<'_, T>> {
        self.back_to_front().rev()
    }
    /// See [`RcZCollection::update_back_to_front`].
    fn update_back_to_front(
        &mut self,
        visit: &mut dyn FnMut(&Rc<ZObject<T>>) -> ControlFlow<Visit, Visit>,
    ) -> Updated;
    /// See [`RcZCollection::update_front_to_back`].
    fn update_front_to_back(
        &mut self,
        visit: &mut dyn FnMut(&Rc<ZObject<T>>) -> ControlFlow<Visit, Visit>,
    ) -> Updated;
    /// See [`RcZCollection::retain`].
    fn retain(&mut self, keep: &mut dyn FnMut(&Rc<ZObject<T>>) -> bool);
    /// See [`RcZCollection::drain`].
    fn drain(&mut self) -> Drain<T>;
    /// See [`RcZCollection::append`].
    fn append(&mut self, source: &mut dyn ZCollection<T>) -> Result<(), ZError>;
    /// See `check_invariants` of [`RcZCollection`] (the `check` feature).
    #[cfg(feature = "check")]
    #[doc(hidden)]
    fn check_invariants(&self);
}

impl<T: ?Sized, L: Layout> Sealed<T> for RcZCollection<T, L> {
    fn core_mut(&mut self) -> &mut RcCore<T> {
        &mut self.core
    }
}

#[allow(
    clippy::type_complexity,
    reason = "the callbacks of the legacy interface, spelled out"
)]
impl<T: ZSortable + ?Sized, L: Layout> ZCollection<T> for RcZCollection<T, L> {
    fn add(&mut self, object: &Rc<ZObject<T>>) -> Result<(), ZError> {
        RcZCollection::add(self, object)
    }
    fn remove(&mut self, object: &Rc<ZObject<T>>) -> Result<(), ZError> {
        RcZCollection::remove(self, object)
    }
    fn change(&mut self, object: &Rc<ZObject<T>>) -> Result<(), ZError> {
        RcZCollection::change(self, object)
    }
    fn contains(&self, object: &ZObject<T>) -> bool {
        RcZCollection::contains(self, object)
    }
    fn z_of(&self, object: &ZObject<T>) -> Option<I16F16> {
        RcZCollection::z_of(self, object)
    }
    fn len(&self) -> usize {
        RcZCollection::len(self)
    }
    fn max_level(&self) -> u16 {
        RcZCollection::max_level(self)
    }
    fn nonoptimized_buckets(&self) -> usize {
        RcZCollection::nonoptimized_buckets(self)
    }
    fn clear(&mut self) {
        RcZCollection::clear(self);
    }
    fn back_to_front(&self) -> BackToFront<'_, T> {
        RcZCollection::back_to_front(self)
    }
    fn update_back_to_front(
        &mut self,
        visit: &mut dyn FnMut(&Rc<ZObject<T>>) -> ControlFlow<Visit, Visit>,
    ) -> Updated {
        self.update(false, visit)
    }
    fn update_front_to_back(
        &mut self,
        visit: &mut dyn FnMut(&Rc<ZObject<T>>) -> ControlFlow<Visit, Visit>,
    ) -> Updated {
        self.update(true, visit)
    }
    fn retain(&mut self, keep: &mut dyn FnMut(&Rc<ZObject<T>>) -> bool) {
        RcZCollection::retain(self, keep);
    }
    fn drain(&mut self) -> Drain<T> {
        RcZCollection::drain(self)
    }
    fn append(&mut self, source: &mut dyn ZCollection<T>) -> Result<(), ZError> {
        RcZCollection::append(self, source)
    }
    #[cfg(feature = "check")]
    fn check_invariants(&self) {
        RcZCollection::check_invariants(self);
    }
}
