//! The level chain: the entries at the levels `0..=max_level` and, in a
//! fixed-point core, at the default Z, as one chain of [`Block`]s in
//! back-to-front order, with the quick-access array of the article: for
//! each bucket, the exact place of its last entry (its *last*).
//!
//! Filing at a bucket goes right after its last entry; filing at an empty
//! bucket goes right after the last entry of the nearest occupied bucket
//! below it, found in the occupancy bitmap (no other Z lies between two
//! levels in this chain: those live in the tree chain). There the entry
//! takes the free slot. If the slot holds an entry of a later bucket and a
//! free slot of the block lies at most [`SHIFT_MAX`] entries away, either
//! way, the entries between move one slot toward it and the entry takes
//! the slot that frees (so a few entries of many buckets share a block,
//! whatever order they come in). Otherwise the fewer of the entries
//! before the slot and those from it on leave the block: those before,
//! with the new entry after them, for the end of the previous block if
//! they fit there, else for a new block before; those from the slot on
//! for the start of the next block if they fit there, else for a new
//! block after. Either way the block the entry joins ends with this
//! bucket, and its next filings find free slots and move nothing. Past
//! the end of a block, the entry starts a new one. Taking an entry out
//! clears its slot, and a block left at most half full merges with a
//! neighbour at most half full of the same bucket. So every operation
//! touches at most four neighbouring blocks, moves fewer than twice
//! [`BLOCK_SLOTS`] entries (a shift of at most [`SHIFT_MAX`], or a
//! parting then at most two merges of half blocks), and needs no search:
//! O(1) in the worst case, not on average.
//! A bucket with many entries has blocks of its own; the few entries of
//! many buckets share one.
//!
//! Invariants: the chain's entries ascend by Z in slot order; `lasts[b]`
//! is the place of bucket `b`'s last entry, and is empty exactly when `b`
//! is; the occupancy bitmap marks the buckets that have entries; no block
//! is empty; and of two neighbouring blocks one is over half full, or
//! their entries do not fit in one block, or no bucket has entries in
//! both (a block may end with its bucket half empty, as a filing left it;
//! so there are at most as many sparse blocks beyond the dense bound as
//! occupied buckets).

use alloc::vec;
use alloc::vec::Vec;

use super::block::{ALL, BLOCK_SLOTS, Block, Mask, Moved, from, highest};
use super::entry::{Book, Entry};
use super::occupancy::Occupancy;
use super::place::{BLOCK_IDS, Chain, Place};
use super::pool::{NONE, Pool};
use crate::z::DEFAULT_Z;
#[cfg(any(test, feature = "check"))]
use crate::z::level_z;

/// The bucket of an entry at Z bits `z`, which is a level or the default
/// Z, in a chain of levels `0..=max_level`.
#[inline]
fn bucket_of(max_level: usize, z: i32) -> usize {
    if z == DEFAULT_Z.to_bits() {
        max_level + 1
    } else {
        (z >> 16) as usize
    }
}

/// A bucket's last as `lasts` stores it: 0 for none, else its place
/// packed, plus one (so a collection of 32,768 levels starts from zeroed
/// memory).
#[inline]
fn pack(block: u32, slot: usize) -> u32 {
    ((block << SLOT_SHIFT) | slot as u32) + 1
}

/// A block holding at most this many entries is sparse: it merges with a
/// sparse neighbour of its bucket.
const SPARSE: usize = BLOCK_SLOTS / 2;

const SLOT_SHIFT: u32 = BLOCK_SLOTS.trailing_zeros();

/// Entries a filing moves within its block, at most, to free its slot
/// (rather than parting the block).
const SHIFT_MAX: usize = 8;

/// What a block operation that moves entries to block `to` (from block
/// `from` if they come across, else within `to`) reports each move to:
/// the book learns the entry's new place, and a bucket's last follows its
/// entry.
#[inline(always)]
fn mover<'a, E, B: Book<E>>(
    book: &'a mut B,
    lasts: &'a mut [u32],
    max_level: usize,
    from: u32,
    to: u32,
) -> impl FnMut(&E, Moved) + 'a {
    move |entry, moved| {
        book.moved(entry, Place::leaf(Chain::Levels, to, moved.to));
        if moved.last {
            let last = &mut lasts[bucket_of(max_level, moved.z)];
            let from = if moved.across { from } else { to };
            debug_assert_eq!(*last, pack(from, moved.from));
            *last = pack(to, moved.to);
        }
    }
}

