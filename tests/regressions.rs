//! Library bugs the model-based harness (`zorder-testkit`) found, each as
//! the smallest program that shows it, so each stays fixed.

use std::ops::Bound;

use zorder::{I16F16, ZOrder};

/// `replace` of a key held in the sorted tree (a Z other than a level or
/// the default Z) must take the key with its index, not whatever key sits
/// at the slot its place hints at, which a later insert into the same leaf
/// has moved (here key 10).
#[test]
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

/// A range walked to its end from one end yields nothing from the other
/// (a range counts its entries when its second end starts, and may find
/// none left with a run in hand), for one entry or more, either way round,
/// as a double-ended, fused iterator must.
#[test]
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
