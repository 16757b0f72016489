//! The harness for the `Rc` collections: real collections of possibly
//! hostile objects and the model, run side by side.
//!
//! A hostile object's `z_order` and `Drop` may panic, or re-enter another
//! collection (add, remove or change another object there). The
//! re-entering code applies the same operation to the model at the same
//! moment and records any disagreement, so the harness checks that user
//! code never sees a collection with its invariants suspended: whatever it
//! does, the real collections and the model stay in step.
//!
//! When user code runs, per the collections' docs: `z_order` before the
//! operation looks at anything; `Drop` of an object the collection let go
//! of after the operation has fully taken effect (an update's decisions,
//! a clear, a drain), with every handle given back even if one panics.

use std::cell::{Cell, RefCell};
use std::collections::VecDeque;
use std::ops::ControlFlow::{Break, Continue};
use std::panic::{AssertUnwindSafe, catch_unwind};
use std::rc::{Rc, Weak};

use zorder::{
    FixedPointZCollection, I16F16, SimpleZCollection, Visit, ZCollection, ZError, ZObject,
    ZSortable,
};

use crate::model::{Layout, Model, ModelCollection};
use crate::ops::{Act, Batch, Op, Scenario};
use crate::{PRINTED, Shown, check_mixed, check_nested, effect, valid_layout};

/// An object that can turn hostile.
pub struct Hostile {
    id: usize,
    z: Cell<I16F16>,
    on_z_order: Cell<Act>,
    on_drop: Cell<Act>,
    world: Weak<World>,
}

impl std::fmt::Debug for Hostile {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        write!(f, "#{}", self.id)
    }
}

type Obj = Rc<ZObject<Hostile>>;

/// A real collection of either kind: used through the trait, as engine
/// code would, and through its own API for what the trait lacks.
enum Real {
    /// A fixed-point collection.
    Fixed(FixedPointZCollection<Hostile>),
    /// A simple collection.
    Simple(SimpleZCollection<Hostile>),
}

/// Runs `$body` with `$real` bound to the collection inside `$any`, of
/// whichever layout, for what the trait lacks.
macro_rules! on {
    ($any:expr, $real:ident => $body:expr) => {
        match $any {
            Real::Fixed($real) => $body,
            Real::Simple($real) => $body,
        }
    };
}

impl std::ops::Deref for Real {
    type Target = dyn ZCollection<Hostile>;

    fn deref(&self) -> &Self::Target {
        match self {
            Real::Fixed(real) => real,
            Real::Simple(real) => real,
        }
    }
}

impl std::ops::DerefMut for Real {
    fn deref_mut(&mut self) -> &mut Self::Target {
        match self {
            Real::Fixed(real) => real,
            Real::Simple(real) => real,
        }
    }
}

impl ZSortable for Hostile {
    fn z_order(&self) -> I16F16 {
        if let Some(world) = self.world.upgrade() {
            world.hostile(self.on_z_order.get(), Some(self.id));
        }
        self.z.get()
    }
}

impl Drop for Hostile {
    fn drop(&mut self) {
        if let Some(world) = self.world.upgrade() {
            world.dropped.set(world.dropped.get() + 1);
            world.hostile(self.on_drop.get(), None);
        }
    }
}

/// The payload of the panics hostile code throws on purpose.
#[derive(Debug)]
pub struct HostilePanic;

/// Lets panics of hostile code through quietly: the panic hook in place
/// (the default one, which prints; or libFuzzer's, which aborts the
/// process on any panic, caught or not) runs for every other panic only.
fn pass_hostile_panics() {
    static ONCE: std::sync::Once = std::sync::Once::new();
    ONCE.call_once(|| {
        let previous = std::panic::take_hook();
        std::panic::set_hook(Box::new(move |info| {
            if info.payload().downcast_ref::<HostilePanic>().is_none() {
                previous(info);
            }
        }));
    });
}

/// A model operation an in-walk update will apply, in order.
#[derive(Debug, Clone, Copy)]
enum Pending {
    Remove(usize),
    Change(usize, I16F16),
}

