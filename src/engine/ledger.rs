//! The pruning ledger: which buckets of tree Z values exist, as far as
//! `nonoptimized_buckets` and the contract are concerned.
//!
//! A bucket of a Z value in the tree chain is a run of entries with that
//! Z. While it has entries it is *live*. When an operation leaves it empty
//! it *waits*: it costs a walk nothing (no entry of it is in the tree),
//! and an operation that refills it while it waits makes it live again.
//! Once `k` counting walks have found it waiting (`k` = `prune_after`),
//! the next one *prunes* it: from that moment it no longer counts. So
//! after `k + 1` walks with no change in between, the count equals the
//! live distinct tree Z values.
//!
//! The ledger is paid per bucket that an operation leaves empty or refills,
//! never per entry: a batch that empties and refills a bucket leaves no
//! trace here, and a walk with nothing waiting touches one atomic load.
//!
//! # The clock
//!
//! Walks only borrow the collection, so they count on atomics: while some
//! bucket waits unpruned, each counting walk adds one to `walks`, the
//! walks since the last mutation, and the walk that makes the clock reach
//! `at + k + 1` lowers `unpruned` by the buckets that started waiting at
//! `at` (a group). Every mutation first *settles*: `walks` moves into
//! `base`, a 64-bit clock that no game outlives, and the groups pruned by
//! then are dropped. Nothing compares clock values that could wrap: a walk
//! that finds nothing waiting does not count, so between two mutations
//! `walks` grows by at most `k + 1` plus the walks running at once.
//!
//! # Records
//!
//! Each waiting bucket has a record (its Z and when it started waiting)
//! in a list ordered by that time, and a hash table of bins finds the one
//! a refill cancels: a bin is a list of records linked through them, and a
//! record joins the front of its Z's bin, so the first record of a Z in it
//! is its newest. There are at least twice as many bins as records, so
//! most bins hold one record or none. They grow by linear hashing, a bin
//! at a time, each splitting one older bin: no operation rehashes more
//! than two bins, and a record is added, found or removed with no
//! probing. Records the clock has pruned are reclaimed a few per
//! mutation, so no call stalls on a pile of dead buckets; all at once by
//! `shrink_to_fit`, or by any mutation once the clock has pruned them all
//! (the records and bins are then emptied in constant time, keeping their
//! memory; up to 8,192 bins are emptied in place instead, so a ledger
//! that fills and empties again and again keeps its bins). While no
//! bucket waits unpruned, a refill looks nothing up (a burst of new Z
//! values after the last burst's buckets were pruned): the pruned record
//! of its Z, if any, stays until it is reclaimed, and its Z may meanwhile
//! have a newer record.
//!
//! At most `max(MIN_CAP, live)` buckets wait unpruned at once, `live`
//! being the live distinct tree Z values; an operation that leaves more
//! prunes the longest-waiting at once. So memory stays bounded by the live
//! values even when nothing walks (a replay, a paused game that keeps
//! spawning); no order can tell. If it prunes at least as many records as
//! it leaves waiting (a crowd that walks: every frame closes as many
//! buckets as wait), they go together: they are the front of the list,
//! which joins the free records as it is, and the bins are filled again
//! with the records left.

use alloc::collections::{TryReserveError, VecDeque};
use alloc::vec::Vec;
use core::sync::atomic::{AtomicUsize, Ordering};

use super::chunked::ChunkedVec;
use super::pool::NONE;

/// Waiting buckets allowed whatever the number of live ones.
pub(crate) const MIN_CAP: usize = 1024;

/// Pruned records reclaimed, at most, by each mutation of the ledger, on
/// top of one per bucket it leaves waiting: more than it adds, so records
/// never pile up, and bounded by the operation's own size, so that no call
/// stalls.
const RECLAIM_PER_CALL: usize = 2;

/// Bins a wholesale reclaim empties in place (a fill of 32 KiB at most),
/// so that the records that follow find them ready instead of adding
/// them back a bin at a time, each splitting an older one (a burst of
/// particles whose buckets all get pruned does that again and again);
/// more bins are dropped in constant time. Fuzzing builds and Miri take
/// both ways with small ledgers.
const REFILL_MAX: usize = if cfg!(any(fuzzing, miri)) { 8 } else { 8192 };

