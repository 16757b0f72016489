//! The engine: the core every collection of the crate is a thin face over,
//! and the parts it is made of. It knows nothing of keys or handles (see
//! [`entry`]), and owns every algorithm: filing, walking, batches, in-walk
//! updates, detaching, pruning.
//!
//! # Words
//!
//! One name per concept, here and everywhere in the crate:
//!
//! - **Z**: an `I16F16`. A **level** is a natural number Z in
//!   `0..=max_level`; the **default Z** is `I16F16::MAX`.
//! - **Layout**: which Z a collection takes: every Z (fixed-point), or the
//!   levels only (simple).
//! - **Entry**: what a collection files: a key, or an `Rc` handle.
//! - **File**, **unfile**, **refile**: put an entry at a Z, after every
//!   entry at or below it (a Z-action); take it out; take it out and file
//!   it again (a Z-action too, even at the same Z).
//! - **Bucket**: the entries at one Z, in the order of their last
//!   Z-action.
//! - **Block**: a node of the level chain: [`BLOCK_SLOTS`](block::BLOCK_SLOTS)
//!   slots and a mask of those holding an entry; an entry keeps its slot
//!   until a neighbour needs room ([`block`]).
//! - **Leaf**: a node of the tree chain: up to
//!   [`LEAF_SLOTS`](place::LEAF_SLOTS) entries with their Z, packed in
//!   order ([`leaf`]).
//! - **Chain**: nodes linked in back-to-front order. The *level chain* is
//!   of blocks and holds the levels and the default Z, each bucket reached
//!   in O(1) through the place of its last entry, its *last* ([`levels`]);
//!   the *tree chain* is of leaves and holds every other Z, under a B+
//!   tree ([`tree`]).
//! - **Run**: a bucket's entries as they lie in its chain, consecutive
//!   entries, maybe across nodes.
//! - **Place**: where an entry is, in 32 bits: its chain, its node, and its
//!   slot, exact in a block and a hint in a leaf ([`place`]). The **book**
//!   is where places are kept (the key table, or the objects).
//! - **Walk**: a traversal from either end ([`walk`]); a *counting* walk
//!   ticks the pruning clock, a *quiet* one does not.
//! - **Waiting**, **pruned**: a tree bucket emptied by an operation waits
//!   until walks prune it ([`ledger`]).
//! - **Batch**: many Z-actions applied as one operation: in call order,
//!   removals, and level entries filed at once (or, once the batch has
//!   changed a quarter of the level chain, all in one rebuild); then one
//!   sorted merge into the tree's leaves.
//!
//! # Costs
//!
//! At a level or the default Z, filing, unfiling and refiling touch one
//! block of the level chain and maybe a neighbour: O(1) in the worst case.
//! At any other Z they are O(log n). A batch of `k` is a radix sort of its
//! tree entries, O(k), plus a descent and a merge for each tree leaf it
//! touches (and, if it rebuilds the level chain, one pass over it). A walk
//! costs the entries it yields, plus one step per node and per switch
//! between the chains.

mod block;
mod chunked;
pub(crate) mod entry;
mod intmap;
mod leaf;
mod ledger;
mod levels;
mod occupancy;
pub(crate) mod place;
mod pool;
mod radix;
mod tree;
pub(crate) mod walk;

use alloc::vec::Vec;
use core::ops::{Bound, ControlFlow, RangeBounds};

pub(crate) use intmap::IntMap;

use self::entry::{Book, Entry};
use self::ledger::Ledger;
use self::levels::Levels;
use self::place::{BATCH_STEPS, Chain, LEAF_SLOTS, Place, Spot};
use self::tree::Tree;
use self::walk::{Chains, Detached, Ends, Walk};
use crate::error::ZError;
use crate::z::{DEFAULT_Z, I16F16, MAX_LEVEL, optimized_level};

/// A batch rebuilds the level chain, rather than filing and unfiling its
/// share one by one, when that share is at least this many steps (few in
/// fuzzing and Miri builds, so that small inputs rebuild)...
const REBUILD_MIN: usize = if cfg!(any(fuzzing, miri)) { 4 } else { 32 };
/// ... and at least one in this many of the chain's entries.
const REBUILD_SHARE: usize = 4;

/// Where an entry is, exactly.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) struct At {
    chain: Chain,
    leaf: u32,
    slot: usize,
}

/// Where an entry at some Z goes.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
enum Target {
    /// A bucket of the level chain, and the Z bits.
    Bucket(usize, i32),
    /// The tree chain, at these Z bits.
    Tree(i32),
}

