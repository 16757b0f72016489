//! The keyed collection, [`ZOrder`]: the ordering contract as an index over
//! the keys of a game's own storage; its key trait and its iterators.

use alloc::vec::Vec;
use core::fmt;
use core::iter::{FusedIterator, Rev};
use core::marker::PhantomData;

use crate::core::{Core, Detached, Exact};
use crate::entry::{Book, Entry};
use crate::error::ZError;
use crate::place::Place;
use crate::visit::{KeyVisit, Updated};
use crate::walk::Walk;
use crate::z::{DEFAULT_PRUNE_AFTER, I16F16, MAX_LEVEL};

/// A key of the game's own storage: an index into a `Vec` or a slab, a
/// `slotmap` key, an ECS entity.
///
/// A [`ZOrder`] keeps, for each key in it, a place in a dense table indexed
/// by [`index`](ZKey::index), so indices should be small and dense, as
/// storage indices are. Two keys with the same index are the same slot of
/// the storage at different times (generations); a `ZOrder` holds at most
/// one of them, and answers a stale one (same index, other generation) as
/// a key it does not hold, never with another key's entry. `Eq` tells the
/// generations apart.
///
/// Implemented for `u32`, `u64` and `usize` (plain indices). A generational
/// key implements it like this:
///
/// ```
/// use zorder::{I16F16, ZError, ZKey, ZOrder};
///
/// #[derive(Clone, Copy, PartialEq, Eq, Debug)]
/// struct Entity {
///     index: u32,
///     generation: u32,
/// }
///
/// impl ZKey for Entity {
///     fn index(&self) -> usize {
///         self.index as usize
///     }
/// }
///
/// let mut order = ZOrder::new(10)?;
/// let old = Entity { index: 3, generation: 1 };
/// order.insert(old, I16F16::from_num(2))?;
/// let reused = Entity { index: 3, generation: 2 };
/// assert_eq!(order.z(reused), None); // a stale key finds nothing
/// assert_eq!(order.remove(reused), Err(ZError::NotInCollection));
/// assert_eq!(order.insert(reused, I16F16::ZERO), Err(ZError::IndexInUse { index: 3 }));
/// order.remove(old)?;
/// order.insert(reused, I16F16::ZERO)?;
/// # Ok::<(), ZError>(())
/// ```
///
/// If `index` or `Eq` are inconsistent (the same key reporting different
/// indices, say), the collection's answers are unspecified, but it never
/// panics and never causes undefined behaviour.
///
/// `index` and `Eq` must not panic. They run inside operations, for the
/// key operated on and for the keys an operation moves to another node, so
/// a panic can stop an operation halfway: the collection is then left in
/// an unspecified state, in which later calls may give wrong answers or
/// panic, though never cause undefined behaviour (the crate has no
/// `unsafe` code). This is the rule `HashMap` has for a panicking `Hash`.
pub trait ZKey: Copy + Eq {
    /// The key's slot in the game's storage.
    fn index(&self) -> usize;
}

impl ZKey for u32 {
    fn index(&self) -> usize {
        *self as usize
    }
}

impl ZKey for u64 {
    /// The value, or `usize::MAX` if it does not fit (which no table can
    /// hold: inserting it is a [`ZError::CapacityOverflow`]).
    fn index(&self) -> usize {
        usize::try_from(*self).unwrap_or(usize::MAX)
    }
}

impl ZKey for usize {
    fn index(&self) -> usize {
        *self
    }
}

/// A key as the core files it. (A wrapper, since a blanket implementation
/// over every `ZKey` would overlap the one for `Rc` handles.)
#[derive(Clone, Copy, PartialEq, Eq)]
pub(crate) struct Keyed<K>(K);

impl<K: ZKey> Entry for Keyed<K> {
    type Slot = Keyed<K>;

    #[inline]
    fn vacant(&self) -> Keyed<K> {
        *self
    }

    #[inline]
    fn into_slot(self) -> Keyed<K> {
        self
    }

    #[inline]
    fn take(slot: &mut Keyed<K>) -> Keyed<K> {
        *slot
    }

    #[inline]
    fn get(slot: &Keyed<K>) -> &Keyed<K> {
        slot
    }

    #[inline]
    fn same(&self, other: &Keyed<K>) -> bool {
        self.0 == other.0
    }

    #[inline]
    fn shift_up(slots: &mut [Keyed<K>]) {
        let len = slots.len();
        slots.copy_within(..len - 1, 1);
    }

    #[inline]
    fn shift_down(slots: &mut [Keyed<K>]) {
        slots.copy_within(1.., 0);
    }
}

/// The places of keys: a dense table indexed by the key's index.
#[derive(Debug, Clone, Default)]
pub(crate) struct KeyPlaces {
    table: Vec<u32>,
}

impl<K: ZKey> Book<Keyed<K>> for KeyPlaces {
    #[inline]
    fn set(&mut self, key: &Keyed<K>, place: Place) {
        if let Some(slot) = self.table.get_mut(key.0.index()) {
            *slot = place.to_bits();
        }
    }
}

impl KeyPlaces {
    #[inline]
    fn get(&self, index: usize) -> Place {
        self.table
            .get(index)
            .map_or(Place::NOWHERE, |&bits| Place::from_bits(bits))
    }

    fn forget(&mut self, index: usize) {
        if let Some(slot) = self.table.get_mut(index) {
            *slot = Place::NOWHERE.to_bits();
        }
    }

