//! Where an entry is, in 32 bits: its chain, its leaf, and a hint of its
//! slot; or, in the middle of a batch, which step of the batch holds it.
//!
//! A leaf keeps its entries sorted and shifts them on every insertion and
//! removal, so the slot is only a hint, checked before use: only a move
//! to another leaf (a split, a merge, a share between neighbours) rewrites
//! a place, at most [`LEAF_SLOTS`] of them at a time.

/// Slots per leaf of the tree chain. Fuzzing builds (`cargo fuzz` sets
/// `cfg(fuzzing)`) and Miri use small leaves and blocks, so that inputs
/// and tests of a hundred entries reach every shape: chains of many
/// nodes, trees of three levels and more, inner splits, merges and
/// shares. Nothing else depends on the sizes but the packing below,
/// derived from them.
#[cfg(not(any(fuzzing, miri)))]
pub(crate) const LEAF_SLOTS: usize = 128;
/// Slots per leaf (small, for fuzzing and Miri).
#[cfg(any(fuzzing, miri))]
pub(crate) const LEAF_SLOTS: usize = 8;

/// Slots per block of the level chain: fewer than a leaf's, since a
/// block's walk and moves go by a mask of its slots, one machine word.
#[cfg(not(any(fuzzing, miri)))]
pub(crate) const BLOCK_SLOTS: usize = 64;
/// Slots per block (small, for fuzzing and Miri).
#[cfg(any(fuzzing, miri))]
pub(crate) const BLOCK_SLOTS: usize = 8;

const LEAF_SLOT_BITS: u32 = LEAF_SLOTS.trailing_zeros();
const BLOCK_SLOT_BITS: u32 = BLOCK_SLOTS.trailing_zeros();
const TREE_BIT: u32 = 1 << 31;
const PENDING_BIT: u32 = 1 << 30;

/// Leaf ids of the tree chain stay below this bound, so a leaf id and a
/// slot fit beside the two flag bits...
pub(crate) const LEAF_IDS: u32 = PENDING_BIT >> LEAF_SLOT_BITS;
/// ... and block ids of the level chain below this one.
pub(crate) const BLOCK_IDS: u32 = PENDING_BIT >> BLOCK_SLOT_BITS;

/// The entries a collection holds at most: as many as one chain's node
/// ids can name (a chain may need a node per quarter of a node's slots,
/// so its ids run out past a quarter of this; filing past that is
/// refused). Both chains name as many slots.
pub(crate) const MAX_ENTRIES: usize = LEAF_IDS as usize * LEAF_SLOTS;
const _: () = assert!(MAX_ENTRIES == BLOCK_IDS as usize * BLOCK_SLOTS);

/// Steps of one batch: a pending place names its step below this bound
/// (the last value is [`Place::NOWHERE`]).
pub(crate) const BATCH_STEPS: usize = (PENDING_BIT - 1) as usize;

/// The two chains of a collection (see the [engine](crate::engine) docs).
#[derive(Clone, Copy, PartialEq, Eq, Debug)]
pub(crate) enum Chain {
    /// The levels and the default Z.
    Levels,
    /// Every other Z.
    Tree,
}

/// A packed place; [`Place::NOWHERE`] for an entry that is in no collection.
#[derive(Clone, Copy, PartialEq, Eq, Debug)]
pub(crate) struct Place(u32);

/// A place, unpacked.
#[derive(Clone, Copy, PartialEq, Eq, Debug)]
pub(crate) enum Spot {
    /// In leaf `leaf` of `chain`, most likely at slot `hint`.
    Leaf {
        chain: Chain,
        leaf: u32,
        hint: usize,
    },
    /// Taken out by step `step` of the batch being applied, to be filed
    /// again when the batch files its entries.
    Pending { step: usize },
}

impl Place {
    pub(crate) const NOWHERE: Place = Place(u32::MAX);

    #[inline]
    pub(crate) fn leaf(chain: Chain, leaf: u32, hint: usize) -> Place {
        match chain {
            Chain::Tree => {
                debug_assert!(leaf < LEAF_IDS && hint < LEAF_SLOTS);
                Place(TREE_BIT | (leaf << LEAF_SLOT_BITS) | hint as u32)
            }
            Chain::Levels => {
                debug_assert!(leaf < BLOCK_IDS && hint < BLOCK_SLOTS);
                Place((leaf << BLOCK_SLOT_BITS) | hint as u32)
            }
        }
    }

    #[inline]
    pub(crate) fn pending(step: usize) -> Place {
        debug_assert!(step < BATCH_STEPS);
        Place(PENDING_BIT | step as u32)
    }

    #[inline]
    pub(crate) fn spot(self) -> Option<Spot> {
        if self == Place::NOWHERE {
            None
        } else if self.0 & PENDING_BIT != 0 {
            Some(Spot::Pending {
                step: (self.0 & !(TREE_BIT | PENDING_BIT)) as usize,
            })
        } else {
            // (One arm a chain, each with its constants, so that a caller
            // that goes on to match the chain takes one branch in all.)
            if self.0 & TREE_BIT != 0 {
                Some(Spot::Leaf {
                    chain: Chain::Tree,
                    leaf: (self.0 & !TREE_BIT) >> LEAF_SLOT_BITS,
                    hint: self.0 as usize & (LEAF_SLOTS - 1),
                })
            } else {
                Some(Spot::Leaf {
                    chain: Chain::Levels,
                    leaf: self.0 >> BLOCK_SLOT_BITS,
                    hint: self.0 as usize & (BLOCK_SLOTS - 1),
                })
            }
        }
    }

    /// Whether `other` names the same chain and leaf (with any hint): what
    /// a book must agree on with the true place.
    #[cfg(any(test, feature = "check"))]
    pub(crate) fn same_leaf(self, other: Place) -> bool {
        match (self.spot(), other.spot()) {
            (
                Some(Spot::Leaf { chain, leaf, .. }),
                Some(Spot::Leaf {
                    chain: c, leaf: l, ..
                }),
            ) => chain == c && leaf == l,
            (a, b) => a == b,
        }
    }

    #[inline]
    pub(crate) const fn to_bits(self) -> u32 {
        self.0
    }

    #[inline]
    pub(crate) const fn from_bits(bits: u32) -> Place {
        Place(bits)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn places_round_trip_at_their_limits() {
        for (chain, ids, slots) in [
            (Chain::Levels, BLOCK_IDS, BLOCK_SLOTS),
            (Chain::Tree, LEAF_IDS, LEAF_SLOTS),
        ] {
            for (leaf, hint) in [(0, 0), (ids - 1, slots - 1), (999, slots / 2 + 1)] {
                let place = Place::leaf(chain, leaf, hint);
                assert_ne!(place, Place::NOWHERE);
                assert_eq!(place.spot(), Some(Spot::Leaf { chain, leaf, hint }));
            }
        }
        for step in [0, 1, BATCH_STEPS - 1] {
            assert_eq!(Place::pending(step).spot(), Some(Spot::Pending { step }));
        }
        assert_eq!(Place::NOWHERE.spot(), None);
        assert_eq!(Place::from_bits(Place::NOWHERE.to_bits()), Place::NOWHERE);
    }
}
