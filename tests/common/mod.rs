//! Shared by the integration tests, the quickcheck properties and the fuzz
//! targets (which include this file by path): a model of the ordering
//! contract that is correct by definition, and a harness that drives real
//! collections and the model side by side, checking them after every step.
//!
//! The model is the one in CONTRACT.md: each object in a collection maps to
//! `(z, seq)`, a global `seq` is bumped on every successful add or change,
//! and back to front is ascending `(z, seq)`.

#![allow(dead_code)] // each test crate uses a different part

use std::cell::Cell;
use std::collections::{BTreeMap, BTreeSet, HashMap};
use std::hash::{BuildHasherDefault, Hasher};
use std::rc::Rc;

use zorder::{
    DEFAULT_Z, FixedPointZCollection, I16F16, SimpleZCollection, Visit, ZCollection, ZError,
    ZObject,
};

pub type Obj = Rc<ZObject<Cell<I16F16>>>;

pub fn obj(z: I16F16) -> Obj {
    Rc::new(ZObject::new(Cell::new(z)))
}

pub fn z(v: f64) -> I16F16 {
    I16F16::from_num(v)
}

/// Which collection, and its settings.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Kind {
    Fixed { max_level: u16, prune_after: u32 },
    Simple { max_level: u16 },
}

impl Kind {
    pub fn max_level(self) -> u16 {
        match self {
            Kind::Fixed { max_level, .. } | Kind::Simple { max_level } => max_level,
        }
    }

    pub fn build(self) -> Box<dyn ZCollection<Cell<I16F16>>> {
        match self {
            Kind::Fixed {
                max_level,
                prune_after,
            } => Box::new(FixedPointZCollection::with_prune_after(max_level, prune_after).unwrap()),
            Kind::Simple { max_level } => Box::new(SimpleZCollection::new(max_level).unwrap()),
        }
    }

    /// Whether `z` is an optimized level (or, for the simple collection, a
    /// legal Z at all).
    pub fn is_optimized(self, z: I16F16) -> bool {
        z.frac() == 0 && z >= 0 && z <= i32::from(self.max_level())
    }
}

/// The contract, by definition.
#[derive(Debug, Clone)]
pub struct ModelCollection {
    pub kind: Kind,
    /// object -> (z, seq of its last add/change)
    pub members: BTreeMap<usize, (I16F16, u64)>,
    /// The same pairs, ordered: back to front is this set's order. (Kept
    /// beside `members` so the harness need not sort after every step.)
    order: BTreeSet<((I16F16, u64), usize)>,
    /// Live objects per Z that needs a non-optimized bucket.
    nonoptimized: BTreeMap<I16F16, usize>,
}

impl ModelCollection {
    fn new(kind: Kind) -> Self {
        ModelCollection {
            kind,
            members: BTreeMap::new(),
            order: BTreeSet::new(),
            nonoptimized: BTreeMap::new(),
        }
    }

    pub fn back_to_front(&self) -> Vec<usize> {
        self.order.iter().map(|&(_, id)| id).collect()
    }

    /// Distinct Z values among live objects that need a non-optimized bucket.
    pub fn distinct_nonoptimized(&self) -> usize {
        self.nonoptimized.len()
    }

    fn needs_nonoptimized_bucket(&self, z: I16F16) -> bool {
        z != DEFAULT_Z && !self.kind.is_optimized(z)
    }

    fn insert(&mut self, id: usize, key: (I16F16, u64)) {
        self.remove(id);
        self.members.insert(id, key);
        self.order.insert((key, id));
        if self.needs_nonoptimized_bucket(key.0) {
            *self.nonoptimized.entry(key.0).or_default() += 1;
        }
    }

    fn remove(&mut self, id: usize) {
        let Some(key) = self.members.remove(&id) else {
            return;
        };
        self.order.remove(&(key, id));
        if self.needs_nonoptimized_bucket(key.0) {
            let count = self.nonoptimized.get_mut(&key.0).expect("counted");
            *count -= 1;
            if *count == 0 {
                self.nonoptimized.remove(&key.0);
            }
        }
    }

    fn clear(&mut self) -> Vec<usize> {
        let ids = std::mem::take(&mut self.members).into_keys().collect();
        self.order.clear();
        self.nonoptimized.clear();
        ids
    }
}

/// Several collections sharing one pool of objects.
#[derive(Debug, Clone)]
pub struct Model {
    pub collections: Vec<ModelCollection>,
    /// object -> the collection it is in
    pub home: BTreeMap<usize, usize>,
    seq: u64,
}

