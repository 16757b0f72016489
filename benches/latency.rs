//! The tail of single operations: a run of 10^6 adds, removes and changes,
//! each timed on its own, and the median, p99, p99.9 and worst of them per
//! backend. A hidden O(n) step (a shifting array, a reallocating vector, a
//! rebalancing merge that grows with n) shows up as a worst case far above
//! the median.
//!
//! `cargo bench --bench latency` (tables on standard output, not criterion);
//! `cargo bench --bench latency -- backends` or `-- distributions` runs one
//! of the two parts.
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
//!
//! # Distributions
//!
//! The second part runs zorder alone, the keyed `ZOrder<u32>` and the
//! fixed-point `Rc` collection, on each Z distribution a game has: objects
//! on 16 levels; every object at its own fractional Z (an isometric
//! y-sort); every object created at the default Z and moved to a level
//! right after (the legacy creation). Each runs twice, made by `new` and
//! by `with_capacity(max_level, n)`. Only the collection's own call is
//! timed (the `Rc` object is made before, the key comes from the game's
//! free list before). Two phases, each timed operation by operation,
//! fastest of three replays:
//!
//! - `growth`: the world built from empty to `n` objects, one creation at
//!   a time (where a reservation matters);
//! - `steady`: then 10^6 operations at `n` objects, as in the first part
//!   (a move to a new Z, or a removal and a creation).
//!
//! Each row ends with issue 21's target: the worst operation at most 20
//! times the median plus a noise floor of 100 µs (a preemption the three
//! replays did not filter out) after `with_capacity`, both phases; and at
//! most 50 times the median, with no floor, for the operations at `n`
//! objects of a collection made without a reservation (the steady run).
//! Growth from empty without a reservation is amortised, as `Vec`'s and
//! hashbrown's is: the issue asks the README to say what its worst
//! operation costs, so its rows are reported, with their ratio, and not
//! judged. Before it, `allocs`
//! counts the allocator calls the worst operation made (a counting global
//! allocator, read outside the timed region; its counting adds a few
//! atomic additions to each allocation it times). The last rows time std's
//! collections growing the same way, as references: `Vec::push` of an
//! `Rc` from `Vec::new` and into `Vec::with_capacity`, `BTreeMap::insert`
//! from `new`, and `HashMap::insert` from `new` and into `with_capacity`
//! (random `u32` keys): the tail that growing from empty gives any
//! collection that allocates as it goes (a page's first touch, a
//! doubling's copy, a first allocation after a collection of 10^6 was
//! dropped).

use std::cell::Cell;
use std::collections::{BTreeMap, HashMap};
use std::hint::black_box;
use std::rc::Rc;
use std::time::{Duration, Instant};

use zorder::{FixedPointZCollection, ZObject, ZOrder};
use zorder_peers::bench_args::Parts;
use zorder_peers::scenario::SEED;
use zorder_peers::{
    ArticleList, Backend, DEFAULT_Z, I16F16, Rng, Scenario, SortedMap, Sprite, ZorderFixedPoint,
    ZorderKeyed, ZorderSimple, level,
};
use zorder_testkit::counting::{self, Counting};

#[global_allocator]
static ALLOCATOR: Counting = Counting;

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

/// The fastest of several replays of the same run, operation by
/// operation.
fn fastest_of(replays: impl IntoIterator<Item = Vec<Duration>>) -> Vec<Duration> {
    let mut fastest: Vec<Duration> = Vec::new();
    for times in replays {
        if fastest.is_empty() {
            fastest = times;
        } else {
            for (best, time) in fastest.iter_mut().zip(times) {
                *best = (*best).min(time);
            }
        }
    }
    fastest
}

/// The tail of a run's operation times.
struct Tail {
    median: f64,
    p99: f64,
    p999: f64,
    max: f64,
    /// Which operation was the worst.
    worst_at: usize,
}

impl Tail {
    /// Nanoseconds.
    fn of(mut times: Vec<Duration>) -> Tail {
        let count = times.len();
        let worst_at = (0..count).max_by_key(|&i| times[i]).unwrap_or(0);
        let nanos = |d: Duration| d.as_secs_f64() * 1e9;
        let max = nanos(times[worst_at]);
        times.sort_unstable();
        let rank = |per_mille: usize| nanos(times[(count * per_mille).div_ceil(1000).max(1) - 1]);
        Tail {
            median: rank(500),
            p99: rank(990),
            p999: rank(999),
            max,
            worst_at,
        }
    }

    fn ratio(&self) -> f64 {
        self.max / self.median
    }

