//! Sprites in a `SlotMap`, drawn in the order of a `ZOrder` of their keys:
//! the game keeps its objects, the order keeps their keys and Z.
//!
//! `cargo run --example slotmap --features slotmap` (it checks what it
//! draws, and panics on a wrong order).

use slotmap::{SlotMap, new_key_type};
use zorder::{I16F16, ZError, ZOrder};

new_key_type! {
    /// A sprite's key.
    struct SpriteKey;
}
zorder::slotmap_key!(SpriteKey);

struct Sprite {
    name: &'static str,
}

/// The sprites and their draw order, kept in step.
#[derive(Default)]
struct Scene {
    sprites: SlotMap<SpriteKey, Sprite>,
    order: ZOrder<SpriteKey>,
}

impl Scene {
    fn spawn(&mut self, name: &'static str, z: f64) -> SpriteKey {
        let key = self.sprites.insert(Sprite { name });
        self.order
            .insert(key, I16F16::from_num(z))
            .expect("a new key");
        key
    }

    fn despawn(&mut self, key: SpriteKey) {
        self.sprites.remove(key);
        self.order.remove(key).expect("a sprite of this scene");
    }

    /// The sprites' names, back to front.
    fn draw(&self) -> Vec<&'static str> {
        let drawn: Vec<_> = self
            .order
            .back_to_front()
            .map(|key| self.sprites[key].name)
            .collect();
        println!("drawn back to front: {drawn:?}");
        drawn
    }
}

fn main() -> Result<(), ZError> {
    let mut scene = Scene::default();
    scene.spawn("sky", 0.0);
    let hero = scene.spawn("hero", 5.0);
    let bat = scene.spawn("bat", 5.0);
    scene.spawn("mist", 4.5);
    assert_eq!(scene.draw(), ["sky", "mist", "hero", "bat"]);

    // Re-filing at the same Z brings the hero in front of the bat.
    scene.order.set_z(hero, I16F16::from_num(5))?;
    assert_eq!(scene.draw(), ["sky", "mist", "bat", "hero"]);

    // The bat dies; the coin takes its slot (slotmap reuses freed slots,
    // with a new version).
    scene.despawn(bat);
    let coin = scene.spawn("coin", 1.0);
    assert_eq!(scene.sprites.len(), 4);
    // The bat's key is stale: neither the slot map nor the order knows it.
    assert!(scene.sprites.get(bat).is_none());
    assert!(!scene.order.contains(bat) && scene.order.contains(coin));
    assert_eq!(scene.order.remove(bat), Err(ZError::NotInCollection));
    assert_eq!(scene.draw(), ["sky", "coin", "mist", "hero"]);
    println!("ok");
    Ok(())
}
