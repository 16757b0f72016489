//! Hostile user code: `z_order`, `Drop` and closures that panic or re-enter
//! other collections while an operation runs, in every public operation
//! that runs user code: user code never sees a collection with
//! its invariants suspended, a panic leaves every collection valid, and
//! nothing leaks. (`tests/model.rs` and the `cross_collection` fuzz target
//! generate such objects at random.)

use std::cell::{Cell, RefCell};
use std::ops::ControlFlow::Continue;
use std::panic::{AssertUnwindSafe, catch_unwind};
use std::rc::{Rc, Weak};

use zorder::{
    FixedPointZCollection, I16F16, SimpleZCollection, Visit, ZCollection, ZError, ZObject,
    ZSortable,
};

type Scene = Rc<RefCell<FixedPointZCollection<Actor>>>;

/// What an actor's hostile code does.
#[derive(Default)]
struct Script {
    /// Its `Drop` panics.
    panic_on_drop: bool,
    /// Its `Drop` adds this object to this collection.
    add_on_drop: Option<(Rc<ZObject<Actor>>, Scene)>,
    /// Its `z_order` adds this object to this collection.
    add_on_z_order: Option<(Weak<ZObject<Actor>>, Scene)>,
    /// Its `z_order` panics.
    panic_on_z_order: bool,
    /// Results of the additions its code made.
    outcomes: Vec<Result<(), ZError>>,
}

struct Actor {
    z: Cell<I16F16>,
    script: RefCell<Script>,
    drops: Rc<Cell<usize>>,
}

impl ZSortable for Actor {
    fn z_order(&self) -> I16F16 {
        if self.script.borrow().panic_on_z_order {
            panic!("z_order panics");
        }
        let add = self.script.borrow_mut().add_on_z_order.take();
        if let Some((object, scene)) = add {
            let object = object.upgrade().expect("alive");
            let outcome = scene.borrow_mut().add(&object);
            self.script.borrow_mut().outcomes.push(outcome);
        }
        self.z.get()
    }
}

impl Drop for Actor {
    fn drop(&mut self) {
        self.drops.set(self.drops.get() + 1);
        let script = self.script.get_mut();
        if let Some((object, scene)) = script.add_on_drop.take() {
            let _ = scene.borrow_mut().add(&object);
        }
        if script.panic_on_drop && !std::thread::panicking() {
            panic!("drop panics");
        }
    }
}

fn actor(z: i32, drops: &Rc<Cell<usize>>) -> Rc<ZObject<Actor>> {
    Rc::new(ZObject::new(Actor {
        z: Cell::new(I16F16::from_num(z)),
        script: RefCell::new(Script::default()),
        drops: Rc::clone(drops),
    }))
}

fn scene() -> Scene {
    Rc::new(RefCell::new(FixedPointZCollection::new(10).unwrap()))
}

/// The ways a collection lets go of every object it holds.
#[derive(Debug, Clone, Copy)]
enum Release {
    Clear,
    Drop,
    Drain,
    IntoIter,
    Retain,
    UpdateBackToFront,
    UpdateFrontToBack,
}

const RELEASES: [Release; 7] = [
    Release::Clear,
    Release::Drop,
    Release::Drain,
    Release::IntoIter,
    Release::Retain,
    Release::UpdateBackToFront,
    Release::UpdateFrontToBack,
];

fn release(
    scene: FixedPointZCollection<Actor>,
    how: Release,
) -> Option<FixedPointZCollection<Actor>> {
    let mut scene = scene;
    match how {
        Release::Clear => scene.clear(),
        Release::Drop => {
            return {
                drop(scene);
                None
            };
        }
        Release::Drain => scene.drain().for_each(drop),
        Release::IntoIter => {
            return {
                scene.into_iter().for_each(drop);
                None
            };
        }
        Release::Retain => scene.retain(|_| false),
        Release::UpdateBackToFront => {
            let _ = scene.update_back_to_front(|_| Continue(Visit::Remove));
        }
        Release::UpdateFrontToBack => {
            let _ = scene.update_front_to_back(|_| Continue(Visit::Remove));
        }
    }
    Some(scene)
}

