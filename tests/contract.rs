//! The ordering contract of CONTRACT.md, point by point, with edge values,
//! on both collections. (tests/model.rs checks the same points against a
//! model on random operation sequences.)

mod common;

use std::cell::Cell;
use std::iter::FusedIterator;
use std::rc::Rc;

use common::{Obj, obj, z};
use zorder::{
    BackToFront, DEFAULT_PRUNE_AFTER, DEFAULT_Z, FixedPointZCollection, FrontToBack, I16F16,
    MAX_LEVEL_LIMIT, SimpleZCollection, Visit, ZCollection, ZError, ZObject,
};

type Sprite = Cell<I16F16>;

fn fixed(max_level: u16) -> FixedPointZCollection<Sprite> {
    FixedPointZCollection::new(max_level).unwrap()
}

fn simple(max_level: u16) -> SimpleZCollection<Sprite> {
    SimpleZCollection::new(max_level).unwrap()
}

/// Positions of the yielded objects in `objects`.
fn order<'a>(objects: &[Obj], it: impl Iterator<Item = &'a ZObject<Sprite>>) -> Vec<usize> {
    it.map(|o| objects.iter().position(|h| h.same(o)).unwrap())
        .collect()
}

fn b2f(c: &dyn ZCollection<Sprite>, objects: &[Obj]) -> Vec<usize> {
    order(objects, c.back_to_front())
}

fn f2b(c: &dyn ZCollection<Sprite>, objects: &[Obj]) -> Vec<usize> {
    order(objects, c.front_to_back())
}

fn add_all(c: &mut dyn ZCollection<Sprite>, objects: &[Obj]) {
    for o in objects {
        c.add(o).unwrap();
    }
}

fn bits(b: i32) -> I16F16 {
    I16F16::from_bits(b)
}

// ---- 1. Back to front is ascending Z, ties by the last Z-action ---------

#[test]
fn point1_back_to_front_is_ascending_z_over_every_kind_of_value() {
    let max_level = 10;
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
    let objects: Vec<Obj> = zs.iter().map(|&v| obj(v)).collect();
    let mut c = fixed(max_level);
    add_all(&mut c, &objects);
    let mut expected: Vec<usize> = (0..zs.len()).collect();
    expected.sort_by_key(|&i| zs[i]);
    assert_eq!(b2f(&c, &objects), expected);
}

#[test]
fn point1_equal_z_keeps_the_order_of_the_last_z_action() {
    for c in [
        &mut fixed(5) as &mut dyn ZCollection<Sprite>,
        &mut simple(5),
    ] {
        let objects: Vec<Obj> = (0..4).map(|_| obj(z(2.0))).collect();
        add_all(c, &objects);
        assert_eq!(b2f(c, &objects), [0, 1, 2, 3]);
        // Moving away and back counts as a later Z-action.
        objects[1].set(z(4.0));
        c.change(&objects[1]).unwrap();
        objects[1].set(z(2.0));
        c.change(&objects[1]).unwrap();
        assert_eq!(b2f(c, &objects), [0, 2, 3, 1]);
        // Removing and re-adding too.
        c.remove(&objects[0]).unwrap();
        c.add(&objects[0]).unwrap();
        assert_eq!(b2f(c, &objects), [2, 3, 1, 0]);
    }
}

#[test]
fn point1_equal_z_ties_hold_for_non_optimized_and_default_z() {
    for shared_z in [DEFAULT_Z, I16F16::MIN, z(-7.25), z(1000.0), bits(1)] {
        let objects: Vec<Obj> = (0..3).map(|_| obj(shared_z)).collect();
        let mut c = fixed(4);
        add_all(&mut c, &objects);
        c.change(&objects[0]).unwrap();
        assert_eq!(b2f(&c, &objects), [1, 2, 0], "Z {shared_z}");
    }
}

