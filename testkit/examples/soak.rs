//! The soak: 10^8 random operations (`--ops N`) of every kind, on both
//! faces (keys and `Rc` objects) and both layouts (fixed-point and
//! simple), under every Z distribution, against the contract model
//! (`zorder_testkit::model`). Every operation is checked cheaply against
//! the model (its result, the length, the bucket count, the Z of the entry
//! it touched); everything (both orders, counts, `nonoptimized_buckets`,
//! the invariants, a clone) is checked at intervals. It reports the
//! throughput, the peak memory, whether memory stayed flat (the live
//! heap, counted by a global allocator, and resident memory beside it), the
//! slowest operations of each kind, and the slowest single-entry calls
//! of the frames the scheduler did not interrupt, by number: a second run
//! with the same `--seed` makes the same calls, so it tells a call's own
//! cost from the machine's. A release-mode command, not a CI test:
//!
//! ```text
//! cargo run --release -p zorder-testkit --example soak -- --ops 100000000
//! ```
//!
//! Options: `--ops N` (10^8), `--seed S`, `--population P` (the entries
//! each collection keeps about: 20,000), `--scene N` (operations per
//! scene: 2,000,000), `--check-every N` (operations between whole checks:
//! 4,194,304), `--sample-every N` (operations between memory samples:
//! 1,048,576).
//!
//! Four collections live through the whole run: a keyed fixed-point one
//! (a third of its keys dense, the rest counting down from `u64::MAX`), a
//! keyed simple one with 32,768 levels (keys 64 apart, dense and hashed
//! side by side), and a fixed-point and a simple `Rc` collection (with a
//! fixed-point staging collection appended into them). Frames of 64 to
//! 191 changes go to one collection at a time, each frame ending with a
//! draw walk and a touch (an in-walk update that stops at the entry hit),
//! except in quiet scenes. Scenes follow in a cycle, each favouring one
//! workload: few levels with many entries each; every entry at its own Z
//! (fractional, negative, above the levels: an isometric y-sort); bursts
//! of short-lived entries at distinct Z; creation at the default Z then a
//! move; batches (a crowd moving at once); and a quiet stretch with no
//! walk at all, so pruning rests on its cap.

use std::cell::Cell;
use std::collections::VecDeque;
use std::ops::Bound;
use std::ops::ControlFlow::{Break, Continue};
use std::rc::Rc;
use std::time::{Duration, Instant};

use zorder::{
    DEFAULT_Z, FixedPointZCollection, I16F16, KeyVisit, RcZCollection, SimpleZCollection, Visit,
    ZError, ZKey, ZObject, ZOrder,
};
use zorder_peers::Rng;
use zorder_testkit::counting::{self, Counting};
use zorder_testkit::keyed::Key;
use zorder_testkit::model::{Layout, Model, ModelCollection};
use zorder_testkit::ops::Indices;

/// True `per_mille` times in 1000.
fn chance(rng: &mut Rng, per_mille: usize) -> bool {
    rng.below(1000) < per_mille
}

/// The operations the soak times, one kind each.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
enum Kind {
    Insert,
    InsertAtDefault,
    SetZ,
    Refile,
    SetZIfChanged,
    Upsert,
    Replace,
    Remove,
    Refused,
    Apply,
    Extend,
    ChangeAll,
    Append,
    Range,
    Ends,
    BackToFront,
    FrontToBack,
    Touch,
    Retain,
    Clone,
    Drain,
}

impl Kind {
    const ALL: [Kind; 21] = [
        Kind::Insert,
        Kind::InsertAtDefault,
        Kind::SetZ,
        Kind::Refile,
        Kind::SetZIfChanged,
        Kind::Upsert,
        Kind::Replace,
        Kind::Remove,
        Kind::Refused,
        Kind::Apply,
        Kind::Extend,
        Kind::ChangeAll,
        Kind::Append,
        Kind::Range,
        Kind::Ends,
        Kind::BackToFront,
        Kind::FrontToBack,
        Kind::Touch,
        Kind::Retain,
        Kind::Clone,
        Kind::Drain,
    ];

    /// Whether a call of this kind touches one entry (a filing, a move, a
    /// removal or a refusal), so that its time says what one operation
    /// can cost.
    fn single(self) -> bool {
        matches!(
            self,
            Kind::Insert
                | Kind::InsertAtDefault
                | Kind::SetZ
                | Kind::Refile
                | Kind::SetZIfChanged
                | Kind::Upsert
                | Kind::Replace
                | Kind::Remove
                | Kind::Refused
        )
    }

    fn name(self) -> &'static str {
        match self {
            Kind::Insert => "insert / add",
            Kind::InsertAtDefault => "insert at DEFAULT_Z",
            Kind::SetZ => "set_z / change",
            Kind::Refile => "refile / change, same Z",
            Kind::SetZIfChanged => "set_z_if_changed",
            Kind::Upsert => "insert_or_set_z",
            Kind::Replace => "replace",
            Kind::Remove => "remove",
            Kind::Refused => "refused (an error)",
            Kind::Apply => "apply (batch)",
            Kind::Extend => "extend (batch)",
            Kind::ChangeAll => "change_all (batch)",
            Kind::Append => "append (batch)",
            Kind::Range => "range, up to 32",
            Kind::Ends => "first and last",
            Kind::BackToFront => "back_to_front walk",
            Kind::FrontToBack => "front_to_back walk",
            Kind::Touch => "update_front_to_back",
            Kind::Retain => "retain",
            Kind::Clone => "clone and ==",
            Kind::Drain => "drain",
        }
    }
}

/// Slowest single-entry calls listed at the end.
const SLOWEST: usize = 8;

/// Log2 buckets of nanoseconds.
const BUCKETS: usize = 40;

#[derive(Clone, Copy)]
struct KindStats {
    count: u64,
    total: Duration,
    max: Duration,
    /// The slowest of the frame going on, and of the frames the scheduler
    /// did not interrupt.
    frame_max: Duration,
    undisturbed_max: Duration,
    histogram: [u64; BUCKETS],
}