/// Everything the objects' hostile code reaches.
pub struct World {
    collections: Vec<RefCell<Real>>,
    model: RefCell<Model>,
    objects: RefCell<Vec<Option<Obj>>>,
    /// The collection an update is applying decisions to, and the model
    /// operations still to apply, with the object each belongs to.
    pending: RefCell<(usize, VecDeque<(usize, Pending)>)>,
    /// Inside hostile code: nested hostile code behaves.
    depth: Cell<u32>,
    /// Objects dropped so far.
    dropped: Cell<usize>,
    /// The first disagreement seen inside hostile code.
    failure: RefCell<Option<String>>,
}

impl std::fmt::Debug for World {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("World")
            .field("model", &self.model)
            .field("dropped", &self.dropped)
            .finish_non_exhaustive()
    }
}

impl World {
    /// Runs an object's hostile code. `trigger` is the object whose
    /// `z_order` runs (none for a `Drop`).
    fn hostile(&self, act: Act, trigger: Option<usize>) {
        if self.depth.get() > 0 || act == Act::Nothing {
            return;
        }
        match trigger {
            // An update applies its decisions in order: the ones before
            // this object's have taken effect.
            Some(id) => self.flush_pending(Some(id)),
            // A drop comes after the whole operation.
            None => self.flush_pending(None),
        }
        if act == Act::Panic {
            if std::thread::panicking() {
                return;
            }
            if let Some(id) = trigger {
                // The operation stops here: what was pending never happens.
                let mut pending = self.pending.borrow_mut();
                let cut = pending.1.iter().position(|&(obj, _)| obj == id);
                pending.1.truncate(cut.unwrap_or(0));
            }
            std::panic::panic_any(HostilePanic);
        }
        self.depth.set(self.depth.get() + 1);
        let (c, obj) = match act {
            Act::Add { c, obj } | Act::Remove { c, obj } | Act::Change { c, obj } => (c, obj),
            Act::Nothing | Act::Panic => unreachable!(),
        };
        let c = c % self.collections.len();
        let object = self
            .objects
            .borrow()
            .get(obj % self.objects.borrow().len())
            .cloned()
            .flatten();
        if let (Some(object), Ok(mut real)) = (object, self.collections[c].try_borrow_mut()) {
            let id = object.id;
            let mut model = self.model.borrow_mut();
            let z = object.z.get();
            let (got, expected) = match act {
                Act::Add { .. } => (real.add(&object), model.add(c, id, z)),
                Act::Remove { .. } => (real.remove(&object), model.remove(c, id).map(|_| ())),
                _ => (real.change(&object), model.change(c, id, z)),
            };
            if got != expected && self.failure.borrow().is_none() {
                *self.failure.borrow_mut() = Some(format!(
                    "hostile {act:?} of #{id}: real {got:?}, model {expected:?}"
                ));
            }
        }
        self.depth.set(self.depth.get() - 1);
    }

    /// Applies pending model operations up to (not including) the first
    /// of object `until`, or all of them.
    fn flush_pending(&self, until: Option<usize>) {
        let mut pending = self.pending.borrow_mut();
        let c = pending.0;
        while let Some(&(obj, op)) = pending.1.front() {
            if Some(obj) == until {
                break;
            }
            pending.1.pop_front();
            let mut model = self.model.borrow_mut();
            match op {
                Pending::Remove(id) => {
                    let _ = model.remove(c, id);
                }
                Pending::Change(id, z) => {
                    let _ = model.change(c, id, z);
                }
            }
        }
    }
}

/// Real `Rc` collections and the model.
#[derive(Debug)]
pub struct RcHarness {
    world: Rc<World>,
    /// Every object, orphans included, by id.
    all: Vec<Weak<ZObject<Hostile>>>,
    /// Objects the test let go of, to check they were dropped.
    orphans: Vec<Weak<ZObject<Hostile>>>,
    check_every_step: bool,
    shown: Shown,
}

