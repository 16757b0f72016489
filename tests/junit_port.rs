//! A port of the behaviours checked by the legacy Java engine's JUnit suite
//! (`mominis/zorder`: `tests/com/mominis/zorder/FixedPointZCollectionTests.java`,
//! `SimpleZCollectionTests.java` and their `SimpleObject.java` test object),
//! so a porting team can see every legacy test's behaviour hold here. It is
//! written afresh, not translated: the same behaviours, in Rust's own
//! structure.
//!
//! Where a legacy test drew something at random (a Z level, a second
//! different level, an insertion order) this port walks the whole small
//! domain instead, with no random number generator: every level of
//! `0..=MAX_Z`, every ordered pair of different levels, every insertion
//! order of a few objects, every object to remove. Expected orders never
//! come from the library: a small model in this file sorts the members by
//! `(Z, sequence number of their last Z-action)` for back to front, and
//! front to back is its exact reverse (`docs/CONTRACT.md`, points 1 and 2).
//!
//! Legacy Z values become `I16F16` in the two ways the legacy collections
//! read them: the fixed-point collection took fixed-point ints, so the
//! legacy int `n` is `I16F16::from_bits(n)`; the simple collection took
//! plain int levels, so the legacy level `n` is `I16F16::from_num(n)`. The
//! published Java code used a decimal pivot (`PIVOT = 1000` meant 1) where
//! the engine used 16.16 (65536 meant 1); the fixed-point tests here run
//! with both, so a level is once a fraction (tree path) and once an
//! optimized level (quick-access path), and the order must agree.
//!
//! Which Rust test covers which Java test:
//!
//! | Rust test | Java test methods |
//! |---|---|
//! | `add_one_back_to_front` | `FixedPointZCollectionTests.addOneBackToFront`, `SimpleZCollectionTests.addOneBackToFront` |
//! | `remove_one_back_to_front` | `FixedPointZCollectionTests.removeOneBackToFront`, `SimpleZCollectionTests.removeOneBackToFront` |
//! | `change_one_back_to_front` | `FixedPointZCollectionTests.changeOneBackToFront`, `SimpleZCollectionTests.changeOneBackToFront` |
//! | `change_away_and_back_keeps_one_object` | `FixedPointZCollectionTests.multipleInSameBucketBackToFront`, `SimpleZCollectionTests.multipleInSameBucketBackToFront` |
//! | `change_away_and_back_goes_to_the_front_of_its_level` | `FixedPointZCollectionTests.multipleInSameBucketPreserveOrderBackToFront`, `SimpleZCollectionTests.multipleInSameBucketPreserveOrderBackToFront` |
//! | `fixed_point_half_level_opens_a_new_bucket` | `FixedPointZCollectionTests.nonIntegerNewBucket` |
//! | `fixed_point_half_level_joins_an_existing_bucket` | `FixedPointZCollectionTests.nonIntegerExistingBucket` |
//! | `fixed_point_very_high_z` | `FixedPointZCollectionTests.addOneVeryHigh` |
//! | `fixed_point_negative_z` | `FixedPointZCollectionTests.addNegative` |
//! | `simple_refuses_from_bits_levels_except_zero` | none: guards the port's Z translation for `SimpleZCollection` |
//! | `non_members_are_refused_and_nothing_changes` | none: a deliberate difference from both Java collections (see the test) |
//! | `the_model_orders_by_z_then_last_z_action` | none: checks this file's model and enumeration helpers |

use std::cell::Cell;
use std::rc::Rc;

use fixed::types::I16F16;
use zorder::{FixedPointZCollection, SimpleZCollection, ZCollection, ZError, ZObject, ZSortable};

/// The highest level both legacy suites built their collections with.
const MAX_Z: u16 = 10;

/// The two meanings of "1" a legacy fixed-point int may have had: the
/// published Java code's decimal pivot, and the engine's 16.16.
const PIVOTS: [i32; 2] = [1000, 1 << 16];