/// The slowest call: its time, kind, collection and number.
type Worst = (Duration, Kind, &'static str, u64);

/// The time of every library call, by kind, and the slowest ones.
struct Stats {
    kinds: [KindStats; Kind::ALL.len()],
    /// Library calls so far.
    ops: u64,
    /// The collection operated on now.
    world: &'static str,
    /// The slowest call of all.
    worst: Worst,
    /// The slowest call of a frame the scheduler did not interrupt (the
    /// thread never waited to run), and of the frame going on.
    worst_undisturbed: Worst,
    frame_worst: Worst,
    /// The slowest single-entry calls of the frames the scheduler did not
    /// interrupt, slowest first, and of the frame going on: the same seed
    /// repeats the same calls, so a call that is among them in two runs
    /// costs that much itself, and one that is not was the machine's.
    slowest_single: Vec<Worst>,
    frame_slowest: Vec<Worst>,
    /// The thread's time spent waiting to run, at the frame's start.
    waited: u64,
    frames: u64,
    undisturbed: u64,
}

impl Stats {
    fn new() -> Self {
        let empty = KindStats {
            count: 0,
            total: Duration::ZERO,
            max: Duration::ZERO,
            frame_max: Duration::ZERO,
            undisturbed_max: Duration::ZERO,
            histogram: [0; BUCKETS],
        };
        let none = (Duration::ZERO, Kind::Insert, "", 0);
        Stats {
            kinds: [empty; Kind::ALL.len()],
            ops: 0,
            world: "",
            worst: none,
            worst_undisturbed: none,
            frame_worst: none,
            slowest_single: Vec::with_capacity(2 * SLOWEST),
            frame_slowest: Vec::with_capacity(SLOWEST + 1),
            waited: waited(),
            frames: 0,
            undisturbed: 0,
        }
    }

    /// A frame (or a whole check) ends: if the thread never waited to run
    /// during it, its slowest call counts as undisturbed.
    fn end_frame(&mut self) {
        let waited = waited();
        self.frames += 1;
        let undisturbed = waited == self.waited;
        if undisturbed {
            self.undisturbed += 1;
            self.slowest_single.append(&mut self.frame_slowest);
            self.slowest_single
                .sort_by_key(|worst| std::cmp::Reverse(worst.0));
            self.slowest_single.truncate(SLOWEST);
            if self.frame_worst.0 > self.worst_undisturbed.0 {
                self.worst_undisturbed = self.frame_worst;
            }
        }
        for kind in &mut self.kinds {
            if undisturbed {
                kind.undisturbed_max = kind.undisturbed_max.max(kind.frame_max);
            }
            kind.frame_max = Duration::ZERO;
        }
        self.waited = waited;
        self.frame_worst.0 = Duration::ZERO;
        self.frame_slowest.clear();
    }

    /// Runs one library call and times it.
    #[inline]
    fn time<R>(&mut self, kind: Kind, call: impl FnOnce() -> R) -> R {
        let start = Instant::now();
        let result = call();
        let took = start.elapsed();
        self.ops += 1;
        let stats = &mut self.kinds[kind as usize];
        stats.count += 1;
        stats.total += took;
        let ns = took.as_nanos() as u64;
        stats.histogram[(64 - ns.leading_zeros() as usize).min(BUCKETS - 1)] += 1;
        stats.max = stats.max.max(took);
        stats.frame_max = stats.frame_max.max(took);
        if kind.single()
            && (self.frame_slowest.len() < SLOWEST
                || self.frame_slowest.last().is_some_and(|last| took > last.0))
        {
            let at = self.frame_slowest.partition_point(|worst| worst.0 >= took);
            self.frame_slowest
                .insert(at, (took, kind, self.world, self.ops));
            self.frame_slowest.truncate(SLOWEST);
        }
        if took > self.frame_worst.0 {
            self.frame_worst = (took, kind, self.world, self.ops);
            if took > self.worst.0 {
                self.worst = self.frame_worst;
            }
        }
        result
    }

    /// The time under which a share `q` of a kind's calls took, to a
    /// power of two.
    fn quantile(stats: &KindStats, q: f64) -> Duration {
        let target = (stats.count as f64 * q).ceil() as u64;
        let mut seen = 0;
        for (bucket, &n) in stats.histogram.iter().enumerate() {
            seen += n;
            if seen >= target {
                return Duration::from_nanos(1 << bucket);
            }
        }
        stats.max
    }

    fn library_time(&self) -> Duration {
        self.kinds.iter().map(|k| k.total).sum()
    }
}

/// What a scene favours.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
enum Scene {
    FewLevels,
    OwnZ,
    Bursts,
    DefaultThenMove,
    Batches,
    Quiet,
}

impl Scene {
    const CYCLE: [Scene; 6] = [
        Scene::FewLevels,
        Scene::OwnZ,
        Scene::Bursts,
        Scene::DefaultThenMove,
        Scene::Batches,
        Scene::Quiet,
    ];

    fn name(self) -> &'static str {
        match self {
            Scene::FewLevels => "few levels",
            Scene::OwnZ => "own Z each",
            Scene::Bursts => "bursts",
            Scene::DefaultThenMove => "default Z, then move",
            Scene::Batches => "batches",
            Scene::Quiet => "quiet (no walk)",
        }
    }
}

/// A Z of one of eight layers (levels of both layouts).
fn layer_z(rng: &mut Rng) -> I16F16 {
    I16F16::from_num(rng.below(8))
}

/// A Z of its own: any of about 2^27 values around 0 (fractional,
/// negative, above the levels), or in a simple layout any level.
fn own_z(rng: &mut Rng, layout: Layout) -> I16F16 {
    match layout {
        Layout::Fixed { .. } => I16F16::from_bits((rng.next_u64() as i32) >> 5),
        Layout::Simple { max_level } => I16F16::from_num(rng.below(usize::from(max_level) + 1)),
    }
}

/// The Z a scene files an entry at.
fn scene_z(rng: &mut Rng, scene: Scene, layout: Layout) -> I16F16 {
    match scene {
        Scene::FewLevels | Scene::Bursts => layer_z(rng),
        Scene::OwnZ | Scene::Batches | Scene::Quiet => own_z(rng, layout),
        Scene::DefaultThenMove if chance(rng, 500) => layer_z(rng),
        Scene::DefaultThenMove => own_z(rng, layout),
    }
}

/// A Z no level of a simple layout has (`None` for a fixed-point one).
fn refused_z(rng: &mut Rng, layout: Layout) -> Option<I16F16> {
    match layout {
        Layout::Fixed { .. } => None,
        Layout::Simple { max_level } => Some(match rng.below(3) {
            0 => DEFAULT_Z,
            1 => I16F16::from_num(i32::from(max_level) + 1),
            // A fraction.
            _ => I16F16::from_bits(1 + (rng.next_u64() as i32 & 0xFFFE)),
        }),
    }
}

/// Entry numbers: the held ones (to pick one at random) and the free ones
/// (to reuse, as game storage reuses its slots).
#[derive(Default)]
struct Pool {
    held: Vec<usize>,
    /// Where each entry is in `held`, or `usize::MAX`.
    at: Vec<usize>,
    free: Vec<usize>,
}

impl Pool {
    fn fresh(&mut self) -> usize {
        self.free.pop().unwrap_or_else(|| {
            self.at.push(usize::MAX);
            self.at.len() - 1
        })
    }

    fn hold(&mut self, id: usize) {
        debug_assert_eq!(self.at[id], usize::MAX);
        self.at[id] = self.held.len();
        self.held.push(id);
    }

    /// `id` is no longer held; its number goes back to the free ones.
    fn release(&mut self, id: usize) {
        let at = std::mem::replace(&mut self.at[id], usize::MAX);
        self.held.swap_remove(at);
        if let Some(&moved) = self.held.get(at) {
            self.at[moved] = at;
        }
        self.free.push(id);
    }

    fn is_held(&self, id: usize) -> bool {
        self.at.get(id).is_some_and(|&at| at != usize::MAX)
    }

    fn pick(&self, rng: &mut Rng) -> Option<usize> {
        (!self.held.is_empty()).then(|| self.held[rng.below(self.held.len())])
    }
}

/// One collection of the run and its model.
trait World {
    fn name(&self) -> &'static str;
    fn len(&self) -> usize;
    /// One change of the frame, of a kind the scene favours; the
    /// collection grows while it has fewer than `target` entries.
    fn churn(&mut self, rng: &mut Rng, scene: Scene, target: usize, stats: &mut Stats);
    /// The frame's end: bursts that are over go, bursts begin; a draw
    /// walk and a touch, unless the scene is quiet.
    fn end_frame(&mut self, rng: &mut Rng, scene: Scene, stats: &mut Stats);
    /// What a scene change does: a retain.
    fn end_scene(&mut self, rng: &mut Rng, stats: &mut Stats);
    /// What a cycle's end does: every entry drained and filed again.
    fn end_cycle(&mut self, stats: &mut Stats);
    /// Everything against the model.
    fn check_all(&mut self, stats: &mut Stats);
}

/// What a change of a frame does: file a new entry, remove a held one, or
/// act on a held one as `roll` (below 700) says. A collection with fewer
/// than `target` entries grows, one with more shrinks.
enum Change {
    New,
    Remove(usize),
    Held(usize, usize),
}

fn next_change(rng: &mut Rng, pool: &Pool, len: usize, target: usize) -> Change {
    let grow = len < target;
    let roll = rng.below(1000);
    match pool.pick(rng) {
        Some(id) if roll >= if grow { 800 } else { 700 } => Change::Remove(id),
        Some(id) if roll >= if grow { 300 } else { 100 } => Change::Held(id, roll),
        _ => Change::New,
    }
}

