//! The keyed face, [`ZOrder`]: the ordering contract as an index over the
//! keys of a game's own storage; its key trait, key table and iterators.

mod integrations;
mod iter;
#[cfg(feature = "serde")]
mod serde;
mod table;

use alloc::vec::Vec;
use core::fmt;
use core::iter::Rev;
use core::marker::PhantomData;
use core::ops::{ControlFlow, RangeBounds};

#[cfg(feature = "slotmap")]
#[doc(hidden)]
pub use self::integrations::slotmap_index as __slotmap_index;
pub use self::iter::{BackToFront, Drain, IntoIter, Iter, Range};
use self::table::KeyTable;
use crate::engine::entry::{Book, Entry};
use crate::engine::place::Place;
use crate::engine::{At, Core, Step};
use crate::error::ZError;
use crate::layout::{FixedPoint, Layout, Simple};
use crate::visit::{KeyVisit, Updated};
use crate::z::{DEFAULT_PRUNE_AFTER, I16F16, MAX_LEVEL};

/// A key of the game's own storage: an index into a `Vec` or a slab, a
/// `slotmap` key, an ECS entity.
///
/// Two keys with the same [`index`](ZKey::index) are the same slot of the
/// storage at different times (generations): a [`ZOrder`] holds at most
/// one of them, and answers a stale one (same index, other generation) as
/// a key it does not hold, never with another key's entry. `Eq` tells the
/// generations apart.
///
/// Indices may be anything: a `ZOrder` keeps the places of small dense
/// indices (as storage hands out) in an array of chunks, far indices in
/// runs or sharing a few chunks (a generation or a tag in the high bits,
/// filed in any order) in chunks found by their numbers, and scattered
/// far indices in a hash map of their own, so memory follows the keys
/// held, not their indices.
///
/// Implemented for `u32`, `u64` and `usize` (plain indices), and, behind
/// the features of the same names, for `bevy_ecs`'s `Entity` and
/// `slotmap`'s keys (with `slotmap_key!` for keys of `new_key_type!`). A
/// generational key of your own implements it like this:
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
/// assert_eq!(order.z_of(reused), None); // a stale key finds nothing
/// assert_eq!(order.remove(reused), Err(ZError::NotInCollection));
/// assert_eq!(order.insert(reused, I16F16::ZERO), Err(ZError::IndexInUse { index: 3 }));
/// assert_eq!(order.replace(reused, I16F16::ZERO)?, Some((old, I16F16::from_num(2))));
/// # Ok::<(), ZError>(())
/// ```
///
/// If `index` or `Eq` are inconsistent (the same key reporting different
/// indices, say), the collection's answers are unspecified, but it never
/// panics and never causes undefined behaviour.
///
/// `index` and `Eq` must not panic. They run inside operations, for the
/// key operated on and for the keys an operation moves to another leaf, so
/// a panic can stop an operation halfway: the collection is then left in
/// an unspecified state, in which later calls may give wrong answers or
/// panic, though never cause undefined behaviour (the crate has no
/// `unsafe` code). This is the rule `HashMap` has for a panicking `Hash`.
#[diagnostic::on_unimplemented(
    message = "`{Self}` is not a key of a `ZOrder`: it does not implement `ZKey`",
    label = "not a `ZKey`",
    note = "implement `zorder::ZKey` for it (its storage index; `Eq` tells generations apart), or use `u32`, `u64`, `usize`, or enable the `bevy_ecs` or `slotmap` feature for their keys"
)]
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
    /// The value (on 32-bit targets, its two halves folded together: keys
    /// that fold to the same index are then generations of one another).
    fn index(&self) -> usize {
        fold(*self)
    }
}

impl ZKey for usize {
    fn index(&self) -> usize {
        *self
    }
}

/// A 64-bit index as a `usize`: itself, or on narrower targets its halves
/// folded together.
#[inline]
pub(crate) fn fold(value: u64) -> usize {
    usize::try_from(value).unwrap_or((value ^ (value >> 32)) as usize)
}

/// A key as the core files it. (A wrapper, since a blanket implementation
/// over every `ZKey` would overlap the one for `Rc` handles.)
#[derive(Clone, Copy, PartialEq, Eq, Debug)]
pub(crate) struct Keyed<K>(pub(crate) K);

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
    fn peek(slot: &Keyed<K>) -> Option<&Keyed<K>> {
        Some(slot)
    }

    #[inline]
    fn same(&self, other: &Keyed<K>) -> bool {
        self.0 == other.0
    }

    #[inline]
    fn shares_place(&self, other: &Keyed<K>) -> bool {
        self.0.index() == other.0.index()
    }

    #[inline]
    fn shift_up(slots: &mut [Keyed<K>], by: usize) {
        let len = slots.len();
        slots.copy_within(..len - by, by);
    }

    #[inline]
    fn shift_down(slots: &mut [Keyed<K>], by: usize) {
        slots.copy_within(by.., 0);
    }
}