    /// Makes room for index `index`.
    fn grow_to(&mut self, index: usize) -> Result<(), ZError> {
        if index < self.table.len() {
            return Ok(());
        }
        let needed = index.checked_add(1).ok_or(ZError::CapacityOverflow)?;
        let additional = needed - self.table.len();
        self.table
            .try_reserve(additional)
            .map_err(|_| ZError::CapacityOverflow)?;
        self.table.resize(needed, Place::NOWHERE.to_bits());
        Ok(())
    }
}

/// An always-sorted index over the keys of a game's own storage, by Z: the
/// legacy engine's ordering contract, for new code.
///
/// The collection holds each key's Z; the game holds its objects wherever it
/// likes (a `Vec`, a slab, `slotmap`, an ECS) and draws them in the order
/// the collection yields their keys. Back to front is ascending Z, and
/// among equal Z the key whose last Z-action (insert or re-file) came
/// earlier is further back; front to back is the exact reverse. Re-filing
/// a key moves it to the front of its Z even when the Z did not change.
///
/// Two layouts, with the same API: [`ZOrder::new`] takes every `I16F16` as
/// a Z (the fixed-point layout), O(1) at the levels `0..=max_level` and at
/// [`DEFAULT_Z`](crate::DEFAULT_Z), O(log n) elsewhere; [`ZOrder::simple`]
/// takes only the levels, all O(1), and refuses any other Z with
/// [`ZError::ZOutOfRange`].
///
/// `ZOrder<K>` is `Send` and `Sync` whenever `K` is, so it can be an ECS
/// resource, or be built on a loading thread.
///
/// ```
/// use zorder::{I16F16, ZOrder};
///
/// // The game's storage: sprites in a Vec, addressed by index.
/// let sprites = ["sky", "hero", "coin", "cloud"];
/// let mut order = ZOrder::<usize>::new(100)?;
/// order.insert(0, I16F16::from_num(0))?;
/// order.insert(1, I16F16::from_num(5))?;
/// order.insert(2, I16F16::from_num(5))?;
/// order.insert(3, I16F16::from_num(0.5))?; // any Z: fractional, negative
///
/// let draw: Vec<_> = order.back_to_front().map(|key| sprites[key]).collect();
/// assert_eq!(draw, ["sky", "cloud", "hero", "coin"]);
///
/// order.refile(1)?; // the hero comes to the front of its Z
/// assert_eq!(order.front_to_back().next(), Some(1));
/// assert_eq!(order.remove(3)?, I16F16::from_num(0.5));
/// # Ok::<(), zorder::ZError>(())
/// ```
pub struct ZOrder<K: ZKey> {
    core: Core<Keyed<K>, KeyPlaces>,
    /// The decisions of an in-walk update, kept between calls so a
    /// per-frame update does not allocate.
    decided: Vec<(K, KeyVisit)>,
}

impl<K: ZKey> ZOrder<K> {
    /// The largest `max_level`: the largest integer an `I16F16` holds.
    ///
    /// ```
    /// use zorder::{ZError, ZOrder};
    ///
    /// assert_eq!(ZOrder::<u32>::MAX_LEVEL, 32767);
    /// assert!(ZOrder::<u32>::new(ZOrder::<u32>::MAX_LEVEL).is_ok());
    /// assert_eq!(
    ///     ZOrder::<u32>::new(32768).err(),
    ///     Some(ZError::MaxLevelTooLarge { max_level: 32768 })
    /// );
    /// ```
    pub const MAX_LEVEL: u16 = MAX_LEVEL;

    /// How many traversals in a row must find a bucket of a non-optimized Z
    /// empty before the next prunes it, unless set otherwise with
    /// [`with_prune_after`](Self::with_prune_after). A game traverses twice
    /// a frame (draw, then touch), so 8 is about four frames.
    ///
    /// ```
    /// use zorder::ZOrder;
    ///
    /// let order = ZOrder::<u32>::new(10)?;
    /// assert_eq!(order.prune_after(), Some(ZOrder::<u32>::DEFAULT_PRUNE_AFTER));
    /// assert_eq!(ZOrder::<u32>::DEFAULT_PRUNE_AFTER, 8);
    /// # Ok::<(), zorder::ZError>(())
    /// ```
    pub const DEFAULT_PRUNE_AFTER: u32 = DEFAULT_PRUNE_AFTER;

    /// An empty collection taking every `I16F16` as a Z, with optimized
    /// levels `0..=max_level`.
    ///
    /// # Errors
    ///
    /// [`ZError::MaxLevelTooLarge`] if `max_level` exceeds
    /// [`MAX_LEVEL`](Self::MAX_LEVEL).
    ///
    /// ```
    /// use zorder::{DEFAULT_Z, I16F16, ZOrder};
    ///
    /// let mut order = ZOrder::<u32>::new(31)?;
    /// order.insert(1, DEFAULT_Z)?; // O(1): the default Z has its own bucket
    /// order.insert(2, I16F16::from_num(-2.75))?; // O(log n)
    /// assert!(ZOrder::<u32>::new(40_000).is_err());
    /// # Ok::<(), zorder::ZError>(())
    /// ```
    pub fn new(max_level: u16) -> Result<Self, ZError> {
        Self::with_prune_after(max_level, DEFAULT_PRUNE_AFTER)
    }

