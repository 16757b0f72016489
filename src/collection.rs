//! The collection both variants share: filing objects in buckets, errors,
//! traversal and the in-walk update. What differs between the variants is
//! how a Z finds its bucket: see [`Levels`].

use alloc::rc::Rc;
use alloc::vec::Vec;
use core::fmt;
use core::ptr::NonNull;

use intrusive_collections::LinkedList;

use crate::block::BlockAdapter;
use crate::bucket::{self, Bucket, Owner};
use crate::iter::{BackToFront, FrontToBack, Traversals};
use crate::sections::{Layout, Occupancy, Sections};
use crate::{I16F16, ZCollection, ZError, ZObject, ZSortable};

pub(crate) mod sealed {
    use super::*;

    /// How a collection maps Z values to buckets. Sealed: implemented by
    /// [`FixedPointLevels`](crate::FixedPointLevels) and
    /// [`SimpleLevels`](crate::SimpleLevels) only.
    #[allow(private_interfaces)]
    pub trait LevelsImpl<T> {
        /// The variant's name, for `Debug`.
        const NAME: &'static str;

        /// The collection's identity, stamped on its buckets.
        fn owner(&self) -> Owner;

        /// The highest optimized level.
        fn max_level(&self) -> u16;

        /// The number of sections (see `sections`) the buckets fall in.
        fn sections(&self) -> usize;

        /// The bucket for `z`, opened if needed, or why `z` is refused.
        fn locate(&mut self, z: I16F16) -> Result<NonNull<Bucket<T>>, ZError>;

        /// How the buckets are laid out, for traversals.
        fn layout(&self) -> Layout<'_, T>;

        /// The number of allocated non-optimized buckets (neither a level nor
        /// the default bucket).
        fn nonoptimized_buckets(&self) -> usize;

        /// `bucket` has just lost its last object.
        fn emptied(&mut self, bucket: NonNull<Bucket<T>>, traversals: &Traversals) {
            let _ = (bucket, traversals);
        }

        /// `bucket` has just received an object while empty.
        fn filled(&mut self, bucket: NonNull<Bucket<T>>) {
            let _ = bucket;
        }

        /// Frees the non-optimized buckets that traversals have found empty
        /// often enough (none, by default).
        ///
        /// # Safety
        ///
        /// No reference into the bucket storage may be alive: no traversal,
        /// no borrow held by a caller up the stack.
        unsafe fn prune_stale(&self, traversals: &Traversals) {
            let _ = traversals;
        }

        /// Frees every non-optimized bucket; all of them are empty.
        fn free_nonoptimized(&mut self) {}
    }
}

/// How a collection maps Z values to buckets: [`FixedPointLevels`] (every
/// Z, a bucket chain) or [`SimpleLevels`] (natural levels only, an array).
/// This trait is sealed.
///
/// [`FixedPointLevels`]: crate::FixedPointLevels
/// [`SimpleLevels`]: crate::SimpleLevels
pub trait Levels<T>: sealed::LevelsImpl<T> {}

impl<T, L: sealed::LevelsImpl<T>> Levels<T> for L {}

/// What [`Collection::update`] does with each object it visits.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum Visit {
    /// Leave the object where it is.
    Keep,
    /// Remove the object from the collection.
    Remove,
    /// Re-read the object's Z and re-file it, exactly as
    /// [`Collection::change`] does.
    Change,
}

/// What a [`Collection::update`] did.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq, Hash)]
#[must_use]
pub struct Updated {
    /// Objects removed.
    pub removed: usize,
    /// Objects re-filed.
    pub changed: usize,
    /// `Visit::Change` requests refused because the object's new Z is not
    /// accepted (only a [`SimpleZCollection`](crate::SimpleZCollection)
    /// refuses a Z); those objects stayed where they were.
    pub refused: usize,
}

/// An always-sorted collection of [`ZObject`]s, generic over how Z values
/// map to buckets. Use it through its two variants,
/// [`FixedPointZCollection`](crate::FixedPointZCollection) and
/// [`SimpleZCollection`](crate::SimpleZCollection).
///
/// The order is the legacy engine's contract: back to front is ascending Z,
/// and among equal Z the object whose last Z-action (`add` or `change`) came
/// earlier is further back. Front to back is the exact reverse.
///
/// The collection holds an `Rc` clone of each object it contains and gives
/// it back on `remove`, `clear` and drop.
pub struct Collection<T, L: Levels<T>> {
    levels: L,
    /// Which sections of buckets hold objects, so traversals skip the rest.
    occupancy: Occupancy,
    len: usize,
    traversals: Traversals,
    /// Reused by `update` so a per-frame update loop does not allocate.
    scratch: Vec<Rc<ZObject<T>>>,
}