/// What an insertion tidies once its entry is in, after making room.
#[derive(Clone, Copy)]
enum Tidy {
    /// Nothing: entries moved within the block only.
    Nothing,
    /// Both blocks, each with a neighbour (a full block split).
    Both(u32),
    /// The block the entry went to, with the block before it: its later
    /// entries left it, or it is new, started past the end of the one
    /// before (not with the block after: those two were just parted, or
    /// start another bucket).
    Back,
}

/// Where a pass that appends the chain's entries again
/// ([`Levels::rebuild`], [`Levels::shrink_to_fit`]) writes next.
#[derive(Clone, Copy)]
struct Writer {
    block: u32,
    slot: usize,
}

impl Writer {
    /// Where a pass starts: past the end of no block, so that its first
    /// entry starts one.
    const START: Writer = Writer {
        block: NONE,
        slot: BLOCK_SLOTS,
    };
}

/// A position in the level chain for a walk: a block, and the occupied
/// slots of it not yet visited from this end (`block` is `NONE` past the
/// end).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) struct BlockCursor {
    pub(crate) block: u32,
    pub(crate) left: Mask,
}

impl BlockCursor {
    pub(crate) const NONE: BlockCursor = BlockCursor {
        block: NONE,
        left: 0,
    };
}

pub(crate) struct Levels<E: Entry> {
    pub(crate) blocks: Pool<Block<E>>,
    /// For each bucket (the levels, then the default Z if there is its
    /// bucket), its last, [packed](pack).
    lasts: Vec<u32>,
    occupancy: Occupancy,
    pub(crate) first: u32,
    pub(crate) last: u32,
    max_level: usize,
    /// Entries in the chain.
    len: usize,
}

impl<E: Entry> Levels<E> {
    /// An empty chain of `buckets` buckets: the levels `0..=max_level`,
    /// then the default Z's if `buckets` is one more.
    pub(crate) fn new(max_level: u16, buckets: usize) -> Self {
        Levels {
            blocks: Pool::new(BLOCK_IDS),
            lasts: vec![0; buckets],
            occupancy: Occupancy::new(buckets),
            first: NONE,
            last: NONE,
            max_level: usize::from(max_level),
            len: 0,
        }
    }

    /// The same buckets, all empty, and no block.
    pub(crate) fn emptied(&self) -> Self {
        Levels::new(self.max_level as u16, self.lasts.len())
    }

    /// The Z bits of bucket `bucket`.
    #[cfg(any(test, feature = "check"))]
    fn z_of(&self, bucket: usize) -> i32 {
        if bucket > self.max_level {
            DEFAULT_Z.to_bits()
        } else {
            level_z(bucket).to_bits()
        }
    }

    /// The place of the last entry of `bucket`, which has one, as the
    /// block and the slot after it.
    #[inline]
    fn last_of(&self, bucket: usize) -> (u32, usize) {
        let packed = self.lasts[bucket] - 1;
        (
            packed >> SLOT_SHIFT,
            (packed as usize & (BLOCK_SLOTS - 1)) + 1,
        )
    }

    /// Entries in the chain.
    pub(crate) fn len(&self) -> usize {
        self.len
    }

    /// Buckets of the chain, empty or not.
    pub(crate) fn buckets(&self) -> usize {
        self.lasts.len()
    }

    #[inline]
    pub(crate) fn block(&self, block: u32) -> &Block<E> {
        self.blocks.get(block)
    }

    /// How many insertions cannot run out of block ids (each may split a
    /// block, or make one: one block each).
    pub(crate) fn room(&self) -> usize {
        self.blocks.room()
    }

    /// Whether `count` insertions cannot run out of block ids.
    pub(crate) fn has_room(&self, count: usize) -> bool {
        self.room() >= count
    }

    /// The slot of the entry of `block` for which `is` holds, if it is at
    /// `slot` (a block's places are exact).
    #[inline]
    pub(crate) fn find(&self, block: u32, slot: usize, is: impl Fn(&E) -> bool) -> Option<usize> {
        let entry = self.blocks.get_checked(block)?.get_checked(slot)?;
        is(entry).then_some(slot)
    }

    fn new_block(&mut self, template: &E) -> u32 {
        self.blocks
            .alloc(|| Block::new(template), Block::reset)
            .expect("has_room checked for a free block id")
    }

