//! Traversal: back-to-front and front-to-back iterators shared by both
//! collections, and the bookkeeping that lets traversals prune buckets.
//!
//! A traversal keeps two independent positions, one walking from the back
//! and one from the front, each a bucket, a block of it and a slot. It stops
//! when it has yielded as many objects as the collection holds, so the two
//! ends never yield the same object twice, whichever way they are mixed.

use core::cell::Cell;
use core::fmt;
use core::iter::FusedIterator;
use core::ptr::NonNull;

use intrusive_collections::linked_list;

use crate::ZObject;
use crate::block::{Block, BlockAdapter, Mask};
use crate::bucket::Bucket;
use crate::sections::Sections;

/// Per-collection traversal state: how many traversals are alive (buckets
/// may be freed only when none is) and how many counting traversals have
/// started, the clock that pruning reads.
#[derive(Debug, Default)]
pub(crate) struct Traversals {
    live: Cell<usize>,
    started: Cell<u64>,
}

impl Traversals {
    /// Counting traversals started so far.
    pub(crate) fn started(&self) -> u64 {
        self.started.get()
    }

    /// Whether no traversal is alive: only then may buckets be freed.
    pub(crate) fn none_alive(&self) -> bool {
        self.live.get() == 0
    }
}

/// A live traversal: counted in [`Traversals::live`] from creation to drop.
struct Traversal<'a> {
    state: &'a Traversals,
}

impl<'a> Traversal<'a> {
    /// A traversal; one that `counts` advances the pruning clock.
    fn new(state: &'a Traversals, counts: bool) -> Self {
        state.live.set(state.live.get() + 1);
        if counts {
            state.started.set(state.started.get() + 1);
        }
        Traversal { state }
    }
}

impl Clone for Traversal<'_> {
    /// A clone is alive too, but it is the same walk: it does not count.
    fn clone(&self) -> Self {
        Traversal::new(self.state, false)
    }
}

impl Drop for Traversal<'_> {
    fn drop(&mut self) {
        self.state.live.set(self.state.live.get() - 1);
    }
}

/// Where one end of a traversal is among the buckets and their blocks. Only
/// [`Position::advance`] moves it, once per block; the block being read and
/// its unvisited slots live apart, in [`Reading`], so the per-object path
/// never hands their address to a call and they can stay in registers.
struct Position<'a, T> {
    /// `None` until the end has started.
    bucket: Option<&'a Bucket<T>>,
    /// The cursor on the block being read, `None` between buckets.
    cursor: Option<linked_list::Cursor<'a, BlockAdapter<T>>>,
}

impl<T> Clone for Position<'_, T> {
    fn clone(&self) -> Self {
        Position {
            bucket: self.bucket,
            cursor: self.cursor.clone(),
        }
    }
}

/// The block one end of a traversal is reading, and its occupied slots not
/// visited yet from that end.
struct Reading<'a, T> {
    block: Option<&'a Block<T>>,
    unvisited: Mask,
}

impl<T> Clone for Reading<'_, T> {
    fn clone(&self) -> Self {
        *self
    }
}

impl<T> Copy for Reading<'_, T> {}

impl<'a, T> Reading<'a, T> {
    const NONE: Self = Reading {
        block: None,
        unvisited: 0,
    };

    fn of(block: &'a Block<T>) -> Self {
        Reading {
            block: Some(block),
            unvisited: block.occupied(),
        }
    }

    /// The next unvisited object of the block, walking `way`.
    #[inline(always)]
    fn take(&mut self, way: Way) -> Option<NonNull<ZObject<T>>> {
        let slot = match way {
            Way::FromBack => self.unvisited.trailing_zeros(),
            Way::FromFront => Mask::BITS - 1 - self.unvisited.leading_zeros(),
        } as usize;
        self.unvisited &= !(1 << slot);
        self.block?.slot(slot)
    }
}

/// Which way a position walks.
#[derive(Clone, Copy, PartialEq, Eq)]
enum Way {
    /// From the back-most object (ascending Z, lowest slot first).
    FromBack,
    /// From the front-most object.
    FromFront,
}

impl<'a, T> Position<'a, T> {
    fn new() -> Self {
        Position {
            bucket: None,
            cursor: None,
        }
    }