/// Defect 1: a `Drop` that panics while the collection lets go of its
/// objects leaked every object released after it. Now the rest are still
/// given back, then the panic resumes; the collection stays usable.
#[test]
fn a_panicking_drop_leaks_nothing_whichever_way_objects_are_released() {
    for how in RELEASES {
        let drops = Rc::new(Cell::new(0));
        let mut scene = FixedPointZCollection::new(10).unwrap();
        let kept: Vec<_> = (0..if cfg!(miri) { 9 } else { 100 })
            .map(|i| actor(i % 7, &drops))
            .collect();
        for object in &kept {
            scene.add(object).unwrap();
        }
        // The collection holds the only handle of the panicking one.
        let doomed = actor(3, &drops);
        doomed.script.borrow_mut().panic_on_drop = true;
        scene.add(&doomed).unwrap();
        drop(doomed);
        let outcome = catch_unwind(AssertUnwindSafe(|| release(scene, how)));
        assert!(outcome.is_err(), "{how:?}: the panic resumes");
        assert_eq!(drops.get(), 1, "{how:?}: the panicking object was dropped");
        for object in &kept {
            assert_eq!(
                Rc::strong_count(object),
                1,
                "{how:?}: every other handle came back"
            );
            assert!(!ZObject::is_in_collection(object), "{how:?}");
        }
    }
}

/// The same, and the collection is left empty and usable when it survives.
#[test]
fn after_a_panicking_drop_the_collection_is_empty_and_usable() {
    let drops = Rc::new(Cell::new(0));
    let mut scene = FixedPointZCollection::new(10).unwrap();
    let doomed = actor(2, &drops);
    doomed.script.borrow_mut().panic_on_drop = true;
    scene.add(&doomed).unwrap();
    let other = actor(1, &drops);
    scene.add(&other).unwrap();
    drop(doomed);
    assert!(catch_unwind(AssertUnwindSafe(|| scene.clear())).is_err());
    assert!(scene.is_empty());
    scene.check_invariants();
    scene.add(&other).unwrap();
    assert_eq!(scene.len(), 1);
}

/// Defect 2: a `Drop` run by `clear` could file an object that was still
/// in the cleared collection into another one, which then lost track of
/// it. Now every object is free before any handle is dropped: the other
/// collection gets it, and keeps it.
#[test]
fn a_drop_that_files_a_released_object_elsewhere_leaves_both_collections_consistent() {
    for how in RELEASES {
        let drops = Rc::new(Cell::new(0));
        let mut a = FixedPointZCollection::new(10).unwrap();
        let b = scene();
        // `y` sits behind `x` and far away in memory (a later block).
        let crowd: Vec<_> = (0..40).map(|_| actor(1, &drops)).collect();
        let x = actor(0, &drops);
        let y = actor(5, &drops);
        a.add(&x).unwrap();
        for object in &crowd {
            a.add(object).unwrap();
        }
        a.add(&y).unwrap();
        x.script.borrow_mut().add_on_drop = Some((Rc::clone(&y), Rc::clone(&b)));
        drop(x);
        let a = release(a, how);
        let b = b.borrow();
        assert_eq!(b.len(), 1, "{how:?}");
        assert!(b.contains(&y), "{how:?}: b knows it holds y");
        assert!(ZObject::ptr_eq(b.back_to_front().next().unwrap(), &y));
        b.check_invariants();
        if let Some(a) = &a {
            assert!(!a.contains(&y));
            assert!(a.is_empty());
            a.check_invariants();
        }
        drop(b);
        // y is in b, and in no other collection.
        let mut c = SimpleZCollection::new(10).unwrap();
        assert_eq!(
            c.add(&y),
            Err(ZError::AlreadyInCollection),
            "{how:?}: not in a third"
        );
    }
}