impl RcHarness {
    /// Collections of these layouts (made valid after checking that the
    /// constructors refuse invalid settings), `objects` objects at Z 0.
    pub fn new(layouts: &[Layout], objects: usize, check_every_step: bool) -> Self {
        let layouts: Vec<Layout> = layouts.iter().map(|&l| valid_layout(l, build)).collect();
        let world = Rc::new_cyclic(|weak: &Weak<World>| World {
            collections: layouts
                .iter()
                .map(|&l| RefCell::new(build(l).expect("a valid layout")))
                .collect(),
            model: RefCell::new(Model::new(&layouts, true)),
            objects: RefCell::new(
                (0..objects)
                    .map(|id| {
                        Some(Rc::new(ZObject::new(Hostile {
                            id,
                            z: Cell::new(I16F16::ZERO),
                            on_z_order: Cell::new(Act::Nothing),
                            on_drop: Cell::new(Act::Nothing),
                            world: weak.clone(),
                        })))
                    })
                    .collect(),
            ),
            pending: RefCell::new((0, VecDeque::new())),
            depth: Cell::new(0),
            dropped: Cell::new(0),
            failure: RefCell::new(None),
        });
        let all = world
            .objects
            .borrow()
            .iter()
            .map(|object| Rc::downgrade(object.as_ref().expect("not orphaned yet")))
            .collect();
        RcHarness {
            world,
            all,
            orphans: Vec::new(),
            check_every_step,
            shown: Shown::default(),
        }
    }

    /// Runs a whole scenario, checking as it goes and at the end, then
    /// drops the collections and checks that every handle came back.
    pub fn run(scenario: &Scenario) {
        if scenario.hostile {
            pass_hostile_panics();
        }
        let mut harness = RcHarness::new(
            &scenario.layouts,
            scenario.objects,
            scenario.check_every_step,
        );
        for &op in &scenario.ops {
            harness.step(op);
        }
        harness.finish();
    }

    fn object(&self, obj: usize) -> Option<Obj> {
        let objects = self.world.objects.borrow();
        objects[obj % objects.len()].clone()
    }

    /// Runs `operation` on collection `c`, catching a panic of hostile
    /// code; returns its result, or `None` if it panicked. Any other panic
    /// (a failed check) goes on.
    fn guarded<R>(&self, c: usize, operation: impl FnOnce(&mut Real) -> R) -> Option<R> {
        let world = &self.world;
        let outcome = catch_unwind(AssertUnwindSafe(|| {
            let mut real = world.collections[c].borrow_mut();
            operation(&mut real)
        }));
        match outcome {
            Ok(result) => Some(result),
            Err(payload) if payload.is::<HostilePanic>() => None,
            Err(payload) => std::panic::resume_unwind(payload),
        }
    }

