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
//!
//! Reading allocates only for the entries it reads: entries go straight
//! into the collection (or, if a document puts them before the layout, into
//! a list grown entry by entry), so no declared length or size hint can
//! make it reserve memory.

use alloc::vec::Vec;
use core::fmt;
use core::marker::PhantomData;

use serde::de::{self, DeserializeSeed, Error as _, IgnoredAny, MapAccess, SeqAccess, Visitor};
use serde::ser::{SerializeSeq, SerializeStruct};
use serde::{Deserialize, Deserializer, Serialize, Serializer};

use super::{Iter, ZKey, ZOrder};
use crate::layout::Layout;
use crate::z::I16F16;

const FIELDS: &[&str] = &["max_level", "prune_after", "entries"];

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

impl<K: ZKey + Serialize, L: Layout> Serialize for ZOrder<K, L> {
    /// Writes the layout and the entries back to front; does not count as
    /// a traversal.
    fn serialize<S: Serializer>(&self, serializer: S) -> Result<S::Ok, S::Error> {
        let mut state = serializer.serialize_struct("ZOrder", 3)?;
        state.serialize_field("max_level", &self.max_level())?;
        state.serialize_field("prune_after", &self.core.prune_after())?;
        state.serialize_field("entries", &Entries(self.quiet_iter()))?;
        state.end()
    }
}

/// An empty collection of layout `L` as a document describes it.
fn build<K: ZKey, L: Layout, E: de::Error>(
    max_level: u16,
    prune_after: Option<u32>,
) -> Result<ZOrder<K, L>, E> {
    match (prune_after, L::EVERY_Z) {
        (Some(prune_after), true) => ZOrder::build(max_level, prune_after).map_err(E::custom),
        (None, false) => ZOrder::build(max_level, 0).map_err(E::custom),
        (Some(_), false) => Err(E::custom(
            "a fixed-point ZOrder's document (prune_after is a number) read as a simple one",
        )),
        (None, true) => Err(E::custom(
            "a simple ZOrder's document (prune_after is null) read as a fixed-point one",
        )),
    }
}

/// Inserts `key` at the Z of `bits`, naming the entry on error.
fn insert<K: ZKey + fmt::Debug, L: Layout, E: de::Error>(
    order: &mut ZOrder<K, L>,
    key: K,
    bits: i32,
) -> Result<(), E> {
    order
        .insert(key, I16F16::from_bits(bits))
        .map_err(|error| E::custom(format_args!("entry {key:?}: {error}")))
}

/// Reads the entries straight into a collection.
struct IntoOrder<'a, K: ZKey, L: Layout>(&'a mut ZOrder<K, L>);

impl<'de, K, L> DeserializeSeed<'de> for IntoOrder<'_, K, L>
where
    K: ZKey + Deserialize<'de> + fmt::Debug,
    L: Layout,
{
    type Value = ();

    fn deserialize<D: Deserializer<'de>>(self, deserializer: D) -> Result<(), D::Error> {
        deserializer.deserialize_seq(self)
    }
}

impl<'de, K, L> Visitor<'de> for IntoOrder<'_, K, L>
where
    K: ZKey + Deserialize<'de> + fmt::Debug,
    L: Layout,
{
    type Value = ();

    fn expecting(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str("a list of [key, Z bits] pairs")
    }

    fn visit_seq<A: SeqAccess<'de>>(self, mut seq: A) -> Result<(), A::Error> {
        while let Some((key, bits)) = seq.next_element::<(K, i32)>()? {
            insert(self.0, key, bits)?;
        }
        Ok(())
    }
}

/// Reads entries into a list grown one at a time, for a document that puts
/// them before the layout.
struct Buffered<K>(PhantomData<K>);

impl<'de, K: Deserialize<'de>> DeserializeSeed<'de> for Buffered<K> {
    type Value = Vec<(K, i32)>;

    fn deserialize<D: Deserializer<'de>>(self, deserializer: D) -> Result<Self::Value, D::Error> {
        deserializer.deserialize_seq(self)
    }
}

impl<'de, K: Deserialize<'de>> Visitor<'de> for Buffered<K> {
    type Value = Vec<(K, i32)>;

    fn expecting(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str("a list of [key, Z bits] pairs")
    }

    fn visit_seq<A: SeqAccess<'de>>(self, mut seq: A) -> Result<Self::Value, A::Error> {
        let mut entries = Vec::new();
        while let Some(entry) = seq.next_element()? {
            entries.push(entry);
        }
        Ok(entries)
    }
}

