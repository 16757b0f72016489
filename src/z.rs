//! Z values: what an object reports, the default Z, and natural levels.

use core::cell::Cell;

pub use fixed::types::I16F16;

/// The Z every legacy object is created with: `I16F16::MAX` (bits `0x7FFF_FFFF`).
///
/// [`FixedPointZCollection`](crate::FixedPointZCollection) keeps a dedicated
/// bucket for it, so the create-then-move pattern of the legacy engine costs
/// two O(1) Z-actions.
pub const DEFAULT_Z: I16F16 = I16F16::MAX;

/// The largest `max_level` a collection accepts: the largest integer an
/// `I16F16` holds.
pub const MAX_LEVEL_LIMIT: u16 = 32767;

/// An object that reports its Z, like the legacy `ZSortable.getZOrder()`.
///
/// Collections read it in [`add`](crate::Collection::add) and
/// [`change`](crate::Collection::change), never at any other time, so the
/// object may change its Z freely in between; the new Z takes effect at the
/// next `change`.
///
/// ```
/// use core::cell::Cell;
/// use zorder::{I16F16, ZSortable};
///
/// struct Sprite {
///     z: Cell<I16F16>,
///     name: &'static str,
/// }
///
/// impl ZSortable for Sprite {
///     fn z_order(&self) -> I16F16 {
///         self.z.get()
///     }
/// }
/// # let s = Sprite { z: Cell::new(I16F16::from_num(3)), name: "hero" };
/// # assert_eq!(s.z_order(), 3);
/// ```
pub trait ZSortable {
    /// The object's current Z.
    fn z_order(&self) -> I16F16;
}

/// A bare Z cell is the smallest sortable object, handy in tests and tools.
impl ZSortable for Cell<I16F16> {
    fn z_order(&self) -> I16F16 {
        self.get()
    }
}

impl<S: ZSortable + ?Sized> ZSortable for &S {
    fn z_order(&self) -> I16F16 {
        (**self).z_order()
    }
}

/// The optimized level of `z`: `Some(n)` when `z` is the natural number `n`
/// and `n <= max_level`.
#[inline]
pub(crate) fn optimized_level(z: I16F16, max_level: u16) -> Option<usize> {
    let bits = z.to_bits();
    let level = bits >> I16F16::FRAC_NBITS;
    let is_natural = bits >= 0 && bits & FRACTION_MASK == 0;
    (is_natural && level <= i32::from(max_level)).then_some(level as usize)
}

/// The natural level just at or below `z`, clamped into `0..=max_level`:
/// where the walk to a non-optimized bucket starts.
#[inline]
pub(crate) fn nearest_level(z: I16F16, max_level: u16) -> usize {
    let floor = z.to_bits() >> I16F16::FRAC_NBITS;
    floor.clamp(0, i32::from(max_level)) as usize
}

const FRACTION_MASK: i32 = (1 << I16F16::FRAC_NBITS) - 1;

#[cfg(test)]
mod tests {
    use super::*;

    fn z(bits: i32) -> I16F16 {
        I16F16::from_bits(bits)
    }

    #[test]
    fn optimized_levels_are_the_natural_numbers_up_to_max_level() {
        assert_eq!(optimized_level(z(0), 0), Some(0));
        assert_eq!(optimized_level(z(5 << 16), 5), Some(5));
        assert_eq!(optimized_level(z(6 << 16), 5), None);
        assert_eq!(optimized_level(z((5 << 16) + 1), 5), None);
        assert_eq!(optimized_level(z(-(1 << 16)), 5), None);
        assert_eq!(optimized_level(I16F16::MAX, MAX_LEVEL_LIMIT), None);
        assert_eq!(optimized_level(I16F16::MIN, MAX_LEVEL_LIMIT), None);
        assert_eq!(
            optimized_level(I16F16::from_num(32767), MAX_LEVEL_LIMIT),
            Some(32767)
        );
    }

    #[test]
    fn nearest_level_floors_and_clamps() {
        assert_eq!(nearest_level(I16F16::from_num(2.5), 10), 2);
        assert_eq!(nearest_level(I16F16::from_num(-0.5), 10), 0);
        assert_eq!(nearest_level(I16F16::MIN, 10), 0);
        assert_eq!(nearest_level(I16F16::from_num(11.5), 10), 10);
        assert_eq!(nearest_level(I16F16::MAX, 10), 10);
    }
}
