//! The `Rc` collections of the legacy port, and their iterators: [`FixedPointZCollection`] and
//! [`SimpleZCollection`] over one shared implementation, the
//! [`ZCollection`] trait over both, and their iterators.

use alloc::boxed::Box;
use alloc::rc::Rc;
use alloc::vec::Vec;
use core::fmt;
use core::iter::{FusedIterator, Rev};
use core::marker::PhantomData;

use crate::core::{Core, Detached};
use crate::error::ZError;
use crate::object::{ObjectPlaces, ZObject, ZSortable};
use crate::visit::{Updated, Visit};
use crate::walk::Walk;
use crate::z::{DEFAULT_PRUNE_AFTER, I16F16, MAX_LEVEL};

type Handle<T> = Rc<ZObject<T>>;

mod sealed {
    /// What both `Rc` collections are made of. Public in a private module,
    /// so the [`ZCollection`](super::ZCollection) trait can reach it and
    /// no one else can name it.
    pub struct Shared<T> {
        pub(crate) core: crate::core::Core<super::Handle<T>, crate::object::ObjectPlaces>,
        /// The allocation whose address marks the objects this collection
        /// holds: unique among live collections, and never in an object
        /// after the collection is gone (it gives every object back).
        pub(crate) _token: alloc::boxed::Box<u8>,
        /// The decisions of an in-walk update, kept between calls.
        pub(crate) decided: alloc::vec::Vec<(super::Handle<T>, super::Visit)>,
    }

    /// Access to what an `Rc` collection is made of. Public in a private
    /// module, it seals [`ZCollection`](super::ZCollection).
    pub trait AsShared<T> {
        fn shared(&self) -> &Shared<T>;
        fn shared_mut(&mut self) -> &mut Shared<T>;
    }
}

pub(crate) use sealed::{AsShared, Shared};

impl<T> fmt::Debug for Shared<T> {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_struct("Shared")
            .field("len", &self.core.len())
            .finish_non_exhaustive()
    }
}

impl<T> Shared<T> {
    fn new(max_level: u16, prune_after: Option<u32>) -> Result<Self, ZError> {
        let token = Box::new(0u8);
        let owner = &*token as *const u8 as usize;
        Ok(Shared {
            core: Core::new(max_level, prune_after, ObjectPlaces { owner })?,
            _token: token,
            decided: Vec::new(),
        })
    }

    fn owner(&self) -> usize {
        self.core.book.owner
    }

    fn contains(&self, object: &ZObject<T>) -> bool {
        ZObject::owner(object) == self.owner()
    }

    /// Where `object` is, if this collection holds it.
    fn find(&self, object: &ZObject<T>) -> Option<crate::core::Exact> {
        if !self.contains(object) {
            return None;
        }
        self.core.exact_by(ZObject::place(object), |held| {
            core::ptr::eq(&**held, object)
        })
    }

    fn z_of(&self, object: &ZObject<T>) -> Option<I16F16> {
        self.find(object).map(|at| self.core.z_at(at))
    }

    fn remove(&mut self, object: &Handle<T>) -> Result<(), ZError> {
        let at = self.find(object).ok_or(ZError::NotInCollection)?;
        let (held, _) = self.core.remove(at);
        ZObject::forget(&held);
        // The caller's handle keeps the object alive: this drop runs no
        // user code.
        drop(held);
        Ok(())
    }

    fn quiet_walk(&self) -> Walk<'_, Handle<T>> {
        Walk::new(
            &self.core.buckets,
            &self.core.tree,
            self.core.max_level(),
            self.core.len(),
        )
    }

    fn back_to_front(&self) -> BackToFront<'_, T> {
        self.core.ledger.tick();
        BackToFront(self.quiet_walk())
    }

    /// Takes every object out; each is free (in no collection) before the
    /// call returns, and they come out back to front.
    fn drain(&mut self) -> IntoIter<T> {
        let detached = self.core.detach();
        detached
            .entries()
            .for_each(|object| ZObject::forget(object));
        IntoIter(detached)
    }

    fn clear(&mut self) {
        drop(self.drain());
    }
}

impl<T: ZSortable> Shared<T> {
    fn add(&mut self, object: &Handle<T>) -> Result<(), ZError> {
        // User code first, before anything is looked at or changed.
        let z = object.z_order();
        if ZObject::is_in_collection(object) {
            return Err(ZError::AlreadyInCollection);
        }
        self.core.insert(z, Rc::clone(object))
    }

    fn change(&mut self, object: &Handle<T>) -> Result<(), ZError> {
        let z = object.z_order();
        let at = self.find(object).ok_or(ZError::NotInCollection)?;
        self.core.refile(at, z)
    }

    fn update(
        &mut self,
        front_to_back: bool,
        visit: &mut dyn FnMut(&Handle<T>) -> Visit,
    ) -> Updated {
        let mut decided = core::mem::take(&mut self.decided);
        decided.clear();
        let mut walk = self.quiet_walk();
        let mut visited = 0;
        loop {
            let next = if front_to_back {
                walk.next_down::<false>()
            } else {
                walk.next_up::<false>()
            };
            let Some((object, _)) = next else { break };
            visited += 1;
            let decision = visit(object);
            if decision != Visit::Keep {
                decided.push((Rc::clone(object), decision));
            }
            if matches!(
                decision,
                Visit::Stop | Visit::RemoveAndStop | Visit::ChangeAndStop
            ) {
                break;
            }
        }
        let mut updated = Updated {
            visited,
            ..Updated::default()
        };
        for (object, decision) in &decided {
            match decision {
                Visit::Remove | Visit::RemoveAndStop => {
                    if self.remove(object).is_ok() {
                        updated.removed += 1;
                    }
                }
                Visit::Change | Visit::ChangeAndStop => match self.change(object) {
                    Ok(()) => updated.changed += 1,
                    Err(_) => updated.refused += 1,
                },
                Visit::Keep | Visit::Stop => {}
            }
        }
        // Every decision has taken effect: now the handles of removed
        // objects may run their `Drop`.
        release(decided.drain(..).map(|(object, _)| object));
        self.decided = decided;
        updated
    }

