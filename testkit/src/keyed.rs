//! The harness for the keyed collection: real [`ZOrder`]s of generational
//! keys and the model, run side by side.

use std::collections::HashMap;
use std::ops::ControlFlow::{Break, Continue};

use zorder::{FixedPoint, I16F16, KeyVisit, Simple, ZError, ZKey, ZOrder};

use crate::model::{Layout, Model, ModelCollection};
use crate::ops::{Batch, Indices, Op, Scenario};
use crate::{PRINTED, Shown, check_mixed, check_nested, effect, valid_layout};

/// A generational key, as `slotmap` and ECS entities have, of any index.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub struct Key {
    /// The storage slot.
    pub index: u64,
    /// Which use of the slot.
    pub generation: u32,
}

impl ZKey for Key {
    fn index(&self) -> usize {
        self.index.index()
    }
}

/// A keyed collection of either layout.
#[derive(Debug)]
pub enum AnyOrder {
    /// Every Z.
    Fixed(ZOrder<Key, FixedPoint>),
    /// The levels only.
    Simple(ZOrder<Key, Simple>),
}

/// Runs `$body` with `$order` bound to the collection inside `$any`, of
/// whichever layout (the methods are the same, the types differ).
macro_rules! on {
    ($any:expr, $order:ident => $body:expr) => {
        match $any {
            AnyOrder::Fixed($order) => $body,
            AnyOrder::Simple($order) => $body,
        }
    };
}

/// Real keyed collections and the model.
#[derive(Debug)]
pub struct KeyedHarness {
    orders: Vec<AnyOrder>,
    model: Model,
    /// The current generation of each entry's slot.
    generation: Vec<u32>,
    /// The generation each collection holds for each entry (valid while
    /// the model says it holds the entry).
    held: Vec<Vec<u32>>,
    /// Entries whose next operation uses the previous generation.
    stale: Vec<bool>,
    /// Where the keys lie.
    indices: Indices,
    check_every_step: bool,
    shown: Shown,
}

impl KeyedHarness {
    /// Collections of these layouts (each made valid: the constructors'
    /// refusals of invalid settings are checked first), `objects` keys
    /// whose indices lie as `indices` says.
    pub fn new(
        layouts: &[Layout],
        objects: usize,
        indices: Indices,
        check_every_step: bool,
    ) -> Self {
        let layouts: Vec<Layout> = layouts.iter().map(|&l| valid_layout(l, build)).collect();
        KeyedHarness {
            orders: layouts
                .iter()
                .map(|&l| build(l).expect("a valid layout"))
                .collect(),
            held: vec![vec![0; objects]; layouts.len()],
            model: Model::new(&layouts, false),
            generation: vec![0; objects],
            stale: vec![false; objects],
            indices,
            check_every_step,
            shown: Shown::default(),
        }
    }

    /// Runs a whole scenario, checking as it goes and at the end.
    pub fn run(scenario: &Scenario) {
        let mut harness = KeyedHarness::new(
            &scenario.layouts,
            scenario.objects,
            scenario.indices,
            scenario.check_every_step,
        );
        for &op in &scenario.ops {
            harness.step(op);
        }
        for c in 0..harness.orders.len() {
            harness.check_all(c);
        }
    }

    /// The key an operation on entry `id` uses.
    fn key(&mut self, id: usize) -> Key {
        let stale = std::mem::take(&mut self.stale[id]);
        let generation = self.generation[id];
        Key {
            index: self.indices.index(id),
            generation: if stale {
                generation.wrapping_sub(1)
            } else {
                generation
            },
        }
    }

    /// What the model answers for key `key` of entry `id` in collection
    /// `c`: `None` if the key is the one held (or none is held), else the
    /// error a stale key gets.
    fn stale_error(&self, c: usize, id: usize, key: Key, inserting: bool) -> Option<ZError> {
        let holds = self.model.collections[c].contains(id);
        if !holds || self.held[c][id] == key.generation {
            return None;
        }
        Some(if inserting {
            ZError::IndexInUse { index: key.index() }
        } else {
            ZError::NotInCollection
        })
    }

    /// Applies `op` to the collections and the model, and checks that they
    /// agree.
    pub fn step(&mut self, op: Op) {
        let touched = if op.entry().is_some() {
            Some(self.on_key(op))
        } else {
            self.whole(op);
            None
        };
        if self.check_every_step {
            for c in 0..self.orders.len() {
                self.check_orders(c);
                self.check_all(c);
            }
        } else if let Some((c, id)) = touched {
            self.check_entry(c, id);
        }
    }

