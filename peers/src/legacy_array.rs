//! The legacy engine before the fix: every object in one array kept sorted
//! by `(z, seq)`. Each Z-action scans the array for the object (as
//! `java.util.Vector.indexOf` did), removes it (shifting the tail), binary
//! searches its new place and inserts it (shifting again).

use crate::slab::Slab;
use crate::{Backend, I16F16, Sprite};

#[derive(Debug, Clone, Copy)]
struct Entry {
    z: I16F16,
    handle: u32,
}

/// A `Vec` kept sorted by `(z, seq)`; objects live in a slab.
#[derive(Debug)]
pub struct LegacyArray {
    order: Vec<Entry>,
    sprites: Slab<Sprite>,
}

impl LegacyArray {
    fn position(&self, handle: u32) -> usize {
        self.order
            .iter()
            .position(|entry| entry.handle == handle)
            .expect("the object is in the array")
    }

    /// Inserts at the place a binary search finds: after every entry with a
    /// lower or an equal Z.
    fn file(&mut self, handle: u32, z: I16F16) {
        let place = self.order.partition_point(|entry| entry.z <= z);
        self.order.insert(place, Entry { z, handle });
    }
}

impl Backend for LegacyArray {
    type Handle = u32;
    const NAME: &'static str = "legacy-array";
    const LINEAR_OPS: bool = true;

    fn with_levels(_max_level: u16) -> Self {
        LegacyArray {
            order: Vec::new(),
            sprites: Slab::new(),
        }
    }

    fn create(&mut self, sprite: Sprite, z: I16F16) -> u32 {
        let handle = self.sprites.insert(sprite);
        self.file(handle, z);
        handle
    }

    fn change(&mut self, &object: &u32, z: I16F16) {
        let at = self.position(object);
        self.order.remove(at);
        self.file(object, z);
    }

    fn remove(&mut self, object: u32) {
        let at = self.position(object);
        self.order.remove(at);
        self.sprites.free(object);
    }

    fn back_to_front(&mut self, mut draw: impl FnMut(&Sprite)) {
        for entry in &self.order {
            draw(self.sprites.get(entry.handle));
        }
    }

    fn front_to_back(&mut self, mut draw: impl FnMut(&Sprite)) {
        for entry in self.order.iter().rev() {
            draw(self.sprites.get(entry.handle));
        }
    }

    fn len(&self) -> usize {
        self.order.len()
    }
}