impl<K: ZKey> Book<Keyed<K>> for KeyTable {
    #[inline]
    fn set(&mut self, key: &Keyed<K>, place: Place) {
        if place == Place::NOWHERE {
            self.forget(key.0.index());
        } else {
            KeyTable::set(self, key.0.index(), place);
        }
    }

    #[inline(always)]
    fn moved(&mut self, key: &Keyed<K>, place: Place) {
        KeyTable::moved(self, key.0.index(), place);
    }

    #[inline]
    fn get(&self, key: &Keyed<K>) -> Place {
        KeyTable::get(self, key.0.index())
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
/// The layout `L` is [`FixedPoint`] by default: every `I16F16` is a Z, O(1)
/// at the levels `0..=max_level` and at [`DEFAULT_Z`](crate::DEFAULT_Z),
/// O(log n) elsewhere ([`ZOrder::new`]). With [`Simple`] only the levels
/// are, every operation is O(1), and any other Z is refused with
/// [`ZError::ZOutOfRange`] ([`ZOrder::simple`], a `ZOrder<K, Simple>`).
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
///
/// Many changes a frame (an ECS system fed by a `Changed<Z>` query, a
/// crowd that walks) go in one batch, [`extend`](Extend::extend) or
/// [`apply`](Self::apply), which sorts the changes to other Z values
/// than the levels once (a radix sort) and merges them into the tree
/// leaves they touch, rather than one tree descent each, and rebuilds the
/// level chain in one pass when a quarter of it changes.
pub struct ZOrder<K: ZKey, L: Layout = FixedPoint> {
    core: Core<Keyed<K>, KeyTable>,
    /// The decisions of an in-walk update, kept between calls so a
    /// per-frame update does not allocate.
    decided: Vec<(Keyed<K>, KeyVisit)>,
    layout: PhantomData<L>,
}

/// What a batch ([`ZOrder::apply`], [`RcZCollection::change_all`](crate::RcZCollection::change_all))
/// did, step by step as the steps one by one would have done.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq, Hash)]
#[non_exhaustive]
#[must_use]
pub struct Applied {
    /// Entries filed that the collection did not hold.
    pub inserted: usize,
    /// Entries the collection held, re-filed.
    pub moved: usize,
    /// Entries removed.
    pub removed: usize,
    /// Steps refused (a Z a simple layout has no level for; a key whose
    /// index another generation holds; an object in another collection):
    /// they changed nothing.
    pub refused: usize,
}

impl<K: ZKey> ZOrder<K, FixedPoint> {
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
    /// non-optimized Z values are pruned once `prune_after` counting
    /// traversals in a row have found them empty.
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
        Self::build(max_level, prune_after)
    }

    /// An empty collection taking every Z, like [`new`](Self::new), with
    /// room for `capacity` keys of indices below `capacity` (a slab's)
    /// without allocating more than a leaf at a time (see
    /// [`try_reserve`](Self::try_reserve)).
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

    /// An empty collection of the [`Simple`] layout, `ZOrder<K, Simple>`,
    /// taking only the levels `0..=max_level` as a Z: every operation
    /// O(1), any other Z refused with [`ZError::ZOutOfRange`]. (It is
    /// found on the default layout's type, so `ZOrder::<K>::simple` works
    /// as `ZOrder::<K>::new` does.)
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
    pub fn simple(max_level: u16) -> Result<ZOrder<K, Simple>, ZError> {
        ZOrder::build(max_level, DEFAULT_PRUNE_AFTER)
    }

    /// The pruning threshold: how many counting traversals in a row find a
    /// bucket of a non-optimized Z empty before the next prunes it.
    ///
    /// ```
    /// use zorder::ZOrder;
    ///
    /// assert_eq!(ZOrder::<u32>::new(31)?.prune_after(), ZOrder::<u32>::DEFAULT_PRUNE_AFTER);
    /// assert_eq!(ZOrder::<u32>::with_prune_after(31, 2)?.prune_after(), 2);
    /// # Ok::<(), zorder::ZError>(())
    /// ```
    pub fn prune_after(&self) -> u32 {
        self.core.prune_after().unwrap_or(DEFAULT_PRUNE_AFTER)
    }
}

impl<K: ZKey, L: Layout> ZOrder<K, L> {
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

