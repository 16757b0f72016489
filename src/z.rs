//! Z values: the type, the default Z, and the natural levels a collection
//! reaches in O(1).

pub use fixed::types::I16F16;

/// The Z every legacy object is created with: `I16F16::MAX` (bits
/// `0x7FFF_FFFF`, the legacy `Integer.MAX_VALUE`).
///
/// A fixed-point collection keeps a dedicated bucket for it, so the
/// legacy creation pattern (file at the default Z, then move to the layer)
/// costs two O(1) Z-actions. A simple collection refuses it, as it refuses
/// every Z that is not one of its levels.
///
/// ```
/// use zorder::{DEFAULT_Z, I16F16};
///
/// assert_eq!(DEFAULT_Z, I16F16::MAX);
/// assert_eq!(DEFAULT_Z.to_bits(), i32::MAX);
/// ```
pub const DEFAULT_Z: I16F16 = I16F16::MAX;

/// The largest `max_level` a collection takes: the largest integer an
/// `I16F16` holds.
pub(crate) const MAX_LEVEL: u16 = 32767;

/// The default pruning threshold (see the crate docs on pruning).
pub(crate) const DEFAULT_PRUNE_AFTER: u32 = 8;

const FRACTION_MASK: i32 = (1 << I16F16::FRAC_NBITS) - 1;

/// The optimized level of `z`: `Some(n)` when `z` is the natural number `n`
/// and `n <= max_level`.
#[inline]
pub(crate) fn optimized_level(z: I16F16, max_level: u16) -> Option<usize> {
    let bits = z.to_bits();
    let level = bits >> I16F16::FRAC_NBITS;
    let natural = bits >= 0 && bits & FRACTION_MASK == 0;
    (natural && level <= i32::from(max_level)).then_some(level as usize)
}

/// The Z of natural level `level`.
#[cfg(any(test, feature = "check"))]
pub(crate) fn level_z(level: usize) -> I16F16 {
    I16F16::from_bits((level as i32) << I16F16::FRAC_NBITS)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn optimized_levels_are_the_natural_numbers_up_to_max_level() {
        let z = I16F16::from_bits;
        assert_eq!(optimized_level(z(0), 0), Some(0));
        assert_eq!(optimized_level(z(5 << 16), 5), Some(5));
        assert_eq!(optimized_level(z(6 << 16), 5), None);
        assert_eq!(optimized_level(z((5 << 16) + 1), 5), None);
        assert_eq!(optimized_level(z(-(1 << 16)), 5), None);
        assert_eq!(optimized_level(I16F16::MAX, MAX_LEVEL), None);
        assert_eq!(optimized_level(I16F16::MIN, MAX_LEVEL), None);
        assert_eq!(
            optimized_level(I16F16::from_num(32767), MAX_LEVEL),
            Some(32767)
        );
        assert_eq!(level_z(32767), I16F16::from_num(32767));
    }
}
