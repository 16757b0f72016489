//! Scenarios: collections, entries and the operations to run on them, as
//! the quickcheck properties and the fuzz targets generate them, from one
//! decoder of bytes (so a fuzz input and a quickcheck case mean the same
//! thing, and a failure of either replays in the other).

use std::fmt;
use std::ops::Bound;

use arbitrary::{Arbitrary, Unstructured};
use zorder::{DEFAULT_Z, I16F16};

use crate::model::{Layout, MAX_LEVEL};

/// What an object's hostile code does when it runs (its `z_order`, or its
/// `Drop`).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Act {
    /// Nothing unusual.
    Nothing,
    /// Panics (a `Drop` does not panic while already unwinding).
    Panic,
    /// Adds object `obj` to collection `c` (re-entering another collection;
    /// the collection running the operation is busy and is left alone).
    Add {
        /// The collection.
        c: usize,
        /// The object.
        obj: usize,
    },
    /// Removes object `obj` from collection `c`.
    Remove {
        /// The collection.
        c: usize,
        /// The object.
        obj: usize,
    },
    /// Changes object `obj` in collection `c` (at the Z it reports).
    Change {
        /// The collection.
        c: usize,
        /// The object.
        obj: usize,
    },
}

/// One step of a scenario. `c` names a collection and `obj` an entry (an
/// object, or a key), each taken modulo how many there are; `z` is a Z.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
#[allow(missing_docs)] // the fields are named above
pub enum Op {
    /// Sets the entry's Z, then adds (inserts) it.
    Add { c: usize, obj: usize, z: I16F16 },
    /// Sets the entry's Z, then re-files it (`change`, `set_z`).
    Change { c: usize, obj: usize, z: I16F16 },
    /// Re-files the entry at the Z it has (`change` at an unchanged Z,
    /// `refile`).
    Refile { c: usize, obj: usize },
    /// Removes the entry.
    Remove { c: usize, obj: usize },
    /// Walks back to front.
    BackToFront { c: usize },
    /// Walks front to back.
    FrontToBack { c: usize },
    /// Walks from both ends at once, meeting in the middle, cloning the
    /// walk midway.
    BothEnds { c: usize },
    /// Nested walks: an outer walk, and whole inner walks the other way at a
    /// few of its steps.
    Pairs { c: usize },
    /// Removes everything.
    Clear { c: usize },
    /// Takes everything out, from the ends `how` picks (see
    /// [`check_mixed`](crate::check_mixed)); with its top bit set, drops
    /// the iterator halfway (the rest goes with it).
    Drain { c: usize, how: u8 },
    /// The rest of the API, chosen by `what`: printing (which is no
    /// traversal), `shrink_to_fit`, reserving, `retain` (keeping the
    /// entries whose bit in `what` is set), and owned iteration (the
    /// collection consumed and replaced by a new one of the same layout).
    Inspect { c: usize, what: u8 },
    /// Moves everything of `from` to `to`.
    Append { from: usize, to: usize },
    /// An in-walk update: each visited entry is kept, removed or re-filed
    /// (at `z`), decided by `pattern` and its rank in the walk; the walk
    /// stops after `stop` visits if `stop` is not 0.
    Update {
        c: usize,
        pattern: u8,
        z: I16F16,
        front_to_back: bool,
        stop: u8,
    },
    /// Keys: the storage reuses the entry's index (a new generation), so
    /// the held key goes stale. Objects: ignored.
    NewGeneration { obj: usize },
    /// Keys: the next key operation on the entry uses its previous
    /// generation (a stale key). Objects: ignored.
    Stale { obj: usize },
    /// Objects: what the object's `z_order` does from now on.
    OnZOrder { obj: usize, act: Act },
    /// Objects: what the object's `Drop` does.
    OnDrop { obj: usize, act: Act },
    /// Objects: the test lets go of its handle, so only a collection holds
    /// the object (if one does), and drops it when it lets go.
    Orphan { obj: usize },
    /// Keys: `insert_or_set_z`. Objects: the porting idiom, `change` if
    /// the collection holds the object, else `add`.
    Upsert { c: usize, obj: usize, z: I16F16 },
    /// Keys: `set_z_if_changed`, to `z`, or to the Z the key has if `None`.
    /// Objects: `change` (at `z`), or a re-file.
    ChangeIfNew {
        c: usize,
        obj: usize,
        z: Option<I16F16>,
    },
    /// Keys: `replace` (whatever key holds the index goes). Objects: `add`.
    Replace { c: usize, obj: usize, z: I16F16 },
    /// Walks the entries whose Z is within the bounds, taking from the
    /// ends `how` picks; a lookup, not a traversal.
    Range {
        c: usize,
        start: Bound<I16F16>,
        end: Bound<I16F16>,
        how: u8,
    },
    /// `first` and `last`.
    Ends { c: usize },
    /// Keys: clones collection `c` into slot `to` (replacing what was
    /// there, `c` itself included), compares collections with `==`, and
    /// collects one from `c`'s pairs (`FromIterator`). Objects: as
    /// [`Ends`](Op::Ends).
    CloneEq { c: usize, to: usize },
    /// Many changes at once: keys through `apply` or `extend`, objects
    /// through `change_all`.
    Batch(Batch),
}

