//! The pruning ledger: which buckets of non-optimized Z values exist, as
//! far as [`nonoptimized_buckets`](crate::ZOrder::nonoptimized_buckets) and
//! the contract are concerned.
//!
//! A bucket of a Z value in the sorted tree is a run of entries with that
//! Z. While it has entries it is *live*. When its last entry leaves, it
//! *waits*: it costs a traversal nothing (no entry of it is in the tree),
//! and a bucket refilled while waiting keeps living. Once `k` traversals
//! have found it waiting (`k` = `prune_after`), the next traversal prunes
//! it: from that moment it no longer counts. So after `k + 1` traversals
//! with no change in between, the count equals the live distinct
//! non-optimized Z values.
//!
//! Traversals only borrow the collection, so they prune without touching
//! anything but two relaxed atomics: a traversal clock, and the number of
//! waiting buckets not yet pruned, which a traversal lowers by the number
//! of buckets that started waiting `k + 1` ticks before it. The records of
//! waiting buckets sit in a slab, linked oldest first, and a map from Z to
//! record finds the one a refill cancels; a refilled record leaves at once,
//! and pruned ones are reclaimed by later mutations, a bounded number per
//! call, so no call ever stalls on a pile of dead buckets.
//!
//! Waiting buckets also have a cap: at most `max(MIN_CAP, live)` of them,
//! `live` being the live distinct non-optimized Z values. A bucket that
//! starts waiting beyond the cap prunes the longest-waiting one at once. So
//! memory stays bounded by the live values even when nothing traverses (a
//! replay, a paused game that keeps spawning); no order can tell.

use alloc::collections::VecDeque;
use alloc::vec::Vec;
use core::sync::atomic::{AtomicUsize, Ordering};

use crate::pool::NONE;
use crate::zmap::ZMap;

/// Waiting buckets allowed whatever the number of live ones.
pub(crate) const MIN_CAP: usize = 1024;

/// Records reclaimed, at most, each time a bucket starts waiting (which
/// adds one): enough to keep up, bounded so no call stalls.
const RECLAIM_PER_CALL: usize = 2;

/// A bucket that waits (or waited, if the clock has pruned it and it is
/// not reclaimed yet): its Z, the clock when it started, and its
/// neighbours in the list of records, oldest first.
/// Clock values are kept in 32 bits (wrapping): ages are compared, never
/// absolute times.
#[derive(Debug, Clone, Copy)]
struct Record {
    z: i32,
    since: u32,
    older: u32,
    newer: u32,
}

/// How many waiting buckets started at one tick of the clock.
#[derive(Debug, Clone, Copy)]
struct Tick {
    at: u32,
    waiting: usize,
}

#[derive(Debug)]
pub(crate) struct Ledger {
    prune_after: u32,
    /// Counting traversals started so far (wrapping).
    clock: AtomicUsize,
    /// Waiting buckets not yet pruned by the clock.
    unpruned: AtomicUsize,
    /// Live distinct Z values of the sorted tree.
    live: usize,
    /// The records; free ones are chained through `newer`.
    records: Vec<Record>,
    free: u32,
    oldest: u32,
    newest: u32,
    /// The record of each waiting bucket, by Z.
    by_z: ZMap,
    /// The clock ticks at which buckets started waiting, oldest first;
    /// ticks older than pruning cares about are dropped.
    ticks: VecDeque<Tick>,
}

impl Ledger {
    pub(crate) fn new(prune_after: u32) -> Self {
        Ledger {
            prune_after,
            clock: AtomicUsize::new(0),
            unpruned: AtomicUsize::new(0),
            live: 0,
            records: Vec::new(),
            free: NONE,
            oldest: NONE,
            newest: NONE,
            by_z: ZMap::default(),
            ticks: VecDeque::new(),
        }
    }

    pub(crate) fn prune_after(&self) -> u32 {
        self.prune_after
    }

    fn now(&self) -> u32 {
        self.clock.load(Ordering::Relaxed) as u32
    }

    /// Whether a bucket that started waiting at `since` is pruned by now.
    fn pruned(&self, since: u32) -> bool {
        self.now().wrapping_sub(since) > self.prune_after
    }

    /// The buckets that count: live ones and waiting ones not yet pruned.
    pub(crate) fn buckets(&self) -> usize {
        self.live + self.unpruned.load(Ordering::Relaxed)
    }

    /// The index of the tick at `at`, if it is still kept. Ticks ascend:
    /// this finds it by its age, counting back from `now` (so the clock may
    /// wrap).
    fn tick_index(&self, at: u32, now: u32) -> Option<usize> {
        let age = now.wrapping_sub(at);
        let index = self
            .ticks
            .partition_point(|tick| now.wrapping_sub(tick.at) > age);
        (self.ticks.get(index)?.at == at).then_some(index)
    }

    /// A traversal starts: the clock ticks, and the buckets that started
    /// waiting `prune_after + 1` ticks ago are pruned.
    pub(crate) fn tick(&self) {
        // This traversal's own tick: traversals on other threads get theirs.
        let now = (self.clock.fetch_add(1, Ordering::Relaxed) as u32).wrapping_add(1);
        let Some(age) = self.prune_after.checked_add(1) else {
            // A threshold of u32::MAX: nothing is ever pruned.
            return;
        };
        let expiring = now.wrapping_sub(age);
        if let Some(index) = self.tick_index(expiring, now) {
            self.unpruned
                .fetch_sub(self.ticks[index].waiting, Ordering::Relaxed);
        }
    }