#[test]
fn point1_with_max_level_zero() {
    for c in [
        &mut fixed(0) as &mut dyn ZCollection<Sprite>,
        &mut simple(0),
    ] {
        let objects = [obj(z(0.0)), obj(z(0.0))];
        add_all(c, &objects);
        assert_eq!(b2f(c, &objects), [0, 1]);
        assert_eq!(c.max_level(), 0);
    }
    let objects = [
        obj(z(1.0)),
        obj(z(0.5)),
        obj(z(0.0)),
        obj(z(-0.5)),
        obj(DEFAULT_Z),
    ];
    let mut c = fixed(0);
    add_all(&mut c, &objects);
    assert_eq!(b2f(&c, &objects), [3, 2, 1, 0, 4]);
    assert_eq!(c.nonoptimized_buckets(), 3);
}

// ---- 2. Front to back is the exact reverse -------------------------------

#[test]
fn point2_front_to_back_is_the_exact_reverse() {
    let zs = [3.0, 1.0, 3.0, -1.0, 2.5, 3.0, 1.0];
    let objects: Vec<Obj> = zs.iter().map(|&v| obj(z(v))).collect();
    let mut c = fixed(3);
    add_all(&mut c, &objects);
    let mut reversed = f2b(&c, &objects);
    reversed.reverse();
    assert_eq!(reversed, b2f(&c, &objects));
    assert_eq!(b2f(&c, &objects), [3, 1, 6, 4, 0, 2, 5]);
}

// ---- 3. change re-files even when Z did not change -----------------------

#[test]
fn point3_change_at_the_same_z_pops_to_the_front_of_the_level() {
    for c in [
        &mut fixed(5) as &mut dyn ZCollection<Sprite>,
        &mut simple(5),
    ] {
        let objects: Vec<Obj> = (0..3).map(|_| obj(z(5.0))).collect();
        add_all(c, &objects);
        c.change(&objects[0]).unwrap();
        assert_eq!(f2b(c, &objects), [0, 2, 1]);
        c.change(&objects[2]).unwrap();
        assert_eq!(f2b(c, &objects), [2, 0, 1]);
    }
}

// ---- 4. Every I16F16 is a legal Z; the default Z -------------------------

#[test]
fn point4_every_value_is_legal_in_the_fixed_point_collection() {
    // Miri is too slow to open all 32768 levels; the order does not care.
    let top = if cfg!(miri) { 1001 } else { MAX_LEVEL_LIMIT };
    for max_level in [0, 1000, top] {
        let mut c = fixed(max_level);
        let extremes = [
            I16F16::MIN,
            bits(-1),
            bits(0),
            bits(1),
            z(32767.0),
            DEFAULT_Z,
        ];
        let objects: Vec<Obj> = extremes.iter().map(|&v| obj(v)).collect();
        add_all(&mut c, &objects);
        assert_eq!(b2f(&c, &objects), [0, 1, 2, 3, 4, 5]);
        let top_is_a_level = max_level == MAX_LEVEL_LIMIT;
        assert_eq!(
            c.nonoptimized_buckets(),
            if top_is_a_level { 3 } else { 4 },
            "MIN, -DELTA, +DELTA, and 32767 unless it is a level"
        );
    }
}

#[test]
fn point4_creation_is_default_z_then_the_layer() {
    let mut c = fixed(100);
    let all: Vec<Obj> = std::iter::once(obj(z(7.0)))
        .chain((0..3).map(|_| obj(DEFAULT_Z)))
        .collect();
    add_all(&mut c, &all);
    // Every default-Z object is in front of everything else, in creation order.
    assert_eq!(b2f(&c, &all), [0, 1, 2, 3]);
    // Then each moves to its layer: the later move is further front.
    for o in all[1..].iter().rev() {
        o.set(z(7.0));
        c.change(o).unwrap();
    }
    assert_eq!(b2f(&c, &all), [0, 3, 2, 1]);
    assert_eq!(
        c.nonoptimized_buckets(),
        0,
        "the default bucket is not counted"
    );
}

#[test]
fn point4_the_simple_collection_refuses_every_z_that_is_not_a_level() {
    let mut c = simple(10);
    for bad in [
        DEFAULT_Z,
        I16F16::MIN,
        bits(-1),
        bits(1),
        z(10.5),
        z(11.0),
        z(9.999),
    ] {
        let o = obj(bad);
        assert_eq!(
            c.add(&o),
            Err(ZError::ZOutOfRange {
                z: bad,
                max_level: 10
            })
        );
        assert!(!o.is_in_collection());
    }
    assert!(c.is_empty());
    for good in [0.0, 10.0] {
        c.add(&obj(z(good))).unwrap();
    }
    assert_eq!(c.len(), 2);
}