/// The levels a test walks through: all of `0..=MAX_Z`, or under Miri
/// (about a thousand times slower) the two lowest and the highest.
fn levels() -> Vec<i32> {
    let max = i32::from(MAX_Z);
    if cfg!(miri) {
        vec![0, 1, max]
    } else {
        (0..=max).collect()
    }
}

/// Every ordered pair of different levels (the legacy tests drew `z2`
/// again until it differed from `z1`).
fn distinct_level_pairs() -> Vec<(i32, i32)> {
    let levels = levels();
    let mut pairs = Vec::new();
    for &a in &levels {
        for &b in &levels {
            if a != b {
                pairs.push((a, b));
            }
        }
    }
    pairs
}

/// Every order of `0..n`, in lexicographic order.
fn permutations(n: usize) -> Vec<Vec<usize>> {
    fn extend(prefix: &mut Vec<usize>, n: usize, out: &mut Vec<Vec<usize>>) {
        if prefix.len() == n {
            out.push(prefix.clone());
            return;
        }
        for next in 0..n {
            if !prefix.contains(&next) {
                prefix.push(next);
                extend(prefix, n, out);
                prefix.pop();
            }
        }
    }
    let mut out = Vec::new();
    extend(&mut Vec::new(), n, &mut out);
    out
}

/// The insertion orders a test walks through: every order of `0..n`, or
/// under Miri the rotations of `0..n` and of its reverse, which still put
/// every two objects both ways round.
fn orders(n: usize) -> Vec<Vec<usize>> {
    if !cfg!(miri) {
        return permutations(n);
    }
    let mut orders = Vec::new();
    for start in 0..n {
        let rotation: Vec<usize> = (0..n).map(|i| (start + i) % n).collect();
        let mut reversed = rotation.clone();
        reversed.reverse();
        orders.push(rotation);
        orders.push(reversed);
    }
    orders
}

/// The test object, after the legacy `SimpleObject`: a Z the test sets
/// before each `add` or `change`.
#[derive(Debug)]
struct Sprite {
    z: Cell<I16F16>,
}

impl ZSortable for Sprite {
    fn z_order(&self) -> I16F16 {
        self.z.get()
    }
}

type Handle = Rc<ZObject<Sprite>>;

/// A collection kind, with the way its legacy Z values translate.
#[derive(Clone, Copy, Debug)]
enum Layout {
    /// `FixedPointZCollection`: a legacy int is fixed point, `pivot` is 1.
    FixedPoint { pivot: i32 },
    /// `SimpleZCollection`: a legacy int is a plain level.
    Simple,
}

impl Layout {
    fn fixed_point() -> Vec<Layout> {
        PIVOTS
            .iter()
            .map(|&pivot| Layout::FixedPoint { pivot })
            .collect()
    }

    fn all() -> Vec<Layout> {
        let mut all = Layout::fixed_point();
        all.push(Layout::Simple);
        all
    }

    fn collection(self) -> Box<dyn ZCollection<Sprite>> {
        match self {
            Layout::FixedPoint { .. } => Box::new(FixedPointZCollection::new(MAX_Z).unwrap()),
            Layout::Simple => Box::new(SimpleZCollection::new(MAX_Z).unwrap()),
        }
    }

    /// The Z of the legacy level `level` (the legacy tests' `z * PIVOT` for
    /// the fixed-point collection, plain `z` for the simple one).
    fn level(self, level: i32) -> I16F16 {
        match self {
            Layout::FixedPoint { pivot } => I16F16::from_bits(level * pivot),
            Layout::Simple => I16F16::from_num(level),
        }
    }

    fn pivot(self) -> i32 {
        match self {
            Layout::FixedPoint { pivot } => pivot,
            Layout::Simple => panic!("the simple collection has no pivot"),
        }
    }
}

/// The contract's model: each member's Z and the sequence number of its
/// last Z-action.
#[derive(Debug, Default)]
struct Model {
    next_seq: u64,
    filed: Vec<Option<(I16F16, u64)>>,
}