    /// An empty collection taking every Z, whose empty buckets of
    /// non-optimized Z values are pruned once `prune_after` traversals in a
    /// row have found them empty.
    ///
    /// # Errors
    ///
    /// [`ZError::MaxLevelTooLarge`], or [`ZError::ZeroPruneThreshold`] if
    /// `prune_after` is 0.
    ///
    /// ```
    /// use zorder::{I16F16, ZOrder};
    ///
    /// let mut order = ZOrder::<u32>::with_prune_after(10, 1)?;
    /// order.insert(1, I16F16::from_num(2.5))?;
    /// order.remove(1)?;
    /// assert_eq!(order.nonoptimized_buckets(), 1); // waits for a traversal
    /// order.back_to_front();
    /// order.back_to_front();
    /// assert_eq!(order.nonoptimized_buckets(), 0);
    /// # Ok::<(), zorder::ZError>(())
    /// ```
    pub fn with_prune_after(max_level: u16, prune_after: u32) -> Result<Self, ZError> {
        Self::from_core(Core::new(
            max_level,
            Some(prune_after),
            KeyPlaces::default(),
        )?)
    }

    /// An empty collection taking only the levels `0..=max_level` as a Z:
    /// every operation O(1), any other Z refused with
    /// [`ZError::ZOutOfRange`].
    ///
    /// # Errors
    ///
    /// [`ZError::MaxLevelTooLarge`] if `max_level` exceeds
    /// [`MAX_LEVEL`](Self::MAX_LEVEL).
    ///
    /// ```
    /// use zorder::{DEFAULT_Z, I16F16, ZError, ZOrder};
    ///
    /// let mut hud = ZOrder::<u32>::simple(3)?;
    /// hud.insert(1, I16F16::from_num(3))?;
    /// assert!(matches!(hud.insert(2, DEFAULT_Z), Err(ZError::ZOutOfRange { .. })));
    /// # Ok::<(), ZError>(())
    /// ```
    pub fn simple(max_level: u16) -> Result<Self, ZError> {
        Self::from_core(Core::new(max_level, None, KeyPlaces::default())?)
    }

    /// An empty collection taking every Z, like [`new`](Self::new), with
    /// room for keys `0..capacity` without reallocating.
    ///
    /// # Errors
    ///
    /// As [`new`](Self::new), or [`ZError::CapacityOverflow`].
    ///
    /// ```
    /// use zorder::ZOrder;
    ///
    /// let order = ZOrder::<u32>::with_capacity(31, 10_000)?;
    /// assert!(order.is_empty());
    /// # Ok::<(), zorder::ZError>(())
    /// ```
    pub fn with_capacity(max_level: u16, capacity: usize) -> Result<Self, ZError> {
        let mut order = Self::new(max_level)?;
        order.try_reserve(capacity)?;
        Ok(order)
    }

    fn from_core(core: Core<Keyed<K>, KeyPlaces>) -> Result<Self, ZError> {
        Ok(ZOrder {
            core,
            decided: Vec::new(),
        })
    }

    /// Makes room for keys with indices up to `len() + additional` (dense
    /// keys) without reallocating.
    ///
    /// # Errors
    ///
    /// [`ZError::CapacityOverflow`] if that much memory cannot be had.
    ///
    /// ```
    /// use zorder::ZOrder;
    ///
    /// let mut order = ZOrder::<u32>::new(31)?;
    /// order.try_reserve(1000)?;
    /// assert!(order.try_reserve(usize::MAX).is_err());
    /// # Ok::<(), zorder::ZError>(())
    /// ```
    pub fn try_reserve(&mut self, additional: usize) -> Result<(), ZError> {
        let total = self
            .len()
            .checked_add(additional)
            .ok_or(ZError::CapacityOverflow)?;
        let table = &mut self.core.book.table;
        table
            .try_reserve(total.saturating_sub(table.len()))
            .map_err(|_| ZError::CapacityOverflow)?;
        self.core.reserve(additional);
        Ok(())
    }

    /// Like [`try_reserve`](Self::try_reserve); an allocation failure
    /// aborts, as `Vec::reserve` does.
    ///
    /// ```
    /// use zorder::ZOrder;
    ///
    /// let mut order = ZOrder::<u32>::new(31)?;
    /// order.reserve(1000);
    /// # Ok::<(), zorder::ZError>(())
    /// ```
    pub fn reserve(&mut self, additional: usize) {
        let total = self.len().saturating_add(additional);
        let table = &mut self.core.book.table;
        table.reserve(total.saturating_sub(table.len()));
        self.core.reserve(additional);
    }

    /// Gives back the memory the collection does not need now: spare
    /// blocks and leaves, and the key table beyond the highest key held.
    ///
    /// ```
    /// use zorder::{I16F16, ZOrder};
    ///
    /// let mut order = ZOrder::<u32>::new(31)?;
    /// order.insert(100_000, I16F16::ZERO)?;
    /// order.remove(100_000)?;
    /// order.shrink_to_fit();
    /// # Ok::<(), zorder::ZError>(())
    /// ```
    pub fn shrink_to_fit(&mut self) {
        let table = &mut self.core.book.table;
        while table.last() == Some(&Place::NOWHERE.to_bits()) {
            table.pop();
        }
        table.shrink_to_fit();
        self.decided = Vec::new();
        self.core.shrink_to_fit();
    }

    /// The number of keys.
    ///
    /// ```
    /// use zorder::{I16F16, ZOrder};
    ///
    /// let mut order = ZOrder::<u32>::new(31)?;
    /// order.insert(4, I16F16::ZERO)?;
    /// assert_eq!(order.len(), 1);
    /// # Ok::<(), zorder::ZError>(())
    /// ```
    pub fn len(&self) -> usize {
        self.core.len()
    }

    /// Whether the collection holds no key.
    ///
    /// ```
    /// use zorder::ZOrder;
    ///
    /// assert!(ZOrder::<u32>::new(31)?.is_empty());
    /// # Ok::<(), zorder::ZError>(())
    /// ```
    pub fn is_empty(&self) -> bool {
        self.core.len() == 0
    }