/// A bucket that waits, or waited if the clock has pruned it and it is
/// not reclaimed yet: its Z, the clock when it started, its neighbours
/// in the list of records, oldest first, and the next record of its bin.
#[derive(Debug, Clone, Copy)]
struct Record {
    z: i32,
    since: u64,
    older: u32,
    newer: u32,
    next: u32,
}

/// A Z's hash: its low bits pick its bin.
#[inline]
fn hash(z: i32) -> usize {
    (u64::from(z as u32).wrapping_mul(0x9E37_79B9_7F4A_7C15) >> 32) as usize
}

/// The bin of `hash` among `bins` (at least one): by linear hashing,
/// the hash modulo the power of two at or above `bins`, or modulo half
/// that power if that bin does not exist yet.
#[inline]
fn bin_of(hash: usize, bins: usize) -> usize {
    let high = bins.next_power_of_two();
    let bin = hash & (high - 1);
    if bin < bins { bin } else { bin - high / 2 }
}

/// The buckets that started waiting at one time of the clock and wait
/// unpruned, and the oldest of their records.
#[derive(Debug, Clone, Copy)]
struct Group {
    at: u64,
    waiting: usize,
    first: u32,
}

/// Counting walks since the last mutation. On targets with 64-bit atomics
/// it cannot overflow; elsewhere it stops at `u32::MAX` (four billion
/// walks with no mutation between, a bucket waiting all along).
#[derive(Debug, Default)]
struct Walks(
    #[cfg(target_has_atomic = "64")] core::sync::atomic::AtomicU64,
    #[cfg(not(target_has_atomic = "64"))] core::sync::atomic::AtomicU32,
);

impl Walks {
    /// Counts a walk; returns the walks since the last mutation, this one
    /// included.
    #[inline]
    fn count(&self) -> u64 {
        #[cfg(target_has_atomic = "64")]
        {
            self.0.fetch_add(1, Ordering::Relaxed) + 1
        }
        #[cfg(not(target_has_atomic = "64"))]
        {
            let before = self
                .0
                .fetch_update(Ordering::Relaxed, Ordering::Relaxed, |n| n.checked_add(1))
                .unwrap_or(u32::MAX);
            u64::from(before) + 1
        }
    }

    /// The walks since the last mutation, counted from zero again.
    #[allow(clippy::useless_conversion, reason = "a u32 without 64-bit atomics")]
    fn take(&mut self) -> u64 {
        u64::from(core::mem::take(self.0.get_mut()))
    }

    /// The walks since the last mutation.
    #[cfg(any(test, feature = "check"))]
    #[allow(clippy::useless_conversion, reason = "a u32 without 64-bit atomics")]
    fn load(&self) -> u64 {
        u64::from(self.0.load(Ordering::Relaxed))
    }
}

#[derive(Debug)]
pub(crate) struct Ledger {
    prune_after: u32,
    /// The clock at the last mutation: counting walks that found a bucket
    /// waiting, since the ledger was made.
    base: u64,
    walks: Walks,
    /// Waiting buckets not pruned by the clock.
    unpruned: AtomicUsize,
    /// Live distinct Z values of the tree chain.
    live: usize,
    /// The records; free ones are chained through `newer`.
    records: ChunkedVec<Record>,
    free: u32,
    oldest: u32,
    newest: u32,
    /// The first record of each bin; every record in the list is
    /// in the bin of its Z, and there are at least twice as many bins.
    heads: ChunkedVec<u32>,
    /// Records in the list (and so in the bins).
    binned: usize,
    /// The groups not pruned as of `base`, oldest first.
    groups: VecDeque<Group>,
}

impl Ledger {
    pub(crate) fn new(prune_after: u32) -> Self {
        Ledger {
            prune_after,
            base: 0,
            walks: Walks::default(),
            unpruned: AtomicUsize::new(0),
            live: 0,
            records: ChunkedVec::new(),
            free: NONE,
            oldest: NONE,
            newest: NONE,
            heads: ChunkedVec::new(),
            binned: 0,
            groups: VecDeque::new(),
        }
    }

    pub(crate) fn prune_after(&self) -> u32 {
        self.prune_after
    }

    /// The buckets that count: live ones and waiting ones not yet pruned.
    pub(crate) fn buckets(&self) -> usize {
        self.live + self.unpruned.load(Ordering::Relaxed)
    }

    /// The clock time at which buckets that started waiting at `since` are
    /// pruned.
    #[inline]
    fn pruned_at(&self, since: u64) -> u64 {
        since + u64::from(self.prune_after) + 1
    }

