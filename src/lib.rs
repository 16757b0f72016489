//! An always-sorted Z-order collection for 2D engines: O(1) add, remove and
//! change of Z at the common Z values, O(log n) at any other, many changes
//! at once at the cost of sorting them, traversal in both directions at
//! the cost of the entries visited, and the exact ordering contract of a
//! legacy J2ME-era engine, so ports draw and dispatch touches in the same
//! order as before.
//!
//! New code keeps its objects in its own storage (a `Vec`, a slab,
//! `slotmap`, an ECS) and files their keys in a [`ZOrder`]:
//!
//! ```
//! use zorder::{I16F16, ZOrder};
//!
//! struct Sprite { name: &'static str }
//! let sprites = vec![Sprite { name: "sky" }, Sprite { name: "hero" }, Sprite { name: "coin" }];
//!
//! let mut order = ZOrder::<usize>::new(100)?; // levels 0..=100 are O(1)
//! order.insert(0, I16F16::from_num(0))?;
//! order.insert(1, I16F16::from_num(5))?;
//! order.insert(2, I16F16::from_num(5))?;
//!
//! let names = |keys: &mut dyn Iterator<Item = usize>| -> Vec<_> { keys.map(|k| sprites[k].name).collect() };
//! assert_eq!(names(&mut order.back_to_front()), ["sky", "hero", "coin"]);
//!
//! // Re-filing pops a key to the front of its Z, even at the same Z.
//! order.refile(1)?;
//! assert_eq!(names(&mut order.front_to_back()), ["hero", "coin", "sky"]);
//!
//! // Every I16F16 is a Z: negative, fractional, the default Z.
//! order.set_z(2, I16F16::from_num(-0.25))?;
//! assert_eq!(order.first(), Some((2, I16F16::from_num(-0.25))));
//! # Ok::<(), zorder::ZError>(())
//! ```
//!
//! Ports of the legacy engine keep its shape: shared objects that report
//! their Z, in a [`FixedPointZCollection`] or a [`SimpleZCollection`].
//!
//! # The idea
//!
//! After the Linux O(1) scheduler: one bucket per Z value, each entry
//! appended to its bucket's tail, and each entry remembering where it was
//! filed, so removal needs no search and the order among equal Z is the
//! order of the last Z-action, with no sorting anywhere. The natural
//! levels `0..=max_level` and the default Z ([`DEFAULT_Z`], the Z every
//! legacy object is created with) have their buckets reached in O(1)
//! through a quick-access array.
//!
//! The buckets lie end to end in nodes of 64 or 128 slots, in back-to-front
//! order, so a traversal reads contiguous memory whatever the Z values:
//! the levels and the default Z in one chain of blocks, where each entry
//! keeps its slot and neighbouring small buckets share a block; any other
//! Z (negative, fractional, above `max_level`) in the leaves of a B+ tree,
//! where its bucket is the run of its entries and takes no memory of its
//! own. A game that gives every object its own Z (an isometric y-sort, a
//! particle burst) pays O(log n) per operation, or the cost of sorting
//! them for a batch of many.
//!
//! # Two faces, one core
//!
//! - [`ZOrder<K>`](ZOrder): keys of the game's own storage (indices, slab
//!   or `slotmap` keys, `bevy_ecs` entities, see [`ZKey`]); the collection
//!   holds each key's Z. `Send` and `Sync` whenever the key is.
//! - [`RcZCollection`], as [`FixedPointZCollection`] and
//!   [`SimpleZCollection`], the legacy port: shared
//!   [`Rc`](alloc::rc::Rc)`<`[`ZObject`]`<T>>` handles whose `T` reports
//!   its Z through [`ZSortable`], in the legacy API's shape, with the
//!   [`ZCollection`] trait over both. Single-threaded.
//!
//! Both come in two [layouts](Layout): every `I16F16` as a Z
//! ([`FixedPoint`], the default), or the levels only, every other Z refused
//! with [`ZError::ZOutOfRange`] ([`Simple`]).
//!
//! # The contract
//!
//! Back to front is ascending Z, and among equal Z the entry whose last
//! Z-action came earlier is further back; front to back is the exact
//! reverse; a re-file moves an entry to the front of its Z even when its Z
//! did not change; every `I16F16` is a legal Z in the fixed-point layout;
//! an entry is in at most one collection, and misuse is an error value that
//! changes nothing; a traversal visits each entry once. The whole text is
//! in the [`contract`] module (the repository's `docs/CONTRACT.md`).
//!
//! # Z from a float
//!
//! `I16F16` holds values in `[-32768, 32768)` with 16 fractional bits.
//! `I16F16::from_num` panics on a float out of that range (or NaN), so
//! convert game coordinates with the checked or saturating forms:
//!
//! ```
//! use zorder::{DEFAULT_Z, I16F16};
//!
//! let y: f32 = 1.0e6; // off the map
//! assert_eq!(I16F16::checked_from_num(y), None);
//! // Saturating: clamps to the ends of the range (NaN must be handled first).
//! let z = if y.is_nan() { DEFAULT_Z } else { I16F16::saturating_from_num(y) };
//! assert_eq!(z, I16F16::MAX);
//! assert_eq!(I16F16::saturating_from_num(-123.5_f32), -123.5);
//! ```
//!
//! # Pruning
//!
//! A bucket of a Z other than a level or the default Z exists while an
//! entry has that Z. When an operation leaves it empty, it waits, costing
//! traversals nothing; refilled while it waits, it keeps living. Each
//! counting traversal ([`back_to_front`](ZOrder::back_to_front),
//! [`front_to_back`](ZOrder::front_to_back), [`iter`](ZOrder::iter), and
//! the same of the `Rc` collections; not `Debug`, ranges, or in-walk
//! updates) counts once; once `prune_after` traversals have found a bucket
//! waiting, the next one prunes it. So after `prune_after + 1` traversals
//! with no change in between,
//! [`nonoptimized_buckets`](ZOrder::nonoptimized_buckets) equals the
//! distinct such Z values the entries have. Pruning a bucket only drops a
//! small record, reclaimed a few at a time by later changes: no call stalls
//! on a pile of dead buckets. A batch is one operation: a bucket it empties
//! and refills never waits. The count is exact however long a game runs.
//!
//! At most `max(1024, live)` buckets wait at once, `live` being the
//! distinct such Z values the entries have; a bucket that starts waiting
//! beyond that prunes the longest-waiting one at once. So memory stays
//! bounded by the entries even when nothing traverses (a replay, a paused
//! game that keeps spawning): O(n) in all, for `n` entries, whatever Z
//! values they ever had, and whatever their keys' indices.
//!
//! # Hostile code
//!
//! Code of yours that runs inside an operation (`z_order`, `Drop`, the
//! closures of updates, `Debug`) may panic or use other collections: it
//! never sees a collection with its invariants suspended, a panic leaves
//! every collection valid and leaks nothing, and the crate has no `unsafe`
//! code at all. The one exception is a key's `index` and `Eq`, which must
//! not panic, as `Hash` must not for a `HashMap` (see [`ZKey`]).
//!
//! # Features
//!
//! - `serde`: `Serialize` and `Deserialize` for [`ZOrder`].
//! - `bevy_ecs`: [`ZKey`] for `bevy_ecs::entity::Entity`.
//! - `slotmap`: [`ZKey`] for `slotmap`'s `DefaultKey` and `KeyData`, and
//!   `slotmap_key!` for keys of `new_key_type!`.

#![cfg_attr(feature = "slotmap", doc = "\n(The macro's docs: [`slotmap_key!`].)")]
#![no_std]
#![forbid(unsafe_code)]

extern crate alloc;

mod engine;
mod error;
pub mod keyed;
mod layout;
pub mod rc;
mod visit;
mod z;

pub use error::ZError;
#[doc(inline)]
pub use keyed::{Applied, ZKey, ZOrder};
pub use layout::{FixedPoint, Layout, Simple};
#[doc(inline)]
pub use rc::{
    FixedPointZCollection, RcZCollection, SimpleZCollection, ZCollection, ZObject, ZSortable,
};
pub use visit::{KeyVisit, Updated, Visit};
pub use z::{DEFAULT_Z, I16F16};

#[cfg(feature = "slotmap")]
#[doc(hidden)]
pub use keyed::__slotmap_index;

#[doc = include_str!("../docs/CONTRACT.md")]
pub mod contract {}

/// The README's examples run as doctests.
#[cfg(doctest)]
#[doc = include_str!("../README.md")]
struct ReadmeDoctests;
