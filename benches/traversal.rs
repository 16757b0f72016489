//! Traversal cost per object, back to front and front to back: fresh
//! worlds (objects created in Z order, so memory order is drawing order)
//! and the same worlds after heavy churn (memory order unrelated to drawing
//! order), and the keyed collection of those after `shrink_to_fit`; and 10
//! objects over 16 levels against the same over 4096 levels, the cost of
//! empty levels. The keyed collection is also walked by a `for` loop
//! (`zorder-keyed-for-loop`), against its `for_each` rows.
//!
//! `cargo bench --bench traversal`

use std::hint::black_box;
use std::time::{Duration, Instant};

use criterion::measurement::WallTime;
use criterion::{BenchmarkGroup, BenchmarkId, Criterion, Throughput, criterion_group};

use zorder_peers::bench_args::Parts;
use zorder_peers::scenario::SEED;
use zorder_peers::{Backend, Canvas, I16F16, Rng, Scenario, Sprite, World, ZorderKeyed, level};

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
    walk_rows(&mut group, &mut world.backend);
    group.finish();
}

/// The rows of `backend`'s walks, back to front and front to back.
fn walk_rows<B: Backend>(group: &mut BenchmarkGroup<'_, WallTime>, backend: &mut B) {
    group.bench_function(BenchmarkId::new("back_to_front", B::NAME), |b| {
        b.iter(|| {
            let mut canvas = Canvas::default();
            backend.back_to_front(|sprite| canvas.draw(sprite));
            black_box(canvas)
        });
    });
    group.bench_function(BenchmarkId::new("front_to_back", B::NAME), |b| {
        b.iter(|| {
            let mut canvas = Canvas::default();
            backend.front_to_back(|sprite| canvas.draw(sprite));
            black_box(canvas)
        });
    });
}

/// Draws the sprites of `handles` in order, in the shape every backend's
/// walk has: a loop calling the draw closure it is given.
fn draw_handles<'a>(
    handles: impl Iterator<Item = &'a zorder_peers::ZorderObject>,
    mut draw: impl FnMut(&Sprite),
) {
    for handle in handles {
        draw(handle.sprite());
    }
}

/// Draws the sprites the keys index, in the same shape.
fn draw_keys<'a>(
    keys: impl Iterator<Item = &'a u32>,
    sprites: &zorder_peers::Slab<Sprite>,
    mut draw: impl FnMut(&Sprite),
) {
    for &key in keys {
        draw(sprites.get(key));
    }
}