impl Model {
    pub fn new(kinds: &[Kind]) -> Self {
        Model {
            collections: kinds
                .iter()
                .map(|&kind| ModelCollection::new(kind))
                .collect(),
            home: BTreeMap::new(),
            seq: 0,
        }
    }

    fn check_z(&self, c: usize, z: I16F16) -> Result<(), ZError> {
        match self.collections[c].kind {
            Kind::Simple { max_level } if !self.collections[c].kind.is_optimized(z) => {
                Err(ZError::ZOutOfRange { z, max_level })
            }
            _ => Ok(()),
        }
    }

    fn file(&mut self, c: usize, id: usize, z: I16F16) {
        self.seq += 1;
        self.collections[c].insert(id, (z, self.seq));
        self.home.insert(id, c);
    }

    pub fn add(&mut self, c: usize, id: usize, z: I16F16) -> Result<(), ZError> {
        if self.home.contains_key(&id) {
            return Err(ZError::AlreadyInCollection);
        }
        self.check_z(c, z)?;
        self.file(c, id, z);
        Ok(())
    }

    pub fn change(&mut self, c: usize, id: usize, z: I16F16) -> Result<(), ZError> {
        if self.home.get(&id) != Some(&c) {
            return Err(ZError::NotInCollection);
        }
        self.check_z(c, z)?;
        self.file(c, id, z);
        Ok(())
    }

    pub fn remove(&mut self, c: usize, id: usize) -> Result<(), ZError> {
        if self.home.get(&id) != Some(&c) {
            return Err(ZError::NotInCollection);
        }
        self.collections[c].remove(id);
        self.home.remove(&id);
        Ok(())
    }

    pub fn clear(&mut self, c: usize) {
        for id in self.collections[c].clear() {
            self.home.remove(&id);
        }
    }
}

/// One step of a scenario.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Op {
    /// Set object `obj`'s Z, then add it to collection `c`.
    Add {
        c: usize,
        obj: usize,
        z: I16F16,
    },
    /// Set object `obj`'s Z, then change it in collection `c`.
    Change {
        c: usize,
        obj: usize,
        z: I16F16,
    },
    Remove {
        c: usize,
        obj: usize,
    },
    BackToFront {
        c: usize,
    },
    FrontToBack {
        c: usize,
    },
    /// A traversal consumed from both ends at once, meeting in the middle.
    BothEnds {
        c: usize,
    },
    /// Nested traversals: every ordered pair, as a collision check does.
    Pairs {
        c: usize,
    },
    Clear {
        c: usize,
    },
    /// `update`: each visited object is kept, removed or moved to `z`,
    /// decided by its position in the walk.
    Update {
        c: usize,
        pattern: u8,
        z: I16F16,
    },
}

/// Object indices by address.
type Ids = HashMap<*const ZObject<Cell<I16F16>>, usize, BuildHasherDefault<AddressHasher>>;

/// Hashes an address with one multiplication: the harness names every
/// object each traversal yields, and SipHash cost more than the rest of a
/// fuzz step.
#[derive(Default)]
struct AddressHasher(u64);

impl Hasher for AddressHasher {
    fn finish(&self) -> u64 {
        self.0
    }

    fn write(&mut self, bytes: &[u8]) {
        // Not reached for pointer keys (they hash through `write_usize`);
        // each byte is mixed into the state like a word.
        for &byte in bytes {
            self.write_usize(usize::from(byte));
        }
    }

    fn write_usize(&mut self, n: usize) {
        // Fibonacci hashing; the high half is folded down, since the table
        // indexes by the low bits and addresses end in zero bits.
        let product = (n as u64 ^ self.0).wrapping_mul(0x9E37_79B9_7F4A_7C15);
        self.0 = product ^ (product >> 32);
    }
}

/// Real collections and the model, run side by side.
pub struct Harness {
    pub collections: Vec<Box<dyn ZCollection<Cell<I16F16>>>>,
    pub objects: Vec<Obj>,
    /// Each object's index in `objects`, by address, so naming what a
    /// traversal yields is O(1) rather than a search of every handle.
    ids: Ids,
    pub model: Model,
    /// Plain traversals since the last successful mutation, per collection.
    quiet_traversals: Vec<u32>,
    /// Whether every step ends by walking the collection both ways and
    /// comparing with the model (each walk counts toward pruning, as any
    /// traversal does). Without it, orders are checked at traversal steps.
    check_order: bool,
}

