//! A block: a fixed run of slots, each holding one object or nothing. A
//! bucket keeps its objects in a chain of blocks (an unrolled list), so a
//! traversal reads object pointers from contiguous memory and the loads of
//! the objects themselves can overlap, instead of waiting on one link per
//! object.
//!
//! A block fills from its first slot to its last; removing an object clears
//! its slot in O(1). A bit mask tells which slots hold an object, so walks
//! over a block jump from object to object with no unpredictable branch per
//! hole. The holes are reclaimed by compacting the tail block before it
//! would overflow, and by merging a sparse block into a neighbour. Each
//! object caches its block and slot, and every move updates them. See
//! [`bucket`](crate::bucket) for when blocks are compacted and merged.
//!
//! This module holds `unsafe` code. Its invariants, relied on by `bucket`:
//!
//! 1. A slot holds an object pointer `p` (and its bit in the mask is set)
//!    exactly while the object at `p` caches this block and this slot as
//!    its place; `p` comes from `Rc::into_raw`, and the slot owns that
//!    strong count.
//! 2. Blocks are mutated only by code with exclusive access (`&mut`) to the
//!    collection owning them; all their mutable state sits in cells, so
//!    shared references handed to traversals stay valid until then.
//! 3. A block pointer cached in an object, or passed as `this` below, comes
//!    from `Rc::as_ptr` or from the block list itself, never from a
//!    reference, so it carries the provenance of the whole allocation.

use alloc::rc::Rc;
use core::cell::Cell;
use core::ptr::NonNull;

use intrusive_collections::{LinkedListLink, intrusive_adapter};

use crate::ZObject;
use crate::bucket::Bucket;

/// Slots per block: as many as bits in a [`Mask`]. 32 pointers are four
/// cache lines; a traversal follows one block link per 32 objects at most,
/// and a compaction or a merge moves at most 32 objects.
pub(crate) const SLOTS: usize = Mask::BITS as usize;

/// One bit per slot: set while the slot holds an object.
pub(crate) type Mask = u32;

intrusive_adapter!(pub(crate) BlockAdapter<T> = Rc<Block<T>>: Block<T> { link => LinkedListLink });

/// A run of [`SLOTS`] object slots in a bucket's chain of blocks.
///
/// `repr(C)` keeps what every operation reads (the bucket, the mask and the
/// links) together in the first cache line, ahead of the slots.
#[repr(C)]
pub(crate) struct Block<T> {
    /// The bucket whose chain this block is in; never changes.
    bucket: NonNull<Bucket<T>>,
    /// Which slots hold an object. The next object goes right after the
    /// highest one.
    occupied: Cell<Mask>,
    /// How many slots hold an object: the bits set in `occupied`, counted
    /// as they change, since `count_ones` is a dozen instructions on a
    /// target without a population-count instruction (baseline x86-64).
    live: Cell<u8>,
    link: LinkedListLink,
    slots: [Cell<Option<NonNull<ZObject<T>>>>; SLOTS],
}

/// The slots `0..n`, as a mask.
fn first_slots(n: usize) -> Mask {
    Mask::MAX.checked_shr((SLOTS - n) as u32).unwrap_or(0)
}

impl<T> Block<T> {
    pub(crate) fn new(bucket: NonNull<Bucket<T>>) -> Self {
        Block {
            link: LinkedListLink::new(),
            bucket,
            occupied: Cell::new(0),
            live: Cell::new(0),
            slots: [const { Cell::new(None) }; SLOTS],
        }
    }

    pub(crate) fn bucket(&self) -> NonNull<Bucket<T>> {
        self.bucket
    }

    /// Which slots hold an object.
    #[inline]
    pub(crate) fn occupied(&self) -> Mask {
        self.occupied.get()
    }

    /// One past the highest slot holding an object: where the next append
    /// goes.
    #[inline]
    pub(crate) fn end(&self) -> usize {
        SLOTS - self.occupied().leading_zeros() as usize
    }

    /// Objects in the block.
    #[inline]
    pub(crate) fn live(&self) -> usize {
        usize::from(self.live.get())
    }

    /// Whether no slot is left for an append.
    pub(crate) fn is_full(&self) -> bool {
        self.end() == SLOTS
    }

