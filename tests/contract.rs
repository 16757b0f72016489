//! The ordering contract of `docs/CONTRACT.md`, point by point, with edge
//! values, on every collection: the keyed `ZOrder` and the `Rc`
//! collections, in both layouts. (`tests/model.rs` checks the same points
//! against the model on random operation sequences.)

use std::cell::Cell;
use std::rc::Rc;

use zorder::{
    DEFAULT_Z, FixedPointZCollection, I16F16, Layout, SimpleZCollection, ZCollection, ZError,
    ZObject, ZOrder,
};

type Sprite = Cell<I16F16>;
type Obj = Rc<ZObject<Sprite>>;

fn z(v: f64) -> I16F16 {
    I16F16::from_num(v)
}

fn bits(b: i32) -> I16F16 {
    I16F16::from_bits(b)
}

/// A collection under test, its entries named by number: a key of a
/// `ZOrder`, or an object of an `Rc` collection.
trait Subject {
    fn name(&self) -> String;
    fn add(&mut self, id: usize, z: I16F16) -> Result<(), ZError>;
    /// The legacy `change`: the entry's Z becomes `z`, then it is re-filed.
    fn change(&mut self, id: usize, z: I16F16) -> Result<(), ZError>;
    fn refile(&mut self, id: usize) -> Result<(), ZError>;
    fn remove(&mut self, id: usize) -> Result<(), ZError>;
    fn b2f(&self) -> Vec<usize>;
    fn f2b(&self) -> Vec<usize>;
    fn len(&self) -> usize;
    fn contains(&self, id: usize) -> bool;
    fn z_of(&self, id: usize) -> Option<I16F16>;
    fn nonoptimized_buckets(&self) -> usize;
    fn clear(&mut self);
    fn check(&self);
}

struct Keyed<L: Layout>(ZOrder<u32, L>);

impl<L: Layout> Subject for Keyed<L> {
    fn name(&self) -> String {
        format!("ZOrder ({:?} layout)", L::default())
    }
    fn add(&mut self, id: usize, z: I16F16) -> Result<(), ZError> {
        self.0.insert(id as u32, z)
    }
    fn change(&mut self, id: usize, z: I16F16) -> Result<(), ZError> {
        self.0.set_z(id as u32, z)
    }
    fn refile(&mut self, id: usize) -> Result<(), ZError> {
        self.0.refile(id as u32)
    }
    fn remove(&mut self, id: usize) -> Result<(), ZError> {
        self.0.remove(id as u32).map(|_| ())
    }
    fn b2f(&self) -> Vec<usize> {
        self.0.back_to_front().map(|k| k as usize).collect()
    }
    fn f2b(&self) -> Vec<usize> {
        self.0.front_to_back().map(|k| k as usize).collect()
    }
    fn len(&self) -> usize {
        self.0.len()
    }
    fn contains(&self, id: usize) -> bool {
        self.0.contains(id as u32)
    }
    fn z_of(&self, id: usize) -> Option<I16F16> {
        self.0.z_of(id as u32)
    }
    fn nonoptimized_buckets(&self) -> usize {
        self.0.nonoptimized_buckets()
    }
    fn clear(&mut self) {
        self.0.clear();
    }
    fn check(&self) {
        self.0.check_invariants();
    }
}

struct Shared {
    collection: Box<dyn ZCollection<Sprite>>,
    objects: Vec<Obj>,
}

impl Shared {
    fn new(collection: Box<dyn ZCollection<Sprite>>) -> Self {
        Shared {
            collection,
            objects: (0..600)
                .map(|_| Rc::new(ZObject::new(Cell::new(DEFAULT_Z))))
                .collect(),
        }
    }

    fn ids<'a>(&self, objects: impl Iterator<Item = &'a Obj>) -> Vec<usize> {
        objects
            .map(|o| {
                self.objects
                    .iter()
                    .position(|h| Rc::ptr_eq(h, o))
                    .expect("known")
            })
            .collect()
    }
}

impl Subject for Shared {
    fn name(&self) -> String {
        format!("{:?}", self.collection.max_level())
    }
    fn add(&mut self, id: usize, z: I16F16) -> Result<(), ZError> {
        let before = self.objects[id].replace(z);
        let outcome = self.collection.add(&self.objects[id]);
        if outcome.is_err() {
            self.objects[id].set(before);
        }
        outcome
    }
    fn change(&mut self, id: usize, z: I16F16) -> Result<(), ZError> {
        let before = self.objects[id].replace(z);
        let outcome = self.collection.change(&self.objects[id]);
        if outcome.is_err() {
            self.objects[id].set(before);
        }
        outcome
    }
    fn refile(&mut self, id: usize) -> Result<(), ZError> {
        self.collection.change(&self.objects[id])
    }
    fn remove(&mut self, id: usize) -> Result<(), ZError> {
        self.collection.remove(&self.objects[id])
    }
    fn b2f(&self) -> Vec<usize> {
        self.ids(self.collection.back_to_front())
    }
    fn f2b(&self) -> Vec<usize> {
        self.ids(self.collection.front_to_back())
    }
    fn len(&self) -> usize {
        self.collection.len()
    }
    fn contains(&self, id: usize) -> bool {
        self.collection.contains(&self.objects[id])
    }
    fn z_of(&self, id: usize) -> Option<I16F16> {
        self.collection.z_of(&self.objects[id])
    }
    fn nonoptimized_buckets(&self) -> usize {
        self.collection.nonoptimized_buckets()
    }
    fn clear(&mut self) {
        self.collection.clear();
    }
    fn check(&self) {
        self.collection.check_invariants();
    }
}