impl Op {
    /// The collection and the entry of an operation on one entry (an add,
    /// change, re-file, removal, upsert, move-if-changed or replace).
    pub fn entry(self) -> Option<(usize, usize)> {
        match self {
            Op::Add { c, obj, .. }
            | Op::Change { c, obj, .. }
            | Op::Refile { c, obj }
            | Op::Remove { c, obj }
            | Op::Upsert { c, obj, .. }
            | Op::ChangeIfNew { c, obj, .. }
            | Op::Replace { c, obj, .. } => Some((c, obj)),
            _ => None,
        }
    }
}

/// A batch of changes to one collection, built like the bulk steps from a
/// few bytes: step `k` concerns entry `start + k * stride` (modulo the
/// entries, so a long batch comes round and changes an entry twice), and
/// does what the two bits of `pattern` at `k % 8` say: 0 files it at `z`,
/// 1 at `z` plus `k` times `step`, 2 removes it, 3 files it at `other`.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
#[allow(missing_docs)] // the fields are named above
pub struct Batch {
    pub c: usize,
    pub start: usize,
    pub stride: usize,
    pub count: usize,
    pub pattern: u16,
    pub z: I16F16,
    pub step: i32,
    pub other: I16F16,
    /// Keys: through `extend` (the removals left out) rather than
    /// `apply`. Objects: ignored (`change_all` re-files; for a removal
    /// the object is re-filed at the Z it reports).
    pub extend: bool,
}

impl Batch {
    /// The changes, among `objects` entries: each entry, and the Z to file
    /// it at (`None`: remove it).
    pub fn changes(self, objects: usize) -> impl Iterator<Item = (usize, Option<I16F16>)> {
        (0..self.count).map(move |k| {
            let obj = (self.start + k * self.stride) % objects;
            let z = match (self.pattern >> (k % 8 * 2)) & 3 {
                0 => Some(self.z),
                1 => Some(spread(self.z, self.step, k)),
                2 => None,
                _ => Some(self.other),
            };
            (obj, z)
        })
    }
}

/// The `k`-th of Z values `step` apart from `z` (wrapping).
fn spread(z: I16F16, step: i32, k: usize) -> I16F16 {
    I16F16::from_bits(z.to_bits().wrapping_add(step.wrapping_mul(k as i32)))
}

/// Where the keys of a keyed scenario lie: the key index of entry `id`.
/// Far from the other keys, an index goes to the key table's far chunks
/// (runs) or its map of single keys, not its near array; every third
/// entry keeps its own small index, so they mix.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Indices {
    /// Index `id`: all dense.
    Dense,
    /// Counting down from `u64::MAX`.
    NearMax,
    /// Counting up from `1 << 40`.
    Above2Pow40,
    /// Counting up from just below `u32::MAX`, across `1 << 32`.
    AcrossU32Max,
    /// Index `id * 64`: the first ones in the dense array, the rest
    /// hashed, side by side.
    Spread,
}