impl Model {
    fn new(objects: usize) -> Self {
        Model {
            next_seq: 0,
            filed: vec![None; objects],
        }
    }

    /// A successful add or change: the object's Z is `z`, as of now.
    fn file(&mut self, id: usize, z: I16F16) {
        self.filed[id] = Some((z, self.next_seq));
        self.next_seq += 1;
    }

    fn unfile(&mut self, id: usize) {
        self.filed[id] = None;
    }

    fn back_to_front(&self) -> Vec<usize> {
        let mut members: Vec<(I16F16, u64, usize)> = self
            .filed
            .iter()
            .enumerate()
            .filter_map(|(id, filed)| filed.map(|(z, seq)| (z, seq, id)))
            .collect();
        members.sort_by_key(|&(z, seq, _)| (z, seq));
        members.into_iter().map(|(_, _, id)| id).collect()
    }

    fn front_to_back(&self) -> Vec<usize> {
        let mut order = self.back_to_front();
        order.reverse();
        order
    }
}

/// One collection under test, its objects (named by index), the model,
/// and a log of what happened, printed when a check fails.
struct Scene {
    collection: Box<dyn ZCollection<Sprite>>,
    objects: Vec<Handle>,
    model: Model,
    log: Log,
}

/// What a scene did, written out only when a check fails (formatting every
/// step up front is most of a test's time under Miri).
struct Log {
    layout: Layout,
    objects: usize,
    steps: Vec<Logged>,
}

enum Logged {
    Add(usize, I16F16, Result<(), ZError>),
    Change(usize, I16F16, Result<(), ZError>),
    Remove(usize, Result<(), ZError>),
}

impl std::fmt::Display for Log {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        write!(f, "{:?}, {} objects", self.layout, self.objects)?;
        for step in &self.steps {
            match step {
                Logged::Add(id, z, outcome) => {
                    write!(f, "; add #{id} at {z} (bits {}): {outcome:?}", z.to_bits())?;
                }
                Logged::Change(id, z, outcome) => {
                    write!(
                        f,
                        "; change #{id} to {z} (bits {}): {outcome:?}",
                        z.to_bits()
                    )?;
                }
                Logged::Remove(id, outcome) => write!(f, "; remove #{id}: {outcome:?}")?,
            }
        }
        Ok(())
    }
}

impl Scene {
    fn new(layout: Layout, objects: usize) -> Self {
        Scene {
            collection: layout.collection(),
            objects: (0..objects)
                .map(|_| {
                    Rc::new(ZObject::new(Sprite {
                        z: Cell::new(I16F16::ZERO),
                    }))
                })
                .collect(),
            model: Model::new(objects),
            log: Log {
                layout,
                objects,
                steps: Vec::new(),
            },
        }
    }

    fn try_add(&mut self, id: usize, z: I16F16) -> Result<(), ZError> {
        self.objects[id].z.set(z);
        let outcome = self.collection.add(&self.objects[id]);
        self.log.steps.push(Logged::Add(id, z, outcome));
        if outcome.is_ok() {
            self.model.file(id, z);
        }
        outcome
    }

    fn try_change(&mut self, id: usize, z: I16F16) -> Result<(), ZError> {
        self.objects[id].z.set(z);
        let outcome = self.collection.change(&self.objects[id]);
        self.log.steps.push(Logged::Change(id, z, outcome));
        if outcome.is_ok() {
            self.model.file(id, z);
        }
        outcome
    }

    fn try_remove(&mut self, id: usize) -> Result<(), ZError> {
        let outcome = self.collection.remove(&self.objects[id]);
        self.log.steps.push(Logged::Remove(id, outcome));
        if outcome.is_ok() {
            self.model.unfile(id);
        }
        outcome
    }

    fn add(&mut self, id: usize, z: I16F16) {
        let outcome = self.try_add(id, z);
        assert_eq!(outcome, Ok(()), "{}", self.log);
    }