/// Every collection that takes every Z, with levels `0..=max_level`.
fn every_z(max_level: u16) -> Vec<Box<dyn Subject>> {
    vec![
        Box::new(Keyed(ZOrder::new(max_level).unwrap())),
        Box::new(Shared::new(Box::new(
            FixedPointZCollection::new(max_level).unwrap(),
        ))),
    ]
}

/// Every collection that takes only the levels `0..=max_level`.
fn levels_only(max_level: u16) -> Vec<Box<dyn Subject>> {
    vec![
        Box::new(Keyed(ZOrder::simple(max_level).unwrap())),
        Box::new(Shared::new(Box::new(
            SimpleZCollection::new(max_level).unwrap(),
        ))),
    ]
}

/// All four.
fn all(max_level: u16) -> Vec<Box<dyn Subject>> {
    let mut all = every_z(max_level);
    all.extend(levels_only(max_level));
    all
}

fn add_all(c: &mut dyn Subject, zs: &[I16F16]) {
    for (id, &z) in zs.iter().enumerate() {
        c.add(id, z).unwrap();
    }
}

/// The ids of `zs` sorted by Z, ties in id order (the order of adding).
fn sorted_ids(zs: &[I16F16]) -> Vec<usize> {
    let mut ids: Vec<usize> = (0..zs.len()).collect();
    ids.sort_by_key(|&i| zs[i]);
    ids
}

// ---- 1. Back to front is ascending Z, ties by the last Z-action ---------

#[test]
fn point1_back_to_front_is_ascending_z_over_every_kind_of_value() {
    // Deliberately added in scrambled order.
    let zs = [
        DEFAULT_Z,
        z(10.0), // max_level
        I16F16::MIN,
        z(11.0),  // max_level + 1
        bits(-1), // -DELTA
        z(0.0),
        bits(1),             // +DELTA
        bits((3 << 16) - 1), // just below level 3
        z(3.0),
        bits((3 << 16) + 1), // just above level 3
        z(-2.5),
        z(32767.0),         // the largest natural number
        bits(i32::MAX - 1), // just below the default Z
        z(10.5),
    ];
    for mut c in every_z(10) {
        add_all(c.as_mut(), &zs);
        assert_eq!(c.b2f(), sorted_ids(&zs), "{}", c.name());
        c.check();
    }
}

#[test]
fn point1_equal_z_keeps_the_order_of_the_last_z_action() {
    for mut c in all(5) {
        add_all(c.as_mut(), &[z(2.0); 4]);
        assert_eq!(c.b2f(), [0, 1, 2, 3]);
        // Moving away and back counts as a later Z-action.
        c.change(1, z(4.0)).unwrap();
        c.change(1, z(2.0)).unwrap();
        assert_eq!(c.b2f(), [0, 2, 3, 1]);
        // Removing and adding again too.
        c.remove(0).unwrap();
        c.add(0, z(2.0)).unwrap();
        assert_eq!(c.b2f(), [2, 3, 1, 0], "{}", c.name());
    }
}

#[test]
fn point1_equal_z_ties_hold_for_non_optimized_and_default_z() {
    for shared_z in [DEFAULT_Z, I16F16::MIN, z(-7.25), z(1000.0), bits(1)] {
        for mut c in every_z(4) {
            add_all(c.as_mut(), &[shared_z; 3]);
            c.refile(0).unwrap();
            assert_eq!(c.b2f(), [1, 2, 0], "Z {shared_z}, {}", c.name());
        }
    }
}

#[test]
fn point1_holds_across_blocks_and_leaves() {
    // Entries at one level (several blocks), at one fraction and at
    // distinct fractions (several leaves), churned by changes and by
    // removals and adds, against a (z, seq) model.
    // Enough for several leaves (up to 128 entries each) and blocks (up
    // to 64).
    const ENTRIES: usize = if cfg!(miri) { 70 } else { 600 };
    let zs_of = |step: usize| [z(1.0), z(1.5), bits((2 << 16) + step as i32 * 97)][step % 3];
    for mut c in every_z(3) {
        let mut model = std::collections::BTreeMap::new();
        let mut seq = 0u64;
        let mut filed = vec![(I16F16::ZERO, 0u64); ENTRIES];
        for (id, place) in filed.iter_mut().enumerate() {
            seq += 1;
            c.add(id, zs_of(id)).unwrap();
            *place = (zs_of(id), seq);
            model.insert(*place, id);
        }
        for step in 0..if cfg!(miri) { 150 } else { 600 } {
            let id = (step * 37) % ENTRIES;
            let new_z = zs_of(step * 7 + 1);
            model.remove(&filed[id]);
            seq += 1;
            if step % 5 == 0 {
                c.remove(id).unwrap();
                c.add(id, new_z).unwrap();
            } else {
                c.change(id, new_z).unwrap();
            }
            filed[id] = (new_z, seq);
            model.insert(filed[id], id);
        }
        let expected: Vec<usize> = model.values().copied().collect();
        assert_eq!(c.b2f(), expected, "{}", c.name());
        c.check();
    }
}

#[test]
fn point1_with_max_level_zero() {
    for mut c in all(0) {
        add_all(c.as_mut(), &[z(0.0), z(0.0)]);
        assert_eq!(c.b2f(), [0, 1]);
    }
    let zs = [z(1.0), z(0.5), z(0.0), z(-0.5), DEFAULT_Z];
    for mut c in every_z(0) {
        add_all(c.as_mut(), &zs);
        assert_eq!(c.b2f(), [3, 2, 1, 0, 4]);
        assert_eq!(c.nonoptimized_buckets(), 3, "1, 0.5 and -0.5");
    }
}

