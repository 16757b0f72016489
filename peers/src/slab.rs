//! Object storage for the peers that keep objects apart from their order:
//! a vector of slots addressed by `u32` handles, with freed slots reused.

/// A slab of `T` with `u32` handles.
#[derive(Debug)]
pub struct Slab<T> {
    slots: Vec<T>,
    free: Vec<u32>,
}

impl<T> Default for Slab<T> {
    fn default() -> Self {
        Slab::new()
    }
}

impl<T> Slab<T> {
    /// An empty slab.
    pub const fn new() -> Self {
        Slab {
            slots: Vec::new(),
            free: Vec::new(),
        }
    }

    /// Stores `value`, reusing a freed slot if there is one.
    #[inline]
    pub fn insert(&mut self, value: T) -> u32 {
        match self.free.pop() {
            Some(handle) => {
                self.slots[handle as usize] = value;
                handle
            }
            None => {
                self.slots.push(value);
                (self.slots.len() - 1) as u32
            }
        }
    }

    /// Frees the slot; its value stays until the slot is reused.
    #[inline]
    pub fn free(&mut self, handle: u32) {
        self.free.push(handle);
    }

    /// The value at `handle`.
    #[inline]
    pub fn get(&self, handle: u32) -> &T {
        &self.slots[handle as usize]
    }

    /// The value at `handle`, to change.
    #[inline]
    pub fn get_mut(&mut self, handle: u32) -> &mut T {
        &mut self.slots[handle as usize]
    }
}