impl Target {
    /// The Z bits.
    fn bits(self) -> i32 {
        match self {
            Target::Bucket(_, bits) | Target::Tree(bits) => bits,
        }
    }
}

/// One step of a batch.
#[derive(Debug)]
pub(crate) enum Step<E> {
    /// File the entry at this Z: refile it if held, else file it.
    File(E, I16F16),
    /// Unfile the entry if held.
    Unfile(E),
}

/// What a batch did.
#[derive(Debug, Default, Clone, Copy, PartialEq, Eq)]
pub(crate) struct Applied {
    /// Entries filed that were not held.
    pub(crate) filed: usize,
    /// Entries held and refiled.
    pub(crate) refiled: usize,
    /// Entries held and unfiled.
    pub(crate) unfiled: usize,
    /// Steps refused: a Z the layout does not take, or (keys) an entry
    /// whose place another entry holds.
    pub(crate) refused: usize,
}

/// Working memory of batches, kept between them so a batch a frame does
/// not allocate.
struct Scratch<E> {
    /// The entries to file, in call order (a later step for the same entry
    /// takes over its earlier one, leaving `None`), with where each goes.
    pending: Vec<(Target, Option<E>)>,
    /// The tree's share of them: each one's Z bits (with the sign bit
    /// flipped, so they sort as unsigned) and step, then sorted.
    tree: Vec<(u32, u32)>,
    /// The radix sort's scratch.
    radix: Vec<(u32, u32)>,
    /// The level chain's share, when it waits for a rebuild: each one's
    /// bucket and step, then sorted.
    level_keys: Vec<(u32, u32)>,
    merge: Vec<(i32, E, bool)>,
    /// The tree leaves the batch took entries out of, each with the sort
    /// key of its first entry's Z.
    touched: Vec<(u32, u32)>,
    opened: Vec<i32>,
    /// The Z values of the runs it emptied, sorted, and the ones whose run
    /// may go on in a leaf it did not touch (scratch).
    closed: Vec<i32>,
    maybe_on: Vec<i32>,
    /// The nodes of a tree rebuild's level (scratch).
    nodes: Vec<(u32, i32)>,
    /// A counting sort's counts.
    counts: Vec<u32>,
    /// Whether the level chain waits for a rebuild (set while the steps
    /// are taken).
    rebuild: bool,
    /// Whether a step is under way (its entry maybe taken out and not
    /// yet pending): only the key's `index` or `Eq` can panic there.
    mid_step: bool,
}

impl<E> Scratch<E> {
    const fn new() -> Self {
        Scratch {
            pending: Vec::new(),
            tree: Vec::new(),
            radix: Vec::new(),
            level_keys: Vec::new(),
            merge: Vec::new(),
            touched: Vec::new(),
            opened: Vec::new(),
            closed: Vec::new(),
            maybe_on: Vec::new(),
            nodes: Vec::new(),
            counts: Vec::new(),
            rebuild: false,
            mid_step: false,
        }
    }
}

/// A batch that ends when it goes: the steps the core took from the
/// iterator are filed when it is dropped, whether the iterator ran out or
/// panicked between two steps. In the latter case the steps it gave take
/// effect, as `Vec::extend` keeps what it pushed, and the core is sound.
/// A panic in the middle of a step (a key's `index` or `Eq`, which must
/// not panic) files nothing: the core is left in the unspecified state
/// their documentation warns of, and the key is not called again while
/// the panic unwinds.
struct Batch<'a, E: Entry, B: Book<E>> {
    core: &'a mut Core<E, B>,
    scratch: Scratch<E>,
}

impl<E: Entry, B: Book<E>> Drop for Batch<'_, E, B> {
    fn drop(&mut self) {
        let mut scratch = core::mem::replace(&mut self.scratch, Scratch::new());
        if !scratch.mid_step {
            self.core.file_pending(&mut scratch);
        }
        scratch.pending.clear();
        scratch.tree.clear();
        scratch.touched.clear();
        scratch.opened.clear();
        scratch.closed.clear();
        scratch.rebuild = false;
        scratch.mid_step = false;
        self.core.scratch = scratch;
    }
}

/// The core of a collection: both chains, the ledger, and the book of
/// places, behind a few operations.
pub(crate) struct Core<E: Entry, B: Book<E>> {
    max_level: u16,
    /// Whether every Z is taken (fixed-point) or only the levels (simple).
    every_z: bool,
    levels: Levels<E>,
    tree: Tree<E>,
    ledger: Ledger,
    len: usize,
    book: B,
    scratch: Scratch<E>,
}