impl Indices {
    /// Just below `u32::MAX`, so entries cross it.
    const BELOW_U32_MAX: u64 = u32::MAX as u64 - 64;

    /// The key index of entry `id`.
    pub fn index(self, id: usize) -> u64 {
        let id = id as u64;
        match self {
            Indices::Dense => id,
            Indices::Spread => id << 6,
            _ if id % 3 == 0 => id,
            Indices::NearMax => u64::MAX - id,
            Indices::Above2Pow40 => (1 << 40) + id,
            Indices::AcrossU32Max => Self::BELOW_U32_MAX + id,
        }
    }

    /// The entry whose key index is `index` (for entries numbered below
    /// `u32::MAX - 64`).
    pub fn id(self, index: u64) -> usize {
        let id = match self {
            Indices::Dense => index,
            Indices::Spread => index >> 6,
            _ if index < Self::BELOW_U32_MAX => index,
            Indices::NearMax => u64::MAX - index,
            Indices::Above2Pow40 => index - (1 << 40),
            Indices::AcrossU32Max => index - Self::BELOW_U32_MAX,
        };
        id as usize
    }
}

/// Which collections a scenario uses.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Kinds {
    /// One fixed-point collection.
    Fixed,
    /// One simple collection.
    Simple,
    /// Two or three, of either layout, sharing the entries.
    Mixed,
}

/// Collections, entries and the operations to run on them.
#[derive(Clone)]
pub struct Scenario {
    /// As decoded, settings checked and made valid by the harness.
    pub layouts: Vec<Layout>,
    /// How many entries.
    pub objects: usize,
    /// Whether both orders and every invariant are checked after every
    /// step (else at walks and at the end).
    pub check_every_step: bool,
    /// Whether the objects may be hostile (`Rc` collections only).
    pub hostile: bool,
    /// Where the keys lie (keyed collections only).
    pub indices: Indices,
    /// The operations.
    pub ops: Vec<Op>,
}

impl fmt::Debug for Scenario {
    /// One op a line, so a failure reads as a test case.
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        writeln!(f, "layouts: {:?}", self.layouts)?;
        writeln!(f, "objects: {}", self.objects)?;
        writeln!(f, "check_every_step: {}", self.check_every_step)?;
        writeln!(f, "hostile: {}", self.hostile)?;
        writeln!(f, "indices: {:?}", self.indices)?;
        writeln!(f, "ops ({}):", self.ops.len())?;
        for op in &self.ops {
            writeln!(f, "    {op:?},")?;
        }
        Ok(())
    }
}

/// Decoded steps at most: an input stays small and cheap to run (a
/// longer one mostly repeats what shorter ones reach).
pub const MAX_STEPS: usize = 32;
/// Operations at most, bulk steps expanded and each change of a batch
/// counted: bounds an input's cost.
pub const MAX_OPS: usize = 128;
/// Entries a bulk step touches at most: enough to fill a bucket's blocks
/// (32 slots each) and a tree of three levels and more (fuzzing builds use
/// leaves of 8 slots and inner nodes of 8 children).
const BULK: usize = 80;
/// Entries at most: enough to fill several blocks of a bucket and several
/// leaves of the tree.
pub const MAX_OBJECTS: usize = 160;
/// Z values remembered for reuse, so buckets are joined, emptied, refilled
/// and pruned.
const PALETTE: usize = 8;

fn layout(u: &mut Unstructured<'_>, simple: bool) -> arbitrary::Result<Layout> {
    // Mostly small; sometimes past the first bitmap words; rarely any
    // value, invalid ones included (the harness checks the refusal, then
    // uses a valid one). Rarely, because a large layout's level table is
    // the costliest thing an input can ask for.
    let max_level = match u8::arbitrary(u)? % 64 {
        0..=3 => 0,
        4 => u16::arbitrary(u)?,
        5..=7 => u16::arbitrary(u)? % 320,
        _ => u16::from(u8::arbitrary(u)? % 40),
    };
    Ok(if simple {
        Layout::Simple { max_level }
    } else {
        Layout::Fixed {
            max_level,
            prune_after: u32::from(u8::arbitrary(u)? % 9),
        }
    })
}

