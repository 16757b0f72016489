//! Traversal: back-to-front and front-to-back iterators shared by both
//! collections, and the bookkeeping that lets traversals prune buckets.

use core::cell::Cell;
use core::fmt;
use core::iter::FusedIterator;
use core::slice;

use intrusive_collections::linked_list;

use crate::ZObject;
use crate::bucket::{Bucket, ChainAdapter, ObjectIter};

/// The buckets of a collection, back to front, whichever way it stores them.
pub(crate) enum BucketIter<'a, T> {
    /// A fixed-point collection's chain.
    Chain(linked_list::Iter<'a, ChainAdapter<T>>),
    /// A simple collection's array.
    Array(slice::Iter<'a, Bucket<T>>),
}

impl<T> Clone for BucketIter<'_, T> {
    fn clone(&self) -> Self {
        match self {
            BucketIter::Chain(chain) => BucketIter::Chain(chain.clone()),
            BucketIter::Array(array) => BucketIter::Array(array.clone()),
        }
    }
}

impl<'a, T> Iterator for BucketIter<'a, T> {
    type Item = &'a Bucket<T>;

    #[inline]
    fn next(&mut self) -> Option<&'a Bucket<T>> {
        match self {
            BucketIter::Chain(chain) => chain.next(),
            BucketIter::Array(array) => array.next(),
        }
    }
}

impl<'a, T> DoubleEndedIterator for BucketIter<'a, T> {
    #[inline]
    fn next_back(&mut self) -> Option<&'a Bucket<T>> {
        match self {
            BucketIter::Chain(chain) => chain.next_back(),
            BucketIter::Array(array) => array.next_back(),
        }
    }
}

/// Per-collection traversal state: how many traversals are alive (buckets
/// may be freed only when none is), and whether one found a bucket ready to
/// be pruned.
#[derive(Debug)]
pub(crate) struct Traversals {
    live: Cell<usize>,
    prune_due: Cell<bool>,
    prune_after: u32,
}

impl Traversals {
    pub(crate) fn new(prune_after: u32) -> Self {
        Traversals {
            live: Cell::new(0),
            prune_due: Cell::new(false),
            prune_after,
        }
    }

    /// Whether a traversal found a stale bucket and no traversal is alive
    /// now: then buckets may be freed. Clears the flag.
    pub(crate) fn take_prune_due(&self) -> bool {
        self.live.get() == 0 && self.prune_due.replace(false)
    }
}

/// A live traversal: counted in [`Traversals::live`] from creation to drop.
struct Traversal<'a> {
    state: &'a Traversals,
    /// Whether passing a bucket counts toward pruning it. Internal walks
    /// (such as `Debug`) do not count.
    counts: bool,
}

impl<'a> Traversal<'a> {
    fn new(state: &'a Traversals, counts: bool) -> Self {
        state.live.set(state.live.get() + 1);
        Traversal { state, counts }
    }

    #[inline]
    fn enter<T>(&self, bucket: &'a Bucket<T>) -> ObjectIter<'a, T> {
        if self.counts {
            bucket.note_traversal();
            if bucket.is_stale(self.state.prune_after) {
                self.state.prune_due.set(true);
            }
        }
        bucket.objects().iter()
    }
}

impl Clone for Traversal<'_> {
    fn clone(&self) -> Self {
        Traversal::new(self.state, self.counts)
    }
}

impl Drop for Traversal<'_> {
    fn drop(&mut self) {
        self.state.live.set(self.state.live.get() - 1);
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
    buckets: BucketIter<'a, T>,
    front: Option<ObjectIter<'a, T>>,
    back: Option<ObjectIter<'a, T>>,
    remaining: usize,
    traversal: Traversal<'a>,
}

impl<'a, T> BackToFront<'a, T> {
    pub(crate) fn new(
        buckets: BucketIter<'a, T>,
        len: usize,
        state: &'a Traversals,
        counts: bool,
    ) -> Self {
        BackToFront {
            buckets,
            front: None,
            back: None,
            remaining: len,
            traversal: Traversal::new(state, counts),
        }
    }
}

impl<'a, T> Iterator for BackToFront<'a, T> {
    type Item = &'a ZObject<T>;

    #[inline]
    fn next(&mut self) -> Option<&'a ZObject<T>> {
        loop {
            if let Some(object) = self.front.as_mut().and_then(Iterator::next) {
                self.remaining -= 1;
                return Some(object);
            }
            match self.buckets.next() {
                Some(bucket) => self.front = Some(self.traversal.enter(bucket)),
                None => {
                    // The back end may have started on the last bucket.
                    let object = self.back.as_mut().and_then(Iterator::next)?;
                    self.remaining -= 1;
                    return Some(object);
                }
            }
        }
    }

    #[inline]
    fn size_hint(&self) -> (usize, Option<usize>) {
        (self.remaining, Some(self.remaining))
    }
}

impl<'a, T> DoubleEndedIterator for BackToFront<'a, T> {
    #[inline]
    fn next_back(&mut self) -> Option<&'a ZObject<T>> {
        loop {
            if let Some(object) = self.back.as_mut().and_then(DoubleEndedIterator::next_back) {
                self.remaining -= 1;
                return Some(object);
            }
            match self.buckets.next_back() {
                Some(bucket) => self.back = Some(self.traversal.enter(bucket)),
                None => {
                    let object = self
                        .front
                        .as_mut()
                        .and_then(DoubleEndedIterator::next_back)?;
                    self.remaining -= 1;
                    return Some(object);
                }
            }
        }
    }
}

impl<T> ExactSizeIterator for BackToFront<'_, T> {}

impl<T> FusedIterator for BackToFront<'_, T> {}

impl<T> Clone for BackToFront<'_, T> {
    fn clone(&self) -> Self {
        BackToFront {
            buckets: self.buckets.clone(),
            front: self.front.clone(),
            back: self.back.clone(),
            remaining: self.remaining,
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
