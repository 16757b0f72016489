//! A bucket: the objects at one Z value, in the order of their last
//! Z-action, kept in a chain of [`Block`]s; and the filing mechanics every
//! collection shares.
//!
//! Appends go to the tail block. Removal clears a slot in O(1) and then
//! keeps the blocks dense with a bounded amount of work:
//!
//! - a full tail block with holes is compacted before an append, so a block
//!   stops being the tail only when every one of its [`SLOTS`] slots holds
//!   an object;
//! - a block left empty is unlinked and freed (the last block of a bucket is
//!   kept, so a bucket that empties and refills does not allocate);
//! - a block left at most half full by a removal is merged with a neighbour
//!   when the two fit in one block: the objects of the smaller one move.
//!
//! So of any two neighbouring blocks, one is over half full or they hold
//! more than [`SLOTS`] objects together.
//!
//! Each step touches at most two blocks and moves at most [`SLOTS`]
//! objects, so every operation is O(1) in the worst case, not just on
//! average.
//!
//! This module holds `unsafe` code. Its invariants, with those of the
//! `block` module:
//!
//! 1. An object's cached place is `Some((b, s))` exactly while slot `s` of
//!    block `b` holds it, and `b` is a live block of a live bucket: a bucket
//!    holding objects is never freed, and a collection clears the places of
//!    its objects before it frees their blocks.
//! 2. A bucket's block list is mutated only by code holding exclusive access
//!    (`&mut`) to the collection that owns the bucket, so no shared borrow
//!    of the list ([`Bucket::blocks`]) is alive then.
//! 3. Every bucket or block pointer that is turned back into a reference,
//!    or handed to `cursor_mut_from_ptr`, comes from `Rc::as_ptr`, from a
//!    list's own cursor, or points to a bucket of a simple collection's
//!    array (whose mutable parts all sit in cells and are never freed one
//!    by one).

use alloc::boxed::Box;
use alloc::rc::Rc;
use core::cell::{Cell, UnsafeCell};
use core::ptr::NonNull;

use intrusive_collections::{LinkedList, LinkedListLink, intrusive_adapter};

use crate::block::{Block, BlockAdapter, SLOTS};
use crate::{I16F16, ZObject};

intrusive_adapter!(pub(crate) ChainAdapter<T> = Rc<Bucket<T>>: Bucket<T> { chain_link => LinkedListLink });
intrusive_adapter!(pub(crate) EmptiedAdapter<T> = Rc<Bucket<T>>: Bucket<T> { emptied_link => LinkedListLink });

/// Which collection a bucket belongs to: the address of a small allocation
/// the collection owns for its whole life, so two live collections never
/// share one.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) struct Owner(NonNull<u8>);

/// The allocation behind an [`Owner`]; the collection keeps it alive.
#[derive(Debug)]
pub(crate) struct OwnerToken(Box<u8>);

impl OwnerToken {
    pub(crate) fn new() -> Self {
        OwnerToken(Box::new(0))
    }

    pub(crate) fn owner(&self) -> Owner {
        Owner(NonNull::from(&*self.0))
    }
}

/// What part a bucket plays in its collection.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) enum BucketKind {
    /// An optimized natural level, reached through the quick-access array.
    Level,
    /// The dedicated bucket for [`DEFAULT_Z`](crate::DEFAULT_Z).
    Default,
    /// Any other Z, opened on demand and pruned once traversals keep finding
    /// it empty.
    Between,
}

/// Every object at one Z value, in the order of their last Z-action.
pub(crate) struct Bucket<T> {
    /// The bucket's place in a fixed-point collection's chain (unused by the
    /// simple collection's array).
    chain_link: LinkedListLink,
    /// A fixed-point collection's list of emptied non-optimized buckets
    /// waiting to be pruned.
    emptied_link: LinkedListLink,
    z: I16F16,
    kind: BucketKind,
    /// The group of buckets the collection's occupancy bitmap tracks this
    /// bucket in (see `sections`).
    section: usize,
    owner: Owner,
    blocks: UnsafeCell<LinkedList<BlockAdapter<T>>>,
    /// Objects in the bucket.
    len: Cell<usize>,
    /// The collection's traversal count when the bucket last became empty.
    emptied_at: Cell<u64>,
}

impl<T> Bucket<T> {
    pub(crate) fn new(z: I16F16, kind: BucketKind, section: usize, owner: Owner) -> Self {
        Bucket {
            chain_link: LinkedListLink::new(),
            emptied_link: LinkedListLink::new(),
            z,
            kind,
            section,
            owner,
            blocks: UnsafeCell::new(LinkedList::new(BlockAdapter::NEW)),
            len: Cell::new(0),
            emptied_at: Cell::new(0),
        }
    }

    pub(crate) fn z(&self) -> I16F16 {
        self.z
    }