    /// Chains the new block `block` right after `after`.
    fn link_after(&mut self, after: u32, block: u32) {
        let next = self.blocks.get(after).next;
        let block_ref = self.blocks.get_mut(block);
        block_ref.prev = after;
        block_ref.next = next;
        self.blocks.get_mut(after).next = block;
        match next {
            NONE => self.last = block,
            next => self.blocks.get_mut(next).prev = block,
        }
    }

    /// Chains the new block `block` right before `before`.
    fn link_before(&mut self, before: u32, block: u32) {
        let prev = self.blocks.get(before).prev;
        if prev != NONE {
            self.link_after(prev, block);
            return;
        }
        let block_ref = self.blocks.get_mut(block);
        block_ref.prev = NONE;
        block_ref.next = before;
        self.blocks.get_mut(before).prev = block;
        self.first = block;
    }

    /// Files `entry` at Z bits `z` of bucket `bucket`, after every entry
    /// at or below `z`. [`has_room`](Self::has_room) must hold for 1.
    #[inline]
    pub(crate) fn insert<B: Book<E>>(&mut self, z: i32, bucket: usize, entry: E, book: &mut B) {
        self.len += 1;
        let joins = self.lasts[bucket] != 0;
        let (block, slot) = if joins {
            self.last_of(bucket)
        } else {
            match self.occupancy.prev_from(bucket) {
                Some(below) => self.last_of(below),
                None if self.first == NONE => {
                    let block = self.new_block(&entry);
                    (self.first, self.last) = (block, block);
                    (block, 0)
                }
                None => (self.first, 0),
            }
        };
        let block_ref = self.blocks.get_mut(block);
        if slot < BLOCK_SLOTS && block_ref.occupied & (1 << slot) == 0 {
            block_ref.put(slot, z, entry);
            book.set(block_ref.get(slot), Place::leaf(Chain::Levels, block, slot));
            if joins {
                // The bucket's last was right before.
                block_ref.lasts &= !(1 << (slot - 1));
            }
            block_ref.lasts |= 1 << slot;
            self.lasts[bucket] = pack(block, slot);
        } else {
            self.insert_with_room(block, slot, z, entry, bucket, book);
        }
        if !joins {
            self.occupancy.filled(bucket);
        }
    }

    /// The rest of [`insert`](Self::insert) when the entry's place,
    /// `slot` of `block`, is taken or past the end.
    #[inline(never)]
    fn insert_with_room<B: Book<E>>(
        &mut self,
        block: u32,
        slot: usize,
        z: i32,
        entry: E,
        bucket: usize,
        book: &mut B,
    ) {
        let (block, slot, tidy) = self.make_room(block, slot, &entry, book);
        if self.lasts[bucket] != 0 {
            // The bucket's last (wherever the room made moved it) is last
            // no more.
            let (old, end) = self.last_of(bucket);
            self.blocks.get_mut(old).lasts &= !(1 << (end - 1));
        }
        let block_ref = self.blocks.get_mut(block);
        block_ref.put(slot, z, entry);
        book.set(block_ref.get(slot), Place::leaf(Chain::Levels, block, slot));
        block_ref.lasts |= 1 << slot;
        self.lasts[bucket] = pack(block, slot);
        match tidy {
            Tidy::Nothing => {}
            Tidy::Both(made) => {
                self.tidy(block, book);
                self.tidy(made, book);
            }
            Tidy::Back => {
                // The block gave entries away: with the one before it, if
                // both are at most half full (and may share a bucket), it
                // merges (not with the one after: they were just parted).
                let block_ref = self.blocks.get(block);
                let prev = block_ref.prev;
                if block_ref.count() <= SPARSE
                    && prev != NONE
                    && self.blocks.get(prev).count() <= SPARSE
                {
                    self.merge_pair(prev, block, book);
                }
            }
        }
    }