    /// The operations on one key. Returns the collection and the entry.
    /// Out of line: `step` runs for every operation, and a small frame is
    /// cheaper under AddressSanitizer, which gives each frame a fake stack
    /// of its size.
    #[inline(never)]
    fn on_key(&mut self, op: Op) -> (usize, usize) {
        let (c, obj) = op.entry().expect("an operation on a key");
        let (c, id) = (c % self.orders.len(), obj % self.generation.len());
        let key = self.key(id);
        // What the key gets if it is stale: inserting it, and anything else.
        let (stale_insert, stale) = (
            self.stale_error(c, id, key, true),
            self.stale_error(c, id, key, false),
        );
        let filed = match op {
            Op::Add { z, .. } => {
                let real = on!(&mut self.orders[c], o => o.insert(key, z));
                self.agree(op, real, stale_insert, |model| model.add(c, id, z))
            }
            Op::Change { z, .. } => {
                let real = on!(&mut self.orders[c], o => o.set_z(key, z));
                self.agree(op, real, stale, |model| model.change(c, id, z));
                false
            }
            Op::Refile { .. } => {
                let real = on!(&mut self.orders[c], o => o.refile(key));
                self.agree(op, real, stale, |model| {
                    let z = model.collections[c].z_of(id);
                    model.change(c, id, z.ok_or(ZError::NotInCollection)?)
                });
                false
            }
            Op::Remove { .. } => {
                let real = on!(&mut self.orders[c], o => o.remove(key));
                self.agree(op, real, stale, |model| model.remove(c, id));
                false
            }
            Op::Upsert { z, .. } => {
                let real = on!(&mut self.orders[c], o => o.insert_or_set_z(key, z));
                self.agree(op, real, stale_insert, |model| model.upsert(c, id, z))
            }
            Op::ChangeIfNew { z, .. } => {
                // `None`: the Z the entry has (if held; else any).
                let z = (z.or(self.model.collections[c].z_of(id))).unwrap_or(I16F16::ZERO);
                let real = on!(&mut self.orders[c], o => o.set_z_if_changed(key, z));
                self.agree(op, real, stale, |model| model.change_if_new(c, id, z));
                false
            }
            Op::Replace { z, .. } => {
                let real = on!(&mut self.orders[c], o => o.replace(key, z));
                let expected = self.replace_in_model(c, id, key, z);
                self.agree(op, real, None, |_| expected)
            }
            _ => unreachable!(),
        };
        if filed {
            self.held[c][id] = key.generation;
        }
        (c, id)
    }

    /// Checks the result of a key operation against the model's answer:
    /// the error `stale`, if the key is stale, else what `model` says (and
    /// does). Returns whether the operation succeeded.
    fn agree<T: PartialEq + std::fmt::Debug>(
        &mut self,
        op: Op,
        real: Result<T, ZError>,
        stale: Option<ZError>,
        model: impl FnOnce(&mut Model) -> Result<T, ZError>,
    ) -> bool {
        let expected = match stale {
            Some(error) => Err(error),
            None => model(&mut self.model),
        };
        assert_eq!(real, expected, "{op:?}");
        self.shown.check(&real);
        real.is_ok()
    }

    /// What `replace(key, z)` does to entry `id` of collection `c`, in
    /// the model: whatever key holds the index goes (the key itself is
    /// re-filed), then `key` is filed.
    fn replace_in_model(
        &mut self,
        c: usize,
        id: usize,
        key: Key,
        z: I16F16,
    ) -> Result<Option<(Key, I16F16)>, ZError> {
        self.model.collections[c].layout.accepts(z)?;
        let old = (self.model.collections[c].z_of(id)).map(|old| (self.held_key(c, id), old));
        match old {
            Some((held, _)) if held == key => self.model.change(c, id, z)?,
            Some(_) => {
                self.model.remove(c, id)?;
                self.model.add(c, id, z)?;
            }
            None => self.model.add(c, id, z)?,
        }
        Ok(old)
    }