    pub(crate) fn kind(&self) -> BucketKind {
        self.kind
    }

    pub(crate) fn section(&self) -> usize {
        self.section
    }

    /// Whether a traversal entering the bucket's section starts here: a
    /// level or the default bucket.
    pub(crate) fn is_section_head(&self) -> bool {
        self.kind != BucketKind::Between
    }

    /// Whether the bucket is in its collection's list of emptied buckets.
    pub(crate) fn is_waiting_for_pruning(&self) -> bool {
        self.emptied_link.is_linked()
    }

    pub(crate) fn is_empty(&self) -> bool {
        self.len.get() == 0
    }

    pub(crate) fn emptied_at(&self) -> u64 {
        self.emptied_at.get()
    }

    pub(crate) fn set_emptied_at(&self, traversals: u64) {
        self.emptied_at.set(traversals);
    }

    /// The bucket's blocks, back to front.
    #[inline]
    pub(crate) fn blocks(&self) -> &LinkedList<BlockAdapter<T>> {
        // SAFETY: invariant 2: the list is mutated only under exclusive access
        // to the owning collection, which cannot coexist with this `&self`
        // borrow reached through that collection.
        unsafe { &*self.blocks.get() }
    }

    /// Checks the block invariants of the bucket, and that it counts its
    /// objects right (debug builds, tests and fuzzing; buckets of up to 64
    /// blocks, so that large debug-built scenes stay usable).
    #[cfg(any(test, debug_assertions))]
    pub(crate) fn debug_check(&self) {
        let mut cursor = self.blocks().front();
        let (mut blocks, mut objects) = (0, 0);
        while let Some(block) = cursor.get_ptr() {
            blocks += 1;
            if blocks > 64 {
                return;
            }
            // SAFETY: a block of the list, alive while in it.
            let block_ref = unsafe { block.as_ref() };
            block_ref.debug_check(block);
            assert!(
                block_ref.live() > 0 || blocks == 1,
                "only a lone block may be empty"
            );
            objects += block_ref.live();
            cursor.move_next();
        }
        assert_eq!(objects, self.len.get(), "the bucket counts its objects");
    }

    /// Clears the place of every object in the bucket, releasing nothing
    /// (see [`Block::forget_places`]).
    pub(crate) fn forget_places(&self) {
        for block in self.blocks() {
            block.forget_places();
        }
    }

    /// Takes every block out of the bucket, objects and all, leaving it
    /// empty; the caller drops them.
    ///
    /// # Safety
    ///
    /// The caller holds exclusive access to the collection owning the bucket
    /// (invariant 2), and has cleared the places of the objects in it.
    pub(crate) unsafe fn take_blocks(&self) -> LinkedList<BlockAdapter<T>> {
        self.len.set(0);
        // SAFETY: exclusive access, by this function's contract.
        unsafe { (*self.blocks.get()).take() }
    }
}

/// Files `object` at the tail of `bucket` (the object becomes the front-most
/// of its Z), records its place, and tells whether the bucket was empty.
///
/// # Safety
///
/// `bucket` points to a live bucket (invariant 3), the caller holds
/// exclusive access to the collection owning it, and `object` is in no
/// collection.
pub(crate) unsafe fn file<T>(bucket: NonNull<Bucket<T>>, object: Rc<ZObject<T>>) -> bool {
    debug_assert!(object.place().is_none());
    // SAFETY: the bucket is alive, by this function's contract.
    let bucket_ref = unsafe { bucket.as_ref() };
    // SAFETY: exclusive access, by this function's contract (invariant 2).
    let blocks = unsafe { &mut *bucket_ref.blocks.get() };
    // SAFETY: exclusive access; the tail is a block of this bucket.
    let tail = unsafe { tail_with_room(bucket, blocks) };
    let object = NonNull::new(Rc::into_raw(object).cast_mut()).expect("an Rc is never null");
    // SAFETY: `tail` comes from the list (invariant 3) and has room; the
    // object was just turned into a raw pointer and is in no collection.
    unsafe { tail.as_ref().push(tail, object) };
    let len = bucket_ref.len.get();
    bucket_ref.len.set(len + 1);
    #[cfg(debug_assertions)]
    bucket_ref.debug_check();
    len == 0
}

