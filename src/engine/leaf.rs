//! A leaf: up to [`LEAF_SLOTS`] entries with their Z, in back-to-front
//! order, linked to its neighbours in its chain. Both chains are made of
//! leaves, and the moves between two neighbouring leaves (a split, a merge,
//! a share) are written once, here.
//!
//! The Z of each entry sits in an array beside the entries, so finding
//! where a Z goes, or where a run ends, is a count over a short fixed array
//! that the compiler vectorizes, and a walk reads the entries of a run as a
//! slice.

use core::ops::Range;

use super::entry::Entry;
use super::place::LEAF_SLOTS;
use super::pool::NONE;

/// At most this many holes to close, or entries to merge into a leaf, are
/// moved a run at a time (a copy each); more, an entry at a time.
pub(crate) const FEW: usize = 4;

/// The value of the Z slots past `len`: the largest Z bits, so every count
/// of values at or below a bound is clamped to `len` (the default Z has the
/// same bits, and sorts last anyway).
const FILL: i32 = i32::MAX;

/// A position in a chain: a leaf and a slot in it (`leaf` is `NONE` past
/// either end). Walking up, `slot` is the next entry; walking down, one
/// past it.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) struct Cursor {
    pub(crate) leaf: u32,
    pub(crate) slot: usize,
}

impl Cursor {
    pub(crate) const NONE: Cursor = Cursor {
        leaf: NONE,
        slot: 0,
    };
}

/// One bit per slot of a leaf (a block has its own, [`block::Mask`](super::block::Mask)).
pub(crate) type Mask = u128;
const _: () = assert!(LEAF_SLOTS <= Mask::BITS as usize);

/// A run of up to [`LEAF_SLOTS`] entries of a chain, sorted by Z.
pub(crate) struct Leaf<E: Entry> {
    pub(crate) len: usize,
    /// The Z bits of each entry; [`FILL`] from `len` on.
    zs: [i32; LEAF_SLOTS],
    items: [E::Slot; LEAF_SLOTS],
    /// The neighbouring leaves of the chain, or `NONE`.
    pub(crate) prev: u32,
    pub(crate) next: u32,
    /// The inner node above; `NONE` for the tree's root.
    pub(crate) parent: u32,
    /// Slots whose entries a batch took out, to be closed when it has taken
    /// all it takes (zero between operations).
    pub(crate) dead: Mask,
}

impl<E: Entry> Leaf<E> {
    /// An empty leaf; `template` fills the unused slots.
    pub(crate) fn new(template: &E) -> Self {
        Leaf {
            len: 0,
            zs: [FILL; LEAF_SLOTS],
            items: core::array::from_fn(|_| template.vacant()),
            prev: NONE,
            next: NONE,
            parent: NONE,
            dead: 0,
        }
    }

    /// Makes a spare leaf an empty, unlinked one.
    pub(crate) fn reset(&mut self) {
        debug_assert_eq!(self.len, 0);
        self.prev = NONE;
        self.next = NONE;
        self.parent = NONE;
    }

    /// The entry at `slot`, below `len`.
    #[inline]
    pub(crate) fn get(&self, slot: usize) -> &E {
        E::get(&self.items[slot])
    }

    /// The entries, in order.
    #[inline]
    pub(crate) fn slots(&self) -> &[E::Slot] {
        &self.items[..self.len]
    }

    /// The Z bits of the entries, in order.
    #[inline]
    pub(crate) fn zs(&self) -> &[i32] {
        &self.zs[..self.len]
    }

    /// The Z bits of the entry at `slot`, below `len`.
    #[inline]
    pub(crate) fn z(&self, slot: usize) -> i32 {
        self.zs[slot]
    }

    #[inline]
    pub(crate) fn is_full(&self) -> bool {
        self.len == LEAF_SLOTS
    }

    /// How many entries have a Z at or below `z`: where an entry at `z`
    /// goes.
    #[inline]
    pub(crate) fn rank(&self, z: i32) -> usize {
        count(&self.zs, |v| v <= z).min(self.len)
    }

    /// How many entries have Z bits below `bound`.
    #[inline]
    pub(crate) fn count_below(&self, bound: i64) -> usize {
        match i32::try_from(bound) {
            Ok(bound) => count(&self.zs, |v| v < bound).min(self.len),
            Err(_) if bound > 0 => self.len,
            Err(_) => 0,
        }
    }

    /// How many entries have Z bits at or below `bound`.
    #[inline]
    pub(crate) fn count_at_or_below(&self, bound: i64) -> usize {
        match i32::try_from(bound) {
            Ok(bound) => self.rank(bound),
            Err(_) if bound > 0 => self.len,
            Err(_) => 0,
        }
    }

