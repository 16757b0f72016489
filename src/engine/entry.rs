//! What a slot holds, and where an entry's place is kept: the two seams
//! between the engine and the faces.
//!
//! An entry is a key of the game's own storage (its place lives in the
//! keyed face's key table) or a shared `Rc` handle (its place lives in the
//! object). Leaves, chains and the core are generic over both and never
//! see which.

use super::place::Place;

/// A value a collection files: a key, or a shared handle.
pub(crate) trait Entry: Sized {
    /// How a slot stores an entry. A slot that holds none keeps whatever
    /// [`vacant`](Entry::vacant) or [`take`](Entry::take) left in it.
    type Slot;

    /// A value for a slot that holds no entry, made from any entry (keys
    /// copy themselves, handles leave an empty slot).
    fn vacant(&self) -> Self::Slot;

    /// The slot value holding this entry.
    fn into_slot(self) -> Self::Slot;

    /// Moves the entry out of a slot that holds one.
    fn take(slot: &mut Self::Slot) -> Self;

    /// The entry in a slot that holds one.
    fn get(slot: &Self::Slot) -> &Self;

    /// The entry in a slot, if it holds one (a slot an entry was taken out
    /// of may still hold a copy of it: keys are `Copy`).
    fn peek(slot: &Self::Slot) -> Option<&Self>;

    /// Whether the two are the same entry (equal keys, or the same object).
    fn same(&self, other: &Self) -> bool;

    /// Whether the two would have the same place in the book: the same
    /// entry, or (keys) another generation of the same index.
    #[inline]
    fn shares_place(&self, other: &Self) -> bool {
        self.same(other)
    }

    /// Moves `slots[..len - by]` `by` slots up, so `slots[..by]` are free
    /// to overwrite and the last `by` values are dropped or overwritten.
    /// (Keys, being `Copy`, override it with a plain copy.)
    #[inline]
    fn shift_up(slots: &mut [Self::Slot], by: usize) {
        slots.rotate_right(by);
    }

    /// Moves `slots[by..]` `by` slots down; the first `by` values end up
    /// last.
    #[inline]
    fn shift_down(slots: &mut [Self::Slot], by: usize) {
        slots.rotate_left(by);
    }
}

/// Where the places of entries are kept: the engine tells the book every
/// time it files an entry or moves it to another leaf, and asks it where
/// an entry is.
pub(crate) trait Book<E> {
    /// `entry` is now at `place`.
    fn set(&mut self, entry: &E, place: Place);

    /// `entry`, which the book holds, moved to `place` (a block or leaf
    /// operation moving entries): what [`set`](Self::set) does, which a
    /// book may do faster knowing the entry is there.
    #[inline]
    fn moved(&mut self, entry: &E, place: Place) {
        self.set(entry, place);
    }

    /// Where `entry` is, as last set ([`Place::NOWHERE`] if never, or if
    /// its place belongs to another entry, such as another generation of a
    /// key: callers check the entry they find there).
    fn get(&self, entry: &E) -> Place;
}