    fn change(&mut self, id: usize, z: I16F16) {
        let outcome = self.try_change(id, z);
        assert_eq!(outcome, Ok(()), "{}", self.log);
    }

    fn remove(&mut self, id: usize) {
        let outcome = self.try_remove(id);
        assert_eq!(outcome, Ok(()), "{}", self.log);
    }

    /// The indices of the handles a walk yields, by identity.
    fn ids<'a>(&self, walk: impl Iterator<Item = &'a Handle>) -> Vec<usize> {
        walk.map(|handle| {
            self.objects
                .iter()
                .position(|object| Rc::ptr_eq(object, handle))
                .unwrap_or_else(|| panic!("a handle the test never made; {}", self.log))
        })
        .collect()
    }

    fn back_to_front(&self) -> Vec<usize> {
        self.ids(self.collection.back_to_front())
    }

    /// Checks both walks, the count and every object's membership and Z of
    /// record against the model.
    fn check(&self) {
        let log = &self.log;
        self.collection.check_invariants();
        assert_eq!(self.back_to_front(), self.model.back_to_front(), "{log}");
        assert_eq!(
            self.ids(self.collection.front_to_back()),
            self.model.front_to_back(),
            "{log}"
        );
        let members = self.model.filed.iter().flatten().count();
        assert_eq!(self.collection.len(), members, "{log}");
        for (id, object) in self.objects.iter().enumerate() {
            let filed = self.model.filed[id].map(|(z, _)| z);
            assert_eq!(
                self.collection.contains(object),
                filed.is_some(),
                "#{id}; {log}"
            );
            assert_eq!(self.collection.z_of(object), filed, "#{id}; {log}");
            // The objects of a scene are in no other collection.
            assert_eq!(
                ZObject::is_in_collection(object),
                filed.is_some(),
                "#{id}; {log}"
            );
        }
    }
}

/// Legacy `addOneBackToFront` (both suites): one object added at any level
/// is the whole walk, both ways. The legacy fixed-point test passed the
/// level as a raw int, with no pivot (a tiny fraction in fixed point), so
/// the fixed-point collection is tried with both that and the pivoted level.
#[test]
fn add_one_back_to_front() {
    for layout in Layout::all() {
        for level in levels() {
            let mut zs = vec![layout.level(level)];
            if let Layout::FixedPoint { .. } = layout {
                zs.push(I16F16::from_bits(level));
            }
            for z in zs {
                let mut scene = Scene::new(layout, 1);
                scene.check();
                scene.add(0, z);
                scene.check();
                assert_eq!(scene.back_to_front().len(), 1, "{}", scene.log);
            }
        }
    }
}

/// Legacy `removeOneBackToFront` (both suites): an object added and then
/// removed leaves the collection empty. Extended to every choice of object
/// to remove among three (two sharing a level, one at the next level), then
/// emptying the rest one by one.
#[test]
fn remove_one_back_to_front() {
    let max = i32::from(MAX_Z);
    for layout in Layout::all() {
        for level in levels() {
            let mut scene = Scene::new(layout, 1);
            scene.add(0, layout.level(level));
            scene.remove(0);
            scene.check();
            assert!(scene.collection.is_empty(), "{}", scene.log);
            assert!(scene.collection.back_to_front().next().is_none());
            assert!(scene.collection.front_to_back().next().is_none());

            let placed = [level, level, (level + 1) % (max + 1)];
            for victim in 0..placed.len() {
                let mut scene = Scene::new(layout, placed.len());
                for (id, &at) in placed.iter().enumerate() {
                    scene.add(id, layout.level(at));
                }
                scene.check();
                scene.remove(victim);
                scene.check();
                for id in (0..placed.len()).filter(|&id| id != victim) {
                    scene.remove(id);
                    scene.check();
                }
                assert!(scene.collection.is_empty(), "{}", scene.log);
            }
        }
    }
}

