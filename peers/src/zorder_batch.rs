//! `zorder::ZOrder` fed the way its docs recommend for a frame loop: the
//! game collects the frame's creations, Z changes and removals (as an ECS
//! system does from its change-detection queries) and applies them in one
//! batch, `ZOrder::apply`, before the frame's first walk. Sprites live in
//! the same slab as every other backend's.

use zorder::ZOrder;

use crate::slab::Slab;
use crate::{Backend, I16F16, Sprite};

/// `ZOrder<u32>` over the keys of a slab, its changes applied once a frame.
#[derive(Debug)]
pub struct ZorderBatch {
    order: ZOrder<u32>,
    sprites: Slab<Sprite>,
    /// The frame's changes, in the order the game made them: a key at a
    /// new Z, or a key removed.
    changes: Vec<(u32, Option<I16F16>)>,
    len: usize,
}

impl ZorderBatch {
    /// Applies the frame's changes, if any.
    fn apply(&mut self) {
        if !self.changes.is_empty() {
            let _ = self.order.apply(self.changes.drain(..));
        }
    }
}

impl Backend for ZorderBatch {
    type Handle = u32;
    const NAME: &'static str = "zorder-batch";

    fn with_levels(max_level: u16) -> Self {
        ZorderBatch {
            order: ZOrder::new(max_level).expect("max_level is in range"),
            sprites: Slab::new(),
            changes: Vec::new(),
            len: 0,
        }
    }

    fn create(&mut self, sprite: Sprite, z: I16F16) -> u32 {
        let key = self.sprites.insert(sprite);
        self.changes.push((key, Some(z)));
        self.len += 1;
        key
    }

    fn change(&mut self, &key: &u32, z: I16F16) {
        self.changes.push((key, Some(z)));
    }

    fn remove(&mut self, key: u32) {
        // The slot may be reused by a creation later in the same frame: the
        // batch removes the key, then files it again, in call order.
        self.changes.push((key, None));
        self.sprites.free(key);
        self.len -= 1;
    }

    fn back_to_front(&mut self, mut draw: impl FnMut(&Sprite)) {
        self.apply();
        let sprites = &self.sprites;
        self.order
            .back_to_front()
            .for_each(|key| draw(sprites.get(key)));
    }

    fn front_to_back(&mut self, mut draw: impl FnMut(&Sprite)) {
        self.apply();
        let sprites = &self.sprites;
        self.order
            .front_to_back()
            .for_each(|key| draw(sprites.get(key)));
    }

    fn len(&self) -> usize {
        self.len
    }
}
