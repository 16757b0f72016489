//! The pruning clock over a game's lifetime: billions of traversals,
//! pretended with the hidden `pretend_walks` (the `check` feature), on both
//! faces. The count of buckets stays exact (the crate docs on pruning:
//! after `prune_after + 1` counting traversals with no change between, a
//! bucket left empty is gone) however far the clock has run, and nothing
//! panics.

#[macro_use]
mod support;

use support::{Face, distinct_z};
use zorder::I16F16;

const TWO_POW_32: u64 = 1 << 32;
const TWO_POW_33: u64 = 1 << 33;

fn z(value: f64) -> I16F16 {
    I16F16::from_num(value)
}

/// The buckets after each step, and the invariants.
fn expect<F: Face>(face: &F, buckets: usize, step: &str) {
    face.check();
    assert_eq!(face.buckets(), buckets, "{}: {step}", F::NAME);
}

/// `walks` counting traversals, each seeing `ids` back to front.
fn walk<F: Face>(face: &F, walks: u64, ids: &[u32]) {
    for _ in 0..walks {
        assert_eq!(face.ids(), ids, "{}", F::NAME);
    }
}

/// Buckets left waiting, then 2^32 and 2^33 pretended traversals, then
/// changes of every kind: each count is the contract's.
fn counts_stay_exact_past_2_pow_32_and_2_pow_33_walks<F: Face>(prune_after: u32) {
    let k = u64::from(prune_after);
    let mut face = F::build(10, prune_after);
    let objects: Vec<F::Object> = (0..8).map(F::object).collect();
    let [a, b, c, d, e, f, g, _] = &objects[..] else {
        unreachable!()
    };
    face.insert(a, z(0.5));
    face.insert(b, z(0.75));
    face.insert(c, z(1.5));
    face.insert(d, z(3.0)); // a level: never counted
    expect(&face, 3, "three distinct non-level Z values");
    face.remove(a);
    face.remove(b);
    expect(&face, 3, "two buckets wait");
    face.pretend_walks(k);
    expect(&face, 3, "k traversals have found them waiting");
    walk(&face, 1, &[2, 3]);
    expect(&face, 1, "the next traversal pruned them");

    // A bucket waits across 2^32 traversals.
    face.remove(c);
    expect(&face, 1, "c's bucket waits");
    face.pretend_walks(TWO_POW_32);
    expect(&face, 0, "2^32 traversals pruned it");
    walk(&face, 3, &[3]);
    expect(&face, 0, "traversals with nothing waiting");

    // Any change after that: a level, a distinct Z, a re-file, a removal.
    face.insert(e, z(7.0));
    expect(&face, 0, "a level after 2^32 traversals");
    face.insert(a, z(0.5));
    expect(&face, 1, "a Z that was pruned, filled again");
    face.remove(a);
    expect(&face, 1, "left waiting again");
    face.pretend_walks(TWO_POW_33);
    expect(&face, 0, "2^33 more traversals pruned it");
    face.insert(f, z(2.25));
    face.insert(g, z(2.25));
    expect(&face, 1, "two objects, one new Z");
    face.set_z(f, z(0.125));
    expect(&face, 2, "a second Z");
    face.set_z(g, z(0.125));
    expect(&face, 2, "2.25 waits, 0.125 lives");
    walk(&face, k.min(20), &[5, 6, 3, 4]);
    if k <= 20 {
        expect(&face, 2, "k traversals have found 2.25 waiting");
        walk(&face, 1, &[5, 6, 3, 4]);
    } else {
        face.pretend_walks(k - 20);
        expect(&face, 2, "k traversals have found 2.25 waiting");
        walk(&face, 1, &[5, 6, 3, 4]);
    }
    expect(&face, 1, "the next pruned 2.25");

    // Buckets that start waiting at two times, 3 × 2^32 and more
    // traversals into the game.
    face.pretend_walks(TWO_POW_32 + 7);
    expect(&face, 1, "pretended traversals with nothing waiting");
    face.set_z(f, z(-0.5));
    expect(&face, 2, "f alone at -0.5, g at 0.125");
    face.remove(g);
    expect(&face, 2, "0.125 waits");
    face.pretend_walks(k / 2);
    face.remove(f);
    expect(&face, 2, "-0.5 waits too, k / 2 traversals later");
    face.insert(b, z(-0.75));
    expect(&face, 3, "and -0.75 lives");
    face.pretend_walks(k - k / 2);
    expect(&face, 3, "k traversals have found 0.125 waiting");
    walk(&face, 1, &[1, 3, 4]);
    if k / 2 == 0 {
        expect(&face, 1, "both waited since the same time: both pruned");
    } else {
        expect(&face, 2, "0.125 pruned, -0.5 waits on");
        face.pretend_walks(k / 2 - 1);
        expect(&face, 2, "-0.5: one traversal short");
        walk(&face, 1, &[1, 3, 4]);
        expect(&face, 1, "-0.5 pruned");
    }

    face.shrink_to_fit();
    expect(&face, 1, "shrinking keeps the count");
    face.clear();
    expect(&face, 0, "cleared");
    assert_eq!(face.len(), 0);
}