/// Legacy `changeOneBackToFront` (both suites): an object moved from one
/// level to another is still the only object, now at the new level; for
/// every ordered pair of different levels.
#[test]
fn change_one_back_to_front() {
    for layout in Layout::all() {
        for (from, to) in distinct_level_pairs() {
            let mut scene = Scene::new(layout, 1);
            scene.add(0, layout.level(from));
            scene.change(0, layout.level(to));
            scene.check();
            assert_eq!(scene.back_to_front().len(), 1, "{}", scene.log);
        }
    }
}

/// Legacy `multipleInSameBucketBackToFront` (both suites): an object moved
/// away and back again is still there once, at its first level; for every
/// ordered pair of different levels.
#[test]
fn change_away_and_back_keeps_one_object() {
    for layout in Layout::all() {
        for (home, away) in distinct_level_pairs() {
            let mut scene = Scene::new(layout, 1);
            scene.add(0, layout.level(home));
            scene.change(0, layout.level(away));
            scene.check();
            scene.change(0, layout.level(home));
            scene.check();
            assert_eq!(scene.back_to_front().len(), 1, "{}", scene.log);
        }
    }
}

/// Legacy `multipleInSameBucketPreserveOrderBackToFront` (both suites): two
/// objects added at one level are drawn in the order added; moving the
/// first away and back brings it in front of the second. For every ordered
/// pair of different levels, and (beyond the legacy test) for either object
/// as the one moved.
#[test]
fn change_away_and_back_goes_to_the_front_of_its_level() {
    for layout in Layout::all() {
        for (home, away) in distinct_level_pairs() {
            for moved in 0..2 {
                let mut scene = Scene::new(layout, 2);
                scene.add(0, layout.level(home));
                scene.add(1, layout.level(home));
                scene.check();
                scene.change(moved, layout.level(away));
                scene.check();
                scene.change(moved, layout.level(home));
                scene.check();
            }
        }
    }
}

/// The three objects of the legacy `nonInteger*` tests: at a level, at the
/// next level, and halfway between (the legacy `(z1 + z2) * PIVOT / 2`).
fn level_next_and_half(layout: Layout, level: i32) -> [I16F16; 3] {
    let pivot = layout.pivot();
    [
        I16F16::from_bits(level * pivot),
        I16F16::from_bits((level + 1) * pivot),
        I16F16::from_bits((2 * level + 1) * pivot / 2),
    ]
}

/// The levels `z1` of the `nonInteger*` tests, whose `z1 + 1` must be a
/// level too: all of them, or under Miri the highest.
fn lower_levels() -> Vec<i32> {
    let max = i32::from(MAX_Z);
    if cfg!(miri) {
        vec![max - 1]
    } else {
        (0..max).collect()
    }
}

/// Legacy `nonIntegerNewBucket`: an object halfway between two levels sits
/// between the objects at those levels. For every lower level and every
/// order of the three adds (the legacy test used one order).
#[test]
fn fixed_point_half_level_opens_a_new_bucket() {
    for layout in Layout::fixed_point() {
        for level in lower_levels() {
            let zs = level_next_and_half(layout, level);
            for order in orders(zs.len()) {
                let mut scene = Scene::new(layout, zs.len());
                for &id in &order {
                    scene.add(id, zs[id]);
                    scene.check();
                }
                assert_eq!(scene.back_to_front().len(), zs.len(), "{}", scene.log);
            }
        }
    }
}

/// Legacy `nonIntegerExistingBucket`: a fourth object at the same halfway Z
/// shares its bucket, behind the one added before it. For every lower level
/// and every order of the four adds (the legacy test used one order).
#[test]
fn fixed_point_half_level_joins_an_existing_bucket() {
    for layout in Layout::fixed_point() {
        for level in lower_levels() {
            let [low, high, half] = level_next_and_half(layout, level);
            let zs = [low, high, half, half];
            for order in orders(zs.len()) {
                let mut scene = Scene::new(layout, zs.len());
                for &id in &order {
                    scene.add(id, zs[id]);
                }
                scene.check();
                // And the bucket keeps working: each halfway object, moved
                // to its own Z again, comes to the front of the bucket.
                scene.change(2, half);
                scene.check();
                scene.change(3, half);
                scene.check();
            }
        }
    }
}