/// Up to [`RANGE_TAKEN`] items of `walk`, from its back or its front.
fn take_ends<I: DoubleEndedIterator>(walk: I, from_back: bool) -> Vec<I::Item> {
    if from_back {
        walk.rev().take(RANGE_TAKEN).collect()
    } else {
        walk.take(RANGE_TAKEN).collect()
    }
}

/// Checks `first` and `last` against the model's, each entry shown by
/// `show`.
fn check_ends<T: PartialEq + std::fmt::Debug>(
    real: (Option<T>, Option<T>),
    model: &ModelCollection,
    show: impl Fn((usize, I16F16)) -> T,
    name: &str,
) {
    let expected = (model.first().map(&show), model.last().map(&show));
    assert_eq!(real, expected, "{name}: first and last");
}

/// The next burst that is over by `frame`, if any.
fn burst_over(bursts: &mut Bursts, frame: u64) -> Option<Vec<(usize, u32)>> {
    if bursts.front().is_some_and(|&(until, _)| until <= frame) {
        bursts.pop_front().map(|(_, entries)| entries)
    } else {
        None
    }
}

/// Short-lived entries: their numbers (with the generation, for keys),
/// and the frame they go at.
type Bursts = VecDeque<(u64, Vec<(usize, u32)>)>;

/// How many frames a burst lives, and how many entries it has.
fn burst(rng: &mut Rng) -> (u64, usize) {
    (1 + rng.below(8) as u64, 100 + rng.below(400))
}

/// Up to this many entries of a range are compared.
const RANGE_TAKEN: usize = 32;

/// A band of Z around `z`, its bounds included, excluded or absent.
fn band(rng: &mut Rng, z: I16F16) -> (Bound<I16F16>, Bound<I16F16>) {
    let width = [0, 1, 1 << 12, 1 << 16, 1 << 20][rng.below(5)];
    let low = I16F16::from_bits(z.to_bits().saturating_sub(width));
    let high = I16F16::from_bits(z.to_bits().saturating_add(width));
    let bound = |kind: usize, z| match kind {
        0..=3 => Bound::Included(z),
        4..=6 => Bound::Excluded(z),
        _ => Bound::Unbounded,
    };
    (bound(rng.below(8), low), bound(rng.below(8), high))
}

// ---------------------------------------------------------------- keys --

struct KeyedWorld<L: zorder::Layout> {
    name: &'static str,
    order: ZOrder<Key, L>,
    model: Model,
    layout: Layout,
    indices: Indices,
    /// The generation of each entry's key now.
    generation: Vec<u32>,
    pool: Pool,
    bursts: Bursts,
    frame: u64,
}

impl<L: zorder::Layout> KeyedWorld<L> {
    fn new(name: &'static str, order: ZOrder<Key, L>, layout: Layout, indices: Indices) -> Self {
        KeyedWorld {
            name,
            order,
            model: Model::new(&[layout], false),
            layout,
            indices,
            generation: Vec::new(),
            pool: Pool::default(),
            bursts: VecDeque::new(),
            frame: 0,
        }
    }

    fn key(&self, id: usize) -> Key {
        Key {
            index: self.indices.index(id),
            generation: self.generation[id],
        }
    }

    /// A free entry, with a key of a new generation.
    fn fresh(&mut self) -> usize {
        let id = self.pool.fresh();
        if id == self.generation.len() {
            self.generation.push(0);
        } else {
            self.generation[id] = self.generation[id].wrapping_add(1);
        }
        id
    }

    /// The cheap checks after an operation on `id`.
    fn cheap(&self, id: usize) {
        let model = &self.model.collections[0];
        assert_eq!(self.order.len(), model.len(), "{}: len", self.name);
        assert_eq!(
            self.order.nonoptimized_buckets(),
            model.nonoptimized_buckets(),
            "{}: nonoptimized_buckets",
            self.name
        );
        assert_eq!(
            self.order.z_of(self.key(id)),
            model.z_of(id),
            "{}: z of #{id}",
            self.name
        );
        assert_eq!(self.pool.is_held(id), model.contains(id));
    }

    fn insert(&mut self, z: I16F16, stats: &mut Stats) -> usize {
        let id = self.fresh();
        let key = self.key(id);
        let kind = if z == DEFAULT_Z {
            Kind::InsertAtDefault
        } else {
            Kind::Insert
        };
        let real = stats.time(kind, || self.order.insert(key, z));
        let expected = self.model.add(0, id, z);
        assert_eq!(real, expected, "{}: insert {key:?} at {z}", self.name);
        if real.is_ok() {
            self.pool.hold(id);
        } else {
            self.pool.free.push(id);
        }
        id
    }

    fn remove(&mut self, id: usize, stats: &mut Stats) {
        let key = self.key(id);
        let real = stats.time(Kind::Remove, || self.order.remove(key));
        assert_eq!(
            real,
            self.model.remove(0, id),
            "{}: remove {key:?}",
            self.name
        );
        self.pool.release(id);
    }

    fn set_z(&mut self, id: usize, z: I16F16, stats: &mut Stats) {
        let key = self.key(id);
        let real = stats.time(Kind::SetZ, || self.order.set_z(key, z));
        assert_eq!(
            real,
            self.model.change(0, id, z),
            "{}: set_z {key:?} {z}",
            self.name
        );
    }

    /// A batch through `apply`: inserts of new entries, moves of held
    /// ones and removals, in `count` steps.
    fn apply(&mut self, rng: &mut Rng, scene: Scene, count: usize, stats: &mut Stats) {
        let mut steps = Vec::with_capacity(count);
        for _ in 0..count {
            let step = match (rng.below(10), self.pool.pick(rng)) {
                (0..=5, Some(id)) => (id, Some(scene_z(rng, scene, self.layout))),
                (6..=7, Some(id)) => (id, None),
                _ => {
                    let id = self.fresh();
                    // Held for the batch's sake: released if it is not in
                    // the end.
                    self.pool.hold(id);
                    (id, Some(scene_z(rng, scene, self.layout)))
                }
            };
            steps.push(step);
        }
        let changes: Vec<(Key, Option<I16F16>)> =
            steps.iter().map(|&(id, z)| (self.key(id), z)).collect();
        let real = stats.time(Kind::Apply, || self.order.apply(changes.iter().copied()));
        let [inserted, moved, removed, refused] = self.model.apply(0, &steps);
        assert_eq!(
            (real.inserted, real.moved, real.removed, real.refused),
            (inserted, moved, removed, refused),
            "{}: apply",
            self.name
        );
        self.settle(steps.iter().map(|&(id, _)| id));
    }

    /// After a batch (whose new entries were taken as held): the pool
    /// lets go of the entries the model does not hold.
    fn settle(&mut self, ids: impl Iterator<Item = usize>) {
        for id in ids {
            if self.pool.is_held(id) && !self.model.collections[0].contains(id) {
                self.pool.release(id);
            }
            self.cheap(id);
        }
    }
}