    /// The pruning threshold of [`ZOrder::new`]. A game traverses twice a
    /// frame (draw, then touch), so 8 is about four frames.
    ///
    /// ```
    /// use zorder::ZOrder;
    ///
    /// assert_eq!(ZOrder::<u32>::DEFAULT_PRUNE_AFTER, 8);
    /// ```
    pub const DEFAULT_PRUNE_AFTER: u32 = DEFAULT_PRUNE_AFTER;

    /// The `max_level` of [`Default::default`] and
    /// [`FromIterator::from_iter`]: levels `0..=255` are O(1).
    ///
    /// ```
    /// use zorder::ZOrder;
    ///
    /// let order = ZOrder::<u32>::default();
    /// assert_eq!(order.max_level(), ZOrder::<u32>::DEFAULT_MAX_LEVEL);
    /// assert_eq!(ZOrder::<u32>::DEFAULT_MAX_LEVEL, 255);
    /// ```
    pub const DEFAULT_MAX_LEVEL: u16 = 255;

    /// An empty collection of this layout (`prune_after` for a fixed-point
    /// one).
    fn build(max_level: u16, prune_after: u32) -> Result<Self, ZError> {
        let prune_after = L::EVERY_Z.then_some(prune_after);
        Ok(ZOrder {
            core: Core::new(max_level, prune_after, KeyTable::default())?,
            decided: Vec::new(),
            layout: PhantomData,
        })
    }

    /// Makes room for `additional` more keys, of indices up to
    /// `len() + additional` (a slab's), so that growing to that many keys
    /// allocates nothing but a leaf at a time, and removals among them
    /// reallocate nothing: the key table's chunks for those indices, the
    /// directories of the leaves and the lists of freed ones, and the
    /// records of buckets they could leave waiting. Keys of other indices
    /// (the bits of an entity or a slotmap key, say) find the key table's
    /// maps sized for that many keys too: each of them allocates at most
    /// a chunk of a map, never a larger table.
    ///
    /// # Errors
    ///
    /// [`ZError::CapacityOverflow`] if `len() + additional` is more keys
    /// than a collection can hold (about 2^30), or if the memory cannot be
    /// had; the collection is unchanged but for what it reserved.
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
        self.core.try_reserve(additional)?;
        let total = self.len() + additional;
        self.core
            .book_mut()
            .try_reserve(total)
            .map_err(|_| ZError::CapacityOverflow)
    }

    /// Like [`try_reserve`](Self::try_reserve), as far as it can: a
    /// reservation it cannot make (more keys than a collection holds, more
    /// memory than there is) is made as far as it goes, and the collection
    /// grows as it needs later. It never panics.
    ///
    /// ```
    /// use zorder::ZOrder;
    ///
    /// let mut order = ZOrder::<u32>::new(31)?;
    /// order.reserve(1000);
    /// # Ok::<(), zorder::ZError>(())
    /// ```
    pub fn reserve(&mut self, additional: usize) {
        let room = crate::engine::place::MAX_ENTRIES.saturating_sub(self.len());
        let _ = self.try_reserve(additional.min(room));
    }

    /// Gives back the memory the collection does not need now: it
    /// rewrites its blocks and leaves, in order, into as few full ones as
    /// hold its keys, and drops the key table's unused chunks, the records
    /// of pruned buckets, spare nodes and unused capacity. Afterwards it
    /// holds what a new collection of the same keys in the same order
    /// holds once shrunk, however much they moved about before; and since
    /// churn leaves blocks partly empty, a walk after it reads fewer blocks
    /// (the README gives the figures).
    ///
    /// It is O(n), as `Vec::shrink_to_fit` is (it copies the whole
    /// collection into new nodes): call it at a moment the game chooses,
    /// such as a loading screen, not in every frame.
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
        self.core.book_mut().shrink_to_fit();
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

    /// The buckets of Z values other than the levels and the default Z
    /// that exist now: one per such Z that a key has, plus the emptied ones
    /// that traversals have not pruned yet (see the crate docs on pruning).
    /// After `prune_after + 1` counting traversals with no change in
    /// between, this is the number of distinct such Z values the keys have.
    /// Always 0 for a simple collection.
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
    #[inline]
    fn locate(&self, key: K) -> Option<At> {
        self.core.locate(&Keyed(key))
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
        self.locate(key).is_some()
    }

    /// The Z `key` is filed at, if the collection holds it.
    ///
    /// ```
    /// use zorder::{I16F16, ZOrder};
    ///
    /// let mut order = ZOrder::<u32>::new(31)?;
    /// order.insert(4, I16F16::from_num(-1.5))?;
    /// assert_eq!(order.z_of(4), Some(I16F16::from_num(-1.5)));
    /// assert_eq!(order.z_of(5), None);
    /// # Ok::<(), zorder::ZError>(())
    /// ```
    pub fn z_of(&self, key: K) -> Option<I16F16> {
        self.locate(key).map(|at| self.core.z_at(at))
    }

