//! What a strong engineer writes by hand instead of a Z-order crate: one
//! `Vec` of compact entries sorted by `(z, seq)`, and a batch merge before
//! each traversal.
//!
//! A Z-action (a creation or a change) costs no reordering: it takes the
//! next sequence number, records the object's new key, and pushes a
//! `(key, handle)` entry onto a pending batch. Its old entry, if it was in
//! the sorted list, is made a tombstone; a removal does the same. The first
//! traversal after that (traversals take `&mut self`, so the merge happens
//! there) sorts the batch among itself and merges it into the list in one
//! pass, dropping the tombstones on the way. A frame that changes `k` of
//! `n` objects pays `O(k log n)` for the searches and `O(k log k + n)`
//! for one sort and one merge, instead of a full sort of `n` (the
//! per-frame sorts) or `k` updates of a tree.
//!
//! The choices, and why:
//!
//! - **An entry is 16 bytes**: a `u64` key, Z with its sign bit flipped
//!   (so unsigned order is signed order) above a 32-bit sequence number, and
//!   the `u32` handle of the object in the slab. Comparing entries is one
//!   integer compare, and the passes stream them.
//! - **Sequence numbers are unique**, so keys are unique: the batch needs no
//!   stable sort, and an object's entry is found by a binary search for its
//!   key. The batch is sorted with `sort_unstable_by_key`: against
//!   `radsort` on batches of these keys it is faster on small batches and
//!   on large ones, and slower in between by under 1% of such a frame
//!   (BENCHMARKS.md, "Stop 47"); not worth a second code path.
//! - **Stale entries are found cheaply.** An object remembers its current
//!   key and whether its entry is still in the batch. A change or removal
//!   of an object whose entry is in the sorted list finds that entry by
//!   binary search on its key and marks it a tombstone (the key stays, so
//!   the list stays sorted for later searches); the merge drops tombstones
//!   without looking at the objects. An object changed again before the
//!   merge leaves a stale entry in the batch, which the merge recognizes
//!   because its key is no longer the object's. A batch that unfiles more
//!   than 1/[`SEARCH_LIMIT`] of the list (all-move frames, big bursts)
//!   stops searching: the merge then checks every entry's key against its
//!   object's, a read per entry in a pass that streams anyway; the next
//!   batch starts that way if this one ended that way (frames are alike).
//!   On churned worlds the two ways cost the same up to 2·10^5 objects,
//!   and searching is faster at 10^6, where the checks miss the cache
//!   (BENCHMARKS.md, "Stop 47").
//! - **The merge writes into a second buffer, reused**: the list and the
//!   buffer swap after each merge, so a steady game allocates nothing.
//!   Removals alone compact the list in place.
//! - **The sequence counter wraps**: sequence `u32::MAX` is never issued
//!   (a removed object's key is `u64::MAX`, which no entry has); reaching
//!   it, the list is merged and renumbered in order, once every 4 billion
//!   Z-actions at most, as the per-frame sorts do.

use crate::slab::Slab;
use crate::{Backend, I16F16, Sprite};

/// A batch unfiling more than `1/SEARCH_LIMIT` of the sorted list stops
/// finding old entries by binary search, and the merge checks every entry
/// against its object instead (see the module docs for the measurements).
const SEARCH_LIMIT: usize = 64;

/// The key of a removed object: no entry has it, since sequence `u32::MAX`
/// is never issued.
const DEAD: u64 = u64::MAX;

/// The handle of a tombstone: an entry of the sorted list whose object has
/// moved or gone. Handles are slab indices, never this large.
const TOMBSTONE: u32 = u32::MAX;

/// `(z, seq)` as one unsigned key.
#[inline]
fn key(z: I16F16, seq: u32) -> u64 {
    (u64::from(z.to_bits() as u32 ^ 0x8000_0000) << 32) | u64::from(seq)
}

/// One object in the draw list.
#[derive(Debug, Clone, Copy)]
struct Entry {
    key: u64,
    handle: u32,
}

#[derive(Debug)]
struct Object {
    sprite: Sprite,
    /// The key of the object's last Z-action (`DEAD` once removed).
    key: u64,
    /// Whether that key's entry is in the pending batch rather than in the
    /// sorted list.
    pending: bool,
}

/// A `Vec` sorted by `(z, seq)`, with Z-actions batched and merged in
/// before each traversal; objects live in a slab.
#[derive(Debug)]
pub struct VecMerge {
    /// Sorted by key; may hold tombstones until the next merge.
    entries: Vec<Entry>,
    /// The Z-actions since the last merge, in no order; may hold stale
    /// entries (an object changed again, or removed).
    batch: Vec<Entry>,
    /// The merge's output buffer, kept between merges.
    spare: Vec<Entry>,
    objects: Slab<Object>,
    len: usize,
    next_seq: u32,
    /// Entries of the sorted list unfiled since the last merge.
    unfiled: usize,
    /// Whether the next merge checks every entry's key against its object
    /// (set once `unfiled` passes the search limit; unfiling then marks
    /// nothing).
    check_all: bool,
}