impl<E: Entry, B: Book<E>> Core<E, B> {
    /// An empty core with levels `0..=max_level`; `prune_after` is `Some`
    /// for a fixed-point core and `None` for a simple one.
    pub(crate) fn new(max_level: u16, prune_after: Option<u32>, book: B) -> Result<Self, ZError> {
        if max_level > MAX_LEVEL {
            return Err(ZError::MaxLevelTooLarge { max_level });
        }
        if prune_after == Some(0) {
            return Err(ZError::ZeroPruneThreshold);
        }
        let every_z = prune_after.is_some();
        let buckets = usize::from(max_level) + 1 + usize::from(every_z);
        Ok(Core {
            max_level,
            every_z,
            levels: Levels::new(max_level, buckets),
            tree: Tree::new(),
            ledger: Ledger::new(prune_after.unwrap_or(1)),
            len: 0,
            book,
            scratch: Scratch::new(),
        })
    }

    #[inline]
    pub(crate) fn len(&self) -> usize {
        self.len
    }

    pub(crate) fn max_level(&self) -> u16 {
        self.max_level
    }

    pub(crate) fn prune_after(&self) -> Option<u32> {
        self.every_z.then(|| self.ledger.prune_after())
    }

    pub(crate) fn nonoptimized_buckets(&self) -> usize {
        self.ledger.buckets()
    }

    #[inline]
    pub(crate) fn book(&self) -> &B {
        &self.book
    }

    #[inline]
    pub(crate) fn book_mut(&mut self) -> &mut B {
        &mut self.book
    }

    /// Where an entry at `z` goes, or why it cannot.
    #[inline]
    fn target(&self, z: I16F16) -> Result<Target, ZError> {
        let bits = z.to_bits();
        if let Some(level) = optimized_level(z, self.max_level) {
            Ok(Target::Bucket(level, bits))
        } else if !self.every_z {
            Err(ZError::ZOutOfRange {
                z,
                max_level: self.max_level,
            })
        } else if z == DEFAULT_Z {
            Ok(Target::Bucket(usize::from(self.max_level) + 1, bits))
        } else {
            Ok(Target::Tree(bits))
        }
    }

    /// Where an entry at `z` goes, if it can go now: its layout takes `z`
    /// and there is room.
    fn room_for(&self, z: I16F16) -> Result<Target, ZError> {
        let target = self.target(z)?;
        let room = match target {
            Target::Bucket(..) => self.levels.has_room(1),
            Target::Tree(_) => self.tree.has_room(1),
        };
        if room {
            Ok(target)
        } else {
            Err(ZError::CapacityOverflow)
        }
    }

    /// Whether `count` more entries can be filed, whatever their Z.
    pub(crate) fn has_room(&self, count: usize) -> bool {
        self.levels.has_room(count) && self.tree.has_room(count)
    }

    /// Whether an entry at `z` would be taken now; nothing changes.
    pub(crate) fn check_z(&self, z: I16F16) -> Result<(), ZError> {
        self.room_for(z).map(|_| ())
    }

    /// Where the entry for which `is` holds is, if the book's `place`
    /// for it is right.
    #[inline]
    pub(crate) fn find(&self, place: Place, is: impl Fn(&E) -> bool) -> Option<At> {
        let Some(Spot::Leaf { chain, leaf, hint }) = place.spot() else {
            return None;
        };
        let slot = match chain {
            Chain::Levels => self.levels.find(leaf, hint, is),
            Chain::Tree => self.tree.find(leaf, hint, is),
        }?;
        // (In a block of the level chain the slot is exact.)
        Some(At { chain, leaf, slot })
    }

    /// [`find`](Self::find) for a batch's step: the search of a tree leaf
    /// inlined into the batch's loop (see [`Tree::find`]).
    #[inline(always)]
    fn find_in_batch(&self, place: Place, entry: &E) -> Option<At> {
        match place.spot() {
            Some(Spot::Leaf {
                chain: Chain::Tree,
                leaf,
                hint,
            }) => {
                let slot = self
                    .tree
                    .find_inlined(leaf, hint, |held| held.same(entry))?;
                Some(At {
                    chain: Chain::Tree,
                    leaf,
                    slot,
                })
            }
            _ => self.find(place, |held| held.same(entry)),
        }
    }

