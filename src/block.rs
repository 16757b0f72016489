//! A block: a fixed run of slots, each holding one entry or nothing, and a
//! bit mask of the occupied ones. A bucket keeps its entries in a chain of
//! blocks (an unrolled list), so a traversal reads them from contiguous
//! memory instead of following one link per entry.
//!
//! A block fills from its first slot to its last; taking an entry out
//! clears its slot in O(1). The holes are reclaimed by compacting a block
//! before it would overflow and by merging two sparse neighbours (see
//! [`buckets`](crate::buckets) for when). Both report every entry they move,
//! so the caller can write its new place.

use crate::entry::Entry;
use crate::place::BLOCK_SLOTS;
use crate::pool::NONE;

/// One bit per slot: set while the slot holds an entry.
pub(crate) type Mask = u32;

const _: () = assert!(Mask::BITS as usize == BLOCK_SLOTS);

/// The slots `0..n`, as a mask.
fn first_slots(n: usize) -> Mask {
    Mask::MAX.checked_shr((BLOCK_SLOTS - n) as u32).unwrap_or(0)
}

/// A run of [`BLOCK_SLOTS`] slots in a bucket's chain of blocks.
///
/// The mask comes first, beside the first slots: a walk reads it before
/// the slots, and touches it ahead of time to bring the block in.
#[repr(C)]
pub(crate) struct Block<E: Entry> {
    /// Which slots hold an entry. The next entry goes right after the
    /// highest one.
    occupied: Mask,
    /// How many slots hold an entry (the bits of `occupied`, counted as
    /// they change).
    live: u8,
    /// The neighbouring blocks of the bucket's chain, or `NONE`.
    pub(crate) prev: u32,
    pub(crate) next: u32,
    /// The bucket whose chain this is.
    pub(crate) bucket: u32,
    slots: [E::Slot; BLOCK_SLOTS],
}

impl<E: Entry> Block<E> {
    /// An empty block of `bucket`; `template` fills the unused slots.
    pub(crate) fn new(template: &E, bucket: u32) -> Self {
        Block {
            slots: core::array::from_fn(|_| template.vacant()),
            occupied: 0,
            live: 0,
            prev: NONE,
            next: NONE,
            bucket,
        }
    }

    /// Makes a spare block an empty block of `bucket`.
    pub(crate) fn reset(&mut self, bucket: u32) {
        debug_assert_eq!(self.occupied, 0);
        self.prev = NONE;
        self.next = NONE;
        self.bucket = bucket;
    }

    /// Which slots hold an entry.
    #[inline]
    pub(crate) fn occupied(&self) -> Mask {
        self.occupied
    }

    /// One past the highest slot holding an entry: where the next goes.
    #[inline]
    fn end(&self) -> usize {
        BLOCK_SLOTS - self.occupied.leading_zeros() as usize
    }

    /// Entries in the block.
    #[inline]
    pub(crate) fn live(&self) -> usize {
        usize::from(self.live)
    }

    /// Whether no slot is left after the highest entry.
    pub(crate) fn is_full(&self) -> bool {
        self.end() == BLOCK_SLOTS
    }

    /// The entry in `slot`, which holds one.
    #[inline]
    pub(crate) fn get(&self, slot: usize) -> &E {
        E::get(&self.slots[slot])
    }

    /// The entry in `slot`, if it holds one.
    pub(crate) fn get_checked(&self, slot: usize) -> Option<&E> {
        (slot < BLOCK_SLOTS && self.occupied & (1 << slot) != 0).then(|| self.get(slot))
    }