// ---- 5. Misuse is an error that changes nothing --------------------------

/// Everything observable about a collection, to show an error changed
/// nothing.
fn snapshot(
    c: &dyn ZCollection<Sprite>,
    objects: &[Obj],
) -> (usize, Vec<usize>, Vec<usize>, Vec<bool>, usize) {
    (
        c.len(),
        b2f(c, objects),
        f2b(c, objects),
        objects.iter().map(|o| c.contains(o)).collect(),
        c.nonoptimized_buckets(),
    )
}

#[test]
fn point5_every_misuse_is_an_error_that_changes_nothing() {
    let objects: Vec<Obj> = [1.0, 2.5, 1.0, 3.0].iter().map(|&v| obj(z(v))).collect();
    let (a_objects, loose) = objects.split_at(3);
    for (mut a, mut b) in [
        (
            Box::new(fixed(4)) as Box<dyn ZCollection<Sprite>>,
            Box::new(fixed(4)) as Box<dyn ZCollection<Sprite>>,
        ),
        (Box::new(fixed(4)), Box::new(simple(4))),
        (Box::new(simple(4)), Box::new(fixed(4))),
    ] {
        let in_a = if a.add(&objects[1]).is_ok() {
            a_objects
        } else {
            // a simple collection refuses 2.5
            &a_objects[..1]
        };
        if in_a.len() == 3 {
            a.add(&objects[0]).unwrap();
            a.add(&objects[2]).unwrap();
        } else {
            a.add(&objects[0]).unwrap();
        }
        let before_a = snapshot(a.as_ref(), &objects);
        let before_b = snapshot(b.as_ref(), &objects);
        for o in in_a {
            assert_eq!(a.add(o), Err(ZError::AlreadyInCollection), "adding twice");
            assert_eq!(
                b.add(o),
                Err(ZError::AlreadyInCollection),
                "adding to a second collection"
            );
            assert_eq!(
                b.remove(o),
                Err(ZError::NotInCollection),
                "removing from the wrong one"
            );
            assert_eq!(
                b.change(o),
                Err(ZError::NotInCollection),
                "changing in the wrong one"
            );
        }
        for o in loose {
            assert_eq!(
                a.remove(o),
                Err(ZError::NotInCollection),
                "removing what is not there"
            );
            assert_eq!(
                a.change(o),
                Err(ZError::NotInCollection),
                "changing what is not there"
            );
        }
        assert_eq!(snapshot(a.as_ref(), &objects), before_a);
        assert_eq!(snapshot(b.as_ref(), &objects), before_b);
        // Removed, the object may go to the other collection.
        a.remove(&objects[0]).unwrap();
        assert_eq!(
            a.remove(&objects[0]),
            Err(ZError::NotInCollection),
            "removing twice"
        );
        b.add(&objects[0]).unwrap();
        assert!(b.contains(&objects[0]) && !a.contains(&objects[0]));
        a.clear();
        b.clear();
    }
}

#[test]
fn point5_a_refused_change_in_the_simple_collection_keeps_the_old_place() {
    let mut c = simple(3);
    let objects: Vec<Obj> = (0..3).map(|_| obj(z(1.0))).collect();
    add_all(&mut c, &objects);
    objects[0].set(z(1.5));
    assert_eq!(
        c.change(&objects[0]),
        Err(ZError::ZOutOfRange {
            z: z(1.5),
            max_level: 3
        })
    );
    assert_eq!(b2f(&c, &objects), [0, 1, 2], "not popped to the front");
}

#[test]
fn point5_objects_of_a_dropped_collection_are_free_again() {
    let o = obj(z(1.0));
    {
        let mut gone = fixed(2);
        gone.add(&o).unwrap();
        assert_eq!(Rc::strong_count(&o), 2);
    }
    assert!(!o.is_in_collection());
    assert_eq!(Rc::strong_count(&o), 1);
    let mut next = simple(2);
    next.add(&o).unwrap();
    assert!(next.contains(&o));
}