    /// Files `key` at `z`, at the front of that Z: the legacy `add`, strict.
    /// O(1) at a level and at the default Z, O(log n) at any other Z.
    ///
    /// # Errors
    ///
    /// - [`ZError::AlreadyInCollection`] if the collection holds `key`
    ///   ([`insert_or_set_z`](Self::insert_or_set_z) moves it instead);
    /// - [`ZError::IndexInUse`] if it holds another key with the same
    ///   index, a stale generation ([`replace`](Self::replace) replaces
    ///   it instead);
    /// - [`ZError::ZOutOfRange`] if a simple collection has no such level;
    /// - [`ZError::CapacityOverflow`] past 2^28 keys at levels, or at
    ///   other Z values.
    ///
    /// Nothing changes on error.
    ///
    /// ```
    /// use zorder::{I16F16, ZError, ZOrder};
    ///
    /// let mut order = ZOrder::<u32>::new(31)?;
    /// order.insert(4, I16F16::from_num(2))?;
    /// assert_eq!(order.insert(4, I16F16::ZERO), Err(ZError::AlreadyInCollection));
    /// assert_eq!(order.z_of(4), Some(I16F16::from_num(2)));
    /// # Ok::<(), ZError>(())
    /// ```
    pub fn insert(&mut self, key: K, z: I16F16) -> Result<(), ZError> {
        let index = key.index();
        let place = self.core.book().get(index);
        if place != Place::NOWHERE {
            // Every held key has its place at its index, and no other index
            // has one: some generation of this key is held.
            return Err(if self.locate(key).is_some() {
                ZError::AlreadyInCollection
            } else {
                ZError::IndexInUse { index }
            });
        }
        self.core.file(z, Keyed(key))
    }