impl<T, L: Levels<T>> Collection<T, L> {
    pub(crate) fn with_levels(levels: L) -> Self {
        Collection {
            occupancy: Occupancy::new(levels.sections()),
            levels,
            len: 0,
            traversals: Traversals::default(),
            scratch: Vec::new(),
        }
    }

    pub(crate) fn levels(&self) -> &L {
        &self.levels
    }

    /// The number of objects in the collection.
    pub fn len(&self) -> usize {
        self.len
    }

    /// Whether the collection holds no object.
    pub fn is_empty(&self) -> bool {
        self.len == 0
    }

    /// The highest optimized level: natural Z values `0..=max_level` are
    /// reached in O(1) through the quick-access array.
    pub fn max_level(&self) -> u16 {
        self.levels.max_level()
    }

    /// The number of non-optimized buckets allocated right now (buckets for
    /// Z values other than the optimized levels and the default Z). Always 0
    /// for a [`SimpleZCollection`](crate::SimpleZCollection).
    pub fn nonoptimized_buckets(&self) -> usize {
        self.levels.nonoptimized_buckets()
    }

    /// Whether `object` is in this collection.
    pub fn contains(&self, object: &ZObject<T>) -> bool {
        object.owner() == Some(self.levels.owner())
    }

    /// Removes `object` in O(1), without searching: the object knows its
    /// block and slot.
    ///
    /// # Errors
    ///
    /// [`ZError::NotInCollection`] if the object is not in this collection;
    /// nothing changes then.
    pub fn remove(&mut self, object: &Rc<ZObject<T>>) -> Result<(), ZError> {
        self.check_member(object)?;
        drop(self.unfile(object));
        Ok(())
    }

    /// Removes every object, giving back the collection's handles, and frees
    /// every non-optimized bucket.
    ///
    /// O(n + b) for `n` objects and `b` non-optimized buckets, plus the
    /// levels that hold objects: empty levels are skipped, as traversals
    /// skip them.
    pub fn clear(&mut self) {
        // Every object forgets its place before any is released, so an
        // object's `Drop` that panics cannot leave another pointing at a
        // freed block.
        for bucket in self.sections().occupied_buckets() {
            bucket.forget_places();
        }
        let mut released = LinkedList::new(BlockAdapter::NEW);
        for bucket in self.sections().occupied_buckets() {
            // SAFETY: we hold the collection by `&mut`, and the places of
            // the objects were just cleared.
            let blocks = unsafe { bucket.take_blocks() };
            released.back_mut().splice_after(blocks);
        }
        self.occupancy.clear();
        self.levels.free_nonoptimized();
        self.len = 0;
        // The collection is empty and consistent; now the handles go back.
        drop(released);
    }