    /// Moves every object of `source` here, back to front, each at the Z
    /// it was filed at there; or, if this collection refuses one of those Z
    /// values, moves nothing.
    fn append(&mut self, source: &mut Shared<T>) -> Result<(), ZError> {
        let mut zs = Vec::with_capacity(source.core.len());
        let mut walk = source.quiet_walk();
        while let Some((_, z)) = walk.next_up::<true>() {
            self.core.check_z(z)?;
            zs.push(z);
        }
        self.core.reserve(zs.len());
        let mut moving = source.core.detach();
        while let Some((object, z)) = moving.next() {
            if let Err(error) = self.core.check_z(z) {
                // Out of places (past 2^31 entries): the rest goes back.
                for (object, z) in core::iter::once((object, z)).chain(moving.by_ref()) {
                    source.core.insert(z, object).expect("the source held it");
                }
                return Err(error);
            }
            self.core
                .insert(z, object)
                .expect("check_z said there is room");
        }
        Ok(())
    }
}

/// Drops every handle; if dropping one panics, drops the rest, then
/// resumes the panic (a second panic aborts, as in `std`).
fn release<T>(objects: impl Iterator<Item = Handle<T>>) {
    struct Rest<I: Iterator>(I);
    impl<I: Iterator> Drop for Rest<I> {
        fn drop(&mut self) {
            self.0.by_ref().for_each(drop);
        }
    }
    let mut rest = Rest(objects);
    rest.0.by_ref().for_each(drop);
}

impl<T> Shared<T> {
    /// Checks every invariant, and that each object knows where it is.
    pub(crate) fn check(&self) {
        let owner = self.owner();
        for (object, place) in self.core.check() {
            assert_eq!(
                ZObject::owner(object),
                owner,
                "an object knows its collection"
            );
            assert!(
                place.same_node(ZObject::place(object)),
                "an object knows its block and slot, or leaf"
            );
        }
    }
}

impl<T> Drop for Shared<T> {
    /// Gives every object back, as `clear` does.
    fn drop(&mut self) {
        self.clear();
    }
}