#[test]
fn constructors_refuse_bad_settings() {
    assert_eq!(
        FixedPointZCollection::<Sprite>::new(MAX_LEVEL_LIMIT + 1).err(),
        Some(ZError::MaxLevelTooLarge { max_level: 32768 })
    );
    assert_eq!(
        SimpleZCollection::<Sprite>::new(u16::MAX).err(),
        Some(ZError::MaxLevelTooLarge {
            max_level: u16::MAX
        })
    );
    assert_eq!(
        FixedPointZCollection::<Sprite>::with_prune_after(3, 0).err(),
        Some(ZError::ZeroPruneThreshold)
    );
    assert_eq!(fixed(3).prune_after(), DEFAULT_PRUNE_AFTER);
    const { assert!(DEFAULT_PRUNE_AFTER >= 1 && DEFAULT_PRUNE_AFTER <= 16) };
}

#[test]
fn errors_display_and_name_themselves() {
    let errors = [
        ZError::AlreadyInCollection,
        ZError::NotInCollection,
        ZError::ZOutOfRange {
            z: z(1.5),
            max_level: 3,
        },
        ZError::MaxLevelTooLarge { max_level: 40000 },
        ZError::ZeroPruneThreshold,
    ];
    let shown: Vec<String> = errors.iter().map(|e| e.to_string()).collect();
    assert_eq!(
        shown[2],
        "Z 1.5 is not a level of this collection (a natural number from 0 to 3)"
    );
    assert_eq!(errors[0].code(), "already-in-collection");
    assert_eq!(errors[2].code(), "z-out-of-range");
    let boxed: Box<dyn std::error::Error> = Box::new(errors[1]);
    assert_eq!(boxed.to_string(), "the object is not in this Z collection");
}

// ---- 6. Traversal visits each object once; empty yields nothing ----------

#[test]
fn point6_an_empty_collection_yields_nothing() {
    let c = fixed(10);
    assert_eq!(c.back_to_front().next().map(|o| o.get()), None);
    assert_eq!(c.front_to_back().len(), 0);
    let s = simple(10);
    assert!(s.back_to_front().next_back().is_none());
    assert!((&s).into_iter().next().is_none());
}

#[test]
fn point6_iterators_are_exact_double_ended_fused_and_clone() {
    fn traits<I: DoubleEndedIterator + ExactSizeIterator + FusedIterator + Clone>(_: &I) {}
    let objects: Vec<Obj> = [0.0, 2.0, 1.5, 2.0, -3.0, 9.0]
        .iter()
        .map(|&v| obj(z(v)))
        .collect();
    let mut c = fixed(4);
    add_all(&mut c, &objects);
    let b: BackToFront<'_, Sprite> = c.back_to_front();
    let f: FrontToBack<'_, Sprite> = c.front_to_back();
    traits(&b);
    traits(&f);
    let expected = [4, 0, 2, 1, 3, 5];
    // Meeting in the middle from both ends, inside one bucket and across.
    for front_steps in 0..=6 {
        let mut it = c.back_to_front();
        let mut seen: Vec<usize> = order(&objects, it.by_ref().take(front_steps));
        assert_eq!(it.len(), 6 - front_steps);
        let mut tail: Vec<usize> = order(&objects, it.by_ref().rev());
        tail.reverse();
        seen.extend(tail);
        assert_eq!(seen, expected, "{front_steps} steps from the front first");
        assert!(it.next().is_none() && it.next_back().is_none());
    }
    let mut it = c.front_to_back();
    it.next();
    let clone = it.clone();
    assert_eq!(order(&objects, clone), order(&objects, it));
    assert_eq!(
        order(&objects, (&c).into_iter()),
        expected,
        "&collection iterates back to front"
    );
    assert!(format!("{:?}", c.back_to_front()).contains("remaining: 6"));
}

#[test]
fn point6_nested_traversals_see_every_pair() {
    let objects: Vec<Obj> = (0..5).map(|i| obj(z(f64::from(i) * 0.5))).collect();
    let mut c = fixed(2);
    add_all(&mut c, &objects);
    let mut pairs = Vec::new();
    for a in c.back_to_front() {
        for b in c.front_to_back() {
            pairs.push((
                order(&objects, [a].into_iter())[0],
                order(&objects, [b].into_iter())[0],
            ));
        }
    }
    assert_eq!(pairs.len(), 25);
    pairs.sort();
    pairs.dedup();
    assert_eq!(pairs.len(), 25, "every ordered pair exactly once");
}