    /// The columns `p50 ns`, `p99 ns`, `p99.9 ns`, `max ns`, `max/p50`,
    /// `worst op #` of a table row.
    fn columns(&self) -> String {
        format!(
            "{:>9.0} {:>9.0} {:>9.0} {:>9.0} {:>8.1} {:>10}",
            self.median,
            self.p99,
            self.p999,
            self.max,
            self.ratio(),
            self.worst_at
        )
    }

    const HEADER: &str = "   p50 ns    p99 ns  p99.9 ns    max ns  max/p50 worst op #";
}

fn measure<B: Backend>(objects: usize) {
    let tail = Tail::of(fastest_of((0..REPLAYS).map(|_| replay::<B>(objects))));
    println!("{:<14} {:>9} {}", B::NAME, objects, tail.columns());
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

/// How a run's objects get their Z.
#[derive(Clone, Copy, Debug, PartialEq)]
enum Zs {
    /// One of 16 levels.
    Levels,
    /// Each its own fractional Z (a new one at each move).
    Distinct,
    /// Created at the default Z, then moved to one of 16 levels.
    DefaultThenLevel,
}

impl Zs {
    const ALL: [Zs; 3] = [Zs::Levels, Zs::Distinct, Zs::DefaultThenLevel];

    fn name(self) -> &'static str {
        match self {
            Zs::Levels => "levels",
            Zs::Distinct => "distinct",
            Zs::DefaultThenLevel => "default-then-level",
        }
    }

    /// The Z of a creation or a move.
    fn pick(self, rng: &mut Rng) -> I16F16 {
        match self {
            Zs::Levels | Zs::DefaultThenLevel => level(rng.below(LEVELS as usize) as i32),
            // Odd bits: never a level, never the default Z; 2^30 values in
            // [0, 32768), so 10^6 objects share hardly any.
            Zs::Distinct => I16F16::from_bits(rng.below(1 << 31) as i32 | 1),
        }
    }
}

/// Levels `0..LEVELS` of the distribution runs.
const LEVELS: u16 = 16;

/// A zorder collection as the distribution runs use it. The untimed part
/// of a creation (`make`) is apart from the timed call (`insert`).
trait Subject: Sized {
    type Object;
    const NAME: &'static str;

    /// An empty collection; with room for `objects` if `reserve`.
    fn build(objects: usize, reserve: bool) -> Self;
    /// A new object (the game's side of a creation: untimed).
    fn make(&mut self) -> Self::Object;
    fn insert(&mut self, object: &Self::Object, z: I16F16);
    fn set_z(&mut self, object: &Self::Object, z: I16F16);
    fn remove(&mut self, object: &Self::Object);
    /// The game is done with a removed object (untimed).
    fn release(&mut self, object: Self::Object);
}

/// `ZOrder<u32>` over keys a game's free list hands out (so indices stay
/// below the objects' count).
struct Keyed {
    order: ZOrder<u32>,
    free: Vec<u32>,
    next: u32,
}

impl Subject for Keyed {
    type Object = u32;
    const NAME: &'static str = "ZOrder";

    fn build(objects: usize, reserve: bool) -> Self {
        let order = if reserve {
            ZOrder::with_capacity(LEVELS - 1, objects)
        } else {
            ZOrder::new(LEVELS - 1)
        };
        Keyed {
            order: order.expect("a valid layout"),
            free: Vec::with_capacity(objects),
            next: 0,
        }
    }

    fn make(&mut self) -> u32 {
        self.free.pop().unwrap_or_else(|| {
            self.next += 1;
            self.next - 1
        })
    }

    fn insert(&mut self, &key: &u32, z: I16F16) {
        self.order.insert(key, z).expect("a new key");
    }

    fn set_z(&mut self, &key: &u32, z: I16F16) {
        self.order.set_z(key, z).expect("a held key");
    }

    fn remove(&mut self, &key: &u32) {
        self.order.remove(key).expect("a held key");
    }

    fn release(&mut self, key: u32) {
        self.free.push(key);
    }
}

type RcObject = Rc<ZObject<Cell<I16F16>>>;

/// The fixed-point `Rc` collection.
struct Shared(FixedPointZCollection<Cell<I16F16>>);

impl Subject for Shared {
    type Object = RcObject;
    const NAME: &'static str = "FixedPointZColl";

    fn build(objects: usize, reserve: bool) -> Self {
        let collection = if reserve {
            FixedPointZCollection::with_capacity(LEVELS - 1, objects)
        } else {
            FixedPointZCollection::new(LEVELS - 1)
        };
        Shared(collection.expect("a valid layout"))
    }