    /// A counting walk starts: if a bucket waits unpruned, the clock ticks,
    /// and the buckets that started waiting `prune_after + 1` ticks ago
    /// are pruned.
    #[inline]
    pub(crate) fn tick(&self) {
        if self.unpruned.load(Ordering::Relaxed) == 0 {
            return;
        }
        let now = self.base + self.walks.count();
        let Some(at) = now.checked_sub(u64::from(self.prune_after) + 1) else {
            return;
        };
        // Settled groups are not pruned yet, so the group pruned now is
        // almost always the oldest: a look at it first keeps the search's
        // code off a walk's path (a walk after a burst finds it cold).
        let index = match self.groups.front() {
            Some(oldest) if oldest.at == at => Some(0),
            Some(oldest) if oldest.at > at => None,
            _ => self.groups.binary_search_by_key(&at, |group| group.at).ok(),
        };
        if let Some(index) = index {
            self.unpruned
                .fetch_sub(self.groups[index].waiting, Ordering::Relaxed);
        }
    }

    /// Brings the clock up to date with the walks since the last mutation,
    /// and drops the groups they pruned (the walks counted them out).
    fn settle(&mut self) {
        let walks = self.walks.take();
        if walks == 0 {
            return;
        }
        self.base += walks;
        while self
            .groups
            .front()
            .is_some_and(|group| self.pruned_at(group.at) <= self.base)
        {
            self.groups.pop_front();
        }
    }

    /// One operation's effect: the runs of `opened` Z values are live, and
    /// those of `closed` ones (left empty by it) start waiting, in that
    /// order. The two lists have no value in common: a run emptied and
    /// refilled by one operation never waited.
    pub(crate) fn apply(&mut self, opened: &[i32], closed: &[i32]) {
        self.settle();
        self.reclaim(closed.len() + RECLAIM_PER_CALL);
        // With nothing waiting unpruned, a refilled bucket's record (if it
        // has one left) is a pruned one, reclaimed in its turn: no lookup.
        if *self.unpruned.get_mut() > 0 {
            for &z in opened {
                if let Some(record) = self.find(z) {
                    self.stop_waiting(record);
                }
            }
        }
        self.live += opened.len();
        if !closed.is_empty() {
            self.live -= closed.len();
            // The cap prunes the longest-waiting beyond it: the buckets
            // already waiting first, then these in order. Those of these it
            // would prune at once get no record.
            let cap = MIN_CAP.max(self.live);
            let excess = (*self.unpruned.get_mut() + closed.len()).saturating_sub(cap);
            let older = excess.min(*self.unpruned.get_mut());
            if older > 0 {
                self.prune_oldest_many(older);
            }
            let since = self.base;
            let waiting = &closed[excess - older..];
            if let Some((&z, rest)) = waiting.split_first() {
                self.add_bins_for(waiting.len());
                let first = self.new_record(z, since);
                for &z in rest {
                    self.new_record(z, since);
                }
                match self.groups.back_mut() {
                    Some(group) if group.at == since => {
                        group.waiting += waiting.len();
                        if group.first == NONE {
                            group.first = first;
                        }
                    }
                    _ => self.groups.push_back(Group {
                        at: since,
                        waiting: waiting.len(),
                        first,
                    }),
                }
            }
            // Mutations hold the ledger exclusively: plain reads and
            // writes of the counter, no atomic read-modify-write.
            *self.unpruned.get_mut() += waiting.len();
            debug_assert!(*self.unpruned.get_mut() <= cap);
        }
    }

    /// Adds bins until there are twice as many as the records would be
    /// with `records` more.
    fn add_bins_for(&mut self, records: usize) {
        while self.heads.len() < 2 * (self.binned + records) {
            self.add_bin();
        }
    }

    /// A record for the bucket of `z`, waiting since `since`, at the end
    /// of the list, first in its Z's bin ([`add_bins_for`] must have made
    /// room for it).
    ///
    /// [`add_bins_for`]: Self::add_bins_for
    #[inline(always)]
    fn new_record(&mut self, z: i32, since: u64) -> u32 {
        debug_assert!(self.heads.len() >= 2 * (self.binned + 1));
        let bin = bin_of(hash(z), self.heads.len());
        let record = Record {
            z,
            since,
            older: self.newest,
            newer: NONE,
            next: self.head(bin),
        };
        let id = match self.free {
            NONE => {
                self.records.push(record);
                (self.records.len() - 1) as u32
            }
            free => {
                let slot = &mut self.records[free as usize];
                self.free = slot.newer;
                *slot = record;
                free
            }
        };
        match self.newest {
            NONE => self.oldest = id,
            newest => self.record_mut(newest).newer = id,
        }
        self.newest = id;
        self.set_head(bin, id);
        self.binned += 1;
        id
    }

