//! Where an entry is filed, in 32 bits: a slot of a bucket's block, or a
//! leaf of the sorted tree with a hint of the slot.
//!
//! A block slot is exact: an entry stays in its slot until a compaction or
//! a merge moves it, which rewrites its place. A leaf keeps its entries
//! sorted and shifts them on every insertion and removal, so there the
//! slot is a hint, checked before use; only a move to another leaf
//! rewrites the place.

/// Slots per block.
pub(crate) const BLOCK_SLOTS: usize = 32;
/// Slots per leaf. Fuzzing builds (`cargo fuzz` sets `cfg(fuzzing)`) and
/// Miri use small nodes, so that inputs and tests of a hundred entries
/// reach every shape of the tree: three levels and more, inner splits,
/// merges and rebalancing. Nothing else depends on the size but
/// [`Place`]'s packing, derived here.
#[cfg(not(any(fuzzing, miri)))]
pub(crate) const LEAF_SLOTS: usize = 64;
/// Slots per leaf (small, for fuzzing and Miri).
#[cfg(any(fuzzing, miri))]
pub(crate) const LEAF_SLOTS: usize = 8;

const BLOCK_SLOT_BITS: u32 = BLOCK_SLOTS.trailing_zeros();
const LEAF_SLOT_BITS: u32 = LEAF_SLOTS.trailing_zeros();
const LEAF_BIT: u32 = 1 << 31;

/// Block ids stay below this bound, so id and slot fit beside the leaf bit.
pub(crate) const BLOCK_IDS: u32 = LEAF_BIT >> BLOCK_SLOT_BITS;
/// Leaf ids stay below this bound; the last id is left out so no leaf place
/// is [`Place::NOWHERE`].
pub(crate) const LEAF_IDS: u32 = (LEAF_BIT >> LEAF_SLOT_BITS) - 1;

/// A packed place; [`Place::NOWHERE`] for an entry that is in no collection.
#[derive(Clone, Copy, PartialEq, Eq, Debug)]
pub(crate) struct Place(u32);

/// A place, unpacked.
#[derive(Clone, Copy, PartialEq, Eq, Debug)]
pub(crate) enum Spot {
    /// Slot `slot` of block `block`, exactly.
    Block { block: u32, slot: usize },
    /// In leaf `leaf`, most likely at slot `hint`.
    Leaf { leaf: u32, hint: usize },
}

impl Place {
    pub(crate) const NOWHERE: Place = Place(u32::MAX);

    #[inline]
    pub(crate) fn block(block: u32, slot: usize) -> Place {
        debug_assert!(block < BLOCK_IDS && slot < BLOCK_SLOTS);
        Place((block << BLOCK_SLOT_BITS) | slot as u32)
    }

    #[inline]
    pub(crate) fn leaf(leaf: u32, hint: usize) -> Place {
        debug_assert!(leaf < LEAF_IDS && hint < LEAF_SLOTS);
        Place(LEAF_BIT | (leaf << LEAF_SLOT_BITS) | hint as u32)
    }

    #[inline]
    pub(crate) fn spot(self) -> Option<Spot> {
        if self == Place::NOWHERE {
            None
        } else if self.0 & LEAF_BIT == 0 {
            Some(Spot::Block {
                block: self.0 >> BLOCK_SLOT_BITS,
                slot: (self.0 & (BLOCK_SLOTS as u32 - 1)) as usize,
            })
        } else {
            Some(Spot::Leaf {
                leaf: (self.0 & !LEAF_BIT) >> LEAF_SLOT_BITS,
                hint: (self.0 & (LEAF_SLOTS as u32 - 1)) as usize,
            })
        }
    }

    /// Whether `other` names this exact block slot, or this leaf (with any
    /// hint): what a book must agree on with the true place.
    pub(crate) fn same_node(self, other: Place) -> bool {
        match (self.spot(), other.spot()) {
            (Some(Spot::Leaf { leaf: a, .. }), Some(Spot::Leaf { leaf: b, .. })) => a == b,
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
        for (block, slot) in [(0, 0), (BLOCK_IDS - 1, BLOCK_SLOTS - 1), (12345, 7)] {
            assert_eq!(
                Place::block(block, slot).spot(),
                Some(Spot::Block { block, slot })
            );
        }
        for (leaf, hint) in [
            (0, 0),
            (LEAF_IDS - 1, LEAF_SLOTS - 1),
            (999, LEAF_SLOTS / 2 + 1),
        ] {
            let place = Place::leaf(leaf, hint);
            assert_ne!(place, Place::NOWHERE);
            assert_eq!(place.spot(), Some(Spot::Leaf { leaf, hint }));
        }
        assert_eq!(Place::NOWHERE.spot(), None);
        assert_eq!(Place::from_bits(Place::NOWHERE.to_bits()), Place::NOWHERE);
    }
}
