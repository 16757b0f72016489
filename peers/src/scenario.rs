//! The frame scenarios: a world of objects that a game creates, moves and
//! destroys, then draws back to front and hit-tests front to back, every
//! frame. Every backend replays exactly the same operations from the same
//! seed.

use std::collections::VecDeque;
use std::time::{Duration, Instant};

use crate::{Backend, Canvas, DEFAULT_Z, I16F16, Rng, Sprite, level};

/// The seed every scenario starts from.
pub const SEED: u64 = 0x7A0D_E12E_5EED_2012;

/// Where a scenario's Z values come from.
#[derive(Debug, Clone)]
pub enum Zs {
    /// One of a few layers, picked at random.
    Layers(Vec<I16F16>),
    /// Any value in `low..high`, uniformly: every object at its own Z, as
    /// an isometric y-sort gives them.
    Spread {
        /// The lowest value.
        low: I16F16,
        /// Above the highest value.
        high: I16F16,
    },
}

impl Zs {
    /// A random Z.
    fn pick(&self, rng: &mut Rng) -> I16F16 {
        match self {
            Zs::Layers(layers) => *rng.pick(layers),
            Zs::Spread { low, high } => {
                let span = (high.to_bits() - low.to_bits()) as usize;
                I16F16::from_bits(low.to_bits() + rng.below(span) as i32)
            }
        }
    }

    /// The Z of object `i` of `n` in the initial world: layers evenly,
    /// spreads at random.
    fn initial(&self, i: usize, n: usize, rng: &mut Rng) -> I16F16 {
        match self {
            Zs::Layers(layers) => layers[i * layers.len() / n],
            Zs::Spread { .. } => self.pick(rng),
        }
    }

    /// Values whose acceptance decides whether a backend takes them all.
    fn samples(&self) -> Vec<I16F16> {
        match self {
            Zs::Layers(layers) => layers.clone(),
            Zs::Spread { low, .. } => vec![*low, I16F16::from_bits(low.to_bits() + 1)],
        }
    }
}

/// A burst of creations and removals, as Jelly Jump's new screen of jellies.
#[derive(Debug, Clone, Copy)]
pub struct Burst {
    /// Frames between bursts.
    pub every: usize,
    /// The first burst's frame.
    pub first: usize,
    /// Objects created, and as many removed, in one burst.
    pub size: usize,
}

/// Bursts of short-lived objects, each at its own Z (particles).
#[derive(Debug, Clone)]
pub struct Particles {
    /// Frames between bursts.
    pub every: usize,
    /// The first burst's frame.
    pub first: usize,
    /// Particles born in one burst.
    pub size: usize,
    /// Frames a particle lives: all of a burst die together.
    pub lifetime: usize,
    /// Their Z values.
    pub zs: Zs,
}

/// What a game does each frame.
#[derive(Debug, Clone)]
pub struct Scenario {
    /// The name in tables and charts.
    pub name: &'static str,
    /// Live objects, besides particles (constant: every burst removes as
    /// many as it creates).
    pub objects: usize,
    /// The zorder collections' highest optimized level.
    pub max_level: u16,
    /// The objects' Z values.
    pub zs: Zs,
    /// Random objects moved to a random Z each frame.
    pub changes_per_frame: usize,
    /// Whether every object moves to a random Z every frame.
    pub all_move: bool,
    /// Creation-and-removal bursts, if any.
    pub burst: Option<Burst>,
    /// Whether a burst creates objects the legacy way (at the default Z,
    /// then at their own: two Z-actions) or at their Z at once.
    pub legacy_creation: bool,
    /// Particle bursts, if any.
    pub particles: Option<Particles>,
    /// Frames per criterion iteration (one burst period where there are
    /// bursts, so every iteration does the same work).
    pub cycle: usize,
    /// Frames the demo and the timed runs run.
    pub demo_frames: usize,
}

/// The jelly layers: 16 layers on the even natural levels 0, 2, ..., 30.
pub fn jelly_layers() -> Vec<I16F16> {
    (0..16).map(|layer| level(2 * layer)).collect()
}

impl Scenario {
    /// The article's game: `600 * scale` objects on 16 layers; every 120
    /// frames a burst of `50 * scale` creations (default Z, then the
    /// layer's Z) and as many removals; `2 * scale` Z changes per frame.
    pub fn jelly(scale: usize) -> Self {
        Scenario {
            name: if scale == 1 { "jelly-600" } else { "jelly-60k" },
            objects: 600 * scale,
            max_level: 31,
            zs: Zs::Layers(jelly_layers()),
            changes_per_frame: 2 * scale,
            all_move: false,
            burst: Some(Burst {
                every: 120,
                first: 60,
                size: 50 * scale,
            }),
            legacy_creation: true,
            particles: None,
            cycle: 120,
            demo_frames: if scale == 1 { 1200 } else { 360 },
        }
    }

