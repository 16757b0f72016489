//! What the fuzz targets run, reachable from stable `cargo test`: each
//! `fuzz/fuzz_targets/<target>.rs` calls the function of the same name here,
//! and `tests/fuzz_corpus.rs` replays the committed corpus and crash
//! artifacts through those very functions, so a bug found once stays fixed
//! without nightly.
//!
//! Both include this file by path beside `common/mod.rs`, and reach the
//! model and harness as `crate::common`:
//!
//! ```ignore
//! #[path = "../../tests/common/mod.rs"]
//! mod common;
//! #[path = "../../tests/common/fuzz_input.rs"]
//! mod fuzz_input;
//! ```
//!
//! The operation targets decode their bytes into a [`Scenario`] (collection
//! kinds, object count, a list of [`Op`]s) and run it through [`Harness`],
//! which checks everything observable against the `(z, seq)` model after
//! every step. Z values are weighted towards the edges that select different
//! code paths: optimized levels, `max_level` and just above it, the default
//! Z, `MIN`, fractions, negatives, and Z values already used (so buckets are
//! joined, emptied, refilled and pruned).

#![allow(dead_code)] // each fuzz target uses one part

use std::cell::Cell;
use std::fmt;

use arbitrary::{Arbitrary, Unstructured};
use zorder::replay::{CollectionKind, LineError, Replay, ReplayConfig, ReplayError, parse_line};
use zorder::{
    DEFAULT_Z, FixedPointZCollection, I16F16, MAX_LEVEL_LIMIT, SimpleZCollection, ZError,
};

use crate::common::{Harness, Kind, Model, Op};

/// Keeps one input fast: longer inputs only repeat what shorter ones reach.
const MAX_OPS: usize = 512;
/// Objects per scenario: enough for a bucket to span several blocks of
/// slots (32 each), so crowds fill, drain, compact and merge them.
const MAX_OBJECTS: u8 = 100;
/// Z values remembered for reuse.
const PALETTE: usize = 8;

/// Collections, objects and the operations to run on them.
#[derive(Clone)]
pub struct Scenario {
    /// As decoded; `run` checks that the constructors refuse the invalid
    /// ones before it replaces them with valid settings.
    pub kinds: Vec<Kind>,
    pub objects: usize,
    /// Whether both orders are checked after every step (see [`Harness`]).
    pub check_order: bool,
    pub ops: Vec<Op>,
}

impl fmt::Debug for Scenario {
    /// One op per line, so `cargo fuzz fmt` output reads as a test case.
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        writeln!(f, "kinds: {:?}", self.kinds)?;
        writeln!(f, "objects: {}", self.objects)?;
        writeln!(f, "check_order: {}", self.check_order)?;
        writeln!(f, "ops ({}):", self.ops.len())?;
        for op in &self.ops {
            writeln!(f, "    {op:?},")?;
        }
        Ok(())
    }
}

/// Which collections a target fuzzes.
#[derive(Debug, Clone, Copy)]
enum Kinds {
    Fixed,
    Simple,
    Mixed,
}