    /// Where `entry` is, if this core holds it.
    #[inline]
    pub(crate) fn locate(&self, entry: &E) -> Option<At> {
        self.find(self.book.get(entry), |held| held.same(entry))
    }

    /// The Z an entry is filed at.
    #[inline]
    pub(crate) fn z_at(&self, at: At) -> I16F16 {
        let bits = match at.chain {
            Chain::Levels => self.levels.block(at.leaf).z(at.slot),
            Chain::Tree => self.tree.leaf(at.leaf).z(at.slot),
        };
        I16F16::from_bits(bits)
    }

    /// The entry at `at`.
    pub(crate) fn entry_at(&self, at: At) -> &E {
        match at.chain {
            Chain::Levels => self.levels.block(at.leaf).get(at.slot),
            Chain::Tree => self.tree.leaf(at.leaf).get(at.slot),
        }
    }

    /// Files `entry` at `z`, after every entry at or below `z`.
    #[inline]
    pub(crate) fn file(&mut self, z: I16F16, entry: E) -> Result<(), ZError> {
        let target = self.room_for(z)?;
        if let Some(opened) = self.put(target, entry) {
            self.ledger.apply(&[opened], &[]);
        }
        Ok(())
    }

    /// Takes the entry at `at` out, and returns it with the Z it had.
    #[inline]
    pub(crate) fn unfile(&mut self, at: At) -> (E, I16F16) {
        let (entry, z, closed) = self.take(at);
        if let Some(closed) = closed {
            self.ledger.apply(&[], &[closed]);
        }
        (entry, I16F16::from_bits(z))
    }

    /// Refiles the entry at `at` at `z`, after every entry at or below
    /// `z`, even when `z` is the Z it had; on error nothing changes.
    pub(crate) fn refile(&mut self, at: At, z: I16F16) -> Result<(), ZError> {
        let target = self.room_for(z)?;
        let (entry, _, closed) = self.take(at);
        let opened = self.put(target, entry);
        // A run that closes and opens again at once never waited.
        if opened != closed {
            let opened = opened.as_slice();
            let closed = closed.as_slice();
            self.ledger.apply(opened, closed);
        }
        Ok(())
    }

    /// Files an entry; returns the Z bits of the run it opened in the tree.
    #[inline]
    fn put(&mut self, target: Target, entry: E) -> Option<i32> {
        self.len += 1;
        match target {
            Target::Bucket(bucket, z) => {
                self.levels.insert(z, bucket, entry, &mut self.book);
                None
            }
            Target::Tree(z) => self.tree.insert(z, entry, &mut self.book).then_some(z),
        }
    }

    /// Unfiles an entry; returns it, its Z bits, and the Z bits of the run
    /// it closed in the tree.
    #[inline]
    fn take(&mut self, at: At) -> (E, i32, Option<i32>) {
        self.len -= 1;
        match at.chain {
            Chain::Levels => {
                let (entry, z) = self.levels.remove(at.leaf, at.slot, &mut self.book);
                (entry, z, None)
            }
            Chain::Tree => {
                let removed = self.tree.remove(at.leaf, at.slot, &mut self.book);
                let closed = removed.run_gone.then_some(removed.z);
                (removed.entry, removed.z, closed)
            }
        }
    }

    /// Applies a batch as one operation: the same order as the steps one
    /// by one would give (a later step for an entry replaces an earlier
    /// one), with one merge of each tree leaf the batch files into, or one
    /// rebuild of the tree if it takes out and files there a quarter of a
    /// leaf's slots per leaf; and one rebuild of the level chain once the
    /// batch has changed a quarter of it (at least [`REBUILD_MIN`] steps),
    /// or from the start if the iterator's lower bound on its steps is
    /// that many. Every
    /// unfiled entry, and every handle a step passed in that the core does
    /// not keep, goes to `release`, which runs no user code (the `Rc`
    /// faces keep the handles, to drop them after the batch; keys need
    /// nothing). A refused step changes nothing. If the iterator panics,
    /// the steps it gave before take effect and the core stays sound.
    pub(crate) fn apply(
        &mut self,
        steps: impl IntoIterator<Item = Step<E>>,
        mut release: impl FnMut(E),
    ) -> Applied {
        let mut steps = steps.into_iter().peekable();
        if steps.peek().is_none() {
            return Applied::default();
        }
        let scratch = core::mem::replace(&mut self.scratch, Scratch::new());
        let mut batch = Batch {
            core: self,
            scratch,
        };
        let Batch { core, scratch } = &mut batch;
        let applied = core.take_steps(&mut steps, &mut release, scratch);
        // (Dropping `batch` files what the steps left pending.)
        drop(batch);
        applied
    }

