//! The harness for the keyed collection: real [`ZOrder`]s of generational
//! keys and the model, run side by side.

use std::ops::ControlFlow::{Break, Continue};

use zorder::{FixedPoint, I16F16, KeyVisit, Simple, ZError, ZKey, ZOrder};

use crate::model::{Layout, Model, ModelCollection};
use crate::ops::{Op, Scenario};
use crate::{PRINTED, Shown, check_nested, effect, valid_layout};

/// A generational key, as `slotmap` and ECS entities have.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub struct Key {
    /// The storage slot.
    pub index: u32,
    /// Which use of the slot.
    pub generation: u32,
}

impl ZKey for Key {
    fn index(&self) -> usize {
        self.index as usize
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
    check_every_step: bool,
    shown: Shown,
}

impl KeyedHarness {
    /// Collections of these layouts (each made valid: the constructors'
    /// refusals of invalid settings are checked first), `objects` keys.
    pub fn new(layouts: &[Layout], objects: usize, check_every_step: bool) -> Self {
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
            check_every_step,
            shown: Shown::default(),
        }
    }

    /// Runs a whole scenario, checking as it goes and at the end.
    pub fn run(scenario: &Scenario) {
        let mut harness = KeyedHarness::new(
            &scenario.layouts,
            scenario.objects,
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
            index: id as u32,
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
            ZError::IndexInUse { index: id }
        } else {
            ZError::NotInCollection
        })
    }

    /// Applies `op` to the collections and the model, and checks that they
    /// agree.
    pub fn step(&mut self, op: Op) {
        let n = self.orders.len();
        let objects = self.generation.len();
        let mut touched = None;
        match op {
            Op::Add { c, obj, z } => {
                let (c, id) = (c % n, obj % objects);
                let key = self.key(id);
                let real = on!(&mut self.orders[c], o => o.insert(key, z));
                let expected = match self.stale_error(c, id, key, true) {
                    Some(error) => Err(error),
                    None => self.model.add(c, id, z),
                };
                assert_eq!(real, expected, "{op:?}");
                self.shown.check(&real);
                if real.is_ok() {
                    self.held[c][id] = key.generation;
                }
                touched = Some((c, id));
            }
            Op::Change { c, obj, z } => {
                let (c, id) = (c % n, obj % objects);
                let key = self.key(id);
                let real = on!(&mut self.orders[c], o => o.set_z(key, z));
                let expected = match self.stale_error(c, id, key, false) {
                    Some(error) => Err(error),
                    None => self.model.change(c, id, z),
                };
                assert_eq!(real, expected, "{op:?}");
                self.shown.check(&real);
                touched = Some((c, id));
            }
            Op::Refile { c, obj } => {
                let (c, id) = (c % n, obj % objects);
                let key = self.key(id);
                let real = on!(&mut self.orders[c], o => o.refile(key));
                let expected = match self.stale_error(c, id, key, false) {
                    Some(error) => Err(error),
                    None => match self.model.collections[c].z_of(id) {
                        Some(z) => self.model.change(c, id, z),
                        None => Err(ZError::NotInCollection),
                    },
                };
                assert_eq!(real, expected, "{op:?}");
                self.shown.check(&real);
                touched = Some((c, id));
            }
            Op::Remove { c, obj } => {
                let (c, id) = (c % n, obj % objects);
                let key = self.key(id);
                let real = on!(&mut self.orders[c], o => o.remove(key));
                let expected = match self.stale_error(c, id, key, false) {
                    Some(error) => Err(error),
                    None => self.model.remove(c, id),
                };
                assert_eq!(real, expected, "{op:?}");
                self.shown.check(&real);
                touched = Some((c, id));
            }
            _ => self.whole(op),
        }
        if self.check_every_step {
            for c in 0..n {
                self.check_orders(c);
                self.check_all(c);
            }
        } else if let Some((c, id)) = touched {
            self.check_entry(c, id);
        }
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
            Op::Add { .. } | Op::Change { .. } | Op::Refile { .. } | Op::Remove { .. } => {
                unreachable!("`step` runs {op:?}")
            }
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
            Op::Drain { c } => {
                let c = c % n;
                let expected = self.expected_pairs(c);
                let drained: Vec<(Key, I16F16)> =
                    on!(&mut self.orders[c], o => o.drain().collect());
                assert_eq!(drained, expected, "{op:?}");
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
                        let id = key.index as usize;
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
                on!(&mut self.orders[c], o => o.retain(|key, z| {
                    visited.push((key, z));
                    keep(key.index())
                }));
                assert_eq!(visited, expected, "retain visits back to front");
                for (key, _) in expected {
                    if !keep(key.index()) {
                        self.model.remove(c, key.index()).expect("held");
                    }
                }
            }
            _ => {
                let layout = self.model.collections[c].layout;
                let order = std::mem::replace(&mut self.orders[c], build(layout).expect("valid"));
                let mut owned = on!(order, o => o.into_iter());
                assert_eq!(owned.len(), expected.len());
                // Half taken, the rest dropped with the iterator.
                let half: Vec<_> = owned.by_ref().take(expected.len() / 2).collect();
                assert_eq!(half, expected[..half.len()], "owned, back to front");
                drop(owned);
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
            let key = Key {
                index: id as u32,
                generation: self.held[c][id],
            };
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
        let model = &self.model.collections[c];
        model
            .back_to_front()
            .into_iter()
            .map(|id| {
                let key = Key {
                    index: id as u32,
                    generation: self.held[c][id],
                };
                (key, model.z_of(id).expect("held"))
            })
            .collect()
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
            let key = Key {
                index: id as u32,
                generation: self.held[c][id],
            };
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
            let key = Key {
                index: id as u32,
                generation: self.held[c][id],
            };
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
