//! A `ZOrder<Entity>` as a `bevy_ecs` resource: entities carry a `Z`
//! component, one system files every changed `Z` in one batch, and the draw
//! system walks the order back to front, reading each entity's components.
//!
//! `cargo run --example ecs --features bevy_ecs` (it checks what it draws
//! each frame, and panics on a wrong order).

use bevy_ecs::prelude::*;
use zorder::{I16F16, ZOrder};

/// Where an entity is drawn: ascending Z is back to front.
#[derive(Component, Clone, Copy, PartialEq, Debug)]
struct Z(I16F16);

/// What the draw system reads.
#[derive(Component)]
struct Sprite(&'static str);

/// The draw order of every entity with a `Z`. `ZOrder` implements
/// `Default`, so `init_resource` makes one.
#[derive(Resource, Default)]
struct DrawOrder(ZOrder<Entity>);

/// The sprites drawn in the last frame, back to front.
#[derive(Resource, Default)]
struct Drawn(Vec<&'static str>);

/// Files the changes of this frame in one batch. Removals (a `Z` removed,
/// or its entity despawned) go first: bevy recycles a despawned entity's
/// index with a new generation, and `ZOrder` holds one generation of an
/// index at a time, so the old one must leave before the new one comes.
/// `Changed<Z>` includes newly added components; an entity whose `Z`
/// changed comes to the front of that Z, as the legacy engine's `change`
/// did.
fn sync_draw_order(
    mut order: ResMut<DrawOrder>,
    mut removed: RemovedComponents<Z>,
    changed: Query<(Entity, &Z), Changed<Z>>,
) {
    let removals = removed.read().map(|entity| (entity, None));
    let changes = changed.iter().map(|(entity, z)| (entity, Some(z.0)));
    let done = order.0.apply(removals.chain(changes));
    assert_eq!(done.refused, 0, "every change is taken");
}

/// Draws back to front: the order gives the entities, the world their
/// components.
fn draw(order: Res<DrawOrder>, sprites: Query<(&Sprite, &Z)>, mut drawn: ResMut<Drawn>) {
    drawn.0.clear();
    for entity in order.0.back_to_front() {
        let (sprite, z) = sprites.get(entity).expect("a filed entity has a sprite");
        debug_assert_eq!(order.0.z_of(entity), Some(z.0));
        drawn.0.push(sprite.0);
    }
}

fn z(value: f64) -> Z {
    Z(I16F16::from_num(value))
}

fn main() {
    let mut world = World::new();
    world.init_resource::<DrawOrder>();
    world.init_resource::<Drawn>();
    let mut schedule = Schedule::default();
    schedule.add_systems((sync_draw_order, draw).chain());
    let mut frame = |world: &mut World, expected: &[&str]| {
        schedule.run(world);
        // Without an `App`, the removal lists are flushed by hand each frame.
        world.clear_trackers();
        let drawn = &world.resource::<Drawn>().0;
        println!("drawn back to front: {drawn:?}");
        assert_eq!(drawn, expected);
    };

    // Frame 1: a scene, one entity at a fractional Z.
    let _sky = world.spawn((Sprite("sky"), z(0.0))).id();
    let hills = world.spawn((Sprite("hills"), z(1.0))).id();
    let hero = world.spawn((Sprite("hero"), z(5.0))).id();
    let cloud = world.spawn((Sprite("cloud"), z(2.5))).id();
    frame(&mut world, &["sky", "hills", "cloud", "hero"]);

    // Frame 2: the cloud drifts in front of the hero, the hills are
    // despawned, and a coin is spawned.
    world.get_mut::<Z>(cloud).expect("a Z").0 = I16F16::from_num(7.25);
    world.despawn(hills);
    let coin = world.spawn((Sprite("coin"), z(3.0))).id();
    frame(&mut world, &["sky", "coin", "hero", "cloud"]);

    // Frame 3: the coin loses its Z (it stays in the world, undrawn), and
    // the hero goes behind the sky.
    world.entity_mut(coin).remove::<Z>();
    world.get_mut::<Z>(hero).expect("a Z").0 = I16F16::from_num(-1);
    frame(&mut world, &["hero", "sky", "cloud"]);

    // Frame 4: nothing changes; the order holds exactly the entities with
    // a Z.
    frame(&mut world, &["hero", "sky", "cloud"]);
    assert_eq!(world.resource::<DrawOrder>().0.len(), 3);
    println!("ok");
}