    /// The highest optimized level.
    ///
    /// ```
    /// use zorder::ZOrder;
    ///
    /// assert_eq!(ZOrder::<u32>::new(31)?.max_level(), 31);
    /// # Ok::<(), zorder::ZError>(())
    /// ```
    pub fn max_level(&self) -> u16 {
        self.core.max_level()
    }

    /// The pruning threshold of a collection that takes every Z; `None`
    /// for a simple one, which has no bucket to prune.
    ///
    /// ```
    /// use zorder::ZOrder;
    ///
    /// assert_eq!(ZOrder::<u32>::new(31)?.prune_after(), Some(8));
    /// assert_eq!(ZOrder::<u32>::simple(31)?.prune_after(), None);
    /// # Ok::<(), zorder::ZError>(())
    /// ```
    pub fn prune_after(&self) -> Option<u32> {
        self.core.prune_after()
    }

    /// The buckets of Z values other than the levels and the default Z
    /// that exist now: one per such Z that a key has, plus the emptied ones
    /// that traversals have not pruned yet (see the crate docs on pruning).
    /// After `prune_after + 1` traversals with no change in between, this
    /// is the number of distinct such Z values the keys have. Always 0 for
    /// a simple collection.
    ///
    /// ```
    /// use zorder::{I16F16, ZOrder};
    ///
    /// let mut order = ZOrder::<u32>::new(10)?;
    /// order.insert(1, I16F16::from_num(0.5))?;
    /// order.insert(2, I16F16::from_num(0.5))?;
    /// order.insert(3, I16F16::from_num(3))?; // a level
    /// assert_eq!(order.nonoptimized_buckets(), 1);
    /// # Ok::<(), zorder::ZError>(())
    /// ```
    pub fn nonoptimized_buckets(&self) -> usize {
        self.core.nonoptimized_buckets()
    }

    /// Where `key` is, if the collection holds this very key.
    fn find(&self, key: K) -> Option<Exact> {
        self.core
            .exact(self.core.book.get(key.index()), &Keyed(key))
    }

    /// Whether the collection holds `key` (this very generation of it).
    ///
    /// ```
    /// use zorder::{I16F16, ZOrder};
    ///
    /// let mut order = ZOrder::<u32>::new(31)?;
    /// order.insert(4, I16F16::ZERO)?;
    /// assert!(order.contains(4) && !order.contains(5));
    /// # Ok::<(), zorder::ZError>(())
    /// ```
    pub fn contains(&self, key: K) -> bool {
        self.find(key).is_some()
    }

    /// The Z `key` is filed at, if the collection holds it.
    ///
    /// ```
    /// use zorder::{I16F16, ZOrder};
    ///
    /// let mut order = ZOrder::<u32>::new(31)?;
    /// order.insert(4, I16F16::from_num(-1.5))?;
    /// assert_eq!(order.z(4), Some(I16F16::from_num(-1.5)));
    /// assert_eq!(order.z(5), None);
    /// # Ok::<(), zorder::ZError>(())
    /// ```
    pub fn z(&self, key: K) -> Option<I16F16> {
        self.find(key).map(|at| self.core.z_at(at))
    }

    /// Files `key` at `z`, at the front of that Z. O(1) at a level and at
    /// the default Z, O(log n) at any other Z.
    ///
    /// # Errors
    ///
    /// - [`ZError::AlreadyInCollection`] if the collection holds `key`;
    /// - [`ZError::IndexInUse`] if it holds another key with the same
    ///   index (a stale generation);
    /// - [`ZError::ZOutOfRange`] if a simple collection has no such level;
    /// - [`ZError::CapacityOverflow`] if the key's index is too large to
    ///   make a place for.
    ///
    /// Nothing changes on error.
    ///
    /// ```
    /// use zorder::{I16F16, ZError, ZOrder};
    ///
    /// let mut order = ZOrder::<u32>::new(31)?;
    /// order.insert(4, I16F16::from_num(2))?;
    /// assert_eq!(order.insert(4, I16F16::ZERO), Err(ZError::AlreadyInCollection));
    /// assert_eq!(order.z(4), Some(I16F16::from_num(2)));
    /// # Ok::<(), ZError>(())
    /// ```
    pub fn insert(&mut self, key: K, z: I16F16) -> Result<(), ZError> {
        let index = key.index();
        let place = self.core.book.get(index);
        if place != Place::NOWHERE {
            // Every held key has its place at its index, and no other index
            // has one: some generation of this key is held.
            return Err(if self.core.exact(place, &Keyed(key)).is_some() {
                ZError::AlreadyInCollection
            } else {
                ZError::IndexInUse { index }
            });
        }
        // Growing the key table first changes nothing anyone can observe
        // if the insertion is then refused.
        self.core.book.grow_to(index)?;
        self.core.insert(z, Keyed(key))
    }

    /// Re-files `key` at `z`, at the front of that Z, even when `z` is the
    /// Z it has (the legacy `change`).
    ///
    /// # Errors
    ///
    /// [`ZError::NotInCollection`] if the collection does not hold `key`;
    /// [`ZError::ZOutOfRange`] if a simple collection has no such level.
    /// Nothing changes on error.
    ///
    /// ```
    /// use zorder::{I16F16, ZOrder};
    ///
    /// let mut order = ZOrder::<u32>::new(31)?;
    /// order.insert(1, I16F16::from_num(3))?;
    /// order.insert(2, I16F16::from_num(3))?;
    /// order.set_z(1, I16F16::from_num(3))?; // same Z: 1 comes to the front
    /// assert_eq!(order.back_to_front().collect::<Vec<_>>(), [2, 1]);
    /// # Ok::<(), zorder::ZError>(())
    /// ```
    pub fn set_z(&mut self, key: K, z: I16F16) -> Result<(), ZError> {
        let at = self.find(key).ok_or(ZError::NotInCollection)?;
        self.core.refile(at, z)
    }