    /// Opens a gap at `slot` and puts the entry there. The leaf must not
    /// be full.
    #[inline]
    pub(crate) fn insert(&mut self, slot: usize, z: i32, entry: E) {
        debug_assert!(self.len < LEAF_SLOTS && slot <= self.len);
        E::shift_up(&mut self.items[slot..=self.len], 1);
        self.zs.copy_within(slot..self.len, slot + 1);
        self.items[slot] = entry.into_slot();
        self.zs[slot] = z;
        self.len += 1;
    }

    /// Takes the entry at `slot` out and closes the gap.
    #[inline]
    pub(crate) fn remove(&mut self, slot: usize) -> (i32, E) {
        debug_assert!(slot < self.len);
        let entry = E::take(&mut self.items[slot]);
        let z = self.zs[slot];
        E::shift_down(&mut self.items[slot..self.len], 1);
        self.zs.copy_within(slot + 1..self.len, slot);
        self.len -= 1;
        self.zs[self.len] = FILL;
        (z, entry)
    }

    /// Takes the entry at `slot` out and leaves the slot as it is, the
    /// leaf's length included: for taking a leaf apart, entry by entry
    /// (then [`forget_all`](Self::forget_all)).
    pub(crate) fn take_at(&mut self, slot: usize) -> E {
        E::take(&mut self.items[slot])
    }

    /// Empties a leaf whose entries were all taken out with
    /// [`take_at`](Self::take_at).
    pub(crate) fn forget_all(&mut self) {
        self.zs[..self.len].fill(FILL);
        self.len = 0;
    }

    /// Moves the entry at `from` to `to`, past the end or freed: for a
    /// merge that fills a leaf from the back.
    pub(crate) fn move_within(&mut self, from: usize, to: usize) {
        self.items.swap(from, to);
        self.zs[to] = self.zs[from];
    }

    /// How many of the entries in slots `..end` (sorted) have Z bits at
    /// or below `z`.
    pub(crate) fn rank_within(&self, end: usize, z: i32) -> usize {
        self.zs[..end].partition_point(|&v| v <= z)
    }

    /// Moves the entries in slots `run` `by` slots up, into slots past the
    /// end or freed (whose values end up in the slots left): for a merge
    /// that fills a leaf from the back.
    pub(crate) fn move_up(&mut self, run: Range<usize>, by: usize) {
        E::shift_up(&mut self.items[run.start..run.end + by], by);
        self.zs.copy_within(run.clone(), run.start + by);
    }

    /// Puts an entry in slot `slot`, past the end or freed: for a merge
    /// that fills a leaf from the back (which sets the length when done).
    pub(crate) fn set(&mut self, slot: usize, z: i32, entry: E) {
        self.items[slot] = entry.into_slot();
        self.zs[slot] = z;
    }

    /// Writes to `gone`, ascending, the Z bits of each run (the entries of
    /// one Z) of which the leaf holds only `dead` slots, and returns how
    /// many: the runs a batch emptied here, found before
    /// [`close_dead`](Self::close_dead). A run's slots are contiguous: a
    /// dead slot whose neighbours hold other Z values is a run alone (no
    /// count: each Z distinct, as in a y-sort), else the run's bounds are
    /// counted (two branch-free counts), once for all its dead slots.
    pub(crate) fn dead_runs(&self, gone: &mut [i32; LEAF_SLOTS]) -> usize {
        let mut count = 0;
        let mut dead = self.dead;
        while dead != 0 {
            let slot = dead.trailing_zeros() as usize;
            let z = self.zs[slot];
            let alone = (slot == 0 || self.zs[slot - 1] != z)
                && (slot + 1 == self.len || self.zs[slot + 1] != z);
            let (low, high) = if alone {
                (slot, slot + 1)
            } else {
                (self.count_below(i64::from(z)), self.rank(z))
            };
            // The run's slots, `low..high` (at least one).
            debug_assert!(low <= slot && slot < high);
            let run = (Mask::MAX >> (Mask::BITS as usize - (high - low))) << low;
            // (The slot's own bit too, so that the loop ends whatever.)
            dead &= !(run | 1 << slot);
            if run & !self.dead == 0 {
                gone[count] = z;
                count += 1;
            }
        }
        count
    }