/// The same for each threshold, the largest included (three of them under
/// Miri).
fn counts_stay_exact_for_every_threshold<F: Face>() {
    let thresholds: &[u32] = if cfg!(miri) {
        &[1, 8, u32::MAX]
    } else {
        &[1, 2, 8, 1000, u32::MAX]
    };
    for &prune_after in thresholds {
        counts_stay_exact_past_2_pow_32_and_2_pow_33_walks::<F>(prune_after);
    }
}

/// The largest threshold: a bucket is pruned by traversal 2^32 exactly,
/// not one before (a 32-bit clock would wrap there).
fn the_largest_threshold_prunes_at_2_pow_32<F: Face>() {
    let mut face = F::build(10, u32::MAX);
    let a = F::object(0);
    face.insert(&a, z(0.5));
    face.remove(&a);
    face.pretend_walks(TWO_POW_32 - 1);
    expect(&face, 1, "2^32 - 1 traversals: still waiting");
    walk(&face, 1, &[]);
    expect(&face, 0, "traversal 2^32 pruned it");
}

/// The old bug's repro: a 32-bit clock wrapped after 2^32 traversals, and
/// the next bucket to wait was mis-timed. With `prune_after` 1: two
/// buckets wait and are pruned, 2^32 + 2 traversals pass, then an insert
/// and a removal.
fn the_wrapping_clock_bug_stays_fixed<F: Face>() {
    let mut face = F::build(10, 1);
    let objects: Vec<F::Object> = (0..3).map(F::object).collect();
    face.insert(&objects[0], z(0.5));
    face.insert(&objects[1], z(1.5));
    face.remove(&objects[0]);
    face.remove(&objects[1]);
    expect(&face, 2, "two buckets wait");
    face.pretend_walks(TWO_POW_32 + 2);
    expect(&face, 0, "pruned");
    face.insert(&objects[2], z(0.25));
    expect(&face, 1, "insert");
    face.remove(&objects[2]);
    expect(&face, 1, "remove: the bucket waits");
    walk(&face, 1, &[]);
    expect(&face, 1, "one traversal has found it waiting");
    walk(&face, 1, &[]);
    expect(&face, 0, "the second pruned it");
}