    /// Re-files `key` at the Z it has: it comes to the front of that Z.
    ///
    /// # Errors
    ///
    /// [`ZError::NotInCollection`] if the collection does not hold `key`.
    ///
    /// ```
    /// use zorder::{I16F16, ZOrder};
    ///
    /// let mut order = ZOrder::<u32>::new(31)?;
    /// order.insert(1, I16F16::from_num(0.5))?;
    /// order.insert(2, I16F16::from_num(0.5))?;
    /// order.refile(1)?;
    /// assert_eq!(order.front_to_back().collect::<Vec<_>>(), [1, 2]);
    /// # Ok::<(), zorder::ZError>(())
    /// ```
    pub fn refile(&mut self, key: K) -> Result<(), ZError> {
        let at = self.find(key).ok_or(ZError::NotInCollection)?;
        let z = self.core.z_at(at);
        self.core.refile(at, z)
    }

    /// Removes `key` and returns the Z it had.
    ///
    /// # Errors
    ///
    /// [`ZError::NotInCollection`] if the collection does not hold `key`.
    ///
    /// ```
    /// use zorder::{I16F16, ZError, ZOrder};
    ///
    /// let mut order = ZOrder::<u32>::new(31)?;
    /// order.insert(1, I16F16::from_num(7))?;
    /// assert_eq!(order.remove(1), Ok(I16F16::from_num(7)));
    /// assert_eq!(order.remove(1), Err(ZError::NotInCollection));
    /// # Ok::<(), ZError>(())
    /// ```
    pub fn remove(&mut self, key: K) -> Result<I16F16, ZError> {
        let index = key.index();
        let at = self
            .core
            .exact(self.core.book.get(index), &Keyed(key))
            .ok_or(ZError::NotInCollection)?;
        let (_, z) = self.core.remove(at);
        self.core.book.forget(index);
        Ok(z)
    }

    /// Removes every key, and every bucket of a non-optimized Z.
    ///
    /// ```
    /// use zorder::{I16F16, ZOrder};
    ///
    /// let mut order = ZOrder::<u32>::new(31)?;
    /// order.insert(1, I16F16::from_num(0.5))?;
    /// order.clear();
    /// assert!(order.is_empty() && !order.contains(1));
    /// assert_eq!(order.nonoptimized_buckets(), 0);
    /// # Ok::<(), zorder::ZError>(())
    /// ```
    pub fn clear(&mut self) {
        drop(self.drain());
    }