/// The operations both `Rc` collections share, for engine code that works
/// with either, generically or as `dyn ZCollection<T>`, like the legacy
/// `ZCollection` interface. Each method does exactly what the inherent
/// method of the same name does. The trait is sealed: the two collections
/// of this crate are its only implementations.
///
/// ```
/// use std::cell::Cell;
/// use std::rc::Rc;
/// use zorder::{FixedPointZCollection, I16F16, SimpleZCollection, ZCollection, ZObject};
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
///     scene.add(&b)?;
///     let top = top_at_level(scene.as_ref(), 1).unwrap();
///     assert!(ZObject::ptr_eq(&top, &b));
///     scene.change(&top)?; // found by a walk, changed through its handle
///     scene.clear();
/// }
/// # Ok::<(), zorder::ZError>(())
/// ```
pub trait ZCollection<T: ZSortable>: AsShared<T> {
    /// See [`FixedPointZCollection::add`].
    ///
    /// ```
    /// # use std::cell::Cell;
    /// # use std::rc::Rc;
    /// # use zorder::{FixedPointZCollection, I16F16, SimpleZCollection, Visit, ZCollection, ZObject};
    /// # let object = |z: i32| Rc::new(ZObject::new(Cell::new(I16F16::from_num(z))));
    /// let mut scene: Box<dyn ZCollection<Cell<I16F16>>> = Box::new(FixedPointZCollection::new(10)?);
    /// let (a, b) = (object(2), object(1));
    /// scene.add(&a)?;
    /// scene.add(&b)?;
    /// assert!(scene.add(&a).is_err());
    /// assert!(Rc::ptr_eq(scene.back_to_front().next().unwrap(), &b));
    /// # Ok::<(), zorder::ZError>(())
    /// ```
    fn add(&mut self, object: &Rc<ZObject<T>>) -> Result<(), ZError>;
    /// See [`FixedPointZCollection::remove`].
    ///
    /// ```
    /// # use std::cell::Cell;
    /// # use std::rc::Rc;
    /// # use zorder::{FixedPointZCollection, I16F16, SimpleZCollection, Visit, ZCollection, ZObject};
    /// # let object = |z: i32| Rc::new(ZObject::new(Cell::new(I16F16::from_num(z))));
    /// let mut scene: Box<dyn ZCollection<Cell<I16F16>>> = Box::new(FixedPointZCollection::new(10)?);
    /// let a = object(2);
    /// scene.add(&a)?;
    /// scene.remove(&a)?;
    /// assert!(scene.remove(&a).is_err() && scene.is_empty());
    /// # Ok::<(), zorder::ZError>(())
    /// ```
    fn remove(&mut self, object: &Rc<ZObject<T>>) -> Result<(), ZError>;
    /// See [`FixedPointZCollection::change`].
    ///
    /// ```
    /// # use std::cell::Cell;
    /// # use std::rc::Rc;
    /// # use zorder::{FixedPointZCollection, I16F16, SimpleZCollection, Visit, ZCollection, ZObject};
    /// # let object = |z: i32| Rc::new(ZObject::new(Cell::new(I16F16::from_num(z))));
    /// let mut scene: Box<dyn ZCollection<Cell<I16F16>>> = Box::new(FixedPointZCollection::new(10)?);
    /// let (a, b) = (object(2), object(2));
    /// scene.add(&a)?;
    /// scene.add(&b)?;
    /// scene.change(&a)?; // same Z: `a` comes to the front
    /// assert!(Rc::ptr_eq(scene.front_to_back().next().unwrap(), &a));
    /// # Ok::<(), zorder::ZError>(())
    /// ```
    fn change(&mut self, object: &Rc<ZObject<T>>) -> Result<(), ZError>;
    /// See [`FixedPointZCollection::contains`].
    ///
    /// ```
    /// # use std::cell::Cell;
    /// # use std::rc::Rc;
    /// # use zorder::{FixedPointZCollection, I16F16, SimpleZCollection, Visit, ZCollection, ZObject};
    /// # let object = |z: i32| Rc::new(ZObject::new(Cell::new(I16F16::from_num(z))));
    /// let mut scene: Box<dyn ZCollection<Cell<I16F16>>> = Box::new(FixedPointZCollection::new(10)?);
    /// let a = object(2);
    /// scene.add(&a)?;
    /// assert!(scene.contains(&a) && !scene.contains(&object(2)));
    /// # Ok::<(), zorder::ZError>(())
    /// ```
    fn contains(&self, object: &ZObject<T>) -> bool;
    /// See [`FixedPointZCollection::z_of`].
    ///
    /// ```
    /// # use std::cell::Cell;
    /// # use std::rc::Rc;
    /// # use zorder::{FixedPointZCollection, I16F16, SimpleZCollection, Visit, ZCollection, ZObject};
    /// # let object = |z: i32| Rc::new(ZObject::new(Cell::new(I16F16::from_num(z))));
    /// let mut scene: Box<dyn ZCollection<Cell<I16F16>>> = Box::new(FixedPointZCollection::new(10)?);
    /// let a = object(2);
    /// scene.add(&a)?;
    /// a.set(I16F16::from_num(5)); // not re-filed yet
    /// assert_eq!(scene.z_of(&a), Some(I16F16::from_num(2)));
    /// # Ok::<(), zorder::ZError>(())
    /// ```
    fn z_of(&self, object: &ZObject<T>) -> Option<I16F16>;
    /// See [`FixedPointZCollection::len`].
    ///
    /// ```
    /// # use std::cell::Cell;
    /// # use std::rc::Rc;
    /// # use zorder::{FixedPointZCollection, I16F16, SimpleZCollection, Visit, ZCollection, ZObject};
    /// # let object = |z: i32| Rc::new(ZObject::new(Cell::new(I16F16::from_num(z))));
    /// let mut scene: Box<dyn ZCollection<Cell<I16F16>>> = Box::new(FixedPointZCollection::new(10)?);
    /// scene.add(&object(1))?;
    /// assert_eq!(scene.len(), 1);
    /// # Ok::<(), zorder::ZError>(())
    /// ```
    fn len(&self) -> usize;
    /// See [`FixedPointZCollection::is_empty`].
    ///
    /// ```
    /// # use std::cell::Cell;
    /// # use std::rc::Rc;
    /// # use zorder::{FixedPointZCollection, I16F16, SimpleZCollection, Visit, ZCollection, ZObject};
    /// # let object = |z: i32| Rc::new(ZObject::new(Cell::new(I16F16::from_num(z))));
    /// let mut scene: Box<dyn ZCollection<Cell<I16F16>>> = Box::new(FixedPointZCollection::new(10)?);
    /// assert!(scene.is_empty());
    /// scene.add(&object(1))?;
    /// assert!(!scene.is_empty());
    /// # Ok::<(), zorder::ZError>(())
    /// ```
    fn is_empty(&self) -> bool {
        self.len() == 0
    }
    /// See [`FixedPointZCollection::max_level`].
    ///
    /// ```
    /// # use std::cell::Cell;
    /// # use std::rc::Rc;
    /// # use zorder::{FixedPointZCollection, I16F16, SimpleZCollection, Visit, ZCollection, ZObject};
    /// # let object = |z: i32| Rc::new(ZObject::new(Cell::new(I16F16::from_num(z))));
    /// let mut scene: Box<dyn ZCollection<Cell<I16F16>>> = Box::new(FixedPointZCollection::new(10)?);
    /// assert_eq!(scene.max_level(), 10);
    /// # Ok::<(), zorder::ZError>(())
    /// ```
    fn max_level(&self) -> u16;
    /// See [`FixedPointZCollection::nonoptimized_buckets`].
    ///
    /// ```
    /// # use std::cell::Cell;
    /// # use std::rc::Rc;
    /// # use zorder::{FixedPointZCollection, I16F16, SimpleZCollection, Visit, ZCollection, ZObject};
    /// # let object = |z: i32| Rc::new(ZObject::new(Cell::new(I16F16::from_num(z))));
    /// let mut scene: Box<dyn ZCollection<Cell<I16F16>>> = Box::new(FixedPointZCollection::new(10)?);
    /// let a = object(0);
    /// a.set(I16F16::from_num(2.5));
    /// scene.add(&a)?;
    /// assert_eq!(scene.nonoptimized_buckets(), 1);
    /// # Ok::<(), zorder::ZError>(())
    /// ```
    fn nonoptimized_buckets(&self) -> usize;
    /// See [`FixedPointZCollection::clear`].
    ///
    /// ```
    /// # use std::cell::Cell;
    /// # use std::rc::Rc;
    /// # use zorder::{FixedPointZCollection, I16F16, SimpleZCollection, Visit, ZCollection, ZObject};
    /// # let object = |z: i32| Rc::new(ZObject::new(Cell::new(I16F16::from_num(z))));
    /// let mut scene: Box<dyn ZCollection<Cell<I16F16>>> = Box::new(FixedPointZCollection::new(10)?);
    /// scene.add(&object(1))?;
    /// scene.clear();
    /// assert!(scene.is_empty());
    /// # Ok::<(), zorder::ZError>(())
    /// ```
    fn clear(&mut self);
    /// See [`FixedPointZCollection::back_to_front`].
    ///
    /// ```
    /// # use std::cell::Cell;
    /// # use std::rc::Rc;
    /// # use zorder::{FixedPointZCollection, I16F16, SimpleZCollection, Visit, ZCollection, ZObject};
    /// # let object = |z: i32| Rc::new(ZObject::new(Cell::new(I16F16::from_num(z))));
    /// let mut scene: Box<dyn ZCollection<Cell<I16F16>>> = Box::new(FixedPointZCollection::new(10)?);
    /// let (a, b) = (object(3), object(1));
    /// scene.add(&a)?;
    /// scene.add(&b)?;
    /// let zs: Vec<i32> = scene.back_to_front().map(|o| o.get().to_num()).collect();
    /// assert_eq!(zs, [1, 3]);
    /// # Ok::<(), zorder::ZError>(())
    /// ```
    fn back_to_front(&self) -> BackToFront<'_, T>;
    /// See [`FixedPointZCollection::front_to_back`].
    ///
    /// ```
    /// # use std::cell::Cell;
    /// # use std::rc::Rc;
    /// # use zorder::{FixedPointZCollection, I16F16, SimpleZCollection, Visit, ZCollection, ZObject};
    /// # let object = |z: i32| Rc::new(ZObject::new(Cell::new(I16F16::from_num(z))));
    /// let mut scene: Box<dyn ZCollection<Cell<I16F16>>> = Box::new(FixedPointZCollection::new(10)?);
    /// let (a, b) = (object(3), object(1));
    /// scene.add(&a)?;
    /// scene.add(&b)?;
    /// let zs: Vec<i32> = scene.front_to_back().map(|o| o.get().to_num()).collect();
    /// assert_eq!(zs, [3, 1]);
    /// # Ok::<(), zorder::ZError>(())
    /// ```
    fn front_to_back(&self) -> Rev<BackToFront<'_, T>> {
        self.back_to_front().rev()
    }
    /// See [`FixedPointZCollection::update_back_to_front`].
    ///
    /// ```
    /// # use std::cell::Cell;
    /// # use std::rc::Rc;
    /// # use zorder::{FixedPointZCollection, I16F16, SimpleZCollection, Visit, ZCollection, ZObject};
    /// # let object = |z: i32| Rc::new(ZObject::new(Cell::new(I16F16::from_num(z))));
    /// let mut scene: Box<dyn ZCollection<Cell<I16F16>>> = Box::new(FixedPointZCollection::new(10)?);
    /// for z in [1, 2, 3] {
    ///     scene.add(&object(z))?;
    /// }
    /// let done = scene.update_back_to_front(&mut |o| if o.get() == 2 { Visit::RemoveAndStop } else { Visit::Keep });
    /// assert_eq!((done.removed, scene.len()), (1, 2));
    /// # Ok::<(), zorder::ZError>(())
    /// ```
    fn update_back_to_front(&mut self, visit: &mut dyn FnMut(&Rc<ZObject<T>>) -> Visit) -> Updated;
    /// See [`FixedPointZCollection::update_front_to_back`].
    ///
    /// ```
    /// # use std::cell::Cell;
    /// # use std::rc::Rc;
    /// # use zorder::{FixedPointZCollection, I16F16, SimpleZCollection, Visit, ZCollection, ZObject};
    /// # let object = |z: i32| Rc::new(ZObject::new(Cell::new(I16F16::from_num(z))));
    /// let mut scene: Box<dyn ZCollection<Cell<I16F16>>> = Box::new(FixedPointZCollection::new(10)?);
    /// for z in [1, 2, 3] {
    ///     scene.add(&object(z))?;
    /// }
    /// let done = scene.update_front_to_back(&mut |_| Visit::Stop);
    /// assert_eq!(done.visited, 1);
    /// # Ok::<(), zorder::ZError>(())
    /// ```
    fn update_front_to_back(&mut self, visit: &mut dyn FnMut(&Rc<ZObject<T>>) -> Visit) -> Updated;
    /// See [`FixedPointZCollection::retain`].
    ///
    /// ```
    /// # use std::cell::Cell;
    /// # use std::rc::Rc;
    /// # use zorder::{FixedPointZCollection, I16F16, SimpleZCollection, Visit, ZCollection, ZObject};
    /// # let object = |z: i32| Rc::new(ZObject::new(Cell::new(I16F16::from_num(z))));
    /// let mut scene: Box<dyn ZCollection<Cell<I16F16>>> = Box::new(FixedPointZCollection::new(10)?);
    /// for z in [1, 2, 3] {
    ///     scene.add(&object(z))?;
    /// }
    /// scene.retain(&mut |o| o.get() != 2);
    /// assert_eq!(scene.len(), 2);
    /// # Ok::<(), zorder::ZError>(())
    /// ```
    fn retain(&mut self, keep: &mut dyn FnMut(&Rc<ZObject<T>>) -> bool) {
        let _ = self.update_back_to_front(&mut |object| {
            if keep(object) {
                Visit::Keep
            } else {
                Visit::Remove
            }
        });
    }
    /// See [`FixedPointZCollection::drain`].
    ///
    /// ```
    /// # use std::cell::Cell;
    /// # use std::rc::Rc;
    /// # use zorder::{FixedPointZCollection, I16F16, SimpleZCollection, Visit, ZCollection, ZObject};
    /// # let object = |z: i32| Rc::new(ZObject::new(Cell::new(I16F16::from_num(z))));
    /// let mut scene: Box<dyn ZCollection<Cell<I16F16>>> = Box::new(FixedPointZCollection::new(10)?);
    /// scene.add(&object(1))?;
    /// let drained: Vec<_> = scene.drain().collect();
    /// assert_eq!((drained.len(), scene.len()), (1, 0));
    /// # Ok::<(), zorder::ZError>(())
    /// ```
    fn drain(&mut self) -> Drain<'_, T>;
    /// See [`FixedPointZCollection::append`].
    ///
    /// ```
    /// # use std::cell::Cell;
    /// # use std::rc::Rc;
    /// # use zorder::{FixedPointZCollection, I16F16, SimpleZCollection, Visit, ZCollection, ZObject};
    /// # let object = |z: i32| Rc::new(ZObject::new(Cell::new(I16F16::from_num(z))));
    /// let mut scene: Box<dyn ZCollection<Cell<I16F16>>> = Box::new(FixedPointZCollection::new(10)?);
    /// scene.add(&object(1))?;
    /// let mut next: Box<dyn ZCollection<Cell<I16F16>>> = Box::new(SimpleZCollection::new(10)?);
    /// next.append(scene.as_mut())?;
    /// assert_eq!((scene.len(), next.len()), (0, 1));
    /// # Ok::<(), zorder::ZError>(())
    /// ```
    fn append(&mut self, source: &mut dyn ZCollection<T>) -> Result<(), ZError>;
    /// Checks every internal invariant; panics on a broken one. For the
    /// crate's own tests and fuzzing.
    #[doc(hidden)]
    fn check_invariants(&self) {
        self.shared().check();
    }
}

