//! In-walk updates: what an update does with each entry it visits, and
//! what it did.
//!
//! An update's closure returns [`ControlFlow`](core::ops::ControlFlow):
//! `Continue(action)` to act on the entry and go on, `Break(action)` to
//! act on it and stop the walk there.

use crate::z::I16F16;

/// What [`RcZCollection::update_back_to_front`](crate::RcZCollection::update_back_to_front)
/// and [`update_front_to_back`](crate::RcZCollection::update_front_to_back)
/// do with each object they visit.
///
/// Touch dispatch, for instance, walks front to back and stops at the
/// first object hit, which may change its Z on the way:
///
/// ```
/// use std::cell::Cell;
/// use std::ops::ControlFlow::{Break, Continue};
/// use std::rc::Rc;
/// use zorder::{FixedPointZCollection, I16F16, Visit, ZObject};
///
/// let z = |v: i32| Rc::new(ZObject::new(Cell::new(I16F16::from_num(v))));
/// let (back, middle, front) = (z(1), z(2), z(3));
/// let mut scene = FixedPointZCollection::new(10)?;
/// for object in [&back, &middle, &front] {
///     scene.add(object)?;
/// }
/// // The touch hits `middle` and `back`; only the top-most one gets it,
/// // and comes to the front.
/// let hit = |o: &Rc<ZObject<Cell<I16F16>>>| !ZObject::ptr_eq(o, &front);
/// let done = scene.update_front_to_back(|object| {
///     if hit(object) {
///         object.set(I16F16::from_num(9));
///         Break(Visit::Change)
///     } else {
///         Continue(Visit::Keep)
///     }
/// });
/// assert_eq!((done.changed, done.visited), (1, 2));
/// assert!(ZObject::ptr_eq(scene.front_to_back().next().unwrap(), &middle));
/// # Ok::<(), zorder::ZError>(())
/// ```
///
/// The enum is `#[non_exhaustive]`: a match on it needs a wildcard arm, so
/// new actions can come without breaking code.
///
/// ```compile_fail
/// use zorder::Visit;
///
/// fn moves(visit: Visit) -> bool {
///     match visit {
///         Visit::Keep => false,
///         Visit::Remove | Visit::Change => true,
///     }
/// }
/// ```
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
#[non_exhaustive]
pub enum Visit {
    /// Leave the object where it is.
    Keep,
    /// Remove the object.
    Remove,
    /// Re-read the object's Z and re-file it, exactly as `change` does.
    Change,
}

/// What [`ZOrder::update_back_to_front`](crate::ZOrder::update_back_to_front)
/// and [`update_front_to_back`](crate::ZOrder::update_front_to_back) do
/// with each key they visit.
///
/// ```
/// use std::ops::ControlFlow::{Break, Continue};
/// use zorder::{I16F16, KeyVisit, ZOrder};
///
/// let mut order = ZOrder::<u32>::new(10)?;
/// for (key, z) in [(0, 1), (1, 2), (2, 3)] {
///     order.insert(key, I16F16::from_num(z))?;
/// }
/// // Keys 1 and 2 are under the finger: the top-most one, 2, takes the
/// // touch and moves to the back.
/// let done = order.update_front_to_back(|key, _z| match key {
///     1 | 2 => Break(KeyVisit::SetZ(I16F16::ZERO)),
///     _ => Continue(KeyVisit::Keep),
/// });
/// assert_eq!((done.changed, done.visited), (1, 1));
/// assert_eq!(order.back_to_front().collect::<Vec<_>>(), [2, 0, 1]);
/// # Ok::<(), zorder::ZError>(())
/// ```
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
#[non_exhaustive]
pub enum KeyVisit {
    /// Leave the key where it is.
    Keep,
    /// Remove the key.
    Remove,
    /// Re-file the key at the Z it has, as [`ZOrder::refile`](crate::ZOrder::refile)
    /// does (it comes to the front of its Z).
    Refile,
    /// Re-file the key at this Z, as [`ZOrder::set_z`](crate::ZOrder::set_z)
    /// does.
    SetZ(I16F16),
}

/// What an in-walk update did.
///
/// ```
/// use std::ops::ControlFlow::Continue;
/// use zorder::{I16F16, KeyVisit, ZOrder};
///
/// let mut order = ZOrder::<u32>::simple(3)?;
/// order.insert(1, I16F16::from_num(1))?;
/// order.insert(2, I16F16::from_num(2))?;
/// let done = order.update_back_to_front(|key, _| match key {
///     1 => Continue(KeyVisit::Remove),
///     _ => Continue(KeyVisit::SetZ(I16F16::from_num(2.5))), // not a level: refused
/// });
/// assert_eq!((done.visited, done.removed, done.changed, done.refused), (2, 1, 0, 1));
/// # Ok::<(), zorder::ZError>(())
/// ```
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq, Hash)]
#[non_exhaustive]
#[must_use]
pub struct Updated {
    /// Entries the walk visited (the closure's calls).
    pub visited: usize,
    /// Entries removed.
    pub removed: usize,
    /// Entries re-filed.
    pub changed: usize,
    /// Re-filings refused because the collection takes no such Z (only a
    /// simple layout refuses a Z); those entries stayed where they were.
    pub refused: usize,
}