    fn make(&mut self) -> RcObject {
        Rc::new(ZObject::new(Cell::new(DEFAULT_Z)))
    }

    fn insert(&mut self, object: &RcObject, z: I16F16) {
        object.set(z);
        self.0.add(object).expect("a free object");
    }

    fn set_z(&mut self, object: &RcObject, z: I16F16) {
        object.set(z);
        self.0.change(object).expect("an object of this collection");
    }

    fn remove(&mut self, object: &RcObject) {
        self.0.remove(object).expect("an object of this collection");
    }

    fn release(&mut self, object: RcObject) {
        drop(object);
    }
}

/// A run's operations, each timed and its allocator calls counted.
struct Timings {
    times: Vec<Duration>,
    /// Allocations (and reallocations) each operation made.
    allocations: Vec<usize>,
}

impl Timings {
    /// Room for `operations`, so that recording one allocates nothing.
    fn with_capacity(operations: usize) -> Self {
        Timings {
            times: Vec::with_capacity(operations),
            allocations: Vec::with_capacity(operations),
        }
    }

    fn len(&self) -> usize {
        self.times.len()
    }

    /// Times `op`, and counts its allocator calls outside the timed region.
    #[inline]
    fn timed(&mut self, op: impl FnOnce()) {
        let before = counting::seen().allocations;
        let start = Instant::now();
        op();
        let time = start.elapsed();
        let allocations = counting::seen().allocations - before;
        self.times.push(time);
        self.allocations.push(allocations);
    }

    fn truncate(&mut self, operations: usize) {
        self.times.truncate(operations);
        self.allocations.truncate(operations);
    }
}

/// A creation, timed: one insert, or the legacy default Z then a move.
fn create<S: Subject>(subject: &mut S, zs: Zs, rng: &mut Rng, timings: &mut Timings) -> S::Object {
    let object = subject.make();
    let z = zs.pick(rng);
    if zs == Zs::DefaultThenLevel {
        timings.timed(|| subject.insert(&object, DEFAULT_Z));
        timings.timed(|| subject.set_z(&object, z));
    } else {
        timings.timed(|| subject.insert(&object, z));
    }
    object
}

/// One replay: the growth's operations, then the steady run's.
fn replay_distribution<S: Subject>(objects: usize, zs: Zs, reserve: bool) -> (Timings, Timings) {
    let mut subject = S::build(objects, reserve);
    let mut rng = Rng::new(SEED ^ 7);
    let mut growth = Timings::with_capacity(2 * objects);
    let mut live: Vec<S::Object> = (0..objects)
        .map(|_| create(&mut subject, zs, &mut rng, &mut growth))
        .collect();
    let mut steady = Timings::with_capacity(OPERATIONS + 2);
    while steady.len() < OPERATIONS {
        let at = rng.below(live.len());
        if rng.below(2) == 0 {
            let z = zs.pick(&mut rng);
            let object = &live[at];
            steady.timed(|| subject.set_z(object, z));
        } else {
            let object = live.swap_remove(at);
            steady.timed(|| subject.remove(&object));
            subject.release(object);
            let object = create(&mut subject, zs, &mut rng, &mut steady);
            live.push(object);
        }
    }
    steady.truncate(OPERATIONS);
    black_box(&live);
    (growth, steady)
}

fn measure_distribution<S: Subject>(objects: usize, zs: Zs, reserve: bool) {
    let replays: Vec<_> = (0..REPLAYS)
        .map(|_| replay_distribution::<S>(objects, zs, reserve))
        .collect();
    let reservation = if reserve { "with_capacity" } else { "new" };
    let (growth, steady): (Vec<_>, Vec<_>) = replays.into_iter().unzip();
    let (limit, floor, rule) = if reserve {
        (20.0, 100_000.0, "20x + 100 us")
    } else {
        (50.0, 0.0, "50x")
    };
    for (phase, replays) in [("growth", growth), ("steady", steady)] {
        let (tail, allocations) = worst_of(replays);
        let target = limit * tail.median + floor;
        let verdict = if !reserve && phase == "growth" {
            format!("reported (amortised growth; {rule}: {target:.0} ns)")
        } else if tail.max <= target {
            format!("ok (<= {rule})")
        } else {
            format!("MISSED ({rule} = {target:.0} ns)")
        };
        println!(
            "{:<15} {:<19} {:<14} {:<7} {} {allocations:>6}  {verdict}",
            S::NAME,
            zs.name(),
            reservation,
            phase,
            tail.columns(),
        );
    }
}

