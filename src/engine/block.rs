//! A block: a node of the level chain. Up to [`BLOCK_SLOTS`] slots, each
//! holding an entry with its Z or nothing, and a bit mask of the occupied
//! ones. Across the chain, the entries in slot order ascend by Z; free
//! slots (holes) may lie anywhere between them.
//!
//! An entry keeps its slot until an insertion next to it needs room or a
//! merge or split moves it, which reports the move: so the place of an
//! entry in a block is exact, finding it is O(1), and taking it out only
//! clears a bit. An insertion goes to the free slot right after the run
//! it joins, or shifts the entries between it and the nearest hole by one.
//!
//! The Z array is non-decreasing over all the slots, free ones included (a
//! free slot keeps a value between its neighbours'), so the slots at or
//! below a Z are a prefix, found by a count the compiler vectorizes.

use super::entry::Entry;
use super::leaf::count;
use super::place::LEAF_SLOTS;
use super::pool::NONE;

/// Slots per block: as many as a leaf has.
pub(crate) const BLOCK_SLOTS: usize = LEAF_SLOTS;

/// One bit per slot: set while the slot holds an entry.
pub(crate) type Mask = u64;

/// Every slot of a block.
pub(crate) const ALL: Mask = Mask::MAX >> (Mask::BITS as usize - BLOCK_SLOTS);

/// The slots from `slot` on.
#[inline]
pub(crate) fn from(slot: usize) -> Mask {
    ALL.checked_shl(slot as u32).unwrap_or(0) & ALL
}

/// The highest slot of `mask` (not empty).
#[inline]
pub(crate) fn highest(mask: Mask) -> usize {
    Mask::BITS as usize - 1 - mask.leading_zeros() as usize
}

/// A run of slots of the level chain.
pub(crate) struct Block<E: Entry> {
    /// Which slots hold an entry.
    pub(crate) occupied: Mask,
    /// The neighbouring blocks of the chain, or `NONE`.
    pub(crate) prev: u32,
    pub(crate) next: u32,
    /// The Z bits of each occupied slot; non-decreasing over all slots.
    zs: [i32; BLOCK_SLOTS],
    items: [E::Slot; BLOCK_SLOTS],
}

impl<E: Entry> Block<E> {
    /// An empty block; `template` fills the slots.
    pub(crate) fn new(template: &E) -> Self {
        Block {
            occupied: 0,
            prev: NONE,
            next: NONE,
            zs: [i32::MAX; BLOCK_SLOTS],
            items: core::array::from_fn(|_| template.vacant()),
        }
    }

    /// Makes a spare block an empty, unlinked one.
    pub(crate) fn reset(&mut self) {
        debug_assert_eq!(self.occupied, 0);
        self.prev = NONE;
        self.next = NONE;
        self.zs = [i32::MAX; BLOCK_SLOTS];
    }

    /// Entries in the block.
    #[inline]
    pub(crate) fn count(&self) -> usize {
        self.occupied.count_ones() as usize
    }

    #[inline]
    pub(crate) fn is_full(&self) -> bool {
        self.occupied == ALL
    }

    /// The entry in `slot`, which holds one.
    #[inline]
    pub(crate) fn get(&self, slot: usize) -> &E {
        E::get(&self.items[slot])
    }

    /// The entry in `slot`, if it holds one.
    #[inline]
    pub(crate) fn get_checked(&self, slot: usize) -> Option<&E> {
        (slot < BLOCK_SLOTS && self.occupied & (1 << slot) != 0).then(|| self.get(slot))
    }

    /// The Z bits of the entry in `slot`, which holds one.
    #[inline]
    pub(crate) fn z(&self, slot: usize) -> i32 {
        self.zs[slot]
    }

    /// The Z bits of the last entry (the block holds one).
    pub(crate) fn last_z(&self) -> i32 {
        self.zs[highest(self.occupied)]
    }

