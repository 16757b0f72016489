//! One trait over both collections, like the legacy `ZCollection` interface.

use alloc::rc::Rc;

use crate::collection::{Levels, Updated, Visit};
use crate::{BackToFront, Collection, FrontToBack, ZError, ZObject, ZSortable};

/// The operations both collections share, for engine code that works with
/// either (generically or as `dyn ZCollection<T>`).
///
/// Each method does exactly what the inherent method of the same name on
/// [`Collection`] does.
///
/// ```
/// use std::cell::Cell;
/// use std::rc::Rc;
/// use zorder::{FixedPointZCollection, I16F16, SimpleZCollection, ZCollection, ZObject};
///
/// type Sprite = Cell<I16F16>;
///
/// fn topmost_at_level(scene: &dyn ZCollection<Sprite>, level: i32) -> Option<&ZObject<Sprite>> {
///     scene.front_to_back().find(|s| s.get() == level)
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
///     assert!(topmost_at_level(scene.as_ref(), 1).unwrap().same(&b));
///     scene.clear();
/// }
/// # Ok::<(), zorder::ZError>(())
/// ```
pub trait ZCollection<T: ZSortable> {
    /// See [`Collection::add`].
    fn add(&mut self, object: &Rc<ZObject<T>>) -> Result<(), ZError>;
    /// See [`Collection::remove`].
    fn remove(&mut self, object: &Rc<ZObject<T>>) -> Result<(), ZError>;
    /// See [`Collection::change`].
    fn change(&mut self, object: &Rc<ZObject<T>>) -> Result<(), ZError>;
    /// See [`Collection::contains`].
    fn contains(&self, object: &ZObject<T>) -> bool;
    /// See [`Collection::len`].
    fn len(&self) -> usize;
    /// See [`Collection::is_empty`].
    fn is_empty(&self) -> bool {
        self.len() == 0
    }
    /// See [`Collection::clear`].
    fn clear(&mut self);
    /// See [`Collection::back_to_front`].
    fn back_to_front(&self) -> BackToFront<'_, T>;
    /// See [`Collection::front_to_back`].
    fn front_to_back(&self) -> FrontToBack<'_, T>;
    /// See [`Collection::update`].
    fn update(&mut self, visit: &mut dyn FnMut(&ZObject<T>) -> Visit) -> Updated;
    /// See [`Collection::retain`].
    fn retain(&mut self, keep: &mut dyn FnMut(&ZObject<T>) -> bool) -> usize {
        let updated = self.update(&mut |object| {
            if keep(object) {
                Visit::Keep
            } else {
                Visit::Remove
            }
        });
        updated.removed
    }
    /// See [`Collection::max_level`].
    fn max_level(&self) -> u16;
    /// See [`Collection::nonoptimized_buckets`].
    fn nonoptimized_buckets(&self) -> usize;
}

impl<T: ZSortable, L: Levels<T>> ZCollection<T> for Collection<T, L> {
    fn add(&mut self, object: &Rc<ZObject<T>>) -> Result<(), ZError> {
        Collection::add(self, object)
    }
    fn remove(&mut self, object: &Rc<ZObject<T>>) -> Result<(), ZError> {
        Collection::remove(self, object)
    }
    fn change(&mut self, object: &Rc<ZObject<T>>) -> Result<(), ZError> {
        Collection::change(self, object)
    }
    fn contains(&self, object: &ZObject<T>) -> bool {
        Collection::contains(self, object)
    }
    fn len(&self) -> usize {
        Collection::len(self)
    }
    fn clear(&mut self) {
        Collection::clear(self);
    }
    fn back_to_front(&self) -> BackToFront<'_, T> {
        Collection::back_to_front(self)
    }
    fn front_to_back(&self) -> FrontToBack<'_, T> {
        Collection::front_to_back(self)
    }
    fn update(&mut self, visit: &mut dyn FnMut(&ZObject<T>) -> Visit) -> Updated {
        Collection::update(self, visit)
    }
    fn max_level(&self) -> u16 {
        Collection::max_level(self)
    }
    fn nonoptimized_buckets(&self) -> usize {
        Collection::nonoptimized_buckets(self)
    }
}