/// The bucket's tail block, made ready for one more object: compacted if
/// it is full of slots but not of objects, followed by a new block if it is
/// full of objects.
///
/// # Safety
///
/// `bucket` points to a live bucket whose block list is `blocks`, and the
/// caller holds exclusive access to its collection.
unsafe fn tail_with_room<T>(
    bucket: NonNull<Bucket<T>>,
    blocks: &mut LinkedList<BlockAdapter<T>>,
) -> NonNull<Block<T>> {
    if let Some(tail) = blocks.back().get_ptr() {
        // SAFETY: a block of the list, alive while it is in it.
        let tail_ref = unsafe { tail.as_ref() };
        if tail_ref.is_full() && tail_ref.live() < SLOTS {
            // SAFETY: `tail` comes from the list's cursor; exclusive access.
            unsafe { tail_ref.compact(tail) };
        }
        if !tail_ref.is_full() {
            return tail;
        }
    }
    let block = Rc::new(Block::new(bucket));
    let pointer = NonNull::new(Rc::as_ptr(&block).cast_mut()).expect("an Rc is never null");
    blocks.push_back(block);
    pointer
}

/// Merges `block`, just left at most half full, with its predecessor or else
/// its successor if the two fit in one block: the objects of the smaller one
/// move into the larger, and the emptied block is freed.
///
/// # Safety
///
/// `block` is in `blocks` and comes from `Rc::as_ptr` or the list
/// (invariant 3); the caller holds exclusive access to its collection.
unsafe fn merge_with_neighbour<T>(
    blocks: &mut LinkedList<BlockAdapter<T>>,
    block: NonNull<Block<T>>,
) {
    // SAFETY: `block` is in this list, by this function's contract.
    let mut cursor = unsafe { blocks.cursor_mut_from_ptr(block.as_ptr()) };
    // SAFETY: a block of the list.
    let live = unsafe { block.as_ref() }.live();
    let fits = |other: Option<&Block<T>>| other.is_some_and(|other| other.live() + live <= SLOTS);
    let neighbour_first = if fits(cursor.peek_prev().get()) {
        true
    } else if fits(cursor.peek_next().get()) {
        false
    } else {
        return;
    };
    let neighbour = if neighbour_first {
        cursor.peek_prev().get_ptr()
    } else {
        cursor.peek_next().get_ptr()
    }
    .expect("the neighbour that fits");
    // SAFETY: a block of the list.
    if unsafe { neighbour.as_ref() }.live() > live {
        // The neighbour keeps its objects and takes in this block's.
        // SAFETY: two different blocks of one bucket that fit in one block
        // together, from the list or `Rc::as_ptr`; exclusive access.
        unsafe {
            neighbour
                .as_ref()
                .absorb(neighbour, block, !neighbour_first)
        };
    } else {
        // SAFETY: as above.
        unsafe { block.as_ref().absorb(block, neighbour, neighbour_first) };
        if neighbour_first {
            cursor.move_prev();
        } else {
            cursor.move_next();
        }
    }
    // The cursor is on the block that was emptied: free it.
    drop(cursor.remove());
}

/// Unlinks `object` from its bucket in O(1) and returns the collection's
/// handle to it, and its bucket if that is now empty.
///
/// # Safety
///
/// `object` is in a collection to which the caller holds exclusive access.
pub(crate) unsafe fn unfile<T>(
    object: &ZObject<T>,
) -> (Rc<ZObject<T>>, Option<NonNull<Bucket<T>>>) {
    let (block, slot) = object.place().expect("unfile: the object is filed");
    // SAFETY: the object is filed (contract), so its block is alive
    // (invariant 1).
    let block_ref = unsafe { block.as_ref() };
    let bucket = block_ref.bucket();
    // SAFETY: a filed object's bucket is alive (invariant 1).
    let bucket_ref = unsafe { bucket.as_ref() };
    // SAFETY: exclusive access, by this function's contract (invariant 2).
    let blocks = unsafe { &mut *bucket_ref.blocks.get() };

    let raw = block_ref.take(slot);
    object.set_place(None);
    let live = block_ref.live();
    if live == 0 {
        // Keep a bucket's last block for its next object.
        let only =
            blocks.front().get_ptr() == Some(block) && blocks.back().get_ptr() == Some(block);
        if !only {
            // SAFETY: the object's cached block pointer has the provenance of
            // the block's `Rc` (invariant 3) and the block is in this list.
            drop(unsafe { blocks.cursor_mut_from_ptr(block.as_ptr()) }.remove());
        }
    } else if live <= SLOTS / 2 {
        // SAFETY: as above; exclusive access.
        unsafe { merge_with_neighbour(blocks, block) };
    }
    let len = bucket_ref.len.get() - 1;
    bucket_ref.len.set(len);
    #[cfg(debug_assertions)]
    bucket_ref.debug_check();
    // SAFETY: `raw` came from `Rc::into_raw` in `file`, and the slot gave up
    // its strong count in `take` (block invariant 1).
    let handle = unsafe { Rc::from_raw(raw.as_ptr()) };
    (handle, (len == 0).then_some(bucket))
}

