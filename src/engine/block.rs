//! A block: a node of the level chain. Up to [`BLOCK_SLOTS`] slots, each
//! holding an entry with its Z or nothing, and a bit mask of the occupied
//! ones. Across the chain, the entries in slot order ascend by Z; free
//! slots (holes) may lie anywhere between them.
//!
//! An entry keeps its slot until a merge or split moves it, which reports
//! the move: so the place of an entry in a block is exact, finding it is
//! O(1), and taking it out only clears a bit. An insertion goes to the
//! free slot right after the run it joins (the level chain first moves
//! the entries after that slot out of the block if they are there).
//!
//! The Z array is non-decreasing over all the slots, free ones included (a
//! free slot keeps a value between its neighbours'), so the slots at or
//! below a Z are a prefix, found by a count the compiler vectorizes.

use super::entry::Entry;
use super::leaf::count;
pub(crate) use super::place::BLOCK_SLOTS;
use super::pool::NONE;

/// One bit per slot: set while the slot holds an entry.
pub(crate) type Mask = u64;
const _: () = assert!(BLOCK_SLOTS <= Mask::BITS as usize);

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

/// An entry a block operation moved: its Z bits, the slot it left (in the
/// other block of a two-block operation if `across`), the slot it took,
/// and whether it is its bucket's last.
#[derive(Clone, Copy, Debug)]
pub(crate) struct Moved {
    pub(crate) z: i32,
    pub(crate) from: usize,
    pub(crate) to: usize,
    pub(crate) across: bool,
    pub(crate) last: bool,
}