/// Legacy `addOneVeryHigh`: a Z far above the highest optimized level is
/// legal (the legacy `1000 * PIVOT`). Beyond the legacy test: the level
/// just above `MAX_Z`, the highest natural number, and the legacy default Z
/// `Integer.MAX_VALUE`, each alone, then all of them with an object at
/// `MAX_Z`, in both insertion orders.
#[test]
fn fixed_point_very_high_z() {
    for layout in Layout::fixed_point() {
        let pivot = i64::from(layout.pivot());
        let mut zs: Vec<I16F16> = [i64::from(MAX_Z), i64::from(MAX_Z) + 1, 1000, 32767]
            .iter()
            .filter_map(|&level| i32::try_from(level * pivot).ok())
            .map(I16F16::from_bits)
            .collect();
        zs.push(I16F16::from_bits(i32::MAX));
        assert_eq!(zs.len(), 5, "every very high Z fits an i32");

        for (id, &z) in zs.iter().enumerate().skip(1) {
            let mut scene = Scene::new(layout, zs.len());
            scene.add(id, z);
            scene.check();
        }
        for reversed in [false, true] {
            let mut ids: Vec<usize> = (0..zs.len()).collect();
            if reversed {
                ids.reverse();
            }
            let mut scene = Scene::new(layout, zs.len());
            for id in ids {
                scene.add(id, zs[id]);
                scene.check();
            }
        }
    }
}

/// Legacy `addNegative`: negative Z values are legal and sort below zero
/// and below each other by value (the legacy -10, -20 and 20 times the
/// pivot). For every order of the adds (the legacy test used one), and
/// with a fourth object just below zero, a negative fraction.
#[test]
fn fixed_point_negative_z() {
    for layout in Layout::fixed_point() {
        let pivot = layout.pivot();
        let zs = [-10 * pivot, -20 * pivot, 20 * pivot, -1].map(I16F16::from_bits);
        for order in orders(zs.len()) {
            let mut scene = Scene::new(layout, zs.len());
            for &id in &order {
                scene.add(id, zs[id]);
            }
            scene.check();
        }
    }
}

/// Not a legacy test: a guard on the Z translation. The legacy simple
/// collection took plain int levels; translating one with
/// `I16F16::from_bits` (as for the fixed-point collection) makes every
/// level but 0 a fraction, which the simple collection must refuse with
/// `ZOutOfRange`, in `add` and in `change`, changing nothing. (The legacy
/// simple collection threw `IllegalArgumentException` for a Z it had no
/// level for.)
#[test]
fn simple_refuses_from_bits_levels_except_zero() {
    let max = i32::from(MAX_Z);
    for level in 0..=max {
        let wrong = I16F16::from_bits(level);
        let refusal = Err(ZError::ZOutOfRange {
            z: wrong,
            max_level: MAX_Z,
        });

        // Objects 0 and 1 share a level, so a change to the tie order
        // would show; object 2 is the one the test adds or changes.
        let mut scene = Scene::new(Layout::Simple, 3);
        scene.add(0, I16F16::from_num(max / 2));
        scene.add(1, I16F16::from_num(max / 2));
        let outcome = scene.try_add(2, wrong);
        if level == 0 {
            assert_eq!(outcome, Ok(()), "{}", scene.log);
        } else {
            assert_eq!(outcome, refusal, "{}", scene.log);
        }
        scene.check();

        let mut scene = Scene::new(Layout::Simple, 3);
        scene.add(2, I16F16::from_num(max / 2));
        scene.add(0, I16F16::from_num(max / 2));
        scene.add(1, I16F16::from_num(max));
        let outcome = scene.try_change(2, wrong);
        if level == 0 {
            assert_eq!(outcome, Ok(()), "{}", scene.log);
        } else {
            assert_eq!(outcome, refusal, "{}", scene.log);
        }
        scene.check();
    }
}

