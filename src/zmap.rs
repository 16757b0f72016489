//! A small hash map from Z values to 32-bit numbers, for the pruning ledger: it
//! answers "is a bucket with this Z waiting to be pruned?" in O(1) on every
//! insertion at a new Z, which at distinct Z values (a y-sorted scene, a
//! particle burst) is every insertion.
//!
//! Open addressing with linear probing and backward-shift deletion (no
//! tombstones), at most half full, over a power-of-two table. Keys are Z
//! bits of values the sorted tree holds, which are never the default Z, so
//! the default Z's bits mark a free slot. The crate's dependencies are
//! `fixed` and nothing else, so no hash map crate is at hand, and this one
//! needs only the three operations below.

use alloc::vec;
use alloc::vec::Vec;

/// Marks a free slot: the bits of the default Z, never a key.
const FREE: i32 = i32::MAX;

#[derive(Debug, Clone, Default)]
pub(crate) struct ZMap {
    slots: Vec<(i32, u32)>,
    len: usize,
}

impl ZMap {
    /// The slot for `key`'s probe to start at (Fibonacci hashing).
    #[inline]
    fn home(&self, key: i32) -> usize {
        let bits = self.slots.len().trailing_zeros();
        let hash = (key as u32).wrapping_mul(0x9E37_79B9);
        (hash.checked_shr(32 - bits).unwrap_or(0)) as usize
    }

    #[inline]
    fn mask(&self) -> usize {
        self.slots.len() - 1
    }

    /// The slot holding `key`, if any.
    fn find(&self, key: i32) -> Option<usize> {
        if self.len == 0 {
            return None;
        }
        let mut slot = self.home(key);
        loop {
            match self.slots[slot].0 {
                FREE => return None,
                k if k == key => return Some(slot),
                _ => slot = (slot + 1) & self.mask(),
            }
        }
    }

    pub(crate) fn get(&self, key: i32) -> Option<u32> {
        self.find(key).map(|slot| self.slots[slot].1)
    }

    /// Sets `key` to `value`.
    pub(crate) fn insert(&mut self, key: i32, value: u32) {
        debug_assert_ne!(key, FREE);
        if let Some(slot) = self.find(key) {
            self.slots[slot].1 = value;
            return;
        }
        if (self.len + 1) * 2 > self.slots.len() {
            self.grow();
        }
        let mut slot = self.home(key);
        while self.slots[slot].0 != FREE {
            slot = (slot + 1) & self.mask();
        }
        self.slots[slot] = (key, value);
        self.len += 1;
    }

    /// Removes `key`, shifting back the entries its slot displaced.
    pub(crate) fn remove(&mut self, key: i32) {
        if let Some(slot) = self.find(key) {
            self.remove_at(slot);
        }
    }

    fn remove_at(&mut self, mut hole: usize) {
        self.len -= 1;
        let mut slot = hole;
        loop {
            slot = (slot + 1) & self.mask();
            let (k, _) = self.slots[slot];
            if k == FREE {
                break;
            }
            // An entry may fill the hole if the hole lies on its probe path
            // (cyclically between its home and its slot).
            let home = self.home(k);
            if (slot.wrapping_sub(home) & self.mask()) >= (slot.wrapping_sub(hole) & self.mask()) {
                self.slots[hole] = self.slots[slot];
                hole = slot;
            }
        }
        self.slots[hole] = (FREE, 0);
    }

    pub(crate) fn len(&self) -> usize {
        self.len
    }

    pub(crate) fn clear(&mut self) {
        self.slots.fill((FREE, 0));
        self.len = 0;
    }

    fn grow(&mut self) {
        let capacity = (self.slots.len() * 2).max(16);
        let old = core::mem::replace(&mut self.slots, vec![(FREE, 0); capacity]);
        self.len = 0;
        for (key, value) in old {
            if key != FREE {
                self.insert(key, value);
            }
        }
    }

    pub(crate) fn shrink_to_fit(&mut self) {
        if self.len == 0 {
            self.slots = Vec::new();
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use alloc::collections::BTreeMap;

    #[test]
    fn agrees_with_a_btreemap_under_churn() {
        let mut map = ZMap::default();
        let mut model = BTreeMap::new();
        let mut state = 0x2545_F491_4F6C_DD1Du64;
        let steps = if cfg!(miri) { 600 } else { 200_000 };
        for step in 0..steps as u32 {
            state ^= state << 13;
            state ^= state >> 7;
            state ^= state << 17;
            // Few distinct keys, so keys collide, come back and leave often.
            let key = (state % 300) as i32 - 150 + i32::from((state >> 40) % 2 == 0) * (1 << 16);
            if state >> 63 == 0 {
                map.insert(key, step);
                model.insert(key, step);
            } else {
                map.remove(key);
                model.remove(&key);
            }
            assert_eq!(map.get(key), model.get(&key).copied());
            assert_eq!(map.len, model.len());
        }
        for (&key, &value) in &model {
            assert_eq!(map.get(key), Some(value));
        }
        map.clear();
        assert_eq!(map.get(*model.keys().next().unwrap()), None);
    }
}