    /// The operations on a whole collection, and those on the keys
    /// themselves. Out of line: `step` runs for every operation, and a
    /// small frame is cheaper under AddressSanitizer, which gives each
    /// frame a fake stack of its size.
    #[inline(never)]
    fn whole(&mut self, op: Op) {
        let n = self.orders.len();
        let objects = self.generation.len();
        match op {
            Op::Add { .. }
            | Op::Change { .. }
            | Op::Refile { .. }
            | Op::Remove { .. }
            | Op::Upsert { .. }
            | Op::ChangeIfNew { .. }
            | Op::Replace { .. } => unreachable!("`on_key` runs {op:?}"),
            Op::BackToFront { c } => {
                let c = c % n;
                self.model.collections[c].tick();
                let real: Vec<Key> = on!(&self.orders[c], o => o.back_to_front().collect());
                assert_eq!(real, self.expected_keys(c), "{op:?}");
            }
            Op::FrontToBack { c } => {
                let c = c % n;
                self.model.collections[c].tick();
                // Through `rfold`, the internal iteration `for_each` uses.
                let mut real: Vec<(Key, I16F16)> = Vec::new();
                on!(&self.orders[c], o => o.iter().rev().for_each(|pair| real.push(pair)));
                real.reverse();
                assert_eq!(real, self.expected_pairs(c), "{op:?}");
            }
            Op::BothEnds { c } => {
                // Keys or pairs, by the parity of the length, so that inputs
                // reach both walks and each op pays for one.
                let c = c % n;
                self.model.collections[c].tick();
                let pairs = self.expected_pairs(c);
                if pairs.len() % 2 == 0 {
                    on!(&self.orders[c], o => crate::check_both_ends(o.iter(), &pairs));
                } else {
                    let keys: Vec<Key> = pairs.into_iter().map(|(key, _)| key).collect();
                    on!(&self.orders[c], o => crate::check_both_ends(o.back_to_front(), &keys));
                }
            }
            Op::Pairs { c } => {
                let c = c % n;
                let expected = self.expected_keys(c);
                let walks = on!(&self.orders[c], order => check_nested(
                    order.back_to_front(),
                    || order.front_to_back(),
                    &expected
                ));
                for _ in 0..walks {
                    self.model.collections[c].tick();
                }
            }
            Op::Clear { c } => {
                let c = c % n;
                on!(&mut self.orders[c], o => o.clear());
                self.model.clear(c);
            }
            Op::Drain { c, how } => {
                // The keys are gone when `drain` returns, even if the
                // iterator goes before its end.
                let c = c % n;
                let expected = self.expected_pairs(c);
                let stop = (how >= 0x80).then_some(expected.len() / 2);
                on!(&mut self.orders[c], o => {
                    check_mixed(o.drain(), &expected, how, stop, true);
                    assert!(o.is_empty(), "{op:?}");
                });
                self.model.clear(c);
            }
            Op::Append { from, to } => {
                let (from, to) = (from % n, to % n);
                if from != to {
                    // The keyed way: extend one from the other's drain.
                    let pairs = self.expected_pairs(from);
                    let drained: Vec<(Key, I16F16)> =
                        on!(&mut self.orders[from], o => o.drain().collect());
                    assert_eq!(drained, pairs, "{op:?}");
                    self.model.clear(from);
                    on!(&mut self.orders[to], o => o.extend(drained.iter().copied()));
                    // One batch: keys whose index another generation holds
                    // in `to` are skipped.
                    let mut steps = Vec::new();
                    for (key, z) in drained {
                        let id = self.indices.id(key.index);
                        if self.stale_error(to, id, key, true).is_none() {
                            steps.push((id, Some(z)));
                            if self.model.collections[to].layout.accepts(z).is_ok() {
                                self.held[to][id] = key.generation;
                            }
                        }
                    }
                    self.model.apply(to, &steps);
                }
            }
            Op::Update {
                c,
                pattern,
                z,
                front_to_back,
                stop,
            } => self.update(c % n, pattern, z, front_to_back, stop),
            Op::Inspect { c, what } => self.inspect(c % n, what),
            Op::NewGeneration { obj } => {
                let id = obj % objects;
                self.generation[id] = self.generation[id].wrapping_add(1);
            }
            Op::Stale { obj } => self.stale[obj % objects] = true,
            Op::OnZOrder { .. } | Op::OnDrop { .. } | Op::Orphan { .. } => {}
            Op::Range { c, start, end, how } => {
                // A lookup: no tick.
                let c = c % n;
                let expected: Vec<(Key, I16F16)> = (self.model.collections[c].range((start, end)))
                    .map(|(id, z)| (self.held_key(c, id), z))
                    .collect();
                on!(&self.orders[c], o => {
                    check_mixed(o.range((start, end)), &expected, how, None, false);
                    // A clone taken after a step from each end goes on
                    // from there. (With fewer than two entries, not: the
                    // library bug `check_mixed` names.)
                    if expected.len() >= 2 {
                        let mut walk = o.range((start, end));
                        let (_, _) = (walk.next(), walk.next_back());
                        let middle = &expected[1..expected.len() - 1];
                        assert_eq!(walk.clone().collect::<Vec<_>>(), middle, "a clone of a range");
                    }
                });
            }
            Op::Ends { c } => {
                let c = c % n;
                let model = &self.model.collections[c];
                let first = model.first().map(|(id, z)| (self.held_key(c, id), z));
                let last = model.last().map(|(id, z)| (self.held_key(c, id), z));
                on!(&self.orders[c], o => assert_eq!((o.first(), o.last()), (first, last), "{op:?}"));
            }
            Op::CloneEq { c, to } => self.clone_eq(c % n, to % n),
            Op::Batch(batch) => self.batch(batch),
        }
    }