    /// Moves on to the next block holding an object, walking `way`, and
    /// returns it to read; `None` once there is none.
    #[cold]
    #[inline(never)]
    fn advance(
        &mut self,
        sections: &Sections<'a, T>,
        way: Way,
        prefetch_objects: bool,
    ) -> Option<Reading<'a, T>> {
        loop {
            if let Some(cursor) = self.cursor.as_mut() {
                match way {
                    Way::FromBack => cursor.move_next(),
                    Way::FromFront => cursor.move_prev(),
                }
                if let Some(block) = cursor.get() {
                    prefetch_following(cursor, way, prefetch_objects);
                    if block.occupied() != 0 {
                        return Some(Reading::of(block));
                    }
                    continue;
                }
            }
            let bucket = match (self.bucket, way) {
                (Some(bucket), Way::FromBack) => sections.next(bucket),
                (Some(bucket), Way::FromFront) => sections.prev(bucket),
                (None, Way::FromBack) => sections.first(),
                (None, Way::FromFront) => sections.last(),
            }?;
            self.bucket = Some(bucket);
            let cursor = match way {
                Way::FromBack => bucket.blocks().front(),
                Way::FromFront => bucket.blocks().back(),
            };
            let block = cursor.get();
            prefetch_following(&cursor, way, prefetch_objects);
            self.cursor = block.is_some().then_some(cursor);
            if let Some(block) = block.filter(|block| block.occupied() != 0) {
                return Some(Reading::of(block));
            }
        }
    }
}

/// Prefetches ahead of the cursor, walking `way`: the objects of the next
/// block, and the block after that. Objects and blocks sit anywhere in
/// memory; asked for a block ahead, their loads overlap with the visits of
/// this block instead of each visit waiting on its own cache miss. The next
/// block itself was prefetched one step earlier, so reading its slots here
/// is cheap.
#[inline(always)]
fn prefetch_following<T>(
    cursor: &linked_list::Cursor<'_, BlockAdapter<T>>,
    way: Way,
    objects: bool,
) {
    let mut ahead = cursor.clone();
    let step = |cursor: &mut linked_list::Cursor<'_, BlockAdapter<T>>| match way {
        Way::FromBack => cursor.move_next(),
        Way::FromFront => cursor.move_prev(),
    };
    step(&mut ahead);
    if let Some(next) = ahead.get() {
        if objects {
            next.prefetch_objects();
        }
        step(&mut ahead);
        if let Some(after_next) = ahead.get() {
            after_next.prefetch();
        }
    }
}

/// The objects of a collection from the back-most to the front-most: the
/// drawing order for alpha blending. Ascending Z; at equal Z, the object
/// whose last Z-action came earlier first.
///
/// Created by [`Collection::back_to_front`](crate::Collection::back_to_front).
/// It is double-ended (`next_back` walks front to back), knows its exact
/// length, and is fused. Any number of traversals of one collection may be
/// alive at once.
pub struct BackToFront<'a, T> {
    sections: Sections<'a, T>,
    back: Position<'a, T>,
    front: Position<'a, T>,
    reading_back: Reading<'a, T>,
    reading_front: Reading<'a, T>,
    remaining: usize,
    /// Whether to prefetch objects a block ahead: only when there are
    /// enough of them that they are unlikely to sit in the cache already,
    /// where the prefetches would be pure overhead.
    prefetch_objects: bool,
    traversal: Traversal<'a>,
}

/// The number of objects from which a traversal prefetches them a block
/// ahead. Measured on the development machine (2 MiB of L2 per core),
/// against a `Vec` of the same handles: below about 20,000 objects the
/// prefetches only add work (up to 1.5x slower at 10,000), from about
/// 30,000 they pay (0.8x at 10^5 after churn).
const PREFETCH_OBJECTS_FROM: usize = 1 << 15;

impl<'a, T> BackToFront<'a, T> {
    /// A walk over the `len` objects of `sections`; one that `counts`
    /// advances the pruning clock.
    pub(crate) fn new(
        sections: Sections<'a, T>,
        len: usize,
        state: &'a Traversals,
        counts: bool,
    ) -> Self {
        BackToFront {
            sections,
            back: Position::new(),
            front: Position::new(),
            reading_back: Reading::NONE,
            reading_front: Reading::NONE,
            remaining: len,
            prefetch_objects: len >= PREFETCH_OBJECTS_FROM,
            traversal: Traversal::new(state, counts),
        }
    }

