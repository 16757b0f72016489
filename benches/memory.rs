//! Bytes per object, allocation included, for zorder and each peer: a
//! counting global allocator around the system one, and a table on
//! standard output (not criterion).
//!
//! `cargo bench --bench memory`; `-- per-object` or `-- mass-death` runs
//! one of the two parts.
//!
//! For each backend and size it builds the scene (objects on the 16 jelly
//! layers) and reports, per object:
//! - `live`: bytes held after building and one back-to-front traversal;
//! - `peak`: the most held at once while building, then changing every
//!   object's Z once (churn), then traversing again (the sorting backends'
//!   scratch space shows here);
//! - `churned`: bytes held at the end of that;
//! - `blocks`: live heap blocks per object after building;
//! - `overhead`: `live` less the 12 bytes of the game's own data per object
//!   (its Z and its sprite), which every backend stores somewhere: the cost
//!   of keeping the order;
//! - `glibc`: `live` as glibc's malloc actually spends it, each block
//!   rounded to its chunk size (the request plus an 8-byte header, rounded
//!   up to 16, at least 32).
//!
//! Bytes are the sizes requested from the allocator; each block also costs
//! the allocator's own header and rounding (glibc: 8 bytes, rounded up to
//! 16), which weighs on zorder's one block per object and hardly at all on
//! the peers' few big vectors. The legacy array runs up to 10^5 objects,
//! and so does the article's bucket list at distinct Z values (each
//! creation walks the buckets between two levels).
//!
//! The game's own list of handles is allocated before counting starts and
//! is not counted; the objects' payload (an id and an x, 8 bytes) is, for
//! every backend.
//!
//! # After a mass death
//!
//! The second part follows zorder's two collections, `ZOrder<u32>` and the
//! fixed-point `Rc` collection, through a burst's life: 10^6 objects each
//! at its own fractional Z, all removed, `prune_after + 1` traversals
//! (every emptied bucket pruned), then `shrink_to_fit`; it prints the
//! bytes the collection holds after each step (the `Rc` objects are the
//! game's: made before counting starts, and not counted). The target is
//! at most 64 KiB after the shrink.

use std::cell::Cell;
use std::rc::Rc;

use zorder::{FixedPointZCollection, ZObject, ZOrder};
use zorder_peers::bench_args::Parts;
use zorder_peers::scenario::SEED;
use zorder_peers::{Backend, Canvas, I16F16, Rng, Sprite};
use zorder_testkit::counting::{self, Counting};

#[global_allocator]
static ALLOCATOR: Counting = Counting;

/// The game's own data per object, which every backend stores: a Z (4
/// bytes) and a sprite (an id and an x, 8 bytes).
const GAME_DATA: f64 = 12.0;

/// Where the objects' Z values come from.
#[derive(Clone, Copy, PartialEq)]
enum Zs {
    /// The 16 jelly layers.
    Layers,
    /// Each object its own fractional Z in `[0, 32)` (a y-sort).
    Distinct,
}

fn measure<B: Backend>(objects: usize, zs: Zs) {
    // The legacy array's churn (one change per object) is quadratic, and
    // so is the article list's building of a world of distinct Z values.
    let walks = B::WALKS_BETWEEN_LEVELS && zs == Zs::Distinct;
    if (B::LINEAR_OPS || walks) && objects > 100_000 {
        return;
    }
    let layers = zorder_peers::scenario::jelly_layers();
    let mut rng = Rng::new(SEED);
    let pick = |i: usize, rng: &mut Rng| match zs {
        Zs::Layers if i == usize::MAX => *rng.pick(&layers),
        Zs::Layers => layers[i * layers.len() / objects],
        Zs::Distinct => I16F16::from_bits(rng.below(32 << 16) as i32),
    };
    if zs == Zs::Distinct && !B::with_levels(31).accepts(pick(0, &mut rng)) {
        return;
    }
    let mut handles: Vec<B::Handle> = Vec::with_capacity(objects);
    let mut canvas = Canvas::default();

    let blocks_before = counting::blocks();
    let chunks_before = counting::chunks();
    let before = counting::held();
    counting::restart_peak();
    let mut scene = B::with_levels(31);
    for i in 0..objects {
        let z = pick(i, &mut rng);
        handles.push(scene.create(Sprite::new(i as u32), z));
    }
    scene.back_to_front(|sprite| canvas.draw(sprite));
    let live = counting::held() - before;
    let blocks = counting::blocks() - blocks_before;
    let chunks = counting::chunks() - chunks_before;
    for handle in &handles {
        scene.change(handle, pick(usize::MAX, &mut rng));
    }
    scene.back_to_front(|sprite| canvas.draw(sprite));
    let churned = counting::held() - before;
    let peak = counting::peak() - before;
    std::hint::black_box(canvas);

    let per = |bytes: usize| bytes as f64 / objects as f64;
    println!(
        "{:<14} {:>9} {:>9} {:>10.1} {:>10.1} {:>12.1} {:>11.3} {:>10.1} {:>10.1} {:>10.1}",
        B::NAME,
        objects,
        if zs == Zs::Layers {
            "layers"
        } else {
            "distinct"
        },
        per(live),
        per(peak),
        per(churned),
        per(blocks),
        per(live) - GAME_DATA,
        per(chunks),
        per(chunks) - GAME_DATA,
    );
    drop(handles);
    drop(scene);
}