impl<L: zorder::Layout> World for KeyedWorld<L> {
    fn name(&self) -> &'static str {
        self.name
    }

    fn len(&self) -> usize {
        self.order.len()
    }

    fn churn(&mut self, rng: &mut Rng, scene: Scene, target: usize, stats: &mut Stats) {
        let (id, roll) = match next_change(rng, &self.pool, self.order.len(), target) {
            Change::Held(id, roll) => (id, roll),
            Change::Remove(id) => {
                self.remove(id, stats);
                return self.cheap(id);
            }
            Change::New => {
                // An insert: at the scene's Z, or at the default Z first.
                if scene == Scene::DefaultThenMove && chance(rng, 700) {
                    let id = self.insert(DEFAULT_Z, stats);
                    if self.pool.is_held(id) {
                        let z = scene_z(rng, scene, self.layout);
                        self.set_z(id, z, stats);
                    } else {
                        // A simple layout refuses the default Z.
                        let z = scene_z(rng, scene, self.layout);
                        self.insert(z, stats);
                    }
                } else {
                    let z = scene_z(rng, scene, self.layout);
                    let id = self.insert(z, stats);
                    self.cheap(id);
                }
                return;
            }
        };
        let key = self.key(id);
        let z = scene_z(rng, scene, self.layout);
        match roll {
            0..=499 => self.set_z(id, z, stats),
            500..=549 => {
                let real = stats.time(Kind::Refile, || self.order.refile(key));
                let own = self.model.collections[0].z_of(id).expect("held");
                assert_eq!(real, self.model.change(0, id, own), "{}: refile", self.name);
            }
            550..=589 => {
                let z = if chance(rng, 500) {
                    self.model.collections[0].z_of(id).expect("held")
                } else {
                    z
                };
                let real = stats.time(Kind::SetZIfChanged, || self.order.set_z_if_changed(key, z));
                assert_eq!(
                    real,
                    self.model.change_if_new(0, id, z),
                    "{}: set_z_if_changed",
                    self.name
                );
            }
            590..=619 => {
                let real = stats.time(Kind::Upsert, || self.order.insert_or_set_z(key, z));
                assert_eq!(
                    real,
                    self.model.upsert(0, id, z),
                    "{}: insert_or_set_z",
                    self.name
                );
            }
            620..=639 => {
                // The storage reuses the slot without removing the key:
                // `replace` files the new one.
                let held = self.model.collections[0].z_of(id).expect("held");
                let old = self.key(id);
                self.generation[id] = self.generation[id].wrapping_add(1);
                let new = self.key(id);
                let real = stats.time(Kind::Replace, || self.order.replace(new, z));
                self.model.remove(0, id).expect("held");
                self.model.add(0, id, z).expect("a Z of the scene");
                assert_eq!(real, Ok(Some((old, held))), "{}: replace", self.name);
            }
            640..=659 => {
                // A stale key (the previous generation), or a Z refused.
                let stale = Key {
                    generation: key.generation.wrapping_sub(1),
                    ..key
                };
                let (real, expected) = match (rng.below(3), refused_z(rng, self.layout)) {
                    (0, _) => (
                        stats.time(Kind::Refused, || self.order.insert(stale, z)),
                        Err(ZError::IndexInUse { index: key.index() }),
                    ),
                    (1, _) => (
                        stats.time(Kind::Refused, || self.order.remove(stale).map(drop)),
                        Err(ZError::NotInCollection),
                    ),
                    (_, Some(bad)) => (
                        stats.time(Kind::Refused, || self.order.set_z(key, bad)),
                        self.model.change(0, id, bad),
                    ),
                    (_, None) => (
                        stats.time(Kind::Refused, || self.order.set_z(stale, z)),
                        Err(ZError::NotInCollection),
                    ),
                };
                assert!(expected.is_err());
                assert_eq!(real, expected, "{}: refused", self.name);
            }
            660..=674 => {
                let count = if scene == Scene::Batches {
                    50 + rng.below(450)
                } else {
                    1 + rng.below(64)
                };
                return self.apply(rng, scene, count, stats);
            }
            675..=679 => {
                // Extend: re-files and inserts, as one batch.
                let mut steps = Vec::new();
                for _ in 0..1 + rng.below(64) {
                    let id = if chance(rng, 500) {
                        self.pool.pick(rng).expect("held")
                    } else {
                        let id = self.fresh();
                        self.pool.hold(id);
                        id
                    };
                    steps.push((id, Some(scene_z(rng, scene, self.layout))));
                }
                let pairs: Vec<(Key, I16F16)> = steps
                    .iter()
                    .map(|&(id, z)| (self.key(id), z.expect("filed")))
                    .collect();
                stats.time(Kind::Extend, || self.order.extend(pairs.iter().copied()));
                self.model.apply(0, &steps);
                return self.settle(steps.iter().map(|&(id, _)| id));
            }
            680..=689 => {
                let (start, end) = band(rng, self.model.collections[0].z_of(id).expect("held"));
                let from_back = chance(rng, 500);
                let real = stats.time(Kind::Range, || {
                    take_ends(self.order.range((start, end)), from_back)
                });
                let model = self.model.collections[0].range((start, end));
                let pair = |(id, z)| (self.key(id), z);
                let expected = take_ends(model.map(pair), from_back);
                assert_eq!(real, expected, "{}: range {start:?}..{end:?}", self.name);
            }
            _ => {
                let real = stats.time(Kind::Ends, || (self.order.first(), self.order.last()));
                let pair = |(id, z)| (self.key(id), z);
                check_ends(real, &self.model.collections[0], pair, self.name);
            }
        }
        self.cheap(id);
    }

    fn end_frame(&mut self, rng: &mut Rng, scene: Scene, stats: &mut Stats) {
        self.frame += 1;
        // Bursts that are over go, one by one or in one batch.
        while let Some(entries) = burst_over(&mut self.bursts, self.frame) {
            let alive: Vec<usize> = entries
                .into_iter()
                .filter(|&(id, generation)| {
                    self.generation[id] == generation && self.pool.is_held(id)
                })
                .map(|(id, _)| id)
                .collect();
            if chance(rng, 500) {
                for id in alive {
                    self.remove(id, stats);
                }
            } else {
                let steps: Vec<(usize, Option<I16F16>)> =
                    alive.iter().map(|&id| (id, None)).collect();
                let changes: Vec<(Key, Option<I16F16>)> =
                    alive.iter().map(|&id| (self.key(id), None)).collect();
                let real = stats.time(Kind::Apply, || self.order.apply(changes));
                let [_, _, removed, _] = self.model.apply(0, &steps);
                assert_eq!(real.removed, removed, "{}: a burst's end", self.name);
                self.settle(alive.into_iter());
            }
        }
        if scene == Scene::Bursts && chance(rng, 250) {
            let (frames, size) = burst(rng);
            let mut entries = Vec::with_capacity(size);
            for _ in 0..size {
                let z = own_z(rng, self.layout);
                let id = self.insert(z, stats);
                if self.pool.is_held(id) {
                    entries.push((id, self.generation[id]));
                }
            }
            self.bursts.push_back((self.frame + frames, entries));
        }
        if scene == Scene::Quiet {
            return;
        }
        // The draw.
        let len = self.order.len();
        let drawn = stats.time(Kind::BackToFront, || self.order.back_to_front().count());
        self.model.collections[0].tick();
        assert_eq!(drawn, len, "{}: the draw", self.name);
        // The touch: the k-th entry from the front is hit, and comes to the
        // front, moves, or goes.
        let hit = 1 + rng.below(16);
        let z = scene_z(rng, scene, self.layout);
        let action = [
            KeyVisit::Refile,
            KeyVisit::SetZ(z),
            KeyVisit::Remove,
            KeyVisit::Keep,
        ][rng.below(4)];
        let mut rank = 0;
        let done = stats.time(Kind::Touch, || {
            self.order.update_front_to_back(|_, _| {
                rank += 1;
                if rank == hit {
                    Break(action)
                } else {
                    Continue(KeyVisit::Keep)
                }
            })
        });
        assert_eq!(
            done.visited,
            hit.min(len),
            "{}: the touch's visits",
            self.name
        );
        let touched = self.model.collections[0].pairs().rev().nth(hit - 1);
        if let Some((id, own)) = touched {
            let (removed, changed) = match action {
                KeyVisit::Refile => (0, self.model.change(0, id, own).map(|()| 1)),
                KeyVisit::SetZ(z) => (0, self.model.change(0, id, z).map(|()| 1)),
                KeyVisit::Remove => {
                    self.model.remove(0, id).expect("held");
                    self.pool.release(id);
                    (1, Ok(0))
                }
                _ => (0, Ok(0)),
            };
            assert_eq!(
                (done.removed, done.changed),
                (removed, changed.expect("a Z of the scene")),
                "{}: the touch",
                self.name
            );
            self.cheap(id);
        }
        // Now and then the touch's walk itself, front to back.
        if chance(rng, 100) {
            let real: Vec<Key> = stats.time(Kind::FrontToBack, || {
                self.order.front_to_back().take(hit).collect()
            });
            self.model.collections[0].tick();
            let expected: Vec<Key> = self.model.collections[0]
                .pairs()
                .rev()
                .take(hit)
                .map(|(id, _)| self.key(id))
                .collect();
            assert_eq!(real, expected, "{}: front to back", self.name);
        }
    }

    fn end_scene(&mut self, rng: &mut Rng, stats: &mut Stats) {
        // A tenth of the entries go, chosen by a salt of the run.
        let salt = rng.next_u64() as usize;
        let goes = |id: usize| (id ^ salt) % 10 == 0;
        let indices = self.indices;
        let keep = |key: Key, _| !goes(indices.id(key.index));
        stats.time(Kind::Retain, || self.order.retain(keep));
        let gone: Vec<usize> = self
            .pool
            .held
            .iter()
            .copied()
            .filter(|&id| goes(id))
            .collect();
        for id in gone {
            self.model.remove(0, id).expect("held");
            self.pool.release(id);
        }
    }

    fn end_cycle(&mut self, stats: &mut Stats) {
        // Everything out and back in, in the same order (ties included).
        let drained: Vec<(Key, I16F16)> = stats.time(Kind::Drain, || self.order.drain().collect());
        let steps: Vec<(usize, Option<I16F16>)> = self.model.collections[0]
            .pairs()
            .map(|(id, z)| (id, Some(z)))
            .collect();
        let expected = steps
            .iter()
            .map(|&(id, z)| (self.key(id), z.expect("filed")));
        assert!(drained.iter().copied().eq(expected), "{}: drain", self.name);
        assert!(self.order.is_empty());
        self.model.clear(0);
        stats.time(Kind::Extend, || self.order.extend(drained));
        self.model.apply(0, &steps);
    }

    fn check_all(&mut self, stats: &mut Stats) {
        let real: Vec<(Key, I16F16)> = self.order.iter().collect();
        self.model.collections[0].tick();
        let model = &self.model.collections[0];
        let expected: Vec<(Key, I16F16)> = model.pairs().map(|(id, z)| (self.key(id), z)).collect();
        assert!(real == expected, "{}: the order", self.name);
        let mut back: Vec<Key> = self.order.front_to_back().collect();
        self.model.collections[0].tick();
        back.reverse();
        assert!(
            back.iter().eq(expected.iter().map(|(key, _)| key)),
            "{}: front to back",
            self.name
        );
        let model = &self.model.collections[0];
        assert_eq!(self.order.len(), model.len());
        assert_eq!(
            self.order.nonoptimized_buckets(),
            model.nonoptimized_buckets(),
            "{}: buckets",
            self.name
        );
        assert_eq!(self.pool.held.len(), model.len());
        self.order.check_invariants();
        let clone = stats.time(Kind::Clone, || {
            let clone = self.order.clone();
            assert!(clone == self.order, "{}: a clone is equal", self.name);
            clone
        });
        drop(clone);
    }
}

