//! `serde` support for [`ZOrder`] (the `serde` feature).
//!
//! A `ZOrder` is written as its layout and its keys with their Z, back to
//! front: `{"max_level": 31, "prune_after": 8, "entries": [[key, bits], ...]}`
//! (`prune_after` is `null` for a simple layout; each Z is written as its
//! exact `I16F16` bits, a 32-bit integer). Reading it back inserts the keys
//! in that order, which restores the exact order, ties included. Pruning
//! state (buckets waiting to be pruned) is not written: a round trip yields
//! a collection whose [`nonoptimized_buckets`](ZOrder::nonoptimized_buckets)
//! counts only live buckets.

use alloc::vec::Vec;
use core::fmt;

use serde::de::Error as _;
use serde::ser::{SerializeSeq, SerializeStruct};
use serde::{Deserialize, Deserializer, Serialize, Serializer};

use crate::keyed::{Iter, ZKey, ZOrder};
use crate::z::I16F16;

/// The entries, back to front, as `(key, bits)` pairs.
struct Entries<'a, K: ZKey>(Iter<'a, K>);

impl<K: ZKey + Serialize> Serialize for Entries<'_, K> {
    fn serialize<S: Serializer>(&self, serializer: S) -> Result<S::Ok, S::Error> {
        let mut seq = serializer.serialize_seq(Some(self.0.len()))?;
        for (key, z) in self.0.clone() {
            seq.serialize_element(&(key, z.to_bits()))?;
        }
        seq.end()
    }
}

impl<K: ZKey + Serialize> Serialize for ZOrder<K> {
    /// Writes the layout and the entries back to front; does not count as
    /// a traversal.
    fn serialize<S: Serializer>(&self, serializer: S) -> Result<S::Ok, S::Error> {
        let mut state = serializer.serialize_struct("ZOrder", 3)?;
        state.serialize_field("max_level", &self.max_level())?;
        state.serialize_field("prune_after", &self.prune_after())?;
        state.serialize_field("entries", &Entries(self.quiet_iter()))?;
        state.end()
    }
}

#[derive(Deserialize)]
#[serde(rename = "ZOrder")]
struct Repr<K> {
    max_level: u16,
    prune_after: Option<u32>,
    entries: Vec<(K, i32)>,
}

impl<'de, K: ZKey + Deserialize<'de> + fmt::Debug> Deserialize<'de> for ZOrder<K> {
    /// Rebuilds the collection, inserting the entries in the order written.
    ///
    /// # Errors
    ///
    /// The layout's error (a `max_level` above 32767, a `prune_after` of
    /// 0), or the first entry refused (a key twice, a Z a simple layout
    /// has no level for), as a `serde` error naming it.
    fn deserialize<D: Deserializer<'de>>(deserializer: D) -> Result<Self, D::Error> {
        let repr = Repr::<K>::deserialize(deserializer)?;
        let mut order = match repr.prune_after {
            Some(prune_after) => ZOrder::with_prune_after(repr.max_level, prune_after),
            None => ZOrder::simple(repr.max_level),
        }
        .map_err(D::Error::custom)?;
        order.reserve(repr.entries.len());
        for (key, bits) in repr.entries {
            order
                .insert(key, I16F16::from_bits(bits))
                .map_err(|error| D::Error::custom(format_args!("entry {key:?}: {error}")))?;
        }
        Ok(order)
    }
}