macro_rules! rc_collection {
    ($name:ident, $example:literal) => {
        impl<T> AsShared<T> for $name<T> {
            fn shared(&self) -> &Shared<T> {
                &self.shared
            }
            fn shared_mut(&mut self) -> &mut Shared<T> {
                &mut self.shared
            }
        }

        impl<T> $name<T> {
            /// The largest `max_level`: the largest integer an `I16F16`
            /// holds.
            ///
            /// ```
            #[doc = concat!("use zorder::{", stringify!($name), ", ZError};")]
            #[doc = concat!("type Scene = ", stringify!($name), "<std::cell::Cell<zorder::I16F16>>;")]
            ///
            /// assert_eq!(Scene::MAX_LEVEL, 32767);
            /// assert!(Scene::new(Scene::MAX_LEVEL).is_ok());
            /// assert!(matches!(Scene::new(32768), Err(ZError::MaxLevelTooLarge { .. })));
            /// ```
            pub const MAX_LEVEL: u16 = MAX_LEVEL;

            /// The number of objects.
            ///
            /// ```
            #[doc = $example]
            /// assert_eq!(scene.len(), 2);
            /// # Ok::<(), zorder::ZError>(())
            /// ```
            pub fn len(&self) -> usize {
                self.shared.core.len()
            }

            /// Whether the collection holds no object.
            ///
            /// ```
            #[doc = $example]
            /// assert!(!scene.is_empty());
            /// # Ok::<(), zorder::ZError>(())
            /// ```
            pub fn is_empty(&self) -> bool {
                self.len() == 0
            }

            /// The highest optimized level: natural Z values
            /// `0..=max_level` are reached in O(1) through the quick-access
            /// array.
            ///
            /// ```
            #[doc = $example]
            /// assert_eq!(scene.max_level(), 10);
            /// # Ok::<(), zorder::ZError>(())
            /// ```
            pub fn max_level(&self) -> u16 {
                self.shared.core.max_level()
            }

            /// The buckets of Z values other than the levels and the
            /// default Z that exist now (see the crate docs on pruning);
            /// always 0 for a simple collection.
            ///
            /// ```
            #[doc = $example]
            /// assert_eq!(scene.nonoptimized_buckets(), 0);
            /// # Ok::<(), zorder::ZError>(())
            /// ```
            pub fn nonoptimized_buckets(&self) -> usize {
                self.shared.core.nonoptimized_buckets()
            }

            /// Whether this collection holds `object`.
            ///
            /// ```
            #[doc = $example]
            /// assert!(scene.contains(&hero));
            /// # Ok::<(), zorder::ZError>(())
            /// ```
            pub fn contains(&self, object: &ZObject<T>) -> bool {
                self.shared.contains(object)
            }

            /// The Z `object` is filed at here (its Z of record), if this
            /// collection holds it. The object's own Z may have changed
            /// since; it takes effect at the next `change`.
            ///
            /// ```
            #[doc = $example]
            /// hero.set(I16F16::from_num(1));
            /// assert_eq!(scene.z_of(&hero), Some(I16F16::from_num(2)));
            /// scene.change(&hero)?;
            /// assert_eq!(scene.z_of(&hero), Some(I16F16::from_num(1)));
            /// # Ok::<(), zorder::ZError>(())
            /// ```
            pub fn z_of(&self, object: &ZObject<T>) -> Option<I16F16> {
                self.shared.z_of(object)
            }

            /// Removes `object` in O(1), without searching: the object
            /// knows its place.
            ///
            /// # Errors
            ///
            /// [`ZError::NotInCollection`] if this collection does not hold
            /// `object`; nothing changes then.
            ///
            /// ```
            #[doc = $example]
            /// scene.remove(&hero)?;
            /// assert_eq!(scene.remove(&hero), Err(zorder::ZError::NotInCollection));
            /// # Ok::<(), zorder::ZError>(())
            /// ```
            pub fn remove(&mut self, object: &Rc<ZObject<T>>) -> Result<(), ZError> {
                self.shared.remove(object)
            }

            /// Removes every object, giving back the collection's handles,
            /// and every bucket of a non-optimized Z. The objects are given
            /// back in back-to-front order, each free (in no collection)
            /// by the time its handle is dropped; if dropping one panics,
            /// the rest are still given back, and then the panic resumes.
            ///
            /// ```
            #[doc = $example]
            /// scene.clear();
            /// assert!(scene.is_empty() && !scene.contains(&hero));
            /// # Ok::<(), zorder::ZError>(())
            /// ```
            pub fn clear(&mut self) {
                self.shared.clear();
            }

            /// Walks the objects back to front: ascending Z, and at equal Z
            /// in the order of their last Z-action. The drawing order.
            ///
            /// Each call counts as a traversal for pruning (see the crate
            /// docs), however far the walk goes; so does
            /// [`front_to_back`](Self::front_to_back).
            ///
            /// ```
            #[doc = $example]
            /// let first = scene.back_to_front().next().unwrap();
            /// assert!(ZObject::ptr_eq(first, &sky));
            /// scene.change(&first.clone())?; // a handle, not just a reference
            /// # Ok::<(), zorder::ZError>(())
            /// ```
            pub fn back_to_front(&self) -> BackToFront<'_, T> {
                self.shared.back_to_front()
            }

            /// Walks the objects front to back: the exact reverse of
            /// [`back_to_front`](Self::back_to_front). The order for touch
            /// dispatch.
            ///
            /// ```
            #[doc = $example]
            /// let top = scene.front_to_back().next().unwrap();
            /// assert!(ZObject::ptr_eq(top, &hero));
            /// # Ok::<(), zorder::ZError>(())
            /// ```
            pub fn front_to_back(&self) -> Rev<BackToFront<'_, T>> {
                self.back_to_front().rev()
            }

            /// Removes every object and yields each, back to front; every
            /// object is free (in no collection) when the call returns,
            /// even if the iterator is dropped before the end. Moving them to another collection in
            /// this order keeps their order, ties included (see also
            /// [`append`](Self::append)).
            ///
            /// ```
            #[doc = $example]
            /// let objects: Vec<_> = scene.drain().collect();
            /// assert_eq!(objects.len(), 2);
            /// assert!(scene.is_empty() && !ZObject::is_in_collection(&hero));
            /// # Ok::<(), zorder::ZError>(())
            /// ```
            pub fn drain(&mut self) -> Drain<'_, T> {
                Drain(self.shared.drain(), PhantomData)
            }

            /// Gives back the memory the collection does not need now
            /// (spare blocks and leaves).
            ///
            /// ```
            #[doc = $example]
            /// scene.shrink_to_fit();
            /// # Ok::<(), zorder::ZError>(())
            /// ```
            pub fn shrink_to_fit(&mut self) {
                self.shared.core.shrink_to_fit();
                self.shared.decided = Vec::new();
            }

            /// Checks every internal invariant; panics on a broken one. For
            /// the crate's own tests and fuzzing.
            #[doc(hidden)]
            pub fn check_invariants(&self) {
                self.shared.check();
            }
        }

        impl<T: ZSortable> $name<T> {
            /// Files `object` at the front of its Z (the legacy `add`),
            /// reading the Z from the object now, and keeps a clone of the
            /// handle. O(1) at a level (and, in a fixed-point collection,
            /// at the default Z); O(log n) at any other Z.
            ///
            /// The object's `z_order` runs first, before anything else.
            ///
            /// # Errors
            ///
            /// - [`ZError::AlreadyInCollection`] if the object is in a
            ///   collection, this one or another;
            /// - [`ZError::ZOutOfRange`] if a simple collection has no
            ///   level for its Z.
            ///
            /// Nothing changes on error.
            ///
            /// ```
            #[doc = $example]
            /// assert_eq!(scene.add(&hero), Err(zorder::ZError::AlreadyInCollection));
            /// # Ok::<(), zorder::ZError>(())
            /// ```
            pub fn add(&mut self, object: &Rc<ZObject<T>>) -> Result<(), ZError> {
                self.shared.add(object)
            }

            /// Re-reads the object's Z and re-files it at the front of that
            /// Z (the legacy `change`). This happens **even when the Z did
            /// not change**: the object then pops to the front of its Z, as
            /// the legacy engine did on purpose.
            ///
            /// # Errors
            ///
            /// - [`ZError::NotInCollection`] if this collection does not
            ///   hold the object;
            /// - [`ZError::ZOutOfRange`] if a simple collection has no
            ///   level for the new Z; the object keeps its place.
            ///
            /// Nothing changes on error.
            ///
            /// ```
            #[doc = $example]
            /// sky.set(I16F16::from_num(2));
            /// scene.change(&sky)?; // at hero's Z, in front of it
            /// assert!(ZObject::ptr_eq(scene.front_to_back().next().unwrap(), &sky));
            /// # Ok::<(), zorder::ZError>(())
            /// ```
            pub fn change(&mut self, object: &Rc<ZObject<T>>) -> Result<(), ZError> {
                self.shared.change(object)
            }

            /// Visits the objects back to front and lets `visit` keep,
            /// remove or re-file each, or stop the walk; see
            /// [`update_front_to_back`](Self::update_front_to_back).
            ///
            /// ```
            #[doc = $example]
            /// let done = scene.update_back_to_front(|object| {
            ///     if ZObject::ptr_eq(object, &sky) { Visit::RemoveAndStop } else { Visit::Keep }
            /// });
            /// assert_eq!((done.visited, done.removed), (1, 1));
            /// # Ok::<(), zorder::ZError>(())
            /// ```
            pub fn update_back_to_front(
                &mut self,
                mut visit: impl FnMut(&Rc<ZObject<T>>) -> Visit,
            ) -> Updated {
                self.shared.update(false, &mut visit)
            }

            /// Visits the objects front to back and lets `visit` keep,
            /// remove or re-file each, or stop the walk: touch dispatch
            /// stops at the first object hit (see [`Visit`]).
            ///
            /// The walk visits each object once and costs only the objects
            /// it visits. The decisions take effect when the walk ends, in
            /// visiting order, so the result equals calling `remove` and
            /// `change` in that order; an object re-filed ahead of the walk
            /// is not visited again. If `visit` panics, nothing has changed.
            /// The walk does not count as a traversal for pruning.
            ///
            /// ```
            #[doc = $example]
            /// let done = scene.update_front_to_back(|object| {
            ///     object.set(I16F16::from_num(0));
            ///     Visit::ChangeAndStop
            /// });
            /// assert_eq!((done.visited, done.changed), (1, 1));
            /// assert!(ZObject::ptr_eq(scene.back_to_front().nth(1).unwrap(), &hero));
            /// # Ok::<(), zorder::ZError>(())
            /// ```
            pub fn update_front_to_back(
                &mut self,
                mut visit: impl FnMut(&Rc<ZObject<T>>) -> Visit,
            ) -> Updated {
                self.shared.update(true, &mut visit)
            }

            /// Keeps only the objects for which `keep` returns `true`,
            /// visiting back to front.
            ///
            /// ```
            #[doc = $example]
            /// scene.retain(|object| ZObject::ptr_eq(object, &hero));
            /// assert_eq!(scene.len(), 1);
            /// # Ok::<(), zorder::ZError>(())
            /// ```
            pub fn retain(&mut self, mut keep: impl FnMut(&Rc<ZObject<T>>) -> bool) {
                let _ = self.update_back_to_front(|object| {
                    if keep(object) {
                        Visit::Keep
                    } else {
                        Visit::Remove
                    }
                });
            }

            /// Moves every object of `source` into this collection, back to
            /// front, each at the Z it was filed at in `source` (its Z of
            /// record, not re-read): a scene switch. The objects keep their
            /// order among themselves, ties included, and come in front of
            /// this collection's objects of equal Z.
            ///
            /// # Errors
            ///
            /// [`ZError::ZOutOfRange`] if this is a simple collection and
            /// one of the objects is at a Z it has no level for. Then
            /// nothing moves: every object stays in `source`, where it was.
            ///
            /// [`ZError::CapacityOverflow`] if this collection runs out of
            /// places (past 2^31 objects, which memory rules out in
            /// practice): the objects moved so far stay here, and the rest
            /// go back to `source`, each at the front of its Z there.
            ///
            /// ```
            #[doc = $example]
            /// let mut next = FixedPointZCollection::new(10)?;
            /// next.append(&mut scene)?;
            /// assert!(scene.is_empty() && next.contains(&hero));
            /// let mut hud = zorder::SimpleZCollection::new(1)?; // no level 2
            /// assert!(hud.append(&mut next).is_err());
            /// assert_eq!(next.len(), 2); // nothing lost, nothing half-moved
            /// # Ok::<(), zorder::ZError>(())
            /// ```
            pub fn append(&mut self, source: &mut dyn ZCollection<T>) -> Result<(), ZError> {
                self.shared.append(source.shared_mut())
            }
        }

        impl<T: ZSortable> ZCollection<T> for $name<T> {
            fn add(&mut self, object: &Rc<ZObject<T>>) -> Result<(), ZError> {
                $name::add(self, object)
            }
            fn remove(&mut self, object: &Rc<ZObject<T>>) -> Result<(), ZError> {
                $name::remove(self, object)
            }
            fn change(&mut self, object: &Rc<ZObject<T>>) -> Result<(), ZError> {
                $name::change(self, object)
            }
            fn contains(&self, object: &ZObject<T>) -> bool {
                $name::contains(self, object)
            }
            fn z_of(&self, object: &ZObject<T>) -> Option<I16F16> {
                $name::z_of(self, object)
            }
            fn len(&self) -> usize {
                $name::len(self)
            }
            fn max_level(&self) -> u16 {
                $name::max_level(self)
            }
            fn nonoptimized_buckets(&self) -> usize {
                $name::nonoptimized_buckets(self)
            }
            fn clear(&mut self) {
                $name::clear(self);
            }
            fn back_to_front(&self) -> BackToFront<'_, T> {
                $name::back_to_front(self)
            }
            fn update_back_to_front(
                &mut self,
                visit: &mut dyn FnMut(&Rc<ZObject<T>>) -> Visit,
            ) -> Updated {
                self.shared.update(false, visit)
            }
            fn update_front_to_back(
                &mut self,
                visit: &mut dyn FnMut(&Rc<ZObject<T>>) -> Visit,
            ) -> Updated {
                self.shared.update(true, visit)
            }
            fn drain(&mut self) -> Drain<'_, T> {
                $name::drain(self)
            }
            fn append(&mut self, source: &mut dyn ZCollection<T>) -> Result<(), ZError> {
                $name::append(self, source)
            }
        }

        impl<'a, T> IntoIterator for &'a $name<T> {
            type Item = &'a Rc<ZObject<T>>;
            type IntoIter = BackToFront<'a, T>;

            /// Back to front, like `back_to_front`.
            fn into_iter(self) -> BackToFront<'a, T> {
                self.back_to_front()
            }
        }

        impl<T> IntoIterator for $name<T> {
            type Item = Rc<ZObject<T>>;
            type IntoIter = IntoIter<T>;

            /// Every object, back to front, free as it comes out.
            fn into_iter(mut self) -> IntoIter<T> {
                self.shared.drain()
            }
        }

        impl<T: fmt::Debug> fmt::Debug for $name<T> {
            /// The settings, and the objects back to front. Printing does
            /// not count as a traversal.
            fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
                struct Objects<'a, T>(&'a Shared<T>);
                impl<T: fmt::Debug> fmt::Debug for Objects<'_, T> {
                    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
                        f.debug_list()
                            .entries(BackToFront(self.0.quiet_walk()).map(|o| &**o))
                            .finish()
                    }
                }
                f.debug_struct(stringify!($name))
                    .field("max_level", &self.max_level())
                    .field("len", &self.len())
                    .field("nonoptimized_buckets", &self.nonoptimized_buckets())
                    .field("back_to_front", &Objects(&self.shared))
                    .finish()
            }
        }
    };
}