// ------------------------------------------------------------- objects --

type Sprite = ZObject<Cell<I16F16>>;

struct RcWorld<L: zorder::Layout> {
    name: &'static str,
    scene: RcZCollection<Cell<I16F16>, L>,
    /// Where bursts are built, then appended.
    staging: FixedPointZCollection<Cell<I16F16>>,
    /// Collection 0 the scene, 1 the staging.
    model: Model,
    layout: Layout,
    objects: Vec<Option<Rc<Sprite>>>,
    pool: Pool,
    bursts: Bursts,
    frame: u64,
}

impl<L: zorder::Layout> RcWorld<L> {
    fn new(name: &'static str, scene: RcZCollection<Cell<I16F16>, L>, layout: Layout) -> Self {
        let staging = FixedPointZCollection::new(layout.max_level()).expect("a valid layout");
        let staging_layout = Layout::Fixed {
            max_level: layout.max_level(),
            prune_after: staging.prune_after(),
        };
        RcWorld {
            name,
            scene,
            staging,
            model: Model::new(&[layout, staging_layout], true),
            layout,
            objects: Vec::new(),
            pool: Pool::default(),
            bursts: VecDeque::new(),
            frame: 0,
        }
    }

    fn object(&self, id: usize) -> &Rc<Sprite> {
        self.objects[id].as_ref().expect("a live object")
    }

    /// A new object at `z`, in no collection.
    fn create(&mut self, z: I16F16) -> usize {
        let id = self.pool.fresh();
        let object = Some(Rc::new(ZObject::new(Cell::new(z))));
        if id == self.objects.len() {
            self.objects.push(object);
        } else {
            self.objects[id] = object;
        }
        id
    }

    /// Object `id` is dropped (in no collection now).
    fn destroy(&mut self, id: usize) {
        let object = self.objects[id].take().expect("a live object");
        assert!(!ZObject::is_in_collection(&object));
        assert_eq!(
            Rc::strong_count(&object),
            1,
            "{}: no handle kept",
            self.name
        );
    }

    fn cheap(&self, id: usize) {
        let model = &self.model.collections[0];
        assert_eq!(self.scene.len(), model.len(), "{}: len", self.name);
        assert_eq!(
            self.scene.nonoptimized_buckets(),
            model.nonoptimized_buckets(),
            "{}: nonoptimized_buckets",
            self.name
        );
        if let Some(object) = &self.objects[id] {
            assert_eq!(
                self.scene.z_of(object),
                model.z_of(id),
                "{}: z of #{id}",
                self.name
            );
        }
    }

    fn add(&mut self, z: I16F16, stats: &mut Stats) -> Option<usize> {
        let id = self.create(z);
        let object = Rc::clone(self.object(id));
        let kind = if z == DEFAULT_Z {
            Kind::InsertAtDefault
        } else {
            Kind::Insert
        };
        let real = stats.time(kind, || self.scene.add(&object));
        drop(object);
        assert_eq!(real, self.model.add(0, id, z), "{}: add at {z}", self.name);
        if real.is_ok() {
            self.pool.hold(id);
            Some(id)
        } else {
            self.destroy(id);
            self.pool.free.push(id);
            None
        }
    }

    fn remove(&mut self, id: usize, stats: &mut Stats) {
        let object = Rc::clone(self.object(id));
        let real = stats.time(Kind::Remove, || self.scene.remove(&object));
        drop(object);
        assert_eq!(
            real,
            self.model.remove(0, id).map(drop),
            "{}: remove",
            self.name
        );
        self.pool.release(id);
        self.destroy(id);
    }

    fn change(&mut self, id: usize, z: I16F16, stats: &mut Stats) {
        let object = Rc::clone(self.object(id));
        let before = object.replace(z);
        let kind = if z == before {
            Kind::Refile
        } else {
            Kind::SetZ
        };
        let real = stats.time(kind, || self.scene.change(&object));
        let expected = self.model.change(0, id, z);
        assert_eq!(real, expected, "{}: change to {z}", self.name);
        if real.is_err() {
            object.set(before);
        }
    }
}