    /// Closes the holes the `dead` slots left: the other entries move down,
    /// in order (their places are hints: nothing to report).
    pub(crate) fn close_dead(&mut self) {
        let mut dead = self.dead;
        if dead == 0 {
            return;
        }
        let mut to = dead.trailing_zeros() as usize;
        if dead.count_ones() as usize <= FEW {
            // The live slots after each hole, up to the next hole or the
            // end, move down to `to` in one move of their entries and one
            // of their Z bits; the dead slots' (taken) values end up past
            // the length.
            while dead != 0 {
                let hole = dead.trailing_zeros() as usize;
                dead &= dead - 1;
                let end = if dead == 0 {
                    self.len
                } else {
                    dead.trailing_zeros() as usize
                };
                E::shift_down(&mut self.items[to..end], hole + 1 - to);
                self.zs.copy_within(hole + 1..end, to);
                to += end - (hole + 1);
            }
        } else {
            // Every slot from the first hole on moves to `to`, which only
            // a live one advances: no branch on which slots are dead.
            let first = to;
            for from in first..self.len {
                self.items.swap(from, to);
                self.zs[to] = self.zs[from];
                to += usize::from(dead & (1 << from) == 0);
            }
        }
        self.zs[to..self.len].fill(FILL);
        self.len = to;
        self.dead = 0;
    }

    /// Whether an entry has Z bits `z`.
    pub(crate) fn holds_z(&self, z: i32) -> bool {
        self.rank(z) > self.count_below(i64::from(z))
    }

    /// Puts an entry after the last one; the leaf must not be full, and
    /// `z` must be at or above every Z in it.
    pub(crate) fn push(&mut self, z: i32, entry: E) {
        debug_assert!(self.len < LEAF_SLOTS && self.len == 0 || self.zs[self.len - 1] <= z);
        self.items[self.len] = entry.into_slot();
        self.zs[self.len] = z;
        self.len += 1;
    }

    /// The slot holding the entry for which `is` holds, looked for at
    /// `hint` first, then a slot either side (where one insertion or
    /// removal before it shifts it), then everywhere.
    #[inline]
    pub(crate) fn find(&self, hint: usize, is: impl Fn(&E) -> bool) -> Option<usize> {
        let holds = |slot: &E::Slot| E::peek(slot).is_some_and(&is);
        let near = [hint, hint + 1, hint.wrapping_sub(1)];
        if let Some(slot) = near
            .into_iter()
            .find(|&slot| slot < self.len && holds(&self.items[slot]))
        {
            return Some(slot);
        }
        // Eight at a time without an early exit, which the compiler can
        // vectorize, then the one chunk that matched.
        self.slots()
            .chunks(8)
            .enumerate()
            .find_map(|(chunk, slots)| {
                let any = slots.iter().fold(false, |any, slot| any | holds(slot));
                any.then(|| chunk * 8 + slots.iter().position(holds).unwrap_or(0))
            })
    }

    /// Moves `count` entries from the front of `right` (the next leaf) to
    /// the end of `left`, reporting each moved entry's new slot.
    pub(crate) fn shift_left(
        left: &mut Leaf<E>,
        right: &mut Leaf<E>,
        count: usize,
        mut moved: impl FnMut(&E, usize),
    ) {
        debug_assert!(left.len + count <= LEAF_SLOTS && count <= right.len);
        for from in 0..count {
            let to = left.len + from;
            left.zs[to] = right.zs[from];
            left.items[to] = E::take(&mut right.items[from]).into_slot();
            moved(left.get(to), to);
        }
        left.len += count;
        right.items[..right.len].rotate_left(count);
        right.zs[..right.len].rotate_left(count);
        right.len -= count;
        right.zs[right.len..].fill(FILL);
    }

    /// Moves `count` entries from the end of `left` to the front of
    /// `right` (the next leaf), reporting each moved entry's new slot
    /// (the entries already in `right` shift, and keep their places: a
    /// place's slot is a hint).
    pub(crate) fn shift_right(
        left: &mut Leaf<E>,
        right: &mut Leaf<E>,
        count: usize,
        mut moved: impl FnMut(&E, usize),
    ) {
        debug_assert!(right.len + count <= LEAF_SLOTS && count <= left.len);
        right.items[..right.len + count].rotate_right(count);
        right.zs[..right.len + count].rotate_right(count);
        let start = left.len - count;
        for to in 0..count {
            let from = start + to;
            right.zs[to] = left.zs[from];
            right.items[to] = E::take(&mut left.items[from]).into_slot();
            left.zs[from] = FILL;
            moved(right.get(to), to);
        }
        left.len -= count;
        right.len += count;
    }
}

/// Where to split a full leaf before an insertion at `slot`: entries from
/// the returned slot on move to a new next leaf. An entry that joins the
/// run before it (`joins`) in the back half, or goes past the last entry,
/// splits the leaf near where it goes, so a run that keeps growing at its
/// tail leaves leaves three quarters full behind it; any other split is
/// even. Either side keeps at least [`MIN_FILL`] entries.
pub(crate) fn split_point(slot: usize, joins: bool) -> usize {
    let mid = if (joins && slot >= LEAF_SLOTS / 2) || slot == LEAF_SLOTS {
        slot
    } else {
        LEAF_SLOTS / 2
    };
    mid.clamp(MIN_FILL, LEAF_SLOTS - MIN_FILL)
}