    /// Applies `op` to the collections and the model, and checks that they
    /// agree.
    pub fn step(&mut self, op: Op) {
        let n = self.world.collections.len();
        let mut touched = None;
        // The keyed operations an `Rc` collection has no twin of, as the
        // nearest legacy ones.
        let op = match op {
            Op::Upsert { c, obj, z } => {
                let id = obj % self.all.len();
                if self.world.model.borrow().collections[c % n].contains(id) {
                    Op::Change { c, obj, z }
                } else {
                    Op::Add { c, obj, z }
                }
            }
            Op::ChangeIfNew { c, obj, z: Some(z) } => Op::Change { c, obj, z },
            Op::ChangeIfNew { c, obj, z: None } => Op::Refile { c, obj },
            Op::Replace { c, obj, z } => Op::Add { c, obj, z },
            Op::CloneEq { c, .. } => Op::Ends { c },
            op => op,
        };
        match op {
            Op::Add { c, obj, z } | Op::Change { c, obj, z } => {
                let c = c % n;
                let Some(object) = self.object(obj) else {
                    return;
                };
                let before = object.z.replace(z);
                let adding = matches!(op, Op::Add { .. });
                let real = self.guarded(c, |real| {
                    if adding {
                        real.add(&object)
                    } else {
                        real.change(&object)
                    }
                });
                let expected = {
                    let mut model = self.world.model.borrow_mut();
                    match (real, adding) {
                        (None, _) => None,
                        (Some(_), true) => Some(model.add(c, object.id, z)),
                        (Some(_), false) => Some(model.change(c, object.id, z)),
                    }
                };
                assert_eq!(real, expected, "{op:?}");
                real.iter().for_each(|real| self.shown.check(real));
                if real != Some(Ok(())) {
                    object.z.set(before);
                }
                touched = Some((c, object.id));
            }
            Op::Refile { c, obj } => {
                let c = c % n;
                let Some(object) = self.object(obj) else {
                    return;
                };
                let real = self.guarded(c, |real| real.change(&object));
                let z = object.z.get();
                let expected = real.map(|_| self.world.model.borrow_mut().change(c, object.id, z));
                assert_eq!(real, expected, "{op:?}");
                real.iter().for_each(|real| self.shown.check(real));
                touched = Some((c, object.id));
            }
            Op::Remove { c, obj } => {
                let c = c % n;
                let Some(object) = self.object(obj) else {
                    return;
                };
                let expected = self
                    .world
                    .model
                    .borrow_mut()
                    .remove(c, object.id)
                    .map(|_| ());
                let real = self.guarded(c, |real| real.remove(&object));
                assert_eq!(real, Some(expected), "{op:?}");
                real.iter().for_each(|real| self.shown.check(real));
                touched = Some((c, object.id));
            }
            _ => self.whole(op),
        }
        if let Some(failure) = self.world.failure.borrow_mut().take() {
            panic!("{failure} (during {op:?})");
        }
        assert!(
            self.world.pending.borrow().1.is_empty(),
            "every decision applied"
        );
        if self.check_every_step {
            for c in 0..n {
                self.check_orders(c);
                self.check_all(c);
            }
        } else if let Some((c, id)) = touched {
            self.check_entry(c, id);
        }
    }