/// Filings between the buckets of one block, whose slots are taken, with
/// a free slot a few slots away on either side: the order holds, ties
/// included, whichever way the entries between make room.
#[test]
fn point1_filings_between_the_buckets_of_a_block() {
    let level = |l: i32| z(f64::from(l));
    let mut order = ZOrder::<u32>::new(15).unwrap();
    for (key, l) in [(0, 5), (1, 5), (2, 5), (3, 9), (4, 9), (5, 9)] {
        order.insert(key, level(l)).unwrap();
    }
    order.remove(0).unwrap();
    let steps: [(u32, i32, &[u32]); 4] = [
        // A free slot before the level's entries, one after the level 9's.
        (6, 5, &[1, 2, 6, 3, 4, 5]),
        // Below every entry.
        (7, 3, &[7, 1, 2, 6, 3, 4, 5]),
        // Between two levels.
        (8, 7, &[7, 1, 2, 6, 8, 3, 4, 5]),
        // A re-file at the same level, its old slot the nearest free one.
        (1, 5, &[7, 2, 6, 1, 8, 3, 4, 5]),
    ];
    for (key, l, expected) in steps {
        if order.contains(key) {
            order.set_z(key, level(l)).unwrap();
        } else {
            order.insert(key, level(l)).unwrap();
        }
        order.check_invariants();
        assert_eq!(order.back_to_front().collect::<Vec<_>>(), expected);
        let mut back: Vec<u32> = order.front_to_back().collect();
        back.reverse();
        assert_eq!(back, expected);
    }
}

// ---- 2. Front to back is the exact reverse -------------------------------

#[test]
fn point2_front_to_back_is_the_exact_reverse() {
    let zs: Vec<I16F16> = [3.0, 1.0, 3.0, -1.0, 2.5, 3.0, 1.0, 9.0].map(z).to_vec();
    for mut c in every_z(3) {
        add_all(c.as_mut(), &zs);
        let mut reversed = c.f2b();
        reversed.reverse();
        assert_eq!(reversed, c.b2f());
        assert_eq!(c.b2f(), [3, 1, 6, 4, 0, 2, 5, 7]);
    }
}

// ---- 3. A re-file moves an entry even when its Z did not change ----------

#[test]
fn point3_a_refile_at_the_same_z_comes_to_the_front_of_that_z() {
    for zs in [z(5.0), z(5.5), DEFAULT_Z] {
        for mut c in every_z(5) {
            add_all(c.as_mut(), &[zs; 3]);
            c.refile(0).unwrap();
            assert_eq!(c.f2b(), [0, 2, 1], "{}", c.name());
            c.change(2, zs).unwrap();
            assert_eq!(c.f2b(), [2, 0, 1]);
        }
    }
    for mut c in levels_only(5) {
        add_all(c.as_mut(), &[z(5.0); 3]);
        c.refile(0).unwrap();
        assert_eq!(c.f2b(), [0, 2, 1]);
    }
}

// ---- 4. Every I16F16 is a legal Z; the default Z -------------------------

#[test]
fn point4_every_value_is_legal_when_every_z_is_taken() {
    let top = if cfg!(miri) { 1001 } else { 32767 };
    for max_level in [0, 1000, top] {
        for mut c in every_z(max_level) {
            let extremes = [
                I16F16::MIN,
                bits(-1),
                bits(0),
                bits(1),
                z(32767.0),
                DEFAULT_Z,
            ];
            add_all(c.as_mut(), &extremes);
            assert_eq!(c.b2f(), [0, 1, 2, 3, 4, 5]);
            let top_is_a_level = max_level == 32767;
            assert_eq!(
                c.nonoptimized_buckets(),
                if top_is_a_level { 3 } else { 4 },
                "MIN, -DELTA, +DELTA, and 32767 unless it is a level"
            );
        }
    }
}

#[test]
fn point4_creation_is_default_z_then_the_layer() {
    for mut c in every_z(100) {
        add_all(c.as_mut(), &[z(7.0), DEFAULT_Z, DEFAULT_Z, DEFAULT_Z]);
        // Every default-Z entry is in front of everything else, in order.
        assert_eq!(c.b2f(), [0, 1, 2, 3]);
        // Then each moves to its layer: the later move is further front.
        for id in [3, 2, 1] {
            c.change(id, z(7.0)).unwrap();
        }
        assert_eq!(c.b2f(), [0, 3, 2, 1]);
        assert_eq!(
            c.nonoptimized_buckets(),
            0,
            "the default bucket is not counted"
        );
    }
}

#[test]
fn point4_the_simple_layout_refuses_every_z_that_is_not_a_level() {
    for mut c in levels_only(10) {
        for bad in [
            DEFAULT_Z,
            I16F16::MIN,
            bits(-1),
            bits(1),
            z(10.5),
            z(11.0),
            z(9.999),
        ] {
            assert_eq!(
                c.add(0, bad),
                Err(ZError::ZOutOfRange {
                    z: bad,
                    max_level: 10
                })
            );
            assert!(!c.contains(0));
        }
        assert_eq!(c.len(), 0);
        c.add(0, z(0.0)).unwrap();
        c.add(1, z(10.0)).unwrap();
        assert_eq!(
            c.change(1, z(10.5)),
            Err(ZError::ZOutOfRange {
                z: z(10.5),
                max_level: 10
            })
        );
        assert_eq!(c.b2f(), [0, 1], "a refused change keeps the old place");
        assert_eq!(c.z_of(1), Some(z(10.0)));
        assert_eq!(c.nonoptimized_buckets(), 0);
    }
}

// ---- 5. Misuse is an error that changes nothing --------------------------

type Snapshot = (usize, Vec<usize>, Vec<usize>, Vec<Option<I16F16>>, usize);