    /// 200,000 objects on 16 layers, 2,000 random Z changes per frame.
    pub fn sparse_200k() -> Self {
        Scenario {
            name: "sparse-200k",
            objects: 200_000,
            changes_per_frame: 2_000,
            burst: None,
            cycle: 1,
            demo_frames: 40,
            ..Scenario::jelly(1)
        }
    }

    /// `jelly-60k` with 72 layers at every quarter from -2 to 15.75: 54 of
    /// them fractional or negative, so not optimized.
    pub fn fractional_60k() -> Self {
        Scenario {
            name: "fractional-60k",
            zs: Zs::Layers(
                (-8..64)
                    .map(|quarter| I16F16::from_bits(quarter << (I16F16::FRAC_NBITS - 2)))
                    .collect(),
            ),
            ..Scenario::jelly(100)
        }
    }

    /// 20,000 objects on 16 layers, each moved to a random layer every
    /// frame: zorder's worst case, since a sort amortizes over all of them.
    pub fn allmove_20k() -> Self {
        Scenario {
            name: "allmove-20k",
            objects: 20_000,
            changes_per_frame: 0,
            all_move: true,
            burst: None,
            cycle: 1,
            demo_frames: 40,
            ..Scenario::jelly(1)
        }
    }

    /// An isometric y-sort: 20,000 objects each at its own fractional Z in
    /// `[0, 100)` (its height on the map), 2,000 of them moving to a new Z
    /// each frame, and every 60 frames a burst of 500 creations (at their
    /// Z, as a new game creates them) and 500 removals. The zorder
    /// collections get a level per unit of height, `0..=100`, as such a
    /// game would declare; nearly every object is between levels.
    pub fn ysort() -> Self {
        Scenario {
            name: "ysort",
            objects: 20_000,
            max_level: 100,
            zs: Zs::Spread {
                low: I16F16::ZERO,
                high: I16F16::from_num(100),
            },
            changes_per_frame: 2_000,
            all_move: false,
            burst: Some(Burst {
                every: 60,
                first: 30,
                size: 500,
            }),
            legacy_creation: false,
            particles: None,
            cycle: 60,
            demo_frames: 120,
        }
    }

    /// A world of 300 objects on the 16 jelly layers, 2 Z changes a frame,
    /// and every 30 frames a burst of 5,000 particles, each at its own
    /// fractional Z among the layers (`[0, 32)`), that all die 10 frames
    /// later: the load that left the first design walking, then freeing,
    /// thousands of dead buckets in one frame.
    pub fn particles() -> Self {
        Scenario {
            name: "particles",
            objects: 300,
            changes_per_frame: 2,
            burst: None,
            particles: Some(Particles {
                every: 30,
                first: 10,
                size: 5_000,
                lifetime: 10,
                zs: Zs::Spread {
                    low: I16F16::ZERO,
                    high: I16F16::from_num(32),
                },
            }),
            cycle: 30,
            demo_frames: 300,
            ..Scenario::jelly(1)
        }
    }

    /// Every frame scenario of the benchmarks.
    pub fn all() -> Vec<Scenario> {
        vec![
            Scenario::jelly(1),
            Scenario::jelly(100),
            Scenario::sparse_200k(),
            Scenario::fractional_60k(),
            Scenario::allmove_20k(),
            Scenario::ysort(),
            Scenario::particles(),
        ]
    }

    /// Whether `backend` accepts every Z this scenario uses (the simple
    /// collection takes natural levels only).
    pub fn runs_on<B: Backend>(&self) -> bool {
        let backend = B::with_levels(self.max_level);
        let mut samples = self.zs.samples();
        if let Some(particles) = &self.particles {
            samples.extend(particles.zs.samples());
        }
        samples.into_iter().all(|z| backend.accepts(z))
    }

    /// Whether frame `frame` creates or destroys objects in bulk (a burst,
    /// or particles born or dying): the frames whose cost is that work,
    /// told apart from the others to see a stall that is not.
    pub fn is_bulk_frame(&self, frame: usize) -> bool {
        let burst = self
            .burst
            .is_some_and(|burst| frame % burst.every == burst.first);
        let particles = self.particles.as_ref().is_some_and(|p| {
            frame % p.every == p.first
                || frame >= p.lifetime && (frame - p.lifetime) % p.every == p.first
        });
        burst || particles
    }
}

