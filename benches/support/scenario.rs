//! The frame scenarios: a world of objects that a game creates, moves and
//! destroys, then draws back to front and hit-tests front to back, every
//! frame. Every backend replays exactly the same operations from the same
//! seed.

use std::time::{Duration, Instant};

use super::{Backend, Canvas, DEFAULT_Z, I16F16, Rng, Sprite, level};

/// The seed every scenario starts from.
pub const SEED: u64 = 0x7A0D_E12E_5EED_2012;

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

/// What a game does each frame.
#[derive(Debug, Clone)]
pub struct Scenario {
    /// The name in tables and charts.
    pub name: &'static str,
    /// Live objects (constant: every burst removes as many as it creates).
    pub objects: usize,
    /// The zorder collections' highest optimized level.
    pub max_level: u16,
    /// The layers' Z values, ascending; objects live on these.
    pub layers: Vec<I16F16>,
    /// Random objects moved to a random layer each frame.
    pub changes_per_frame: usize,
    /// Whether every object moves to a random layer every frame.
    pub all_move: bool,
    /// Creation-and-removal bursts, if any.
    pub burst: Option<Burst>,
    /// Frames per criterion iteration (one burst period where there are
    /// bursts, so every iteration does the same work).
    pub cycle: usize,
    /// Frames the demo runs.
    pub demo_frames: usize,
}

/// 16 layers on the even natural levels 0, 2, ..., 30.
fn even_layers() -> Vec<I16F16> {
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
            layers: even_layers(),
            changes_per_frame: 2 * scale,
            all_move: false,
            burst: Some(Burst {
                every: 120,
                first: 60,
                size: 50 * scale,
            }),
            cycle: 120,
            demo_frames: if scale == 1 { 1200 } else { 360 },
        }
    }

    /// 200,000 objects on 16 layers, 2,000 random Z changes per frame.
    pub fn sparse_200k() -> Self {
        Scenario {
            name: "sparse-200k",
            objects: 200_000,
            max_level: 31,
            layers: even_layers(),
            changes_per_frame: 2_000,
            all_move: false,
            burst: None,
            cycle: 1,
            demo_frames: 40,
        }
    }

    /// `jelly-60k` with 72 layers at every quarter from -2 to 15.75: 54 of
    /// them fractional or negative, so not optimized.
    pub fn fractional_60k() -> Self {
        Scenario {
            name: "fractional-60k",
            layers: (-8..64)
                .map(|quarter| I16F16::from_bits(quarter << (I16F16::FRAC_NBITS - 2)))
                .collect(),
            ..Scenario::jelly(100)
        }
    }

    /// 20,000 objects on 16 layers, each moved to a random layer every
    /// frame: zorder's worst case, since a sort amortizes over all of them.
    pub fn allmove_20k() -> Self {
        Scenario {
            name: "allmove-20k",
            objects: 20_000,
            max_level: 31,
            layers: even_layers(),
            changes_per_frame: 0,
            all_move: true,
            burst: None,
            cycle: 1,
            demo_frames: 40,
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
        ]
    }

    /// How many times a timed run replays the scenario ([`time_frames`]):
    /// five times for the small world, once for big ones, whose spikes
    /// dwarf any preemption and whose slow backends take seconds.
    pub fn replays(&self) -> usize {
        if self.objects <= 1_000 { 5 } else { 1 }
    }

    /// Whether `backend` accepts every Z this scenario uses (the simple
    /// collection refuses fractional Z).
    pub fn runs_on<B: Backend>(&self) -> bool {
        let backend = B::with_levels(self.max_level);
        self.layers.iter().all(|&z| backend.accepts(z))
    }
}

/// A game world on one backend, advanced a frame at a time.
#[derive(Debug)]
pub struct World<B: Backend> {
    /// The scene.
    pub backend: B,
    /// The game's list of its live objects.
    live: Vec<B::Handle>,
    rng: Rng,
    scenario: Scenario,
    frame: usize,
    next_id: u32,
    /// What the frames drew so far.
    pub canvas: Canvas,
}

impl<B: Backend> World<B> {
    /// The scenario's initial world: its objects spread evenly over the
    /// layers, created in ascending Z (so building it is cheap for every
    /// backend; it is never timed).
    pub fn new(scenario: &Scenario, seed: u64) -> Self {
        let mut world = World {
            backend: B::with_levels(scenario.max_level),
            live: Vec::with_capacity(scenario.objects),
            rng: Rng::new(seed),
            scenario: scenario.clone(),
            frame: 0,
            next_id: 0,
            canvas: Canvas::default(),
        };
        let layers = scenario.layers.len();
        for i in 0..scenario.objects {
            let z = scenario.layers[i * layers / scenario.objects];
            let sprite = world.next_sprite();
            let object = world.backend.create(sprite, z);
            world.live.push(object);
        }
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

    fn random_layer(&mut self) -> I16F16 {
        *self.rng.pick(&self.scenario.layers)
    }

    /// Creates an object the legacy way: at the default Z, then moved to its
    /// layer (two Z-actions). A backend that refuses the default Z (the
    /// simple collection) creates it on its layer directly (one Z-action).
    pub fn create_object(&mut self) {
        let z = self.random_layer();
        let sprite = self.next_sprite();
        let object = if self.backend.accepts(DEFAULT_Z) {
            let object = self.backend.create(sprite, DEFAULT_Z);
            self.backend.change(&object, z);
            object
        } else {
            self.backend.create(sprite, z)
        };
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

    /// Moves a random live object to a random layer.
    pub fn change_random(&mut self) {
        let z = self.random_layer();
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
        for _ in 0..self.scenario.changes_per_frame {
            self.change_random();
        }
        if self.scenario.all_move {
            for at in 0..self.live.len() {
                let z = self.random_layer();
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
}

impl FrameStats {
    /// The statistics of `frames` (not empty).
    pub fn of(frames: &[Duration]) -> Self {
        let mut sorted = frames.to_vec();
        sorted.sort_unstable();
        let rank = |percent: usize| sorted[(sorted.len() * percent).div_ceil(100).max(1) - 1];
        FrameStats {
            total: frames.iter().sum(),
            p50: rank(50),
            p99: rank(99),
            max: *sorted.last().expect("at least one frame"),
        }
    }
}

/// Times every frame of `scenario.demo_frames` frames on backend `B`, from
/// the same seed each time, [`Scenario::replays`] times over; each frame's
/// time is its fastest replay, which filters out the times the OS preempted
/// us (the frames are identical across replays). `progress` hears of each
/// frame done, as `(replay, frames done)`.
pub fn time_frames<B: Backend>(
    scenario: &Scenario,
    mut progress: impl FnMut(usize, usize),
) -> Vec<Duration> {
    let mut fastest = vec![Duration::MAX; scenario.demo_frames];
    for replay in 1..=scenario.replays() {
        let mut world = World::<B>::new(scenario, SEED);
        let times = world.run_timed(scenario.demo_frames, |done| progress(replay, done));
        std::hint::black_box(world.canvas);
        for (best, time) in fastest.iter_mut().zip(times) {
            *best = (*best).min(time);
        }
    }
    fastest
}