/// Everything observable about a collection (walking counts as a traversal
/// for pruning: take snapshots in pairs, the same way).
fn snapshot(c: &dyn Subject) -> Snapshot {
    (
        c.len(),
        c.b2f(),
        c.f2b(),
        (0..8).map(|id| c.z_of(id)).collect(),
        c.nonoptimized_buckets(),
    )
}

#[test]
fn point5_every_misuse_is_an_error_that_changes_nothing() {
    for mut c in all(5) {
        add_all(c.as_mut(), &[z(1.0), z(2.0), z(1.0)]);
        let before = snapshot(c.as_ref());
        assert_eq!(
            c.add(0, z(3.0)),
            Err(ZError::AlreadyInCollection),
            "adding twice"
        );
        assert_eq!(
            c.remove(5),
            Err(ZError::NotInCollection),
            "removing a stranger"
        );
        assert_eq!(
            c.change(5, z(1.0)),
            Err(ZError::NotInCollection),
            "changing a stranger"
        );
        assert_eq!(c.refile(6), Err(ZError::NotInCollection));
        let after = snapshot(c.as_ref());
        assert_eq!(
            (after.0, &after.1, &after.2, &after.3),
            (before.0, &before.1, &before.2, &before.3)
        );
        c.check();
    }
}

#[test]
fn point5_an_object_lives_in_one_rc_collection_at_a_time() {
    let objects: Vec<Obj> = (0..3)
        .map(|i| Rc::new(ZObject::new(Cell::new(z(f64::from(i))))))
        .collect();
    let mut a = FixedPointZCollection::new(5).unwrap();
    let mut b = SimpleZCollection::new(5).unwrap();
    a.add(&objects[0]).unwrap();
    assert_eq!(
        b.add(&objects[0]),
        Err(ZError::AlreadyInCollection),
        "already in another"
    );
    assert_eq!(
        b.remove(&objects[0]),
        Err(ZError::NotInCollection),
        "in another, not here"
    );
    assert_eq!(b.change(&objects[0]), Err(ZError::NotInCollection));
    assert_eq!(b.z_of(&objects[0]), None);
    assert!(b.is_empty() && a.contains(&objects[0]) && !b.contains(&objects[0]));
    a.remove(&objects[0]).unwrap();
    b.add(&objects[0]).unwrap();
    assert!(b.contains(&objects[0]) && !a.contains(&objects[0]));
}

#[test]
fn point5_objects_of_a_dropped_collection_are_free_again() {
    let o = Rc::new(ZObject::new(Cell::new(z(0.5))));
    {
        let mut c = FixedPointZCollection::new(3).unwrap();
        c.add(&o).unwrap();
        assert_eq!(Rc::strong_count(&o), 2);
    }
    assert!(!ZObject::is_in_collection(&o));
    assert_eq!(Rc::strong_count(&o), 1);
    let mut next = SimpleZCollection::new(3).unwrap();
    o.set(z(1.0));
    next.add(&o).unwrap();
}

#[test]
fn constructors_refuse_bad_settings() {
    type F = FixedPointZCollection<Sprite>;
    assert_eq!(
        F::new(32768).unwrap_err(),
        ZError::MaxLevelTooLarge { max_level: 32768 }
    );
    assert_eq!(
        F::with_prune_after(3, 0).unwrap_err(),
        ZError::ZeroPruneThreshold
    );
    assert_eq!(
        SimpleZCollection::<Sprite>::new(u16::MAX).unwrap_err(),
        ZError::MaxLevelTooLarge {
            max_level: u16::MAX
        }
    );
    assert_eq!(
        ZOrder::<u32>::new(40_000).unwrap_err(),
        ZError::MaxLevelTooLarge { max_level: 40_000 }
    );
    assert_eq!(
        ZOrder::<u32>::with_prune_after(3, 0).unwrap_err(),
        ZError::ZeroPruneThreshold
    );
    assert_eq!(
        ZOrder::<u32>::simple(32768).unwrap_err(),
        ZError::MaxLevelTooLarge { max_level: 32768 }
    );
    assert_eq!(F::new(3).unwrap().prune_after(), F::DEFAULT_PRUNE_AFTER);
    assert_eq!(F::MAX_LEVEL, 32767);
    assert_eq!(
        ZOrder::<u32>::new(3).unwrap().prune_after(),
        ZOrder::<u32>::DEFAULT_PRUNE_AFTER
    );
}

#[test]
fn errors_display_exact_bits_and_are_errors() {
    let out = ZError::ZOutOfRange {
        z: bits(1),
        max_level: 3,
    };
    assert_eq!(
        out.to_string(),
        "Z 0.00002 (bits 0x00000001) is not a level of this collection (a natural number from 0 to 3)"
    );
    let negative = ZError::ZOutOfRange {
        z: z(-0.5),
        max_level: 3,
    };
    assert!(
        negative.to_string().contains("bits 0xffff8000"),
        "{negative}"
    );
    let boxed: Box<dyn std::error::Error> = Box::new(ZError::NotInCollection);
    assert_eq!(
        boxed.to_string(),
        "the key or object is not in this Z collection"
    );
    assert!(
        ZError::IndexInUse { index: 7 }
            .to_string()
            .contains("index 7")
    );
    assert_eq!(
        ZError::CapacityOverflow.to_string(),
        "the Z collection cannot grow that large"
    );
}

// ---- 6. Traversal visits each entry once ---------------------------------

#[test]
fn point6_an_empty_collection_yields_nothing() {
    for c in all(3) {
        assert!(c.b2f().is_empty() && c.f2b().is_empty());
    }
    let order = ZOrder::<u32>::new(3).unwrap();
    assert_eq!(order.back_to_front().len(), 0);
    assert!(order.iter().next_back().is_none());
    assert!((&order).into_iter().next().is_none());
    let scene = FixedPointZCollection::<Sprite>::new(3).unwrap();
    assert!(scene.back_to_front().next().is_none());
    assert!((&scene).into_iter().next_back().is_none());
}