    /// Re-files `key` at `z`, at the front of that Z, even when `z` is the
    /// Z it has: the legacy `change`, which brings a key forward within its
    /// layer. ([`set_z_if_changed`](Self::set_z_if_changed) leaves a key
    /// whose Z is `z` where it is.)
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
        let at = self.locate(key).ok_or(ZError::NotInCollection)?;
        self.core.refile(at, z)
    }

    /// Moves `key` to `z` if its Z is not `z` already, and says whether it
    /// moved: what an ECS change-detection system wants when it may fire
    /// with the Z unchanged, since a key that stays keeps its place among
    /// its ties (unlike [`set_z`](Self::set_z), the legacy re-file).
    ///
    /// # Errors
    ///
    /// As [`set_z`](Self::set_z); nothing changes on error.
    ///
    /// ```
    /// use zorder::{I16F16, ZOrder};
    ///
    /// let mut order = ZOrder::<u32>::new(31)?;
    /// order.insert(1, I16F16::from_num(3))?;
    /// order.insert(2, I16F16::from_num(3))?;
    /// assert!(!order.set_z_if_changed(1, I16F16::from_num(3))?);
    /// assert_eq!(order.back_to_front().collect::<Vec<_>>(), [1, 2]); // unchanged
    /// assert!(order.set_z_if_changed(1, I16F16::from_num(4))?);
    /// # Ok::<(), zorder::ZError>(())
    /// ```
    pub fn set_z_if_changed(&mut self, key: K, z: I16F16) -> Result<bool, ZError> {
        let at = self.locate(key).ok_or(ZError::NotInCollection)?;
        if self.core.z_at(at) == z {
            return Ok(false);
        }
        self.core.refile(at, z).map(|()| true)
    }

    /// Files `key` at `z` if the collection does not hold it, or re-files
    /// it there (even at the Z it has, as [`set_z`](Self::set_z)) if it
    /// does; returns the Z it had, as `HashMap::insert` returns the old
    /// value.
    ///
    /// # Errors
    ///
    /// [`ZError::IndexInUse`] if another generation of the key is held,
    /// [`ZError::ZOutOfRange`] if a simple collection has no such level,
    /// [`ZError::CapacityOverflow`] as for [`insert`](Self::insert).
    /// Nothing changes on error.
    ///
    /// ```
    /// use zorder::{I16F16, ZOrder};
    ///
    /// let mut order = ZOrder::<u32>::new(31)?;
    /// assert_eq!(order.insert_or_set_z(7, I16F16::from_num(2))?, None);
    /// assert_eq!(order.insert_or_set_z(7, I16F16::from_num(5))?, Some(I16F16::from_num(2)));
    /// assert_eq!(order.z_of(7), Some(I16F16::from_num(5)));
    /// # Ok::<(), zorder::ZError>(())
    /// ```
    pub fn insert_or_set_z(&mut self, key: K, z: I16F16) -> Result<Option<I16F16>, ZError> {
        match self.locate(key) {
            Some(at) => {
                let old = self.core.z_at(at);
                self.core.refile(at, z).map(|()| Some(old))
            }
            None => self.insert(key, z).map(|()| None),
        }
    }

    /// Files `key` at `z`, removing whatever key held its index first (an
    /// older generation, or the key itself), and returns that key with its
    /// Z: O(1) where [`insert`](Self::insert) would answer
    /// [`ZError::IndexInUse`], as `slotmap`'s `SecondaryMap::insert` does.
    ///
    /// # Errors
    ///
    /// [`ZError::ZOutOfRange`] if a simple collection has no such level,
    /// [`ZError::CapacityOverflow`] as for [`insert`](Self::insert).
    /// Nothing changes on error.
    ///
    /// ```
    /// use zorder::{I16F16, ZKey, ZOrder};
    ///
    /// #[derive(Clone, Copy, PartialEq, Eq, Debug)]
    /// struct Slot { index: u32, generation: u32 }
    /// impl ZKey for Slot {
    ///     fn index(&self) -> usize { self.index as usize }
    /// }
    ///
    /// let mut order = ZOrder::new(31)?;
    /// let dead = Slot { index: 0, generation: 1 };
    /// order.insert(dead, I16F16::from_num(1))?;
    /// let born = Slot { index: 0, generation: 2 };
    /// assert_eq!(order.replace(born, I16F16::from_num(4))?, Some((dead, I16F16::from_num(1))));
    /// assert!(order.contains(born) && !order.contains(dead));
    /// # Ok::<(), zorder::ZError>(())
    /// ```
    pub fn replace(&mut self, key: K, z: I16F16) -> Result<Option<(K, I16F16)>, ZError> {
        self.core.check_z(z)?;
        let place = self.core.book().get(key.index());
        let Some(at) = self.core.find(place, |held| held.0.index() == key.index()) else {
            self.core.file(z, Keyed(key))?;
            return Ok(None);
        };
        let old = (self.core.entry_at(at).0, self.core.z_at(at));
        if old.0 == key {
            self.core.refile(at, z)?;
        } else {
            self.core.unfile(at);
            self.core.book_mut().forget(key.index());
            self.core.file(z, Keyed(key))?;
        }
        Ok(Some(old))
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
        let at = self.locate(key).ok_or(ZError::NotInCollection)?;
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
        let at = self.locate(key).ok_or(ZError::NotInCollection)?;
        let (_, z) = self.core.unfile(at);
        self.core.book_mut().forget(key.index());
        Ok(z)
    }

    /// Applies many changes as one batch: for each `(key, Some(z))`, the
    /// key is filed at `z` (inserted, or re-filed as
    /// [`set_z`](Self::set_z) does); for each `(key, None)` it is removed
    /// if held. The result is the same as the changes one by one, in this
    /// order (ties among them included; a key changed twice ends where its
    /// last change puts it), at the cost of sorting the changes: the tree
    /// leaves they touch are merged once, where one by one each would
    /// descend the tree, and a batch that moves about a sixth of the
    /// tree's entries or more rebuilds it in one pass. A change the
    /// collection refuses (a Z a simple layout has no level for; a key
    /// whose index another generation holds) is skipped, and counted.
    ///
    /// The whole batch counts as one operation for pruning: a bucket it
    /// empties and refills never waits. If `changes` panics, the changes
    /// it gave before the panic have taken effect, as `Vec::extend` keeps
    /// what it pushed, and the collection is sound.
    ///
    /// ```
    /// use zorder::{I16F16, ZOrder};
    ///
    /// let mut order = ZOrder::<u32>::new(31)?;
    /// order.insert(1, I16F16::from_num(1))?;
    /// let done = order.apply([
    ///     (2, Some(I16F16::from_num(0.5))),
    ///     (1, Some(I16F16::from_num(0.5))),
    ///     (3, Some(I16F16::from_num(9))),
    ///     (3, None),
    /// ]);
    /// assert_eq!((done.inserted, done.moved, done.removed), (2, 1, 1));
    /// assert_eq!(order.back_to_front().collect::<Vec<_>>(), [2, 1]);
    /// # Ok::<(), zorder::ZError>(())
    /// ```
    pub fn apply(&mut self, changes: impl IntoIterator<Item = (K, Option<I16F16>)>) -> Applied {
        let steps = changes.into_iter().map(|(key, z)| match z {
            Some(z) => Step::File(Keyed(key), z),
            None => Step::Unfile(Keyed(key)),
        });
        // (Keys are `Copy`: letting one go takes nothing.)
        let applied = self.core.apply(steps, |_| {});
        Applied {
            inserted: applied.filed,
            moved: applied.refiled,
            removed: applied.unfiled,
            refused: applied.refused,
        }
    }

    /// Removes every key, and every bucket of a non-optimized Z, and gives
    /// back all the memory the collection holds (unlike `Vec::clear`;
    /// [`drain`](Self::drain) keeps the key table for the keys to come).
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
        self.core.release_scratch();
        self.decided = Vec::new();
        drop(self.core.detach());
        *self.core.book_mut() = KeyTable::default();
    }

    /// Walks the keys back to front: ascending Z, and at equal Z in the
    /// order of their last Z-action. The drawing order.
    ///
    /// Each call counts as a traversal for pruning (see the crate docs),
    /// however far the walk goes; so does [`front_to_back`](Self::front_to_back)
    /// and [`iter`](Self::iter).
    ///
    /// For a walk on a hot path (a draw loop), use internal iteration,
    /// `for_each` or `fold`: it reads each run of entries in one tight
    /// loop, where a `for` loop takes one step a call, which costs more.
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
    #[inline]
    pub fn back_to_front(&self) -> BackToFront<'_, K> {
        BackToFront(self.core.walk())
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
    #[inline]
    pub fn front_to_back(&self) -> Rev<BackToFront<'_, K>> {
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
    #[inline]
    pub fn iter(&self) -> Iter<'_, K> {
        Iter(self.core.walk())
    }

    /// A walk that does not count as a traversal.
    pub(crate) fn quiet_iter(&self) -> Iter<'_, K> {
        Iter(self.core.quiet_walk())
    }

    /// The keys whose Z is in `range`, with their Z, back to front (and
    /// front to back from the other end): drawing only the UI layers, or
    /// culling to a band of Z. O(log n) to find the range's ends, then the
    /// keys it yields (at the levels, one step per occupied level). A range
    /// is a lookup: it does not count as a traversal for pruning.
    ///
    /// ```
    /// use zorder::{I16F16, ZOrder};
    ///
    /// let mut order = ZOrder::<u32>::new(100)?;
    /// for (key, z) in [(1, 0.0), (2, 99.0), (3, 100.0), (4, 50.5), (5, 101.5)] {
    ///     order.insert(key, I16F16::from_num(z))?;
    /// }
    /// let ui: Vec<u32> = order.range(I16F16::from_num(99)..).map(|(key, _)| key).collect();
    /// assert_eq!(ui, [2, 3, 5]);
    /// let band = order.range(I16F16::from_num(50)..=I16F16::from_num(99));
    /// assert_eq!(band.rev().map(|(key, _)| key).collect::<Vec<_>>(), [2, 4]);
    /// # Ok::<(), zorder::ZError>(())
    /// ```
    pub fn range(&self, range: impl RangeBounds<I16F16>) -> Range<'_, K> {
        Range(self.core.range(range))
    }

    /// The back-most key and its Z (drawn first).
    ///
    /// ```
    /// use zorder::{I16F16, ZOrder};
    ///
    /// let mut order = ZOrder::<u32>::new(10)?;
    /// order.insert(1, I16F16::from_num(3))?;
    /// order.insert(2, I16F16::from_num(-3))?;
    /// assert_eq!(order.first(), Some((2, I16F16::from_num(-3))));
    /// # Ok::<(), zorder::ZError>(())
    /// ```
    pub fn first(&self) -> Option<(K, I16F16)> {
        self.core.first().map(|(key, z)| (key.0, z))
    }

    /// The front-most key and its Z (drawn last, hit first).
    ///
    /// ```
    /// use zorder::{I16F16, ZOrder};
    ///
    /// let mut order = ZOrder::<u32>::new(10)?;
    /// order.insert(1, I16F16::from_num(3))?;
    /// order.insert(2, I16F16::from_num(3))?;
    /// assert_eq!(order.last(), Some((2, I16F16::from_num(3))));
    /// # Ok::<(), zorder::ZError>(())
    /// ```
    pub fn last(&self) -> Option<(K, I16F16)> {
        self.core.last().map(|(key, z)| (key.0, z))
    }

    /// Visits the keys back to front, and lets `visit` keep, remove or
    /// re-file each, and stop the walk. See
    /// [`update_front_to_back`](Self::update_front_to_back).
    ///
    /// ```
    /// use std::ops::ControlFlow::Continue;
    /// use zorder::{I16F16, KeyVisit, ZOrder};
    ///
    /// let mut order = ZOrder::<u32>::new(31)?;
    /// for key in 0..4 {
    ///     order.insert(key, I16F16::from_num(key))?;
    /// }
    /// let done = order.update_back_to_front(|key, z| match key {
    ///     0 => Continue(KeyVisit::Remove),
    ///     1 => Continue(KeyVisit::SetZ(z + I16F16::from_num(10))),
    ///     _ => Continue(KeyVisit::Keep),
    /// });
    /// assert_eq!((done.removed, done.changed), (1, 1));
    /// assert_eq!(order.back_to_front().collect::<Vec<_>>(), [2, 3, 1]);
    /// # Ok::<(), zorder::ZError>(())
    /// ```
    pub fn update_back_to_front(
        &mut self,
        visit: impl FnMut(K, I16F16) -> ControlFlow<KeyVisit, KeyVisit>,
    ) -> Updated {
        self.update(false, visit)
    }

    /// Visits the keys front to back, and lets `visit` keep, remove or
    /// re-file each (`Continue(action)`), or do so and stop the walk
    /// (`Break(action)`): touch dispatch stops at the first key hit.
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
    /// use std::ops::ControlFlow::{Break, Continue};
    /// use zorder::{I16F16, KeyVisit, ZOrder};
    ///
    /// let mut order = ZOrder::<u32>::new(31)?;
    /// for key in 0..3 {
    ///     order.insert(key, I16F16::from_num(1))?;
    /// }
    /// // Keys 0 and 1 are under the finger: 1 is on top, takes the touch
    /// // and comes to the front of its Z.
    /// order.update_front_to_back(|key, _| {
    ///     if key <= 1 { Break(KeyVisit::Refile) } else { Continue(KeyVisit::Keep) }
    /// });
    /// assert_eq!(order.front_to_back().collect::<Vec<_>>(), [1, 2, 0]);
    /// # Ok::<(), zorder::ZError>(())
    /// ```
    pub fn update_front_to_back(
        &mut self,
        visit: impl FnMut(K, I16F16) -> ControlFlow<KeyVisit, KeyVisit>,
    ) -> Updated {
        self.update(true, visit)
    }

    /// An in-walk update: the core decides along its walk, then the
    /// decisions apply in visiting order.
    fn update(
        &mut self,
        front_to_back: bool,
        mut visit: impl FnMut(K, I16F16) -> ControlFlow<KeyVisit, KeyVisit>,
    ) -> Updated {
        let mut decided = core::mem::take(&mut self.decided);
        decided.clear();
        let visited = self
            .core
            .decide(front_to_back, KeyVisit::Keep, &mut decided, |key, z| {
                visit(key.0, z)
            });
        let mut updated = Updated {
            visited,
            ..Updated::default()
        };
        for (Keyed(key), decision) in decided.drain(..) {
            let outcome = match decision {
                KeyVisit::Remove => {
                    updated.removed += usize::from(self.remove(key).is_ok());
                    continue;
                }
                KeyVisit::Refile => self.refile(key),
                KeyVisit::SetZ(z) => self.set_z(key, z),
                KeyVisit::Keep => continue,
            };
            match outcome {
                Ok(()) => updated.changed += 1,
                Err(_) => updated.refused += 1,
            }
        }
        self.decided = decided;
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
        let _ = self.update(false, |key, z| {
            ControlFlow::Continue(if keep(key, z) {
                KeyVisit::Keep
            } else {
                KeyVisit::Remove
            })
        });
    }

    /// Removes every key and yields each with its Z, back to front (and
    /// front to back from the other end; inserting them elsewhere back to
    /// front keeps the order, ties included). The keys are gone when the
    /// call returns, even if the iterator is dropped before the end.
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
    pub fn drain(&mut self) -> Drain<K> {
        let detached = self.core.detach();
        for &Keyed(key) in detached.entries() {
            self.core.book_mut().forget(key.index());
        }
        IntoIter(detached)
    }

    /// Checks every internal invariant; panics on a broken one. For the
    /// crate's own tests and fuzzing (the `check` feature).
    #[cfg(feature = "check")]
    #[doc(hidden)]
    pub fn check_invariants(&self) {
        for (&Keyed(key), place) in self.core.check() {
            assert!(
                place.same_leaf(self.core.book().get(key.index())),
                "the key table knows each key's leaf"
            );
        }
        assert_eq!(
            self.core.book().held(),
            self.len(),
            "no stale place is left in the key table"
        );
        assert_eq!(self.core.book().iter().count(), self.len());
        self.core.book().check();
    }

    /// Makes pruning behave as if `walks` counting traversals had found a
    /// bucket waiting all along (tests of long runs; the `check` feature).
    #[cfg(feature = "check")]
    #[doc(hidden)]
    pub fn pretend_walks(&mut self, walks: u64) {
        self.core.pretend_walks(walks);
    }
}