impl Harness {
    pub fn new(kinds: &[Kind], objects: usize) -> Self {
        let objects: Vec<Obj> = (0..objects).map(|_| obj(DEFAULT_Z)).collect();
        Harness {
            collections: kinds.iter().map(|k| k.build()).collect(),
            ids: objects
                .iter()
                .enumerate()
                .map(|(id, object)| (Rc::as_ptr(object), id))
                .collect(),
            objects,
            model: Model::new(kinds),
            quiet_traversals: vec![0; kinds.len()],
            check_order: false,
        }
    }

    /// The same, checking both orders after every step.
    pub fn checking_order(kinds: &[Kind], objects: usize) -> Self {
        Harness {
            check_order: true,
            ..Harness::new(kinds, objects)
        }
    }

    /// Applies `op` to both and checks everything observable. Panics with a
    /// description on the first difference.
    pub fn step(&mut self, op: Op) {
        let c = match op {
            Op::Add { c, .. }
            | Op::Change { c, .. }
            | Op::Remove { c, .. }
            | Op::BackToFront { c }
            | Op::FrontToBack { c }
            | Op::BothEnds { c }
            | Op::Pairs { c }
            | Op::Clear { c }
            | Op::Update { c, .. } => c % self.collections.len(),
        };
        let objects = self.objects.len();
        let mut mutated = false;
        match op {
            Op::Add { obj, z, .. } => {
                let id = obj % objects;
                mutated = self.z_action(op, c, id, z, |real, o| real.add(o), Model::add);
            }
            Op::Change { obj, z, .. } => {
                let id = obj % objects;
                mutated = self.z_action(op, c, id, z, |real, o| real.change(o), Model::change);
            }
            Op::Remove { obj, .. } => {
                let id = obj % objects;
                let real = self.collections[c].remove(&self.objects[id]);
                assert_eq!(real, self.model.remove(c, id), "{op:?}");
                mutated = real.is_ok();
            }
            Op::BackToFront { .. } => {
                let real = self.ids(self.collections[c].back_to_front());
                assert_eq!(real, self.model.collections[c].back_to_front(), "{op:?}");
            }
            Op::FrontToBack { .. } => {
                let real = self.ids(self.collections[c].front_to_back());
                let mut expected = self.model.collections[c].back_to_front();
                expected.reverse();
                assert_eq!(real, expected, "{op:?}");
            }
            Op::BothEnds { .. } => {
                let expected = self.model.collections[c].back_to_front();
                let mut it = self.collections[c].back_to_front();
                let (mut front, mut back) = (Vec::new(), Vec::new());
                loop {
                    assert_eq!(it.len(), expected.len() - front.len() - back.len());
                    if front.len() == 1 {
                        // A clone taken midway walks on from the same place,
                        // from either end.
                        let rest = &expected[front.len()..expected.len() - back.len()];
                        assert_eq!(self.ids(it.clone()), rest, "a clone");
                        let mut reversed = self.ids(it.clone().rev());
                        reversed.reverse();
                        assert_eq!(reversed, rest, "a clone, from the front");
                    }
                    let Some(o) = it.next() else { break };
                    front.push(self.id_of(o));
                    let Some(o) = it.next_back() else { break };
                    back.push(self.id_of(o));
                }
                assert!(it.next().is_none() && it.next_back().is_none(), "fused");
                back.reverse();
                front.extend(back);
                assert_eq!(front, expected, "{op:?}");
            }
            Op::Pairs { .. } => {
                let expected = self.model.collections[c].back_to_front();
                let collection = &self.collections[c];
                let mut pairs = 0;
                for (i, a) in collection.back_to_front().enumerate() {
                    assert_eq!(self.id_of(a), expected[i]);
                    for (j, b) in collection.front_to_back().enumerate() {
                        assert_eq!(self.id_of(b), expected[expected.len() - 1 - j]);
                        pairs += 1;
                    }
                }
                assert_eq!(pairs, expected.len() * expected.len(), "{op:?}");
            }
            Op::Clear { .. } => {
                self.collections[c].clear();
                self.model.clear(c);
                mutated = true;
            }
            Op::Update { pattern, z, .. } => {
                let order = self.model.collections[c].back_to_front();
                let mut visited = Vec::new();
                let ids = &self.ids;
                let updated = self.collections[c].update(&mut |o| {
                    let id = id_of(ids, o);
                    visited.push(id);
                    match (pattern >> (visited.len() % 4 * 2)) & 3 {
                        0 | 3 => Visit::Keep,
                        1 => Visit::Remove,
                        _ => {
                            o.set(z);
                            Visit::Change
                        }
                    }
                });
                assert_eq!(visited, order, "update visits back to front, once each");
                let mut expected = zorder::Updated::default();
                for (i, &id) in order.iter().enumerate() {
                    match (pattern >> ((i + 1) % 4 * 2)) & 3 {
                        0 | 3 => {}
                        1 => {
                            self.model.remove(c, id).unwrap();
                            expected.removed += 1;
                        }
                        _ => match self.model.change(c, id, z) {
                            Ok(()) => expected.changed += 1,
                            Err(_) => expected.refused += 1,
                        },
                    }
                }
                assert_eq!(updated, expected, "{op:?}");
                mutated = expected != zorder::Updated::default();
            }
        }
        if mutated {
            self.quiet_traversals[c] = 0;
        } else if matches!(
            op,
            Op::BackToFront { .. }
                | Op::FrontToBack { .. }
                | Op::BothEnds { .. }
                | Op::Pairs { .. }
        ) {
            self.quiet_traversals[c] += 1;
        }
        if self.check_order {
            let expected = self.model.collections[c].back_to_front();
            let real = self.ids(self.collections[c].back_to_front());
            assert_eq!(real, expected, "back to front after {op:?}");
            let mut real = self.ids(self.collections[c].front_to_back());
            real.reverse();
            assert_eq!(real, expected, "front to back after {op:?}");
            self.quiet_traversals[c] += 2;
        }
        self.check(c);
    }