/// The collection an object's bucket belongs to, if the object is in one.
pub(crate) fn owner_of<T>(object: &ZObject<T>) -> Option<Owner> {
    let (block, _) = object.place()?;
    // SAFETY: a filed object's block and bucket are alive (invariant 1); we
    // read one plain field through each and keep no reference.
    let bucket = unsafe { block.as_ref() }.bucket();
    // SAFETY: as above.
    Some(unsafe { bucket.as_ref() }.owner)
}

#[cfg(test)]
mod tests {
    use alloc::vec::Vec;

    use super::*;

    /// A deterministic generator (xorshift64), enough to shuffle operations.
    struct Shuffle(u64);

    impl Shuffle {
        fn below(&mut self, bound: usize) -> usize {
            self.0 ^= self.0 << 13;
            self.0 ^= self.0 >> 7;
            self.0 ^= self.0 << 17;
            (self.0 % bound as u64) as usize
        }
    }

    /// The ids of the bucket's objects, in order, read block by block.
    fn order(bucket: &Bucket<usize>) -> Vec<usize> {
        bucket
            .blocks()
            .iter()
            .flat_map(|block| {
                (0..SLOTS).filter_map(move |slot| {
                    // SAFETY: a filled slot owns a strong count of its object.
                    block.slot(slot).map(|object| **unsafe { object.as_ref() })
                })
            })
            .collect()
    }

    /// Random appends and removals (from anywhere, and often from the tail)
    /// on one bucket, against a plain list: the order, every cached place
    /// (`debug_check`), the merges that keep blocks dense, and the release
    /// of every handle.
    #[test]
    fn blocks_keep_order_places_and_density_through_churn() {
        let token = OwnerToken::new();
        let bucket = Rc::new(Bucket::new(
            I16F16::ZERO,
            BucketKind::Level,
            0,
            token.owner(),
        ));
        let pointer = NonNull::new(Rc::as_ptr(&bucket).cast_mut()).unwrap();
        // Under Miri, fewer objects and steps.
        let (count, steps) = if cfg!(miri) { (100, 60) } else { (300, 20_000) };
        let objects: Vec<Rc<ZObject<usize>>> =
            (0..count).map(|id| Rc::new(ZObject::new(id))).collect();
        let mut shuffle = Shuffle(0x2012);
        // Under Miri, start from three full blocks, filed in one go; then
        // churn.
        let mut filed: Vec<usize> = if cfg!(miri) {
            (0..96).collect()
        } else {
            Vec::new()
        };
        for &id in &filed {
            // SAFETY: a live bucket this test owns; the object is free.
            unsafe { file(pointer, Rc::clone(&objects[id])) };
        }
        for step in 0..steps {
            // Grow to about two thirds of the objects, then hover there
            // (under Miri, drain towards a third).
            let target = if cfg!(miri) {
                count * 2 / 3
            } else {
                count * 4 / 3
            };
            let add =
                filed.is_empty() || (filed.len() < count && shuffle.below(target) >= filed.len());
            if add {
                let free: Vec<usize> = (0..objects.len())
                    .filter(|id| !filed.contains(id))
                    .collect();
                let id = free[shuffle.below(free.len())];
                // SAFETY: a live bucket this test owns; the object is free.
                let was_empty = unsafe { file(pointer, Rc::clone(&objects[id])) };
                assert_eq!(was_empty, filed.is_empty());
                filed.push(id);
            } else {
                // Under Miri, removals gather in the first blocks, so the
                // few steps still drain blocks far enough to merge them.
                let reach = if cfg!(miri) {
                    filed.len().min(40)
                } else {
                    filed.len()
                };
                let at = if shuffle.below(4) == 0 {
                    filed.len() - 1
                } else {
                    shuffle.below(reach)
                };
                let id = filed.remove(at);
                // SAFETY: the object is filed in the bucket this test owns.
                let (handle, emptied) = unsafe { unfile(&objects[id]) };
                assert!(Rc::ptr_eq(&handle, &objects[id]));
                assert_eq!(emptied.is_some(), filed.is_empty());
                assert!(objects[id].place().is_none());
            }
            assert_eq!(order(&bucket), filed, "step {step}");
            bucket.debug_check();
            // Of two neighbouring blocks, one is over half full, or they
            // would not fit in one.
            let lives: Vec<usize> = bucket.blocks().iter().map(Block::live).collect();
            for pair in lives.windows(2) {
                let dense = pair.iter().any(|&live| live > SLOTS / 2);
                assert!(dense || pair[0] + pair[1] > SLOTS, "step {step}: {lives:?}");
            }
        }
        // Tear down the way a collection does.
        bucket.forget_places();
        // SAFETY: this test holds the bucket alone; places are cleared.
        drop(unsafe { bucket.take_blocks() });
        for object in &objects {
            assert_eq!(Rc::strong_count(object), 1);
            assert!(object.place().is_none());
        }
    }
}