    /// The object in `slot`, which holds one.
    #[inline]
    fn object(&self, slot: usize) -> NonNull<ZObject<T>> {
        self.slot(slot).expect("an occupied slot")
    }

    /// Asks the CPU to start loading the block into its cache (a hint; a
    /// no-op where the target has no prefetch instruction we use).
    #[inline(always)]
    pub(crate) fn prefetch(&self) {
        #[cfg(target_arch = "x86_64")]
        {
            use core::arch::x86_64::{_MM_HINT_T0, _mm_prefetch};
            let start = core::ptr::from_ref(self).cast::<i8>();
            for line in (0..size_of::<Self>()).step_by(64) {
                // SAFETY: a prefetch is only a hint: it reads nothing and
                // cannot fault, and the address stays inside this block.
                unsafe { _mm_prefetch::<_MM_HINT_T0>(start.wrapping_add(line)) };
            }
        }
    }

    /// Asks the CPU to start loading the first cache line of every object
    /// of the block (a hint, like [`prefetch`](Self::prefetch)).
    #[inline(always)]
    pub(crate) fn prefetch_objects(&self) {
        #[cfg(target_arch = "x86_64")]
        {
            use core::arch::x86_64::{_MM_HINT_T0, _mm_prefetch};
            for (_, object) in self.objects() {
                // SAFETY: a prefetch is only a hint: it reads nothing and
                // cannot fault, whatever the address.
                unsafe { _mm_prefetch::<_MM_HINT_T0>(object.as_ptr().cast::<i8>()) };
            }
        }
    }

    /// What `slot` holds.
    #[inline(always)]
    pub(crate) fn slot(&self, slot: usize) -> Option<NonNull<ZObject<T>>> {
        self.slots[slot % SLOTS].get()
    }