    /// The next object from the back, as the pointer its slot holds.
    #[inline]
    pub(crate) fn next_pointer(&mut self) -> Option<NonNull<ZObject<T>>> {
        self.step(Way::FromBack)
    }

    /// The next object from the front, as the pointer its slot holds.
    #[inline]
    pub(crate) fn next_back_pointer(&mut self) -> Option<NonNull<ZObject<T>>> {
        self.step(Way::FromFront)
    }

    #[inline(always)]
    fn step(&mut self, way: Way) -> Option<NonNull<ZObject<T>>> {
        if self.remaining == 0 {
            return None;
        }
        let (position, reading) = match way {
            Way::FromBack => (&mut self.back, &mut self.reading_back),
            Way::FromFront => (&mut self.front, &mut self.reading_front),
        };
        if reading.unvisited == 0 {
            *reading = position.advance(&self.sections, way, self.prefetch_objects)?;
        }
        self.remaining -= 1;
        reading.take(way)
    }

    /// The object behind a slot's pointer, for as long as the collection is
    /// borrowed.
    #[inline]
    fn object(object: NonNull<ZObject<T>>) -> &'a ZObject<T> {
        // SAFETY: the slot owns a strong count of the object, and the object
        // cannot leave the collection (which takes `&mut`) while the
        // collection is borrowed for 'a.
        unsafe { object.as_ref() }
    }
}

impl<'a, T> Iterator for BackToFront<'a, T> {
    type Item = &'a ZObject<T>;

    #[inline]
    fn next(&mut self) -> Option<&'a ZObject<T>> {
        self.next_pointer().map(Self::object)
    }

    #[inline]
    fn size_hint(&self) -> (usize, Option<usize>) {
        (self.remaining, Some(self.remaining))
    }
}

impl<'a, T> DoubleEndedIterator for BackToFront<'a, T> {
    #[inline]
    fn next_back(&mut self) -> Option<&'a ZObject<T>> {
        self.next_back_pointer().map(Self::object)
    }
}

impl<T> ExactSizeIterator for BackToFront<'_, T> {}

impl<T> FusedIterator for BackToFront<'_, T> {}

impl<T> Clone for BackToFront<'_, T> {
    fn clone(&self) -> Self {
        BackToFront {
            sections: self.sections,
            back: self.back.clone(),
            front: self.front.clone(),
            reading_back: self.reading_back,
            reading_front: self.reading_front,
            remaining: self.remaining,
            prefetch_objects: self.prefetch_objects,
            traversal: self.traversal.clone(),
        }
    }
}

impl<T> fmt::Debug for BackToFront<'_, T> {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_struct("BackToFront")
            .field("remaining", &self.remaining)
            .finish()
    }
}

/// The objects of a collection from the front-most to the back-most: the
/// order for touch dispatch and for drawing opaque objects. The exact reverse
/// of [`BackToFront`].
///
/// Created by [`Collection::front_to_back`](crate::Collection::front_to_back).
pub struct FrontToBack<'a, T>(BackToFront<'a, T>);

impl<'a, T> FrontToBack<'a, T> {
    pub(crate) fn new(back_to_front: BackToFront<'a, T>) -> Self {
        FrontToBack(back_to_front)
    }
}

impl<'a, T> Iterator for FrontToBack<'a, T> {
    type Item = &'a ZObject<T>;

    #[inline]
    fn next(&mut self) -> Option<&'a ZObject<T>> {
        self.0.next_back()
    }

    #[inline]
    fn size_hint(&self) -> (usize, Option<usize>) {
        self.0.size_hint()
    }
}

impl<'a, T> DoubleEndedIterator for FrontToBack<'a, T> {
    #[inline]
    fn next_back(&mut self) -> Option<&'a ZObject<T>> {
        self.0.next()
    }
}

impl<T> ExactSizeIterator for FrontToBack<'_, T> {}

impl<T> FusedIterator for FrontToBack<'_, T> {}

impl<T> Clone for FrontToBack<'_, T> {
    fn clone(&self) -> Self {
        FrontToBack(self.0.clone())
    }
}

impl<T> fmt::Debug for FrontToBack<'_, T> {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_struct("FrontToBack")
            .field("remaining", &self.0.remaining)
            .finish()
    }
}