#[test]
fn point6_iterators_are_exact_double_ended_fused_and_clone() {
    fn traits<I: DoubleEndedIterator + ExactSizeIterator + std::iter::FusedIterator + Clone>(
        _: &I,
    ) {
    }
    let mut order = ZOrder::<u32>::new(3).unwrap();
    let mut scene = FixedPointZCollection::new(3).unwrap();
    let objects: Vec<Obj> = (0..6)
        .map(|_| Rc::new(ZObject::new(Cell::new(z(0.0)))))
        .collect();
    let zs = [2.0, -1.0, 2.0, 0.5, 7.0, 0.0].map(z);
    for (i, &v) in zs.iter().enumerate() {
        order.insert(i as u32, v).unwrap();
        objects[i].set(v);
        scene.add(&objects[i]).unwrap();
    }
    let expected: Vec<u32> = sorted_ids(&zs).into_iter().map(|i| i as u32).collect();
    traits(&order.back_to_front());
    traits(&order.front_to_back());
    traits(&order.iter());
    traits(&scene.back_to_front());
    traits(&scene.front_to_back());
    for front_steps in 0..=6 {
        let mut it = order.back_to_front();
        let mut seen_front: Vec<u32> = (&mut it).take(front_steps).collect();
        assert_eq!(it.len(), 6 - front_steps);
        let clone = it.clone();
        let mut seen_back: Vec<u32> = it.by_ref().rev().collect();
        seen_back.reverse();
        seen_front.extend(seen_back);
        assert_eq!(seen_front, expected);
        assert!(it.next().is_none() && it.next_back().is_none(), "fused");
        assert_eq!(
            clone.len(),
            6 - front_steps,
            "a clone walks on from the same place"
        );
    }
    let ids: Vec<usize> = scene
        .back_to_front()
        .map(|o| objects.iter().position(|h| Rc::ptr_eq(h, o)).unwrap())
        .collect();
    assert_eq!(ids, sorted_ids(&zs));
    assert!(format!("{:?}", order.back_to_front()).contains("remaining: 6"));
    assert!(format!("{:?}", scene.back_to_front()).contains("remaining: 6"));
}

/// `fold` and `rfold` take a run at a time; where the other end has
/// already taken part of the same run, or a range ends inside it, they
/// stop where they must. Where the other end has taken nothing and one
/// chain has nothing left, they go through the rest of the other, from
/// the middle of a run if the walk stopped there.
#[test]
fn point6_a_fold_stops_where_the_other_end_took_over() {
    let mut order = ZOrder::<u32>::new(3).unwrap();
    let mut scene = FixedPointZCollection::new(3).unwrap();
    // Few enough to share a block per level, and a few in the tree: below
    // the levels, between them and above them.
    let zs: Vec<I16F16> = (0..24)
        .map(|i| [z(1.0), z(2.0), z(1.5), z(1.0), z(3.0), z(3.5), z(-0.5)][i % 7])
        .collect();
    let objects: Vec<Obj> = zs
        .iter()
        .map(|&v| Rc::new(ZObject::new(Cell::new(v))))
        .collect();
    for (i, &v) in zs.iter().enumerate() {
        order.insert(i as u32, v).unwrap();
        scene.add(&objects[i]).unwrap();
    }
    let expected: Vec<u32> = sorted_ids(&zs).into_iter().map(|i| i as u32).collect();
    let id = |o: &Obj| objects.iter().position(|h| Rc::ptr_eq(h, o)).unwrap() as u32;
    // (Under Miri, every fifth count from each end.)
    let step = if cfg!(miri) { 5 } else { 1 };
    for front in (0..=zs.len()).step_by(step) {
        for back in (0..=zs.len() - front).step_by(step) {
            let middle = &expected[front..zs.len() - back];
            let mut keys = order.back_to_front();
            let mut handles = scene.back_to_front();
            for _ in 0..front {
                keys.next();
                handles.next();
            }
            for _ in 0..back {
                keys.next_back();
                handles.next_back();
            }
            let folded = |walk: &mut dyn FnMut(&mut Vec<u32>)| {
                let mut seen = Vec::new();
                walk(&mut seen);
                seen
            };
            let up = folded(&mut |seen| keys.clone().fold((), |(), k| seen.push(k)));
            let mut down = folded(&mut |seen| keys.clone().rfold((), |(), k| seen.push(k)));
            down.reverse();
            assert_eq!((up.as_slice(), down.as_slice()), (middle, middle));
            let up = folded(&mut |seen| handles.clone().for_each(|o| seen.push(id(o))));
            let mut down = folded(&mut |seen| handles.clone().rev().for_each(|o| seen.push(id(o))));
            down.reverse();
            assert_eq!((up.as_slice(), down.as_slice()), (middle, middle));
        }
    }
    // A range that ends inside a level's block, walked from either end.
    let inside: Vec<u32> = expected
        .iter()
        .copied()
        .filter(|&k| zs[k as usize] >= z(1.5) && zs[k as usize] <= z(2.0))
        .collect();
    let range = order.range(z(1.5)..=z(2.0));
    let mut from_back = range.clone();
    from_back.next_back();
    let mut up = Vec::new();
    from_back.fold((), |(), (k, _)| up.push(k));
    assert_eq!(up, inside[..inside.len() - 1]);
    let mut down = Vec::new();
    range.rfold((), |(), (k, _)| down.push(k));
    down.reverse();
    assert_eq!(down, inside);
}

