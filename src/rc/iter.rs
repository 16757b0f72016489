//! The iterators of the `Rc` collections.

use alloc::rc::Rc;
use core::fmt;
use core::iter::FusedIterator;

use super::object::ZObject;
use super::release;
use crate::engine::walk::{Detached, Walk};

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
pub struct BackToFront<'a, T: ?Sized>(pub(super) Walk<'a, Rc<ZObject<T>>>);

/// The objects of an `Rc` collection whose Z is in a range, back to front.
/// Created by [`RcZCollection::range`](super::RcZCollection::range);
/// double-ended, fused and cheap to clone.
///
/// ```
/// use std::cell::Cell;
/// use std::rc::Rc;
/// use zorder::{FixedPointZCollection, I16F16, ZObject};
///
/// let mut scene = FixedPointZCollection::new(10)?;
/// for z in [1, 5, 9] {
///     scene.add(&Rc::new(ZObject::new(Cell::new(I16F16::from_num(z)))))?;
/// }
/// let zs: Vec<_> = scene.range(I16F16::from_num(4)..).map(|o| o.get()).collect();
/// assert_eq!(zs, [5, 9]);
/// # Ok::<(), zorder::ZError>(())
/// ```
pub struct Range<'a, T: ?Sized>(pub(super) Walk<'a, Rc<ZObject<T>>>);

/// The objects of an `Rc` collection, by value, back to front (front to
/// back from the other end), each free (in no collection). Created by
/// [`into_iter`](IntoIterator::into_iter) and, as [`Drain`], by `drain`.
/// Dropping it gives back the rest; if dropping an object panics, the rest
/// are still given back, then the panic resumes.
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
pub struct IntoIter<T: ?Sized>(pub(super) Detached<Rc<ZObject<T>>>);

/// The objects taken out of an `Rc` collection by `drain`: an
/// [`IntoIter`]. Every one is free (in no collection) from the moment it
/// exists, and it borrows nothing.
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
/// assert!(!ZObject::is_in_collection(&jelly) && scene.is_empty());
/// assert_eq!(drain.len(), 1);
/// # Ok::<(), zorder::ZError>(())
/// ```
pub type Drain<T> = IntoIter<T>;

/// What the walk iterators of the `Rc` collections share.
macro_rules! objects_from_walk {
    ($name:ident) => {
        impl<'a, T: ?Sized> Iterator for $name<'a, T> {
            type Item = &'a Rc<ZObject<T>>;

            #[inline]
            fn next(&mut self) -> Option<&'a Rc<ZObject<T>>> {
                self.0.next_up::<false>().map(|(object, _)| object)
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
            fn fold<B, F: FnMut(B, &'a Rc<ZObject<T>>) -> B>(self, init: B, mut f: F) -> B {
                self.0
                    .fold_up::<false, B>(init, |acc, object, _| f(acc, object))
            }
        }

        impl<'a, T: ?Sized> DoubleEndedIterator for $name<'a, T> {
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

        impl<T: ?Sized> FusedIterator for $name<'_, T> {}

        impl<T: ?Sized> Clone for $name<'_, T> {
            fn clone(&self) -> Self {
                $name(self.0)
            }
        }

        impl<T: ?Sized> fmt::Debug for $name<'_, T> {
            fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
                f.debug_struct(stringify!($name))
                    .field("remaining", &self.0.len())
                    .finish()
            }
        }
    };
}

objects_from_walk!(BackToFront);
objects_from_walk!(Range);

impl<T: ?Sized> ExactSizeIterator for BackToFront<'_, T> {}

impl<T: ?Sized> Iterator for IntoIter<T> {
    type Item = Rc<ZObject<T>>;

    fn next(&mut self) -> Option<Rc<ZObject<T>>> {
        self.0.next_up().map(|(object, _)| object)
    }

    fn size_hint(&self) -> (usize, Option<usize>) {
        (self.0.len(), Some(self.0.len()))
    }
}

impl<T: ?Sized> DoubleEndedIterator for IntoIter<T> {
    fn next_back(&mut self) -> Option<Rc<ZObject<T>>> {
        self.0.next_down().map(|(object, _)| object)
    }
}

impl<T: ?Sized> ExactSizeIterator for IntoIter<T> {}
impl<T: ?Sized> FusedIterator for IntoIter<T> {}

impl<T: ?Sized> Drop for IntoIter<T> {
    fn drop(&mut self) {
        release(self.by_ref());
    }
}

impl<T: ?Sized> fmt::Debug for IntoIter<T> {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_struct("IntoIter")
            .field("remaining", &self.len())
            .finish()
    }
}