/// A Z often at an edge that selects a different path: levels, `max_level`
/// and one above, the default Z, `MIN`, `±DELTA`, fractions around a
/// level, negatives, distinct values (isometric y-sort, particles), and Z
/// values used before.
fn weighted_z(
    u: &mut Unstructured<'_>,
    max_level: u16,
    palette: &mut Vec<I16F16>,
) -> arbitrary::Result<I16F16> {
    let level = i32::from(u16::arbitrary(u)? % (max_level.min(200) + 2));
    let bits = match u8::arbitrary(u)? % 16 {
        0..=2 => level << 16,
        3 => i32::from(max_level) << 16,
        4 => (i32::from(max_level) + 1) << 16,
        5 => DEFAULT_Z.to_bits(),
        6 => *u.choose(&[I16F16::MIN.to_bits(), 1, -1, i32::MAX - 1])?,
        7 => (level << 16) + *u.choose(&[1, -1, 1 << 15, 1 << 14])?,
        8 => -(level << 16) - *u.choose(&[0, 1 << 15])?,
        9..=11 => {
            if let Some(&z) = palette.get(usize::from(u8::arbitrary(u)?) % PALETTE) {
                return Ok(z);
            }
            level << 16
        }
        12..=14 => (level << 16) + i32::from(u16::arbitrary(u)?),
        _ => i32::arbitrary(u)?,
    };
    let z = I16F16::from_bits(bits);
    if palette.len() < PALETTE {
        palette.push(z);
    } else {
        palette[usize::from(u8::arbitrary(u)?) % PALETTE] = z;
    }
    Ok(z)
}