    /// The first half of a batch: takes the steps in call order, unfiles
    /// what they move or remove, files the level entries (unless the
    /// level chain waits for a rebuild), and marks the others pending.
    /// Between two steps the core is ready for
    /// [`file_pending`](Self::file_pending).
    fn take_steps(
        &mut self,
        steps: &mut dyn Iterator<Item = Step<E>>,
        release: &mut impl FnMut(E),
        scratch: &mut Scratch<E>,
    ) -> Applied {
        let mut applied = Applied::default();
        let Scratch {
            pending,
            touched,
            rebuild,
            mid_step,
            ..
        } = scratch;
        // Whether the level chain is rebuilt: once a batch has taken a
        // share of its entries out, the rest leave their slots as they are;
        // from the first step if the batch says it has that many steps.
        *rebuild = {
            let (steps, _) = steps.size_hint();
            // (A lower bound is only a hint: an iterator may claim any.)
            steps >= REBUILD_MIN && steps.saturating_mul(REBUILD_SHARE) >= self.levels.len()
        };
        let mut level_steps = 0;
        // Steps for which the room check below cannot fail: after `i`
        // steps at most `i` entries are pending and at most `i` level
        // entries were filed, each taking at most a block; the tree takes
        // no node until the merge.
        let certain = BATCH_STEPS
            .min(self.levels.room() / 2)
            .min(self.tree.room());
        // In call order: unfile what the steps move or remove; file the
        // level entries, and mark the others pending in the book.
        for i in 0.. {
            // (The caller's iterator runs between two steps.)
            *mid_step = false;
            let Some(step) = steps.next() else { break };
            *mid_step = true;
            let (entry, z) = match step {
                Step::File(entry, z) => (entry, Some(z)),
                Step::Unfile(entry) => (entry, None),
            };
            // Room to file every pending entry (each may take a leaf): past
            // 2^28 entries or a billion steps, the rest is refused.
            let room = i < certain
                || (pending.len() < BATCH_STEPS
                    && self.levels.has_room(pending.len() + 1)
                    && self.tree.has_room(pending.len() + 1));
            let target = match z.map(|z| self.target(z)) {
                Some(Ok(target)) if room => Some(target),
                None if room => None,
                _ => {
                    release(entry);
                    applied.refused += 1;
                    continue;
                }
            };
            let place = self.book.get(&entry);
            let held = match place.spot() {
                None => None,
                Some(Spot::Pending { step }) => {
                    let earlier = &mut pending[step].1;
                    if !earlier.as_ref().is_some_and(|held| held.same(&entry)) {
                        // Another entry's place (keys: another generation).
                        release(entry);
                        applied.refused += 1;
                        continue;
                    }
                    earlier.take()
                }
                Some(Spot::Leaf { .. }) => match self.find_in_batch(place, &entry) {
                    // Out of the tree without closing the hole, so the
                    // places of the entries the batch still looks up stay
                    // exact.
                    Some(at) => {
                        self.len -= 1;
                        Some(match at.chain {
                            Chain::Levels if *rebuild => {
                                self.levels.take_for_rebuild(at.leaf, at.slot).0
                            }
                            Chain::Levels => {
                                level_steps += 1;
                                *rebuild = level_steps >= REBUILD_MIN
                                    && level_steps * REBUILD_SHARE >= self.levels.len();
                                self.levels.remove(at.leaf, at.slot, &mut self.book).0
                            }
                            Chain::Tree => self.tree.take_later(at.leaf, at.slot, touched).0,
                        })
                    }
                    None if self.book_holds_other(place, &entry) => {
                        release(entry);
                        applied.refused += 1;
                        continue;
                    }
                    None => None,
                },
            };
            let was_held = held.is_some();
            let entry = match (target, held) {
                (Some(_), Some(held)) => {
                    applied.refiled += 1;
                    release(entry);
                    held
                }
                (Some(_), None) => {
                    applied.filed += 1;
                    entry
                }
                (None, Some(held)) => {
                    self.book.set(&held, Place::NOWHERE);
                    applied.unfiled += 1;
                    release(held);
                    release(entry);
                    continue;
                }
                (None, None) => {
                    release(entry);
                    continue;
                }
            };
            match target {
                // A level entry is filed at once, in call order, as one by
                // one (the level chain orders only entries of one Z, and
                // a later step for it finds it where it is)...
                Some(Target::Bucket(bucket, bits)) if !*rebuild => {
                    level_steps += 1;
                    self.len += 1;
                    self.levels.insert(bits, bucket, entry, &mut self.book);
                    *rebuild = level_steps >= REBUILD_MIN
                        && level_steps * REBUILD_SHARE >= self.levels.len();
                }
                // ... unless the chain waits for its rebuild; a tree entry
                // waits for the merge.
                _ => {
                    let target = target.expect("a step that files has a target");
                    let place = Place::pending(pending.len());
                    if was_held {
                        self.book.moved(&entry, place);
                    } else {
                        self.book.set(&entry, place);
                    }
                    pending.push((target, Some(entry)));
                }
            }
        }
        applied
    }