/// The fixed-point `Rc` collection: every `I16F16` value is a legal Z,
/// with O(1) add, remove and change at the optimized levels `0..=max_level`
/// and at [`DEFAULT_Z`](crate::DEFAULT_Z), and O(log n) elsewhere. A
/// drop-in for the legacy `FixedPointZCollection` (where the legacy engine
/// stored 16.16 ints, `I16F16::from_bits(legacy_int)` is the same Z).
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
pub struct FixedPointZCollection<T> {
    shared: Shared<T>,
}

/// The simple `Rc` collection: Z must be a natural number in
/// `0..=max_level`, and every operation is O(1). Any other Z, the default Z
/// included, is refused with [`ZError::ZOutOfRange`]. A drop-in for the
/// legacy `SimpleZCollection`, which took plain int levels: the legacy
/// level `n` is `I16F16::from_num(n)` here (not `from_bits`).
///
/// Single-threaded, like the `Rc` handles it holds; for threads or an ECS,
/// use the keyed [`ZOrder`](crate::ZOrder).
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
pub struct SimpleZCollection<T> {
    shared: Shared<T>,
}

rc_collection!(
    FixedPointZCollection,
    "# use std::cell::Cell; use std::rc::Rc;\n# use zorder::{FixedPointZCollection, I16F16, Visit, ZObject};\n# let (sky, hero) = (Rc::new(ZObject::new(Cell::new(I16F16::from_num(0)))), Rc::new(ZObject::new(Cell::new(I16F16::from_num(2)))));\n# let mut scene = FixedPointZCollection::new(10)?;\n# scene.add(&sky)?; scene.add(&hero)?;"
);
rc_collection!(
    SimpleZCollection,
    "# use std::cell::Cell; use std::rc::Rc;\n# use zorder::{FixedPointZCollection, I16F16, SimpleZCollection, Visit, ZObject};\n# let (sky, hero) = (Rc::new(ZObject::new(Cell::new(I16F16::from_num(0)))), Rc::new(ZObject::new(Cell::new(I16F16::from_num(2)))));\n# let mut scene = SimpleZCollection::new(10)?;\n# scene.add(&sky)?; scene.add(&hero)?;"
);