/// The fields of the document.
enum Field {
    MaxLevel,
    PruneAfter,
    Entries,
    Other,
}

impl<'de> Deserialize<'de> for Field {
    fn deserialize<D: Deserializer<'de>>(deserializer: D) -> Result<Self, D::Error> {
        struct FieldVisitor;
        impl Visitor<'_> for FieldVisitor {
            type Value = Field;
            fn expecting(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
                f.write_str("a field name")
            }
            fn visit_str<E: de::Error>(self, name: &str) -> Result<Field, E> {
                Ok(match name {
                    "max_level" => Field::MaxLevel,
                    "prune_after" => Field::PruneAfter,
                    "entries" => Field::Entries,
                    _ => Field::Other,
                })
            }
        }
        deserializer.deserialize_identifier(FieldVisitor)
    }
}

struct OrderVisitor<K, L>(PhantomData<(K, L)>);

impl<'de, K, L> Visitor<'de> for OrderVisitor<K, L>
where
    K: ZKey + Deserialize<'de> + fmt::Debug,
    L: Layout,
{
    type Value = ZOrder<K, L>;

    fn expecting(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str("a ZOrder: max_level, prune_after and entries")
    }

    fn visit_seq<A: SeqAccess<'de>>(self, mut seq: A) -> Result<Self::Value, A::Error> {
        let missing = |n| A::Error::invalid_length(n, &self);
        let max_level = seq.next_element()?.ok_or_else(|| missing(0))?;
        let prune_after = seq.next_element()?.ok_or_else(|| missing(1))?;
        let mut order = build(max_level, prune_after)?;
        seq.next_element_seed(IntoOrder(&mut order))?
            .ok_or_else(|| missing(2))?;
        Ok(order)
    }

    fn visit_map<A: MapAccess<'de>>(self, mut map: A) -> Result<Self::Value, A::Error> {
        let mut max_level: Option<u16> = None;
        let mut prune_after: Option<Option<u32>> = None;
        let mut order: Option<ZOrder<K, L>> = None;
        let mut early: Option<Vec<(K, i32)>> = None;
        while let Some(field) = map.next_key()? {
            match field {
                Field::MaxLevel if max_level.is_none() => max_level = Some(map.next_value()?),
                Field::PruneAfter if prune_after.is_none() => {
                    prune_after = Some(map.next_value()?);
                }
                Field::Entries if order.is_none() && early.is_none() => {
                    if let (Some(max_level), Some(prune_after)) = (max_level, prune_after) {
                        let mut built = build(max_level, prune_after)?;
                        map.next_value_seed(IntoOrder(&mut built))?;
                        order = Some(built);
                    } else {
                        early = Some(map.next_value_seed(Buffered(PhantomData))?);
                    }
                }
                Field::MaxLevel => return Err(A::Error::duplicate_field("max_level")),
                Field::PruneAfter => return Err(A::Error::duplicate_field("prune_after")),
                Field::Entries => return Err(A::Error::duplicate_field("entries")),
                Field::Other => {
                    map.next_value::<IgnoredAny>()?;
                }
            }
        }
        let max_level = max_level.ok_or_else(|| A::Error::missing_field("max_level"))?;
        let prune_after = prune_after.ok_or_else(|| A::Error::missing_field("prune_after"))?;
        match (order, early) {
            (Some(order), _) => Ok(order),
            (None, Some(entries)) => {
                let mut order = build(max_level, prune_after)?;
                for (key, bits) in entries {
                    insert(&mut order, key, bits)?;
                }
                Ok(order)
            }
            (None, None) => Err(A::Error::missing_field("entries")),
        }
    }
}

impl<'de, K, L> Deserialize<'de> for ZOrder<K, L>
where
    K: ZKey + Deserialize<'de> + fmt::Debug,
    L: Layout,
{
    /// Rebuilds the collection, inserting the entries in the order written.
    ///
    /// # Errors
    ///
    /// The layout's error (a `max_level` above 32767, a `prune_after` of
    /// 0, a layout other than `L`), or the first entry refused (a key
    /// twice, a Z a simple layout has no level for), as a `serde` error
    /// naming it.
    fn deserialize<D: Deserializer<'de>>(deserializer: D) -> Result<Self, D::Error> {
        deserializer.deserialize_struct("ZOrder", FIELDS, OrderVisitor(PhantomData))
    }
}