    /// The newest record of `z`, if any.
    #[inline]
    fn find(&self, z: i32) -> Option<u32> {
        if self.binned == 0 {
            return None;
        }
        let mut id = self.head(bin_of(hash(z), self.heads.len()));
        while id != NONE {
            let record = self.record(id);
            if record.z == z {
                return Some(id);
            }
            id = record.next;
        }
        None
    }

    fn head(&self, bin: usize) -> u32 {
        self.heads[bin]
    }

    fn set_head(&mut self, bin: usize, id: u32) {
        self.heads[bin] = id;
    }

    /// Adds a bin: the records of the one older bin whose hashes it
    /// shares now addressed by the new one move to it, both keeping their
    /// order.
    fn add_bin(&mut self) {
        let new = self.heads.len();
        self.heads.push(NONE);
        let high = (new + 1).next_power_of_two();
        if new == 0 {
            return;
        }
        let split = new - high / 2;
        let mut id = self.head(split);
        self.set_head(split, NONE);
        let mut tails = [NONE; 2];
        while id != NONE {
            let record = self.record(id);
            let moves = hash(record.z) & (high - 1) == new;
            let (bin, tail) = if moves {
                (new, &mut tails[1])
            } else {
                (split, &mut tails[0])
            };
            match *tail {
                NONE => self.set_head(bin, id),
                tail => self.record_mut(tail).next = id,
            }
            *tail = id;
            id = record.next;
        }
        for tail in tails {
            if tail != NONE {
                self.record_mut(tail).next = NONE;
            }
        }
    }

    /// Takes record `id`, of `z` and followed by `next`, out of its bin.
    fn take_from_bin(&mut self, id: u32, z: i32, next: u32) {
        let bin = bin_of(hash(z), self.heads.len());
        let mut at = self.head(bin);
        if at == id {
            self.set_head(bin, next);
        } else {
            loop {
                let record = self.record(at);
                if record.next == id {
                    self.record_mut(at).next = next;
                    break;
                }
                at = record.next;
            }
        }
        self.binned -= 1;
    }

    fn record(&self, id: u32) -> Record {
        self.records[id as usize]
    }

    fn record_mut(&mut self, id: u32) -> &mut Record {
        &mut self.records[id as usize]
    }

    /// Record `id` stops waiting (refilled, or pruned by the cap), and
    /// goes.
    fn stop_waiting(&mut self, id: u32) {
        let record = self.record(id);
        if self.pruned_at(record.since) > self.base {
            let index = self
                .groups
                .binary_search_by_key(&record.since, |group| group.at)
                .expect("an unpruned record's group");
            self.leave_group(index, id, record);
        }
        self.drop_record(id, record);
    }

    /// The longest-waiting unpruned record stops waiting (pruned by the
    /// cap), and goes: the first of the first group that still counts
    /// one (every group is unpruned once the clock is settled).
    fn prune_oldest(&mut self) {
        while self.groups.front().is_some_and(|group| group.waiting == 0) {
            self.groups.pop_front();
        }
        let id = self.groups.front().expect("an unpruned bucket waits").first;
        let record = self.record(id);
        self.leave_group(0, id, record);
        self.drop_record(id, record);
    }