impl<T> FixedPointZCollection<T> {
    /// How many traversals in a row must find a bucket of a non-optimized
    /// Z empty before the next prunes it, unless set otherwise with
    /// [`with_prune_after`](Self::with_prune_after). A game traverses twice
    /// a frame (draw, then touch), so 8 is about four frames.
    ///
    /// ```
    /// use zorder::{FixedPointZCollection, I16F16};
    ///
    /// type Scene = FixedPointZCollection<std::cell::Cell<I16F16>>;
    /// assert_eq!(Scene::new(10)?.prune_after(), Scene::DEFAULT_PRUNE_AFTER);
    /// assert_eq!(Scene::DEFAULT_PRUNE_AFTER, 8);
    /// # Ok::<(), zorder::ZError>(())
    /// ```
    pub const DEFAULT_PRUNE_AFTER: u32 = DEFAULT_PRUNE_AFTER;

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
        Self::with_prune_after(max_level, DEFAULT_PRUNE_AFTER)
    }

    /// An empty collection whose empty buckets of non-optimized Z values
    /// are pruned once `prune_after` traversals in a row have found them
    /// empty.
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
        Ok(FixedPointZCollection {
            shared: Shared::new(max_level, Some(prune_after))?,
        })
    }

    /// The pruning threshold.
    ///
    /// ```
    /// use std::cell::Cell;
    /// use zorder::{FixedPointZCollection, I16F16};
    ///
    /// assert_eq!(FixedPointZCollection::<Cell<I16F16>>::new(1)?.prune_after(), 8);
    /// # Ok::<(), zorder::ZError>(())
    /// ```
    pub fn prune_after(&self) -> u32 {
        self.shared
            .core
            .prune_after()
            .unwrap_or(DEFAULT_PRUNE_AFTER)
    }
}

