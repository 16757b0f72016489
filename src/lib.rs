//! An always-sorted Z-order collection for 2D engines: O(1) add, remove and
//! change of Z at the common values, O(n) traversal in both directions, and
//! the exact ordering contract of a legacy J2ME-era engine, so engine ports
//! draw and dispatch touches in the same order as before.
//!
//! ```
//! use std::cell::Cell;
//! use std::rc::Rc;
//! use zorder::{DEFAULT_Z, FixedPointZCollection, I16F16, ZObject, ZSortable};
//!
//! struct Sprite {
//!     name: &'static str,
//!     z: Cell<I16F16>,
//! }
//!
//! impl ZSortable for Sprite {
//!     fn z_order(&self) -> I16F16 {
//!         self.z.get()
//!     }
//! }
//!
//! let sprite = |name, z: f64| {
//!     Rc::new(ZObject::new(Sprite { name, z: Cell::new(I16F16::from_num(z)) }))
//! };
//! let (sky, hero, coin) = (sprite("sky", 0.0), sprite("hero", 5.0), sprite("coin", 5.0));
//!
//! let mut scene = FixedPointZCollection::new(100)?;
//! for object in [&sky, &hero, &coin] {
//!     scene.add(object)?;
//! }
//! let names = |it: &mut dyn Iterator<Item = &ZObject<Sprite>>| -> Vec<_> { it.map(|s| s.name).collect() };
//! assert_eq!(names(&mut scene.back_to_front()), ["sky", "hero", "coin"]);
//!
//! // `change` re-files even at the same Z: the hero pops to the front of level 5.
//! scene.change(&hero)?;
//! assert_eq!(names(&mut scene.front_to_back()), ["hero", "coin", "sky"]);
//!
//! // Any I16F16 is a legal Z, including the default Z new legacy objects get.
//! coin.z.set(DEFAULT_Z);
//! scene.change(&coin)?;
//! scene.remove(&sky)?;
//! assert_eq!(names(&mut scene.back_to_front()), ["hero", "coin"]);
//! # Ok::<(), zorder::ZError>(())
//! ```
//!
//! # The idea
//!
//! After the Linux O(1) scheduler: one bucket per Z value, each object
//! appended to its bucket's tail, and each object remembering where it was
//! filed, so removal needs no search. The order among equal Z is the order
//! of the objects' last Z-action for free, with no sorting anywhere. A
//! bucket keeps its objects in blocks of 32 slots, so a traversal reads them
//! from contiguous memory, and an occupancy bitmap lets it skip empty levels.
//!
//! - [`FixedPointZCollection`] takes every `I16F16` Z. Natural levels
//!   `0..=max_level` and [`DEFAULT_Z`] are O(1); other values find their
//!   bucket (or its sorted place) through an ordered index, and the buckets
//!   they open are pruned by traversals once empty.
//! - [`SimpleZCollection`] takes only natural levels `0..=max_level`, all
//!   O(1), and refuses any other Z with [`ZError::ZOutOfRange`].
//! - [`ZCollection`] is the trait over both, like the legacy interface.
//!
//! Objects are shared handles, [`Rc`](alloc::rc::Rc)`<`[`ZObject`]`<T>>`, and
//! report their Z through [`ZSortable`]. An object lives in at most one
//! collection at a time; misuse returns a [`ZError`] and changes nothing.
//!
//! The [`replay`] module runs recorded traces of Z-operations, for comparing
//! a port with the legacy engine (see `examples/replay.rs`).

#![no_std]
#![warn(missing_docs)]

extern crate alloc;

#[allow(unsafe_code)] // object pointers in slots, moved by merges: see the module docs
mod block;
#[allow(unsafe_code)] // bucket and block pointers, the block lists: see the module docs
mod bucket;
#[allow(unsafe_code)] // calls into `bucket`'s unsafe filing, under `&mut self`
mod collection;
mod error;
#[allow(unsafe_code)] // the bucket chain, pruned by traversals: see the module docs
mod fixed_point;
#[allow(unsafe_code)] // turns the pointers slots hold into references
mod iter;
mod object;
pub mod replay;
#[allow(unsafe_code)] // walks the bucket chain from cached bucket pointers
mod sections;
mod simple;
mod z;
mod zcollection;

pub use collection::{Collection, Levels, Updated, Visit};
pub use error::ZError;
pub use fixed_point::{DEFAULT_PRUNE_AFTER, FixedPointLevels, FixedPointZCollection};
pub use iter::{BackToFront, FrontToBack};
pub use object::ZObject;
pub use simple::{SimpleLevels, SimpleZCollection};
pub use z::{DEFAULT_Z, I16F16, MAX_LEVEL_LIMIT, ZSortable};
pub use zcollection::ZCollection;

/// The README's example runs as a doctest.
#[cfg(doctest)]
#[doc = include_str!("../README.md")]
struct ReadmeDoctests;