/// The objects of the mass death.
const DEATHS: u32 = 1_000_000;

/// The `i`-th of 2^31 distinct fractional Z values (odd bits: never a
/// level or the default Z), in an order unrelated to `i`.
fn distinct_z(i: u32) -> I16F16 {
    let mixed = i.wrapping_mul(0x9E37_79B1) & 0x7FFF_FFFF;
    I16F16::from_bits(((mixed << 1) | 1) as i32)
}

/// Bytes held by a collection after each step of a mass death: full,
/// emptied, pruned, shrunk. `file` and `unfile` act on object `i`.
fn mass_death<C>(
    name: &str,
    build: impl FnOnce() -> C,
    mut file: impl FnMut(&mut C, u32),
    mut unfile: impl FnMut(&mut C, u32),
    walk: impl Fn(&C) -> usize,
    shrink: impl FnOnce(&mut C),
) {
    let before = counting::held();
    let mut collection = build();
    for i in 0..DEATHS {
        file(&mut collection, i);
    }
    let full = counting::held() - before;
    for i in 0..DEATHS {
        unfile(&mut collection, i);
    }
    let emptied = counting::held() - before;
    for _ in 0..=ZOrder::<u32>::DEFAULT_PRUNE_AFTER {
        assert_eq!(walk(&collection), 0);
    }
    let pruned = counting::held() - before;
    shrink(&mut collection);
    let shrunk = counting::held() - before;
    println!(
        "{name:<22} {DEATHS:>9} {full:>12} {emptied:>12} {pruned:>12} {shrunk:>10}  {}",
        if shrunk <= 64 * 1024 {
            "ok (<= 64 KiB)"
        } else {
            "MISSED (64 KiB)"
        }
    );
    drop(collection);
}

fn mass_deaths() {
    println!(
        "\nbytes held after a mass death at distinct Z, each step\n{:<22} {:>9} {:>12} {:>12} {:>12} {:>10}  target",
        "collection", "objects", "full", "all removed", "pruned", "shrunk"
    );
    mass_death(
        "ZOrder<u32>",
        || ZOrder::<u32>::new(31).expect("a valid layout"),
        |order, i| order.insert(i, distinct_z(i)).expect("a new key"),
        |order, i| {
            order.remove(i).expect("a held key");
        },
        |order| order.back_to_front().count(),
        ZOrder::shrink_to_fit,
    );
    type Object = Rc<ZObject<Cell<I16F16>>>;
    let objects: Vec<Object> = (0..DEATHS)
        .map(|i| Rc::new(ZObject::new(Cell::new(distinct_z(i)))))
        .collect();
    mass_death(
        "FixedPointZCollection",
        || FixedPointZCollection::new(31).expect("a valid layout"),
        |scene, i| scene.add(&objects[i as usize]).expect("a free object"),
        |scene, i| {
            scene
                .remove(&objects[i as usize])
                .expect("an object of this scene")
        },
        |scene| scene.back_to_front().count(),
        FixedPointZCollection::shrink_to_fit,
    );
}

fn per_object() {
    println!(
        "{:<14} {:>9} {:>9} {:>10} {:>10} {:>12} {:>11} {:>10} {:>10} {:>10}",
        "backend",
        "objects",
        "Z values",
        "live B/obj",
        "peak B/obj",
        "churned B/obj",
        "blocks/obj",
        "overhead",
        "glibc B/obj",
        "glibc over"
    );
    for zs in [Zs::Layers, Zs::Distinct] {
        for objects in [1_000, 100_000, 1_000_000] {
            zorder_peers::for_each_backend!(measure(objects, zs));
        }
    }
}

fn main() {
    let Some(parts) = Parts::from_args() else {
        return;
    };
    if parts.runs("per-object") {
        per_object();
    }
    if parts.runs("mass-death") {
        mass_deaths();
    }
}
