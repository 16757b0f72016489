//! The two faces of the crate behind one small trait, so that the long-run
//! and memory tests run each scenario once for both: the keyed `ZOrder`
//! and the fixed-point `Rc` collection.
//!
//! The game's objects are made apart from the collection (`Face::object`),
//! so a test can make them before it starts counting the collection's
//! memory.

// Each test binary uses its share of the faces' operations.
#![allow(dead_code)]

use std::cell::Cell;
use std::rc::Rc;

use zorder::{FixedPointZCollection, I16F16, ZObject, ZOrder, ZSortable};

/// An `Rc` collection's object: an id to tell it by, and its Z.
#[derive(Debug)]
pub struct Sprite {
    pub id: u32,
    pub z: Cell<I16F16>,
}

impl ZSortable for Sprite {
    fn z_order(&self) -> I16F16 {
        self.z.get()
    }
}

/// A collection, as the tests use it. Misuse panics: the scenarios never
/// misuse a collection.
pub trait Face: Sized {
    /// What the game keeps to refer to an object.
    type Object;
    const NAME: &'static str;
    /// The bytes an entry takes in a slot of a node: the key, or the
    /// handle.
    const ENTRY_BYTES: usize;

    fn build(max_level: u16, prune_after: u32) -> Self;
    /// Room for `additional` more objects (`try_reserve`).
    fn reserve(&mut self, additional: usize);
    /// The object of id `id` (not filed anywhere).
    fn object(id: u32) -> Self::Object;
    fn insert(&mut self, object: &Self::Object, z: I16F16);
    /// Re-files the object at `z` (the legacy `change`).
    fn set_z(&mut self, object: &Self::Object, z: I16F16);
    fn remove(&mut self, object: &Self::Object);
    /// One counting traversal; the ids back to front.
    fn ids(&self) -> Vec<u32>;
    /// One counting traversal that allocates nothing; the objects visited.
    fn walk(&self) -> usize;
    fn buckets(&self) -> usize;
    fn len(&self) -> usize;
    fn pretend_walks(&mut self, walks: u64);
    fn shrink_to_fit(&mut self);
    fn clear(&mut self);
    fn check(&self);
}

impl Face for ZOrder<u32> {
    type Object = u32;
    const NAME: &'static str = "ZOrder";
    const ENTRY_BYTES: usize = 4;

    fn build(max_level: u16, prune_after: u32) -> Self {
        ZOrder::with_prune_after(max_level, prune_after).expect("a valid layout")
    }

    fn reserve(&mut self, additional: usize) {
        self.try_reserve(additional).expect("room");
    }

    fn object(id: u32) -> u32 {
        id
    }

    fn insert(&mut self, &key: &u32, z: I16F16) {
        ZOrder::insert(self, key, z).expect("a new key");
    }

    fn set_z(&mut self, &key: &u32, z: I16F16) {
        ZOrder::set_z(self, key, z).expect("a held key");
    }

    fn remove(&mut self, &key: &u32) {
        ZOrder::remove(self, key).expect("a held key");
    }

    fn ids(&self) -> Vec<u32> {
        self.back_to_front().collect()
    }

    fn walk(&self) -> usize {
        self.back_to_front().count()
    }

    fn buckets(&self) -> usize {
        self.nonoptimized_buckets()
    }

    fn len(&self) -> usize {
        ZOrder::len(self)
    }

    fn pretend_walks(&mut self, walks: u64) {
        ZOrder::pretend_walks(self, walks);
    }

    fn shrink_to_fit(&mut self) {
        ZOrder::shrink_to_fit(self);
    }

    fn clear(&mut self) {
        ZOrder::clear(self);
    }

    fn check(&self) {
        self.check_invariants();
    }
}

impl Face for FixedPointZCollection<Sprite> {
    type Object = Rc<ZObject<Sprite>>;
    const NAME: &'static str = "FixedPointZCollection";
    const ENTRY_BYTES: usize = 8;

    fn build(max_level: u16, prune_after: u32) -> Self {
        FixedPointZCollection::with_prune_after(max_level, prune_after).expect("a valid layout")
    }

    fn reserve(&mut self, additional: usize) {
        self.try_reserve(additional).expect("room");
    }

    fn object(id: u32) -> Self::Object {
        Rc::new(ZObject::new(Sprite {
            id,
            z: Cell::new(zorder::DEFAULT_Z),
        }))
    }

    fn insert(&mut self, object: &Self::Object, z: I16F16) {
        object.z.set(z);
        self.add(object).expect("a free object");
    }

    fn set_z(&mut self, object: &Self::Object, z: I16F16) {
        object.z.set(z);
        self.change(object).expect("an object of this collection");
    }

    fn remove(&mut self, object: &Self::Object) {
        FixedPointZCollection::remove(self, object).expect("an object of this collection");
    }

    fn ids(&self) -> Vec<u32> {
        self.back_to_front().map(|object| object.id).collect()
    }

    fn walk(&self) -> usize {
        self.back_to_front().count()
    }

    fn buckets(&self) -> usize {
        self.nonoptimized_buckets()
    }

    fn len(&self) -> usize {
        FixedPointZCollection::len(self)
    }

    fn pretend_walks(&mut self, walks: u64) {
        FixedPointZCollection::pretend_walks(self, walks);
    }

    fn shrink_to_fit(&mut self) {
        FixedPointZCollection::shrink_to_fit(self);
    }

    fn clear(&mut self) {
        FixedPointZCollection::clear(self);
    }

    fn check(&self) {
        self.check_invariants();
    }
}

/// The keyed face as the tests use it.
pub type Keyed = ZOrder<u32>;
/// The `Rc` face as the tests use it.
pub type Shared = FixedPointZCollection<Sprite>;

/// A test per face for each scenario: `name => scenario(args);` makes the
/// tests `name::keyed` and `name::rc`, which run `scenario::<Keyed>(args)`
/// and `scenario::<Shared>(args)`.
macro_rules! on_both_faces {
    ($($name:ident => $scenario:ident($($arg:expr),*);)+) => {$(
        mod $name {
            #[test]
            fn keyed() {
                super::$scenario::<$crate::support::Keyed>($($arg),*);
            }

            #[test]
            fn rc() {
                super::$scenario::<$crate::support::Shared>($($arg),*);
            }
        }
    )+};
}

/// The `i`-th of up to 2^31 distinct Z values, none a level or the
/// default Z (each has an odd bit pattern, so it is fractional), in an
/// order unrelated to `i`: a y-sort's or a particle burst's Z values.
pub fn distinct_z(i: u32) -> I16F16 {
    assert!(i < 1 << 31);
    // Multiplying by an odd number permutes the values modulo 2^31.
    let mixed = i.wrapping_mul(0x9E37_79B1) & 0x7FFF_FFFF;
    let z = I16F16::from_bits(((mixed << 1) | 1) as i32);
    assert_ne!(z, zorder::DEFAULT_Z, "the default Z is not a distinct Z");
    z
}
