//! The one error type of the crate.

use core::fmt;

use crate::z::{DEFAULT_Z, I16F16, MAX_LEVEL};

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
    /// An insert of a key that this collection holds, or an add of an
    /// object that is in a collection, this one or another: an object
    /// lives in at most one collection at a time.
    AlreadyInCollection,
    /// A remove, re-file or lookup of a key or object that this collection
    /// does not hold: a key it never held or no longer holds, or a stale
    /// key (another generation of a held key's index); an object in no
    /// collection or in another one.
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
    /// legacy 16.16 int, beside the decimal value, and names
    /// [`DEFAULT_Z`](crate::DEFAULT_Z) when it is the default Z (which a
    /// simple collection refuses too).
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
    /// removing the old key first. [`ZOrder::replace`](crate::ZOrder::replace)
    /// inserts over it instead.
    IndexInUse {
        /// The index both keys share.
        index: usize,
    },
    /// The collection cannot grow that far: more entries than its 32-bit
    /// places can name (past 2^28 entries in one chain), or a reservation
    /// larger than memory.
    CapacityOverflow,
}

impl fmt::Display for ZError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            ZError::AlreadyInCollection => {
                f.write_str("the key or object is already in a Z collection")
            }
            ZError::NotInCollection => f.write_str("the key or object is not in this Z collection"),
            ZError::ZOutOfRange { z, max_level } if *z == DEFAULT_Z => write!(
                f,
                "Z is the default Z (DEFAULT_Z, I16F16::MAX, bits {:#010x}), which a simple collection refuses: it takes only its levels, the natural numbers from 0 to {max_level}",
                z.to_bits()
            ),
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
                "another key with index {index} is in this Z collection (remove the stale key first, or replace it)"
            ),
            ZError::CapacityOverflow => f.write_str("the Z collection cannot grow that large"),
        }
    }
}

impl core::error::Error for ZError {}