impl VecMerge {
    /// The next key at `z`, renumbering everything first if the sequence
    /// numbers have run out.
    fn next_key(&mut self, z: I16F16) -> u64 {
        if self.next_seq == u32::MAX {
            self.renumber();
        }
        let seq = self.next_seq;
        self.next_seq += 1;
        key(z, seq)
    }

    /// Merges, then gives the entries the sequence numbers `0..len` in
    /// order; a renumbered list keeps its order.
    #[cold]
    fn renumber(&mut self) {
        self.merge();
        for (seq, entry) in self.entries.iter_mut().enumerate() {
            entry.key = (entry.key & !0xFFFF_FFFF) | seq as u64;
            self.objects.get_mut(entry.handle).key = entry.key;
        }
        self.next_seq = self.entries.len() as u32;
    }

    /// Takes the object's current entry out of the order: nothing if it
    /// is in the batch (the merge sees that entry's key is stale) or if
    /// this batch checks every entry anyway, else a tombstone, found by
    /// binary search on its key.
    fn unfile(&mut self, handle: u32) {
        let object = self.objects.get(handle);
        if object.pending {
            return;
        }
        self.unfiled += 1;
        if self.unfiled > self.entries.len() / SEARCH_LIMIT {
            self.check_all = true;
        }
        if self.check_all {
            return;
        }
        let at = self
            .entries
            .binary_search_by_key(&object.key, |entry| entry.key)
            .expect("a filed object's key is in the list");
        self.entries[at].handle = TOMBSTONE;
    }

    /// Files the object's new key.
    fn file(&mut self, handle: u32, key: u64) {
        let object = self.objects.get_mut(handle);
        object.key = key;
        object.pending = true;
        self.batch.push(Entry { key, handle });
    }

    /// Sorts the batch (unique keys, so an unstable sort is exact; the
    /// module docs say why not `radsort`).
    #[inline]
    fn sort_batch(batch: &mut [Entry]) {
        batch.sort_unstable_by_key(|entry| entry.key);
    }

    /// Brings the sorted list up to date: drops stale entries, and merges
    /// the batch in.
    fn merge(&mut self) {
        if self.batch.is_empty() && self.unfiled == 0 {
            return;
        }
        let objects = &mut self.objects;
        self.batch.retain(|entry| {
            let object = objects.get_mut(entry.handle);
            let current = object.key == entry.key;
            object.pending &= !current;
            current
        });
        Self::sort_batch(&mut self.batch);
        let (entries, batch, spare) = (&mut self.entries, &self.batch, &mut self.spare);
        if self.check_all {
            let objects = &self.objects;
            merge_dropping(entries, batch, spare, |entry| {
                entry.handle == TOMBSTONE || objects.get(entry.handle).key != entry.key
            });
        } else {
            merge_dropping(entries, batch, spare, |entry| entry.handle == TOMBSTONE);
        }
        self.batch.clear();
        // A game's frames are alike: the next batch starts checking every
        // entry if this one was big enough to.
        self.check_all = self.unfiled > self.entries.len() / SEARCH_LIMIT;
        self.unfiled = 0;
    }
}

/// One pass over the sorted list `entries`, leaving out the entries
/// `stale` picks and merging the sorted `batch` in, through `spare` (which
/// ends up holding the old list's buffer, for the next merge).
#[inline]
fn merge_dropping(
    entries: &mut Vec<Entry>,
    batch: &[Entry],
    spare: &mut Vec<Entry>,
    stale: impl Fn(&Entry) -> bool,
) {
    if batch.is_empty() {
        entries.retain(|entry| !stale(entry));
        return;
    }
    spare.clear();
    spare.reserve(entries.len() + batch.len());
    let mut batch = batch.iter().copied().peekable();
    for &entry in entries.iter() {
        if stale(&entry) {
            continue;
        }
        while let Some(new) = batch.next_if(|new| new.key < entry.key) {
            spare.push(new);
        }
        spare.push(entry);
    }
    spare.extend(batch);
    std::mem::swap(entries, spare);
}

impl Backend for VecMerge {
    type Handle = u32;
    const NAME: &'static str = "vec-merge";

    fn with_levels(_max_level: u16) -> Self {
        VecMerge {
            entries: Vec::new(),
            batch: Vec::new(),
            spare: Vec::new(),
            objects: Slab::new(),
            len: 0,
            next_seq: 0,
            unfiled: 0,
            check_all: false,
        }
    }