impl<L: zorder::Layout> World for RcWorld<L> {
    fn name(&self) -> &'static str {
        self.name
    }

    fn len(&self) -> usize {
        self.scene.len()
    }

    fn churn(&mut self, rng: &mut Rng, scene: Scene, target: usize, stats: &mut Stats) {
        let (id, roll) = match next_change(rng, &self.pool, self.scene.len(), target) {
            Change::Held(id, roll) => (id, roll),
            Change::Remove(id) => return self.remove(id, stats),
            Change::New => {
                if scene == Scene::DefaultThenMove && chance(rng, 700) {
                    let z = scene_z(rng, scene, self.layout);
                    match self.add(DEFAULT_Z, stats) {
                        Some(id) => self.change(id, z, stats),
                        None => {
                            self.add(z, stats);
                        }
                    }
                } else {
                    let z = scene_z(rng, scene, self.layout);
                    if let Some(id) = self.add(z, stats) {
                        self.cheap(id);
                    }
                }
                return;
            }
        };
        let z = scene_z(rng, scene, self.layout);
        match roll {
            0..=539 => self.change(id, z, stats),
            540..=599 => {
                let own = self.object(id).get();
                self.change(id, own, stats);
            }
            600..=639 => {
                // Misuse: an add of a held object, a remove of a free one, a
                // refused Z.
                let object = Rc::clone(self.object(id));
                let (real, expected) = match refused_z(rng, self.layout) {
                    Some(bad) if chance(rng, 500) => {
                        let before = object.replace(bad);
                        let real = stats.time(Kind::Refused, || self.scene.change(&object));
                        object.set(before);
                        (real, self.model.change(0, id, bad))
                    }
                    _ if chance(rng, 500) => (
                        stats.time(Kind::Refused, || self.scene.add(&object)),
                        Err(ZError::AlreadyInCollection),
                    ),
                    _ => {
                        let stranger = Rc::new(ZObject::new(Cell::new(z)));
                        (
                            stats.time(Kind::Refused, || self.scene.remove(&stranger)),
                            Err(ZError::NotInCollection),
                        )
                    }
                };
                assert!(expected.is_err());
                assert_eq!(real, expected, "{}: misuse", self.name);
            }
            640..=659 => {
                // A crowd moves: every object's Z is set, then all are
                // re-filed in one batch (with now and then one of no
                // collection, refused).
                let count = if scene == Scene::Batches {
                    50 + rng.below(450)
                } else {
                    1 + rng.below(64)
                };
                let mut crowd: Vec<Rc<Sprite>> = Vec::with_capacity(count + 1);
                let mut steps = Vec::with_capacity(count);
                for _ in 0..count {
                    let id = self.pool.pick(rng).expect("held");
                    let z = scene_z(rng, scene, self.layout);
                    self.object(id).set(z);
                    crowd.push(Rc::clone(self.object(id)));
                    steps.push(id);
                }
                let strangers = usize::from(chance(rng, 100));
                if strangers == 1 {
                    crowd.push(Rc::new(ZObject::new(Cell::new(z))));
                }
                let real = stats.time(Kind::ChangeAll, || self.scene.change_all(&crowd));
                // Each re-filed at the Z it reports when the batch reads it.
                let steps: Vec<(usize, Option<I16F16>)> = steps
                    .iter()
                    .map(|&id| (id, Some(self.object(id).get())))
                    .collect();
                let [inserted, moved, removed, refused] = self.model.apply(0, &steps);
                assert_eq!(
                    (real.inserted, real.moved, real.removed, real.refused),
                    (inserted, moved, removed, refused + strangers),
                    "{}: change_all",
                    self.name
                );
                drop(crowd);
                for &(id, _) in &steps {
                    self.cheap(id);
                }
            }
            660..=669 => {
                let (start, end) = band(rng, self.model.collections[0].z_of(id).expect("held"));
                let from_back = chance(rng, 500);
                let real = stats.time(Kind::Range, || {
                    take_ends(self.scene.range((start, end)).map(Rc::as_ptr), from_back)
                });
                let model = self.model.collections[0].range((start, end));
                let pointer = |(id, _)| Rc::as_ptr(self.object(id));
                let expected = take_ends(model.map(pointer), from_back);
                assert_eq!(real, expected, "{}: range", self.name);
            }
            _ => {
                let real = stats.time(Kind::Ends, || {
                    (
                        self.scene.first().map(Rc::as_ptr),
                        self.scene.last().map(Rc::as_ptr),
                    )
                });
                let pointer = |(id, _)| Rc::as_ptr(self.object(id));
                check_ends(real, &self.model.collections[0], pointer, self.name);
            }
        }
        self.cheap(id);
    }

    fn end_frame(&mut self, rng: &mut Rng, scene: Scene, stats: &mut Stats) {
        self.frame += 1;
        while let Some(entries) = burst_over(&mut self.bursts, self.frame) {
            for (id, _) in entries {
                // A burst's objects are held until then (ids of removed
                // ones may be another object's now: that one goes).
                if self.pool.is_held(id) {
                    self.remove(id, stats);
                }
            }
        }
        if scene == Scene::Bursts && chance(rng, 250) {
            // Built in the staging collection, appended in one batch; now
            // and then with a Z the scene refuses, and nothing moves.
            let (frames, size) = burst(rng);
            let mut entries = Vec::with_capacity(size);
            for k in 0..size {
                let z = match refused_z(rng, self.layout) {
                    Some(bad) if k == 0 && chance(rng, 50) => bad,
                    _ => own_z(rng, self.layout),
                };
                let id = self.create(z);
                let object = Rc::clone(self.object(id));
                let real = stats.time(Kind::Insert, || self.staging.add(&object));
                assert_eq!(real, self.model.add(1, id, z), "{}: staging", self.name);
                entries.push((id, 0));
            }
            let real = stats.time(Kind::Append, || self.scene.append(&mut self.staging));
            assert_eq!(real, self.model.append(0, 1), "{}: append", self.name);
            if real.is_ok() {
                entries.iter().for_each(|&(id, _)| self.pool.hold(id));
                self.bursts.push_back((self.frame + frames, entries));
            } else {
                stats.time(Kind::Drain, || self.staging.clear());
                self.model.clear(1);
                for (id, _) in entries {
                    self.destroy(id);
                    self.pool.free.push(id);
                }
            }
        }
        if scene == Scene::Quiet {
            return;
        }
        let len = self.scene.len();
        let drawn = stats.time(Kind::BackToFront, || self.scene.back_to_front().count());
        self.model.collections[0].tick();
        assert_eq!(drawn, len, "{}: the draw", self.name);
        let hit = 1 + rng.below(16);
        let z = scene_z(rng, scene, self.layout);
        let action = [Visit::Change, Visit::Remove, Visit::Keep][rng.below(3)];
        let moves = chance(rng, 500);
        let mut rank = 0;
        let done = stats.time(Kind::Touch, || {
            self.scene.update_front_to_back(|object| {
                rank += 1;
                if rank < hit {
                    return Continue(Visit::Keep);
                }
                if moves && action == Visit::Change {
                    object.set(z);
                }
                Break(action)
            })
        });
        assert_eq!(
            done.visited,
            hit.min(len),
            "{}: the touch's visits",
            self.name
        );
        let touched = self.model.collections[0].pairs().rev().nth(hit - 1);
        if let Some((id, _)) = touched {
            match action {
                Visit::Change => {
                    let own = self.object(id).get();
                    let expected = self.model.change(0, id, own);
                    assert_eq!(
                        done.changed,
                        usize::from(expected.is_ok()),
                        "{}: the touch",
                        self.name
                    );
                }
                Visit::Remove => {
                    self.model.remove(0, id).expect("held");
                    self.pool.release(id);
                    self.destroy(id);
                }
                _ => {}
            }
            self.cheap(id);
        }
        if chance(rng, 100) {
            let real: Vec<*const Sprite> = stats.time(Kind::FrontToBack, || {
                self.scene
                    .front_to_back()
                    .take(hit)
                    .map(Rc::as_ptr)
                    .collect()
            });
            self.model.collections[0].tick();
            let expected: Vec<*const Sprite> = self.model.collections[0]
                .pairs()
                .rev()
                .take(hit)
                .map(|(id, _)| Rc::as_ptr(self.object(id)))
                .collect();
            assert_eq!(real, expected, "{}: front to back", self.name);
        }
    }

    fn end_scene(&mut self, rng: &mut Rng, stats: &mut Stats) {
        // The objects of about a tenth of the Z values go, chosen by a salt
        // of the run.
        let salt = rng.next_u64() as u32 | 1;
        let goes = |z: I16F16| (z.to_bits() as u32).wrapping_mul(salt) % 10 == 0;
        stats.time(Kind::Retain, || {
            self.scene.retain(|object| !goes(object.get()))
        });
        let gone: Vec<usize> = (self.model.collections[0].pairs())
            .filter(|&(_, z)| goes(z))
            .map(|(id, _)| id)
            .collect();
        for id in gone {
            self.model.remove(0, id).expect("held");
            self.pool.release(id);
            self.destroy(id);
        }
    }

    fn end_cycle(&mut self, stats: &mut Stats) {
        // Everything out, and back through the staging collection.
        let drained: Vec<Rc<Sprite>> = stats.time(Kind::Drain, || self.scene.drain().collect());
        let expected = self.model.collections[0].pairs().collect::<Vec<_>>();
        assert_eq!(drained.len(), expected.len());
        for (object, &(id, z)) in drained.iter().zip(&expected) {
            assert!(Rc::ptr_eq(object, self.object(id)), "{}: drain", self.name);
            // Filed at the Z of record, which is the one it reports.
            assert_eq!(object.get(), z);
        }
        self.model.clear(0);
        for (object, (id, z)) in drained.iter().zip(expected) {
            let real = stats.time(Kind::Insert, || self.staging.add(object));
            assert_eq!(real, self.model.add(1, id, z));
        }
        drop(drained);
        let real = stats.time(Kind::Append, || self.scene.append(&mut self.staging));
        assert_eq!(real, self.model.append(0, 1), "{}: append back", self.name);
    }

    fn check_all(&mut self, _stats: &mut Stats) {
        let real: Vec<*const Sprite> = self.scene.back_to_front().map(Rc::as_ptr).collect();
        self.model.collections[0].tick();
        let model = &self.model.collections[0];
        let expected: Vec<*const Sprite> = model
            .pairs()
            .map(|(id, _)| Rc::as_ptr(self.object(id)))
            .collect();
        assert!(real == expected, "{}: the order", self.name);
        let mut back: Vec<*const Sprite> = self.scene.front_to_back().map(Rc::as_ptr).collect();
        self.model.collections[0].tick();
        back.reverse();
        assert!(back == expected, "{}: front to back", self.name);
        let model = &self.model.collections[0];
        assert_eq!(
            self.scene.nonoptimized_buckets(),
            model.nonoptimized_buckets(),
            "{}: buckets",
            self.name
        );
        for (id, z) in model.pairs() {
            assert_eq!(self.scene.z_of(self.object(id)), Some(z));
        }
        assert_eq!(self.pool.held.len(), model.len());
        assert!(self.staging.is_empty());
        self.scene.check_invariants();
        self.staging.check_invariants();
    }
}

