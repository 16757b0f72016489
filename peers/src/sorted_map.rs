//! A Rust user's first pick: a `BTreeMap` keyed by `(z, seq)`, with each
//! object remembering its current key so it can be found and re-keyed.

use std::collections::BTreeMap;

use crate::slab::Slab;
use crate::{Backend, I16F16, Sprite};

type Key = (I16F16, u64);

#[derive(Debug)]
struct Object {
    sprite: Sprite,
    key: Key,
}

/// `BTreeMap<(I16F16, u64), handle>`; objects live in a slab.
#[derive(Debug)]
pub struct SortedMap {
    order: BTreeMap<Key, u32>,
    objects: Slab<Object>,
    next_seq: u64,
}

impl SortedMap {
    fn next_key(&mut self, z: I16F16) -> Key {
        let seq = self.next_seq;
        self.next_seq += 1;
        (z, seq)
    }
}

impl Backend for SortedMap {
    type Handle = u32;
    const NAME: &'static str = "btreemap";

    fn with_levels(_max_level: u16) -> Self {
        SortedMap {
            order: BTreeMap::new(),
            objects: Slab::new(),
            next_seq: 0,
        }
    }

    fn create(&mut self, sprite: Sprite, z: I16F16) -> u32 {
        let key = self.next_key(z);
        let handle = self.objects.insert(Object { sprite, key });
        self.order.insert(key, handle);
        handle
    }

    fn change(&mut self, &object: &u32, z: I16F16) {
        let key = self.next_key(z);
        let old = std::mem::replace(&mut self.objects.get_mut(object).key, key);
        self.order.remove(&old);
        self.order.insert(key, object);
    }

    fn remove(&mut self, object: u32) {
        self.order.remove(&self.objects.get(object).key);
        self.objects.free(object);
    }

    fn back_to_front(&mut self, mut draw: impl FnMut(&Sprite)) {
        for &handle in self.order.values() {
            draw(&self.objects.get(handle).sprite);
        }
    }

    fn front_to_back(&mut self, mut draw: impl FnMut(&Sprite)) {
        for &handle in self.order.values().rev() {
            draw(&self.objects.get(handle).sprite);
        }
    }

    fn len(&self) -> usize {
        self.order.len()
    }
}