    /// Frees a slot for an entry whose place is `slot` of `block`, which
    /// is taken or past the end, and returns the block and slot it goes
    /// to (see the module's introduction for how), with what to tidy once
    /// the entry is in.
    fn make_room<B: Book<E>>(
        &mut self,
        block: u32,
        slot: usize,
        template: &E,
        book: &mut B,
    ) -> (u32, usize, Tidy) {
        let max_level = self.max_level;
        let block_ref = self.blocks.get(block);
        if !block_ref.is_full() && slot < BLOCK_SLOTS {
            if let Some(room) = self.shift_room(block, slot, book) {
                return room;
            }
            // The entries from `slot` on are of later buckets: they, or the
            // entries before `slot` if fewer, leave the block, so that this
            // bucket's next filings find free slots after it and move
            // nothing (a block ends there, and a sparse one may: see
            // `check`).
            let block_ref = self.blocks.get(block);
            let after = (block_ref.occupied & from(slot)).count_ones() as usize;
            let before = block_ref.count() - after;
            if before < after {
                return self.part_before(block, slot, before, template, book);
            }
            let next = block_ref.next;
            let lasts = &mut self.lasts;
            if next != NONE && self.blocks.get(next).start() >= after {
                let (left_ref, right_ref) = self.blocks.pair_mut(block, next);
                right_ref.absorb_prev(
                    left_ref,
                    slot,
                    &mut mover(book, lasts, max_level, block, next),
                );
            } else {
                let made = self.new_block(template);
                self.link_after(block, made);
                let (left_ref, right_ref) = self.blocks.pair_mut(block, made);
                let lasts = &mut self.lasts;
                left_ref.split_off(
                    slot,
                    right_ref,
                    &mut mover(book, lasts, max_level, block, made),
                );
                // The new block and the one after it merge if both are at
                // most half full and share a bucket. (If they share none,
                // the next filing at the new block's last bucket would
                // part them again: filings taking turns among a few levels
                // would split and merge blocks at every turn.)
                if next != NONE
                    && self.blocks.get(made).count() <= SPARSE
                    && self.blocks.get(next).count() <= SPARSE
                    && self.share_a_bucket(made, next)
                {
                    self.merge_pair(made, next, book);
                }
            }
            return (block, slot, Tidy::Back);
        }
        let after = (block_ref.occupied & from(slot)).count_ones() as usize;
        let next = block_ref.next;
        if after > 0 && next != NONE && self.blocks.get(next).start() >= after {
            // The entries from `slot` on fit before those of the next
            // block: they move there.
            let (left_ref, right_ref) = self.blocks.pair_mut(block, next);
            let lasts = &mut self.lasts;
            right_ref.absorb_prev(
                left_ref,
                slot,
                &mut mover(book, lasts, max_level, block, next),
            );
            return (block, slot, Tidy::Both(next));
        }
        let next = self.new_block(template);
        self.link_after(block, next);
        if slot == BLOCK_SLOTS {
            // Past the end of a block: the new one after it.
            return (next, 0, Tidy::Back);
        }
        // The entries from `slot` on go to the new block, so the run the
        // entry joins ends this block, and later ones do not shift.
        let (left_ref, right_ref) = self.blocks.pair_mut(block, next);
        let lasts = &mut self.lasts;
        left_ref.split_off(
            slot,
            right_ref,
            &mut mover(book, lasts, max_level, block, next),
        );
        (block, slot, Tidy::Both(next))
    }

    /// [`make_room`](Self::make_room) within `block`, which is not full,
    /// if a free slot lies at most [`SHIFT_MAX`] entries from `slot`, which
    /// is taken: the entries between them move one slot toward it, and the
    /// new entry goes between those before it and those from `slot` on.
    #[inline]
    fn shift_room<B: Book<E>>(
        &mut self,
        block: u32,
        slot: usize,
        book: &mut B,
    ) -> Option<(u32, usize, Tidy)> {
        let block_ref = self.blocks.get(block);
        let free = !block_ref.occupied & ALL;
        // Entries from `slot` up to the first free slot after it, and
        // from the last free slot before it up to `slot` (the one right
        // before `slot` is taken: it is this bucket's last, or the last
        // below it).
        let up = (free & from(slot)).trailing_zeros() as usize;
        let below = free & !from(slot);
        let down = (below != 0).then(|| highest(below));
        let up_moves = up.saturating_sub(slot);
        let down_moves = down.map_or(usize::MAX, |down| slot - 1 - down);
        let max_level = self.max_level;
        let (block_ref, lasts) = (self.blocks.get_mut(block), &mut self.lasts);
        let mut moved = mover(book, lasts, max_level, block, block);
        if up < BLOCK_SLOTS && up_moves <= SHIFT_MAX && up_moves <= down_moves {
            block_ref.shift_up(slot, up, &mut moved);
            Some((block, slot, Tidy::Nothing))
        } else if let Some(down) = down.filter(|_| down_moves <= SHIFT_MAX) {
            block_ref.shift_down(down, slot, &mut moved);
            Some((block, slot - 1, Tidy::Nothing))
        } else {
            None
        }
    }