/// Defect 3: `add` read the object's Z after its membership check, so a
/// `z_order` filing the object elsewhere got it into two collections. Now
/// `z_order` runs first, and `add` sees where it put the object.
#[test]
fn a_z_order_that_files_its_object_elsewhere_makes_add_and_change_refuse() {
    let drops = Rc::new(Cell::new(0));
    let x = actor(1, &drops);
    let a = scene();
    let b = scene();
    x.script.borrow_mut().add_on_z_order = Some((Rc::downgrade(&x), Rc::clone(&b)));
    assert_eq!(a.borrow_mut().add(&x), Err(ZError::AlreadyInCollection));
    assert_eq!(
        x.script.borrow().outcomes,
        [Ok(())],
        "z_order filed it in b"
    );
    assert!(!a.borrow().contains(&x) && b.borrow().contains(&x));
    assert!(a.borrow().is_empty() && b.borrow().len() == 1);

    // `change`: an object in `a` whose `z_order` tries to file it in `b`
    // is refused there, and `a` re-files it.
    b.borrow_mut().remove(&x).unwrap();
    a.borrow_mut().add(&x).unwrap();
    x.script.borrow_mut().add_on_z_order = Some((Rc::downgrade(&x), Rc::clone(&b)));
    a.borrow_mut().change(&x).unwrap();
    assert_eq!(
        x.script.borrow().outcomes[1],
        Err(ZError::AlreadyInCollection)
    );
    assert!(a.borrow().contains(&x) && b.borrow().is_empty());

    // `change` of a stranger: its `z_order` files it in `b`; `a` refuses.
    let y = actor(2, &drops);
    y.script.borrow_mut().add_on_z_order = Some((Rc::downgrade(&y), Rc::clone(&b)));
    assert_eq!(a.borrow_mut().change(&y), Err(ZError::NotInCollection));
    assert!(b.borrow().contains(&y));
    // An update's change runs `z_order` too: here filing another object.
    let w = actor(3, &drops);
    x.script.borrow_mut().add_on_z_order = Some((Rc::downgrade(&w), Rc::clone(&b)));
    let done = a
        .borrow_mut()
        .update_back_to_front(|_| Continue(Visit::Change));
    assert_eq!(done.changed, 1);
    assert!(b.borrow().contains(&w) && a.borrow().contains(&x));
    a.borrow().check_invariants();
    b.borrow().check_invariants();
}

/// A `z_order` that panics: `add`, `change` and an update's change leave
/// everything as it was (the update stops at that object).
#[test]
fn a_panicking_z_order_changes_nothing() {
    let drops = Rc::new(Cell::new(0));
    let mut a = FixedPointZCollection::new(10).unwrap();
    let (x, y) = (actor(1, &drops), actor(2, &drops));
    a.add(&x).unwrap();
    a.add(&y).unwrap();
    y.script.borrow_mut().panic_on_z_order = true;
    let stranger = actor(3, &drops);
    stranger.script.borrow_mut().panic_on_z_order = true;
    assert!(catch_unwind(AssertUnwindSafe(|| a.add(&stranger))).is_err());
    assert!(!ZObject::is_in_collection(&stranger) && a.len() == 2);
    assert!(catch_unwind(AssertUnwindSafe(|| a.change(&y))).is_err());
    assert_eq!(a.z_of(&y), Some(I16F16::from_num(2)));
    // Back to front: x is removed first, then y's change panics.
    let outcome = catch_unwind(AssertUnwindSafe(|| {
        a.update_back_to_front(|o| {
            Continue(if ZObject::ptr_eq(o, &x) {
                Visit::Remove
            } else {
                Visit::Change
            })
        })
    }));
    assert!(outcome.is_err());
    assert!(
        !a.contains(&x) && a.contains(&y),
        "decisions before the panic took effect"
    );
    a.check_invariants();
    assert_eq!(Rc::strong_count(&x), 1);
    assert_eq!(Rc::strong_count(&y), 2);
}

/// The in-walk operations that run a closure of the user's.
#[derive(Debug, Clone, Copy)]
enum Walker {
    BackToFront,
    FrontToBack,
    Retain,
}

