//! An always-sorted Z-order collection for 2D engines: O(1) add, remove and
//! change of Z at the common Z values, O(log n) at any other, traversal in
//! both directions at the cost of the entries visited, and the exact
//! ordering contract of a legacy J2ME-era engine, so ports draw and
//! dispatch touches in the same order as before.
//!
//! New code keeps its objects in its own storage and files their keys:
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
//! assert_eq!(order.back_to_front().next(), Some(2));
//! # Ok::<(), zorder::ZError>(())
//! ```
//!
//! # The idea
//!
//! After the Linux O(1) scheduler: one bucket per Z value, each entry
//! appended to its bucket's tail, and each entry remembering where it was
//! filed, so removal needs no search and the order among equal Z is the
//! order of the last Z-action, with no sorting anywhere. The natural
//! levels `0..=max_level` and the default Z ([`DEFAULT_Z`], the Z every
//! legacy object is created with) have their buckets reached in O(1)
//! through a quick-access array; a two-level occupancy bitmap lets a
//! traversal skip empty levels. Buckets keep their entries in blocks of 32
//! slots, so a traversal reads them from contiguous memory.
//!
//! Any other Z (negative, fractional, above `max_level`) lives in a B+ tree
//! of `(Z, entry)` pairs in back-to-front order: its bucket is the run of
//! equal Z values in the tree's chain of leaves. So a game that gives every
//! object its own Z (an isometric y-sort, a particle burst) pays O(log n)
//! per operation and walks leaves as it walks blocks, with no memory per
//! bucket.
//!
//! # Two kinds of object, one core
//!
//! - [`ZOrder<K>`](ZOrder): keys of the game's own storage (indices, slab
//!   or `slotmap` keys, ECS entities, see [`ZKey`]); the collection holds
//!   each key's Z. `Send` and `Sync` whenever the key is.
//! - [`FixedPointZCollection`] and [`SimpleZCollection`], the legacy port:
//!   shared [`Rc`](alloc::rc::Rc)`<`[`ZObject`]`<T>>` handles whose `T`
//!   reports its Z through [`ZSortable`], in the legacy API's shape, with
//!   the [`ZCollection`] trait over both. Single-threaded.
//!
//! Each comes in the mission's two layouts: every `I16F16` as a Z (the
//! fixed-point layout: [`ZOrder::new`], [`FixedPointZCollection`]), or the
//! levels only, every other Z refused with [`ZError::ZOutOfRange`] (the
//! simple layout: [`ZOrder::simple`], [`SimpleZCollection`]).
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
//! # Pruning
//!
//! A bucket of a Z other than a level or the default Z exists while an
//! entry has that Z. When its last entry leaves, it waits, costing
//! traversals nothing; refilled while it waits, it keeps living. Each
//! traversal ([`back_to_front`](ZOrder::back_to_front),
//! [`front_to_back`](ZOrder::front_to_back), [`iter`](ZOrder::iter), and
//! the same of the `Rc` collections; not `Debug`, not the in-walk updates)
//! counts once; once `prune_after` traversals have found a bucket waiting,
//! the next one prunes it. So after `prune_after + 1` traversals with no
//! change in between, [`nonoptimized_buckets`](ZOrder::nonoptimized_buckets)
//! equals the distinct such Z values the entries have. Pruning a bucket
//! only drops a small record, reclaimed a few at a time by later changes:
//! no call stalls on a pile of dead buckets.
//!
//! At most `max(1024, live)` buckets wait at once, `live` being the
//! distinct such Z values the entries have; a bucket that starts waiting
//! beyond that prunes the longest-waiting one at once. So memory stays
//! bounded by the entries even when nothing traverses (a replay, a paused
//! game that keeps spawning): O(n) in all, for `n` entries, whatever Z
//! values they ever had.
//!
//! # Hostile code
//!
//! Code of yours that runs inside an operation (`z_order`, `Drop`, the
//! closures of updates, `Debug`) may panic or use other collections: it
//! never sees a collection with its invariants suspended, a panic leaves
//! every collection valid and leaks nothing, and the crate has no `unsafe`
//! code at all. The one exception is a key's `index` and `Eq`, which must
//! not panic, as `Hash` must not for a `HashMap` (see [`ZKey`]).

#![no_std]
#![forbid(unsafe_code)]

extern crate alloc;

mod block;
mod buckets;
mod core;
mod entry;
mod error;
pub mod keyed;
mod ledger;
mod object;
mod occupancy;
mod place;
mod pool;
pub mod rc;
#[cfg(feature = "serde")]
mod serde;
mod tree;
mod visit;
mod walk;
mod z;
mod zmap;

pub use error::ZError;
pub use keyed::{ZKey, ZOrder};
pub use object::{ZObject, ZSortable};
pub use rc::{FixedPointZCollection, SimpleZCollection, ZCollection};
pub use visit::{KeyVisit, Updated, Visit};
pub use z::{DEFAULT_Z, I16F16};

#[doc = include_str!("../docs/CONTRACT.md")]
pub mod contract {}

/// The README's examples run as doctests.
#[cfg(doctest)]
#[doc = include_str!("../README.md")]
struct ReadmeDoctests;
