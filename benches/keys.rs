//! What a key's index costs: `ZOrder<u64>` with dense keys (`0..n`, as a
//! `Vec` or a slab hands them out) against two kinds of far keys at the
//! same `len`: an entity's bits (`generation << 32 | index`, what
//! `Entity::to_bits` gives without the `bevy_ecs` feature, or a slotmap
//! key's FFI bits: indices `0..n`, generation 1 for four in five and 2
//! for the rest, as in a world where some entities were respawned), and
//! scattered keys (64 random bits with bit 40 set, as hashed identifiers
//! look). A table on standard output (not criterion).
//!
//! `cargo bench --bench keys`; `-- levels` or `-- distinct` runs one Z
//! distribution.
//!
//! For each size and Z distribution (16 levels, or every key at its own
//! fractional Z), a round files `n` keys into a new collection, looks each
//! up (`contains`), moves each to a new Z (`set_z`) and removes each; every
//! phase visits the keys in a fresh random order, so that no kind of key
//! gets help from the order it was filed in (an entity's bits filed in
//! index order would fill chunks as dense keys do). Rounds of the three
//! kinds alternate, and each phase's time is its fastest round: ns an
//! operation, and each kind of far key over dense, which issue 20 asks to
//! keep within 2x.

use std::hint::black_box;
use std::time::Instant;

use zorder::ZOrder;
use zorder_peers::bench_args::Parts;
use zorder_peers::{I16F16, Rng, level};

/// The phases of a round, in order.
const PHASES: [&str; 4] = ["insert", "contains", "set_z", "remove"];

/// Operations a configuration times at least, over its rounds.
const OPERATIONS: usize = 3_000_000;

/// Rounds at least, whatever the size.
const MIN_ROUNDS: usize = 3;

/// Shuffles `keys` (Fisher-Yates).
fn shuffle(keys: &mut [u64], rng: &mut Rng) {
    for i in (1..keys.len()).rev() {
        keys.swap(i, rng.below(i + 1));
    }
}

/// The Z of the `i`-th filing of a round.
fn z_for(distinct: bool, i: usize, rng: &mut Rng) -> I16F16 {
    if distinct {
        // A fractional Z: never a level, almost never another key's.
        I16F16::from_bits((rng.next_u64() as u32 >> 1 | 1) as i32)
    } else {
        level((i % 16) as i32)
    }
}

/// ns an operation of `run`, which makes `n` operations.
fn per_operation(n: usize, run: impl FnOnce()) -> f64 {
    let start = Instant::now();
    run();
    start.elapsed().as_nanos() as f64 / n as f64
}

/// One round over `keys`: ns an operation of each phase.
fn round(keys: &mut [u64], distinct: bool, rng: &mut Rng) -> [f64; 4] {
    let n = keys.len();
    let zs: Vec<I16F16> = (0..n).map(|i| z_for(distinct, i, rng)).collect();
    let moves: Vec<I16F16> = (0..n).map(|i| z_for(distinct, i + 5, rng)).collect();
    let mut order = ZOrder::<u64>::new(15).expect("15 levels");
    let mut times = [0.0; 4];

    shuffle(keys, rng);
    times[0] = per_operation(n, || {
        for (&key, &z) in keys.iter().zip(&zs) {
            order.insert(key, z).expect("a new key");
        }
    });
    shuffle(keys, rng);
    let mut found = 0;
    times[1] = per_operation(n, || {
        found = keys.iter().filter(|&&key| order.contains(key)).count();
    });
    assert_eq!(black_box(found), n);
    shuffle(keys, rng);
    times[2] = per_operation(n, || {
        for (&key, &z) in keys.iter().zip(&moves) {
            order.set_z(key, z).expect("a held key");
        }
    });
    shuffle(keys, rng);
    times[3] = per_operation(n, || {
        for &key in keys.iter() {
            order.remove(key).expect("a held key");
        }
    });
    assert!(order.is_empty());
    times
}

/// The three kinds of keys at `n` keys, rounds alternating; the fastest
/// round of each phase, dense, entity bits, then scattered.
fn measure(n: usize, distinct: bool) -> [[f64; 4]; 3] {
    let mut rng = Rng::new(0x5EED_0000 + n as u64);
    let mut dense: Vec<u64> = (0..n as u64).collect();
    let mut scattered: Vec<u64> = (0..n).map(|_| rng.next_u64() | 1 << 40).collect();
    scattered.sort_unstable();
    scattered.dedup();
    assert_eq!(scattered.len(), n, "distinct scattered keys");
    let mut entities: Vec<u64> = (0..n as u64)
        .map(|index| (1 + u64::from(rng.below(5) == 0)) << 32 | index)
        .collect();
    let mut best = [[f64::MAX; 4]; 3];
    for _ in 0..(OPERATIONS / n).max(MIN_ROUNDS) {
        for (kind, keys) in [&mut dense, &mut entities, &mut scattered]
            .into_iter()
            .enumerate()
        {
            let times = round(keys, distinct, &mut rng);
            for (best, time) in best[kind].iter_mut().zip(times) {
                *best = best.min(time);
            }
        }
    }
    best
}

fn main() {
    let Some(parts) = Parts::from_args() else {
        return;
    };
    println!("ns an operation, fastest of the rounds; each far kind / dense");
    println!(
        "{:>9} {:>9} {:>9} {:>10} {:>10} {:>6} {:>10} {:>6}",
        "keys", "Z", "phase", "dense", "entity", "ratio", "scattered", "ratio"
    );
    for (name, distinct) in [("levels", false), ("distinct", true)] {
        if !parts.runs(name) {
            continue;
        }
        for n in [1_000, 100_000, 1_000_000] {
            let [dense, entities, scattered] = measure(n, distinct);
            for (i, phase) in PHASES.iter().enumerate() {
                let (dense, entity, scattered) = (dense[i], entities[i], scattered[i]);
                println!(
                    "{n:>9} {name:>9} {phase:>9} {dense:>10.1} {entity:>10.1} {:>6.2} {scattered:>10.1} {:>6.2}",
                    entity / dense,
                    scattered / dense
                );
            }
        }
    }
}