impl Scenario {
    /// Decodes a scenario of the given kinds from bytes.
    pub fn decode(
        u: &mut Unstructured<'_>,
        kinds: Kinds,
        hostile: bool,
    ) -> arbitrary::Result<Self> {
        let layouts = match kinds {
            Kinds::Fixed => vec![layout(u, false)?],
            Kinds::Simple => vec![layout(u, true)?],
            Kinds::Mixed => {
                let n = 2 + usize::from(u8::arbitrary(u)? % 2);
                (0..n)
                    .map(|_| {
                        let simple = bool::arbitrary(u)?;
                        layout(u, simple)
                    })
                    .collect::<arbitrary::Result<_>>()?
            }
        };
        // Mostly few entries (cheap inputs), sometimes enough to fill
        // several blocks and leaves.
        let objects = match u8::arbitrary(u)? {
            n if n < 64 => 24 + usize::from(u8::arbitrary(u)?) % (MAX_OBJECTS - 23),
            n => 1 + usize::from(n) % 24,
        };
        // One byte: its low two bits say whether every step is checked,
        // the next three where the keys lie (half the time, dense).
        let flags = u8::arbitrary(u)?;
        let check_every_step = flags % 4 == 0;
        let indices = match (flags >> 2) % 8 {
            0..=3 => Indices::Dense,
            4 => Indices::NearMax,
            5 => Indices::Above2Pow40,
            6 => Indices::AcrossU32Max,
            _ => Indices::Spread,
        };
        let max_level = layouts
            .iter()
            .map(|l| l.max_level().min(MAX_LEVEL))
            .max()
            .unwrap_or(0);
        let mut palette = Vec::with_capacity(PALETTE);
        let mut ops = Vec::new();
        let n = layouts.len();
        // Steps decoded, and operations with each change of a batch counted.
        let (mut steps, mut cost) = (0, 0);
        while !u.is_empty() && steps < MAX_STEPS && cost < MAX_OPS {
            steps += 1;
            let c = usize::from(u8::arbitrary(u)?) % n;
            // Ops on a whole collection take the entry's byte as a pattern.
            let raw = u8::arbitrary(u)?;
            let obj = usize::from(raw) % objects;
            let mut z = |u: &mut Unstructured<'_>| weighted_z(u, max_level, &mut palette);
            let op = match u8::arbitrary(u)? % 64 {
                0..=15 => Op::Add { c, obj, z: z(u)? },
                16..=25 => Op::Change { c, obj, z: z(u)? },
                26..=27 => Op::Refile { c, obj },
                28 => Op::Inspect {
                    c,
                    what: u8::arbitrary(u)?,
                },
                29..=36 => Op::Remove { c, obj },
                37..=39 => Op::BackToFront { c },
                40 => Op::FrontToBack { c },
                41..=42 => Op::BothEnds { c },
                43 => Op::Pairs { c },
                44 => Op::Clear { c },
                45 => Op::Drain { c, how: raw },
                46 => Op::Append {
                    from: c,
                    to: usize::from(u8::arbitrary(u)?) % n,
                },
                47..=49 => Op::Update {
                    c,
                    pattern: u8::arbitrary(u)?,
                    z: z(u)?,
                    front_to_back: bool::arbitrary(u)?,
                    stop: u8::arbitrary(u)? % 8,
                },
                50..=51 => Op::NewGeneration { obj },
                52..=53 => Op::Stale { obj },
                54..=57 if hostile => Op::OnZOrder {
                    obj,
                    act: act(u, n, objects)?,
                },
                58..=61 if hostile => Op::OnDrop {
                    obj,
                    act: act(u, n, objects)?,
                },
                62..=63 if hostile => Op::Orphan { obj },
                54..=55 => Op::Upsert { c, obj, z: z(u)? },
                56..=57 => Op::ChangeIfNew {
                    c,
                    obj,
                    z: if bool::arbitrary(u)? {
                        Some(z(u)?)
                    } else {
                        None
                    },
                },
                58 | 63 => Op::Replace { c, obj, z: z(u)? },
                59..=60 => range(u, c, &mut z)?,
                61 => Op::Ends { c },
                _ => Op::CloneEq {
                    c,
                    to: usize::from(raw) % n,
                },
            };
            ops.push(op);
            cost += 1;
            // A bulk step: many entries at once, so that a short input
            // reaches full blocks and deep trees; or a batch of as many.
            let count = objects.min(BULK).min(MAX_OPS.saturating_sub(cost));
            let bulk = u8::arbitrary(u)? % 32;
            if bulk > 7 {
                continue;
            }
            let start = usize::from(u8::arbitrary(u)?);
            let z = z(u)?;
            let step = *u.choose(&[1, 1 << 15, 1 << 16, -(1 << 14), 3 << 16])?;
            if bulk > 3 {
                let room = MAX_OPS.saturating_sub(cost);
                let extend = bulk == 7;
                let batch = batch(u, c, start, z, step, &mut palette, max_level, room, extend)?;
                cost += batch.count;
                ops.push(Op::Batch(batch));
                continue;
            }
            cost += count;
            ops.extend((0..count).map(|k| {
                let obj = (start + k) % objects;
                match bulk {
                    // A crowd: one Z, so a bucket spans blocks.
                    0 => Op::Add { c, obj, z },
                    // A spread: a Z each, a step apart (isometric y-sort,
                    // particles), so the tree splits leaves and inner nodes.
                    1 => Op::Add {
                        c,
                        obj,
                        z: spread(z, step, k),
                    },
                    // A march: entries re-filed a step apart, as a y-sorted
                    // world moves.
                    2 => Op::Change {
                        c,
                        obj,
                        z: spread(z, step, k),
                    },
                    // A sweep: removals in a row, so blocks empty, leaves
                    // merge and buckets wait.
                    _ => Op::Remove { c, obj },
                }
            }));
        }
        Ok(Scenario {
            layouts,
            objects,
            check_every_step,
            hostile,
            indices,
            ops,
        })
    }
}