    /// Walks the keys back to front: ascending Z, and at equal Z in the
    /// order of their last Z-action. The drawing order.
    ///
    /// Each call counts as a traversal for pruning (see the crate docs),
    /// however far the walk goes; so does [`front_to_back`](Self::front_to_back)
    /// and [`iter`](Self::iter).
    ///
    /// ```
    /// use zorder::{I16F16, ZOrder};
    ///
    /// let mut order = ZOrder::<u32>::new(31)?;
    /// for (key, z) in [(10, 2.0), (11, -1.0), (12, 2.0)] {
    ///     order.insert(key, I16F16::from_num(z))?;
    /// }
    /// assert_eq!(order.back_to_front().collect::<Vec<_>>(), [11, 10, 12]);
    /// assert_eq!(order.back_to_front().len(), 3);
    /// # Ok::<(), zorder::ZError>(())
    /// ```
    pub fn back_to_front(&self) -> Keys<'_, K> {
        self.core.ledger.tick();
        Keys(self.quiet_iter())
    }

    /// Walks the keys front to back: the exact reverse of
    /// [`back_to_front`](Self::back_to_front). The order for touch
    /// dispatch.
    ///
    /// ```
    /// use zorder::{I16F16, ZOrder};
    ///
    /// let mut order = ZOrder::<u32>::new(31)?;
    /// order.insert(1, I16F16::from_num(1))?;
    /// order.insert(2, I16F16::from_num(2))?;
    /// assert_eq!(order.front_to_back().collect::<Vec<_>>(), [2, 1]);
    /// # Ok::<(), zorder::ZError>(())
    /// ```
    pub fn front_to_back(&self) -> Rev<Keys<'_, K>> {
        self.back_to_front().rev()
    }

    /// Walks the keys back to front with the Z each is filed at.
    ///
    /// ```
    /// use zorder::{I16F16, ZOrder};
    ///
    /// let mut order = ZOrder::<u32>::new(31)?;
    /// order.insert(1, I16F16::from_num(1.5))?;
    /// let pairs: Vec<_> = order.iter().collect();
    /// assert_eq!(pairs, [(1, I16F16::from_num(1.5))]);
    /// # Ok::<(), zorder::ZError>(())
    /// ```
    pub fn iter(&self) -> Iter<'_, K> {
        self.core.ledger.tick();
        self.quiet_iter()
    }

    /// A walk that does not count as a traversal.
    pub(crate) fn quiet_iter(&self) -> Iter<'_, K> {
        Iter(Walk::new(
            &self.core.buckets,
            &self.core.tree,
            self.core.max_level(),
            self.core.len(),
        ))
    }

    /// Visits the keys back to front, and lets `visit` keep, remove or
    /// re-file each, or stop the walk. See [`update_front_to_back`](Self::update_front_to_back).
    ///
    /// ```
    /// use zorder::{I16F16, KeyVisit, ZOrder};
    ///
    /// let mut order = ZOrder::<u32>::new(31)?;
    /// for key in 0..4 {
    ///     order.insert(key, I16F16::from_num(key))?;
    /// }
    /// let done = order.update_back_to_front(|key, z| match key {
    ///     0 => KeyVisit::Remove,
    ///     1 => KeyVisit::SetZ(z + I16F16::from_num(10)),
    ///     _ => KeyVisit::Keep,
    /// });
    /// assert_eq!((done.removed, done.changed), (1, 1));
    /// assert_eq!(order.back_to_front().collect::<Vec<_>>(), [2, 3, 1]);
    /// # Ok::<(), zorder::ZError>(())
    /// ```
    pub fn update_back_to_front(&mut self, visit: impl FnMut(K, I16F16) -> KeyVisit) -> Updated {
        let mut decided = core::mem::take(&mut self.decided);
        let walk = self.quiet_iter();
        let visited = decide(walk, &mut decided, visit);
        let updated = self.apply(visited, &mut decided);
        self.decided = decided;
        updated
    }

    /// Visits the keys front to back, and lets `visit` keep, remove or
    /// re-file each, or stop the walk: touch dispatch stops at the first
    /// key hit.
    ///
    /// The walk visits each key once and costs only the keys it visits
    /// (it can stop early). The decisions take effect when the walk ends,
    /// in visiting order, so the result equals calling
    /// [`remove`](Self::remove), [`set_z`](Self::set_z) and
    /// [`refile`](Self::refile) in that order; a key re-filed ahead of the
    /// walk is not visited again. If `visit` panics, nothing has changed.
    /// The walk does not count as a traversal for pruning.
    ///
    /// ```
    /// use zorder::{I16F16, KeyVisit, ZOrder};
    ///
    /// let mut order = ZOrder::<u32>::new(31)?;
    /// for key in 0..3 {
    ///     order.insert(key, I16F16::from_num(1))?;
    /// }
    /// // Keys 0 and 1 are under the finger: 1 is on top, takes the touch
    /// // and comes to the front of its Z.
    /// order.update_front_to_back(|key, _| {
    ///     if key <= 1 { KeyVisit::RefileAndStop } else { KeyVisit::Keep }
    /// });
    /// assert_eq!(order.front_to_back().collect::<Vec<_>>(), [1, 2, 0]);
    /// # Ok::<(), zorder::ZError>(())
    /// ```
    pub fn update_front_to_back(&mut self, visit: impl FnMut(K, I16F16) -> KeyVisit) -> Updated {
        let mut decided = core::mem::take(&mut self.decided);
        let walk = self.quiet_iter().rev();
        let visited = decide(walk, &mut decided, visit);
        let updated = self.apply(visited, &mut decided);
        self.decided = decided;
        updated
    }

    /// Applies the decisions of an in-walk update, in order.
    fn apply(&mut self, visited: usize, decided: &mut Vec<(K, KeyVisit)>) -> Updated {
        let mut updated = Updated {
            visited,
            ..Updated::default()
        };
        for (key, visit) in decided.drain(..) {
            let outcome = match visit {
                KeyVisit::Remove | KeyVisit::RemoveAndStop => {
                    if self.remove(key).is_ok() {
                        updated.removed += 1;
                    }
                    continue;
                }
                KeyVisit::Refile | KeyVisit::RefileAndStop => self.refile(key),
                KeyVisit::SetZ(z) | KeyVisit::SetZAndStop(z) => self.set_z(key, z),
                KeyVisit::Keep | KeyVisit::Stop => continue,
            };
            match outcome {
                Ok(()) => updated.changed += 1,
                Err(_) => updated.refused += 1,
            }
        }
        updated
    }

    /// Keeps only the keys for which `keep` returns `true`, visiting back
    /// to front.
    ///
    /// ```
    /// use zorder::{I16F16, ZOrder};
    ///
    /// let mut order = ZOrder::<u32>::new(31)?;
    /// for key in 0..6 {
    ///     order.insert(key, I16F16::from_num(key % 3))?;
    /// }
    /// order.retain(|_, z| z != 1);
    /// assert_eq!(order.back_to_front().collect::<Vec<_>>(), [0, 3, 2, 5]);
    /// # Ok::<(), zorder::ZError>(())
    /// ```
    pub fn retain(&mut self, mut keep: impl FnMut(K, I16F16) -> bool) {
        let _ = self.update_back_to_front(|key, z| {
            if keep(key, z) {
                KeyVisit::Keep
            } else {
                KeyVisit::Remove
            }
        });
    }

    /// Removes every key and yields each with its Z, back to front (so
    /// inserting them elsewhere in that order keeps the order, ties
    /// included). The keys are gone when the call returns, even if the
    /// iterator is dropped before the end.
    ///
    /// ```
    /// use zorder::{I16F16, ZOrder};
    ///
    /// let mut level1 = ZOrder::<u32>::new(31)?;
    /// level1.insert(1, I16F16::from_num(2))?;
    /// level1.insert(2, I16F16::from_num(2))?;
    /// let mut level2 = ZOrder::<u32>::new(31)?;
    /// level2.extend(level1.drain());
    /// assert!(level1.is_empty());
    /// assert_eq!(level2.back_to_front().collect::<Vec<_>>(), [1, 2]);
    /// # Ok::<(), zorder::ZError>(())
    /// ```
    pub fn drain(&mut self) -> Drain<'_, K> {
        let detached = self.core.detach();
        for &Keyed(key) in detached.entries() {
            self.core.book.forget(key.index());
        }
        Drain(detached, PhantomData)
    }

    /// Checks every internal invariant; panics on a broken one. For the
    /// crate's own tests and fuzzing.
    #[doc(hidden)]
    pub fn check_invariants(&self) {
        for (&Keyed(key), place) in self.core.check() {
            assert!(
                place.same_node(self.core.book.get(key.index())),
                "the key table knows each key's block and slot, or leaf"
            );
        }
        let held = self
            .core
            .book
            .table
            .iter()
            .filter(|&&bits| bits != Place::NOWHERE.to_bits())
            .count();
        assert_eq!(held, self.len(), "no stale place is left in the key table");
    }
}