/// A run of slots of the level chain.
pub(crate) struct Block<E: Entry> {
    /// Which slots hold an entry.
    pub(crate) occupied: Mask,
    /// Which slots hold the last entry of their bucket (the level chain
    /// keeps this beside its `lasts`, so that taking an entry out needs to
    /// read its Z only when it was its bucket's last). It travels with the
    /// entries a block operation moves.
    pub(crate) lasts: Mask,
    /// How many (the bits of `occupied`, kept apart: counting bits is
    /// slow on CPUs without a population count instruction).
    len: u32,
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
            lasts: 0,
            len: 0,
            prev: NONE,
            next: NONE,
            zs: [i32::MAX; BLOCK_SLOTS],
            items: core::array::from_fn(|_| template.vacant()),
        }
    }

    /// Makes a spare block an empty, unlinked one.
    pub(crate) fn reset(&mut self) {
        debug_assert_eq!(self.occupied, 0);
        debug_assert_eq!(self.lasts, 0);
        self.prev = NONE;
        self.next = NONE;
        self.zs = [i32::MAX; BLOCK_SLOTS];
    }

    /// Entries in the block.
    #[inline]
    pub(crate) fn count(&self) -> usize {
        debug_assert_eq!(self.len, self.occupied.count_ones());
        self.len as usize
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

    /// The Z bits of the last entry, if any.
    pub(crate) fn last_z(&self) -> Option<i32> {
        (self.occupied != 0).then(|| self.zs[highest(self.occupied)])
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

    /// Puts `entry` in the free `slot`, which lies between the entries at
    /// or below `z` and those above it; the free slots around it take
    /// values that keep the Z array non-decreasing.
    #[inline(always)]
    pub(crate) fn put(&mut self, slot: usize, z: i32, entry: E) {
        self.place(slot, z, entry);
        self.fill(slot, slot);
    }

    /// Puts `entry` in `slot`, the first free slot of a block filled in
    /// ascending Z from slot 0 since it was made or reset (as a rebuild
    /// fills them): the free slots after it keep `i32::MAX`, at or above
    /// any Z, so none needs a new value.
    #[inline(always)]
    pub(crate) fn push(&mut self, slot: usize, z: i32, entry: E) {
        debug_assert!(self.occupied == (1 << slot) - 1 && self.zs[slot] == i32::MAX);
        debug_assert!(slot == 0 || self.zs[slot - 1] <= z);
        self.place(slot, z, entry);
    }

    /// Puts `entry` in the free `slot` and leaves the free slots around it
    /// as they are: a run of these, in ascending order into neighbouring
    /// slots, ends with a [`fill`](Self::fill) of the run (filling after
    /// each would walk the free slots past the run once per entry).
    #[inline(always)]
    fn place(&mut self, slot: usize, z: i32, entry: E) {
        debug_assert!(self.occupied & (1 << slot) == 0);
        self.items[slot] = entry.into_slot();
        self.zs[slot] = z;
        self.occupied |= 1 << slot;
        self.len += 1;
    }

    /// Gives the free slots before slot `first` and after slot `last`
    /// values that keep the Z array non-decreasing, after entries were
    /// [placed](Self::place) in `first..=last` in ascending order (the
    /// slots outside the run keep values that ascend, as they did before).
    #[inline(always)]
    fn fill(&mut self, first: usize, last: usize) {
        let free = |block: &Self, i: usize| block.occupied & (1 << i) == 0;
        let z = self.zs[first];
        let mut i = first;
        while i > 0 && free(self, i - 1) && self.zs[i - 1] > z {
            i -= 1;
            self.zs[i] = z;
        }
        let z = self.zs[last];
        let mut i = last + 1;
        while i < BLOCK_SLOTS && free(self, i) && self.zs[i] < z {
            self.zs[i] = z;
            i += 1;
        }
    }

    /// Takes the entry out of `slot`, which holds one.
    #[inline]
    pub(crate) fn take(&mut self, slot: usize) -> (i32, E) {
        debug_assert!(self.occupied & (1 << slot) != 0);
        self.occupied &= !(1 << slot);
        self.lasts &= !(1 << slot);
        self.len -= 1;
        (self.zs[slot], E::take(&mut self.items[slot]))
    }

    /// One past the last occupied slot (0 if none).
    #[inline]
    pub(crate) fn end(&self) -> usize {
        match self.occupied {
            0 => 0,
            bits => highest(bits) + 1,
        }
    }

    /// The first occupied slot ([`BLOCK_SLOTS`] if none).
    #[inline]
    pub(crate) fn start(&self) -> usize {
        (self.occupied.trailing_zeros() as usize).min(BLOCK_SLOTS)
    }

    /// Moves the entry in `from` to the free slot `to` of this block.
    #[inline(always)]
    fn move_within(&mut self, from: usize, to: usize, moved: &mut impl FnMut(&E, Moved)) {
        let last = self.lasts >> from & 1;
        let (z, entry) = self.take(from);
        self.place(to, z, entry);
        self.lasts |= last << to;
        moved(
            self.get(to),
            Moved {
                z,
                from,
                to,
                across: false,
                last: last != 0,
            },
        );
    }

    /// Moves the entry in `from` to the free slot `to` of `into`.
    #[inline(always)]
    fn move_to(
        &mut self,
        from: usize,
        into: &mut Self,
        to: usize,
        moved: &mut impl FnMut(&E, Moved),
    ) {
        let last = self.lasts >> from & 1;
        let (z, entry) = self.take(from);
        into.place(to, z, entry);
        into.lasts |= last << to;
        moved(
            into.get(to),
            Moved {
                z,
                from,
                to,
                across: true,
                last: last != 0,
            },
        );
    }

    /// Frees the taken slot `slot` for an entry that goes before its
    /// entry, moving that entry and those after it up to the free slot
    /// `free` one slot up.
    pub(crate) fn shift_up(&mut self, slot: usize, free: usize, moved: &mut impl FnMut(&E, Moved)) {
        debug_assert!(
            slot < free && (!self.occupied & from(slot)).trailing_zeros() as usize == free
        );
        for from in (slot..free).rev() {
            self.move_within(from, from + 1, moved);
        }
    }

    /// Frees slot `slot - 1`, taken, for an entry that goes after its
    /// entry, moving that entry and those before it down to the free slot
    /// `free` one slot down.
    pub(crate) fn shift_down(
        &mut self,
        free: usize,
        slot: usize,
        moved: &mut impl FnMut(&E, Moved),
    ) {
        debug_assert!(free + 1 < slot && self.occupied & (1 << free) == 0);
        for from in free + 1..slot {
            self.move_within(from, from - 1, moved);
        }
    }

    /// Packs the entries to the front (slots `0..count`), in order.
    fn pack_front(&mut self, moved: &mut impl FnMut(&E, Moved)) {
        let settled = self.occupied.trailing_ones() as usize;
        let mut bits = self.occupied & from(settled);
        let mut to = settled;
        while bits != 0 {
            let slot = bits.trailing_zeros() as usize;
            bits &= bits - 1;
            self.move_within(slot, to, moved);
            to += 1;
        }
        if to > settled {
            self.fill(settled, to - 1);
        }
    }

    /// Packs the entries to the back (slots `BLOCK_SLOTS - count..`), in
    /// order.
    fn pack_back(&mut self, moved: &mut impl FnMut(&E, Moved)) {
        let mut bits = self.occupied;
        let mut to = BLOCK_SLOTS;
        while bits != 0 {
            let slot = highest(bits);
            bits &= !(1 << slot);
            to -= 1;
            if slot != to {
                self.move_within(slot, to, moved);
            }
        }
        if to < BLOCK_SLOTS {
            self.fill(to, BLOCK_SLOTS - 1);
        }
    }

    /// Entries a merge moves if `self` takes in `right`, the next block,
    /// after its own entries (and one if `right` takes in `self`, before
    /// its own): the cheaper one is the one to do.
    pub(crate) fn merge_costs(&self, right: &Self) -> (usize, usize) {
        let (count, right_count) = (self.count(), right.count());
        let keep_left = right_count
            + if BLOCK_SLOTS - self.end() < right_count {
                count - self.occupied.trailing_ones() as usize
            } else {
                0
            };
        let packed_back = (right.occupied << (Mask::BITS as usize - BLOCK_SLOTS)).leading_ones();
        let keep_right = count
            + if right.start() < count {
                right_count - packed_back as usize
            } else {
                0
            };
        (keep_left, keep_right)
    }

    /// Takes in every entry of `right`, the next block, after its own
    /// entries, reporting each entry that moves. Together they hold at most
    /// [`BLOCK_SLOTS`].
    pub(crate) fn absorb_next(&mut self, right: &mut Self, moved: &mut impl FnMut(&E, Moved)) {
        self.absorb_next_before(right, BLOCK_SLOTS, moved);
    }

    /// Takes in the entries of `right`, the next block, before its slot
    /// `until_slot`, after its own entries, reporting each entry that
    /// moves. Together they hold at most [`BLOCK_SLOTS`].
    pub(crate) fn absorb_next_before(
        &mut self,
        right: &mut Self,
        until_slot: usize,
        moved: &mut impl FnMut(&E, Moved),
    ) {
        let mut bits = right.occupied & !from(until_slot);
        let incoming = bits.count_ones() as usize;
        debug_assert!(self.count() + incoming <= BLOCK_SLOTS);
        if BLOCK_SLOTS - self.end() < incoming {
            self.pack_front(moved);
        }
        let first = self.end();
        let mut to = first;
        while bits != 0 {
            let slot = bits.trailing_zeros() as usize;
            bits &= bits - 1;
            right.move_to(slot, self, to, moved);
            to += 1;
        }
        if to > first {
            self.fill(first, to - 1);
        }
    }

    /// Takes in the entries of `left`, the previous block, from its slot
    /// `from_slot` on, before its own entries, reporting each entry that
    /// moves. Together they hold at most [`BLOCK_SLOTS`].
    pub(crate) fn absorb_prev(
        &mut self,
        left: &mut Self,
        from_slot: usize,
        moved: &mut impl FnMut(&E, Moved),
    ) {
        let mut bits = left.occupied & from(from_slot);
        let incoming = bits.count_ones() as usize;
        debug_assert!(self.count() + incoming <= BLOCK_SLOTS);
        if self.start() < incoming {
            self.pack_back(moved);
        }
        let end = self.start();
        let mut to = end;
        while bits != 0 {
            let slot = highest(bits);
            bits &= !(1 << slot);
            to -= 1;
            left.move_to(slot, self, to, moved);
        }
        if to < end {
            self.fill(to, end - 1);
        }
    }

    /// Moves every entry of `self` at slot `from_slot` or later to `into`,
    /// an empty block, packed from its slot 0, in order.
    pub(crate) fn split_off(
        &mut self,
        from_slot: usize,
        into: &mut Block<E>,
        moved: &mut impl FnMut(&E, Moved),
    ) {
        debug_assert_eq!(into.occupied, 0);
        let mut bits = self.occupied & from(from_slot);
        let mut to = 0;
        while bits != 0 {
            let slot = bits.trailing_zeros() as usize;
            bits &= bits - 1;
            self.move_to(slot, into, to, moved);
            to += 1;
        }
        if to > 0 {
            into.fill(0, to - 1);
        }
    }
}

impl<E: Entry> Block<E> {
    /// Checks the block's own invariants (tests and fuzzing).
    #[cfg(any(test, feature = "check"))]
    pub(crate) fn check(&self) {
        assert_eq!(self.lasts & !self.occupied, 0, "a last is an entry");
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

    impl Block<u32> {
        fn clone_ids(&self) -> Self {
            Block {
                occupied: self.occupied,
                lasts: self.lasts,
                len: self.len,
                prev: self.prev,
                next: self.next,
                zs: self.zs,
                items: self.items,
            }
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
    fn moving_entries_keeps_the_order_and_reports_every_move() {
        let mut block = Block::new(&0);
        for slot in 0..BLOCK_SLOTS {
            block.put(slot, slot as i32 * 10, slot as u32);
        }
        assert!(block.is_full());
        block.check();
        // Split off the back half; absorb it again, both ways.
        for keep_left in [true, false] {
            let mut block = block.clone_ids();
            let mut right = Block::new(&0);
            block.split_off(BLOCK_SLOTS / 2, &mut right, &mut |_, _| {});
            assert_eq!(block.count() + right.count(), BLOCK_SLOTS);
            block.take(0);
            right.take(0);
            block.take(BLOCK_SLOTS / 2 - 1);
            let before: Vec<_> = ids(&block).into_iter().chain(ids(&right)).collect();
            let (left_cost, right_cost) = block.merge_costs(&right);
            let mut moves = 0;
            let kept = if keep_left {
                block.absorb_next(&mut right, &mut |_, _| moves += 1);
                assert_eq!(moves, left_cost);
                assert_eq!(right.occupied, 0);
                block
            } else {
                right.absorb_prev(&mut block, 0, &mut |_, _| moves += 1);
                assert_eq!(moves, right_cost);
                assert_eq!(block.occupied, 0);
                right
            };
            assert_eq!(ids(&kept), before);
            kept.check();
        }
    }
}