    /// [`make_room`](Self::make_room) when the entries before `slot` of
    /// `block`, which is not full, are fewer than those from `slot` on
    /// (`before` of them): they leave for the end of the previous block if
    /// they and the new entry fit after its last entry, else for a new
    /// block before this one; the new entry goes right after them.
    fn part_before<B: Book<E>>(
        &mut self,
        block: u32,
        slot: usize,
        before: usize,
        template: &E,
        book: &mut B,
    ) -> (u32, usize, Tidy) {
        let prev = self.blocks.get(block).prev;
        let into = if prev != NONE && self.blocks.get(prev).end() + before < BLOCK_SLOTS {
            prev
        } else {
            let made = self.new_block(template);
            self.link_before(block, made);
            made
        };
        let max_level = self.max_level;
        let (left_ref, right_ref) = self.blocks.pair_mut(into, block);
        left_ref.absorb_next_before(
            right_ref,
            slot,
            &mut mover(book, &mut self.lasts, max_level, block, into),
        );
        (into, self.blocks.get(into).end(), Tidy::Both(block))
    }

    /// Takes the entry at `slot` of `block` out, and returns it with its Z
    /// bits. The slot must hold an entry.
    #[inline]
    pub(crate) fn remove<B: Book<E>>(&mut self, block: u32, slot: usize, book: &mut B) -> (E, i32) {
        self.len -= 1;
        let block_ref = self.blocks.get_mut(block);
        let was_last = block_ref.lasts & (1 << slot) != 0;
        // (Its Z is read only if it was its bucket's last, or if the caller
        // wants it.)
        let (z, entry) = block_ref.take(slot);
        let count = block_ref.count();
        if was_last {
            // The one before it in its bucket, if any, is the previous entry
            // of the block or the last entry of the block before.
            let bucket = bucket_of(self.max_level, z);
            debug_assert_eq!(self.lasts[bucket], pack(block, slot));
            let below = block_ref.occupied & !from(slot);
            let prev = block_ref.prev;
            self.lasts[bucket] = if below != 0 && block_ref.z(highest(below)) == z {
                block_ref.lasts |= 1 << highest(below);
                pack(block, highest(below))
            } else if prev != NONE && self.blocks.get(prev).last_z() == Some(z) {
                let prev_ref = self.blocks.get_mut(prev);
                let end = prev_ref.end();
                prev_ref.lasts |= 1 << (end - 1);
                pack(prev, end - 1)
            } else {
                self.occupancy.emptied(bucket);
                0
            };
        }
        // A block already at most half full has neighbours over half full.
        if count == SPARSE || count == 0 {
            self.merge(block, book);
        }
        (entry, z)
    }

    /// Keeps the chain dense around `block` (if it still exists) after a
    /// split or insertion that made it: see [`merge`](Self::merge).
    #[inline]
    fn tidy<B: Book<E>>(&mut self, block: u32, book: &mut B) {
        match self.blocks.get_checked(block) {
            Some(block_ref) if block_ref.count() <= SPARSE => self.merge(block, book),
            _ => {}
        }
    }

    /// Keeps the chain dense around `block`, at most half full: if empty,
    /// it goes; else it merges with a neighbour at most half full that
    /// shares a bucket with it, moving as few entries as it can. (So of two
    /// neighbouring blocks that share a bucket one stays over half full: a
    /// removal needs a merge only when its block drops to half, and the
    /// merged block is then over half full.)
    #[inline(never)]
    fn merge<B: Book<E>>(&mut self, block: u32, book: &mut B) {
        let block_ref = self.blocks.get(block);
        if block_ref.count() == 0 {
            self.unlink(block);
            self.blocks.free(block);
            return;
        }
        // A neighbour at most half full that shares a bucket with it (two
        // blocks that do not may both be sparse, and merging them would
        // only be parted again by the next filing at the first's end).
        let sparse = |other: u32| other != NONE && self.blocks.get(other).count() <= SPARSE;
        let (prev, next) = (block_ref.prev, block_ref.next);
        let (left, right) = if sparse(prev) && self.share_a_bucket(prev, block) {
            (prev, block)
        } else if sparse(next) && self.share_a_bucket(block, next) {
            (block, next)
        } else {
            return;
        };
        self.merge_pair(left, right, book);
    }