    /// The entries of the block, in slot order, with their slots.
    pub(crate) fn entries(&self) -> impl Iterator<Item = (usize, &E)> + '_ {
        let mut bits = self.occupied;
        core::iter::from_fn(move || {
            (bits != 0).then(|| {
                let slot = bits.trailing_zeros() as usize;
                bits &= bits - 1;
                (slot, self.get(slot))
            })
        })
    }

    /// Puts `entry` in the slot after the highest entry, and returns that
    /// slot. The block must not be full.
    pub(crate) fn push(&mut self, entry: E) -> usize {
        let slot = self.end();
        self.slots[slot] = entry.into_slot();
        self.occupied |= 1 << slot;
        self.live += 1;
        slot
    }

    /// Takes the entry out of `slot`, which holds one.
    pub(crate) fn take(&mut self, slot: usize) -> E {
        debug_assert!(self.occupied & (1 << slot) != 0);
        self.occupied &= !(1 << slot);
        self.live -= 1;
        E::take(&mut self.slots[slot])
    }

    /// Moves the entries to the front of the block, in order, closing the
    /// holes, and reports each entry that moved with its new slot.
    pub(crate) fn compact(&mut self, mut moved: impl FnMut(&E, usize)) {
        let live = self.live();
        let settled = self.occupied.trailing_ones() as usize;
        let mut bits = self.occupied & !first_slots(settled);
        let mut to = settled;
        while bits != 0 {
            let from = bits.trailing_zeros() as usize;
            bits &= bits - 1;
            let entry = E::take(&mut self.slots[from]);
            self.slots[to] = entry.into_slot();
            moved(self.get(to), to);
            to += 1;
        }
        self.occupied = first_slots(live);
    }

    /// Takes in every entry of `other`, which comes right before this block
    /// (`other_first`) or right after it: the entries of both are packed
    /// from slot 0, in order, and each entry that changed slot or block is
    /// reported. `other` is left empty. Together they hold at most
    /// [`BLOCK_SLOTS`] entries.
    pub(crate) fn absorb(
        &mut self,
        other: &mut Block<E>,
        other_first: bool,
        mut moved: impl FnMut(&E, usize),
    ) {
        debug_assert!(self.live() + other.live() <= BLOCK_SLOTS);
        // Out first, then back in order: when `other` comes first, its
        // entries land on slots this block's entries still hold.
        let mut packed: [Option<(E, bool)>; BLOCK_SLOTS] = [const { None }; BLOCK_SLOTS];
        let mut len = 0;
        for own in [!other_first, other_first] {
            let block = if own { &mut *self } else { &mut *other };
            let mut bits = block.occupied;
            while bits != 0 {
                let slot = bits.trailing_zeros() as usize;
                bits &= bits - 1;
                packed[len] = Some((E::take(&mut block.slots[slot]), own && slot == len));
                len += 1;
            }
            block.occupied = 0;
            block.live = 0;
        }
        for (to, entry) in packed.into_iter().enumerate().take(len) {
            let (entry, stays) = entry.expect("a packed entry");
            self.slots[to] = entry.into_slot();
            if !stays {
                moved(self.get(to), to);
            }
        }
        self.occupied = first_slots(len);
        self.live = len as u8;
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use alloc::vec::Vec;

    impl Entry for u32 {
        type Slot = u32;
        fn vacant(&self) -> u32 {
            *self
        }
        fn into_slot(self) -> u32 {
            self
        }
        fn take(slot: &mut u32) -> u32 {
            *slot
        }
        fn get(slot: &u32) -> &u32 {
            slot
        }
        fn same(&self, other: &u32) -> bool {
            self == other
        }
    }

    fn ids(block: &Block<u32>) -> Vec<u32> {
        block.entries().map(|(_, &id)| id).collect()
    }

    #[test]
    fn push_take_compact_and_absorb_keep_the_order_and_report_moves() {
        let mut a = Block::new(&0, 0);
        for id in 0..BLOCK_SLOTS as u32 {
            a.push(id);
        }
        assert!(a.is_full());
        for slot in (0..BLOCK_SLOTS).filter(|slot| slot % 3 != 0) {
            a.take(slot);
        }
        let mut moves = Vec::new();
        a.compact(|&id, slot| moves.push((id, slot)));
        assert_eq!(ids(&a), (0..32).step_by(3).collect::<Vec<_>>());
        assert_eq!(moves.first(), Some(&(3, 1)), "slot 0 stays, 3 moves to 1");
        assert_eq!(a.get_checked(a.live()), None);

        let mut b = Block::new(&0, 0);
        for id in 100..105 {
            b.push(id);
        }
        b.take(0);
        moves.clear();
        // `b` comes first: its entries go to the front of `a`.
        a.absorb(&mut b, true, |&id, slot| moves.push((id, slot)));
        let mut expected: Vec<u32> = (101..105).collect();
        expected.extend((0..32).step_by(3));
        assert_eq!(ids(&a), expected);
        assert_eq!(moves.len(), expected.len(), "every entry moved");
        assert_eq!((b.live(), b.occupied()), (0, 0));

        let mut c = Block::new(&0, 0);
        c.push(7);
        moves.clear();
        a.absorb(&mut c, false, |&id, slot| moves.push((id, slot)));
        assert_eq!(moves, [(7, expected.len())], "only the newcomer moved");
    }
}