impl<K: ZKey, L: Layout> Default for ZOrder<K, L> {
    /// An empty collection with levels `0..=`[`DEFAULT_MAX_LEVEL`](Self::DEFAULT_MAX_LEVEL)
    /// (255) and, in the fixed-point layout, the default pruning threshold:
    /// `#[derive(Resource, Default)]` and `init_resource` work.
    fn default() -> Self {
        Self::build(Self::DEFAULT_MAX_LEVEL, DEFAULT_PRUNE_AFTER)
            .expect("the default max_level is in range")
    }
}

impl<K: ZKey, L: Layout> Clone for ZOrder<K, L> {
    /// A collection with the same layout and the same keys at the same Z,
    /// in the same order, ties included. Its buckets waiting for pruning
    /// are not copied: its [`nonoptimized_buckets`](Self::nonoptimized_buckets)
    /// counts live ones only.
    fn clone(&self) -> Self {
        let mut clone = Self::build(
            self.max_level(),
            self.core.prune_after().unwrap_or(DEFAULT_PRUNE_AFTER),
        )
        .expect("the same layout");
        clone.reserve(self.len());
        let steps = self.quiet_iter().map(|(key, z)| Step::File(Keyed(key), z));
        let _ = clone.core.apply(steps, |_| {});
        clone
    }
}

