//! The contract, by definition: the model every collection is checked
//! against (the one `docs/CONTRACT.md` describes), by the harnesses, the
//! soak, and the replay tool's fuzzing alike.
//!
//! Each collection maps its entries to `(z, seq)`, a global `seq` grows at
//! every Z-action that succeeds, and back to front is ascending `(z, seq)`.
//! The model also follows pruning exactly as the contract words it (the
//! traversal clock, `prune_after`, refills, the cap on waiting buckets), so
//! `nonoptimized_buckets` is checked for equality, not a bound.
//!
//! Every operation of the model is logarithmic and every walk linear in
//! the entries it yields, so checking a collection against it costs no
//! more than the collection's own work, however long the input.

use std::collections::{BTreeMap, BTreeSet};
use std::ops::{Bound, RangeBounds};

use zorder::{DEFAULT_Z, I16F16, ZError, ZOrder};

/// Buckets allowed to wait whatever the number of live ones: the
/// contract's cap is `max(MIN_CAP, live)`.
pub const MIN_CAP: usize = 1024;

/// The highest `max_level` a collection takes: the largest integer an
/// `I16F16` holds.
pub const MAX_LEVEL: u16 = ZOrder::<u32>::MAX_LEVEL;

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
    /// numbers, so a vector).
    members: Vec<Option<(I16F16, u64)>>,
    /// The held entries back to front: `(z, seq, entry)`.
    order: BTreeSet<(I16F16, u64, usize)>,
    /// Entries per non-optimized Z: the live buckets.
    live: BTreeMap<I16F16, usize>,
    /// The buckets that emptied and still wait (not refilled, not pruned,
    /// not dropped by the cap), oldest first: by when each emptied, its Z
    /// and the clock then.
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
            order: BTreeSet::new(),
            live: BTreeMap::new(),
            waiting: BTreeMap::new(),
            waiting_z: BTreeMap::new(),
            emptied: 0,
            clock: 0,
        }
    }

    /// What `Clone` of the collection gives: the same entries at the same
    /// Z in the same order, and no bucket waiting.
    pub fn cloned(&self) -> Self {
        ModelCollection {
            members: self.members.clone(),
            order: self.order.clone(),
            live: self.live.clone(),
            ..ModelCollection::new(self.layout)
        }
    }

    /// The entries back to front.
    pub fn back_to_front(&self) -> Vec<usize> {
        self.order.iter().map(|&(_, _, id)| id).collect()
    }

    /// The entries with their Z, back to front (front to back from the
    /// other end).
    pub fn pairs(&self) -> impl DoubleEndedIterator<Item = (usize, I16F16)> + '_ {
        self.order.iter().map(|&(z, _, id)| (id, z))
    }

    /// The entries whose Z is in `range`, with their Z, back to front (front
    /// to back from the other end); an empty or reversed range has none.
    pub fn range(
        &self,
        range: impl RangeBounds<I16F16>,
    ) -> impl DoubleEndedIterator<Item = (usize, I16F16)> + '_ {
        // Among entries of one Z, seq 0 comes before all and u64::MAX after.
        let low = match range.start_bound() {
            Bound::Included(&z) => Bound::Included((z, 0, 0)),
            Bound::Excluded(&z) => Bound::Excluded((z, u64::MAX, usize::MAX)),
            Bound::Unbounded => Bound::Unbounded,
        };
        let high = match range.end_bound() {
            Bound::Included(&z) => Bound::Included((z, u64::MAX, usize::MAX)),
            Bound::Excluded(&z) => Bound::Excluded((z, 0, 0)),
            Bound::Unbounded => Bound::Unbounded,
        };
        // (`BTreeSet::range` panics on a reversed range; the two bounds are
        // equal only when one excludes what the other includes.)
        let empty = match (low, high) {
            (Bound::Included(l) | Bound::Excluded(l), Bound::Included(h) | Bound::Excluded(h)) => {
                l >= h
            }
            _ => false,
        };
        let walk = (!empty).then(|| self.order.range((low, high)));
        walk.into_iter().flatten().map(|&(z, _, id)| (id, z))
    }

    /// The back-most entry and its Z.
    pub fn first(&self) -> Option<(usize, I16F16)> {
        self.order.first().map(|&(z, _, id)| (id, z))
    }

    /// The front-most entry and its Z.
    pub fn last(&self) -> Option<(usize, I16F16)> {
        self.order.last().map(|&(z, _, id)| (id, z))
    }

    /// The number of entries.
    pub fn len(&self) -> usize {
        self.order.len()
    }

    /// Whether there is no entry.
    pub fn is_empty(&self) -> bool {
        self.order.is_empty()
    }

    /// Whether entry `id` is held.
    pub fn contains(&self, id: usize) -> bool {
        self.z_of(id).is_some()
    }

    /// The Z entry `id` is filed at.
    pub fn z_of(&self, id: usize) -> Option<I16F16> {
        self.members.get(id).copied().flatten().map(|(z, _)| z)
    }

    /// The held entries, by number.
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

    /// Bucket `z` emptied: it waits, at the back of the queue.
    fn closed(&mut self, z: I16F16) {
        self.opened(z);
        self.emptied += 1;
        self.waiting.insert(self.emptied, (z, self.clock));
        self.waiting_z.insert(z, self.emptied);
    }

    /// If more than the cap wait, the oldest are dropped.
    fn cap(&mut self) {
        let cap = MIN_CAP.max(self.live.len());
        while self.waiting.len() > cap {
            let (_, (oldest, _)) = self.waiting.pop_first().expect("a waiting bucket");
            self.waiting_z.remove(&oldest);
        }
    }

    /// An entry joins bucket `z`. With `events` (a single operation) a
    /// bucket that comes alive opens; a batch settles its buckets at its
    /// end instead.
    fn enter(&mut self, z: I16F16, events: bool) {
        if self.layout.is_nonoptimized(z) {
            let count = self.live.entry(z).or_default();
            *count += 1;
            if *count == 1 && events {
                self.opened(z);
            }
        }
    }

    /// An entry leaves bucket `z`; with `events`, a bucket left empty
    /// closes.
    fn leave(&mut self, z: I16F16, events: bool) {
        if self.layout.is_nonoptimized(z) {
            let count = self.live.get_mut(&z).expect("a live Z");
            *count -= 1;
            if *count == 0 {
                self.live.remove(&z);
                if events {
                    self.closed(z);
                    self.cap();
                }
            }
        }
    }

    /// Files `id` at `z` with sequence `seq`; `id` may be held already (a
    /// re-file). Pruning sees the new Z open before the old one closes.
    fn file(&mut self, id: usize, z: I16F16, seq: u64, events: bool) {
        self.enter(z, events);
        if self.members.len() <= id {
            self.members.resize(id + 1, None);
        }
        self.order.insert((z, seq, id));
        if let Some((old, old_seq)) = self.members[id].replace((z, seq)) {
            self.order.remove(&(old, old_seq, id));
            self.leave(old, events);
        }
    }

    /// Takes `id` out, if held, and returns the Z it had.
    fn unfile(&mut self, id: usize, events: bool) -> Option<I16F16> {
        let (z, seq) = self.members.get_mut(id)?.take()?;
        self.order.remove(&(z, seq, id));
        self.leave(z, events);
        Some(z)
    }

    /// A batch's pruning: every bucket of `touched` (the Z values it took
    /// entries from or filed entries at, with whether each was live before)
    /// that was live before it and is not now waits, every one that is
    /// live now and was not stops waiting, as one operation: opened first,
    /// then the closed ones in ascending Z, then the cap.
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
            self.closed(z);
        }
        self.cap();
    }

    fn clear(&mut self) -> Vec<usize> {
        let ids = self.back_to_front();
        *self = ModelCollection {
            clock: self.clock,
            ..ModelCollection::new(self.layout)
        };
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

    /// A Z-action: the next sequence number.
    fn next_seq(&mut self) -> u64 {
        self.seq += 1;
        self.seq
    }

    /// Adds (or inserts) `id` at `z`.
    pub fn add(&mut self, c: usize, id: usize, z: I16F16) -> Result<(), ZError> {
        if self.held_elsewhere(c, id) {
            return Err(ZError::AlreadyInCollection);
        }
        self.collections[c].layout.accepts(z)?;
        let seq = self.next_seq();
        self.collections[c].file(id, z, seq, true);
        Ok(())
    }

    /// Re-files `id` at `z` (a change, `set_z` or `refile`).
    pub fn change(&mut self, c: usize, id: usize, z: I16F16) -> Result<(), ZError> {
        if !self.collections[c].contains(id) {
            return Err(ZError::NotInCollection);
        }
        self.collections[c].layout.accepts(z)?;
        let seq = self.next_seq();
        self.collections[c].file(id, z, seq, true);
        Ok(())
    }

    /// Files `id` at `z` whether held or not (`insert_or_set_z`): returns
    /// the Z it had.
    pub fn upsert(&mut self, c: usize, id: usize, z: I16F16) -> Result<Option<I16F16>, ZError> {
        match self.collections[c].z_of(id) {
            Some(old) => self.change(c, id, z).map(|()| Some(old)),
            None => self.add(c, id, z).map(|()| None),
        }
    }

    /// Moves `id` to `z` unless its Z is `z` already (`set_z_if_changed`):
    /// whether it moved.
    pub fn change_if_new(&mut self, c: usize, id: usize, z: I16F16) -> Result<bool, ZError> {
        match self.collections[c].z_of(id) {
            Some(old) if old == z => Ok(false),
            _ => self.change(c, id, z).map(|()| true),
        }
    }

    /// Removes `id`, returning the Z it had.
    pub fn remove(&mut self, c: usize, id: usize) -> Result<I16F16, ZError> {
        self.collections[c]
            .unfile(id, true)
            .ok_or(ZError::NotInCollection)
    }

    /// Removes every entry of `c`, returning them back to front.
    pub fn clear(&mut self, c: usize) -> Vec<usize> {
        self.collections[c].clear()
    }

    /// Makes collection `to` a clone of collection `from` (see
    /// [`ModelCollection::cloned`]).
    pub fn clone_collection(&mut self, from: usize, to: usize) {
        assert!(!self.shared, "an entry is in one collection at a time");
        self.collections[to] = self.collections[from].cloned();
    }

    /// Applies a batch to collection `c`: each `(id, Some(z))` files `id`
    /// at `z` (an insert, or a re-file of a held entry), each `(id, None)`
    /// removes `id` if held, in order; a step whose Z the layout refuses
    /// is skipped. Pruning sees the batch as one operation. Returns how
    /// many steps were (inserted, moved, removed, refused).
    pub fn apply(&mut self, c: usize, steps: &[(usize, Option<I16F16>)]) -> [usize; 4] {
        let mut touched = BTreeMap::new();
        let mut counts = [0; 4];
        for &(id, z) in steps {
            let seq = self.seq + 1;
            let collection = &mut self.collections[c];
            let mut note = |z: I16F16| {
                if collection.layout.is_nonoptimized(z) {
                    let live = collection.live.contains_key(&z);
                    touched.entry(z).or_insert(live);
                }
            };
            let held = collection.z_of(id);
            match z {
                Some(z) if collection.layout.accepts(z).is_err() => counts[3] += 1,
                Some(z) => {
                    note(z);
                    if let Some(old) = held {
                        note(old);
                    }
                    counts[usize::from(held.is_some())] += 1;
                    self.seq = seq;
                    collection.file(id, z, seq, false);
                }
                None => {
                    if let Some(old) = held {
                        note(old);
                    }
                    if collection.unfile(id, false).is_some() {
                        counts[2] += 1;
                    }
                }
            }
        }
        self.collections[c].settle_batch(&touched);
        counts
    }

    /// Moves every entry of `from` to `to` at its Z, back to front, as one
    /// batch, or nothing if `to` refuses one of the Z values.
    pub fn append(&mut self, to: usize, from: usize) -> Result<(), ZError> {
        let moving: Vec<(usize, Option<I16F16>)> = self.collections[from]
            .pairs()
            .map(|(id, z)| (id, Some(z)))
            .collect();
        for &(_, z) in &moving {
            self.collections[to].layout.accepts(z.expect("a Z"))?;
        }
        self.collections[from].clear();
        self.apply(to, &moving);
        Ok(())
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    const FIXED: Layout = Layout::Fixed {
        max_level: 3,
        prune_after: 1,
    };

    fn z(value: f64) -> I16F16 {
        I16F16::from_num(value)
    }

    #[test]
    fn ranges_are_the_entries_between_their_bounds_in_order() {
        let mut model = Model::new(&[FIXED], false);
        for (id, value) in [(0, 1.0), (1, 0.5), (2, 1.0), (3, 2.5), (4, -1.0)] {
            model.add(0, id, z(value)).unwrap();
        }
        let c = &model.collections[0];
        let ids = |walk: &mut dyn Iterator<Item = (usize, I16F16)>| -> Vec<usize> {
            walk.map(|(id, _)| id).collect()
        };
        assert_eq!(ids(&mut c.range(z(0.5)..=z(1.0))), [1, 0, 2]);
        assert_eq!(ids(&mut c.range(z(0.5)..z(1.0))), [1]);
        assert_eq!(
            ids(&mut c.range((Bound::Excluded(z(0.5)), Bound::Unbounded))),
            [0, 2, 3]
        );
        assert_eq!(ids(&mut c.range(..z(0.5)).rev()), [4]);
        assert_eq!(ids(&mut c.range(z(1.0)..z(1.0))), Vec::<usize>::new());
        assert_eq!(ids(&mut c.range(z(2.0)..=z(1.0))), Vec::<usize>::new());
        let both = (Bound::Excluded(z(1.0)), Bound::Excluded(z(1.0)));
        assert_eq!(ids(&mut c.range(both)), Vec::<usize>::new());
        assert_eq!(c.first(), Some((4, z(-1.0))));
        assert_eq!(c.last(), Some((3, z(2.5))));
    }

    #[test]
    fn a_batch_that_empties_and_refills_a_bucket_leaves_nothing_waiting() {
        let mut model = Model::new(&[FIXED], false);
        model.add(0, 0, z(0.5)).unwrap();
        let counts = model.apply(0, &[(0, None), (1, Some(z(0.5))), (2, Some(z(0.25)))]);
        assert_eq!(counts, [2, 0, 1, 0]);
        assert_eq!(model.collections[0].nonoptimized_buckets(), 2);
        model.apply(0, &[(1, None), (2, None)]);
        assert_eq!(model.collections[0].nonoptimized_buckets(), 2);
        model.collections[0].tick();
        model.collections[0].tick();
        assert_eq!(model.collections[0].nonoptimized_buckets(), 0);
    }

    #[test]
    fn a_clone_has_the_entries_and_nothing_waiting() {
        let mut model = Model::new(&[FIXED, FIXED], false);
        model.add(0, 0, z(0.5)).unwrap();
        model.add(0, 1, z(0.25)).unwrap();
        model.remove(0, 1).unwrap();
        model.clone_collection(0, 1);
        assert_eq!(model.collections[1].back_to_front(), [0]);
        assert_eq!(model.collections[1].nonoptimized_buckets(), 1);
        assert_eq!(model.change_if_new(1, 0, z(0.5)), Ok(false));
        assert_eq!(model.upsert(1, 0, z(2.0)), Ok(Some(z(0.5))));
        assert_eq!(model.upsert(1, 1, z(2.0)), Ok(None));
        assert_eq!(model.collections[1].back_to_front(), [0, 1]);
    }
}
