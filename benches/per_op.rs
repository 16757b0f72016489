//! Per-operation cost at 10^3 to 10^6 live objects (the legacy array up to
//! 10^5 only): add then remove, a change at an optimized level, a legacy
//! creation (default Z, then the layer's Z), and a change to a fractional Z
//! while k other fractional buckets exist; and, as the floor under them all,
//! reading one field of a random object.
//!
//! Each world is built once per backend and size, outside the timing. The
//! sorting backends only mark their list dirty here; they pay at the next
//! traversal, which the frame benchmarks (`frames.rs`) include.
//!
//! `cargo bench --bench per_op`

use std::hint::black_box;
use std::time::{Duration, Instant};

use criterion::{BenchmarkId, Criterion, criterion_group, criterion_main};

use zorder_peers::scenario::SEED;
use zorder_peers::{Backend, DEFAULT_Z, I16F16, Rng, Scenario, Sprite, World, ZorderFixedPoint};

const SIZES: [usize; 4] = [1_000, 10_000, 100_000, 1_000_000];

/// The largest world the legacy array is measured at.
const LINEAR_LIMIT: usize = 100_000;

fn runs<B: Backend>(objects: usize) -> bool {
    !B::LINEAR_OPS || objects <= LINEAR_LIMIT
}

/// `objects` objects spread over the 16 jelly layers (even levels 0..=30,
/// optimized levels 0..=31).
fn world<B: Backend>(objects: usize) -> World<B> {
    let scenario = Scenario {
        objects,
        ..Scenario::jelly(1)
    };
    World::new(&scenario, SEED)
}

/// Times `op` on `state` in chunks of at most 256, running `undo` after
/// each chunk, untimed, as many times as `op` ran.
fn timed_in_chunks<S>(
    state: &mut S,
    iters: u64,
    mut op: impl FnMut(&mut S),
    mut undo: impl FnMut(&mut S),
) -> Duration {
    let mut total = Duration::ZERO;
    let mut left = iters;
    while left > 0 {
        let chunk = left.min(256);
        let start = Instant::now();
        for _ in 0..chunk {
            op(state);
        }
        total += start.elapsed();
        for _ in 0..chunk {
            undo(state);
        }
        left -= chunk;
    }
    total
}

fn natural_ops<B: Backend>(c: &mut Criterion, objects: usize) {
    if !runs::<B>(objects) {
        return;
    }
    let mut world = world::<B>(objects);
    let layers = zorder_peers::scenario::jelly_layers();
    let mut rng = Rng::new(SEED ^ 1);
    let mut next_id = u32::MAX;

    c.benchmark_group("per_op/add_remove").bench_function(
        BenchmarkId::new(B::NAME, objects),
        |b| {
            b.iter(|| {
                let z = *rng.pick(&layers);
                next_id -= 1;
                let object = world.backend.create(Sprite::new(next_id), z);
                world.backend.remove(object);
            });
        },
    );

    c.benchmark_group("per_op/change_level").bench_function(
        BenchmarkId::new(B::NAME, objects),
        |b| {
            b.iter(|| world.change_random());
        },
    );

    // The legacy creation: default Z, then the layer's Z; a random object
    // is removed per creation, untimed, to keep the size. The simple
    // collection refuses the default Z and is left out.
    if world.backend.accepts(DEFAULT_Z) {
        c.benchmark_group("per_op/create_default_then_layer")
            .bench_function(BenchmarkId::new(B::NAME, objects), |b| {
                b.iter_custom(|iters| {
                    timed_in_chunks(
                        &mut world,
                        iters,
                        World::create_object,
                        World::remove_random,
                    )
                });
            });
    }
}

/// The floor under every per-operation cost: reading one field of a random
/// object, which any operation on that object pays (a cache miss once the
/// objects outgrow the cache). Measured on zorder's own handles. An
/// operation pays several such misses in a row (the object, and for zorder
/// its blocks too), so the other rows grow by a multiple of this floor's
/// growth from 10^3 to 10^6 objects.
fn touch_random_object(c: &mut Criterion, objects: usize) {
    let world = world::<ZorderFixedPoint>(objects);
    let handles = world.handles();
    let mut rng = Rng::new(SEED ^ 4);
    c.benchmark_group("per_op/touch_random_object")
        .bench_function(BenchmarkId::new(ZorderFixedPoint::NAME, objects), |b| {
            b.iter(|| black_box(rng.pick(handles).sprite().x));
        });
}

/// `change` of a random object to one of `k` fractional Z values between
/// levels 7 and 8, each already holding an object, so `k` fractional
/// buckets exist and zorder walks among them from level 7.
fn fractional_change<B: Backend>(c: &mut Criterion, objects: usize, k: i32) {
    let fractions: Vec<I16F16> = (1..=k)
        .map(|j| I16F16::from_bits((7 << 16) + j * 65536 / (k + 1)))
        .collect();
    if !runs::<B>(objects) || !B::with_levels(31).accepts(fractions[0]) {
        return;
    }
    let mut world = world::<B>(objects);
    for &z in &fractions {
        world.create_at(z);
    }
    let mut rng = Rng::new(SEED ^ 2);
    c.benchmark_group(format!("per_op/change_fractional/k={k}"))
        .bench_function(BenchmarkId::new(B::NAME, objects), |b| {
            b.iter(|| {
                let z = *rng.pick(&fractions);
                world.change_random_to(z);
            });
        });
}

fn all_backends(c: &mut Criterion) {
    for objects in SIZES {
        touch_random_object(c, objects);
        zorder_peers::for_each_backend!(natural_ops(c, objects));
    }
    for objects in [1_000, 1_000_000] {
        for k in [1, 16, 256] {
            zorder_peers::for_each_backend!(fractional_change(c, objects, k));
        }
    }
}

criterion_group! {
    name = benches;
    config = Criterion::default()
        .sample_size(20)
        .warm_up_time(Duration::from_millis(200))
        .measurement_time(Duration::from_millis(700));
    targets = all_backends
}
criterion_main!(benches);