/// Not a legacy test: a deliberate difference from the Java collections,
/// whose suites never tried it. For an object the collection does not hold
/// (never added, already removed, or held by another collection), the Java
/// `SimpleZCollection.remove` silently did nothing and its `change` added
/// the object; the Java `FixedPointZCollection.remove` and `change` threw a
/// `NullPointerException`. Here both collections return
/// `Err(ZError::NotInCollection)` and change nothing.
#[test]
fn non_members_are_refused_and_nothing_changes() {
    let max = i32::from(MAX_Z);
    let refusal = Err(ZError::NotInCollection);
    for layout in Layout::all() {
        for level in levels() {
            // Objects 0 and 1 are members sharing a level; object 2 is
            // the non-member, at `level` (its own Z says where a lenient
            // change would have filed it).
            let mut scene = Scene::new(layout, 3);
            scene.add(0, layout.level(max / 2));
            scene.add(1, layout.level(max / 2));
            scene.check();

            // Never added.
            assert_eq!(scene.try_remove(2), refusal, "{}", scene.log);
            scene.check();
            assert_eq!(
                scene.try_change(2, layout.level(level)),
                refusal,
                "{}",
                scene.log
            );
            scene.check();

            // Added, then removed: a second remove or a change is refused.
            scene.add(2, layout.level(level));
            scene.check();
            scene.remove(2);
            scene.check();
            assert_eq!(scene.try_remove(2), refusal, "{}", scene.log);
            scene.check();
            assert_eq!(
                scene.try_change(2, layout.level(level)),
                refusal,
                "{}",
                scene.log
            );
            scene.check();

            // Held by another collection of the same kind: refused here,
            // and it stays where it is there.
            let mut other = layout.collection();
            let stranger = Rc::new(ZObject::new(Sprite {
                z: Cell::new(layout.level(level)),
            }));
            other.add(&stranger).unwrap();
            assert_eq!(scene.collection.remove(&stranger), refusal, "{}", scene.log);
            assert_eq!(scene.collection.change(&stranger), refusal, "{}", scene.log);
            scene.check();
            assert!(other.contains(&stranger));
            assert_eq!(other.z_of(&stranger), Some(layout.level(level)));
            assert!(!scene.collection.contains(&stranger));
        }
    }
}

/// The model and helpers above decide every expected order, so they get a
/// check of their own: ties go to the earlier Z-action, and front to back
/// is the reverse.
#[test]
fn the_model_orders_by_z_then_last_z_action() {
    let mut model = Model::new(3);
    let (one, two) = (I16F16::from_num(1), I16F16::from_num(2));
    model.file(0, two);
    model.file(1, one);
    model.file(2, two);
    assert_eq!(model.back_to_front(), [1, 0, 2]);
    model.file(0, two);
    assert_eq!(model.back_to_front(), [1, 2, 0]);
    assert_eq!(model.front_to_back(), [0, 2, 1]);
    model.unfile(2);
    assert_eq!(model.back_to_front(), [1, 0]);
    assert_eq!(permutations(3).len(), 6);
    assert_eq!(permutations(4).len(), 24);
    for n in 2..=4 {
        let orders = orders(n);
        for order in &orders {
            let mut sorted = order.clone();
            sorted.sort_unstable();
            assert_eq!(sorted, (0..n).collect::<Vec<_>>(), "an order of 0..{n}");
        }
        for a in 0..n {
            for b in (0..n).filter(|&b| b != a) {
                let before = |o: &Vec<usize>| {
                    o.iter().position(|&x| x == a) < o.iter().position(|&x| x == b)
                };
                assert!(orders.iter().any(before), "{a} before {b} among {n}");
            }
        }
    }
    assert_eq!(
        distinct_level_pairs().len(),
        levels().len() * (levels().len() - 1)
    );
}