/// Runs `visit` along `walk`, recording each decision other than `Keep`;
/// returns how many entries it visited.
fn decide<K: ZKey>(
    walk: impl Iterator<Item = (K, I16F16)>,
    decided: &mut Vec<(K, KeyVisit)>,
    mut visit: impl FnMut(K, I16F16) -> KeyVisit,
) -> usize {
    decided.clear();
    let mut visited = 0;
    for (key, z) in walk {
        visited += 1;
        let decision = visit(key, z);
        if decision != KeyVisit::Keep {
            decided.push((key, decision));
        }
        if matches!(
            decision,
            KeyVisit::Stop
                | KeyVisit::RemoveAndStop
                | KeyVisit::RefileAndStop
                | KeyVisit::SetZAndStop(_)
        ) {
            break;
        }
    }
    visited
}

impl<K: ZKey + fmt::Debug> fmt::Debug for ZOrder<K> {
    /// The layout, and the keys with their Z back to front. Printing does
    /// not count as a traversal.
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_struct("ZOrder")
            .field("max_level", &self.max_level())
            .field("prune_after", &self.prune_after())
            .field("len", &self.len())
            .field("nonoptimized_buckets", &self.nonoptimized_buckets())
            .field("back_to_front", &DebugMap(self.quiet_iter()))
            .finish()
    }
}

struct DebugMap<'a, K: ZKey>(Iter<'a, K>);

impl<K: ZKey + fmt::Debug> fmt::Debug for DebugMap<'_, K> {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_map().entries(self.0.clone()).finish()
    }
}

impl<K: ZKey> Extend<(K, I16F16)> for ZOrder<K> {
    /// Inserts each key at its Z, or re-files a key the collection holds at
    /// the new Z, as `HashMap::extend` overwrites. A pair the collection
    /// refuses (a Z a simple layout has no level for, an index another key
    /// holds) is skipped; insert one by one to see the errors.
    fn extend<I: IntoIterator<Item = (K, I16F16)>>(&mut self, pairs: I) {
        for (key, z) in pairs {
            let _ = match self.find(key) {
                Some(at) => self.core.refile(at, z),
                None => self.insert(key, z),
            };
        }
    }
}

impl<'a, K: ZKey> IntoIterator for &'a ZOrder<K> {
    type Item = (K, I16F16);
    type IntoIter = Iter<'a, K>;

    /// Back to front, with the Z of each key, like [`ZOrder::iter`].
    fn into_iter(self) -> Iter<'a, K> {
        self.iter()
    }
}

impl<K: ZKey> IntoIterator for ZOrder<K> {
    type Item = (K, I16F16);
    type IntoIter = IntoIter<K>;

    /// Every key with its Z, back to front.
    fn into_iter(mut self) -> IntoIter<K> {
        IntoIter(self.core.detach())
    }
}

/// The keys of a [`ZOrder`], back to front (`next_back` walks front to
/// back). Created by [`ZOrder::back_to_front`]; [`ZOrder::front_to_back`]
/// is its reverse. Double-ended, exact-size, fused and cheap to clone;
/// any number of walks of one collection may be alive at once.
///
/// ```
/// use zorder::{I16F16, ZOrder};
///
/// let mut order = ZOrder::<u32>::new(10)?;
/// for key in 0..4 {
///     order.insert(key, I16F16::from_num(4 - key))?;
/// }
/// let mut keys = order.back_to_front();
/// assert_eq!((keys.next(), keys.next_back(), keys.len()), (Some(3), Some(0), 2));
/// let rest = keys.clone();
/// assert_eq!(keys.collect::<Vec<_>>(), rest.collect::<Vec<_>>());
/// # Ok::<(), zorder::ZError>(())
/// ```
pub struct Keys<'a, K: ZKey>(Iter<'a, K>);

impl<K: ZKey> Iterator for Keys<'_, K> {
    type Item = K;

    #[inline]
    fn next(&mut self) -> Option<K> {
        self.0.0.next_up::<false>().map(|(&Keyed(key), _)| key)
    }

    #[inline]
    fn size_hint(&self) -> (usize, Option<usize>) {
        self.0.size_hint()
    }

    /// Internal iteration (`for_each`, `sum`, `collect` into most
    /// collections): a tight loop over each block and leaf run.
    #[inline]
    fn fold<B, F: FnMut(B, K) -> B>(self, init: B, mut f: F) -> B {
        self.0
            .0
            .fold_up::<false, B>(init, |acc, &Keyed(key), _| f(acc, key))
    }
}

impl<K: ZKey> DoubleEndedIterator for Keys<'_, K> {
    #[inline]
    fn next_back(&mut self) -> Option<K> {
        self.0.0.next_down::<false>().map(|(&Keyed(key), _)| key)
    }

    #[inline]
    fn rfold<B, F: FnMut(B, K) -> B>(self, init: B, mut f: F) -> B {
        self.0
            .0
            .fold_down::<false, B>(init, |acc, &Keyed(key), _| f(acc, key))
    }
}