// ---------------------------------------------------------------- run --

/// How long this thread has waited to run, runnable but not running, in
/// nanoseconds (`/proc/thread-self/schedstat`; 0 where there is none).
fn waited() -> u64 {
    std::fs::read_to_string("/proc/thread-self/schedstat")
        .ok()
        .and_then(|stat| stat.split_whitespace().nth(1)?.parse().ok())
        .unwrap_or(0)
}

/// The CPU time this process has used (user and system), from
/// `/proc/self/stat`, in clock ticks of 10 ms (Linux's usual rate).
fn cpu_time() -> Duration {
    let stat = std::fs::read_to_string("/proc/self/stat").unwrap_or_default();
    // The fields after the command's closing parenthesis: utime and stime
    // are the 12th and 13th of them.
    let after = stat.rsplit_once(')').map_or("", |(_, rest)| rest);
    let ticks: u64 = (after.split_whitespace())
        .skip(11)
        .take(2)
        .filter_map(|field| field.parse::<u64>().ok())
        .sum();
    Duration::from_millis(ticks * 10)
}

#[global_allocator]
static ALLOCATOR: Counting = Counting;

/// The process's resident memory now and at its peak, in KiB.
fn memory() -> (u64, u64) {
    let status = std::fs::read_to_string("/proc/self/status").unwrap_or_default();
    let field = |name: &str| {
        status
            .lines()
            .find_map(|line| line.strip_prefix(name))
            .and_then(|rest| rest.split_whitespace().next()?.parse().ok())
            .unwrap_or(0)
    };
    (field("VmRSS:"), field("VmHWM:"))
}

fn mib(kib: u64) -> String {
    format!("{:.1} MiB", kib as f64 / 1024.0)
}

/// `n` with thousands separated.
fn grouped(n: u64) -> String {
    let digits = n.to_string();
    let mut out = String::new();
    for (i, c) in digits.chars().enumerate() {
        if i > 0 && (digits.len() - i) % 3 == 0 {
            out.push(',');
        }
        out.push(c);
    }
    out
}

fn show(d: Duration) -> String {
    let ns = d.as_nanos();
    if ns < 10_000 {
        format!("{ns} ns")
    } else if ns < 10_000_000 {
        format!("{:.1} µs", ns as f64 / 1e3)
    } else {
        format!("{:.2} ms", ns as f64 / 1e6)
    }
}

struct Args {
    ops: u64,
    seed: u64,
    population: usize,
    scene: u64,
    check_every: u64,
    sample_every: u64,
}

fn args() -> Args {
    let mut args = Args {
        ops: 100_000_000,
        seed: 0x5EED_2024,
        population: 20_000,
        scene: 2_000_000,
        check_every: 1 << 22,
        sample_every: 1 << 20,
    };
    let given: Vec<String> = std::env::args().skip(1).collect();
    for pair in given.chunks(2) {
        let value = || -> u64 {
            let text = pair.get(1).map(|v| v.replace('_', "")).unwrap_or_default();
            text.parse()
                .unwrap_or_else(|_| panic!("{} takes a number, not {text:?}", pair[0]))
        };
        match pair[0].as_str() {
            "--ops" => args.ops = value(),
            "--seed" => args.seed = value(),
            "--population" => args.population = value() as usize,
            "--scene" => args.scene = value().max(1),
            "--check-every" => args.check_every = value().max(1),
            "--sample-every" => args.sample_every = value().max(1),
            other => panic!("unknown option {other}: see the example's docs"),
        }
    }
    args
}