    /// The slots (occupied or not) whose Z bits are below `bound`: a
    /// prefix, since the Z array is non-decreasing.
    #[inline]
    pub(crate) fn below(&self, bound: i64) -> Mask {
        let Ok(bound) = i32::try_from(bound) else {
            return if bound > 0 { ALL } else { 0 };
        };
        !from(count(&self.zs, |v| v < bound)) & ALL
    }

    /// The occupied slots whose Z bits are `z`.
    #[inline]
    pub(crate) fn at(&self, z: i32) -> Mask {
        self.below(i64::from(z) + 1) & !self.below(i64::from(z)) & self.occupied
    }

    /// Where an entry at `z` goes: one past the last entry at or below `z`.
    #[inline]
    pub(crate) fn position(&self, z: i32) -> usize {
        match self.occupied & self.below(i64::from(z) + 1) {
            0 => 0,
            le => highest(le) + 1,
        }
    }

    /// Puts `entry` in the free `slot`, which lies between the entries at
    /// or below `z` and those above it; the free slots around it take
    /// values that keep the Z array non-decreasing.
    #[inline]
    pub(crate) fn put(&mut self, slot: usize, z: i32, entry: E) {
        debug_assert!(self.occupied & (1 << slot) == 0);
        self.items[slot] = entry.into_slot();
        self.zs[slot] = z;
        self.occupied |= 1 << slot;
        let free = |i: usize| self.occupied & (1 << i) == 0;
        let mut i = slot;
        while i > 0 && free(i - 1) && self.zs[i - 1] > z {
            i -= 1;
            self.zs[i] = z;
        }
        let mut i = slot + 1;
        while i < BLOCK_SLOTS && free(i) && self.zs[i] < z {
            self.zs[i] = z;
            i += 1;
        }
    }

    /// Takes the entry out of `slot`, which holds one.
    #[inline]
    pub(crate) fn take(&mut self, slot: usize) -> (i32, E) {
        debug_assert!(self.occupied & (1 << slot) != 0);
        self.occupied &= !(1 << slot);
        (self.zs[slot], E::take(&mut self.items[slot]))
    }

    /// Moves the entry in `from` to the free slot `to`, reporting it.
    #[inline]
    fn shift(&mut self, from: usize, to: usize, moved: &mut impl FnMut(&E, usize)) {
        let (z, entry) = self.take(from);
        self.put(to, z, entry);
        moved(self.get(to), to);
    }

    /// Frees `slot`, occupied, by moving it and the occupied slots after
    /// it one slot up, up to the first free slot above (there must be one).
    pub(crate) fn open_up(&mut self, slot: usize, moved: &mut impl FnMut(&E, usize)) {
        let free = (!self.occupied & from(slot)).trailing_zeros() as usize;
        for to in (slot + 1..=free).rev() {
            self.shift(to - 1, to, moved);
        }
    }

    /// Frees `slot - 1`... by moving the occupied slots before `slot`, down
    /// to the last free slot below, one slot down (there must be one): the
    /// free slot is then `slot - 1`.
    pub(crate) fn open_down(&mut self, slot: usize, moved: &mut impl FnMut(&E, usize)) {
        let free = highest(!self.occupied & !from(slot) & ALL);
        for to in free..slot - 1 {
            self.shift(to + 1, to, moved);
        }
    }

    /// The free slots at or after `slot`, and before it.
    #[inline]
    pub(crate) fn free_around(&self, slot: usize) -> (Mask, Mask) {
        let free = !self.occupied & ALL;
        (free & from(slot), free & !from(slot))
    }

    /// Moves every entry of `self` at slot `from_slot` or later to `into`,
    /// an empty block, packed from its slot 0, in order.
    pub(crate) fn split_off(
        &mut self,
        from_slot: usize,
        into: &mut Block<E>,
        mut moved: impl FnMut(&E, usize),
    ) {
        debug_assert_eq!(into.occupied, 0);
        let mut bits = self.occupied & from(from_slot);
        let mut to = 0;
        while bits != 0 {
            let slot = bits.trailing_zeros() as usize;
            bits &= bits - 1;
            let (z, entry) = self.take(slot);
            into.put(to, z, entry);
            moved(into.get(to), to);
            to += 1;
        }
    }