    /// The operations on a whole collection, and those on the objects
    /// themselves. Out of line: `step` runs for every operation, and a
    /// small frame is cheaper under AddressSanitizer, which gives each
    /// frame a fake stack of its size.
    #[inline(never)]
    fn whole(&mut self, op: Op) {
        let n = self.world.collections.len();
        match op {
            Op::Add { .. } | Op::Change { .. } | Op::Refile { .. } | Op::Remove { .. } => {
                unreachable!("`step` runs {op:?}")
            }
            Op::BackToFront { c } => {
                let c = c % n;
                self.world.model.borrow_mut().collections[c].tick();
                // Through `IntoIterator for &`, and by identity: each object
                // walked is the one the model names.
                let real = self.world.collections[c].borrow();
                let walked: Vec<Obj> = match &*real {
                    Real::Fixed(real) => real.into_iter().cloned().collect(),
                    Real::Simple(real) => real.into_iter().cloned().collect(),
                };
                let expected = self.expected(c);
                assert_eq!(ids(walked.iter()), expected, "{op:?}");
                for (object, id) in walked.iter().zip(expected) {
                    let named = self.object(id);
                    assert!(named.is_none_or(|named| ZObject::ptr_eq(object, &named)));
                }
            }
            Op::FrontToBack { c } => {
                let c = c % n;
                self.world.model.borrow_mut().collections[c].tick();
                let mut real: Vec<usize> = ids(self.world.collections[c].borrow().front_to_back());
                real.reverse();
                assert_eq!(real, self.expected(c), "{op:?}");
            }
            Op::BothEnds { c } => {
                let c = c % n;
                self.world.model.borrow_mut().collections[c].tick();
                let expected = self.expected(c);
                let real = self.world.collections[c].borrow();
                crate::check_both_ends(real.back_to_front().map(|o| o.id), &expected);
            }
            Op::Pairs { c } => {
                let c = c % n;
                let expected = self.expected(c);
                let real = self.world.collections[c].borrow();
                let walks = check_nested(
                    real.back_to_front().map(|o| o.id),
                    || real.front_to_back().map(|o| o.id),
                    &expected,
                );
                drop(real);
                let mut model = self.world.model.borrow_mut();
                for _ in 0..walks {
                    model.collections[c].tick();
                }
            }
            Op::Clear { c } => {
                let c = c % n;
                self.world.model.borrow_mut().clear(c);
                // Drops of objects only the collection held may panic:
                // they run after the collection is empty.
                let _ = self.guarded(c, |real| real.clear());
                assert!(self.world.collections[c].borrow().is_empty());
            }
            Op::Drain { c, how } => {
                let c = c % n;
                let expected = self.world.model.borrow_mut().clear(c);
                let stop = (how >= 0x80).then_some(expected.len() / 2);
                let _ = self.guarded(c, |real| {
                    let drain = real.drain();
                    let shown = format!("{drain:?}");
                    let remaining = format!("remaining: {}", drain.len());
                    assert!(shown.contains(&remaining), "{shown}");
                    // Those taken are held until all are checked, so no
                    // `Drop` runs meanwhile; the rest go with the drain.
                    let mut taken = Vec::new();
                    let ids = drain.map(|object| {
                        assert!(
                            !ZObject::is_in_collection(&object),
                            "free when drain returns"
                        );
                        let id = object.id;
                        taken.push(object);
                        id
                    });
                    check_mixed(ids, &expected, how, stop, true);
                });
                assert!(self.world.collections[c].borrow().is_empty(), "{op:?}");
            }
            Op::Append { from, to } => {
                let (from, to) = (from % n, to % n);
                if from != to {
                    let expected = self.world.model.borrow_mut().append(to, from);
                    let world = &self.world;
                    let real = world.collections[to]
                        .borrow_mut()
                        .append(&mut **world.collections[from].borrow_mut());
                    assert_eq!(real, expected, "{op:?}");
                    self.shown.check(&real);
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
            Op::NewGeneration { .. } | Op::Stale { .. } => {}
            Op::Range { c, start, end, how } => {
                // A lookup: no tick.
                let c = c % n;
                let expected: Vec<usize> = (self.world.model.borrow().collections[c])
                    .range((start, end))
                    .map(|(id, _)| id)
                    .collect();
                let real = self.world.collections[c].borrow();
                on!(&*real, real => check_mixed(real.range((start, end)).map(|o| o.id), &expected, how, None, false));
            }
            Op::Ends { c } => {
                let c = c % n;
                let model = &self.world.model.borrow().collections[c];
                let expected = (
                    model.first().map(|(id, _)| id),
                    model.last().map(|(id, _)| id),
                );
                let real = self.world.collections[c].borrow();
                let ends =
                    on!(&*real, real => (real.first().map(|o| o.id), real.last().map(|o| o.id)));
                assert_eq!(ends, expected, "{op:?}");
            }
            Op::Batch(batch) => self.change_all(batch),
            Op::Upsert { .. }
            | Op::ChangeIfNew { .. }
            | Op::Replace { .. }
            | Op::CloneEq { .. } => {
                unreachable!("`step` runs {op:?} as another")
            }
            Op::OnZOrder { obj, act } => {
                if let Some(object) = self.object(obj) {
                    object.on_z_order.set(act);
                }
            }
            Op::OnDrop { obj, act } => {
                if let Some(object) = self.object(obj) {
                    object.on_drop.set(act);
                }
            }
            Op::Orphan { obj } => {
                let mut objects = self.world.objects.borrow_mut();
                let len = objects.len();
                if let Some(object) = objects[obj % len].take() {
                    self.orphans.push(Rc::downgrade(&object));
                    drop(objects);
                    // If no collection holds it, it is dropped right here,
                    // and its `Drop` may panic.
                    let _ = catch_unwind(AssertUnwindSafe(|| drop(object)));
                }
            }
        }
    }

    /// The rest of the API (see [`Op::Inspect`]); checks everything of
    /// collection `c` after.
    #[inline(never)]
    fn inspect(&mut self, c: usize, what: u8) {
        let expected = self.expected(c);
        let layout = self.world.model.borrow().collections[c].layout;
        match what % 5 {
            // Printing is no traversal (the checks after see no tick);
            // making a walk is one, printed or not.
            0 => {
                let real = self.world.collections[c].borrow();
                // The whole collection, if small: a large one prints the
                // same way, only longer.
                if expected.len() <= PRINTED {
                    let shown = match &*real {
                        Real::Fixed(real) => format!("{real:?}"),
                        Real::Simple(real) => format!("{real:?}"),
                    };
                    assert!(
                        shown.contains(&format!("len: {}", expected.len())),
                        "{shown}"
                    );
                    if let Some(id) = expected.last() {
                        assert!(
                            shown.contains(&format!("value: #{id}, in_collection: true }}]")),
                            "{shown}"
                        );
                    }
                }
                let walk = format!("{:?}", real.back_to_front());
                self.world.model.borrow_mut().collections[c].tick();
                assert_eq!(
                    walk,
                    format!("BackToFront {{ remaining: {} }}", expected.len())
                );
            }
            1 => {
                let mut real = self.world.collections[c].borrow_mut();
                on!(&mut *real, real => real.shrink_to_fit());
                let refused = on!(&mut *real, real => real.try_reserve(usize::MAX));
                assert_eq!(refused, Err(ZError::CapacityOverflow));
                let additional = usize::from(what);
                assert_eq!(
                    on!(&mut *real, real => real.try_reserve(additional)),
                    Ok(())
                );
                on!(&mut *real, real => real.reserve(additional));
            }
            2 => {
                // Removals queued for the model, as an update's are: a
                // drop of a removed object runs after the whole call.
                let keep = |id: usize| (what >> 3 >> (id % 5)) & 1 == 1;
                let queue = (expected.iter())
                    .filter(|&&id| !keep(id))
                    .map(|&id| (id, Pending::Remove(id)))
                    .collect();
                *self.world.pending.borrow_mut() = (c, queue);
                let mut visited = Vec::new();
                let _ = self.guarded(c, |real| {
                    let mut keep = |object: &Obj| {
                        visited.push(object.id);
                        keep(object.id)
                    };
                    match real {
                        Real::Fixed(real) => real.retain(&mut keep),
                        Real::Simple(real) => real.retain(&mut keep),
                    }
                });
                self.world.flush_pending(None);
                assert_eq!(visited, expected, "retain visits back to front");
            }
            3 => {
                // Every object is free as soon as the collection is turned
                // into an iterator; a new collection takes its place.
                let fresh = build(layout).expect("a valid layout");
                let old = std::mem::replace(&mut *self.world.collections[c].borrow_mut(), fresh);
                {
                    let mut model = self.world.model.borrow_mut();
                    model.clear(c);
                    model.collections[c] = ModelCollection::new(layout);
                }
                let outcome = catch_unwind(AssertUnwindSafe(|| {
                    let owned = on!(old, real => real.into_iter());
                    let shown = format!("{owned:?}");
                    let remaining = format!("remaining: {}", expected.len());
                    assert!(shown.contains(&remaining), "{shown}");
                    // Half taken from the ends `what` picks, the rest given
                    // back by the iterator's drop.
                    let mut taken = Vec::new();
                    let ids = owned.map(|object| {
                        assert!(!ZObject::is_in_collection(&object), "free as it comes out");
                        let id = object.id;
                        taken.push(object);
                        id
                    });
                    check_mixed(ids, &expected, what, Some(expected.len() / 2), true);
                }));
                if let Err(payload) = outcome {
                    if !payload.is::<HostilePanic>() {
                        std::panic::resume_unwind(payload);
                    }
                }
            }
            _ => {
                let real = self.world.collections[c].borrow();
                assert_eq!(real.max_level(), layout.max_level());
                if let (Real::Fixed(real), Layout::Fixed { prune_after, .. }) = (&*real, layout) {
                    assert_eq!(real.prune_after(), prune_after);
                }
            }
        }
        if let Some(failure) = self.world.failure.borrow_mut().take() {
            panic!("{failure} (during an inspection)");
        }
        self.check_all(c);
    }

    /// A batch as `change_all`: each change sets the object's Z (a
    /// removal leaves it), then the objects go in, in order, each as many
    /// times as the batch names it; those of other collections, or none,
    /// are refused.
    #[inline(never)]
    fn change_all(&mut self, batch: Batch) {
        let c = batch.c % self.world.collections.len();
        let listed: Vec<Obj> = (batch.changes(self.all.len()))
            .filter_map(|(obj, z)| {
                let object = self.object(obj)?;
                if let Some(z) = z {
                    object.z.set(z);
                }
                Some(object)
            })
            .collect();
        // The collection is busy throughout: hostile code can change no
        // object's place in it, so which ones it holds is known now, and
        // each is re-filed at the Z it reports once all are set.
        let (steps, not_held): (Vec<_>, Vec<_>) = listed
            .iter()
            .map(|object| (object.id, Some(object.z.get())))
            .partition(|&(id, _)| self.world.model.borrow().collections[c].contains(id));
        let real = self.guarded(c, |real| on!(real, real => real.change_all(&listed)));
        if let Some(real) = real {
            let [inserted, moved, removed, refused] =
                self.world.model.borrow_mut().apply(c, &steps);
            assert_eq!(
                (real.inserted, real.moved, real.removed, real.refused),
                (inserted, moved, removed, refused + not_held.len()),
                "{batch:?}"
            );
        }
        if !self.check_every_step {
            for object in &listed {
                self.check_entry(c, object.id);
            }
        }
    }

    #[inline(never)]
    fn update(&mut self, c: usize, pattern: u8, z: I16F16, front_to_back: bool, stop: u8) {
        let mut order = self.expected(c);
        if front_to_back {
            order.reverse();
        }
        // The decisions the walk will make, queued for the model: each
        // takes effect in order, interleaved with the `z_order` calls of
        // the changes.
        let mut queue = VecDeque::new();
        let mut visits = 0;
        for (rank, &id) in order.iter().enumerate().map(|(i, id)| (i + 1, id)) {
            visits += 1;
            let (effect, stops) = effect(pattern, rank, stop);
            match effect {
                0 => {}
                1 => queue.push_back((id, Pending::Remove(id))),
                // A change re-reads the object's Z: the closure sets `z`
                // for effect 2 and leaves it for effect 3.
                2 => queue.push_back((id, Pending::Change(id, z))),
                // Its Z as the object reports it, which a refused change
                // may have left apart from its Z of record.
                _ => {
                    let own = self.all[id].upgrade().expect("held, so alive").z.get();
                    queue.push_back((id, Pending::Change(id, own)));
                }
            }
            if stops {
                break;
            }
        }
        *self.world.pending.borrow_mut() = (c, queue);
        let mut visited = Vec::new();
        let done = self.guarded(c, |real| {
            let mut visit = |object: &Obj| {
                visited.push(object.id);
                let (effect, stops) = effect(pattern, visited.len(), stop);
                if effect == 2 {
                    object.z.set(z);
                }
                match (effect, stops) {
                    (0, false) => Continue(Visit::Keep),
                    (0, true) => Break(Visit::Keep),
                    (1, false) => Continue(Visit::Remove),
                    (1, true) => Break(Visit::Remove),
                    (_, false) => Continue(Visit::Change),
                    (_, true) => Break(Visit::Change),
                }
            };
            if front_to_back {
                real.update_front_to_back(&mut visit)
            } else {
                real.update_back_to_front(&mut visit)
            }
        });
        self.world.flush_pending(None);
        assert_eq!(visited, order[..visits], "the walk's visits");
        if let Some(done) = done {
            assert_eq!(done.visited, visits);
        }
    }

    /// Walks collection `c` both ways (two traversals, for the model too)
    /// and compares with the model.
    fn check_orders(&self, c: usize) {
        let expected = self.expected(c);
        let real = self.world.collections[c].borrow();
        assert_eq!(ids(real.back_to_front()), expected, "back to front");
        let mut back = ids(real.front_to_back());
        back.reverse();
        assert_eq!(back, expected, "front to back");
        let mut model = self.world.model.borrow_mut();
        model.collections[c].tick();
        model.collections[c].tick();
    }

    fn expected(&self, c: usize) -> Vec<usize> {
        self.world.model.borrow().collections[c].back_to_front()
    }

    /// The cheap checks: the counts, and one object.
    fn check_entry(&self, c: usize, id: usize) {
        let real = self.world.collections[c].borrow();
        let model = self.world.model.borrow();
        assert_eq!(real.len(), model.collections[c].len(), "len");
        assert_eq!(
            real.nonoptimized_buckets(),
            model.collections[c].nonoptimized_buckets(),
            "buckets"
        );
        if let Some(object) = self.object(id) {
            assert_eq!(
                real.z_of(&object),
                model.collections[c].z_of(id),
                "z of #{id}"
            );
            assert_eq!(real.contains(&object), model.collections[c].contains(id));
            assert_eq!(ZObject::is_in_collection(&object), model.home(id).is_some());
        }
    }

    /// Everything observable of collection `c`, and every invariant.
    pub fn check_all(&self, c: usize) {
        let real = self.world.collections[c].borrow();
        let model = self.world.model.borrow();
        assert_eq!(real.len(), model.collections[c].len(), "len");
        assert_eq!(real.is_empty(), model.collections[c].is_empty());
        assert_eq!(
            real.nonoptimized_buckets(),
            model.collections[c].nonoptimized_buckets(),
            "buckets"
        );
        for object in self.world.objects.borrow().iter().flatten() {
            let id = object.id;
            assert_eq!(
                real.z_of(object),
                model.collections[c].z_of(id),
                "z of #{id}"
            );
            assert_eq!(real.contains(object), model.collections[c].contains(id));
            assert_eq!(ZObject::is_in_collection(object), model.home(id).is_some());
        }
        check_invariants(&**real);
    }

    /// Drops the collections (hostile drops may panic; every handle must
    /// come back regardless), then checks that no handle leaked.
    pub fn finish(self) {
        for c in 0..self.world.collections.len() {
            self.check_all(c);
        }
        // A drop may file an object in a collection cleared before; each
        // orphan drops once, so this ends.
        while self
            .world
            .collections
            .iter()
            .any(|c| !c.borrow().is_empty())
        {
            for c in 0..self.world.collections.len() {
                self.world.model.borrow_mut().clear(c);
                let _ = self.guarded(c, |real| real.clear());
            }
        }
        if let Some(failure) = self.world.failure.borrow_mut().take() {
            panic!("{failure} (at the end)");
        }
        for object in self.world.objects.borrow().iter().flatten() {
            assert_eq!(
                Rc::strong_count(object),
                1,
                "#{} leaked a handle",
                object.id
            );
            assert!(
                !ZObject::is_in_collection(object),
                "#{} still filed",
                object.id
            );
        }
        for orphan in &self.orphans {
            assert!(orphan.upgrade().is_none(), "an orphan was never dropped");
        }
    }
}

fn ids<'a>(objects: impl Iterator<Item = &'a Obj>) -> Vec<usize> {
    objects.map(|o| o.id).collect()
}

/// The collection's own invariant checks, through the trait object.
fn check_invariants(real: &dyn ZCollection<Hostile>) {
    real.check_invariants();
}

fn build(layout: Layout) -> Result<Real, ZError> {
    Ok(match layout {
        Layout::Fixed {
            max_level,
            prune_after,
        } if prune_after == FixedPointZCollection::<Hostile>::DEFAULT_PRUNE_AFTER => {
            Real::Fixed(FixedPointZCollection::new(max_level)?)
        }
        Layout::Fixed {
            max_level,
            prune_after,
        } => Real::Fixed(FixedPointZCollection::with_prune_after(
            max_level,
            prune_after,
        )?),
        Layout::Simple { max_level } => Real::Simple(SimpleZCollection::new(max_level)?),
    })
}