impl Scenario {
    fn decode(u: &mut Unstructured<'_>, kinds: Kinds) -> arbitrary::Result<Self> {
        let kinds = match kinds {
            Kinds::Fixed => vec![fixed_kind(u)?],
            Kinds::Simple => vec![simple_kind(u)?],
            Kinds::Mixed => {
                let n = 2 + usize::from(u8::arbitrary(u)? % 2);
                (0..n)
                    .map(|_| {
                        if bool::arbitrary(u)? {
                            fixed_kind(u)
                        } else {
                            simple_kind(u)
                        }
                    })
                    .collect::<arbitrary::Result<_>>()?
            }
        };
        let objects = usize::from(1 + u8::arbitrary(u)? % MAX_OBJECTS);
        let check_order = bool::arbitrary(u)?;
        let max_levels: Vec<u16> = kinds.iter().map(|&k| valid(k).max_level()).collect();
        let mut palette = Vec::with_capacity(PALETTE);
        let mut ops = Vec::new();
        while !u.is_empty() && ops.len() < MAX_OPS {
            let c = if kinds.len() > 1 {
                usize::from(u8::arbitrary(u)?) % kinds.len()
            } else {
                0
            };
            let max_level = max_levels[c];
            let obj = usize::from(u8::arbitrary(u)?) % objects;
            let mut z = |u: &mut Unstructured<'_>| weighted_z(u, max_level, &mut palette);
            match u8::arbitrary(u)? % 32 {
                0..=8 => ops.push(Op::Add { c, obj, z: z(u)? }),
                9..=14 => ops.push(Op::Change { c, obj, z: z(u)? }),
                15..=18 => ops.push(Op::Remove { c, obj }),
                19..=21 => ops.push(Op::BackToFront { c }),
                22 => ops.push(Op::FrontToBack { c }),
                23..=24 => ops.push(Op::BothEnds { c }),
                25 => ops.push(Op::Pairs { c }),
                26..=27 => ops.push(Op::Update {
                    c,
                    pattern: u8::arbitrary(u)?,
                    z: z(u)?,
                }),
                28 => ops.push(Op::Clear { c }),
                29 => {
                    // A crowd: every `stride`-th object from `obj` on added
                    // to (or moved to, or removed from) one Z, so buckets
                    // grow past a block and drain in random places.
                    let stride = 1 + usize::from(u8::arbitrary(u)? % 4);
                    let action = u8::arbitrary(u)? % 3;
                    let z = z(u)?;
                    for obj in (obj..objects).step_by(stride) {
                        ops.push(match action {
                            0 => Op::Add { c, obj, z },
                            1 => Op::Change { c, obj, z },
                            _ => Op::Remove { c, obj },
                        });
                    }
                }
                _ => {
                    // A burst of quiet traversals, long enough to pass a
                    // pruning threshold so the bucket bound is checked.
                    let pattern = u8::arbitrary(u)?;
                    for i in 0..=usize::from(pattern % 18) {
                        ops.push(match (pattern >> (i % 4)) & 3 {
                            0 => Op::FrontToBack { c },
                            1 => Op::BothEnds { c },
                            _ => Op::BackToFront { c },
                        });
                    }
                }
            }
        }
        Ok(Scenario {
            kinds,
            objects,
            check_order,
            ops,
        })
    }

    /// Runs the scenario against the model, panicking on the first
    /// difference, then checks no handle leaked.
    pub fn run(&self) {
        let kinds: Vec<Kind> = self.kinds.iter().map(|&k| refused_or_valid(k)).collect();
        let mut harness = if self.check_order {
            Harness::checking_order(&kinds, self.objects)
        } else {
            Harness::new(&kinds, self.objects)
        };
        for &op in &self.ops {
            harness.step(op);
        }
        harness.finish();
    }
}

fn fixed_kind(u: &mut Unstructured<'_>) -> arbitrary::Result<Kind> {
    let max_level = max_level(u)?;
    let pick = u8::arbitrary(u)?;
    let prune_after = match pick {
        0..=239 => 1 + u32::from(pick % 16),
        240..=247 => 0, // refused
        _ => u32::MAX - u32::from(pick % 2),
    };
    Ok(Kind::Fixed {
        max_level,
        prune_after,
    })
}

fn simple_kind(u: &mut Unstructured<'_>) -> arbitrary::Result<Kind> {
    Ok(Kind::Simple {
        max_level: max_level(u)?,
    })
}

/// Mostly small (0..=40), rarely up to about a thousand or at the limit, and
/// now and then anything at all (above the limit is refused). Large levels
/// are rare because every traversal walks every level's bucket.
fn max_level(u: &mut Unstructured<'_>) -> arbitrary::Result<u16> {
    let pick = u8::arbitrary(u)?;
    Ok(match pick {
        0..=250 => u16::from(pick % 41),
        251..=252 => 41 + u16::arbitrary(u)? % 1000,
        253 => MAX_LEVEL_LIMIT,
        _ => MAX_LEVEL_LIMIT + 1 + u16::arbitrary(u)? % (u16::MAX - MAX_LEVEL_LIMIT),
    })
}