/// A game world on one backend, advanced a frame at a time.
#[derive(Debug)]
pub struct World<B: Backend> {
    /// The scene.
    pub backend: B,
    /// The game's list of its live objects (particles apart).
    live: Vec<B::Handle>,
    /// Live particles, by burst: the frame they die, and their handles.
    particles: VecDeque<(usize, Vec<B::Handle>)>,
    rng: Rng,
    scenario: Scenario,
    frame: usize,
    next_id: u32,
    /// What the frames drew so far.
    pub canvas: Canvas,
}

impl<B: Backend> World<B> {
    /// The scenario's initial world: its objects spread over the layers
    /// in ascending Z (so building it is cheap for every backend), or at
    /// random Z values; never timed. It ends with one walk that draws
    /// nothing, so a backend that sorts or merges before a walk has done
    /// so for the world it starts from: the first timed frame pays for
    /// its own work only, for every backend.
    pub fn new(scenario: &Scenario, seed: u64) -> Self {
        let mut world = World {
            backend: B::with_levels(scenario.max_level),
            live: Vec::with_capacity(scenario.objects),
            particles: VecDeque::new(),
            rng: Rng::new(seed),
            scenario: scenario.clone(),
            frame: 0,
            next_id: 0,
            canvas: Canvas::default(),
        };
        for i in 0..scenario.objects {
            let z = scenario.zs.initial(i, scenario.objects, &mut world.rng);
            world.create_at(z);
        }
        world.backend.back_to_front(|_| {});
        world
    }

    /// The game's handles to its live objects, in no particular order.
    pub fn handles(&self) -> &[B::Handle] {
        &self.live
    }

    fn next_sprite(&mut self) -> Sprite {
        let sprite = Sprite::new(self.next_id);
        self.next_id += 1;
        sprite
    }

    fn random_z(&mut self) -> I16F16 {
        self.scenario.zs.pick(&mut self.rng)
    }

    /// Creates an object at a random Z: the legacy way where the scenario
    /// says so (at the default Z, then at its own: two Z-actions; a backend
    /// that refuses the default Z creates it at its Z directly), else at
    /// its Z at once.
    pub fn create_object(&mut self) {
        let z = self.random_z();
        if !self.scenario.legacy_creation || !self.backend.accepts(DEFAULT_Z) {
            return self.create_at(z);
        }
        let sprite = self.next_sprite();
        let object = self.backend.create(sprite, DEFAULT_Z);
        self.backend.change(&object, z);
        self.live.push(object);
    }

    /// Creates an object at `z` directly (one Z-action).
    pub fn create_at(&mut self, z: I16F16) {
        let sprite = self.next_sprite();
        let object = self.backend.create(sprite, z);
        self.live.push(object);
    }

    /// Removes a random live object.
    pub fn remove_random(&mut self) {
        let at = self.rng.below(self.live.len());
        let object = self.live.swap_remove(at);
        self.backend.remove(object);
    }

    /// Moves a random live object to a random Z.
    pub fn change_random(&mut self) {
        let z = self.random_z();
        self.change_random_to(z);
    }

    /// Moves a random live object to `z`.
    pub fn change_random_to(&mut self, z: I16F16) {
        let at = self.rng.below(self.live.len());
        self.backend.change(&self.live[at], z);
    }

    /// Runs one frame: the game's Z-actions, then one back-to-front draw and
    /// one front-to-back hit test.
    pub fn frame(&mut self) {
        if let Some(burst) = self.scenario.burst {
            if self.frame % burst.every == burst.first {
                for _ in 0..burst.size {
                    self.remove_random();
                    self.create_object();
                }
            }
        }
        while self
            .particles
            .front()
            .is_some_and(|&(dies, _)| dies == self.frame)
        {
            let (_, burst) = self.particles.pop_front().expect("a burst");
            for particle in burst {
                self.backend.remove(particle);
            }
        }
        if let Some(particles) = self.scenario.particles.clone() {
            if self.frame % particles.every == particles.first {
                let burst = (0..particles.size)
                    .map(|_| {
                        let z = particles.zs.pick(&mut self.rng);
                        let sprite = self.next_sprite();
                        self.backend.create(sprite, z)
                    })
                    .collect();
                self.particles
                    .push_back((self.frame + particles.lifetime, burst));
            }
        }
        for _ in 0..self.scenario.changes_per_frame {
            self.change_random();
        }
        if self.scenario.all_move {
            for at in 0..self.live.len() {
                let z = self.random_z();
                self.backend.change(&self.live[at], z);
            }
        }
        self.draw();
        self.frame += 1;
    }

