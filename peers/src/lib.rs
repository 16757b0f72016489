//! zorder and the structures people would use instead, behind one
//! [`Backend`] trait, and the frame scenarios every benchmark, the Jelly
//! Jump demo and the order-equality test run on them.
//!
//! Every backend is written the way its users write it, does the same work
//! per frame, and keeps its objects where its users would: the peers and
//! `zorder-keyed` in a slab of sprites addressed by `u32` handles (the
//! game's own storage), the `Rc` collections in their handles.

mod article_list;
pub mod bench_args;
mod legacy_array;
mod per_frame_sort;
mod rng;
pub mod scenario;
mod slab;
mod sorted_map;
mod vec_merge;
mod zorder_batch;
mod zorder_keyed;
mod zorder_rc;

pub use article_list::ArticleList;
pub use legacy_array::LegacyArray;
pub use per_frame_sort::{RadixSortWhenDirty, StableSortWhenDirty};
pub use rng::Rng;
pub use scenario::{FrameStats, Scenario, World};
pub use slab::Slab;
pub use sorted_map::SortedMap;
pub use vec_merge::VecMerge;
pub use zorder::{DEFAULT_Z, I16F16};
pub use zorder_batch::ZorderBatch;
pub use zorder_keyed::ZorderKeyed;
pub use zorder_rc::{Node, Object as ZorderObject, ZorderFixedPoint, ZorderSimple};

/// The payload every backend's objects carry; the "draw" step reads it.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct Sprite {
    /// Which object this is (the order tests compare ids).
    pub id: u32,
    /// Something a renderer reads.
    pub x: f32,
}

impl Sprite {
    /// The sprite with id `id`.
    pub fn new(id: u32) -> Self {
        Sprite {
            id,
            x: id as f32 * 0.5,
        }
    }
}

/// A Z-ordered scene of sprites, as each peer keeps one.
///
/// Every method is what a game does to its scene; the traversals call
/// `draw` on each sprite in order. Methods never fail: the scenarios never
/// misuse a backend, so a misuse is a bug and panics.
pub trait Backend {
    /// What the game keeps to refer to one of its objects.
    type Handle;

    /// A short name for tables and charts.
    const NAME: &'static str;

    /// Whether the cost of one operation grows with the number of objects
    /// (the legacy array): the benchmarks cap its sizes.
    const LINEAR_OPS: bool = false;

    /// Whether a Z-action at a Z other than an optimized level or the
    /// default Z walks past the other such Z values in use (the article's
    /// bucket list): building a world of `n` distinct Z values then costs
    /// `O(n^2)`, so the benchmarks cap such worlds' sizes.
    const WALKS_BETWEEN_LEVELS: bool = false;

    /// An empty scene whose natural levels `0..=max_level` are the common
    /// ones (only the zorder collections make use of it).
    fn with_levels(max_level: u16) -> Self;

    /// Whether this backend accepts `z` at all (the simple collection takes
    /// natural levels up to its maximum only).
    fn accepts(&self, z: I16F16) -> bool {
        let _ = z;
        true
    }

    /// Creates an object at Z `z` and files it (one Z-action).
    fn create(&mut self, sprite: Sprite, z: I16F16) -> Self::Handle;

    /// Sets the object's Z and re-files it at the front of that Z (one
    /// Z-action, even when Z is unchanged).
    fn change(&mut self, object: &Self::Handle, z: I16F16);

    /// Removes the object and destroys it.
    fn remove(&mut self, object: Self::Handle);

    /// Visits every sprite from the back-most to the front-most.
    fn back_to_front(&mut self, draw: impl FnMut(&Sprite));

    /// Visits every sprite from the front-most to the back-most.
    fn front_to_back(&mut self, draw: impl FnMut(&Sprite));

    /// The number of objects.
    fn len(&self) -> usize;

    /// Whether the scene is empty.
    fn is_empty(&self) -> bool {
        self.len() == 0
    }
}

/// Calls the generic function `$run::<B>(args)` once for every backend, in
/// table order.
#[macro_export]
macro_rules! for_each_backend {
    ($run:ident ( $($arg:expr),* $(,)? )) => {{
        $run::<$crate::ZorderKeyed>($($arg),*);
        $run::<$crate::ZorderBatch>($($arg),*);
        $run::<$crate::ZorderFixedPoint>($($arg),*);
        $run::<$crate::ZorderSimple>($($arg),*);
        $run::<$crate::LegacyArray>($($arg),*);
        $run::<$crate::SortedMap>($($arg),*);
        $run::<$crate::StableSortWhenDirty>($($arg),*);
        $run::<$crate::RadixSortWhenDirty>($($arg),*);
        $run::<$crate::VecMerge>($($arg),*);
        $run::<$crate::ArticleList>($($arg),*);
    }};
}

/// The "draw" step every scenario runs, identically for every backend: it
/// reads both fields of each sprite and folds them into a checksum, so the
/// visits cannot be optimized away.
#[derive(Debug, Default, Clone, Copy)]
pub struct Canvas {
    /// Folded ids, order-sensitive.
    pub checksum: u64,
    /// Summed x.
    pub ink: f32,
}

impl Canvas {
    /// Draws one sprite.
    #[inline]
    pub fn draw(&mut self, sprite: &Sprite) {
        self.checksum = self.checksum.rotate_left(5) ^ u64::from(sprite.id);
        self.ink += sprite.x;
    }
}

/// The Z of natural level `level`.
pub fn level(level: i32) -> I16F16 {
    I16F16::from_bits(level << I16F16::FRAC_NBITS)
}

/// The ids of a scene's sprites, back to front: what the peers' unit tests
/// compare.
#[cfg(test)]
fn back_to_front_ids<B: Backend>(scene: &mut B) -> Vec<u32> {
    let mut ids = Vec::new();
    scene.back_to_front(|sprite| ids.push(sprite.id));
    ids
}