    /// A run of Z `z` opened in the sorted tree: its bucket is live, either
    /// refilled while waiting or new.
    pub(crate) fn opened(&mut self, z: i32) {
        if let Some(record) = self.by_z.get(z) {
            self.stop_waiting(record);
        }
        self.live += 1;
    }

    /// The run of Z `z` closed: its bucket starts waiting.
    pub(crate) fn closed(&mut self, z: i32) {
        self.live -= 1;
        let now = self.now();
        let record = Record {
            z,
            since: now,
            older: self.newest,
            newer: NONE,
        };
        let id = match self.free {
            NONE => {
                self.records.push(record);
                (self.records.len() - 1) as u32
            }
            free => {
                self.free = self.records[free as usize].newer;
                self.records[free as usize] = record;
                free
            }
        };
        match self.newest {
            NONE => self.oldest = id,
            newest => self.records[newest as usize].newer = id,
        }
        self.newest = id;
        self.by_z.insert(z, id);
        match self.ticks.back_mut() {
            Some(tick) if tick.at == now => tick.waiting += 1,
            _ => self.ticks.push_back(Tick {
                at: now,
                waiting: 1,
            }),
        }
        // Mutations hold the ledger exclusively: plain reads and writes of
        // the counter, no atomic read-modify-write (a locked instruction).
        *self.unpruned.get_mut() += 1;
        // The cap: prune the longest-waiting beyond it.
        while *self.unpruned.get_mut() > MIN_CAP.max(self.live) {
            self.stop_waiting(self.oldest);
        }
        self.reclaim();
    }

    /// Record `id` stops waiting (refilled, or pruned by the cap), and
    /// goes.
    fn stop_waiting(&mut self, id: u32) {
        let Record { z, since, .. } = self.records[id as usize];
        if !self.pruned(since) {
            *self.unpruned.get_mut() -= 1;
            if let Some(index) = self.tick_index(since, self.now()) {
                self.ticks[index].waiting -= 1;
            }
        }
        self.drop_record(id, z);
    }

    /// Unlinks record `id` (of Z `z`) and frees it.
    fn drop_record(&mut self, id: u32, z: i32) {
        let Record { older, newer, .. } = self.records[id as usize];
        match older {
            NONE => self.oldest = newer,
            older => self.records[older as usize].newer = newer,
        }
        match newer {
            NONE => self.newest = older,
            newer => self.records[newer as usize].older = older,
        }
        self.by_z.remove(z);
        self.records[id as usize].newer = self.free;
        self.free = id;
    }

    /// Drops a few of the oldest records the clock has pruned, and the
    /// ticks pruning no longer needs.
    fn reclaim(&mut self) {
        for _ in 0..RECLAIM_PER_CALL {
            let id = self.oldest;
            if id == NONE || !self.pruned(self.records[id as usize].since) {
                break;
            }
            self.drop_record(id, self.records[id as usize].z);
        }
        // A tick is needed until the traversal that prunes its buckets.
        let now = self.now();
        while self.ticks.front().is_some_and(|tick| {
            u64::from(now.wrapping_sub(tick.at)) > u64::from(self.prune_after) + 1
        }) {
            self.ticks.pop_front();
        }
    }

    /// Forgets every bucket: `clear` frees them all.
    pub(crate) fn clear(&mut self) {
        self.live = 0;
        *self.unpruned.get_mut() = 0;
        self.records.clear();
        (self.free, self.oldest, self.newest) = (NONE, NONE, NONE);
        self.by_z.clear();
        self.ticks.clear();
    }

    pub(crate) fn shrink_to_fit(&mut self) {
        if self.oldest == NONE {
            self.records = Vec::new();
            self.free = NONE;
        }
        self.ticks.shrink_to_fit();
        self.by_z.shrink_to_fit();
    }

    /// Checks the ledger against the live runs the tree has (tests and
    /// fuzzing).
    pub(crate) fn check(&self, live_runs: usize) {
        assert_eq!(self.live, live_runs, "the ledger counts the live runs");
        let (mut id, mut older, mut unpruned, mut held) = (self.oldest, NONE, 0, 0);
        while id != NONE {
            let record = self.records[id as usize];
            assert_eq!(record.older, older, "the list links agree");
            assert_eq!(self.by_z.get(record.z), Some(id), "found by Z");
            unpruned += usize::from(!self.pruned(record.since));
            held += 1;
            (older, id) = (id, record.newer);
        }
        assert_eq!(self.newest, older, "the newest record ends the list");
        assert_eq!(
            self.by_z.len(),
            held,
            "the map holds the listed records only"
        );
        assert_eq!(
            self.unpruned.load(Ordering::Relaxed),
            unpruned,
            "unpruned count"
        );
        assert!(unpruned <= MIN_CAP.max(self.live), "the cap holds");
        let mut free = self.free;
        while free != NONE {
            held += 1;
            free = self.records[free as usize].newer;
        }
        assert_eq!(held, self.records.len(), "no record is lost");
    }
}
