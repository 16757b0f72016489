//! `zorder::ZOrder` used the way its docs show for new code: the sprites
//! live in the game's own storage (the same slab as the other peers'), and
//! the collection holds their keys.

use zorder::ZOrder;

use crate::slab::Slab;
use crate::{Backend, I16F16, Sprite};

/// `ZOrder<u32>` over the keys of a slab of sprites.
#[derive(Debug)]
pub struct ZorderKeyed {
    order: ZOrder<u32>,
    sprites: Slab<Sprite>,
}

impl ZorderKeyed {
    /// The keys back to front, and the sprites they index: what the
    /// vec-of-keys floor of the traversal benchmark walks.
    pub fn keys_and_sprites(&self) -> (Vec<u32>, &Slab<Sprite>) {
        (self.order.back_to_front().collect(), &self.sprites)
    }

    /// The collection and the sprites its keys index, for walks written
    /// another way than [`Backend::back_to_front`]'s (a `for` loop).
    pub fn order_and_sprites(&self) -> (&ZOrder<u32>, &Slab<Sprite>) {
        (&self.order, &self.sprites)
    }

    /// [`ZOrder::shrink_to_fit`]: what a game calls after heavy churn, at
    /// a moment it chooses (a loading screen), to walk full blocks again.
    pub fn shrink_to_fit(&mut self) {
        self.order.shrink_to_fit();
    }
}

impl Backend for ZorderKeyed {
    type Handle = u32;
    const NAME: &'static str = "zorder-keyed";

    fn with_levels(max_level: u16) -> Self {
        ZorderKeyed {
            order: ZOrder::new(max_level).expect("max_level is in range"),
            sprites: Slab::new(),
        }
    }

    fn create(&mut self, sprite: Sprite, z: I16F16) -> u32 {
        let key = self.sprites.insert(sprite);
        self.order.insert(key, z).expect("a new key");
        key
    }

    fn change(&mut self, &key: &u32, z: I16F16) {
        self.order.set_z(key, z).expect("a key of this scene");
    }

    fn remove(&mut self, key: u32) {
        self.order.remove(key).expect("a key of this scene");
        self.sprites.free(key);
    }

    fn back_to_front(&mut self, mut draw: impl FnMut(&Sprite)) {
        let sprites = &self.sprites;
        self.order
            .back_to_front()
            .for_each(|key| draw(sprites.get(key)));
    }

    fn front_to_back(&mut self, mut draw: impl FnMut(&Sprite)) {
        let sprites = &self.sprites;
        self.order
            .front_to_back()
            .for_each(|key| draw(sprites.get(key)));
    }

    fn len(&self) -> usize {
        self.order.len()
    }
}