fn main() {
    let args = args();
    let mut rng = Rng::new(args.seed);
    let mut stats = Stats::new();
    let fixed = Layout::Fixed {
        max_level: 255,
        prune_after: ZOrder::<Key>::DEFAULT_PRUNE_AFTER,
    };
    let mut worlds: Vec<Box<dyn World>> = vec![
        Box::new(KeyedWorld::new(
            "keyed fixed-point",
            ZOrder::new(255).expect("valid"),
            fixed,
            Indices::NearMax,
        )),
        Box::new(KeyedWorld::new(
            "keyed simple",
            ZOrder::simple(ZOrder::<Key>::MAX_LEVEL).expect("valid"),
            Layout::Simple {
                max_level: ZOrder::<Key>::MAX_LEVEL,
            },
            Indices::Spread,
        )),
        Box::new(RcWorld::new(
            "Rc fixed-point",
            FixedPointZCollection::new(255).expect("valid"),
            fixed,
        )),
        Box::new(RcWorld::new(
            "Rc simple",
            SimpleZCollection::new(255).expect("valid"),
            Layout::Simple { max_level: 255 },
        )),
    ];
    println!(
        "zorder soak: {} operations, seed {}, about {} entries in each of {} collections ({}), scenes of {} operations: {}",
        grouped(args.ops),
        args.seed,
        grouped(args.population as u64),
        worlds.len(),
        worlds
            .iter()
            .map(|w| w.name())
            .collect::<Vec<_>>()
            .join(", "),
        grouped(args.scene),
        Scene::CYCLE.map(Scene::name).join(", "),
    );
    let start = Instant::now();
    let (mut next_check, mut next_sample) = (args.check_every, args.sample_every);
    let mut samples: Vec<Sample> = Vec::new();
    // The highest resident memory of each cycle of scenes.
    let mut cycle_peaks: Vec<u64> = Vec::new();
    let mut checks = 0;
    let mut scene_index = 0u64;
    let mut frame = 0usize;
    let mut scene_start = Instant::now();
    let mut scene_ops = 0;
    while stats.ops < args.ops {
        let scene = Scene::CYCLE[(scene_index % Scene::CYCLE.len() as u64) as usize];
        let world = &mut worlds[frame % 4];
        frame += 1;
        stats.world = world.name();
        for _ in 0..64 + rng.below(128) {
            world.churn(&mut rng, scene, args.population, &mut stats);
        }
        world.end_frame(&mut rng, scene, &mut stats);
        stats.end_frame();
        if stats.ops >= next_check {
            next_check += args.check_every;
            checks += 1;
            for world in &mut worlds {
                stats.world = world.name();
                world.check_all(&mut stats);
            }
            stats.end_frame();
        }
        if stats.ops >= next_sample {
            next_sample += args.sample_every;
            let (rss, _) = memory();
            samples.push(Sample {
                ops: stats.ops,
                rss,
                heap: (counting::held() / 1024) as u64,
            });
            let cycle = (scene_index / Scene::CYCLE.len() as u64) as usize;
            if cycle_peaks.len() <= cycle {
                cycle_peaks.resize(cycle + 1, 0);
            }
            cycle_peaks[cycle] = cycle_peaks[cycle].max(rss);
        }
        if stats.ops >= (scene_index + 1) * args.scene || stats.ops >= args.ops {
            let live: usize = worlds.iter().map(|w| w.len()).sum();
            let took = scene_start.elapsed().as_secs_f64();
            println!(
                "scene {:>3} {:<22} ops {:>12}  {:>6.1} s  {:>9} ops/s  live {:>7}  rss {}  heap {}",
                scene_index + 1,
                scene.name(),
                grouped(stats.ops),
                start.elapsed().as_secs_f64(),
                grouped(((stats.ops - scene_ops) as f64 / took) as u64),
                grouped(live as u64),
                mib(memory().0),
                mib((counting::held() / 1024) as u64),
            );
            scene_ops = stats.ops;
            scene_start = Instant::now();
            for world in &mut worlds {
                stats.world = world.name();
                world.end_scene(&mut rng, &mut stats);
            }
            scene_index += 1;
            if scene_index % Scene::CYCLE.len() as u64 == 0 {
                for world in &mut worlds {
                    stats.world = world.name();
                    world.end_cycle(&mut stats);
                }
            }
            stats.end_frame();
        }
    }
    for world in &mut worlds {
        stats.world = world.name();
        world.check_all(&mut stats);
    }
    checks += 1;
    let wall = start.elapsed();
    let (rss, peak) = memory();
    report(&stats, wall, checks, rss, peak, &samples, &cycle_peaks);
}

/// A memory sample: after how many operations, resident memory and the
/// live heap, in KiB.
struct Sample {
    ops: u64,
    rss: u64,
    heap: u64,
}

fn report(
    stats: &Stats,
    wall: Duration,
    checks: u64,
    rss: u64,
    peak: u64,
    samples: &[Sample],
    cycle_peaks: &[u64],
) {
    let library = stats.library_time();
    println!();
    println!("== result: no disagreement with the model ==");
    let cpu = cpu_time();
    println!(
        "operations: {} in {:.1} s: {} ops/s, the model and its checks included \
         ({:.1} s of CPU time, {} ops a CPU second: the machine is shared)",
        grouped(stats.ops),
        wall.as_secs_f64(),
        grouped((stats.ops as f64 / wall.as_secs_f64()) as u64),
        cpu.as_secs_f64(),
        grouped((stats.ops as f64 / cpu.as_secs_f64().max(1e-9)) as u64),
    );
    println!(
        "library calls alone: {:.1} s, {} ns a call on average ({} calls/s; walks and batches count as one)",
        library.as_secs_f64(),
        library.as_nanos() / u128::from(stats.ops.max(1)),
        grouped((stats.ops as f64 / library.as_secs_f64()) as u64),
    );
    println!(
        "whole checks (both orders, counts, nonoptimized_buckets, invariants, a clone): {checks}; cheap checks after every operation"
    );
    println!(
        "peak resident memory (VmHWM): {}; at the end (VmRSS): {}",
        mib(peak),
        mib(rss)
    );
    let step = (samples.len() / 10).max(1);
    let shown = |of: fn(&Sample) -> u64| {
        (samples.iter().step_by(step))
            .map(|sample| format!("{:.1}M: {}", sample.ops as f64 / 1e6, mib(of(sample))))
            .collect::<Vec<_>>()
            .join(", ")
    };
    println!(
        "resident memory over the run: {}",
        shown(|sample| sample.rss)
    );
    println!(
        "live heap (the bytes of live allocations, without the allocator's free memory) over the run: {}",
        shown(|sample| sample.heap)
    );
    let peaks: Vec<String> = cycle_peaks.iter().map(|&kib| mib(kib)).collect();
    println!(
        "highest resident memory of each cycle of scenes: {}",
        peaks.join(", ")
    );
    // The first third of the run grows the collections to their size and
    // the allocator to its working set; memory is flat if the last third
    // holds on average about what the middle third held. The verdict is
    // on the live heap, which the program's data decides; resident memory
    // also moves with how the allocator's free memory is spread, and is
    // shown beside it.
    let third = samples.len() / 3;
    if third > 0 {
        let growth = |of: fn(&Sample) -> u64| {
            let mean = |part: &[Sample]| {
                part.iter().map(|sample| of(sample) as f64).sum::<f64>() / part.len() as f64
            };
            let (middle, last) = (
                mean(&samples[third..2 * third]),
                mean(&samples[2 * third..]),
            );
            (middle, last, (last - middle) / middle * 100.0)
        };
        let (middle, last, heap) = growth(|sample| sample.heap);
        let (_, _, rss) = growth(|sample| sample.rss);
        println!(
            "memory {}: the last third of the run averaged {} of live heap, {:+.1}% against the middle third's {} \
             (resident memory {:+.1}%)",
            if heap.abs() < 5.0 {
                "stayed flat"
            } else {
                "did NOT stay flat"
            },
            mib(last as u64),
            heap,
            mib(middle as u64),
            rss,
        );
    } else {
        println!("memory: too few samples to tell whether it stays flat");
    }
    let line = |what: &str, (took, kind, world, at): Worst| {
        println!(
            "{what}: {} ({}, {}, operation #{})",
            show(took),
            kind.name(),
            world,
            grouped(at),
        );
    };
    line("worst single operation", stats.worst);
    line(
        &format!(
            "worst in the {:.1}% of frames the scheduler did not interrupt",
            stats.undisturbed as f64 / stats.frames.max(1) as f64 * 100.0
        ),
        stats.worst_undisturbed,
    );
    println!(
        "(mean, p99, p99.99 and worst below are of all calls, preemption by other processes included; \
         undisturbed: the worst in frames the scheduler did not interrupt)"
    );
    println!();
    println!(
        "{:<26} {:>13} {:>9} {:>9} {:>10} {:>10} {:>12}",
        "operation", "calls", "mean", "p99", "p99.99", "worst", "undisturbed"
    );
    for kind in Kind::ALL {
        let k = &stats.kinds[kind as usize];
        if k.count == 0 {
            continue;
        }
        println!(
            "{:<26} {:>13} {:>9} {:>9} {:>10} {:>10} {:>12}",
            kind.name(),
            grouped(k.count),
            show(k.total / k.count as u32),
            format!("<{}", show(Stats::quantile(k, 0.99))),
            format!("<{}", show(Stats::quantile(k, 0.9999))),
            show(k.max),
            show(k.undisturbed_max),
        );
    }
    println!();
    println!(
        "the {SLOWEST} slowest single-entry calls in frames the scheduler did not interrupt (a run with \
         the same --seed makes the same calls: one slow in both runs costs that much itself, one slow \
         in a single run was the machine's):"
    );
    for &(took, kind, world, at) in &stats.slowest_single {
        println!(
            "  operation #{:<13} {:>10}  {} ({})",
            grouped(at),
            show(took),
            kind.name(),
            world
        );
    }
}