    /// Whether the neighbouring blocks `left` and `right`, neither empty,
    /// hold entries of one bucket (the last of `left` and the first of
    /// `right`).
    fn share_a_bucket(&self, left: u32, right: u32) -> bool {
        let right_ref = self.blocks.get(right);
        self.blocks.get(left).last_z() == Some(right_ref.z(right_ref.start()))
    }

    /// Merges the neighbouring blocks `left` and `right`, whose entries fit
    /// in one, moving as few entries as it can.
    fn merge_pair<B: Book<E>>(&mut self, left: u32, right: u32, book: &mut B) {
        let (left_ref, right_ref) = self.blocks.pair_mut(left, right);
        let (keep_left, keep_right) = left_ref.merge_costs(right_ref);
        let lasts = &mut self.lasts;
        let max_level = self.max_level;
        let gone = if keep_left <= keep_right {
            left_ref.absorb_next(right_ref, &mut mover(book, lasts, max_level, right, left));
            right
        } else {
            right_ref.absorb_prev(left_ref, 0, &mut mover(book, lasts, max_level, left, right));
            left
        };
        self.unlink(gone);
        self.blocks.free(gone);
    }

    /// Takes the entry at `slot` of `block` out and returns it with its Z
    /// bits, and does nothing else: the chain is left for
    /// [`rebuild`](Self::rebuild), and only [`find`](Self::find) and this
    /// may be called until then.
    pub(crate) fn take_for_rebuild(&mut self, block: u32, slot: usize) -> (E, i32) {
        self.len -= 1;
        let (z, entry) = self.blocks.get_mut(block).take(slot);
        (entry, z)
    }

    /// Rebuilds the chain in full blocks, with `new`, sorted by Z, after
    /// the entries of their Z (the new entries are the later Z-actions):
    /// one pass over the chain for a batch that changes much of it. `book`
    /// holds every entry of `new` (a batch's pending entries).
    pub(crate) fn rebuild<B: Book<E>>(
        &mut self,
        new: impl IntoIterator<Item = (i32, E)>,
        book: &mut B,
    ) {
        let mut new = new.into_iter().peekable();
        let mut block = self.restart();
        let mut out = Writer::START;
        while block != NONE {
            let block_ref = self.blocks.get(block);
            let next = block_ref.next;
            let mut bits = block_ref.occupied;
            while bits != 0 {
                let slot = bits.trailing_zeros() as usize;
                bits &= bits - 1;
                let z = self.blocks.get(block).z(slot);
                while let Some((new_z, entry)) = new.next_if(|item| item.0 < z) {
                    self.len += 1;
                    self.append(&mut out, new_z, entry, book);
                }
                let (z, entry) = self.blocks.get_mut(block).take(slot);
                self.append(&mut out, z, entry, book);
            }
            // (The new chain's blocks are made from the old one's.)
            self.blocks.free_for_reuse(block);
            block = next;
        }
        for (z, entry) in new {
            self.len += 1;
            self.append(&mut out, z, entry, book);
        }
        self.blocks.trim_spares();
        self.mark_lasts();
    }

    /// Rewrites the chain, in order, into full blocks of a new pool, and
    /// frees the old blocks and every spare: the chain then holds what one
    /// filed afresh in this order would. O(n); `book` learns every entry's
    /// new place.
    pub(crate) fn shrink_to_fit<B: Book<E>>(&mut self, book: &mut B) {
        let mut old = core::mem::replace(&mut self.blocks, Pool::new(BLOCK_IDS));
        let mut block = self.restart();
        let mut out = Writer::START;
        while block != NONE {
            let block_ref = old.get_mut(block);
            let mut bits = block_ref.occupied;
            while bits != 0 {
                let slot = bits.trailing_zeros() as usize;
                bits &= bits - 1;
                let (z, entry) = block_ref.take(slot);
                self.append(&mut out, z, entry, book);
            }
            block = block_ref.next;
        }
        self.mark_lasts();
        self.blocks.shrink_to_fit();
    }

    /// Starts a chain of no blocks, every bucket empty, for a pass that
    /// appends the entries again (from [`Writer::START`]); returns the old
    /// chain's first block.
    fn restart(&mut self) -> u32 {
        let mut bucket = self.occupancy.next_from(0);
        while let Some(b) = bucket {
            self.lasts[b] = 0;
            self.occupancy.emptied(b);
            bucket = self.occupancy.next_from(b + 1);
        }
        self.last = NONE;
        core::mem::replace(&mut self.first, NONE)
    }

