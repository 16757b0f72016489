//! The one error type of the crate.

use core::fmt;

use crate::z::{I16F16, MAX_LEVEL};

/// Why an operation was refused. An operation that returns an error has
/// changed nothing.
///
/// ```
/// use zorder::{I16F16, ZError, ZOrder};
///
/// let mut hud = ZOrder::<u32>::simple(3)?;
/// let err = hud.insert(7, I16F16::from_bits(1)).unwrap_err();
/// assert_eq!(err, ZError::ZOutOfRange { z: I16F16::from_bits(1), max_level: 3 });
/// assert_eq!(
///     err.to_string(),
///     "Z 0.00002 (bits 0x00000001) is not a level of this collection (a natural number from 0 to 3)"
/// );
/// assert!(hud.is_empty());
/// # Ok::<(), ZError>(())
/// ```
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
#[non_exhaustive]
pub enum ZError {
    /// An add or insert of an object (or key) that is already in a
    /// collection, this one or another: an object lives in at most one
    /// collection at a time.
    AlreadyInCollection,
    /// A remove, change or lookup of an object (or key) that is not in
    /// this collection: it is in no collection, in another one, or (for a
    /// generational key) it is a stale key whose index now belongs to
    /// another generation.
    ///
    /// Porting note: the legacy Java collections did not agree here. The
    /// Java `SimpleZCollection.remove` of a non-member did nothing, and its
    /// `change` of a non-member added it; the Java `FixedPointZCollection`
    /// threw a `NullPointerException` for both. Both collections here
    /// return this error and change nothing, so a port that relied on the
    /// Java simple collection's leniency must handle it, for instance with
    /// `if scene.contains(&o) { scene.change(&o)? } else { scene.add(&o)? }`.
    NotInCollection,
    /// The Z is not one of the levels of a simple collection: a natural
    /// number in `0..=max_level`. Its message shows the exact bits, as a
    /// legacy 16.16 int, beside the decimal value.
    ZOutOfRange {
        /// The Z refused.
        z: I16F16,
        /// The collection's highest level.
        max_level: u16,
    },
    /// A collection was asked for more levels than an `I16F16` has natural
    /// numbers: `max_level` must be at most 32767.
    MaxLevelTooLarge {
        /// The `max_level` asked for.
        max_level: u16,
    },
    /// The pruning threshold must be at least 1.
    ZeroPruneThreshold,
    /// An insert of a key whose index another key (another generation of
    /// it) still holds in this collection: the game reused an index without
    /// removing the old key first.
    IndexInUse {
        /// The index both keys share.
        index: usize,
    },
    /// The collection cannot grow that far: a key's index too large to
    /// allocate a place for, or more entries than 32-bit places can name.
    CapacityOverflow,
}

impl fmt::Display for ZError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            ZError::AlreadyInCollection => f.write_str("the object is already in a Z collection"),
            ZError::NotInCollection => f.write_str("the object is not in this Z collection"),
            ZError::ZOutOfRange { z, max_level } => write!(
                f,
                "Z {z} (bits {:#010x}) is not a level of this collection (a natural number from 0 to {max_level})",
                z.to_bits()
            ),
            ZError::MaxLevelTooLarge { max_level } => {
                write!(f, "max_level {max_level} is larger than {MAX_LEVEL}")
            }
            ZError::ZeroPruneThreshold => f.write_str("the pruning threshold must be at least 1"),
            ZError::IndexInUse { index } => write!(
                f,
                "another key with index {index} is in this Z collection (remove the stale key first)"
            ),
            ZError::CapacityOverflow => f.write_str("the Z collection cannot grow that large"),
        }
    }
}

impl core::error::Error for ZError {}