    /// Takes in every entry of `right`, the next block: the entries of
    /// both are packed from slot 0, in order, and each that changed slot or
    /// block is reported. Together they hold at most [`BLOCK_SLOTS`].
    pub(crate) fn absorb(&mut self, right: &mut Block<E>, mut moved: impl FnMut(&E, usize)) {
        debug_assert!(self.count() + right.count() <= BLOCK_SLOTS);
        let mut to = 0;
        let mut bits = self.occupied;
        while bits != 0 {
            let slot = bits.trailing_zeros() as usize;
            bits &= bits - 1;
            if slot != to {
                self.shift(slot, to, &mut moved);
            }
            to += 1;
        }
        let mut bits = right.occupied;
        while bits != 0 {
            let slot = bits.trailing_zeros() as usize;
            bits &= bits - 1;
            let (z, entry) = right.take(slot);
            self.put(to, z, entry);
            moved(self.get(to), to);
            to += 1;
        }
    }
}

impl<E: Entry> Block<E> {
    /// Checks the block's own invariants (tests and fuzzing).
    #[cfg(any(test, feature = "check"))]
    pub(crate) fn check(&self) {
        assert!(
            self.zs.windows(2).all(|w| w[0] <= w[1]),
            "a block's Z values ascend"
        );
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
        fn peek(slot: &u32) -> Option<&u32> {
            Some(slot)
        }
        fn same(&self, other: &u32) -> bool {
            self == other
        }
    }

    fn ids(block: &Block<u32>) -> Vec<(u32, i32)> {
        let mut bits = block.occupied;
        let mut out = Vec::new();
        while bits != 0 {
            let slot = bits.trailing_zeros() as usize;
            bits &= bits - 1;
            out.push((*block.get(slot), block.z(slot)));
        }
        out
    }

    #[test]
    fn shifting_to_the_nearest_hole_keeps_the_order_and_reports_moves() {
        let mut block = Block::new(&0);
        for slot in 0..BLOCK_SLOTS {
            block.put(slot, slot as i32 * 10, slot as u32);
        }
        assert!(block.is_full());
        block.take(BLOCK_SLOTS - 1);
        block.take(0);
        // An entry at 15 goes after 10 (slot 1) and before 20 (slot 2).
        assert_eq!(block.position(15), 2);
        let mut moves = Vec::new();
        block.open_up(2, &mut |&id, slot| moves.push((id, slot)));
        block.put(2, 15, 99);
        assert_eq!(moves.len(), BLOCK_SLOTS - 3, "up to the hole at the end");
        block.check();
        // Now the only hole is slot 0: room comes from below.
        assert_eq!(block.position(12), 2);
        moves.clear();
        block.open_down(2, &mut |&id, slot| moves.push((id, slot)));
        block.put(1, 12, 98);
        assert_eq!(moves, [(1, 0)]);
        let order: Vec<i32> = ids(&block).into_iter().map(|(_, z)| z).collect();
        assert!(order.windows(2).all(|w| w[0] <= w[1]), "{order:?}");
        assert!(block.is_full());
        // Split off the back half; absorb it again.
        let mut right = Block::new(&0);
        block.split_off(BLOCK_SLOTS / 2, &mut right, |_, _| {});
        assert_eq!(block.count() + right.count(), BLOCK_SLOTS);
        block.take(0);
        right.take(0);
        let before: Vec<_> = ids(&block).into_iter().chain(ids(&right)).collect();
        block.absorb(&mut right, |_, _| {});
        assert_eq!(ids(&block), before);
        assert_eq!(right.occupied, 0);
        assert_eq!(block.at(block.z(3)), 1 << 3);
        block.check();
    }
}