    /// Clones collection `c` into slot `to`, and checks `==` and
    /// `FromIterator`.
    #[inline(never)]
    fn clone_eq(&mut self, c: usize, to: usize) {
        let clone = match &self.orders[c] {
            AnyOrder::Fixed(o) => AnyOrder::Fixed(o.clone()),
            AnyOrder::Simple(o) => AnyOrder::Simple(o.clone()),
        };
        // Collected from the pairs of a walk (a traversal) into a default
        // collection, levels 0..=255: the same but where a simple one
        // refuses a Z.
        self.model.collections[c].tick();
        let expected = self.expected_pairs(c);
        let default_max = ZOrder::<Key>::DEFAULT_MAX_LEVEL;
        let refused = expected.iter().any(|&(_, z)| z > default_max);
        on!(&self.orders[c], o => {
            let collected = o.iter().collect::<ZOrder<Key, _>>();
            assert_eq!(collected.max_level(), default_max);
            let simple = matches!(self.orders[c], AnyOrder::Simple(_));
            assert_eq!(collected == *o, !(simple && refused), "collected");
        });
        self.orders[to] = clone;
        self.model.clone_collection(c, to);
        self.held[to] = self.held[c].clone();
        // Any two of one layout are equal when the model says so.
        for a in 0..self.orders.len() {
            for b in a..self.orders.len() {
                let equal = match (&self.orders[a], &self.orders[b]) {
                    (AnyOrder::Fixed(x), AnyOrder::Fixed(y)) => x == y,
                    (AnyOrder::Simple(x), AnyOrder::Simple(y)) => x == y,
                    _ => continue,
                };
                assert_eq!(
                    equal,
                    self.expected_pairs(a) == self.expected_pairs(b),
                    "{a} == {b}"
                );
            }
        }
        self.check_all(to);
    }

    /// A batch, through `apply` or `extend`; checks the counts and every
    /// entry it touched.
    #[inline(never)]
    fn batch(&mut self, batch: Batch) {
        let c = batch.c % self.orders.len();
        let objects = self.generation.len();
        let mut changes: Vec<(Key, Option<I16F16>)> = (batch.changes(objects))
            .map(|(id, z)| (self.key(id), z))
            .collect();
        if batch.extend {
            changes.retain(|(_, z)| z.is_some());
        }
        let real = on!(&mut self.orders[c], o => if batch.extend {
            o.extend(changes.iter().map(|&(key, z)| (key, z.expect("filed"))));
            None
        } else {
            Some(o.apply(changes.iter().copied()))
        });
        // Step by step, which generation of each entry the collection
        // holds: a step with another generation than the one held is
        // refused, as is a Z the layout has no level for.
        let layout = self.model.collections[c].layout;
        let mut holds: HashMap<usize, Option<u32>> = HashMap::new();
        let (mut steps, mut refused) = (Vec::new(), 0);
        for &(key, z) in &changes {
            let id = self.indices.id(key.index);
            let model = &self.model.collections[c];
            let held = *(holds.entry(id))
                .or_insert_with(|| model.contains(id).then_some(self.held[c][id]));
            let stale = held.is_some_and(|held| held != key.generation);
            if stale || z.is_some_and(|z| layout.accepts(z).is_err()) {
                refused += 1;
                continue;
            }
            holds.insert(id, z.map(|_| key.generation));
            steps.push((id, z));
        }
        let [inserted, moved, removed, _] = self.model.apply(c, &steps);
        if let Some(real) = real {
            assert_eq!(
                (real.inserted, real.moved, real.removed, real.refused),
                (inserted, moved, removed, refused),
                "{batch:?}"
            );
        }
        for (&id, &held) in &holds {
            if let Some(generation) = held {
                self.held[c][id] = generation;
            }
            if !self.check_every_step {
                self.check_entry(c, id);
            }
        }
    }