/// A walk one end of which has moved, folded on from that end alone: all
/// that is left is the rest of one chain (several leaves of other Z
/// values, or several blocks of levels), from the middle of a run. And a
/// range open at one end, folded from its bounded end, from the middle of
/// a node.
#[test]
fn point6_a_fold_goes_on_from_where_its_own_end_stopped() {
    let n = if cfg!(miri) { 70 } else { 150 };
    let tree: Vec<I16F16> = (0..n).map(|i| bits(i * 977 % 4093 + 7)).collect();
    let levels: Vec<I16F16> = (0..n).map(|i| z(f64::from(i % 4))).collect();
    for zs in [tree, levels] {
        let mut order = ZOrder::<u32>::new(3).unwrap();
        for (i, &v) in zs.iter().enumerate() {
            order.insert(i as u32, v).unwrap();
        }
        let expected: Vec<u32> = sorted_ids(&zs).into_iter().map(|i| i as u32).collect();
        let step = if cfg!(miri) { 7 } else { 1 };
        for moved in (0..=zs.len()).step_by(step) {
            let mut up = order.back_to_front();
            let mut down = order.front_to_back();
            for _ in 0..moved {
                up.next();
                down.next();
            }
            let rest_up = up.fold(Vec::new(), |mut seen, k| {
                seen.push(k);
                seen
            });
            let mut rest_down = down.fold(Vec::new(), |mut seen, k| {
                seen.push(k);
                seen
            });
            rest_down.reverse();
            assert_eq!(rest_up, expected[moved..], "back to front after {moved}");
            assert_eq!(
                rest_down,
                expected[..zs.len() - moved],
                "front to back after {moved}"
            );
        }
        // A range open at one end starts inside a node: the fold takes
        // only the part of the node the range covers.
        let push = |mut seen: Vec<u32>, (k, _)| {
            seen.push(k);
            seen
        };
        for &bound in zs.iter().step_by(7) {
            let at = |keep: fn(I16F16, I16F16) -> bool| -> Vec<u32> {
                let kept = expected.iter().filter(|&&k| keep(zs[k as usize], bound));
                kept.copied().collect()
            };
            let up = order.range(bound..).fold(Vec::new(), push);
            let mut down = order.range(..=bound).rfold(Vec::new(), push);
            down.reverse();
            assert_eq!(up, at(|v, b| v >= b), "from {bound} up");
            assert_eq!(down, at(|v, b| v <= b), "from {bound} down");
        }
    }
}

#[test]
fn point6_nested_traversals_see_every_pair() {
    let mut order = ZOrder::<u32>::new(3).unwrap();
    for (key, v) in [
        (0, 1.0),
        (1, 0.5),
        (2, 3.0),
        (3, DEFAULT_Z.to_num::<f64>()),
        (4, -2.0),
    ] {
        order.insert(key, z(v)).unwrap();
    }
    let mut pairs = Vec::new();
    for a in order.back_to_front() {
        for b in order.front_to_back() {
            pairs.push((a, b));
        }
    }
    assert_eq!(pairs.len(), 25, "every ordered pair exactly once");
    pairs.sort_unstable();
    pairs.dedup();
    assert_eq!(pairs.len(), 25);
}

#[test]
fn point6_large_churned_collections_traverse_exactly_once_in_order() {
    let n: u32 = if cfg!(miri) { 150 } else { 40_000 };
    let mut order = ZOrder::<u32>::new(15).unwrap();
    let mut model = std::collections::BTreeMap::new();
    let mut seq = 0u64;
    let mut next = zorder_testkit::xorshift(0x9E37_79B9_7F4A_7C15);
    let mut key_z = vec![None; n as usize];
    for step in 0..n * 3 {
        let key = (next() % u64::from(n)) as u32;
        let r = next();
        let new_z = match r % 4 {
            0 => z((r >> 8) as f64 % 16.0).floor(),
            1 => bits(((r >> 8) % (20 << 16)) as i32 - (2 << 16)),
            2 => DEFAULT_Z,
            _ => bits(((r >> 8) % 64) as i32 * 4096),
        };
        seq += 1;
        if let Some((old_z, old_seq)) = key_z[key as usize].take() {
            model.remove(&(old_z, old_seq));
            if step % 5 == 0 {
                order.remove(key).unwrap();
                continue;
            }
            order.set_z(key, new_z).unwrap();
        } else {
            order.insert(key, new_z).unwrap();
        }
        model.insert((new_z, seq), key);
        key_z[key as usize] = Some((new_z, seq));
    }
    order.check_invariants();
    let expected: Vec<u32> = model.values().copied().collect();
    assert_eq!(order.back_to_front().collect::<Vec<_>>(), expected);
    let mut back: Vec<u32> = order.front_to_back().collect();
    back.reverse();
    assert_eq!(back, expected);
    let mut both = order.back_to_front();
    let (mut front, mut rear) = (Vec::new(), Vec::new());
    while let (Some(a), b) = (both.next(), both.next_back()) {
        front.push(a);
        rear.extend(b);
    }
    rear.reverse();
    front.extend(rear);
    assert_eq!(front, expected, "both ends, meeting in the middle");
}

// ---- Pruning ---------------------------------------------------------------