    /// Walks the objects back to front: ascending Z, and at equal Z in the
    /// order of their last Z-action.
    ///
    /// A traversal also prunes: a non-optimized bucket that traversals have
    /// found empty [`prune_after`](crate::FixedPointZCollection::prune_after)
    /// times in a row is freed when the next traversal starts, as long as no
    /// other traversal is alive then. A traversal counts once, when it is
    /// created, however far it is walked. (A traversal leaked with
    /// `mem::forget` stays alive forever and so stops pruning: memory grows,
    /// nothing else goes wrong.)
    ///
    /// ```
    /// use std::cell::Cell;
    /// use std::rc::Rc;
    /// use zorder::{FixedPointZCollection, I16F16, ZObject};
    ///
    /// let z = |v: f64| Rc::new(ZObject::new(Cell::new(I16F16::from_num(v))));
    /// let (sky, hero, rock) = (z(0.0), z(2.0), z(0.0));
    /// let mut scene = FixedPointZCollection::new(10)?;
    /// for object in [&sky, &hero, &rock] {
    ///     scene.add(object)?;
    /// }
    /// let order: Vec<_> = scene.back_to_front().collect();
    /// assert!(order[0].same(&sky) && order[1].same(&rock) && order[2].same(&hero));
    /// # Ok::<(), zorder::ZError>(())
    /// ```
    pub fn back_to_front(&self) -> BackToFront<'_, T> {
        if self.traversals.none_alive() {
            // SAFETY: no traversal is alive, and this `&self` method holds no
            // reference into the buckets.
            unsafe { self.levels.prune_stale(&self.traversals) }
        }
        BackToFront::new(self.sections(), self.len, &self.traversals, true)
    }

    /// Walks the objects front to back: the exact reverse of
    /// [`back_to_front`](Self::back_to_front), and pruning the same way.
    pub fn front_to_back(&self) -> FrontToBack<'_, T> {
        FrontToBack::new(self.back_to_front())
    }

    fn sections(&self) -> Sections<'_, T> {
        Sections {
            layout: self.levels.layout(),
            occupancy: &self.occupancy,
        }
    }

    fn check_member(&self, object: &ZObject<T>) -> Result<(), ZError> {
        if self.contains(object) {
            Ok(())
        } else {
            Err(ZError::NotInCollection)
        }
    }

    /// A walk that neither counts toward pruning nor prunes.
    fn quiet_back_to_front(&self) -> BackToFront<'_, T> {
        BackToFront::new(self.sections(), self.len, &self.traversals, false)
    }

    /// Files `object` at the tail of `bucket`, keeping the occupancy and the
    /// pruning list up to date.
    ///
    /// # Safety
    ///
    /// `bucket` is a bucket of this collection from `locate`, and `object`
    /// is in no collection.
    unsafe fn file(&mut self, bucket: NonNull<Bucket<T>>, object: Rc<ZObject<T>>) {
        // SAFETY: by this function's contract; we hold the collection by
        // `&mut`.
        if unsafe { bucket::file(bucket, object) } {
            // SAFETY: a bucket of this collection, alive.
            self.occupancy.filled(unsafe { bucket.as_ref() }.section());
            self.levels.filled(bucket);
        }
        self.len += 1;
    }

    /// Takes `object`, a member, out of its bucket and returns the handle
    /// the collection held.
    fn unfile(&mut self, object: &ZObject<T>) -> Rc<ZObject<T>> {
        debug_assert!(self.contains(object));
        // SAFETY: the object is in this collection (every caller checks
        // first), which we hold by `&mut`.
        let (handle, emptied) = unsafe { bucket::unfile(object) };
        if let Some(bucket) = emptied {
            // SAFETY: a bucket of this collection; it holds no object but is
            // not freed by `unfile`.
            self.occupancy.emptied(unsafe { bucket.as_ref() }.section());
            self.levels.emptied(bucket, &self.traversals);
        }
        self.len -= 1;
        handle
    }
}

impl<T: ZSortable, L: Levels<T>> Collection<T, L> {
    /// Files `object` at the front of its Z level (the legacy `add`). The
    /// collection reads the object's Z now and keeps a clone of the handle.
    ///
    /// O(1) for an optimized level and for the default Z; any other Z finds
    /// its bucket in O(log b) for `b` non-optimized buckets.
    ///
    /// # Errors
    ///
    /// - [`ZError::AlreadyInCollection`] if the object is in a collection,
    ///   this one or another.
    /// - [`ZError::ZOutOfRange`] if a simple collection has no level for
    ///   its Z.
    ///
    /// Nothing changes on error.
    pub fn add(&mut self, object: &Rc<ZObject<T>>) -> Result<(), ZError> {
        if object.is_in_collection() {
            return Err(ZError::AlreadyInCollection);
        }
        let target = self.levels.locate(object.z_order())?;
        // SAFETY: `locate` returned a bucket of this collection, and the
        // object is in no collection.
        unsafe { self.file(target, Rc::clone(object)) };
        Ok(())
    }

    /// Re-reads the object's Z and re-files it at the front of that level
    /// (the legacy `change`). This happens **even when Z did not change**:
    /// the object then pops to the front of its level, as the legacy engine
    /// did on purpose.
    ///
    /// # Errors
    ///
    /// - [`ZError::NotInCollection`] if the object is not in this
    ///   collection.
    /// - [`ZError::ZOutOfRange`] if a simple collection has no level for the
    ///   new Z; the object keeps its old place.
    ///
    /// Nothing changes on error.
    pub fn change(&mut self, object: &Rc<ZObject<T>>) -> Result<(), ZError> {
        self.check_member(object)?;
        let target = self.levels.locate(object.z_order())?;
        let handle = self.unfile(object);
        // SAFETY: `locate` returned a bucket of this collection (which
        // `unfile` leaves alive: only traversals free buckets), and after
        // `unfile` the object is in no collection.
        unsafe { self.file(target, handle) };
        Ok(())
    }

