//! Library bugs the model-based harness (`zorder-testkit`) found, each as
//! the smallest program that shows it. A test stays `#[ignore]`d while its
//! bug stands, with the harness steering around the bug where it would
//! otherwise stop every run (each place says so and names the test);
//! the fix un-ignores the test and removes that steering.

use std::ops::Bound;

use zorder::{I16F16, ZOrder};

/// `replace` of a key held in the sorted tree (a Z other than a level or
/// the default Z) takes whatever key sits at the slot the key table's hint
/// names, which a later insert into the same leaf has moved: here it
/// removes key 10, files key 8 a second time, and leaves the key table
/// wrong. (`ZOrder::replace` finds the held key with `find(place, |_|
/// true)`; the hint of a tree place is not exact, so the search must match
/// the key's index.) The harness: `KeyedHarness::replace_in_model` skips
/// a replace of a key held in the tree.
#[test]
#[ignore = "library bug: replace takes the wrong key from a tree leaf"]
fn replace_takes_the_key_it_replaces_from_a_tree_leaf() {
    let mut order = ZOrder::<u32>::new(10).unwrap();
    order.insert(8, I16F16::from_num(0.5)).unwrap();
    order.insert(10, I16F16::from_num(0.25)).unwrap();
    // Key 8 is re-filed at 3: the key it replaces is itself, at 0.5.
    assert_eq!(
        order.replace(8, I16F16::from_num(3)),
        Ok(Some((8, I16F16::from_num(0.5))))
    );
    let pairs: Vec<(u32, I16F16)> = order.iter().collect();
    assert_eq!(
        pairs,
        [(10, I16F16::from_num(0.25)), (8, I16F16::from_num(3))]
    );
    order.check_invariants();
}

/// A range walked to its end from one end starts again from the other:
/// after `next_back` has yielded the only entry, `next` yields it again
/// (in a debug build, `Walk::next_up` overflows `remaining` and panics).
/// The same holds for any length, either way round (two entries taken
/// with `next`, then `next_back` yields the second again), and for the
/// `Rc` collections' ranges, which share the walk. A range is documented
/// as double-ended and fused. The harness: `check_mixed` turns a range's
/// walk round only before its end, and checks fusedness at the end it
/// came by.
#[test]
#[ignore = "library bug: a range walked out from one end yields again from the other"]
fn a_range_walked_out_from_one_end_yields_nothing_from_the_other() {
    let mut order = ZOrder::<u32>::new(10).unwrap();
    order.insert(1, I16F16::ONE).unwrap();
    let mut range = order.range(..);
    assert_eq!(range.next_back(), Some((1, I16F16::ONE)));
    assert_eq!(range.next(), None);
    assert_eq!(range.next_back(), None);

    order.insert(2, I16F16::from_num(2)).unwrap();
    let mut range = order.range((Bound::Excluded(I16F16::ZERO), Bound::Unbounded));
    assert_eq!(range.next(), Some((1, I16F16::ONE)));
    assert_eq!(range.next(), Some((2, I16F16::from_num(2))));
    assert_eq!(range.next(), None);
    assert_eq!(range.next_back(), None);
}