    /// One back-to-front and one front-to-back traversal, drawing.
    pub fn draw(&mut self) {
        let canvas = &mut self.canvas;
        self.backend.back_to_front(|sprite| canvas.draw(sprite));
        self.backend.front_to_back(|sprite| canvas.draw(sprite));
    }

    /// Runs `frames` frames, timing each; `progress` hears of each frame
    /// done.
    pub fn run_timed(&mut self, frames: usize, mut progress: impl FnMut(usize)) -> Vec<Duration> {
        (0..frames)
            .map(|done| {
                let start = Instant::now();
                self.frame();
                let took = start.elapsed();
                progress(done + 1);
                took
            })
            .collect()
    }
}

/// Summary of a run's frame times.
#[derive(Debug, Clone, Copy)]
pub struct FrameStats {
    /// All frames together.
    pub total: Duration,
    /// The median frame.
    pub p50: Duration,
    /// The 99th percentile frame (nearest rank).
    pub p99: Duration,
    /// The slowest frame.
    pub max: Duration,
    /// Which frame that was.
    pub worst: usize,
    /// The slowest frame that is not a bulk frame (see
    /// [`Scenario::is_bulk_frame`]), if any.
    pub max_quiet: Option<Duration>,
}

impl FrameStats {
    /// The statistics of `frames` (not empty) of a run of `scenario`.
    pub fn of(frames: &[Duration], scenario: &Scenario) -> Self {
        let mut sorted = frames.to_vec();
        sorted.sort_unstable();
        let rank = |percent: usize| sorted[(sorted.len() * percent).div_ceil(100).max(1) - 1];
        let worst = (0..frames.len()).max_by_key(|&i| frames[i]).unwrap_or(0);
        let max_quiet = (0..frames.len())
            .filter(|&i| !scenario.is_bulk_frame(i))
            .map(|i| frames[i])
            .max();
        FrameStats {
            total: frames.iter().sum(),
            p50: rank(50),
            p99: rank(99),
            max: *sorted.last().expect("at least one frame"),
            worst,
            max_quiet,
        }
    }
}

/// Replays a timed run of a scenario makes at most: each frame's time is
/// its fastest replay, which filters out the times the OS preempted us (the
/// frames are identical across replays).
pub const REPLAYS: usize = 5;

/// A backend whose first run of a scenario takes longer than this runs it
/// only once (the legacy array and the stable sort on the big worlds, 5 to
/// hundreds of times the best backends' totals), so that the replays of
/// the others stay within seconds.
pub const REPLAY_BUDGET: Duration = Duration::from_millis(500);

/// How many replays a backend whose first run of a scenario took `first`
/// makes in all: [`REPLAYS`], or one past [`REPLAY_BUDGET`].
pub fn replays_after(first: Duration) -> usize {
    if first > REPLAY_BUDGET { 1 } else { REPLAYS }
}

/// Times every frame of one run of `scenario.demo_frames` frames on
/// backend `B`, from [`SEED`]; `progress` hears of each frame done.
pub fn run_frames<B: Backend>(scenario: &Scenario, progress: impl FnMut(usize)) -> Vec<Duration> {
    let mut world = World::<B>::new(scenario, SEED);
    let times = world.run_timed(scenario.demo_frames, progress);
    std::hint::black_box(world.canvas);
    times
}

/// Keeps in `fastest` each frame's fastest time, `times` one more replay's.
pub fn keep_fastest(fastest: &mut [Duration], times: &[Duration]) {
    for (best, &time) in fastest.iter_mut().zip(times) {
        *best = (*best).min(time);
    }
}

/// Times every frame of `scenario` on backend `B` as [`run_frames`] does,
/// replayed as [`replays_after`] says, one replay after another; each
/// frame's time is its fastest replay. `progress` hears of each frame
/// done, as `(replay, frames done)`. (The demo takes its replays in turn
/// across backends instead, so that a slow spell of the machine falls on
/// all of them alike.)
pub fn time_frames<B: Backend>(
    scenario: &Scenario,
    mut progress: impl FnMut(usize, usize),
) -> Vec<Duration> {
    let started = Instant::now();
    let mut fastest = run_frames::<B>(scenario, |done| progress(1, done));
    for replay in 2..=replays_after(started.elapsed()) {
        let times = run_frames::<B>(scenario, |done| progress(replay, done));
        keep_fastest(&mut fastest, &times);
    }
    fastest
}