impl<T> SimpleZCollection<T> {
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
        Ok(SimpleZCollection {
            shared: Shared::new(max_level, None)?,
        })
    }
}

/// The objects of an `Rc` collection from the back-most to the front-most:
/// the drawing order. Double-ended (its reverse is the front-to-back
/// order), exact-size, fused, and cheap to clone; any number of walks of
/// one collection may be alive at once. It yields the handles themselves,
/// so a found object can be changed or removed once the walk ends.
///
/// ```
/// use std::cell::Cell;
/// use std::rc::Rc;
/// use zorder::{FixedPointZCollection, I16F16, ZObject};
///
/// let mut scene = FixedPointZCollection::new(10)?;
/// let jelly = Rc::new(ZObject::new(Cell::new(I16F16::from_num(3))));
/// scene.add(&jelly)?;
/// let found = scene.back_to_front().find(|o| o.get() == 3).cloned();
/// scene.remove(&found.unwrap())?;
/// # Ok::<(), zorder::ZError>(())
/// ```
pub struct BackToFront<'a, T>(Walk<'a, Handle<T>>);

impl<'a, T> Iterator for BackToFront<'a, T> {
    type Item = &'a Rc<ZObject<T>>;

    #[inline]
    fn next(&mut self) -> Option<&'a Rc<ZObject<T>>> {
        self.0.next_up::<false>().map(|(object, _)| object)
    }

    #[inline]
    fn size_hint(&self) -> (usize, Option<usize>) {
        (self.0.remaining(), Some(self.0.remaining()))
    }

    #[inline]
    fn fold<B, F: FnMut(B, &'a Rc<ZObject<T>>) -> B>(self, init: B, mut f: F) -> B {
        self.0
            .fold_up::<false, B>(init, |acc, object, _| f(acc, object))
    }
}