    /// The second half of a batch: closes the holes the steps left in the
    /// tree, files what they left pending (the level chain's share in one
    /// rebuild, the tree's in one merge), and tells the ledger.
    fn file_pending(&mut self, scratch: &mut Scratch<E>) {
        let Scratch {
            pending,
            tree,
            radix,
            level_keys,
            merge,
            touched,
            opened,
            closed,
            maybe_on,
            nodes,
            counts,
            rebuild,
            mid_step: _,
        } = scratch;
        // File what waits: the level chain's share in one rebuild, the
        // tree's in one merge, each sorted by Z then call order.
        for (order, (target, entry)) in pending.iter().enumerate() {
            if entry.is_none() {
                continue;
            }
            self.len += 1;
            // (Steps are below `BATCH_STEPS`, and buckets below 2^16, so
            // they fit.)
            match *target {
                Target::Bucket(bucket, _) => level_keys.push((bucket as u32, order as u32)),
                Target::Tree(bits) => tree.push((radix::z_key(bits), order as u32)),
            }
        }
        // The tree is rebuilt in one pass if the batch takes out and files
        // there, together, a quarter of a leaf's slots for each leaf or
        // more (a sixth of its entries moving, in leaves that are
        // three-quarters full), else the leaves it took from are closed and
        // then merged with what it files, leaf by leaf.
        let taken: usize = touched
            .iter()
            .map(|&(_, leaf)| self.tree.leaf(leaf).dead.count_ones() as usize)
            .sum();
        let touches = taken + tree.len();
        let rebuild_tree = touches > 0 && 4 * touches >= LEAF_SLOTS * self.tree.leaves.live();
        if !rebuild_tree {
            self.tree
                .settle_taken(touched, radix, closed, maybe_on, &mut self.book);
        }
        if *rebuild {
            // By bucket, and in call order (the order they were pushed) in
            // a bucket: a counting sort if there are not many more buckets
            // than entries, else a radix sort.
            let buckets = self.levels.buckets();
            if buckets <= 2 * level_keys.len() {
                counts.clear();
                counts.resize(buckets + 1, 0);
                for &(bucket, _) in level_keys.iter() {
                    counts[bucket as usize + 1] += 1;
                }
                for i in 1..counts.len() {
                    counts[i] += counts[i - 1];
                }
                // (What `radix` held is overwritten, never read.)
                radix.resize(level_keys.len(), (0, 0));
                for &(bucket, order) in level_keys.iter() {
                    let at = &mut counts[bucket as usize];
                    radix[*at as usize] = (bucket, order);
                    *at += 1;
                }
                core::mem::swap(level_keys, radix);
            } else {
                radix::sort_by_key(level_keys, radix, |&(bucket, _)| bucket);
            }
            let new = level_keys.drain(..).map(|(_, order)| {
                let (target, entry) = &mut pending[order as usize];
                (target.bits(), entry.take().expect("each entry once"))
            });
            self.levels.rebuild(new, &mut self.book);
        }
        debug_assert!(
            level_keys.is_empty(),
            "level entries wait only for a rebuild"
        );
        // By Z, and in call order (the order they were pushed) at one Z.
        radix::sort_by_key(tree, radix, |&(bits, _)| bits);
        let items = tree.drain(..).map(|(bits, order)| {
            let entry = pending[order as usize].1.take();
            (radix::key_z(bits), entry.expect("a pending tree entry"))
        });
        if rebuild_tree {
            self.tree
                .rebuild(items, &mut self.book, opened, closed, touched, nodes);
        } else {
            self.tree
                .insert_sorted(items, &mut self.book, opened, merge);
        }
        // Pruning sees one operation: a run emptied and refilled by it never
        // waited. (Both lists are sorted: `opened` by the merge.)
        debug_assert!(closed.is_sorted() && opened.is_sorted());
        let (mut o, mut c) = (0, 0);
        let (mut opened_only, mut closed_only) = (0, 0);
        while o < opened.len() || c < closed.len() {
            match (opened.get(o), closed.get(c)) {
                (Some(a), Some(b)) if a == b => {
                    o += 1;
                    c += 1;
                }
                (Some(&a), Some(&b)) if a < b => {
                    opened[opened_only] = a;
                    opened_only += 1;
                    o += 1;
                }
                (Some(&a), None) => {
                    opened[opened_only] = a;
                    opened_only += 1;
                    o += 1;
                }
                (_, Some(&b)) => {
                    closed[closed_only] = b;
                    closed_only += 1;
                    c += 1;
                }
                (None, None) => unreachable!(),
            }
        }
        if opened_only + closed_only > 0 {
            self.ledger
                .apply(&opened[..opened_only], &closed[..closed_only]);
        }
    }