/// The kind a scenario with `kind` runs on: `kind` itself if valid (the
/// harness checks the constructor accepts it); otherwise, after checking the
/// constructor refuses it with the right error, a valid one.
fn refused_or_valid(kind: Kind) -> Kind {
    let expected = match kind {
        Kind::Fixed { max_level, .. } | Kind::Simple { max_level }
            if max_level > MAX_LEVEL_LIMIT =>
        {
            ZError::MaxLevelTooLarge { max_level }
        }
        Kind::Fixed { prune_after: 0, .. } => ZError::ZeroPruneThreshold,
        _ => return kind,
    };
    let refusal = match kind {
        Kind::Fixed {
            max_level,
            prune_after,
        } => FixedPointZCollection::<Cell<I16F16>>::with_prune_after(max_level, prune_after).err(),
        Kind::Simple { max_level } => SimpleZCollection::<Cell<I16F16>>::new(max_level).err(),
    };
    assert_eq!(refusal, Some(expected), "constructing {kind:?}");
    valid(kind)
}

/// `kind` with invalid settings replaced by valid ones.
fn valid(kind: Kind) -> Kind {
    let level = |max_level: u16| {
        if max_level > MAX_LEVEL_LIMIT {
            max_level % 41
        } else {
            max_level
        }
    };
    match kind {
        Kind::Fixed {
            max_level,
            prune_after,
        } => Kind::Fixed {
            max_level: level(max_level),
            prune_after: prune_after.max(1),
        },
        Kind::Simple { max_level } => Kind::Simple {
            max_level: level(max_level),
        },
    }
}

/// A Z weighted towards the values that take different paths. Arithmetic
/// wraps on purpose: near the top of the range it yields negatives and
/// `MIN`, which are just as interesting.
fn weighted_z(
    u: &mut Unstructured<'_>,
    max_level: u16,
    palette: &mut Vec<I16F16>,
) -> arbitrary::Result<I16F16> {
    let max = i32::from(max_level);
    let pick = u8::arbitrary(u)? % 16;
    let level = i32::from(u16::arbitrary(u)? % (max_level + 2)); // 0..=max+1
    let natural = |n: i32| n.wrapping_shl(16);
    let bits = match pick {
        0..=3 => natural(level),
        4 => natural(max),
        5 => natural(max + 1 + i32::from(u8::arbitrary(u)? % 4)),
        6 => DEFAULT_Z.to_bits(),
        7 => I16F16::MIN.to_bits(),
        8 => *u.choose(&[
            I16F16::MIN.to_bits() + 1,
            I16F16::MAX.to_bits() - 1,
            I16F16::MAX.to_bits() - 0xFFFF, // MAX.floor(): a natural level
            1,
            -1,
            1 << 15,
            -(1 << 16),
        ])?,
        9 => {
            let frac = *u.choose(&[1, -1, 1 << 15, -(1 << 15), 1 << 14, 3 << 14, 0xFFFF])?;
            natural(level).wrapping_add(frac)
        }
        10 => natural(level)
            .wrapping_neg()
            .wrapping_sub(i32::from(u16::arbitrary(u)? % 4) << 14),
        11 => i32::arbitrary(u)?,
        12..=13 if !palette.is_empty() => {
            let index = usize::from(u8::arbitrary(u)?) % palette.len();
            palette[index].to_bits()
        }
        14 => natural(max + 1 + i32::from(u8::arbitrary(u)?))
            .wrapping_add(i32::from(u16::arbitrary(u)?)),
        _ => natural(i32::from(u16::arbitrary(u)?)),
    };
    let z = I16F16::from_bits(bits);
    if palette.len() < PALETTE {
        palette.push(z);
    } else {
        palette[usize::from(u8::arbitrary(u)?) % PALETTE] = z;
    }
    Ok(z)
}