/// A collection large enough that traversals prefetch objects a block ahead
/// (from 32,768 objects; under Miri, 200, still two blocks a bucket),
/// churned so blocks have holes and sit apart: both orders, and both ends
/// meeting in the middle, still match the model.
#[test]
fn point6_large_churned_collections_traverse_exactly_once_in_order() {
    let count: usize = if cfg!(miri) { 200 } else { 40_000 };
    let zs = [z(0.0), z(3.0), z(-1.25), z(7.5), DEFAULT_Z];
    let objects: Vec<Obj> = (0..count).map(|i| obj(zs[i % zs.len()])).collect();
    let mut c = fixed(5);
    add_all(&mut c, &objects);
    // The model: (z, seq) per object.
    let mut keys: Vec<(I16F16, usize)> = (0..count).map(|i| (objects[i].get(), i)).collect();
    let mut seq = count;
    // Churn: every third object moves to another Z, every seventh is
    // removed and added back.
    for i in (0..count).step_by(3) {
        objects[i].set(zs[(i / 3) % zs.len()]);
        c.change(&objects[i]).unwrap();
        keys[i] = (objects[i].get(), seq);
        seq += 1;
    }
    for i in (0..count).step_by(7) {
        c.remove(&objects[i]).unwrap();
        c.add(&objects[i]).unwrap();
        keys[i] = (objects[i].get(), seq);
        seq += 1;
    }
    let mut expected: Vec<usize> = (0..count).collect();
    expected.sort_by_key(|&i| keys[i]);
    // Name objects by address: a search per object would be quadratic.
    let ids: std::collections::HashMap<*const ZObject<Sprite>, usize> = objects
        .iter()
        .enumerate()
        .map(|(i, o)| (Rc::as_ptr(o), i))
        .collect();
    let id = |o: &ZObject<Sprite>| ids[&std::ptr::from_ref(o)];
    let back_to_front: Vec<usize> = c.back_to_front().map(id).collect();
    assert_eq!(back_to_front, expected);
    let mut front_to_back: Vec<usize> = c.front_to_back().map(id).collect();
    front_to_back.reverse();
    assert_eq!(front_to_back, expected);
    let mut it = c.back_to_front();
    let mut front: Vec<usize> = it.by_ref().take(count / 3).map(id).collect();
    let mut back: Vec<usize> = it.rev().map(id).collect();
    back.reverse();
    front.extend(back);
    assert_eq!(front, expected, "both ends, meeting in the middle");
}

// ---- Removing and re-Z-ing while walking ---------------------------------

#[test]
fn update_visits_each_object_once_even_when_it_moves_ahead() {
    let objects: Vec<Obj> = (0..6).map(|i| obj(z(f64::from(i)))).collect();
    let mut c = fixed(10);
    add_all(&mut c, &objects);
    let mut visits = 0;
    let done = c.update(|o| {
        visits += 1;
        let level: i32 = o.get().to_num();
        match level {
            0 | 3 => Visit::Remove,
            1 => {
                o.set(z(8.0)); // ahead of the walk
                Visit::Change
            }
            _ => Visit::Keep,
        }
    });
    assert_eq!(visits, 6);
    assert_eq!(
        done,
        zorder::Updated {
            removed: 2,
            changed: 1,
            refused: 0
        }
    );
    assert_eq!(b2f(&c, &objects), [2, 4, 5, 1]);
    assert_eq!(Rc::strong_count(&objects[0]), 1);

    let kept = c.retain(|o| o.get() > 3);
    assert_eq!(kept, 1);
    assert_eq!(b2f(&c, &objects), [4, 5, 1]);
}

#[test]
fn update_in_the_simple_collection_counts_refused_changes() {
    let objects: Vec<Obj> = (0..3).map(|_| obj(z(1.0))).collect();
    let mut c = simple(2);
    add_all(&mut c, &objects);
    let done = c.update(|o| {
        o.set(if o.same(&objects[1]) { z(7.0) } else { z(2.0) });
        Visit::Change
    });
    assert_eq!((done.changed, done.refused), (2, 1));
    assert_eq!(b2f(&c, &objects), [1, 0, 2]);
}