    fn create(&mut self, sprite: Sprite, z: I16F16) -> u32 {
        let key = self.next_key(z);
        let handle = self.objects.insert(Object {
            sprite,
            key,
            pending: true,
        });
        self.batch.push(Entry { key, handle });
        self.len += 1;
        handle
    }

    fn change(&mut self, &object: &u32, z: I16F16) {
        let key = self.next_key(z);
        self.unfile(object);
        self.file(object, key);
    }

    fn remove(&mut self, object: u32) {
        self.unfile(object);
        let gone = self.objects.get_mut(object);
        gone.key = DEAD;
        gone.pending = false;
        self.objects.free(object);
        self.len -= 1;
    }

    fn back_to_front(&mut self, mut draw: impl FnMut(&Sprite)) {
        self.merge();
        for entry in &self.entries {
            draw(&self.objects.get(entry.handle).sprite);
        }
    }

    fn front_to_back(&mut self, mut draw: impl FnMut(&Sprite)) {
        self.merge();
        for entry in self.entries.iter().rev() {
            draw(&self.objects.get(entry.handle).sprite);
        }
    }

    fn len(&self) -> usize {
        self.len
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::back_to_front_ids as ids;

    #[test]
    fn the_order_survives_the_sequence_numbers_running_out() {
        let mut scene = VecMerge::with_levels(0);
        let z = |n: i32| I16F16::from_num(n);
        let a = scene.create(Sprite::new(0), z(1));
        let b = scene.create(Sprite::new(1), z(1));
        let c = scene.create(Sprite::new(2), z(0));
        assert_eq!(ids(&mut scene), [2, 0, 1]);
        scene.next_seq = u32::MAX - 2;
        scene.change(&a, z(1)); // seq MAX - 2
        scene.change(&c, z(1)); // seq MAX - 1
        assert_eq!(ids(&mut scene), [1, 0, 2]);
        scene.change(&b, z(1)); // renumbers first
        assert_eq!(scene.next_seq, 4);
        assert_eq!(ids(&mut scene), [0, 2, 1]);
        // Pending changes when the numbers run out are merged first.
        scene.next_seq = u32::MAX - 1;
        scene.change(&a, z(1));
        scene.change(&c, z(0));
        scene.remove(b);
        let d = scene.create(Sprite::new(3), z(0));
        assert_eq!(scene.next_seq, 5);
        assert_eq!(ids(&mut scene), [2, 3, 0]);
        scene.remove(d);
        assert_eq!(ids(&mut scene), [2, 0]);
    }

    #[test]
    fn a_removal_alone_is_merged() {
        let mut scene = VecMerge::with_levels(0);
        let objects: Vec<u32> = (0..3)
            .map(|id| scene.create(Sprite::new(id), I16F16::ZERO))
            .collect();
        assert_eq!(ids(&mut scene), [0, 1, 2]);
        scene.remove(objects[1]);
        assert_eq!(ids(&mut scene), [0, 2]);
    }

    #[test]
    fn a_small_batch_tombstones_by_search() {
        let mut scene = VecMerge::with_levels(0);
        let z = |id: u32| I16F16::from_num(id % 4);
        let objects: Vec<u32> = (0..640)
            .map(|id| scene.create(Sprite::new(id), z(id)))
            .collect();
        ids(&mut scene);
        scene.change(&objects[5], z(5)); // the same Z: to the front of it
        scene.change(&objects[6], z(3));
        scene.change(&objects[6], z(0)); // changed twice
        scene.remove(objects[7]);
        scene.change(&objects[8], z(1));
        scene.remove(objects[8]); // changed, then removed
        assert!(!scene.check_all);
        assert_eq!(scene.unfiled, 4);
        let level = |l: u32| (0..640).filter(move |id| id % 4 == l && ![5, 6, 7, 8].contains(id));
        let expected: Vec<u32> = level(0)
            .chain([6])
            .chain(level(1))
            .chain([5])
            .chain(level(2))
            .chain(level(3))
            .collect();
        assert_eq!(ids(&mut scene), expected);
    }

    #[test]
    fn a_big_batch_checks_every_entry() {
        let mut scene = VecMerge::with_levels(0);
        let objects: Vec<u32> = (0..200)
            .map(|id| scene.create(Sprite::new(id), I16F16::from_num(id % 7)))
            .collect();
        ids(&mut scene);
        for &object in objects.iter().rev() {
            scene.change(&object, I16F16::ZERO);
        }
        assert!(scene.check_all);
        scene.remove(objects[0]);
        assert_eq!(ids(&mut scene), (1..200).rev().collect::<Vec<u32>>());
    }
}