    /// The `count` longest-waiting unpruned records stop waiting (pruned
    /// by the cap), and go: one by one, or all at once if no more records
    /// would be left waiting than go and the bins are not many more than
    /// them (a crowd that walks closes as many buckets every frame as
    /// wait, and the cap prunes the last frame's). All at once, every
    /// listed record before the first left joins the free records as the
    /// chain it is, and the bins are filled again with those left: the
    /// work is proportional to the records that go, not a bin walk each.
    fn prune_oldest_many(&mut self, count: usize) {
        let unpruned = *self.unpruned.get_mut();
        if count == 1 || unpruned > 2 * count || self.heads.len() > 16 * count {
            for _ in 0..count {
                self.prune_oldest();
            }
            return;
        }
        // Every group is unpruned once the clock is settled, and their
        // records follow, oldest first, those the clock has pruned.
        let mut left = count;
        let mut first_left = NONE;
        for index in 0..self.groups.len() {
            let group = self.groups[index];
            if left < group.waiting {
                let mut id = group.first;
                for _ in 0..left {
                    id = self.record(id).newer;
                }
                let group = &mut self.groups[index];
                group.waiting -= left;
                group.first = id;
                first_left = id;
                break;
            }
            left -= group.waiting;
            let group = &mut self.groups[index];
            group.waiting = 0;
            group.first = NONE;
            if left == 0 {
                if let Some(next) = self.groups.iter().skip(index + 1).find(|g| g.waiting > 0) {
                    first_left = next.first;
                }
                break;
            }
        }
        while self.groups.front().is_some_and(|group| group.waiting == 0) {
            self.groups.pop_front();
        }
        *self.unpruned.get_mut() -= count;
        let last_gone = match first_left {
            NONE => self.newest,
            id => self.record(id).older,
        };
        self.record_mut(last_gone).newer = self.free;
        self.free = self.oldest;
        match first_left {
            NONE => (self.oldest, self.newest) = (NONE, NONE),
            id => {
                self.record_mut(id).older = NONE;
                self.oldest = id;
            }
        }
        self.heads.fill(NONE);
        self.binned = 0;
        let mut id = first_left;
        while id != NONE {
            let record = self.record(id);
            let bin = bin_of(hash(record.z), self.heads.len());
            self.record_mut(id).next = self.head(bin);
            self.set_head(bin, id);
            self.binned += 1;
            id = record.newer;
        }
    }

    /// Record `id`, which is `record` and waits unpruned, leaves group
    /// `index`, its own.
    fn leave_group(&mut self, index: usize, id: u32, record: Record) {
        *self.unpruned.get_mut() -= 1;
        let group = &mut self.groups[index];
        group.waiting -= 1;
        if group.first == id {
            let next = match record.newer {
                NONE => NONE,
                newer if self.record(newer).since == record.since => newer,
                _ => NONE,
            };
            self.groups[index].first = next;
        }
    }

    /// Unlinks record `id`, which is `record`, and frees it.
    fn drop_record(&mut self, id: u32, record: Record) {
        let Record {
            z,
            older,
            newer,
            next,
            ..
        } = record;
        match older {
            NONE => self.oldest = newer,
            older => self.record_mut(older).newer = newer,
        }
        match newer {
            NONE => self.newest = older,
            newer => self.record_mut(newer).older = older,
        }
        self.take_from_bin(id, z, next);
        self.record_mut(id).newer = self.free;
        self.free = id;
    }

    /// Drops up to `count` of the oldest records the clock has pruned, or
    /// all of them at once, keeping their memory, if the clock has pruned
    /// every record (a wave of deaths after the last wave's buckets were
    /// pruned: no record dropped one by one).
    #[inline]
    fn reclaim(&mut self, count: usize) {
        if self.reclaim_all() {
            return;
        }
        for _ in 0..count {
            let id = self.oldest;
            if id == NONE {
                break;
            }
            let record = self.record(id);
            if self.pruned_at(record.since) > self.base {
                break;
            }
            self.drop_record(id, record);
        }
    }

    /// Drops every record if the clock has pruned them all, keeping their
    /// memory; returns whether it did. (A listed record waits unpruned or
    /// is pruned: a refill or the cap drops the record it stops.)
    #[inline]
    fn reclaim_all(&mut self) -> bool {
        if self.newest == NONE || *self.unpruned.get_mut() > 0 {
            return false;
        }
        if self.heads.len() <= REFILL_MAX {
            self.heads.fill(NONE);
        } else {
            self.heads.clear();
        }
        self.records.clear();
        self.binned = 0;
        (self.free, self.oldest, self.newest) = (NONE, NONE, NONE);
        true
    }

    /// Forgets every bucket: `clear` frees them all.
    pub(crate) fn clear(&mut self) {
        self.settle();
        self.live = 0;
        *self.unpruned.get_mut() = 0;
        self.records = ChunkedVec::new();
        (self.free, self.oldest, self.newest) = (NONE, NONE, NONE);
        self.heads = ChunkedVec::new();
        self.binned = 0;
        self.groups = VecDeque::new();
    }