/// A range of Z values: each bound included, excluded or absent; often
/// around one Z, so the bounds fall on a bucket's edges.
fn range(
    u: &mut Unstructured<'_>,
    c: usize,
    z: &mut impl FnMut(&mut Unstructured<'_>) -> arbitrary::Result<I16F16>,
) -> arbitrary::Result<Op> {
    let kinds = u8::arbitrary(u)?;
    let low = z(u)?;
    let high = if kinds >= 0xC0 {
        let delta = *u.choose(&[0, 1, 1 << 15, 1 << 16])?;
        I16F16::from_bits(low.to_bits().saturating_add(delta))
    } else {
        z(u)?
    };
    let bound = |kind: u8, z| match kind % 3 {
        0 => Bound::Included(z),
        1 => Bound::Excluded(z),
        _ => Bound::Unbounded,
    };
    Ok(Op::Range {
        c,
        start: bound(kinds, low),
        end: bound(kinds / 3, high),
        how: u8::arbitrary(u)?,
    })
}

/// A batch starting at entry `start`, at `z` and Z values `step` apart
/// from it, of at most `room` changes (and at least one): mostly a mix of
/// inserts, moves and removals, sometimes all of one kind.
#[allow(clippy::too_many_arguments)]
fn batch(
    u: &mut Unstructured<'_>,
    c: usize,
    start: usize,
    z: I16F16,
    step: i32,
    palette: &mut Vec<I16F16>,
    max_level: u16,
    room: usize,
    extend: bool,
) -> arbitrary::Result<Batch> {
    let count = 1 + usize::from(u8::arbitrary(u)?) % BULK.min(room.max(1));
    let stride = *u.choose(&[1, 1, 2, 7])?;
    let mixed = u16::arbitrary(u)?;
    // All at `z`; all spread; all removed; spread and removed in turn.
    let pattern = *u.choose(&[mixed, mixed, 0, 0x5555, 0xAAAA, 0x6666])?;
    Ok(Batch {
        c,
        start,
        stride,
        count,
        pattern,
        z,
        step,
        other: weighted_z(u, max_level, palette)?,
        extend,
    })
}

fn act(u: &mut Unstructured<'_>, collections: usize, objects: usize) -> arbitrary::Result<Act> {
    let c = usize::from(u8::arbitrary(u)?) % collections;
    let obj = usize::from(u8::arbitrary(u)?) % objects;
    Ok(match u8::arbitrary(u)? % 6 {
        0 => Act::Nothing,
        1 => Act::Panic,
        2..=3 => Act::Add { c, obj },
        4 => Act::Remove { c, obj },
        _ => Act::Change { c, obj },
    })
}

/// A scenario from quickcheck: random bytes through the same decoder, and
/// shrinking by dropping operations.
#[derive(Clone, Debug)]
pub struct QuickScenario<const KINDS: u8, const HOSTILE: bool>(pub Scenario);

impl<const KINDS: u8, const HOSTILE: bool> quickcheck::Arbitrary for QuickScenario<KINDS, HOSTILE> {
    fn arbitrary(g: &mut quickcheck::Gen) -> Self {
        let len = 8 + <usize as quickcheck::Arbitrary>::arbitrary(g) % (g.size() * 8).max(16);
        let bytes: Vec<u8> = (0..len)
            .map(|_| <u8 as quickcheck::Arbitrary>::arbitrary(g))
            .collect();
        let kinds = match KINDS {
            0 => Kinds::Fixed,
            1 => Kinds::Simple,
            _ => Kinds::Mixed,
        };
        let scenario = Scenario::decode(&mut Unstructured::new(&bytes), kinds, HOSTILE)
            .expect("decoding never fails on a short input");
        QuickScenario(scenario)
    }

    fn shrink(&self) -> Box<dyn Iterator<Item = Self>> {
        let scenario = self.0.clone();
        let len = scenario.ops.len();
        // Halves, then single operations.
        let chunks = [len / 2, len / 4, 1].into_iter().filter(|&c| c > 0);
        let cuts: Vec<(usize, usize)> = chunks
            .flat_map(|chunk| (0..len).step_by(chunk).map(move |start| (start, chunk)))
            .collect();
        Box::new(cuts.into_iter().map(move |(start, chunk)| {
            let mut smaller = scenario.clone();
            let end = (start + chunk).min(smaller.ops.len());
            smaller.ops.drain(start..end);
            QuickScenario(smaller)
        }))
    }
}