    /// Whether `place`, where the book says an entry is, holds another
    /// entry: the entry is then refused (a key's index another generation
    /// holds), not filed anew.
    fn book_holds_other(&self, place: Place, entry: &E) -> bool {
        self.find(place, |held| held.shares_place(entry)).is_some()
    }

    /// The nodes of both chains, for walks.
    fn chains(&self) -> Chains<'_, E> {
        Chains {
            blocks: &self.levels.blocks,
            leaves: &self.tree.leaves,
        }
    }

    /// A walk over everything.
    fn whole(&self) -> Walk<'_, E> {
        Walk::new(
            self.chains(),
            Ends::whole(
                [self.levels.first, self.levels.last],
                [self.tree.first, self.tree.last],
                self.len,
            ),
        )
    }

    /// A counting walk over every entry: it ticks the pruning clock.
    #[inline]
    pub(crate) fn walk(&self) -> Walk<'_, E> {
        self.ledger.tick();
        self.whole()
    }

    /// A walk over every entry that does not count for pruning.
    #[inline]
    pub(crate) fn quiet_walk(&self) -> Walk<'_, E> {
        self.whole()
    }

    /// A quiet walk over the entries whose Z is in `range`.
    pub(crate) fn range(&self, range: impl RangeBounds<I16F16>) -> Walk<'_, E> {
        let low = match range.start_bound() {
            Bound::Included(z) => i64::from(z.to_bits()),
            Bound::Excluded(z) => i64::from(z.to_bits()) + 1,
            Bound::Unbounded => i64::MIN,
        };
        let high = match range.end_bound() {
            Bound::Included(z) => i64::from(z.to_bits()),
            Bound::Excluded(z) => i64::from(z.to_bits()) - 1,
            Bound::Unbounded => i64::MAX,
        };
        if low > high || self.len == 0 {
            return Walk::new(self.chains(), Ends::empty());
        }
        let up = (
            self.levels.first_at_or_above(low),
            self.tree.first_at_or_above(low),
        );
        let down = (
            self.levels.last_at_or_below(high),
            self.tree.last_at_or_below(high),
        );
        Walk::new(self.chains(), Ends::range(up, down, low, high))
    }

    /// Walks quietly from the back (or the front, if `front_to_back`) and
    /// asks `visit` what to do with each entry, until it says to stop;
    /// pushes each decision other than `keep`, with a handle of its entry,
    /// onto `decided`, in visiting order. Nothing changes: the caller
    /// applies the decisions. Returns how many entries were visited.
    pub(crate) fn decide<A: PartialEq>(
        &self,
        front_to_back: bool,
        keep: A,
        decided: &mut Vec<(E, A)>,
        mut visit: impl FnMut(&E, I16F16) -> ControlFlow<A, A>,
    ) -> usize
    where
        E: Clone,
    {
        let mut walk = self.quiet_walk();
        let mut visited = 0;
        loop {
            let next = if front_to_back {
                walk.next_down::<true>()
            } else {
                walk.next_up::<true>()
            };
            let Some((entry, z)) = next else { break };
            visited += 1;
            let (decision, stop) = match visit(entry, I16F16::from_bits(z)) {
                ControlFlow::Continue(decision) => (decision, false),
                ControlFlow::Break(decision) => (decision, true),
            };
            if decision != keep {
                decided.push((entry.clone(), decision));
            }
            if stop {
                break;
            }
        }
        visited
    }

    /// The back-most entry and its Z.
    pub(crate) fn first(&self) -> Option<(&E, I16F16)> {
        let (entry, z) = self.quiet_walk().next_up::<true>()?;
        Some((entry, I16F16::from_bits(z)))
    }

    /// The front-most entry and its Z.
    pub(crate) fn last(&self) -> Option<(&E, I16F16)> {
        let (entry, z) = self.quiet_walk().next_down::<true>()?;
        Some((entry, I16F16::from_bits(z)))
    }

    /// Gives back the memory batches keep between them.
    pub(crate) fn release_scratch(&mut self) {
        self.scratch = Scratch::new();
    }

    /// Takes every entry out at once: the core is left empty (its book
    /// untouched), and the entries come out of the returned value, from
    /// either end.
    pub(crate) fn detach(&mut self) -> Detached<E> {
        let empty = self.levels.emptied();
        let levels = core::mem::replace(&mut self.levels, empty);
        let tree = core::mem::replace(&mut self.tree, Tree::new());
        self.ledger.clear();
        let len = core::mem::take(&mut self.len);
        Detached::new(
            levels.blocks,
            tree.leaves,
            [levels.first, levels.last],
            [tree.first, tree.last],
            len,
        )
    }

    /// Room for `additional` more entries: the directories and free lists
    /// of the chains' leaves for as many leaves as they could need (each
    /// leaf is its own allocation), and the ledger's records for the
    /// buckets they could leave waiting.
    ///
    /// # Errors
    ///
    /// [`ZError::CapacityOverflow`] past [`MAX_ENTRIES`](place::MAX_ENTRIES)
    /// entries, or if the memory cannot be had (then some of it may be
    /// reserved, and nothing else changed).
    pub(crate) fn try_reserve(&mut self, additional: usize) -> Result<(), ZError> {
        let total = self
            .len
            .checked_add(additional)
            .filter(|&total| total <= place::MAX_ENTRIES)
            .ok_or(ZError::CapacityOverflow)?;
        let leaves = additional.div_ceil(leaf::MIN_FILL);
        let fail = |_| ZError::CapacityOverflow;
        self.levels.blocks.try_reserve(leaves).map_err(fail)?;
        if self.every_z {
            self.tree.try_reserve(leaves).map_err(fail)?;
            self.ledger.try_reserve(total).map_err(fail)?;
        }
        Ok(())
    }

    /// Gives back the memory the entries do not need: both chains are
    /// rewritten in full nodes (the book learns every entry's new place),
    /// and the records of pruned buckets, spare nodes and unused capacity
    /// go.
    pub(crate) fn shrink_to_fit(&mut self) {
        self.levels.shrink_to_fit(&mut self.book);
        self.tree.shrink_to_fit(&mut self.book);
        self.ledger.shrink_to_fit();
        self.scratch = Scratch::new();
    }

    /// Makes pruning behave as if `walks` counting walks had found a
    /// bucket waiting all along.
    #[cfg(any(test, feature = "check"))]
    pub(crate) fn pretend_walks(&mut self, walks: u64) {
        self.ledger.pretend_walks(walks);
    }

    /// Checks every invariant (tests and fuzzing), and returns every entry
    /// with its place, for the caller to check its book against.
    #[cfg(any(test, feature = "check"))]
    pub(crate) fn check(&self) -> Vec<(&E, Place)> {
        let mut places: Vec<(&E, Place)> = self
            .levels
            .check()
            .into_iter()
            .map(|(entry, _, place)| (entry, place))
            .collect();
        let tree = self.tree.check();
        let mut runs = 0;
        for (i, &(entry, z, place)) in tree.iter().enumerate() {
            if i == 0 || tree[i - 1].1 != z {
                runs += 1;
            }
            let value = I16F16::from_bits(z);
            assert!(
                self.every_z
                    && value != DEFAULT_Z
                    && optimized_level(value, self.max_level).is_none(),
                "only other Z values are in the tree"
            );
            places.push((entry, place));
        }
        self.ledger.check(runs);
        assert_eq!(places.len(), self.len, "the core counts its entries");
        // Walks reach every entry, from both ends.
        let count = |count, _: &E, _| count + 1;
        assert_eq!(self.quiet_walk().fold_up::<false, _>(0, count), self.len);
        assert_eq!(self.quiet_walk().fold_down::<false, _>(0, count), self.len);
        places
    }
}