impl<K: ZKey> ExactSizeIterator for Keys<'_, K> {}
impl<K: ZKey> FusedIterator for Keys<'_, K> {}

impl<K: ZKey> Clone for Keys<'_, K> {
    fn clone(&self) -> Self {
        Keys(self.0.clone())
    }
}

impl<K: ZKey> fmt::Debug for Keys<'_, K> {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_struct("Keys")
            .field("remaining", &self.len())
            .finish()
    }
}

/// The keys of a [`ZOrder`] with their Z, back to front. Created by
/// [`ZOrder::iter`]; double-ended, exact-size, fused and cheap to clone.
///
/// ```
/// use zorder::{I16F16, ZOrder};
///
/// let mut order = ZOrder::<u32>::new(10)?;
/// order.insert(7, I16F16::from_num(-2.5))?;
/// order.insert(8, I16F16::from_num(3))?;
/// assert_eq!(order.iter().next_back(), Some((8, I16F16::from_num(3))));
/// # Ok::<(), zorder::ZError>(())
/// ```
pub struct Iter<'a, K: ZKey>(Walk<'a, Keyed<K>>);

impl<K: ZKey> Iterator for Iter<'_, K> {
    type Item = (K, I16F16);

    #[inline]
    fn next(&mut self) -> Option<(K, I16F16)> {
        self.0.next_up::<true>().map(|(&Keyed(key), z)| (key, z))
    }

    #[inline]
    fn size_hint(&self) -> (usize, Option<usize>) {
        (self.0.remaining(), Some(self.0.remaining()))
    }

    /// Internal iteration: a tight loop over each block and leaf run.
    #[inline]
    fn fold<B, F: FnMut(B, (K, I16F16)) -> B>(self, init: B, mut f: F) -> B {
        self.0
            .fold_up::<true, B>(init, |acc, &Keyed(key), z| f(acc, (key, z)))
    }
}

impl<K: ZKey> DoubleEndedIterator for Iter<'_, K> {
    #[inline]
    fn next_back(&mut self) -> Option<(K, I16F16)> {
        self.0.next_down::<true>().map(|(&Keyed(key), z)| (key, z))
    }

    #[inline]
    fn rfold<B, F: FnMut(B, (K, I16F16)) -> B>(self, init: B, mut f: F) -> B {
        self.0
            .fold_down::<true, B>(init, |acc, &Keyed(key), z| f(acc, (key, z)))
    }
}

impl<K: ZKey> ExactSizeIterator for Iter<'_, K> {}
impl<K: ZKey> FusedIterator for Iter<'_, K> {}

impl<K: ZKey> Clone for Iter<'_, K> {
    fn clone(&self) -> Self {
        Iter(self.0)
    }
}

impl<K: ZKey> fmt::Debug for Iter<'_, K> {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_struct("Iter")
            .field("remaining", &self.len())
            .finish()
    }
}

/// The keys taken out of a [`ZOrder`] with their Z, back to front. Created
/// by [`ZOrder::drain`]; the collection is empty as soon as it exists.
///
/// ```
/// use zorder::{I16F16, ZOrder};
///
/// let mut order = ZOrder::<u32>::new(10)?;
/// order.insert(1, I16F16::from_num(2))?;
/// let drain = order.drain();
/// assert_eq!(drain.len(), 1);
/// drop(drain);
/// assert!(order.is_empty());
/// # Ok::<(), zorder::ZError>(())
/// ```
pub struct Drain<'a, K: ZKey>(Detached<Keyed<K>>, PhantomData<&'a mut ZOrder<K>>);

impl<K: ZKey> Iterator for Drain<'_, K> {
    type Item = (K, I16F16);

    fn next(&mut self) -> Option<(K, I16F16)> {
        self.0.next().map(|(Keyed(key), z)| (key, z))
    }

    fn size_hint(&self) -> (usize, Option<usize>) {
        self.0.size_hint()
    }
}

impl<K: ZKey> ExactSizeIterator for Drain<'_, K> {}
impl<K: ZKey> FusedIterator for Drain<'_, K> {}

impl<K: ZKey> fmt::Debug for Drain<'_, K> {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_struct("Drain")
            .field("remaining", &self.len())
            .finish()
    }
}

/// Every key of a [`ZOrder`] with its Z, back to front, by value.
///
/// ```
/// use zorder::{I16F16, ZOrder};
///
/// let mut order = ZOrder::<u32>::new(10)?;
/// order.insert(1, I16F16::from_num(2))?;
/// let pairs: Vec<_> = order.into_iter().collect();
/// assert_eq!(pairs, [(1, I16F16::from_num(2))]);
/// # Ok::<(), zorder::ZError>(())
/// ```
pub struct IntoIter<K: ZKey>(Detached<Keyed<K>>);

impl<K: ZKey> Iterator for IntoIter<K> {
    type Item = (K, I16F16);

    fn next(&mut self) -> Option<(K, I16F16)> {
        self.0.next().map(|(Keyed(key), z)| (key, z))
    }

    fn size_hint(&self) -> (usize, Option<usize>) {
        self.0.size_hint()
    }
}

impl<K: ZKey> ExactSizeIterator for IntoIter<K> {}
impl<K: ZKey> FusedIterator for IntoIter<K> {}

impl<K: ZKey> fmt::Debug for IntoIter<K> {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_struct("IntoIter")
            .field("remaining", &self.len())
            .finish()
    }
}