    /// Marks the last entry of each occupied bucket in its block, at the
    /// end of a pass that appended them.
    fn mark_lasts(&mut self) {
        let mut bucket = self.occupancy.next_from(0);
        while let Some(b) = bucket {
            let (block, end) = self.last_of(b);
            self.blocks.get_mut(block).lasts |= 1 << (end - 1);
            bucket = self.occupancy.next_from(b + 1);
        }
    }

    /// Appends an entry to the chain a [`rebuild`](Self::rebuild) writes.
    #[inline(always)]
    fn append<B: Book<E>>(&mut self, out: &mut Writer, z: i32, entry: E, book: &mut B) {
        if out.slot == BLOCK_SLOTS {
            let block = self.new_block(&entry);
            match self.last {
                NONE => self.first = block,
                last => {
                    self.blocks.get_mut(last).next = block;
                    self.blocks.get_mut(block).prev = last;
                }
            }
            self.last = block;
            *out = Writer { block, slot: 0 };
        }
        let Writer { block, slot } = *out;
        let block_ref = self.blocks.get_mut(block);
        block_ref.push(slot, z, entry);
        // (Every entry of a rebuild is in the book: held, or pending.)
        book.moved(block_ref.get(slot), Place::leaf(Chain::Levels, block, slot));
        let bucket = bucket_of(self.max_level, z);
        if self.lasts[bucket] == 0 {
            self.occupancy.filled(bucket);
        }
        self.lasts[bucket] = pack(block, slot);
        out.slot += 1;
    }

    /// Takes `block` out of the chain.
    fn unlink(&mut self, block: u32) {
        let block_ref = self.blocks.get(block);
        let (prev, next) = (block_ref.prev, block_ref.next);
        match prev {
            NONE => self.first = next,
            prev => self.blocks.get_mut(prev).next = next,
        }
        match next {
            NONE => self.last = prev,
            next => self.blocks.get_mut(next).prev = prev,
        }
    }

    /// The walk position of the first entry with Z bits at or above `low`.
    pub(crate) fn first_at_or_above(&self, low: i64) -> BlockCursor {
        let bucket = if low <= 0 {
            0
        } else if low > i64::from(DEFAULT_Z.to_bits()) {
            return BlockCursor::NONE;
        } else {
            // The first level at or above `low`, or the default Z.
            ((low + 0xFFFF) >> 16) as usize
        };
        let Some(bucket) = self.occupancy.next_from(bucket.min(self.max_level + 1)) else {
            return BlockCursor::NONE;
        };
        // The bucket's run starts right after the last entry of the
        // occupied bucket below it.
        let below = bucket
            .checked_sub(1)
            .and_then(|b| self.occupancy.prev_from(b));
        let Some(below) = below else {
            return self.up_from(self.first, 0);
        };
        let (block, end) = self.last_of(below);
        self.up_from(block, end)
    }

    /// The walk position from `slot` of `block` up.
    fn up_from(&self, block: u32, slot: usize) -> BlockCursor {
        let left = self.blocks.get(block).occupied & from(slot);
        BlockCursor { block, left }
    }

    /// The walk position from the last entry with Z bits at or below
    /// `high` down.
    pub(crate) fn last_at_or_below(&self, high: i64) -> BlockCursor {
        if high < 0 || self.lasts.is_empty() {
            return BlockCursor::NONE;
        }
        let bucket = if high >= i64::from(DEFAULT_Z.to_bits()) {
            self.lasts.len() - 1
        } else {
            ((high >> 16) as usize).min(self.max_level)
        };
        let Some(bucket) = self.occupancy.prev_from(bucket) else {
            return BlockCursor::NONE;
        };
        let (block, end) = self.last_of(bucket);
        BlockCursor {
            block,
            left: self.blocks.get(block).occupied & !from(end) & ALL,
        }
    }

