//! Traversal cost per object, back to front and front to back: fresh
//! worlds (objects created in Z order, so memory order is drawing order)
//! and the same worlds after heavy churn (memory order unrelated to drawing
//! order); and 10 objects over 16 levels against the same over 4096 levels,
//! the cost of empty levels.
//!
//! `cargo bench --bench traversal`

#[path = "support/mod.rs"]
mod support;

use std::hint::black_box;
use std::time::Duration;

use criterion::{BenchmarkId, Criterion, Throughput, criterion_group, criterion_main};

use support::scenario::SEED;
use support::{Backend, Canvas, Rng, Scenario, World, level};

/// A world of `objects` on the jelly layers; `churned` after ten random Z
/// changes and one creation-and-removal per object, drawn once so the
/// sorting backends have sorted and zorder has pruned.
fn world<B: Backend>(objects: usize, churned: bool) -> World<B> {
    let scenario = Scenario {
        objects,
        ..Scenario::jelly(1)
    };
    let mut world = World::<B>::new(&scenario, SEED);
    if churned {
        for _ in 0..objects {
            for _ in 0..10 {
                world.change_random();
            }
            world.remove_random();
            world.create_object();
        }
    }
    world.draw();
    world
}

fn traverse<B: Backend>(c: &mut Criterion, objects: usize, churned: bool) {
    let mut world = world::<B>(objects, churned);
    let state = if churned { "churned" } else { "fresh" };
    let mut group = c.benchmark_group(format!("traversal/{objects}/{state}"));
    group.throughput(Throughput::Elements(objects as u64));
    group.bench_function(BenchmarkId::new("back_to_front", B::NAME), |b| {
        b.iter(|| {
            let mut canvas = Canvas::default();
            world.backend.back_to_front(|sprite| canvas.draw(sprite));
            black_box(canvas)
        });
    });
    group.bench_function(BenchmarkId::new("front_to_back", B::NAME), |b| {
        b.iter(|| {
            let mut canvas = Canvas::default();
            world.backend.front_to_back(|sprite| canvas.draw(sprite));
            black_box(canvas)
        });
    });
    group.finish();
}

/// The baseline of the traversal target: a `Vec` of the very handles a
/// `zorder` world holds, in back-to-front order, iterated and drawn the same
/// way. It pays the same pointer chase to each object's sprite, and nothing
/// for keeping the order.
fn handle_vec<B: Backend<Handle = support::ZorderObject>>(
    c: &mut Criterion,
    objects: usize,
    churned: bool,
) {
    let mut world = world::<B>(objects, churned);
    let mut ids = Vec::with_capacity(objects);
    world.backend.back_to_front(|sprite| ids.push(sprite.id));
    let mut by_id: std::collections::HashMap<u32, &support::ZorderObject> = world
        .handles()
        .iter()
        .map(|handle| (handle.sprite().id, handle))
        .collect();
    let ordered: Vec<support::ZorderObject> = ids
        .iter()
        .map(|id| std::rc::Rc::clone(by_id.remove(id).expect("a live handle")))
        .collect();
    drop(by_id);
    let state = if churned { "churned" } else { "fresh" };
    let mut group = c.benchmark_group(format!("traversal/{objects}/{state}"));
    group.throughput(Throughput::Elements(objects as u64));
    group.bench_function(BenchmarkId::new("back_to_front", "vec-of-handles"), |b| {
        b.iter(|| {
            let mut canvas = Canvas::default();
            for object in &ordered {
                canvas.draw(object.sprite());
            }
            black_box(canvas)
        });
    });
    group.bench_function(BenchmarkId::new("front_to_back", "vec-of-handles"), |b| {
        b.iter(|| {
            let mut canvas = Canvas::default();
            for object in ordered.iter().rev() {
                canvas.draw(object.sprite());
            }
            black_box(canvas)
        });
    });
    group.finish();
}

/// 10 objects on random natural levels up to `max_level`, in a scene with
/// that many optimized levels.
fn sparse_levels<B: Backend>(c: &mut Criterion, max_level: u16) {
    let mut scene = B::with_levels(max_level);
    let mut rng = Rng::new(SEED);
    let _objects: Vec<B::Handle> = (0..10)
        .map(|id| {
            let z = level(rng.below(usize::from(max_level) + 1) as i32);
            scene.create(support::Sprite::new(id), z)
        })
        .collect();
    let levels = u32::from(max_level) + 1;
    let mut group = c.benchmark_group(format!("traversal/10_objects/{levels}_levels"));
    group.throughput(Throughput::Elements(10));
    group.bench_function(BenchmarkId::new("back_to_front", B::NAME), |b| {
        b.iter(|| {
            let mut canvas = Canvas::default();
            scene.back_to_front(|sprite| canvas.draw(sprite));
            black_box(canvas)
        });
    });
    group.finish();
}

fn all_backends(c: &mut Criterion) {
    for objects in [1_000, 100_000] {
        for churned in [false, true] {
            support::for_each_backend!(traverse(c, objects, churned));
            handle_vec::<support::ZorderFixedPoint>(c, objects, churned);
        }
    }
    for max_level in [15, 4095] {
        support::for_each_backend!(sparse_levels(c, max_level));
    }
}

criterion_group! {
    name = benches;
    config = Criterion::default()
        .sample_size(20)
        .warm_up_time(Duration::from_millis(300))
        .measurement_time(Duration::from_millis(1000));
    targets = all_backends
}
criterion_main!(benches);