    /// Room for the records and bins of `waiting` buckets, the most
    /// that can wait with that many entries; or the allocation error.
    pub(crate) fn try_reserve(&mut self, waiting: usize) -> Result<(), TryReserveError> {
        let waiting = MIN_CAP.max(waiting);
        self.heads.try_reserve_to(waiting.saturating_mul(2))?;
        self.records.try_reserve_to(waiting)
    }

    /// Reclaims every pruned record and gives back all the memory the
    /// waiting ones do not need: afterwards the ledger holds what a new one
    /// would after the same waiting buckets started waiting.
    pub(crate) fn shrink_to_fit(&mut self) {
        self.settle();
        self.reclaim(usize::MAX);
        // The waiting records, oldest first, into a fresh dense list.
        let mut waiting = Vec::new();
        let mut id = self.oldest;
        while id != NONE {
            let record = self.record(id);
            waiting.push((record.z, record.since));
            id = record.newer;
        }
        self.records = ChunkedVec::new();
        (self.free, self.oldest, self.newest) = (NONE, NONE, NONE);
        self.heads = ChunkedVec::new();
        self.binned = 0;
        for group in &mut self.groups {
            group.first = NONE;
        }
        self.add_bins_for(waiting.len());
        for (z, since) in waiting {
            let id = self.new_record(z, since);
            let index = self
                .groups
                .binary_search_by_key(&since, |group| group.at)
                .expect("a waiting record's group");
            if self.groups[index].first == NONE {
                self.groups[index].first = id;
            }
        }
        self.heads.shrink_to_fit();
        self.records.shrink_to_fit();
        self.groups.shrink_to_fit();
    }

    /// Makes the ledger behave as if `walks` counting walks had found a
    /// bucket waiting all along (tests of long runs, without running them).
    #[cfg(any(test, feature = "check"))]
    pub(crate) fn pretend_walks(&mut self, walks: u64) {
        self.settle();
        self.base += walks;
        while let Some(group) = self.groups.front() {
            if self.pruned_at(group.at) > self.base {
                break;
            }
            *self.unpruned.get_mut() -= group.waiting;
            self.groups.pop_front();
        }
    }

    /// Checks the ledger against the live runs the tree has (tests and
    /// fuzzing).
    #[cfg(any(test, feature = "check"))]
    pub(crate) fn check(&self, live_runs: usize) {
        assert_eq!(self.live, live_runs, "the ledger counts the live runs");
        let now = self.base + self.walks.load();
        let (mut id, mut older, mut unpruned, mut held) = (self.oldest, NONE, 0, 0);
        let mut since = 0;
        let mut listed = alloc::collections::BTreeSet::new();
        while id != NONE {
            listed.insert(id);
            let record = self.record(id);
            assert_eq!(record.older, older, "the list links agree");
            assert!(record.since >= since, "records are listed by age");
            since = record.since;
            let waits = self.pruned_at(record.since) > now;
            if waits {
                assert_eq!(self.find(record.z), Some(id), "found by Z");
            }
            unpruned += usize::from(waits);
            held += 1;
            (older, id) = (id, record.newer);
        }
        assert_eq!(self.newest, older, "the newest record ends the list");
        let mut binned = alloc::collections::BTreeSet::new();
        for bin in 0..self.heads.len() {
            let mut id = self.head(bin);
            while id != NONE {
                assert!(listed.contains(&id), "the bins hold listed records");
                assert!(binned.insert(id), "a record is binned once");
                let record = self.record(id);
                assert_eq!(
                    bin_of(hash(record.z), self.heads.len()),
                    bin,
                    "a record is in its Z's bin"
                );
                id = record.next;
            }
        }
        assert_eq!(binned, listed, "every listed record is binned");
        assert_eq!(self.binned, held, "the binned records are counted");
        assert!(
            self.heads.len() >= 2 * held,
            "twice as many bins as records"
        );
        assert_eq!(
            self.unpruned.load(Ordering::Relaxed),
            unpruned,
            "unpruned count"
        );
        assert!(unpruned <= MIN_CAP.max(self.live), "the cap holds");
        for group in &self.groups {
            if self.pruned_at(group.at) > now && group.waiting > 0 {
                assert_eq!(
                    self.record(group.first).since,
                    group.at,
                    "a group's first record"
                );
            }
        }
        let mut free = self.free;
        while free != NONE {
            held += 1;
            free = self.record(free).newer;
        }
        assert_eq!(held, self.records.len(), "no record is lost");
    }
}