/// The tail of the fastest of `replays`, operation by operation, and the
/// allocator calls its worst operation made (the same in every replay:
/// each makes the same calls from a new collection).
fn worst_of(mut replays: Vec<Timings>) -> (Tail, usize) {
    let allocations = replays
        .first_mut()
        .map(|run| std::mem::take(&mut run.allocations))
        .unwrap_or_default();
    let tail = Tail::of(fastest_of(replays.into_iter().map(|run| run.times)));
    let worst = allocations.get(tail.worst_at).copied().unwrap_or(0);
    (tail, worst)
}

/// A reference row for the growth rows: `objects` insertions into a std
/// collection made by `make`, each timed as the collection's own rows
/// are (fastest of the replays, allocator calls counted). Their tail is
/// what growing from empty costs any collection that allocates as it
/// goes: a page's first touch, a doubling's copy, an allocator's first
/// call after a collection of 10^6 was dropped.
fn measure_reference<C>(
    name: &str,
    made_by: &str,
    objects: usize,
    make: impl Fn() -> C,
    mut insert: impl FnMut(&mut C, u32),
) {
    let replays = (0..REPLAYS).map(|_| {
        let mut collection = make();
        let mut rng = Rng::new(SEED ^ 11);
        let mut timings = Timings::with_capacity(objects);
        for _ in 0..objects {
            let key = rng.below(u32::MAX as usize) as u32;
            timings.timed(|| insert(&mut collection, key));
        }
        black_box(&collection);
        timings
    });
    let (tail, allocations) = worst_of(replays.collect());
    println!(
        "{name:<15} {:<19} {made_by:<14} {:<7} {} {allocations:>6}  (reference)",
        "-",
        "growth",
        tail.columns(),
    );
}

/// The reference rows: `Vec::push` of an `Rc`, made by `new` and by
/// `with_capacity`; `BTreeMap::insert` (no reservation exists); and
/// `HashMap::insert`, made by `new` and by `with_capacity`. Keys are
/// random `u32`s.
fn references(objects: usize) {
    let object = Rc::new(ZObject::new(Cell::new(DEFAULT_Z)));
    let push = |vec: &mut Vec<RcObject>, _| vec.push(Rc::clone(&object));
    measure_reference("Vec<Rc<_>>", "new", objects, Vec::new, push);
    let reserved = || Vec::with_capacity(objects);
    measure_reference("Vec<Rc<_>>", "with_capacity", objects, reserved, push);
    let insert = |map: &mut BTreeMap<u32, u32>, key| {
        map.insert(key, key);
    };
    measure_reference("BTreeMap", "new", objects, BTreeMap::new, insert);
    let insert = |map: &mut HashMap<u32, u32>, key| {
        map.insert(key, key);
    };
    measure_reference("HashMap", "new", objects, HashMap::new, insert);
    let reserved = || HashMap::with_capacity(objects);
    measure_reference("HashMap", "with_capacity", objects, reserved, insert);
}

fn backends() {
    println!("{:<14} {:>9} {}", "backend", "objects", Tail::HEADER);
    for objects in [1_000, 100_000, 1_000_000] {
        measure::<ZorderKeyed>(objects);
        measure::<ZorderFixedPoint>(objects);
        measure::<ZorderSimple>(objects);
        measure::<SortedMap>(objects);
        measure::<ArticleList>(objects);
    }
}

fn distributions() {
    const OBJECTS: usize = 1_000_000;
    println!(
        "\nzorder at {OBJECTS} objects, each Z distribution; growth from empty, then {OPERATIONS} operations"
    );
    println!(
        "{:<15} {:<19} {:<14} {:<7} {} allocs  target",
        "collection",
        "Z values",
        "made by",
        "phase",
        Tail::HEADER
    );
    for zs in Zs::ALL {
        for reserve in [false, true] {
            measure_distribution::<Keyed>(OBJECTS, zs, reserve);
            measure_distribution::<Shared>(OBJECTS, zs, reserve);
        }
    }
    references(OBJECTS);
}

fn main() {
    let Some(parts) = Parts::from_args() else {
        return;
    };
    println!(
        "{OPERATIONS} operations, fastest of {REPLAYS} replays each; an empty timed region costs {:.0} ns (median)",
        timer_cost().as_secs_f64() * 1e9
    );
    if parts.runs("backends") {
        backends();
    }
    if parts.runs("distributions") {
        distributions();
    }
}