/// The baseline of the traversal target: a `Vec` of the very handles a
/// `zorder` world holds, in back-to-front order, iterated and drawn the same
/// way. It pays the same pointer chase to each object's sprite, and nothing
/// for keeping the order.
fn handle_vec<B: Backend<Handle = zorder_peers::ZorderObject>>(
    c: &mut Criterion,
    objects: usize,
    churned: bool,
) {
    let mut world = world::<B>(objects, churned);
    let mut ids = Vec::with_capacity(objects);
    world.backend.back_to_front(|sprite| ids.push(sprite.id));
    let mut by_id: std::collections::HashMap<u32, &zorder_peers::ZorderObject> = world
        .handles()
        .iter()
        .map(|handle| (handle.sprite().id, handle))
        .collect();
    let ordered: Vec<zorder_peers::ZorderObject> = ids
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
            draw_handles(ordered.iter(), |sprite| canvas.draw(sprite));
            black_box(canvas)
        });
    });
    group.bench_function(BenchmarkId::new("front_to_back", "vec-of-handles"), |b| {
        b.iter(|| {
            let mut canvas = Canvas::default();
            draw_handles(ordered.iter().rev(), |sprite| canvas.draw(sprite));
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
            scene.create(zorder_peers::Sprite::new(id), z)
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

/// The baseline of the keyed collection's traversal target: a `Vec` of the
/// very keys `zorder-keyed` yields, in the same order, drawn from the same
/// slab. It pays the same reads of the game's storage, and nothing for
/// keeping the order.
fn key_vec(c: &mut Criterion, objects: usize, churned: bool) {
    let world = world::<ZorderKeyed>(objects, churned);
    let state = if churned { "churned" } else { "fresh" };
    let mut group = c.benchmark_group(format!("traversal/{objects}/{state}"));
    group.throughput(Throughput::Elements(objects as u64));
    key_vec_rows(&mut group, &world.backend);
    group.finish();
}

/// The rows of a `Vec` of the keys `keyed` yields, in its order, drawn
/// from its sprites.
fn key_vec_rows(group: &mut BenchmarkGroup<'_, WallTime>, keyed: &ZorderKeyed) {
    let (keys, sprites) = keyed.keys_and_sprites();
    group.bench_function(BenchmarkId::new("back_to_front", "vec-of-keys"), |b| {
        b.iter(|| {
            let mut canvas = Canvas::default();
            draw_keys(keys.iter(), sprites, |sprite| canvas.draw(sprite));
            black_box(canvas)
        });
    });
    group.bench_function(BenchmarkId::new("front_to_back", "vec-of-keys"), |b| {
        b.iter(|| {
            let mut canvas = Canvas::default();
            draw_keys(keys.iter().rev(), sprites, |sprite| canvas.draw(sprite));
            black_box(canvas)
        });
    });
}

/// The keyed collection walked by a `for` loop (external iteration, a
/// step a call) instead of `for_each`, drawing the same way; next to the
/// `for_each` rows of the same group.
fn for_loop(c: &mut Criterion, objects: usize, churned: bool) {
    let world = world::<ZorderKeyed>(objects, churned);
    let (order, sprites) = world.backend.order_and_sprites();
    let state = if churned { "churned" } else { "fresh" };
    let mut group = c.benchmark_group(format!("traversal/{objects}/{state}"));
    group.throughput(Throughput::Elements(objects as u64));
    group.bench_function(
        BenchmarkId::new("back_to_front", "zorder-keyed-for-loop"),
        |b| {
            b.iter(|| {
                let mut canvas = Canvas::default();
                for key in order.back_to_front() {
                    canvas.draw(sprites.get(key));
                }
                black_box(canvas)
            });
        },
    );
    group.bench_function(
        BenchmarkId::new("front_to_back", "zorder-keyed-for-loop"),
        |b| {
            b.iter(|| {
                let mut canvas = Canvas::default();
                for key in order.front_to_back() {
                    canvas.draw(sprites.get(key));
                }
                black_box(canvas)
            });
        },
    );
    group.finish();
}

/// The keyed collection of a churned world after `shrink_to_fit`, which
/// rewrites its chains in full blocks, against the `Vec` of the same keys
/// (the `churned` group's baseline: the order does not change).
fn shrunk(c: &mut Criterion, objects: usize) {
    let mut world = world::<ZorderKeyed>(objects, true);
    world.backend.shrink_to_fit();
    let mut group = c.benchmark_group(format!("traversal/{objects}/churned-shrunk"));
    group.throughput(Throughput::Elements(objects as u64));
    walk_rows(&mut group, &mut world.backend);
    key_vec_rows(&mut group, &world.backend);
    group.finish();
}

/// 10^5 objects created in random order, each at its own fractional Z in
/// `[0, 11)`, against the same number on the 11 levels `0..=10`: what
/// distinct Z values cost a walk.
fn distinct_or_levels<B: Backend>(c: &mut Criterion, distinct: bool) {
    const OBJECTS: usize = 100_000;
    let mut rng = Rng::new(SEED ^ 5);
    let z = |rng: &mut Rng| {
        if distinct {
            I16F16::from_bits(rng.below(11 << 16) as i32)
        } else {
            level(rng.below(11) as i32)
        }
    };
    let mut scene = B::with_levels(10);
    if distinct && !scene.accepts(I16F16::from_bits(1)) {
        return;
    }
    let _objects: Vec<B::Handle> = (0..OBJECTS)
        .map(|id| {
            let z = z(&mut rng);
            scene.create(Sprite::new(id as u32), z)
        })
        .collect();
    let shape = if distinct { "distinct_z" } else { "11_levels" };
    let mut group = c.benchmark_group(format!("traversal/{OBJECTS}/{shape}"));
    group.throughput(Throughput::Elements(OBJECTS as u64));
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
            zorder_peers::for_each_backend!(traverse(c, objects, churned));
            handle_vec::<zorder_peers::ZorderFixedPoint>(c, objects, churned);
            key_vec(c, objects, churned);
            for_loop(c, objects, churned);
        }
        shrunk(c, objects);
    }
    for max_level in [15, 4095] {
        zorder_peers::for_each_backend!(sparse_levels(c, max_level));
    }
    for distinct in [false, true] {
        zorder_peers::for_each_backend!(distinct_or_levels(c, distinct));
    }
}

/// Where the objects of a mass death lived.
#[derive(Clone, Copy)]
enum Deaths {
    /// Each at its own Z: every one of their buckets dies.
    AtDistinctZ,
    /// On 16 levels: no bucket dies.
    AtLevels,
}

impl Deaths {
    fn name(self) -> &'static str {
        match self {
            Deaths::AtDistinctZ => "distinct Z",
            Deaths::AtLevels => "at levels",
        }
    }
}

/// The walk after a mass death: 2 survivors on levels, `died` objects each
/// at its own fractional Z in `[0, 32)` (no two share a Z) created and
/// then all removed; then 20 traversals, each timed on its own (the
/// fastest of 5 replays of the whole run, to filter out preemption); the
/// worst of them against a traversal of 1,000 live objects (the median of
/// 101). The target: at most 2x. The first design walked the dead buckets
/// for 8 traversals and freed them all in the 9th.
///
/// With `Deaths::AtLevels`, the control: the same run with the `died`
/// objects on 16 levels above the survivors', so that no bucket dies. Its
/// first walk finds the caches as cold after the burst as the mass
/// death's does, and shows what that costs when no bucket died.
fn after_mass_death<B: Backend>(died: usize, deaths: Deaths) {
    if B::LINEAR_OPS || !B::with_levels(31).accepts(I16F16::from_bits(1)) {
        return;
    }
    // The article's list walks its buckets for each creation at a distinct
    // Z: 10^6 of them would take minutes a replay.
    if B::WALKS_BETWEEN_LEVELS && died > 100_000 {
        return;
    }
    // Object `id`'s Z: odd bits `(id × odd mod 2^20) × 2 + 1`, a permutation
    // of 2^20 distinct fractional values in [0, 32), none a level.
    assert!(died <= 1 << 20, "distinct Z values in [0, 32)");
    let dying_z = |id: usize| match deaths {
        Deaths::AtDistinctZ => {
            let mixed = (id as u32).wrapping_mul(0x9E37_79B1) & ((1 << 20) - 1);
            I16F16::from_bits(((mixed << 1) | 1) as i32)
        }
        Deaths::AtLevels => level(8 + (id % 16) as i32),
    };
    let replay = || {
        let mut scene = B::with_levels(31);
        let _survivors = [
            scene.create(Sprite::new(0), level(3)),
            scene.create(Sprite::new(1), level(5)),
        ];
        let dying: Vec<B::Handle> = (0..died)
            .map(|id| scene.create(Sprite::new(id as u32 + 2), dying_z(id)))
            .collect();
        for object in dying {
            scene.remove(object);
        }
        (0..20)
            .map(|_| {
                let mut canvas = Canvas::default();
                let start = Instant::now();
                scene.back_to_front(|sprite| canvas.draw(sprite));
                let took = start.elapsed();
                black_box(canvas);
                took
            })
            .collect::<Vec<_>>()
    };
    let mut fastest = vec![Duration::MAX; 20];
    for _ in 0..5 {
        for (best, took) in fastest.iter_mut().zip(replay()) {
            *best = (*best).min(took);
        }
    }
    let worst_at = (0..fastest.len()).max_by_key(|&i| fastest[i]).unwrap_or(0);
    let worst = fastest[worst_at];
    // The first walk after the burst finds the caches cold; the worst of
    // the others shows the pruning's own cost (the 9th walk prunes).
    let warm_at = (1..fastest.len()).max_by_key(|&i| fastest[i]).unwrap_or(0);
    // A traversal of 1,000 live objects on the jelly layers, median of 101.
    let mut scene = B::with_levels(31);
    let layers = zorder_peers::scenario::jelly_layers();
    let _live: Vec<B::Handle> = (0..1000)
        .map(|id| scene.create(Sprite::new(id), layers[id as usize % layers.len()]))
        .collect();
    let mut times: Vec<Duration> = (0..101)
        .map(|_| {
            let mut canvas = Canvas::default();
            let start = Instant::now();
            scene.back_to_front(|sprite| canvas.draw(sprite));
            let took = start.elapsed();
            black_box(canvas);
            took
        })
        .collect();
    times.sort_unstable();
    let live = times[50];
    let nanos = |d: Duration| d.as_secs_f64() * 1e9;
    let ratio = nanos(worst) / nanos(live);
    println!(
        "after-mass-death {:<14} died {:>8} {:<11}  worst of 20 traversals of 2 survivors {:>9.0} ns (#{:<2}, of #2 to #20: {:>7.0} ns #{:<2})  traversal of 1,000 live {:>6.0} ns  ratio {:>6.2}  {}",
        B::NAME,
        died,
        deaths.name(),
        nanos(worst),
        worst_at + 1,
        nanos(fastest[warm_at]),
        warm_at + 1,
        nanos(live),
        ratio,
        if ratio <= 2.0 {
            "ok (<= 2x)"
        } else {
            "MISSED (2x)"
        },
    );
}

fn timed_runs() {
    let Some(parts) = Parts::from_args() else {
        return;
    };
    if parts.runs("after-mass-death") {
        for died in [65_535, 1_000_000] {
            zorder_peers::for_each_backend!(after_mass_death(died, Deaths::AtDistinctZ));
        }
        zorder_peers::for_each_backend!(after_mass_death(1_000_000, Deaths::AtLevels));
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
fn main() {
    benches();
    Criterion::default().configure_from_args().final_summary();
    timed_runs();
}
