//! Sort-before-drawing, the approach of most engines: a Z-action only sets
//! the object's Z and arrival number and marks the list dirty; the first
//! traversal after that sorts the list.
//!
//! - [`StableSortWhenDirty`]: cocos2d-x, Phaser, PixiJS. A stable
//!   comparison sort (`slice::sort_by_key`) by Z then arrival. (cocos2d-x
//!   packs the two into one 64-bit key, as here.)
//! - [`RadixSortWhenDirty`]: Bevy. An LSD radix sort (`radsort`) on the
//!   same combined 64-bit key.
//!
//! Both keep each object's position in the list, so `change` and `remove`
//! are O(1) (no search) and the sort pays for everything.

use std::marker::PhantomData;

use crate::slab::Slab;
use crate::{Backend, I16F16, Sprite};

/// One object in the draw list: its Z, its arrival number, and its handle.
#[derive(Debug, Clone, Copy)]
pub struct Entry {
    z: I16F16,
    arrival: u32,
    handle: u32,
}

impl Entry {
    /// `(z, arrival)` as one unsigned key: Z with its sign bit flipped (so
    /// unsigned order is signed order) above the arrival number.
    #[inline]
    fn key(&self) -> u64 {
        (u64::from(self.z.to_bits() as u32 ^ 0x8000_0000) << 32) | u64::from(self.arrival)
    }
}

#[derive(Debug)]
struct Object {
    sprite: Sprite,
    /// Where the object's entry is in the draw list.
    at: u32,
}

/// How the draw list gets sorted.
pub trait SortDrawList {
    const NAME: &'static str;
    fn sort(entries: &mut [Entry]);
}

/// `slice::sort_by_key`: a stable sort (driftsort), fast on mostly sorted
/// input.
#[derive(Debug)]
pub struct Stable;

impl SortDrawList for Stable {
    const NAME: &'static str = "stable-sort";
    fn sort(entries: &mut [Entry]) {
        entries.sort_by_key(Entry::key);
    }
}

/// `radsort::sort_by_key`: an LSD radix sort (stable), skipping the bytes
/// that are equal in every key.
#[derive(Debug)]
pub struct Radix;

impl SortDrawList for Radix {
    const NAME: &'static str = "radix-sort";
    fn sort(entries: &mut [Entry]) {
        radsort::sort_by_key(entries, Entry::key);
    }
}

/// A draw list sorted before the first traversal after any change.
#[derive(Debug)]
pub struct SortWhenDirty<S> {
    entries: Vec<Entry>,
    objects: Slab<Object>,
    next_arrival: u32,
    dirty: bool,
    sort: PhantomData<S>,
}

/// Per-frame stable sort when dirty (cocos2d-x, Phaser, PixiJS).
pub type StableSortWhenDirty = SortWhenDirty<Stable>;
/// Per-frame radix sort when dirty (Bevy).
pub type RadixSortWhenDirty = SortWhenDirty<Radix>;

impl<S: SortDrawList> SortWhenDirty<S> {
    fn next_arrival(&mut self) -> u32 {
        if self.next_arrival == u32::MAX {
            // Renumber arrivals in order; happens once every 4 billion
            // Z-actions at most.
            self.sort_if_dirty();
            for (arrival, entry) in self.entries.iter_mut().enumerate() {
                entry.arrival = arrival as u32;
            }
            self.next_arrival = self.entries.len() as u32;
        }
        let arrival = self.next_arrival;
        self.next_arrival += 1;
        arrival
    }

    fn sort_if_dirty(&mut self) {
        if !self.dirty {
            return;
        }
        S::sort(&mut self.entries);
        for (at, entry) in self.entries.iter().enumerate() {
            self.objects.get_mut(entry.handle).at = at as u32;
        }
        self.dirty = false;
    }
}

impl<S: SortDrawList> Backend for SortWhenDirty<S> {
    type Handle = u32;
    const NAME: &'static str = S::NAME;

    fn with_levels(_max_level: u16) -> Self {
        SortWhenDirty {
            entries: Vec::new(),
            objects: Slab::new(),
            next_arrival: 0,
            dirty: false,
            sort: PhantomData,
        }
    }

    fn create(&mut self, sprite: Sprite, z: I16F16) -> u32 {
        let arrival = self.next_arrival();
        let at = self.entries.len() as u32;
        let handle = self.objects.insert(Object { sprite, at });
        self.entries.push(Entry { z, arrival, handle });
        self.dirty = true;
        handle
    }

    fn change(&mut self, &object: &u32, z: I16F16) {
        let arrival = self.next_arrival();
        let entry = &mut self.entries[self.objects.get(object).at as usize];
        entry.z = z;
        entry.arrival = arrival;
        self.dirty = true;
    }

    fn remove(&mut self, object: u32) {
        let at = self.objects.get(object).at as usize;
        self.entries.swap_remove(at);
        if let Some(moved) = self.entries.get(at) {
            self.objects.get_mut(moved.handle).at = at as u32;
        }
        self.objects.free(object);
        self.dirty = true;
    }

    fn back_to_front(&mut self, mut draw: impl FnMut(&Sprite)) {
        self.sort_if_dirty();
        for entry in &self.entries {
            draw(&self.objects.get(entry.handle).sprite);
        }
    }

    fn front_to_back(&mut self, mut draw: impl FnMut(&Sprite)) {
        self.sort_if_dirty();
        for entry in self.entries.iter().rev() {
            draw(&self.objects.get(entry.handle).sprite);
        }
    }

    fn len(&self) -> usize {
        self.entries.len()
    }
}