const WALKERS: [Walker; 3] = [Walker::BackToFront, Walker::FrontToBack, Walker::Retain];

/// Runs `visit` over `scene` through `walker` (`retain` keeps what the
/// closure keeps, and removes what it removes).
fn walk<C: ZCollection<Actor> + ?Sized>(
    scene: &mut C,
    walker: Walker,
    visit: &mut dyn FnMut(&Rc<ZObject<Actor>>) -> Visit,
) {
    match walker {
        Walker::BackToFront => {
            let _ = scene.update_back_to_front(&mut |object| Continue(visit(object)));
        }
        Walker::FrontToBack => {
            let _ = scene.update_front_to_back(&mut |object| Continue(visit(object)));
        }
        Walker::Retain => scene.retain(&mut |object| visit(object) == Visit::Keep),
    }
}

/// An update's or `retain`'s closure that panics changes nothing at all,
/// in either direction and in either kind of collection.
#[test]
fn a_panicking_update_closure_changes_nothing() {
    let drops = Rc::new(Cell::new(0));
    for walker in WALKERS {
        for simple in [false, true] {
            let mut a: Box<dyn ZCollection<Actor>> = if simple {
                Box::new(SimpleZCollection::new(10).unwrap())
            } else {
                Box::new(FixedPointZCollection::new(10).unwrap())
            };
            let objects: Vec<_> = (0..5).map(|i| actor(i, &drops)).collect();
            for o in &objects {
                a.add(o).unwrap();
            }
            let before: Vec<_> = a.back_to_front().map(Rc::as_ptr).collect();
            let mut visits = 0;
            let outcome = catch_unwind(AssertUnwindSafe(|| {
                walk(a.as_mut(), walker, &mut |object| {
                    visits += 1;
                    if visits == 3 {
                        panic!("closure panics")
                    }
                    // Decisions before the panic: none may take effect.
                    object.z.set(I16F16::from_num(7));
                    if visits == 1 {
                        Visit::Remove
                    } else {
                        Visit::Change
                    }
                })
            }));
            assert!(outcome.is_err(), "{walker:?}");
            assert_eq!(a.len(), 5, "{walker:?}: no decision took effect");
            let after: Vec<_> = a.back_to_front().map(Rc::as_ptr).collect();
            assert_eq!(after, before, "{walker:?}: the order is untouched");
            for o in &objects {
                assert_eq!(Rc::strong_count(o), 2);
            }
            a.check_invariants();
        }
    }
}

/// The keyed collection's in-walk closures: a panic changes nothing.
#[test]
fn a_panicking_closure_of_a_keyed_walk_changes_nothing() {
    use zorder::{KeyVisit, ZOrder};
    for walker in WALKERS {
        let mut order = ZOrder::<u32>::new(10).unwrap();
        for key in 0..6 {
            order.insert(key, I16F16::from_num(key % 3) / 2).unwrap();
        }
        let before: Vec<_> = order.iter().collect();
        let mut visits = 0;
        let mut visit = |_: u32, _: I16F16| {
            visits += 1;
            if visits == 4 {
                panic!("closure panics")
            }
            if visits == 1 {
                KeyVisit::Remove
            } else {
                KeyVisit::SetZ(I16F16::from_num(9.5))
            }
        };
        let outcome = catch_unwind(AssertUnwindSafe(|| match walker {
            Walker::BackToFront => drop(order.update_back_to_front(|k, z| Continue(visit(k, z)))),
            Walker::FrontToBack => drop(order.update_front_to_back(|k, z| Continue(visit(k, z)))),
            Walker::Retain => order.retain(|key, z| visit(key, z) == KeyVisit::Keep),
        }));
        assert!(outcome.is_err(), "{walker:?}");
        assert_eq!(order.iter().collect::<Vec<_>>(), before, "{walker:?}");
        order.check_invariants();
    }
}