#[test]
fn empty_buckets_are_pruned_after_the_threshold_and_refills_restart_the_count() {
    for prune_after in [1, 2, 5] {
        let mut order = ZOrder::<u32>::with_prune_after(4, prune_after).unwrap();
        order.insert(0, z(0.5)).unwrap();
        order.insert(1, z(-3.0)).unwrap();
        order.insert(2, z(0.75)).unwrap();
        order.remove(0).unwrap();
        order.remove(2).unwrap();
        assert_eq!(order.nonoptimized_buckets(), 3);
        for _ in 0..prune_after {
            let _ = order.back_to_front();
            assert_eq!(
                order.nonoptimized_buckets(),
                3,
                "found empty, not pruned yet"
            );
        }
        // Refilled in time: 0.5 restarts its count; 0.75 goes at the next.
        order.insert(0, z(0.5)).unwrap();
        order.remove(0).unwrap();
        let _ = order.front_to_back();
        assert_eq!(order.nonoptimized_buckets(), 2, "0.75 pruned");
        for _ in 0..prune_after {
            assert_eq!(order.nonoptimized_buckets(), 2);
            let _ = order.iter();
        }
        assert_eq!(order.nonoptimized_buckets(), 1, "only -3 lives");
        order.check_invariants();
    }
}

#[test]
fn pruning_does_not_wait_for_other_traversals_to_end() {
    let mut scene = FixedPointZCollection::with_prune_after(4, 1).unwrap();
    let keep = Rc::new(ZObject::new(Cell::new(z(1.5))));
    let gone = Rc::new(ZObject::new(Cell::new(z(2.5))));
    scene.add(&keep).unwrap();
    scene.add(&gone).unwrap();
    scene.remove(&gone).unwrap();
    let outer = scene.back_to_front();
    let inner = scene.back_to_front();
    assert_eq!(
        scene.nonoptimized_buckets(),
        1,
        "two traversals: pruned at the second"
    );
    // Both walks are still alive, and walk on.
    assert_eq!(outer.count() + inner.count(), 2);
}

#[test]
#[cfg_attr(
    miri,
    ignore = "the cap binds only past 1,024 waiting buckets; the ledger is safe code"
)]
fn waiting_buckets_are_capped_by_the_live_ones_so_memory_stays_bounded() {
    // The contract's cap, as the model states it.
    let cap = zorder_testkit::model::MIN_CAP;
    let mut order = ZOrder::<u32>::new(4).unwrap();
    // No traversal at all: a replay, or a paused game that keeps spawning.
    // Three caps' worth, so the live buckets outnumber the cap for a
    // while.
    let n = 3 * cap as u32;
    for i in 0..n {
        order.insert(i, bits(-1 - i as i32)).unwrap();
    }
    for i in 0..n {
        order.remove(i).unwrap();
        let live = (n - 1 - i) as usize;
        // Every emptied bucket waits, up to max(1024, live buckets).
        let waiting = (i as usize + 1).min(cap.max(live));
        assert_eq!(
            order.nonoptimized_buckets(),
            live + waiting,
            "after {} removals",
            i + 1
        );
    }
    assert_eq!(order.nonoptimized_buckets(), cap);
    // Refilling a waiting bucket keeps it; one more emptied prunes the
    // longest-waiting.
    order.insert(0, bits(-1 - (n as i32 - 1))).unwrap();
    assert_eq!(order.nonoptimized_buckets(), cap);
    order.check_invariants();
    for _ in 0..9 {
        let _ = order.back_to_front();
    }
    assert_eq!(order.nonoptimized_buckets(), 1, "only the live one");
}

/// A bucket refilled while nothing waits unpruned keeps its pruned record
/// until that is reclaimed, and the Z's next wait is counted on its own,
/// through the old record's reclaiming.
#[test]
fn a_bucket_refilled_after_its_pruning_waits_again_as_a_new_one() {
    let mut order = ZOrder::<u32>::with_prune_after(4, 1).unwrap();
    let zs: Vec<I16F16> = (1..=10).map(|i| z(0.5 + f64::from(i))).collect();
    for (key, &at) in (1..).zip(&zs) {
        order.insert(key, at).unwrap();
    }
    for key in 1..=10 {
        order.remove(key).unwrap();
    }
    assert_eq!(order.nonoptimized_buckets(), 10, "all wait");
    for _ in 0..2 {
        let _ = order.back_to_front();
    }
    assert_eq!(order.nonoptimized_buckets(), 0, "all pruned");
    // Nothing waits: the refill of the newest record's Z looks nothing up,
    // and eight older records stay ahead of it to reclaim.
    order.insert(1, zs[9]).unwrap();
    order.remove(1).unwrap();
    assert_eq!(order.nonoptimized_buckets(), 1, "its Z waits again");
    // Changes that reclaim every old record, the refilled Z's included.
    for key in 20..26 {
        order.insert(key, z(0.25)).unwrap();
        order.remove(key).unwrap();
        order.check_invariants();
    }
    assert_eq!(order.nonoptimized_buckets(), 2, "two Z values wait");
    // Refilled while it waits: it stops waiting.
    order.insert(2, zs[9]).unwrap();
    assert_eq!(order.nonoptimized_buckets(), 2, "one live, one waits");
    for _ in 0..2 {
        let _ = order.back_to_front();
    }
    assert_eq!(order.nonoptimized_buckets(), 1, "the live one only");
    order.check_invariants();
}

