//! The iterators of [`ZOrder`](super::ZOrder).

use core::fmt;
use core::iter::FusedIterator;

use super::{Keyed, ZKey};
use crate::engine::walk::{Detached, Walk};
use crate::z::I16F16;

/// The keys of a [`ZOrder`](super::ZOrder), back to front (`next_back`
/// walks front to back). Created by [`ZOrder::back_to_front`](super::ZOrder::back_to_front);
/// [`ZOrder::front_to_back`](super::ZOrder::front_to_back) is its reverse.
/// Double-ended, exact-size, fused and cheap to clone; any number of walks
/// of one collection may be alive at once.
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
pub struct BackToFront<'a, K: ZKey>(pub(super) Walk<'a, Keyed<K>>);

/// The keys of a [`ZOrder`](super::ZOrder) with their Z, back to front.
/// Created by [`ZOrder::iter`](super::ZOrder::iter); double-ended,
/// exact-size, fused and cheap to clone.
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
pub struct Iter<'a, K: ZKey>(pub(super) Walk<'a, Keyed<K>>);

/// The keys of a [`ZOrder`](super::ZOrder) whose Z is in a range, with
/// their Z, back to front. Created by [`ZOrder::range`](super::ZOrder::range);
/// double-ended, fused and cheap to clone (not exact-size: a range counts
/// its keys only if both ends are used).
///
/// ```
/// use zorder::{I16F16, ZOrder};
///
/// let mut order = ZOrder::<u32>::new(10)?;
/// for key in 0..10 {
///     order.insert(key, I16F16::from_num(key) / 2)?;
/// }
/// let mut band = order.range(I16F16::ONE..I16F16::from_num(3));
/// assert_eq!(band.next(), Some((2, I16F16::ONE)));
/// assert_eq!(band.next_back(), Some((5, I16F16::from_num(2.5))));
/// assert_eq!(band.map(|(key, _)| key).collect::<Vec<_>>(), [3, 4]);
/// # Ok::<(), zorder::ZError>(())
/// ```
pub struct Range<'a, K: ZKey>(pub(super) Walk<'a, Keyed<K>>);

/// Every key of a [`ZOrder`](super::ZOrder) with its Z, by value, back to
/// front (front to back from the other end). Created by
/// [`into_iter`](IntoIterator::into_iter) and, as [`Drain`], by
/// [`ZOrder::drain`](super::ZOrder::drain): the collection is empty as
/// soon as it exists, and the keys come out of the iterator, which
/// borrows nothing.
///
/// ```
/// use zorder::{I16F16, ZOrder};
///
/// let mut order = ZOrder::<u32>::new(10)?;
/// order.insert(1, I16F16::from_num(2))?;
/// order.insert(2, I16F16::from_num(3))?;
/// let mut pairs = order.into_iter();
/// assert_eq!(pairs.next_back(), Some((2, I16F16::from_num(3))));
/// assert_eq!(pairs.len(), 1);
/// # Ok::<(), zorder::ZError>(())
/// ```
pub struct IntoIter<K: ZKey>(pub(super) Detached<Keyed<K>>);

/// The keys taken out of a [`ZOrder`](super::ZOrder) by
/// [`drain`](super::ZOrder::drain): an [`IntoIter`].
///
/// ```
/// use zorder::{I16F16, ZOrder};
///
/// let mut order = ZOrder::<u32>::new(10)?;
/// order.insert(1, I16F16::from_num(2))?;
/// let drain = order.drain();
/// assert!(order.is_empty());
/// assert_eq!(drain.collect::<Vec<_>>(), [(1, I16F16::from_num(2))]);
/// # Ok::<(), zorder::ZError>(())
/// ```
pub type Drain<K> = IntoIter<K>;