/// Many buckets waiting in many groups across the 2^32 boundary: each
/// group is pruned exactly `prune_after + 1` traversals after it started
/// waiting.
fn groups_across_2_pow_32<F: Face>() {
    const PRUNE_AFTER: u32 = 4;
    let groups: u32 = if cfg!(miri) { 6 } else { 40 };
    let mut face = F::build(31, PRUNE_AFTER);
    let objects: Vec<F::Object> = (0..groups * 3).map(F::object).collect();
    for (i, object) in (0..).zip(&objects) {
        face.insert(object, distinct_z(i));
    }
    let live = objects.len();
    expect(&face, live, "every object at its own Z");
    // Three buckets a group, one traversal between groups, the first
    // group a traversal short of 2^32.
    face.pretend_walks(TWO_POW_32 - 1);
    for group in objects.chunks(3) {
        for object in group {
            face.remove(object);
        }
        face.walk();
    }
    let groups = groups as usize;
    // Group i started waiting at (2^32 - 1) + i and has seen
    // `groups - i` traversals; it is pruned once it has seen 5.
    let pruned = groups - (PRUNE_AFTER as usize).min(groups);
    expect(&face, live - 3 * pruned, "groups pruned one a traversal");
    for more in 1..=PRUNE_AFTER as usize {
        face.walk();
        let pruned = (groups + more).saturating_sub(PRUNE_AFTER as usize);
        expect(&face, live - 3 * pruned.min(groups), "one more group");
    }
    expect(&face, 0, "all pruned");
}

/// Buckets waiting in two groups (started at different traversals) when
/// the collection shrinks, which rebuilds the records of the waiting
/// buckets: each group is still pruned on time. Then more buckets wait
/// than the cap allows (the crate docs: at most `max(1024, live)`), so
/// each removal after a shrink prunes a waiting bucket at once (the
/// longest-waiting, which the ledger finds through the records the shrink
/// rebuilt; the count cannot tell which).
fn shrinking_while_buckets_wait<F: Face>() {
    let mut face = F::build(31, 3);
    let objects: Vec<F::Object> = (0..6).map(F::object).collect();
    for (i, object) in (0..).zip(&objects) {
        face.insert(object, distinct_z(i));
    }
    for object in &objects[..3] {
        face.remove(object);
    }
    face.walk();
    for object in &objects[3..5] {
        face.remove(object);
    }
    expect(&face, 6, "one live, three waiting since 0, two since 1");
    face.shrink_to_fit();
    expect(&face, 6, "shrinking keeps both groups waiting");
    face.walk();
    face.walk();
    expect(&face, 6, "the first group has been found waiting 3 times");
    face.walk();
    expect(&face, 3, "the first group pruned on the 4th traversal");
    face.walk();
    expect(&face, 1, "the second group a traversal later");

    // The cap: 1,024 buckets waiting and 10 live, shrunk, then the live
    // ones leave one by one.
    if cfg!(miri) {
        return;
    }
    const CAP: u32 = 1024;
    let mut face = F::build(31, 8);
    let objects: Vec<F::Object> = (0..CAP + 10).map(F::object).collect();
    for (i, object) in (0..).zip(&objects) {
        face.insert(object, distinct_z(i));
    }
    for object in &objects[..CAP as usize] {
        face.remove(object);
    }
    expect(&face, CAP as usize + 10, "1,024 waiting, at the cap");
    face.shrink_to_fit();
    expect(&face, CAP as usize + 10, "shrinking keeps them");
    for (left, object) in (0..10).rev().zip(&objects[CAP as usize..]) {
        face.remove(object);
        expect(&face, CAP as usize + left, "each removal prunes one");
    }
    for _ in 0..8 {
        face.walk();
    }
    expect(&face, CAP as usize, "8 traversals prune nothing");
    face.walk();
    expect(&face, 0, "the 9th prunes every bucket");
}

on_both_faces! {
    shrinking_keeps_waiting_buckets_in_order => shrinking_while_buckets_wait();

    counts_stay_exact_past_2_pow_32_and_2_pow_33_walks => counts_stay_exact_for_every_threshold();
    the_largest_threshold_prunes_at_2_pow_32 => the_largest_threshold_prunes_at_2_pow_32();
    the_wrapping_clock_bug_stays_fixed => the_wrapping_clock_bug_stays_fixed();
    groups_are_pruned_on_time_across_2_pow_32 => groups_across_2_pow_32();
}