impl<'a, T> DoubleEndedIterator for BackToFront<'a, T> {
    #[inline]
    fn next_back(&mut self) -> Option<&'a Rc<ZObject<T>>> {
        self.0.next_down::<false>().map(|(object, _)| object)
    }

    #[inline]
    fn rfold<B, F: FnMut(B, &'a Rc<ZObject<T>>) -> B>(self, init: B, mut f: F) -> B {
        self.0
            .fold_down::<false, B>(init, |acc, object, _| f(acc, object))
    }
}

impl<T> ExactSizeIterator for BackToFront<'_, T> {}
impl<T> FusedIterator for BackToFront<'_, T> {}

impl<T> Clone for BackToFront<'_, T> {
    fn clone(&self) -> Self {
        BackToFront(self.0)
    }
}

impl<T> fmt::Debug for BackToFront<'_, T> {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_struct("BackToFront")
            .field("remaining", &self.0.remaining())
            .finish()
    }
}

/// The objects of an `Rc` collection, by value, back to front, each free
/// (in no collection). Dropping it gives back the rest; if dropping an
/// object panics, the rest are still given back, then the panic resumes.
///
/// ```
/// use std::cell::Cell;
/// use std::rc::Rc;
/// use zorder::{I16F16, SimpleZCollection, ZObject};
///
/// let mut hud = SimpleZCollection::new(3)?;
/// hud.add(&Rc::new(ZObject::new(Cell::new(I16F16::from_num(1)))))?;
/// let objects: Vec<_> = hud.into_iter().collect();
/// assert!(!ZObject::is_in_collection(&objects[0]));
/// # Ok::<(), zorder::ZError>(())
/// ```
pub struct IntoIter<T>(Detached<Handle<T>>);

impl<T> Iterator for IntoIter<T> {
    type Item = Rc<ZObject<T>>;

    fn next(&mut self) -> Option<Rc<ZObject<T>>> {
        self.0.next().map(|(object, _)| object)
    }

    fn size_hint(&self) -> (usize, Option<usize>) {
        self.0.size_hint()
    }
}

impl<T> ExactSizeIterator for IntoIter<T> {}
impl<T> FusedIterator for IntoIter<T> {}

impl<T> Drop for IntoIter<T> {
    fn drop(&mut self) {
        release(self.by_ref());
    }
}

impl<T> fmt::Debug for IntoIter<T> {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_struct("IntoIter")
            .field("remaining", &self.len())
            .finish()
    }
}

/// The objects taken out of an `Rc` collection by `drain`, back to front;
/// every one is free (in no collection) from the moment it exists.
///
/// ```
/// use std::cell::Cell;
/// use std::rc::Rc;
/// use zorder::{FixedPointZCollection, I16F16, ZObject};
///
/// let mut scene = FixedPointZCollection::new(3)?;
/// let jelly = Rc::new(ZObject::new(Cell::new(I16F16::from_num(1))));
/// scene.add(&jelly)?;
/// let drain = scene.drain();
/// assert!(!ZObject::is_in_collection(&jelly));
/// assert_eq!(drain.len(), 1);
/// # Ok::<(), zorder::ZError>(())
/// ```
pub struct Drain<'a, T>(IntoIter<T>, PhantomData<&'a mut ()>);

impl<T> Iterator for Drain<'_, T> {
    type Item = Rc<ZObject<T>>;

    fn next(&mut self) -> Option<Rc<ZObject<T>>> {
        self.0.next()
    }

    fn size_hint(&self) -> (usize, Option<usize>) {
        self.0.size_hint()
    }
}

impl<T> ExactSizeIterator for Drain<'_, T> {}
impl<T> FusedIterator for Drain<'_, T> {}

impl<T> fmt::Debug for Drain<'_, T> {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_struct("Drain")
            .field("remaining", &self.len())
            .finish()
    }
}