impl<K: ZKey, L: Layout> PartialEq for ZOrder<K, L> {
    /// Whether the two hold the same keys at the same Z in the same order,
    /// ties included (their `max_level`, pruning threshold and waiting
    /// buckets aside).
    fn eq(&self, other: &Self) -> bool {
        self.len() == other.len() && self.quiet_iter().eq(other.quiet_iter())
    }
}

impl<K: ZKey, L: Layout> Eq for ZOrder<K, L> {}

impl<K: ZKey + fmt::Debug, L: Layout> fmt::Debug for ZOrder<K, L> {
    /// The layout, and the keys with their Z back to front. Printing does
    /// not count as a traversal.
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_struct("ZOrder")
            .field("max_level", &self.max_level())
            .field("prune_after", &self.core.prune_after())
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

impl<K: ZKey, L: Layout> Extend<(K, I16F16)> for ZOrder<K, L> {
    /// Files each key at its Z, in order, as one batch ([`apply`](ZOrder::apply)):
    /// a key the collection holds is re-filed there, as `HashMap::extend`
    /// overwrites. A pair the collection refuses (a Z a simple layout has
    /// no level for, an index another generation holds) is skipped; use
    /// [`apply`](ZOrder::apply) to count them, or insert one by one to see
    /// each error. If the iterator panics, the pairs it gave before take
    /// effect, as with `apply`.
    fn extend<I: IntoIterator<Item = (K, I16F16)>>(&mut self, pairs: I) {
        let _ = self.apply(pairs.into_iter().map(|(key, z)| (key, Some(z))));
    }
}

impl<K: ZKey, L: Layout> FromIterator<(K, I16F16)> for ZOrder<K, L> {
    /// A [`Default`] collection extended with the pairs.
    ///
    /// ```
    /// use zorder::{I16F16, ZOrder};
    ///
    /// let order: ZOrder<u32> = [(1, I16F16::from_num(2)), (2, I16F16::ONE)].into_iter().collect();
    /// assert_eq!(order.back_to_front().collect::<Vec<_>>(), [2, 1]);
    /// ```
    fn from_iter<I: IntoIterator<Item = (K, I16F16)>>(pairs: I) -> Self {
        let mut order = Self::default();
        order.extend(pairs);
        order
    }
}

impl<'a, K: ZKey, L: Layout> IntoIterator for &'a ZOrder<K, L> {
    type Item = (K, I16F16);
    type IntoIter = Iter<'a, K>;

    /// Back to front, with the Z of each key, like [`ZOrder::iter`].
    fn into_iter(self) -> Iter<'a, K> {
        self.iter()
    }
}

impl<K: ZKey, L: Layout> IntoIterator for ZOrder<K, L> {
    type Item = (K, I16F16);
    type IntoIter = IntoIter<K>;

    /// Every key with its Z, back to front (front to back from the other
    /// end).
    fn into_iter(mut self) -> IntoIter<K> {
        IntoIter(self.core.detach())
    }
}
