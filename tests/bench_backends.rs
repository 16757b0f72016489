//! Every benchmark backend keeps the same order: a mixed scenario of
//! creations, Z changes (equal Z included), removals and unusual Z values
//! runs through each, and the back-to-front and front-to-back orders must
//! match each other's and the `(z, seq)` model's after every step.

use zorder_peers::scenario::{Burst, Particles};
use zorder_peers::{
    ArticleList, Backend, DEFAULT_Z, I16F16, LegacyArray, RadixSortWhenDirty, Rng, Scenario,
    SortedMap, Sprite, StableSortWhenDirty, VecMerge, World, ZorderBatch, ZorderFixedPoint,
    ZorderKeyed, ZorderSimple, level,
};

/// One step of the scripted scenario. Objects are named by creation index.
#[derive(Debug, Clone, Copy)]
enum Step {
    /// Create object `id` at the default Z, then move it to `z`.
    CreateViaDefault(I16F16),
    /// Create the next object at `z` directly.
    Create(I16F16),
    /// Move object to `z` (possibly its current Z).
    Change(usize, I16F16),
    /// Remove the object.
    Remove(usize),
}

const MAX_LEVEL: u16 = 8;

/// Steps of the scripted scenario (and objects created before them), and
/// frames and objects of the frame scenarios: far fewer under Miri, which
/// is about a thousand times slower; every backend and scenario still runs.
const STEPS: usize = if cfg!(miri) { 15 } else { 600 };
const FIRST_OBJECTS: usize = if cfg!(miri) { 8 } else { 30 };
const FRAMES: usize = if cfg!(miri) { 2 } else { 250 };
const OBJECTS: usize = if cfg!(miri) { 16 } else { 600 };

/// A deterministic script: `natural_only` keeps every Z a natural level in
/// `0..=MAX_LEVEL` (all the simple collection accepts) and creates objects
/// on their level directly.
fn script(natural_only: bool) -> Vec<Step> {
    let mut rng = Rng::new(2012);
    let naturals: Vec<I16F16> = (0..=i32::from(MAX_LEVEL)).map(level).collect();
    let mut unusual = vec![
        I16F16::from_num(-1.5),
        I16F16::from_num(-3),
        I16F16::from_num(2.25),
        I16F16::from_num(2.5),
        I16F16::from_num(2.75),
        I16F16::from_num(40),
        I16F16::MIN,
        DEFAULT_Z,
        I16F16::from_bits(1),
    ];
    unusual.extend_from_slice(&naturals);
    let zs = if natural_only { &naturals } else { &unusual };

    let mut steps = Vec::new();
    let mut current: Vec<Option<I16F16>> = Vec::new(); // Z of each live object
    let create = |steps: &mut Vec<Step>, current: &mut Vec<Option<I16F16>>, z| {
        steps.push(if natural_only {
            Step::Create(z)
        } else {
            Step::CreateViaDefault(z)
        });
        current.push(Some(z));
    };
    for _ in 0..FIRST_OBJECTS {
        let z = *rng.pick(&naturals);
        create(&mut steps, &mut current, z);
    }
    for _ in 0..STEPS {
        let live: Vec<usize> = (0..current.len())
            .filter(|&i| current[i].is_some())
            .collect();
        let roll = rng.below(10);
        if live.is_empty() || roll == 0 {
            let z = *rng.pick(zs);
            create(&mut steps, &mut current, z);
            continue;
        }
        let object = *rng.pick(&live);
        match roll {
            1 => {
                steps.push(Step::Remove(object));
                current[object] = None;
            }
            2 | 3 => {
                // Equal-Z change: the object pops to the front of its level.
                let z = current[object].expect("live");
                steps.push(Step::Change(object, z));
            }
            _ => {
                let z = *rng.pick(zs);
                steps.push(Step::Change(object, z));
                current[object] = Some(z);
            }
        }
    }
    steps
}

/// Back-to-front and front-to-back ids after each step.
type Orders = Vec<(Vec<u32>, Vec<u32>)>;

fn orders<B: Backend>(steps: &[Step]) -> Orders {
    let mut scene = B::with_levels(MAX_LEVEL);
    let mut objects: Vec<Option<B::Handle>> = Vec::new();
    let mut seen = Vec::new();
    for &step in steps {
        match step {
            Step::CreateViaDefault(z) => {
                let object = scene.create(Sprite::new(objects.len() as u32), DEFAULT_Z);
                scene.change(&object, z);
                objects.push(Some(object));
            }
            Step::Create(z) => {
                objects.push(Some(scene.create(Sprite::new(objects.len() as u32), z)));
            }
            Step::Change(i, z) => scene.change(objects[i].as_ref().expect("live"), z),
            Step::Remove(i) => scene.remove(objects[i].take().expect("live")),
        }
        let (mut back, mut front) = (Vec::new(), Vec::new());
        scene.back_to_front(|sprite| back.push(sprite.id));
        scene.front_to_back(|sprite| front.push(sprite.id));
        assert_eq!(back.len(), scene.len(), "{}", B::NAME);
        seen.push((back, front));
    }
    seen
}