    /// Sets object `id`'s Z and runs a Z-action on collection `c` and on the
    /// model; they must agree. A refused action puts the Z back. Returns
    /// whether the action succeeded.
    fn z_action(
        &mut self,
        op: Op,
        c: usize,
        id: usize,
        z: I16F16,
        real: impl FnOnce(&mut dyn ZCollection<Cell<I16F16>>, &Obj) -> Result<(), ZError>,
        model: impl FnOnce(&mut Model, usize, usize, I16F16) -> Result<(), ZError>,
    ) -> bool {
        let before = self.objects[id].replace(z);
        let outcome = real(self.collections[c].as_mut(), &self.objects[id]);
        assert_eq!(outcome, model(&mut self.model, c, id, z), "{op:?}");
        if outcome.is_err() {
            self.objects[id].set(before);
        }
        outcome.is_ok()
    }

    /// Everything observable of collection `c` agrees with the model.
    pub fn check(&self, c: usize) {
        let real = &self.collections[c];
        let model = &self.model.collections[c];
        assert_eq!(real.len(), model.members.len(), "len");
        assert_eq!(real.is_empty(), model.members.is_empty(), "is_empty");
        for (id, object) in self.objects.iter().enumerate() {
            let home = self.model.home.get(&id).copied();
            assert_eq!(
                real.contains(object),
                home == Some(c),
                "contains object {id}"
            );
            assert_eq!(
                object.is_in_collection(),
                home.is_some(),
                "is_in_collection {id}"
            );
        }
        let live = model.distinct_nonoptimized();
        let buckets = real.nonoptimized_buckets();
        match model.kind {
            Kind::Simple { .. } => assert_eq!(buckets, 0),
            Kind::Fixed { prune_after, .. } => {
                assert!(
                    buckets >= live,
                    "{buckets} buckets for {live} live Z values"
                );
                if self.quiet_traversals[c] > prune_after {
                    assert_eq!(
                        buckets, live,
                        "after {} quiet traversals (prune after {prune_after})",
                        self.quiet_traversals[c]
                    );
                }
            }
        }
    }

    fn id_of(&self, object: &ZObject<Cell<I16F16>>) -> usize {
        id_of(&self.ids, object)
    }

    fn ids<'a>(&self, objects: impl Iterator<Item = &'a ZObject<Cell<I16F16>>>) -> Vec<usize> {
        objects.map(|o| self.id_of(o)).collect()
    }

    /// Drops the collections and checks every handle is the test's own again.
    pub fn finish(self) {
        let Harness {
            collections,
            objects,
            ..
        } = self;
        drop(collections);
        for (id, object) in objects.iter().enumerate() {
            assert_eq!(Rc::strong_count(object), 1, "object {id} leaked a handle");
            assert!(
                !object.is_in_collection(),
                "object {id} still thinks it is filed"
            );
        }
    }
}

/// The index of `object` among the harness's objects.
fn id_of(ids: &Ids, object: &ZObject<Cell<I16F16>>) -> usize {
    *ids.get(&std::ptr::from_ref(object))
        .expect("a traversal yields only known objects")
}