// ---- Buckets between the levels, and pruning -----------------------------

#[test]
fn walks_join_existing_buckets_and_open_new_ones_in_place() {
    let mut c = FixedPointZCollection::with_prune_after(3, 2).unwrap();
    let zs = [-1.0, -2.0, -1.0, 1.5, 1.25, 1.5, 7.0, 5.0, 7.0, 3.0];
    let objects: Vec<Obj> = zs.iter().map(|&v| obj(z(v))).collect();
    add_all(&mut c, &objects);
    assert_eq!(c.nonoptimized_buckets(), 6, "-2, -1, 1.25, 1.5, 5, 7");
    assert_eq!(b2f(&c, &objects), [1, 0, 2, 4, 3, 5, 9, 7, 6, 8]);
}

#[test]
fn empty_buckets_are_pruned_after_the_threshold_and_refills_restart_the_count() {
    let k = 3;
    let mut c = FixedPointZCollection::with_prune_after(2, k).unwrap();
    let a = obj(z(0.5));
    let b = obj(z(-4.0));
    c.add(&a).unwrap();
    c.add(&b).unwrap();
    c.remove(&a).unwrap();
    assert_eq!(c.nonoptimized_buckets(), 2);
    // Found empty k - 1 times, then refilled: the bucket survives.
    for _ in 0..k - 1 {
        assert_eq!(c.back_to_front().count(), 1);
    }
    c.add(&a).unwrap();
    c.remove(&a).unwrap();
    for _ in 0..k {
        assert_eq!(c.front_to_back().count(), 1);
        assert_eq!(c.nonoptimized_buckets(), 2, "not yet");
    }
    // The (k + 1)-th traversal frees it.
    assert_eq!(c.back_to_front().count(), 1);
    assert_eq!(c.nonoptimized_buckets(), 1);
    // The bucket of a live object is never freed.
    for _ in 0..3 * k {
        c.back_to_front().for_each(drop);
    }
    assert_eq!(c.nonoptimized_buckets(), 1);
    assert!(c.contains(&b));
}

#[test]
fn no_pruning_happens_under_a_live_traversal() {
    let mut c = FixedPointZCollection::with_prune_after(1, 1).unwrap();
    let keep = obj(z(1.0));
    let gone = obj(z(0.5));
    c.add(&keep).unwrap();
    c.add(&gone).unwrap();
    c.remove(&gone).unwrap();
    c.back_to_front().for_each(drop); // finds the 0.5 bucket empty once
    let outer = c.back_to_front(); // would prune, but...
    assert_eq!(
        c.nonoptimized_buckets(),
        0,
        "...it started with no traversal alive"
    );
    drop(outer);
    gone.set(z(0.25));
    c.add(&gone).unwrap();
    c.remove(&gone).unwrap();
    let mut outer = c.back_to_front();
    c.back_to_front().for_each(drop);
    let inner = c.front_to_back(); // due, but the outer traversal is alive
    assert_eq!(c.nonoptimized_buckets(), 1);
    assert!(outer.next().unwrap().same(&keep));
    drop((outer, inner));
    c.back_to_front().for_each(drop);
    assert_eq!(c.nonoptimized_buckets(), 0);
}