/// Waves of deaths through batches, each after the last wave's buckets
/// were pruned: the batch that closes a wave's buckets reclaims every
/// pruned record at once, and the counts, refills included, are as one
/// record at a time would leave them.
#[test]
fn a_wave_of_deaths_after_the_last_was_pruned_counts_as_before() {
    let wave = if cfg!(miri) { 40 } else { 600 };
    let mut order = ZOrder::<u32>::with_prune_after(4, 1).unwrap();
    // Z values of wave `w`: its own, except the first ten, which every
    // wave shares.
    let at = |w: u32, i: u32| z(0.5 + f64::from(if i < 10 { i } else { w * 10_000 + i }));
    for w in 0..4 {
        let keys = w * wave..(w + 1) * wave;
        let applied = order.apply(keys.clone().map(|key| (key, Some(at(w, key - w * wave)))));
        assert_eq!(applied.inserted, wave as usize);
        order.check_invariants();
        assert_eq!(
            order.nonoptimized_buckets(),
            wave as usize,
            "wave {w} lives"
        );
        let applied = order.apply(keys.clone().map(|key| (key, None)));
        assert_eq!(applied.removed, wave as usize);
        assert_eq!(
            order.nonoptimized_buckets(),
            wave as usize,
            "wave {w} waits"
        );
        order.check_invariants();
        // A refill of a shared Z while it waits: it is live again.
        order.insert(u32::MAX, at(w, 3)).unwrap();
        assert_eq!(order.nonoptimized_buckets(), wave as usize, "wave {w}");
        for _ in 0..2 {
            let _ = order.back_to_front();
        }
        assert_eq!(order.nonoptimized_buckets(), 1, "wave {w} pruned");
        order.remove(u32::MAX).unwrap();
        assert_eq!(order.nonoptimized_buckets(), 1, "its bucket waits");
        for _ in 0..2 {
            let _ = order.back_to_front();
        }
        assert_eq!(order.nonoptimized_buckets(), 0, "all pruned");
        order.check_invariants();
    }
}

#[test]
fn clear_frees_every_bucket_and_keeps_the_collection_usable() {
    for mut c in every_z(3) {
        add_all(c.as_mut(), &[z(0.5), z(1.5), z(-1.0), z(2.0)]);
        assert_eq!(c.nonoptimized_buckets(), 3);
        c.clear();
        assert_eq!((c.len(), c.nonoptimized_buckets()), (0, 0));
        assert!(!c.contains(0));
        add_all(c.as_mut(), &[z(0.5), z(0.5)]);
        assert_eq!(c.b2f(), [0, 1]);
        assert_eq!(c.nonoptimized_buckets(), 1);
        c.check();
    }
}

/// Moving every object to another collection (a scene switch) keeps the
/// order of the moved ones, ties included, and puts them in front of the
/// target's objects of equal Z, as adds in back-to-front order would; a
/// target that refuses one of the Z values moves nothing.
#[test]
fn append_moves_back_to_front_keeping_ties_or_moves_nothing() {
    let object = |v: f64| -> Obj { Rc::new(ZObject::new(Cell::new(z(v)))) };
    let (p, x, y, w, f) = (
        object(1.0),
        object(1.0),
        object(1.0),
        object(0.0),
        object(2.5),
    );
    let mut from = FixedPointZCollection::new(10).unwrap();
    for o in [&x, &w, &y, &f] {
        from.add(o).unwrap();
    }
    from.change(&x).unwrap(); // x after y among the ties
    let mut to = SimpleZCollection::new(10).unwrap();
    to.add(&p).unwrap();
    let order = |c: &dyn ZCollection<Sprite>| -> Vec<*const ZObject<Sprite>> {
        c.back_to_front().map(Rc::as_ptr).collect()
    };
    let ptrs = |objects: &[&Obj]| -> Vec<*const ZObject<Sprite>> {
        objects.iter().map(|o| Rc::as_ptr(o)).collect()
    };

    // 2.5 is no level: the simple collection refuses it, and nothing moves.
    let (before_from, before_to) = (order(&from), order(&to));
    assert!(matches!(
        to.append(&mut from),
        Err(ZError::ZOutOfRange { .. })
    ));
    assert_eq!((order(&from), order(&to)), (before_from, before_to));
    from.check_invariants();
    to.check_invariants();

    // Without it, everything moves, back to front.
    from.remove(&f).unwrap();
    to.append(&mut from).unwrap();
    assert!(from.is_empty());
    assert_eq!(order(&to), ptrs(&[&w, &p, &y, &x]));
    assert_eq!(to.z_of(&x), Some(z(1.0)));
    to.check_invariants();

    // And back into a fixed-point collection holding a fraction and a tie.
    let g = object(0.5);
    let q = object(1.0);
    for o in [&g, &q] {
        from.add(o).unwrap();
    }
    from.append(&mut to).unwrap();
    assert_eq!(order(&from), ptrs(&[&w, &g, &q, &p, &y, &x]));
    from.check_invariants();
}

/// `ZObject` derefs to the user's value and has no methods of its own
/// (only associated functions, as `Rc` has), so a user type's methods of
/// the same names are the ones a call reaches.
#[test]
fn a_user_types_methods_are_not_shadowed_by_zobjects() {
    struct Sprite;
    impl Sprite {
        fn ptr_eq(&self, _: &Sprite) -> &'static str {
            "sprite ptr_eq"
        }
        fn is_in_collection(&self) -> &'static str {
            "sprite is_in_collection"
        }
        #[expect(
            clippy::wrong_self_convention,
            reason = "the name ZObject::into_inner has is the point"
        )]
        fn into_inner(&self) -> &'static str {
            "sprite into_inner"
        }
    }
    impl zorder::ZSortable for Sprite {
        fn z_order(&self) -> I16F16 {
            I16F16::ZERO
        }
    }
    let sprite = Rc::new(ZObject::new(Sprite));
    let mut scene = FixedPointZCollection::new(1).unwrap();
    scene.add(&sprite).unwrap();
    assert_eq!(sprite.ptr_eq(&Sprite), "sprite ptr_eq");
    assert_eq!(sprite.is_in_collection(), "sprite is_in_collection");
    assert_eq!(sprite.into_inner(), "sprite into_inner");
    // The crate's own are reached as associated functions.
    assert!(ZObject::is_in_collection(&sprite));
    assert!(ZObject::ptr_eq(&sprite, &sprite));
}
