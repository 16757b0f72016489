//! The tail of single operations: a run of 10^6 adds, removes and changes,
//! each timed on its own, and the median, p99, p99.9 and worst of them per
//! backend. A hidden O(n) step (a shifting array, a reallocating vector, a
//! rebalancing merge that grows with n) shows up as a worst case far above
//! the median.
//!
//! `cargo bench --bench latency` (a table on standard output, not criterion)
//!
//! The run is the same for every backend: from a world of `n` objects on the
//! 16 jelly layers, repeatedly either move a random object to a random layer
//! (one change), or destroy a random object (one remove) and create one the
//! legacy way (an add at the default Z, then a change to its layer). The
//! whole run is replayed three times from the same seed, and each
//! operation's time is its fastest replay, which filters out the moments the
//! OS preempted the process; what is left is the cost of the operation
//! itself. Every time includes one `Instant::now()` pair, whose own median
//! cost is printed first.
//!
//! The legacy array is left out: its operations are O(n) by design (see the
//! per-op and frame benchmarks), and 10^6 of them at 10^5 objects would take
//! minutes. The sorting backends and `vec-merge` are left out too: their
//! add, remove and change only mark or queue, and they pay in the next
//! traversal. The article's bucket list runs: its operations at levels and
//! the default Z are O(1), as zorder's are.

use std::hint::black_box;
use std::time::{Duration, Instant};

use zorder_peers::scenario::SEED;
use zorder_peers::{
    ArticleList, Backend, DEFAULT_Z, Rng, Scenario, SortedMap, Sprite, ZorderFixedPoint,
    ZorderKeyed, ZorderSimple,
};

const OPERATIONS: usize = 1_000_000;
const REPLAYS: usize = 3;

/// One replay: every operation's time, in order.
fn replay<B: Backend>(objects: usize) -> Vec<Duration> {
    let scenario = Scenario {
        objects,
        ..Scenario::jelly(1)
    };
    let layers = zorder_peers::scenario::jelly_layers();
    let mut scene = B::with_levels(scenario.max_level);
    let mut live: Vec<B::Handle> = (0..objects)
        .map(|i| scene.create(Sprite::new(i as u32), layers[i * layers.len() / objects]))
        .collect();
    let mut rng = Rng::new(SEED ^ 3);
    let mut next_id = objects as u32;
    let mut times = Vec::with_capacity(OPERATIONS + 2);
    let default_ok = scene.accepts(DEFAULT_Z);
    while times.len() < OPERATIONS {
        let z = *rng.pick(&layers);
        let at = rng.below(live.len());
        if rng.below(2) == 0 {
            let object = &live[at];
            let start = Instant::now();
            scene.change(object, z);
            times.push(start.elapsed());
        } else {
            let object = live.swap_remove(at);
            let start = Instant::now();
            scene.remove(object);
            times.push(start.elapsed());
            let sprite = Sprite::new(next_id);
            next_id += 1;
            let first_z = if default_ok { DEFAULT_Z } else { z };
            let start = Instant::now();
            let object = scene.create(sprite, first_z);
            times.push(start.elapsed());
            if default_ok {
                let start = Instant::now();
                scene.change(&object, z);
                times.push(start.elapsed());
            }
            live.push(object);
        }
    }
    times.truncate(OPERATIONS);
    black_box(scene.len());
    times
}

fn measure<B: Backend>(objects: usize) {
    let mut fastest = vec![Duration::MAX; OPERATIONS];
    for _ in 0..REPLAYS {
        for (best, time) in fastest.iter_mut().zip(replay::<B>(objects)) {
            *best = (*best).min(time);
        }
    }
    let worst_at = (0..OPERATIONS).max_by_key(|&i| fastest[i]).unwrap_or(0);
    let worst = fastest[worst_at];
    fastest.sort_unstable();
    let rank = |per_mille: usize| fastest[(OPERATIONS * per_mille).div_ceil(1000).max(1) - 1];
    let nanos = |d: Duration| d.as_secs_f64() * 1e9;
    let median = rank(500);
    println!(
        "{:<14} {:>9} {:>10.0} {:>10.0} {:>10.0} {:>10.0} {:>11.1} {:>10}",
        B::NAME,
        objects,
        nanos(median),
        nanos(rank(990)),
        nanos(rank(999)),
        nanos(worst),
        nanos(worst) / nanos(median),
        worst_at,
    );
}

/// The median cost of an empty timed region.
fn timer_cost() -> Duration {
    let mut times: Vec<Duration> = (0..100_000)
        .map(|_| {
            let start = Instant::now();
            black_box(());
            start.elapsed()
        })
        .collect();
    times.sort_unstable();
    times[times.len() / 2]
}

fn main() {
    if std::env::args().any(|arg| arg == "--list" || arg == "--test") {
        return;
    }
    println!(
        "{OPERATIONS} operations, fastest of {REPLAYS} replays each; an empty timed region costs {:.0} ns (median)",
        timer_cost().as_secs_f64() * 1e9
    );
    println!(
        "{:<14} {:>9} {:>10} {:>10} {:>10} {:>10} {:>11} {:>10}",
        "backend", "objects", "p50 ns", "p99 ns", "p99.9 ns", "max ns", "max/p50", "worst op #"
    );
    for objects in [1_000, 100_000, 1_000_000] {
        measure::<ZorderKeyed>(objects);
        measure::<ZorderFixedPoint>(objects);
        measure::<ZorderSimple>(objects);
        measure::<SortedMap>(objects);
        measure::<ArticleList>(objects);
    }
}