    /// The rest of the API (see [`Op::Inspect`]); checks everything of
    /// collection `c` after.
    #[inline(never)]
    fn inspect(&mut self, c: usize, what: u8) {
        let expected = self.expected_pairs(c);
        match what % 5 {
            // Printing is no traversal (the checks after see no tick);
            // making a walk is one, printed or not.
            0 => {
                // The whole collection, if small: a large one prints the
                // same way, only longer.
                if expected.len() <= PRINTED {
                    let shown = on!(&self.orders[c], o => format!("{o:?}"));
                    assert!(
                        shown.contains(&format!("len: {}", expected.len())),
                        "{shown}"
                    );
                    if let Some((key, z)) = expected.last() {
                        assert!(shown.contains(&format!("{key:?}: {z:?}")), "{shown}");
                    }
                }
                // Two walks made: those count.
                let shown =
                    on!(&self.orders[c], o => format!("{:?} {:?}", o.back_to_front(), o.iter()));
                self.model.collections[c].tick();
                self.model.collections[c].tick();
                let remaining = format!("remaining: {}", expected.len());
                assert_eq!(shown.matches(&remaining).count(), 2, "{shown}");
            }
            1 => on!(&mut self.orders[c], o => o.shrink_to_fit()),
            2 => {
                let refused = on!(&mut self.orders[c], o => o.try_reserve(usize::MAX));
                assert_eq!(refused, Err(ZError::CapacityOverflow));
                self.shown.check(&refused);
                let additional = usize::from(what);
                assert_eq!(
                    on!(&mut self.orders[c], o => o.try_reserve(additional)),
                    Ok(())
                );
                on!(&mut self.orders[c], o => o.reserve(additional));
            }
            3 => {
                let keep = |id: usize| (what >> 3 >> (id % 5)) & 1 == 1;
                let mut visited = Vec::new();
                let indices = self.indices;
                on!(&mut self.orders[c], o => o.retain(|key, z| {
                    visited.push((key, z));
                    keep(indices.id(key.index))
                }));
                assert_eq!(visited, expected, "retain visits back to front");
                for (key, _) in expected {
                    let id = indices.id(key.index);
                    if !keep(id) {
                        self.model.remove(c, id).expect("held");
                    }
                }
            }
            _ => {
                let layout = self.model.collections[c].layout;
                let order = std::mem::replace(&mut self.orders[c], build(layout).expect("valid"));
                // Half taken from the ends `what` picks, the rest dropped
                // with the iterator.
                let owned = on!(order, o => o.into_iter());
                check_mixed(owned, &expected, what, Some(expected.len() / 2), true);
                self.model.collections[c] = ModelCollection::new(layout);
            }
        }
        self.check_all(c);
    }