/// Entries a leaf keeps at least (unless alone in its chain): a split
/// leaves this many on either side, and a leaf a single removal leaves
/// under this many takes entries from a neighbour or merges with it.
pub(crate) const MIN_FILL: usize = LEAF_SLOTS / 4;

/// A leaf that a batch leaves under this many entries (and not alone in
/// its chain) takes entries from a neighbour or merges with it, so that
/// leaves churned by batches stay over half full and a walk takes few of
/// them.
pub(crate) const REFILL: usize = LEAF_SLOTS / 2;

/// How many values of `values` satisfy `test`: a branch-free loop the
/// compiler vectorizes, for the short fixed arrays of the nodes.
#[inline(always)]
pub(crate) fn count(values: &[i32], test: impl Fn(i32) -> bool) -> usize {
    // An index loop rather than an iterator chain: the same machine code,
    // and a fraction of the steps when Miri interprets it.
    let mut count = 0;
    let mut i = 0;
    while i < values.len() {
        count += u32::from(test(values[i]));
        i += 1;
    }
    count as usize
}

#[cfg(test)]
mod tests {
    use super::*;
    use alloc::vec::Vec;

    /// Rounds of a randomized test (under Miri, a tenth: the same code, in
    /// minutes otherwise).
    const ROUNDS: usize = if cfg!(miri) { 200 } else { 2_000 };

    /// Numbers below a bound, from `seed`.
    fn below(seed: u64) -> impl FnMut(u64) -> u64 {
        let mut random = zorder_testkit::xorshift(seed);
        move |bound| random() % bound
    }

    /// Each of the first `len` slots, dead one time in three.
    fn some_dead(len: usize, next: &mut impl FnMut(u64) -> u64) -> Mask {
        (0..len).fold(0, |dead, slot| dead | (Mask::from(next(3) == 0) << slot))
    }

    /// `dead_runs` against its definition, on leaves of few and of many
    /// distinct Z values, holes anywhere.
    #[test]
    fn dead_runs_are_the_runs_with_no_live_entry() {
        let mut next = below(0x9E37_79B9_7F4A_7C15);
        for round in 0..ROUNDS {
            let len = 1 + next(LEAF_SLOTS as u64) as usize;
            // Few Z values (long runs) in some rounds, many in others.
            let spread = [2, 8, 1_000][round % 3];
            let mut zs: Vec<i32> = (0..len).map(|_| next(spread) as i32 - 1).collect();
            zs.sort_unstable();
            let mut leaf = Leaf::new(&0_u32);
            for (slot, &z) in zs.iter().enumerate() {
                leaf.push(z, slot as u32);
            }
            leaf.dead = some_dead(len, &mut next);
            let mut expected: Vec<i32> = (0..len)
                .filter(|&slot| leaf.dead & (1 << slot) != 0)
                .map(|slot| zs[slot])
                .filter(|&z| (0..len).all(|s| zs[s] != z || leaf.dead & (1 << s) != 0))
                .collect();
            expected.dedup();
            let mut gone = [0; LEAF_SLOTS];
            let count = leaf.dead_runs(&mut gone);
            assert_eq!(
                gone[..count],
                expected[..],
                "zs {zs:?}, dead {:#x}",
                leaf.dead
            );
        }
    }

    #[test]
    fn closing_dead_slots_keeps_the_live_entries_in_order() {
        let mut next = below(0x2545_F491_4F6C_DD1D);
        for round in 0..ROUNDS {
            let len = 1 + next(LEAF_SLOTS as u64) as usize;
            let mut leaf = Leaf::new(&0_u32);
            for slot in 0..len {
                leaf.push(slot as i32 * 3, slot as u32);
            }
            // A few holes (closed a run at a time) in some rounds, many
            // (an entry at a time) in others.
            leaf.dead = if round % 2 == 0 {
                (0..=next(FEW as u64)).fold(0, |dead, _| dead | 1 << next(len as u64))
            } else {
                some_dead(len, &mut next)
            };
            let live: Vec<usize> = (0..len)
                .filter(|&slot| leaf.dead & (1 << slot) == 0)
                .collect();
            let dead = leaf.dead;
            leaf.close_dead();
            let kept: Vec<(u32, i32)> = (0..leaf.len)
                .map(|slot| (*leaf.get(slot), leaf.z(slot)))
                .collect();
            let expected: Vec<(u32, i32)> = live
                .iter()
                .map(|&slot| (slot as u32, slot as i32 * 3))
                .collect();
            assert_eq!(kept, expected, "len {len}, dead {dead:#x}");
            assert_eq!(leaf.dead, 0);
            assert!(
                leaf.zs[leaf.len..].iter().all(|&z| z == FILL),
                "the slots past the length are free"
            );
        }
    }
}