    /// The objects of the block, in slot order.
    fn objects(&self) -> impl Iterator<Item = (usize, NonNull<ZObject<T>>)> + '_ {
        let mut bits = self.occupied();
        core::iter::from_fn(move || {
            let slot = bits.trailing_zeros() as usize;
            (bits != 0).then(|| {
                bits &= bits - 1;
                (slot, self.object(slot))
            })
        })
    }

    /// Puts `object` in the next free slot and records the place in it.
    ///
    /// # Safety
    ///
    /// `this` points to this very block (invariant 3), which is not full,
    /// and `object` comes from `Rc::into_raw` and is in no collection.
    pub(crate) unsafe fn push(&self, this: NonNull<Block<T>>, object: NonNull<ZObject<T>>) {
        debug_assert!(core::ptr::eq(this.as_ptr(), self) && !self.is_full());
        let slot = self.end();
        // SAFETY: by this function's contract.
        unsafe { self.put(this, slot, object) };
        self.occupied.set(self.occupied() | 1 << slot);
        self.live.set(self.live.get() + 1);
    }

    /// Puts `object` in `slot` and records the place in it; the mask is the
    /// caller's business.
    ///
    /// # Safety
    ///
    /// `this` points to this very block (invariant 3), and `object` is
    /// alive, owned by whichever slot the caller empties for it.
    #[inline]
    unsafe fn put(&self, this: NonNull<Block<T>>, slot: usize, object: NonNull<ZObject<T>>) {
        self.slots[slot].set(Some(object));
        // SAFETY: the object is alive, by this function's contract.
        unsafe { object.as_ref() }.set_place(Some((this, slot as u8)));
    }

    /// Empties `slot` and gives back the pointer it held, whose strong count
    /// the caller now owns and whose place the caller clears.
    pub(crate) fn take(&self, slot: u8) -> NonNull<ZObject<T>> {
        let slot = usize::from(slot);
        let pointer = self.object(slot);
        self.slots[slot].set(None);
        self.occupied.set(self.occupied() & !(1 << slot));
        self.live.set(self.live.get() - 1);
        pointer
    }

    /// Moves the objects to the front of the block, in order, closing the
    /// holes, and tells each object that moved its new slot.
    ///
    /// # Safety
    ///
    /// `this` points to this very block (invariant 3), and the caller holds
    /// exclusive access.
    pub(crate) unsafe fn compact(&self, this: NonNull<Block<T>>) {
        let live = self.live();
        // Only the objects above the first hole move.
        let settled = self.occupied().trailing_ones() as usize;
        let moving = self.occupied() & !first_slots(settled);
        let mut bits = moving;
        let mut to = settled;
        while bits != 0 {
            let from = bits.trailing_zeros() as usize;
            bits &= bits - 1;
            let object = self.object(from);
            self.slots[from].set(None);
            // SAFETY: the object moves from one slot of this block to
            // another, which takes over its strong count.
            unsafe { self.put(this, to, object) };
            to += 1;
        }
        self.occupied.set(first_slots(live));
    }

    /// Takes in every object of `other`, which comes right before this block
    /// (`other_first`) or right after it: the objects of both are packed
    /// from slot 0, in order, and each object that moved is told its new
    /// place; `other` is left empty, for the caller to unlink and free.
    ///
    /// # Safety
    ///
    /// `this` points to this very block and `other` to another block of the
    /// same bucket (invariant 3), holding no more than [`SLOTS`] objects
    /// together, and the caller holds exclusive access.
    pub(crate) unsafe fn absorb(
        &self,
        this: NonNull<Block<T>>,
        other: NonNull<Block<T>>,
        other_first: bool,
    ) {
        // SAFETY: a live block of the same bucket, by this function's
        // contract.
        let other = unsafe { other.as_ref() };
        debug_assert!(self.live() + other.live() <= SLOTS);
        // The packed run goes through a copy on the stack: when `other`
        // comes first, its objects land on slots this block's objects still
        // hold.
        let mut packed = [None; SLOTS];
        let mut len = 0;
        let (front, back) = if other_first {
            (other, self)
        } else {
            (self, other)
        };
        for block in [front, back] {
            for (slot, object) in block.objects() {
                let stays = core::ptr::eq(block, self) && slot == len;
                packed[len] = Some((object, stays));
                len += 1;
            }
        }
        for (to, entry) in packed.into_iter().enumerate() {
            match entry {
                Some((_, true)) => {}
                // SAFETY: the object moves into this slot from one that is
                // overwritten or emptied here.
                Some((object, false)) => unsafe { self.put(this, to, object) },
                None => self.slots[to].set(None),
            }
        }
        self.occupied.set(first_slots(len));
        self.live.set(len as u8);
        for (slot, _) in other.objects() {
            other.slots[slot].set(None);
        }
        other.occupied.set(0);
        other.live.set(0);
    }

    /// Checks invariant 1 for every slot (debug builds, tests and fuzzing).
    #[cfg(any(test, debug_assertions))]
    pub(crate) fn debug_check(&self, this: NonNull<Block<T>>) {
        assert_eq!(
            self.live(),
            self.occupied().count_ones() as usize,
            "the block counts its objects"
        );
        for (slot, cell) in self.slots.iter().enumerate() {
            let occupied = self.occupied() & (1 << slot) != 0;
            assert_eq!(
                cell.get().is_some(),
                occupied,
                "slot {slot} and the mask agree"
            );
            if let Some(object) = cell.get() {
                // SAFETY: an occupied slot owns a strong count of its object.
                let place = unsafe { object.as_ref() }.place();
                assert!(
                    place == Some((this, slot as u8)),
                    "the object caches its place"
                );
            }
        }
    }

    /// Clears the cached place of every object in the block, without
    /// releasing anything: the first step of tearing a collection down, so
    /// that no object can point at a freed block even if dropping another
    /// object panics.
    pub(crate) fn forget_places(&self) {
        for (_, object) in self.objects() {
            // SAFETY: the slot owns a strong count of the object
            // (invariant 1), so it is alive.
            unsafe { object.as_ref() }.set_place(None);
        }
    }
}

impl<T> Drop for Block<T> {
    /// Releases the objects still in the block: first every object forgets
    /// its place, then the strong counts are given back, so even a panicking
    /// `T::drop` leaves no object pointing at a freed block.
    fn drop(&mut self) {
        self.forget_places();
        while self.occupied() != 0 {
            let slot = self.occupied().trailing_zeros() as u8;
            let object = self.take(slot);
            // SAFETY: the pointer came from `Rc::into_raw`, and the slot
            // owned this strong count, which it gives back exactly once
            // (it was just taken out).
            drop(unsafe { Rc::from_raw(object.as_ptr()) });
        }
    }
}
