//! The contract, by definition: the model every collection is checked
//! against (the one `docs/CONTRACT.md` describes).
//!
//! Each collection maps its entries to `(z, seq)`, a global `seq` grows at
//! every Z-action that succeeds, and back to front is ascending `(z, seq)`.
//! The model also follows pruning exactly as the contract words it (the
//! traversal clock, `prune_after`, refills, the cap on waiting buckets), so
//! `nonoptimized_buckets` is checked for equality, not a bound.

use std::collections::BTreeMap;

use zorder::{DEFAULT_Z, I16F16, ZError};

/// Buckets allowed to wait whatever the number of live ones (the contract's
/// cap is `max(MIN_CAP, live)`).
pub const MIN_CAP: usize = 1024;

/// A collection's layout and settings.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Layout {
    /// Every Z; buckets of other values pruned after `prune_after`.
    Fixed {
        /// The highest optimized level.
        max_level: u16,
        /// The pruning threshold.
        prune_after: u32,
    },
    /// The levels `0..=max_level` only.
    Simple {
        /// The highest level.
        max_level: u16,
    },
}

impl Layout {
    /// The highest optimized level.
    pub fn max_level(self) -> u16 {
        match self {
            Layout::Fixed { max_level, .. } | Layout::Simple { max_level } => max_level,
        }
    }

    /// Whether `z` is a level of this layout.
    pub fn is_level(self, z: I16F16) -> bool {
        z.frac() == 0 && z >= 0 && z <= i32::from(self.max_level())
    }

    /// Whether this layout takes `z`, or the error it answers.
    pub fn accepts(self, z: I16F16) -> Result<(), ZError> {
        match self {
            Layout::Simple { max_level } if !self.is_level(z) => {
                Err(ZError::ZOutOfRange { z, max_level })
            }
            _ => Ok(()),
        }
    }

    /// Whether an entry at `z` sits in a bucket that pruning concerns.
    pub fn is_nonoptimized(self, z: I16F16) -> bool {
        matches!(self, Layout::Fixed { .. }) && z != DEFAULT_Z && !self.is_level(z)
    }
}

/// One collection of the model.
#[derive(Debug, Clone)]
pub struct ModelCollection {
    /// The layout.
    pub layout: Layout,
    /// By entry: its Z and sequence, if held (entries are dense small
    /// numbers, so a vector, which keeps the model cheap to fuzz).
    /// The order is not kept: a walk sorts the entries, so an operation
    /// costs the model no more than a lookup.
    members: Vec<Option<(I16F16, u64)>>,
    len: usize,
    /// Entries per non-optimized Z: the live buckets.
    live: BTreeMap<I16F16, usize>,
    /// The buckets that emptied and still wait (not refilled, not pruned,
    /// not dropped by the cap), oldest first: by when each emptied, its Z
    /// and the clock then. Every operation on it is logarithmic, so a long
    /// input of distinct Z values stays cheap to check.
    waiting: BTreeMap<u64, (I16F16, u64)>,
    /// The same buckets by Z.
    waiting_z: BTreeMap<I16F16, u64>,
    /// How many buckets have emptied.
    emptied: u64,
    clock: u64,
}

impl ModelCollection {
    /// An empty collection.
    pub fn new(layout: Layout) -> Self {
        ModelCollection {
            layout,
            members: Vec::new(),
            len: 0,
            live: BTreeMap::new(),
            waiting: BTreeMap::new(),
            waiting_z: BTreeMap::new(),
            emptied: 0,
            clock: 0,
        }
    }

    /// The entries back to front.
    pub fn back_to_front(&self) -> Vec<usize> {
        let mut held: Vec<((I16F16, u64), usize)> = (self.members.iter().enumerate())
            .filter_map(|(id, held)| held.map(|at| (at, id)))
            .collect();
        held.sort_unstable();
        held.into_iter().map(|(_, id)| id).collect()
    }

    /// The number of entries.
    pub fn len(&self) -> usize {
        self.len
    }

    /// Whether there is no entry.
    pub fn is_empty(&self) -> bool {
        self.len == 0
    }

    /// Whether entry `id` is held.
    pub fn contains(&self, id: usize) -> bool {
        self.z_of(id).is_some()
    }

    /// The Z entry `id` is filed at.
    pub fn z_of(&self, id: usize) -> Option<I16F16> {
        self.members.get(id).copied().flatten().map(|(z, _)| z)
    }

