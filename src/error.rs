//! The one error type of the crate.

use core::fmt;

use crate::I16F16;

/// Why an operation was refused. An operation that returns an error has
/// changed nothing.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
#[non_exhaustive]
pub enum ZError {
    /// `add` of an object that is already in a collection (this one or
    /// another): an object lives in at most one collection at a time.
    AlreadyInCollection,
    /// `remove` or `change` of an object that is not in this collection
    /// (it is in no collection, or in another one).
    NotInCollection,
    /// The Z is not one of the levels of a
    /// [`SimpleZCollection`](crate::SimpleZCollection): a natural number in
    /// `0..=max_level`.
    ZOutOfRange {
        /// The Z the object reported.
        z: I16F16,
        /// The collection's highest level.
        max_level: u16,
    },
    /// A collection was asked for more levels than an `I16F16` has natural
    /// numbers: `max_level` must be at most
    /// [`MAX_LEVEL_LIMIT`](crate::MAX_LEVEL_LIMIT).
    MaxLevelTooLarge {
        /// The `max_level` asked for.
        max_level: u16,
    },
    /// The pruning threshold must be at least 1: a bucket is freed after
    /// traversals have found it empty that many times in a row.
    ZeroPruneThreshold,
}

impl ZError {
    /// A short, stable, kebab-case name for the error, as the replay tool
    /// prints it (`already-in-collection`, ...).
    pub const fn code(&self) -> &'static str {
        match self {
            ZError::AlreadyInCollection => "already-in-collection",
            ZError::NotInCollection => "not-in-collection",
            ZError::ZOutOfRange { .. } => "z-out-of-range",
            ZError::MaxLevelTooLarge { .. } => "max-level-too-large",
            ZError::ZeroPruneThreshold => "zero-prune-threshold",
        }
    }
}

impl fmt::Display for ZError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            ZError::AlreadyInCollection => f.write_str("the object is already in a Z collection"),
            ZError::NotInCollection => f.write_str("the object is not in this Z collection"),
            ZError::ZOutOfRange { z, max_level } => write!(
                f,
                "Z {z} is not a level of this collection (a natural number from 0 to {max_level})"
            ),
            ZError::MaxLevelTooLarge { max_level } => write!(
                f,
                "max_level {max_level} is larger than {}",
                crate::MAX_LEVEL_LIMIT
            ),
            ZError::ZeroPruneThreshold => f.write_str("the pruning threshold must be at least 1"),
        }
    }
}

impl core::error::Error for ZError {}
