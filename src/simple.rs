//! The simple collection: optimized natural levels only, in a plain array.

use alloc::vec::Vec;
use core::fmt;
use core::ptr::NonNull;

use crate::bucket::{Bucket, BucketKind, Owner, OwnerToken};
use crate::collection::Collection;
use crate::collection::sealed::LevelsImpl;
use crate::sections::Layout;
use crate::z::optimized_level;
use crate::{I16F16, MAX_LEVEL_LIMIT, ZError};

/// The simple Z collection for new code: Z must be a natural number in
/// `0..=max_level`, and every operation is O(1). Any other Z, including the
/// default Z, is refused with [`ZError::ZOutOfRange`].
///
/// A drop-in for the legacy `SimpleZCollection`.
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
/// # Ok::<(), zorder::ZError>(())
/// ```
pub type SimpleZCollection<T> = Collection<T, SimpleLevels<T>>;

/// The bucket storage of a [`SimpleZCollection`]: one bucket per level, in
/// an array indexed by the level.
pub struct SimpleLevels<T> {
    /// Never resized after construction, and only ever borrowed shared, so
    /// pointers into it stay valid.
    buckets: Vec<Bucket<T>>,
    token: OwnerToken,
}

impl<T> SimpleZCollection<T> {
    /// A collection with levels `0..=max_level`.
    ///
    /// # Errors
    ///
    /// [`ZError::MaxLevelTooLarge`] if `max_level` exceeds
    /// [`MAX_LEVEL_LIMIT`].
    pub fn new(max_level: u16) -> Result<Self, ZError> {
        if max_level > MAX_LEVEL_LIMIT {
            return Err(ZError::MaxLevelTooLarge { max_level });
        }
        let token = OwnerToken::new();
        let buckets = (0..=i32::from(max_level))
            .map(|level| {
                Bucket::new(
                    I16F16::from_bits(level << I16F16::FRAC_NBITS),
                    BucketKind::Level,
                    level as usize,
                    token.owner(),
                )
            })
            .collect();
        Ok(Collection::with_levels(SimpleLevels { buckets, token }))
    }
}

// The sealed trait speaks of crate-private types on purpose.
#[allow(private_interfaces)]
impl<T> LevelsImpl<T> for SimpleLevels<T> {
    const NAME: &'static str = "SimpleZCollection";

    fn owner(&self) -> Owner {
        self.token.owner()
    }

    fn max_level(&self) -> u16 {
        (self.buckets.len() - 1) as u16
    }

    fn sections(&self) -> usize {
        self.buckets.len()
    }

    #[inline]
    fn locate(&mut self, z: I16F16) -> Result<NonNull<Bucket<T>>, ZError> {
        let max_level = self.max_level();
        match optimized_level(z, max_level) {
            Some(level) => Ok(NonNull::from(&self.buckets[level])),
            None => Err(ZError::ZOutOfRange { z, max_level }),
        }
    }

    fn layout(&self) -> Layout<'_, T> {
        Layout::Array(&self.buckets)
    }

    fn nonoptimized_buckets(&self) -> usize {
        0
    }
}

impl<T> fmt::Debug for SimpleLevels<T> {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_struct("SimpleLevels")
            .field("max_level", &self.max_level())
            .finish()
    }
}
