//! The system allocator, counted: what the tests, benchmarks and soak that
//! measure memory read. A program that uses it makes it its global
//! allocator:
//!
//! ```ignore
//! #[global_allocator]
//! static ALLOCATOR: zorder_testkit::counting::Counting = zorder_testkit::counting::Counting;
//! ```
//!
//! It counts for the whole process (bytes and allocations held, the peak
//! of the bytes, and the bytes as glibc's malloc spends them) and for each
//! thread on its own ([`Seen`]), since each test runs on a thread of its
//! own while others allocate.
//!
//! Implementing `GlobalAlloc` takes `unsafe`; every call forwards to
//! `System` unchanged, so this is the one place of the test support that
//! needs it.

#![allow(unsafe_code)]

use std::alloc::{GlobalAlloc, Layout, System};
use std::cell::Cell;
use std::sync::atomic::{AtomicUsize, Ordering};

/// The system allocator, counting.
#[derive(Debug)]
pub struct Counting;

/// Bytes allocated and not yet freed, by every thread.
static HELD: AtomicUsize = AtomicUsize::new(0);
/// The most `HELD` has been since [`restart_peak`].
static PEAK: AtomicUsize = AtomicUsize::new(0);
/// Allocations not yet freed.
static BLOCKS: AtomicUsize = AtomicUsize::new(0);
/// `HELD` as glibc's malloc spends it (see [`chunk`]).
static CHUNKS: AtomicUsize = AtomicUsize::new(0);

/// What one thread has done with the allocator.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct Seen {
    /// Bytes allocated less bytes freed.
    pub held: isize,
    /// Calls to `realloc`.
    pub reallocs: usize,
    /// Allocations (`alloc`, `alloc_zeroed`, `realloc`).
    pub allocations: usize,
    /// The largest size asked for.
    pub largest: usize,
}

thread_local! {
    static SEEN: Cell<Seen> = const {
        Cell::new(Seen { held: 0, reallocs: 0, allocations: 0, largest: 0 })
    };
}

/// Bytes the process's allocations hold now: what its data takes,
/// without the allocator's own overhead and the free memory it keeps
/// (which resident memory includes).
pub fn held() -> usize {
    HELD.load(Ordering::Relaxed)
}

/// Allocations the process holds now.
pub fn blocks() -> usize {
    BLOCKS.load(Ordering::Relaxed)
}

/// [`held`] as glibc's malloc spends it, each allocation rounded up to
/// its chunk.
pub fn chunks() -> usize {
    CHUNKS.load(Ordering::Relaxed)
}

/// The most [`held`] has been since the last [`restart_peak`].
pub fn peak() -> usize {
    PEAK.load(Ordering::Relaxed)
}

/// Starts the peak afresh from what is held now.
pub fn restart_peak() {
    PEAK.store(held(), Ordering::Relaxed);
}

/// What this thread has done so far.
pub fn seen() -> Seen {
    SEEN.with(Cell::get)
}

/// Starts counting this thread's reallocations, allocations and largest
/// size afresh (the bytes held go on).
pub fn restart() {
    SEEN.with(|seen| {
        seen.set(Seen {
            held: seen.get().held,
            ..Seen::default()
        });
    });
}

/// The bytes glibc's malloc takes for an allocation of `size`: its size
/// and an 8-byte header, in 16-byte steps, 32 at least.
fn chunk(size: usize) -> usize {
    ((size + 8 + 15) & !15).max(32)
}

/// Counts an allocation of `grew` bytes, or a free of `shrank`, or both
/// (a `realloc`).
fn note(grew: usize, shrank: usize, realloc: bool) {
    if grew > 0 {
        let held = HELD.fetch_add(grew, Ordering::Relaxed) + grew;
        PEAK.fetch_max(held, Ordering::Relaxed);
        BLOCKS.fetch_add(1, Ordering::Relaxed);
        CHUNKS.fetch_add(chunk(grew), Ordering::Relaxed);
    }
    if shrank > 0 {
        HELD.fetch_sub(shrank, Ordering::Relaxed);
        BLOCKS.fetch_sub(1, Ordering::Relaxed);
        CHUNKS.fetch_sub(chunk(shrank), Ordering::Relaxed);
    }
    // `try_with`: a thread's last frees may come after its locals are
    // gone (these have no destructor, so in practice they never are).
    let _ = SEEN.try_with(|seen| {
        let mut now = seen.get();
        now.held += grew as isize - shrank as isize;
        if grew > 0 {
            now.allocations += 1;
            now.largest = now.largest.max(grew);
        }
        now.reallocs += usize::from(realloc);
        seen.set(now);
    });
}

// SAFETY: every call forwards to `System` with the caller's arguments, so
// `System`'s guarantees hold; the counters only observe.
unsafe impl GlobalAlloc for Counting {
    unsafe fn alloc(&self, layout: Layout) -> *mut u8 {
        // SAFETY: forwarded unchanged; the caller upholds `alloc`'s contract.
        let block = unsafe { System.alloc(layout) };
        if !block.is_null() {
            note(layout.size(), 0, false);
        }
        block
    }

    unsafe fn alloc_zeroed(&self, layout: Layout) -> *mut u8 {
        // SAFETY: as in `alloc`.
        let block = unsafe { System.alloc_zeroed(layout) };
        if !block.is_null() {
            note(layout.size(), 0, false);
        }
        block
    }

    unsafe fn dealloc(&self, block: *mut u8, layout: Layout) {
        // SAFETY: forwarded unchanged; `block` came from this allocator.
        unsafe { System.dealloc(block, layout) };
        note(0, layout.size(), false);
    }

    unsafe fn realloc(&self, block: *mut u8, layout: Layout, new_size: usize) -> *mut u8 {
        // SAFETY: forwarded unchanged; `block` came from this allocator.
        let moved = unsafe { System.realloc(block, layout, new_size) };
        if !moved.is_null() {
            note(new_size, layout.size(), true);
        }
        moved
    }
}