    #[inline(never)]
    fn update(&mut self, c: usize, pattern: u8, z: I16F16, front_to_back: bool, stop: u8) {
        let mut order = self.model.collections[c].back_to_front();
        if front_to_back {
            order.reverse();
        }
        let mut visited = Vec::new();
        let visit = |key: Key, key_z: I16F16| {
            visited.push((key, key_z));
            let rank = visited.len();
            let (effect, stops) = effect(pattern, rank, stop);
            let action = match effect {
                0 => KeyVisit::Keep,
                1 => KeyVisit::Remove,
                2 => KeyVisit::SetZ(z),
                _ => KeyVisit::Refile,
            };
            if stops {
                Break(action)
            } else {
                Continue(action)
            }
        };
        let done = on!(&mut self.orders[c], o => if front_to_back {
            o.update_front_to_back(visit)
        } else {
            o.update_back_to_front(visit)
        });
        let (mut removed, mut changed, mut refused) = (0, 0, 0);
        for (rank, &id) in order.iter().enumerate().map(|(i, id)| (i + 1, id)) {
            let key_z = self.model.collections[c].z_of(id).expect("held");
            let key = self.held_key(c, id);
            assert_eq!(
                visited.get(rank - 1),
                Some(&(key, key_z)),
                "visits in order"
            );
            let (effect, stops) = effect(pattern, rank, stop);
            let outcome = match effect {
                0 => None,
                1 => {
                    self.model.remove(c, id).expect("held");
                    removed += 1;
                    None
                }
                2 => Some(self.model.change(c, id, z)),
                _ => Some(self.model.change(c, id, key_z)),
            };
            match outcome {
                Some(Ok(())) => changed += 1,
                Some(Err(_)) => refused += 1,
                None => {}
            }
            if stops {
                break;
            }
        }
        assert_eq!(done.visited, visited.len(), "every visit counted");
        assert_eq!(
            (done.removed, done.changed, done.refused),
            (removed, changed, refused)
        );
    }

    /// Walks collection `c` both ways (two traversals, for the model too)
    /// and compares with the model.
    fn check_orders(&mut self, c: usize) {
        let expected = self.expected_pairs(c);
        assert_eq!(
            on!(&self.orders[c], o => o.iter().collect::<Vec<_>>()),
            expected,
            "back to front"
        );
        let mut back: Vec<Key> = on!(&self.orders[c], o => o.front_to_back().collect());
        back.reverse();
        assert!(
            back.iter().eq(expected.iter().map(|(k, _)| k)),
            "front to back"
        );
        self.model.collections[c].tick();
        self.model.collections[c].tick();
    }

    fn expected_keys(&self, c: usize) -> Vec<Key> {
        self.expected_pairs(c).into_iter().map(|(k, _)| k).collect()
    }

    fn expected_pairs(&self, c: usize) -> Vec<(Key, I16F16)> {
        (self.model.collections[c].pairs())
            .map(|(id, z)| (self.held_key(c, id), z))
            .collect()
    }

    /// The key of entry `id` that collection `c` holds (or last held).
    fn held_key(&self, c: usize, id: usize) -> Key {
        Key {
            index: self.indices.index(id),
            generation: self.held[c][id],
        }
    }

    /// The cheap checks: the counts, and one entry.
    fn check_entry(&self, c: usize, id: usize) {
        let model = &self.model.collections[c];
        on!(&self.orders[c], real => {
            assert_eq!(real.len(), model.len(), "len");
            assert_eq!(
                real.nonoptimized_buckets(),
                model.nonoptimized_buckets(),
                "buckets"
            );
            let key = self.held_key(c, id);
            assert_eq!(real.z_of(key), model.z_of(id), "z of {key:?}");
            assert_eq!(real.contains(key), model.contains(id), "contains {key:?}");
        });
    }

    /// Everything observable of collection `c`, and every invariant.
    pub fn check_all(&self, c: usize) {
        on!(&self.orders[c], real => self.check_all_of(real, c));
    }

    fn check_all_of<L: zorder::Layout>(&self, real: &ZOrder<Key, L>, c: usize) {
        let model = &self.model.collections[c];
        real.check_invariants();
        assert_eq!(real.len(), model.len(), "len");
        assert_eq!(real.is_empty(), model.is_empty(), "is_empty");
        assert_eq!(
            real.nonoptimized_buckets(),
            model.nonoptimized_buckets(),
            "buckets"
        );
        for id in 0..self.generation.len() {
            let key = self.held_key(c, id);
            assert_eq!(real.z_of(key), model.z_of(id), "z of {key:?}");
        }
    }
}

fn build(layout: Layout) -> Result<AnyOrder, ZError> {
    Ok(match layout {
        Layout::Fixed {
            max_level,
            prune_after,
        } if prune_after == ZOrder::<Key>::DEFAULT_PRUNE_AFTER => {
            AnyOrder::Fixed(ZOrder::new(max_level)?)
        }
        Layout::Fixed {
            max_level,
            prune_after,
        } => AnyOrder::Fixed(ZOrder::with_prune_after(max_level, prune_after)?),
        Layout::Simple { max_level } => AnyOrder::Simple(ZOrder::simple(max_level)?),
    })
}