macro_rules! target_input {
    ($(#[$doc:meta])* $name:ident, $kinds:expr, $run:ident) => {
        $(#[$doc])*
        #[derive(Clone)]
        pub struct $name(pub Scenario);

        impl fmt::Debug for $name {
            fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
                self.0.fmt(f)
            }
        }

        impl<'a> Arbitrary<'a> for $name {
            fn arbitrary(u: &mut Unstructured<'a>) -> arbitrary::Result<Self> {
                Scenario::decode(u, $kinds).map($name)
            }
        }

        /// Decodes `bytes` exactly as `libfuzzer-sys` does for the fuzz
        /// target of this name, and runs the result.
        pub fn $run(bytes: &[u8]) {
            if let Ok(input) = $name::arbitrary_take_rest(Unstructured::new(bytes)) {
                input.0.run();
            }
        }
    };
}

target_input!(
    /// Input of the `fixed_point_ops` target: one fixed-point collection.
    FixedPointOps,
    Kinds::Fixed,
    fixed_point_ops
);
target_input!(
    /// Input of the `simple_ops` target: one simple collection.
    SimpleOps,
    Kinds::Simple,
    simple_ops
);
target_input!(
    /// Input of the `cross_collection` target: two or three collections of
    /// either kind sharing the objects.
    CrossCollection,
    Kinds::Mixed,
    cross_collection
);

/// The replays each trace is run on: the default, a fixed-point collection
/// with few levels that prunes at once (most Z values take the bucket
/// chain), and a simple collection (most Z values are refused).
const TRACE_CONFIGS: [ReplayConfig; 3] = [
    ReplayConfig {
        max_level: 100,
        prune_after: zorder::DEFAULT_PRUNE_AFTER,
        collection: CollectionKind::FixedPoint,
    },
    ReplayConfig {
        max_level: 2,
        prune_after: 1,
        collection: CollectionKind::FixedPoint,
    },
    ReplayConfig {
        max_level: 4,
        prune_after: 1,
        collection: CollectionKind::Simple,
    },
];

/// The `trace_parser` target: `bytes` as a trace, on each of
/// [`TRACE_CONFIGS`]. Must not panic; a malformed line must stop the replay
/// with a [`ReplayError`] naming it; and what the replay prints must be what
/// the model says, line for line.
pub fn trace_parser(bytes: &[u8]) {
    for config in TRACE_CONFIGS {
        check_trace(bytes, config);
    }
}

/// A line the replay should print.
#[derive(Debug)]
enum Expected {
    Exact(String),
    /// `stats len N nonopt_buckets K`: `K` depends on pruning, which the
    /// model does not follow, so only its bounds are known.
    Stats {
        len: usize,
        live: usize,
    },
}

fn check_trace(bytes: &[u8], config: ReplayConfig) {
    let mut replay = Replay::new(config).expect("a valid configuration");
    let mut out = String::new();
    let result = replay.run_bytes(bytes, &mut out);

    // The lines, as documented: split at `\n`, a final `\n` ends the last.
    let body = bytes.strip_suffix(b"\n").unwrap_or(bytes);
    let lines: Vec<&[u8]> = if body.is_empty() {
        Vec::new()
    } else {
        body.split(|&b| b == b'\n').collect()
    };

    // The same lines, one `run_line` at a time, must do the same.
    let mut by_line = Replay::new(config).expect("a valid configuration");
    let mut by_line_out = String::new();
    let by_line_result = lines
        .iter()
        .try_for_each(|line| by_line.run_line(line, &mut by_line_out));
    assert_eq!(by_line_result, result, "run_line agrees with run_bytes");
    assert_eq!(by_line_out, out, "run_line prints what run_bytes prints");

    // What the model says.
    let kind = match config.collection {
        CollectionKind::FixedPoint => Kind::Fixed {
            max_level: config.max_level,
            prune_after: config.prune_after,
        },
        CollectionKind::Simple => Kind::Simple {
            max_level: config.max_level,
        },
    };
    let mut model = Model::new(&[kind]);
    let mut expected = Vec::new();
    let mut malformed = None;
    for (i, line) in lines.iter().enumerate() {
        let line_no = i as u64 + 1;
        let parsed = std::str::from_utf8(line)
            .map_err(|_| LineError::NotUtf8)
            .and_then(parse_line);
        let command = match parsed {
            Ok(Some(command)) => command,
            Ok(None) => continue,
            Err(error) => {
                malformed = Some(ReplayError {
                    line: line_no,
                    error,
                });
                break;
            }
        };
        let id = |id: u64| usize::try_from(id).expect("64-bit usize");
        let outcome = match command {
            zorder::replay::Command::Add { id: i, z } => {
                check_z_spellings(z);
                model.add(0, id(i), z)
            }
            zorder::replay::Command::Change { id: i, z } => {
                check_z_spellings(z);
                model.change(0, id(i), z)
            }
            zorder::replay::Command::Remove { id: i } => model.remove(0, id(i)),
            zorder::replay::Command::BackToFront => {
                let ids = model.collections[0].back_to_front();
                expected.push(Expected::Exact(print_ids("b2f", ids.iter())));
                Ok(())
            }
            zorder::replay::Command::FrontToBack => {
                let ids = model.collections[0].back_to_front();
                expected.push(Expected::Exact(print_ids("f2b", ids.iter().rev())));
                Ok(())
            }
            zorder::replay::Command::Stats => {
                expected.push(Expected::Stats {
                    len: model.collections[0].members.len(),
                    live: model.collections[0].distinct_nonoptimized(),
                });
                Ok(())
            }
        };
        if let Err(error) = outcome {
            expected.push(Expected::Exact(format!("err {line_no} {}", error.code())));
        }
    }

    assert_eq!(result, malformed.clone().map_or(Ok(()), Err), "{config:?}");
    if let Some(error) = malformed {
        assert!(
            error.line >= 1 && error.line <= lines.len() as u64,
            "line {} of {}",
            error.line,
            lines.len()
        );
        let message = error.to_string();
        assert!(
            message.starts_with(&format!("line {}: ", error.line)),
            "{message}"
        );
    }

    assert!(
        out.is_empty() || out.ends_with('\n'),
        "whole lines: {out:?}"
    );
    let printed: Vec<&str> = out.lines().collect();
    assert_eq!(printed.len(), expected.len(), "{config:?}: {out:?}");
    for (line, expected) in printed.iter().zip(&expected) {
        match expected {
            Expected::Exact(text) => assert_eq!(line, text, "{config:?}"),
            Expected::Stats { len, live } => {
                let words: Vec<&str> = line.split(' ').collect();
                let ["stats", "len", real_len, "nonopt_buckets", buckets] = words[..] else {
                    panic!("malformed stats line {line:?}");
                };
                assert_eq!(real_len.parse::<usize>(), Ok(*len), "{line}");
                let buckets: usize = buckets.parse().expect("a count");
                match kind {
                    Kind::Simple { .. } => assert_eq!(buckets, 0, "{line}"),
                    Kind::Fixed { .. } => assert!(buckets >= *live, "{line}: {live} live"),
                }
            }
        }
    }
}

/// Every Z a trace names can also be spelled `raw:<bits>` and as its exact
/// decimal, and both read back as the same Z.
///
/// The exact decimal has 16 fractional digits (2^-16 needs all 16). `fixed`'s
/// own formatting rounds: it prints bits 6553 and 6554 both as `0.1` (even
/// with `{:.16}`), which parses as 6554. That was the crash in
/// `fuzz/artifacts/trace_parser/`: a wrong expectation in this harness, not
/// a parser bug.
fn check_z_spellings(z: I16F16) {
    let raw = format!("raw:{}", z.to_bits());
    assert_eq!(zorder::replay::parse_z_value(&raw), Some(z), "{raw}");
    let decimal = exact_decimal(z);
    assert_eq!(
        zorder::replay::parse_z_value(&decimal),
        Some(z),
        "{decimal}"
    );
}

/// `z` in decimal, digit for digit: 2^-16 is 152587890625 * 10^-16.
fn exact_decimal(z: I16F16) -> String {
    let bits = i64::from(z.to_bits());
    let sign = if bits < 0 { "-" } else { "" };
    let magnitude = bits.unsigned_abs();
    let fraction = (magnitude & 0xFFFF) * 152_587_890_625;
    format!("{sign}{}.{fraction:016}", magnitude >> 16)
}

fn print_ids<'a>(word: &str, ids: impl Iterator<Item = &'a usize>) -> String {
    let mut line = String::from(word);
    for id in ids {
        line.push_str(&format!(" {id}"));
    }
    line
}