/// A closure that uses another collection while one is walked sees that
/// other collection whole, and finds the walked objects still filed in the
/// walked one (so it cannot file them elsewhere).
#[test]
fn an_update_closure_that_uses_another_collection_sees_both_consistent() {
    let drops = Rc::new(Cell::new(0));
    for walker in WALKERS {
        let mut a = FixedPointZCollection::new(10).unwrap();
        let mut b = SimpleZCollection::new(10).unwrap();
        let objects: Vec<_> = (0..6).map(|i| actor(i, &drops)).collect();
        let outsiders: Vec<_> = (0..3).map(|i| actor(i, &drops)).collect();
        for o in &objects {
            a.add(o).unwrap();
        }
        let mut visits = 0;
        walk(&mut a, walker, &mut |object| {
            assert_eq!(
                b.add(object),
                Err(ZError::AlreadyInCollection),
                "{walker:?}"
            );
            assert_eq!(b.remove(object), Err(ZError::NotInCollection), "{walker:?}");
            if let Some(outsider) = outsiders.get(visits) {
                b.add(outsider).unwrap();
                b.change(outsider).unwrap();
            }
            b.check_invariants();
            visits += 1;
            if visits % 2 == 0 {
                Visit::Remove
            } else {
                Visit::Keep
            }
        });
        a.check_invariants();
        assert_eq!((a.len(), b.len()), (3, 3), "{walker:?}");
        // The removed objects are free once the walk is over.
        for o in &objects {
            if !a.contains(o) {
                b.add(o).unwrap();
            }
        }
        assert_eq!(b.len(), 6);
        b.check_invariants();
    }
}

/// Operations that need no Z read none: with every `z_order` panicking,
/// removing, walking, appending, draining and clearing still work.
#[test]
fn operations_that_need_no_z_never_call_z_order() {
    let drops = Rc::new(Cell::new(0));
    let mut a = FixedPointZCollection::new(10).unwrap();
    let objects: Vec<_> = (0..6).map(|i| actor(i, &drops)).collect();
    for o in &objects {
        a.add(o).unwrap();
    }
    for o in &objects {
        o.script.borrow_mut().panic_on_z_order = true;
    }
    a.remove(&objects[0]).unwrap();
    assert_eq!(a.back_to_front().count(), 5);
    a.retain(|o| !ZObject::ptr_eq(o, &objects[1]));
    let mut b = SimpleZCollection::new(10).unwrap();
    b.append(&mut a).unwrap();
    assert_eq!((a.len(), b.len()), (0, 4));
    assert_eq!(b.drain().count(), 4);
    b.clear();
    a.clear();
    for o in &objects {
        assert_eq!(Rc::strong_count(o), 1, "every handle came back");
    }
}

/// Keys run user code too (`Eq`, `index`); a key type whose `index`
/// lies makes answers unspecified, never a panic.
#[test]
fn a_key_with_an_inconsistent_index_never_panics() {
    use std::sync::atomic::{AtomicUsize, Ordering};
    static CALLS: AtomicUsize = AtomicUsize::new(0);
    #[derive(Clone, Copy, PartialEq, Eq, Debug)]
    struct Liar(u32);
    impl zorder::ZKey for Liar {
        fn index(&self) -> usize {
            // A different index every call, now and then huge.
            let n = CALLS.fetch_add(1, Ordering::Relaxed);
            if n % 7 == 0 {
                usize::MAX - n
            } else {
                (self.0 as usize + n) % 50
            }
        }
    }
    let mut order = zorder::ZOrder::new(10).unwrap();
    for step in 0..if cfg!(miri) { 200 } else { 2000u32 } {
        let key = Liar(step % 40);
        let z = I16F16::from_bits((step as i32 * 7919) % (12 << 16));
        let _ = order.insert(key, z);
        let _ = order.set_z(Liar(step % 13), z);
        let _ = order.remove(Liar(step % 17));
        let _ = order.refile(key);
        let _ = order.z_of(key);
        if step % 100 == 0 {
            let _ = order.back_to_front().count();
            order.retain(|k, _| k.0 % 3 != 0);
        }
    }
    let _ = format!("{order:?}");
    order.clear();
    assert!(order.is_empty());
}