    /// The held entries.
    pub fn ids(&self) -> impl Iterator<Item = usize> + '_ {
        (self.members.iter().enumerate()).filter_map(|(id, held)| held.map(|_| id))
    }

    /// A counting traversal starts: buckets that have waited more than
    /// `prune_after` traversals are pruned. They emptied first, so they
    /// are the oldest.
    pub fn tick(&mut self) {
        self.clock += 1;
        let prune_after = match self.layout {
            Layout::Fixed { prune_after, .. } => u64::from(prune_after),
            Layout::Simple { .. } => 0,
        };
        while let Some(entry) = self.waiting.first_entry() {
            let (z, since) = *entry.get();
            if self.clock - since <= prune_after {
                break;
            }
            entry.remove();
            self.waiting_z.remove(&z);
        }
    }

    /// What `nonoptimized_buckets` must say.
    pub fn nonoptimized_buckets(&self) -> usize {
        self.live.len() + self.waiting.len()
    }

    /// The distinct non-optimized Z values of the entries.
    pub fn live_buckets(&self) -> usize {
        self.live.len()
    }

    /// Bucket `z` is live again: if it waited, it waits no more.
    fn opened(&mut self, z: I16F16) {
        if let Some(when) = self.waiting_z.remove(&z) {
            self.waiting.remove(&when);
        }
    }

    /// Bucket `z` emptied: it waits, and if more than the cap wait, the
    /// oldest are dropped.
    fn closed(&mut self, z: I16F16) {
        self.opened(z);
        self.emptied += 1;
        self.waiting.insert(self.emptied, (z, self.clock));
        self.waiting_z.insert(z, self.emptied);
        let cap = MIN_CAP.max(self.live.len());
        while self.waiting.len() > cap {
            let (_, (oldest, _)) = self.waiting.pop_first().expect("a waiting bucket");
            self.waiting_z.remove(&oldest);
        }
    }

    /// Files `id` at `z` with sequence `seq`; `id` may be held already (a
    /// re-file). Pruning sees the new Z open before the old one closes.
    fn file(&mut self, id: usize, z: I16F16, seq: u64) {
        if self.layout.is_nonoptimized(z) {
            let count = self.live.entry(z).or_default();
            *count += 1;
            if *count == 1 {
                self.opened(z);
            }
        }
        self.place(id, z, seq);
    }

    /// Files `id` at `z` as [`file`](Self::file) does, with no pruning
    /// event: a batch has its own.
    fn file_quietly(&mut self, id: usize, z: I16F16, seq: u64) {
        if self.layout.is_nonoptimized(z) {
            *self.live.entry(z).or_default() += 1;
        }
        if self.members.len() <= id {
            self.members.resize(id + 1, None);
        }
        if let Some((old, _)) = self.members[id].replace((z, seq)) {
            self.unfiled_quietly(old);
        } else {
            self.len += 1;
        }
    }

    fn unfiled_quietly(&mut self, z: I16F16) {
        if self.layout.is_nonoptimized(z) {
            let count = self.live.get_mut(&z).expect("a live Z");
            *count -= 1;
            if *count == 0 {
                self.live.remove(&z);
            }
        }
    }

    /// `id`'s place after a filing whose bucket is counted.
    fn place(&mut self, id: usize, z: I16F16, seq: u64) {
        if self.members.len() <= id {
            self.members.resize(id + 1, None);
        }
        if let Some((old, _)) = self.members[id].replace((z, seq)) {
            self.unfiled(old);
        } else {
            self.len += 1;
        }
    }

    fn unfiled(&mut self, z: I16F16) {
        if self.layout.is_nonoptimized(z) {
            let count = self.live.get_mut(&z).expect("a live Z");
            *count -= 1;
            if *count == 0 {
                self.live.remove(&z);
                self.closed(z);
            }
        }
    }

    /// A batch's pruning: every bucket of `touched` (the Z values it took
    /// entries from or filed entries at) that was live before it and is not
    /// now waits, every one that is live now and was not stops waiting, as
    /// one operation: opened first, then the closed ones in ascending Z,
    /// then the cap.
    fn settle_batch(&mut self, touched: &BTreeMap<I16F16, bool>) {
        let mut closed = Vec::new();
        for (&z, &was_live) in touched {
            match (was_live, self.live.contains_key(&z)) {
                (false, true) => self.opened(z),
                (true, false) => closed.push(z),
                _ => {}
            }
        }
        for z in closed {
            self.opened(z);
            self.emptied += 1;
            self.waiting.insert(self.emptied, (z, self.clock));
            self.waiting_z.insert(z, self.emptied);
        }
        let cap = MIN_CAP.max(self.live.len());
        while self.waiting.len() > cap {
            let (_, (oldest, _)) = self.waiting.pop_first().expect("a waiting bucket");
            self.waiting_z.remove(&oldest);
        }
    }

    fn remove(&mut self, id: usize) -> Option<I16F16> {
        let (z, _) = self.members.get_mut(id)?.take()?;
        self.len -= 1;
        self.unfiled(z);
        Some(z)
    }

    fn clear(&mut self) -> Vec<usize> {
        let ids = self.back_to_front();
        self.members.clear();
        self.len = 0;
        self.live.clear();
        self.waiting.clear();
        self.waiting_z.clear();
        ids
    }
}