    /// Checks every invariant of the chain (tests and fuzzing), and
    /// returns every entry with its Z bits and place, in order.
    #[cfg(any(test, feature = "check"))]
    pub(crate) fn check(&self) -> Vec<(&E, i32, Place)> {
        let mut entries = Vec::new();
        let (mut block, mut prev, mut blocks) = (self.first, NONE, 0);
        // The last of each bucket found in the chain, in bucket order.
        let mut last_of: Vec<(usize, u32)> = Vec::new();
        let mut counts = Vec::new();
        while block != NONE {
            let block_ref = self.blocks.get(block);
            assert_eq!(block_ref.prev, prev, "chain links agree");
            assert!(block_ref.count() > 0, "no block is empty");
            assert_eq!(block_ref.occupied & !ALL, 0, "no slot past the block");
            block_ref.check();
            let (low, high) = (
                block_ref.z(block_ref.start()),
                block_ref.z(highest(block_ref.occupied)),
            );
            counts.push((block_ref.count(), low, high));
            let mut bits = block_ref.occupied;
            while bits != 0 {
                let slot = bits.trailing_zeros() as usize;
                bits &= bits - 1;
                let z = block_ref.z(slot);
                let bucket = bucket_of(self.max_level, z);
                assert!(bucket < self.lasts.len(), "only levels and the default Z");
                assert_eq!(self.z_of(bucket), z, "only levels and the default Z");
                match last_of.last_mut() {
                    Some((b, last)) if *b == bucket => *last = pack(block, slot),
                    _ => last_of.push((bucket, pack(block, slot))),
                }
                entries.push((
                    block_ref.get(slot),
                    z,
                    Place::leaf(Chain::Levels, block, slot),
                ));
            }
            blocks += 1;
            (prev, block) = (block, block_ref.next);
        }
        assert_eq!(self.last, prev, "the last block ends the chain");
        assert_eq!(blocks, self.blocks.live(), "no block is lost");
        assert!(entries.windows(2).all(|w| w[0].1 <= w[1].1), "sorted by Z");
        for pair in counts.windows(2) {
            let dense = pair.iter().any(|&(count, ..)| count > SPARSE);
            let boundary = pair[0].2 != pair[1].1;
            assert!(
                dense || boundary || pair[0].0 + pair[1].0 > BLOCK_SLOTS,
                "blocks stay dense: {counts:?}"
            );
        }
        // Occupied buckets are exactly those found, with their lasts.
        let mut occupied = Vec::new();
        let mut next = self.occupancy.next_from(0);
        while let Some(bucket) = next {
            occupied.push((bucket, self.lasts[bucket]));
            next = self.occupancy.next_from(bucket + 1);
        }
        assert_eq!(occupied, last_of, "occupancy and lasts");
        let mut marked = 0;
        let mut block = self.first;
        while block != NONE {
            let block_ref = self.blocks.get(block);
            marked += block_ref.lasts.count_ones() as usize;
            block = block_ref.next;
        }
        assert_eq!(marked, occupied.len(), "one last marked per bucket");
        for &(_, packed) in &occupied {
            let (block, end) = (
                (packed - 1) >> SLOT_SHIFT,
                ((packed - 1) as usize & (BLOCK_SLOTS - 1)),
            );
            assert!(
                self.blocks.get(block).lasts & (1 << end) != 0,
                "lasts marked"
            );
        }
        let held = self.lasts.iter().filter(|&&t| t != 0).count();
        assert_eq!(held, occupied.len(), "empty buckets have no last");
        entries
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// A book that keeps nothing and counts the entries that block
    /// operations move: the chain alone is under test.
    #[derive(Default)]
    struct Moves(usize);

    impl Book<u32> for Moves {
        fn set(&mut self, _: &u32, _: Place) {}
        fn moved(&mut self, _: &u32, _: Place) {
            self.0 += 1;
        }
        fn get(&self, _: &u32) -> Place {
            Place::NOWHERE
        }
    }

    /// Filings that take turns among 16 levels each land right before the
    /// next level's entries, so that each needs room while the levels
    /// share blocks: they move at most three entries a filing over the
    /// first thousand and none once each level has blocks of its own (so
    /// 10,000 filings are held to the same 3,000 moves), and the chain
    /// keeps its blocks dense (`check`). Blocks that split and merged
    /// again at every turn would move many more.
    #[test]
    fn filings_in_turn_among_levels_move_few_entries() {
        // (Under Miri, 2,000.)
        let more = if cfg!(miri) { 2_000 } else { 10_000 };
        for count in [1_000, more] {
            let mut chain = Levels::<u32>::new(15, 16);
            let mut moves = Moves::default();
            for entry in 0..count {
                let level = entry as usize % 16;
                chain.insert((level as i32) << 16, level, entry, &mut moves);
            }
            chain.check();
            assert!(moves.0 <= 3_000, "{} entries moved", moves.0);
        }
    }
}