#[test]
fn clear_frees_non_optimized_buckets_and_keeps_the_collection_usable() {
    let mut c = fixed(2);
    let objects: Vec<Obj> = [0.5, -1.0, 2.0, 99.0, DEFAULT_Z.to_num()]
        .iter()
        .map(|&v| obj(z(v)))
        .collect();
    add_all(&mut c, &objects);
    assert_eq!(c.nonoptimized_buckets(), 3);
    // The negatives' bucket is emptied, waiting to be pruned, in a section
    // that no longer holds objects: clear frees it all the same.
    c.remove(&objects[1]).unwrap();
    assert_eq!(c.nonoptimized_buckets(), 3);
    c.clear();
    assert_eq!((c.len(), c.nonoptimized_buckets()), (0, 0));
    assert!(
        objects
            .iter()
            .all(|o| !o.is_in_collection() && Rc::strong_count(o) == 1)
    );
    add_all(&mut c, &objects);
    assert_eq!(b2f(&c, &objects), [1, 0, 2, 3, 4]);

    // Many levels, few of them used: clear empties the used ones. (Fewer
    // under Miri; the `sections` unit test covers the occupancy bitmap past
    // its first summary word there.)
    let top = if cfg!(miri) { 300 } else { MAX_LEVEL_LIMIT };
    let mut c = fixed(top);
    let middle = f64::from(top / 2);
    let objects: Vec<Obj> = [0.0, middle, middle, f64::from(top), middle + 0.5]
        .iter()
        .map(|&v| obj(z(v)))
        .collect();
    add_all(&mut c, &objects);
    c.clear();
    assert!(c.is_empty() && c.back_to_front().next().is_none());
    assert!(objects.iter().all(|o| Rc::strong_count(o) == 1));
    add_all(&mut c, &objects[1..3]);
    assert_eq!(b2f(&c, &objects), [1, 2]);
}

// ---- Handles come back: nothing leaks ------------------------------------

#[test]
fn strong_counts_return_after_remove_clear_update_and_drop() {
    let objects: Vec<Obj> = [0.0, 1.5, DEFAULT_Z.to_num(), -3.0]
        .iter()
        .map(|&v| obj(z(v)))
        .collect();
    let counts = |objects: &[Obj]| objects.iter().map(Rc::strong_count).collect::<Vec<_>>();
    let mut c = fixed(2);
    add_all(&mut c, &objects);
    assert_eq!(counts(&objects), [2, 2, 2, 2]);
    c.remove(&objects[0]).unwrap();
    assert_eq!(counts(&objects), [1, 2, 2, 2]);
    let _ = c.update(|o| {
        if o.same(&objects[1]) {
            Visit::Remove
        } else {
            Visit::Change
        }
    });
    assert_eq!(counts(&objects), [1, 1, 2, 2]);
    c.clear();
    assert_eq!(counts(&objects), [1, 1, 1, 1]);
    add_all(&mut c, &objects);
    drop(c);
    assert_eq!(counts(&objects), [1, 1, 1, 1]);

    let mut s = simple(2);
    s.add(&objects[0]).unwrap();
    drop(s);
    assert_eq!(counts(&objects), [1, 1, 1, 1]);
}

#[test]
fn a_collection_drops_the_objects_only_it_held() {
    struct Noisy<'a>(&'a Cell<u32>, I16F16);
    impl Drop for Noisy<'_> {
        fn drop(&mut self) {
            self.0.set(self.0.get() + 1);
        }
    }
    impl zorder::ZSortable for Noisy<'_> {
        fn z_order(&self) -> I16F16 {
            self.1
        }
    }
    let dropped = Cell::new(0);
    let mut c = FixedPointZCollection::new(3).unwrap();
    for v in [0.0, 0.5, 3.0] {
        c.add(&Rc::new(ZObject::new(Noisy(&dropped, z(v)))))
            .unwrap();
    }
    assert_eq!(dropped.get(), 0);
    drop(c);
    assert_eq!(dropped.get(), 3);
}

#[test]
fn debug_shows_the_variant_and_the_objects_without_pruning() {
    let mut c = FixedPointZCollection::with_prune_after(2, 1).unwrap();
    let o = obj(z(1.5));
    c.add(&o).unwrap();
    c.remove(&o).unwrap();
    c.add(&obj(z(2.0))).unwrap();
    for _ in 0..5 {
        let _ = format!("{c:?}");
    }
    assert_eq!(
        c.nonoptimized_buckets(),
        1,
        "Debug neither counts nor prunes"
    );
    let shown = format!("{c:?}");
    assert!(
        shown.starts_with("FixedPointZCollection { max_level: 2, len: 1"),
        "{shown}"
    );
    assert!(
        shown.contains("back_to_front: [Cell { value: 2 }]"),
        "{shown}"
    );
    assert!(format!("{:?}", simple(1)).starts_with("SimpleZCollection"));
    assert_eq!(
        format!("{o:?}"),
        "ZObject { value: Cell { value: 1.5 }, in_collection: false }"
    );
}