/// Several collections, and which entries are where.
///
/// Entries are numbered. In a shared model (the `Rc` collections) an entry
/// is in at most one collection of the model; in a keyed one each
/// collection is its own index, and a key may be in several.
#[derive(Debug, Clone)]
pub struct Model {
    /// The collections.
    pub collections: Vec<ModelCollection>,
    shared: bool,
    seq: u64,
}

impl Model {
    /// Empty collections of these layouts; `shared` as above.
    pub fn new(layouts: &[Layout], shared: bool) -> Self {
        Model {
            collections: layouts.iter().map(|&l| ModelCollection::new(l)).collect(),
            shared,
            seq: 0,
        }
    }

    /// The collection holding `id`, in a shared model.
    pub fn home(&self, id: usize) -> Option<usize> {
        self.collections.iter().position(|c| c.contains(id))
    }

    fn held_elsewhere(&self, c: usize, id: usize) -> bool {
        if self.shared {
            self.home(id).is_some()
        } else {
            self.collections[c].contains(id)
        }
    }

    /// Adds (or inserts) `id` at `z`.
    pub fn add(&mut self, c: usize, id: usize, z: I16F16) -> Result<(), ZError> {
        if self.held_elsewhere(c, id) {
            return Err(ZError::AlreadyInCollection);
        }
        self.collections[c].layout.accepts(z)?;
        self.seq += 1;
        self.collections[c].file(id, z, self.seq);
        Ok(())
    }

    /// Re-files `id` at `z` (a change, `set_z` or `refile`).
    pub fn change(&mut self, c: usize, id: usize, z: I16F16) -> Result<(), ZError> {
        if !self.collections[c].contains(id) {
            return Err(ZError::NotInCollection);
        }
        self.collections[c].layout.accepts(z)?;
        self.seq += 1;
        self.collections[c].file(id, z, self.seq);
        Ok(())
    }

    /// Removes `id`, returning the Z it had.
    pub fn remove(&mut self, c: usize, id: usize) -> Result<I16F16, ZError> {
        self.collections[c]
            .remove(id)
            .ok_or(ZError::NotInCollection)
    }

    /// Removes every entry of `c`, returning them back to front.
    pub fn clear(&mut self, c: usize) -> Vec<usize> {
        self.collections[c].clear()
    }

    /// Applies a batch to collection `c`: each `(id, Some(z))` files `id`
    /// at `z` (an insert, or a re-file of a held entry), each `(id, None)`
    /// removes `id` if held, in order; a step whose Z the layout refuses
    /// is skipped. Pruning sees the batch as one operation. Returns how
    /// many steps were (inserted, moved, removed, refused).
    pub fn apply(&mut self, c: usize, steps: &[(usize, Option<I16F16>)]) -> [usize; 4] {
        let collection = &mut self.collections[c];
        let mut touched = BTreeMap::new();
        let mut note = |collection: &ModelCollection, z: I16F16| {
            if collection.layout.is_nonoptimized(z) {
                touched
                    .entry(z)
                    .or_insert_with(|| collection.live.contains_key(&z));
            }
        };
        let mut counts = [0; 4];
        for &(id, z) in steps {
            let held = collection.z_of(id);
            match z {
                Some(z) if collection.layout.accepts(z).is_err() => counts[3] += 1,
                Some(z) => {
                    note(collection, z);
                    if let Some(old) = held {
                        note(collection, old);
                    }
                    counts[usize::from(held.is_some())] += 1;
                    self.seq += 1;
                    collection.file_quietly(id, z, self.seq);
                }
                None => {
                    if let Some(old) = held {
                        note(collection, old);
                        collection.members[id] = None;
                        collection.len -= 1;
                        collection.unfiled_quietly(old);
                        counts[2] += 1;
                    }
                }
            }
        }
        collection.settle_batch(&touched);
        counts
    }

    /// Moves every entry of `from` to `to` at its Z, back to front, or
    /// nothing if `to` refuses one of the Z values.
    pub fn append(&mut self, to: usize, from: usize) -> Result<(), ZError> {
        let moving: Vec<(usize, I16F16)> = self.collections[from]
            .back_to_front()
            .into_iter()
            .map(|id| (id, self.collections[from].z_of(id).expect("held")))
            .collect();
        for &(_, z) in &moving {
            self.collections[to].layout.accepts(z)?;
        }
        self.collections[from].clear();
        for (id, z) in moving {
            self.seq += 1;
            self.collections[to].file(id, z, self.seq);
        }
        Ok(())
    }
}