    /// Visits every object back to front and lets `visit` keep, remove or
    /// re-file it: the way to kill or move objects from a game's update loop.
    ///
    /// Each object present when the call starts is visited exactly once,
    /// even if it is re-filed ahead of the walk. Removals and changes take
    /// effect at once and in visiting order, so the result equals calling
    /// [`remove`](Self::remove) and [`change`](Self::change) in that order.
    ///
    /// ```
    /// use std::cell::Cell;
    /// use std::rc::Rc;
    /// use zorder::{FixedPointZCollection, I16F16, Visit, ZObject};
    ///
    /// let mut scene = FixedPointZCollection::new(10)?;
    /// let objects: Vec<_> = (0..4)
    ///     .map(|i| Rc::new(ZObject::new(Cell::new(I16F16::from_num(i)))))
    ///     .collect();
    /// for object in &objects {
    ///     scene.add(object)?;
    /// }
    /// let done = scene.update(|object| match object.get().to_num::<i32>() {
    ///     0 => Visit::Remove,
    ///     1 => {
    ///         object.set(I16F16::from_num(9));
    ///         Visit::Change
    ///     }
    ///     _ => Visit::Keep,
    /// });
    /// assert_eq!((done.removed, done.changed), (1, 1));
    /// let zs: Vec<i32> = scene.back_to_front().map(|o| o.get().to_num()).collect();
    /// assert_eq!(zs, [2, 3, 9]);
    /// # Ok::<(), zorder::ZError>(())
    /// ```
    pub fn update(&mut self, mut visit: impl FnMut(&ZObject<T>) -> Visit) -> Updated {
        let mut visiting = core::mem::take(&mut self.scratch);
        let mut walk = self.quiet_back_to_front();
        while let Some(object) = walk.next_pointer() {
            // SAFETY: the pointer a slot holds comes from `Rc::into_raw`, and
            // the slot's strong count keeps the object alive; this makes
            // one more count for the clone.
            visiting.push(unsafe {
                Rc::increment_strong_count(object.as_ptr());
                Rc::from_raw(object.as_ptr())
            });
        }
        drop(walk);
        let mut updated = Updated::default();
        for object in visiting.drain(..) {
            match visit(&object) {
                Visit::Keep => {}
                Visit::Remove => {
                    if self.remove(&object).is_ok() {
                        updated.removed += 1;
                    }
                }
                Visit::Change => match self.change(&object) {
                    Ok(()) => updated.changed += 1,
                    Err(_) => updated.refused += 1,
                },
            }
        }
        self.scratch = visiting;
        updated
    }

    /// Keeps only the objects for which `keep` returns `true`, visiting back
    /// to front, and returns how many it removed; a shorthand for
    /// [`update`](Self::update).
    pub fn retain(&mut self, mut keep: impl FnMut(&ZObject<T>) -> bool) -> usize {
        ZCollection::retain(self, &mut keep)
    }
}

impl<'a, T, L: Levels<T>> IntoIterator for &'a Collection<T, L> {
    type Item = &'a ZObject<T>;
    type IntoIter = BackToFront<'a, T>;

    /// Back to front, like [`Collection::back_to_front`].
    fn into_iter(self) -> BackToFront<'a, T> {
        self.back_to_front()
    }
}

impl<T, L: Levels<T>> Drop for Collection<T, L> {
    /// Gives back every handle, as [`clear`](Collection::clear) does.
    fn drop(&mut self) {
        self.clear();
    }
}

impl<T: fmt::Debug, L: Levels<T>> fmt::Debug for Collection<T, L> {
    /// The variant, its levels, and the objects back to front. Printing
    /// neither counts as a traversal nor prunes.
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        struct Objects<'c, T, L: Levels<T>>(&'c Collection<T, L>);
        impl<T: fmt::Debug, L: Levels<T>> fmt::Debug for Objects<'_, T, L> {
            fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
                f.debug_list()
                    .entries(self.0.quiet_back_to_front().map(ZObject::value))
                    .finish()
            }
        }
        f.debug_struct(L::NAME)
            .field("max_level", &self.max_level())
            .field("len", &self.len)
            .field("nonoptimized_buckets", &self.nonoptimized_buckets())
            .field("back_to_front", &Objects(self))
            .finish()
    }
}