impl<K: ZKey> Iterator for BackToFront<'_, K> {
    type Item = K;

    #[inline]
    fn next(&mut self) -> Option<K> {
        self.0.next_up::<false>().map(|(key, _)| key.0)
    }

    #[inline]
    fn size_hint(&self) -> (usize, Option<usize>) {
        let len = self.0.len();
        (len, Some(len))
    }

    /// Internal iteration (`for_each`, `sum`, `collect` into most
    /// collections): a tight loop over each run.
    #[inline]
    fn fold<B, F: FnMut(B, K) -> B>(self, init: B, mut f: F) -> B {
        self.0
            .fold_up::<false, B>(init, |acc, key, _| f(acc, key.0))
    }
}

impl<K: ZKey> DoubleEndedIterator for BackToFront<'_, K> {
    #[inline]
    fn next_back(&mut self) -> Option<K> {
        self.0.next_down::<false>().map(|(key, _)| key.0)
    }

    #[inline]
    fn rfold<B, F: FnMut(B, K) -> B>(self, init: B, mut f: F) -> B {
        self.0
            .fold_down::<false, B>(init, |acc, key, _| f(acc, key.0))
    }
}

impl<K: ZKey> ExactSizeIterator for BackToFront<'_, K> {}

/// The walk iterators that yield each key with its Z.
macro_rules! pairs_from_walk {
    ($name:ident) => {
        impl<K: ZKey> Iterator for $name<'_, K> {
            type Item = (K, I16F16);

            #[inline]
            fn next(&mut self) -> Option<(K, I16F16)> {
                self.0
                    .next_up::<true>()
                    .map(|(key, z)| (key.0, I16F16::from_bits(z)))
            }

            #[inline]
            fn size_hint(&self) -> (usize, Option<usize>) {
                match self.0.remaining() {
                    Some(len) => (len, Some(len)),
                    None => (0, None),
                }
            }

            /// Internal iteration: a tight loop over each run.
            #[inline]
            fn fold<B, F: FnMut(B, (K, I16F16)) -> B>(self, init: B, mut f: F) -> B {
                self.0
                    .fold_up::<true, B>(init, |acc, key, z| f(acc, (key.0, I16F16::from_bits(z))))
            }
        }

        impl<K: ZKey> DoubleEndedIterator for $name<'_, K> {
            #[inline]
            fn next_back(&mut self) -> Option<(K, I16F16)> {
                self.0
                    .next_down::<true>()
                    .map(|(key, z)| (key.0, I16F16::from_bits(z)))
            }

            #[inline]
            fn rfold<B, F: FnMut(B, (K, I16F16)) -> B>(self, init: B, mut f: F) -> B {
                self.0
                    .fold_down::<true, B>(init, |acc, key, z| f(acc, (key.0, I16F16::from_bits(z))))
            }
        }
    };
}

pairs_from_walk!(Iter);
pairs_from_walk!(Range);

impl<K: ZKey> ExactSizeIterator for Iter<'_, K> {}

/// What every walk iterator has: fused, cheap to clone, printed with what
/// is left.
macro_rules! walk_iterator {
    ($name:ident) => {
        impl<K: ZKey> FusedIterator for $name<'_, K> {}

        impl<K: ZKey> Clone for $name<'_, K> {
            fn clone(&self) -> Self {
                $name(self.0)
            }
        }

        impl<K: ZKey> fmt::Debug for $name<'_, K> {
            fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
                f.debug_struct(stringify!($name))
                    .field("remaining", &self.0.len())
                    .finish()
            }
        }
    };
}

walk_iterator!(BackToFront);
walk_iterator!(Iter);
walk_iterator!(Range);

impl<K: ZKey> Iterator for IntoIter<K> {
    type Item = (K, I16F16);

    fn next(&mut self) -> Option<(K, I16F16)> {
        self.0
            .next_up()
            .map(|(key, z)| (key.0, I16F16::from_bits(z)))
    }

    fn size_hint(&self) -> (usize, Option<usize>) {
        (self.0.len(), Some(self.0.len()))
    }
}

impl<K: ZKey> DoubleEndedIterator for IntoIter<K> {
    fn next_back(&mut self) -> Option<(K, I16F16)> {
        self.0
            .next_down()
            .map(|(key, z)| (key.0, I16F16::from_bits(z)))
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