/// The contract's model: sort by `(z, seq of the last Z-action)`.
fn model(steps: &[Step]) -> Orders {
    let mut keys: Vec<Option<(I16F16, u64)>> = Vec::new();
    let mut seq = 0;
    let mut key = |z| {
        seq += 1;
        Some((z, seq))
    };
    let mut seen = Vec::new();
    for &step in steps {
        match step {
            Step::CreateViaDefault(z) | Step::Create(z) => keys.push(key(z)),
            Step::Change(i, z) => keys[i] = key(z),
            Step::Remove(i) => keys[i] = None,
        }
        let mut live: Vec<(I16F16, u64, u32)> = keys
            .iter()
            .enumerate()
            .filter_map(|(id, key)| key.map(|(z, seq)| (z, seq, id as u32)))
            .collect();
        live.sort_unstable();
        let back: Vec<u32> = live.iter().map(|&(_, _, id)| id).collect();
        let front = back.iter().rev().copied().collect();
        seen.push((back, front));
    }
    seen
}

fn check<B: Backend>(steps: &[Step], expected: &Orders) {
    let got = orders::<B>(steps);
    for (step, (got, expected)) in got.iter().zip(expected).enumerate() {
        assert_eq!(
            got,
            expected,
            "{} after step {step}: {:?}",
            B::NAME,
            steps[step]
        );
    }
}

#[test]
fn every_backend_keeps_the_contract_order_for_any_z() {
    let steps = script(false);
    let expected = model(&steps);
    check::<ZorderKeyed>(&steps, &expected);
    check::<ZorderBatch>(&steps, &expected);
    check::<ZorderFixedPoint>(&steps, &expected);
    check::<LegacyArray>(&steps, &expected);
    check::<SortedMap>(&steps, &expected);
    check::<StableSortWhenDirty>(&steps, &expected);
    check::<RadixSortWhenDirty>(&steps, &expected);
    check::<VecMerge>(&steps, &expected);
    check::<ArticleList>(&steps, &expected);
    // The simple collection refuses these Z values; it runs the natural
    // script below instead.
    assert!(!ZorderSimple::with_levels(MAX_LEVEL).accepts(I16F16::from_num(2.5)));
}

#[test]
fn every_backend_keeps_the_contract_order_at_natural_levels() {
    let steps = script(true);
    let expected = model(&steps);
    zorder_peers::for_each_backend!(check(&steps, &expected));
}

/// The frame scenarios draw the same sprites in the same order on every
/// backend: the canvas checksum folds every id in visiting order.
fn checksums<B: Backend>(
    scenario: &Scenario,
    frames: usize,
    sums: &mut Vec<(&'static str, u64, usize)>,
) {
    if !scenario.runs_on::<B>() {
        return;
    }
    let mut world = World::<B>::new(scenario, 7);
    for _ in 0..frames {
        world.frame();
    }
    sums.push((B::NAME, world.canvas.checksum, world.backend.len()));
}

#[test]
fn frame_scenarios_draw_identically_on_every_backend() {
    let small = |scenario: Scenario| Scenario {
        objects: OBJECTS,
        changes_per_frame: scenario.changes_per_frame.min(4),
        burst: scenario.burst.map(|burst| Burst {
            size: OBJECTS / 12,
            // Under Miri the few frames still include a burst.
            first: burst.first.min(FRAMES - 1),
            ..burst
        }),
        // Bursts born, and dead, within the frames run.
        particles: scenario.particles.map(|particles| Particles {
            size: OBJECTS / 3,
            every: 2,
            first: 0,
            lifetime: 1,
            ..particles
        }),
        ..scenario
    };
    for scenario in Scenario::all().into_iter().map(small) {
        let mut sums = Vec::new();
        zorder_peers::for_each_backend!(checksums(&scenario, FRAMES, &mut sums));
        // Every backend, but the simple collection where a Z is not a level.
        assert!(sums.len() >= 8, "{}: {sums:?}", scenario.name);
        assert!(
            sums.iter()
                .all(|&(_, sum, len)| (sum, len) == (sums[0].1, sums[0].2)),
            "{}: {sums:?}",
            scenario.name
        );
    }
}
