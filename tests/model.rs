//! Model-based properties (quickcheck): random operation sequences run
//! against the `(z, seq)` model of CONTRACT.md, on both collections, in both
//! directions, errors included, with the non-optimized bucket bound checked
//! after every step. Contract points 1 to 6 are all exercised here; shrinking
//! reduces a failure to a short list of readable operations.

mod common;

use common::{Harness, Kind, Op, z};
use quickcheck::{Arbitrary, Gen, QuickCheck};
use zorder::{DEFAULT_Z, I16F16};

/// Fewer cases under Miri, which is about a thousand times slower; the same
/// properties still run.
fn cases() -> u64 {
    if cfg!(miri) { 4 } else { 600 }
}

#[derive(Debug, Clone)]
struct Scenario {
    kinds: Vec<Kind>,
    objects: usize,
    /// Whether both orders are checked after every step.
    check_order: bool,
    ops: Vec<AnyOp>,
}

#[derive(Clone)]
struct AnyOp(Op);

impl std::fmt::Debug for AnyOp {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        self.0.fmt(f)
    }
}

/// A Z that is often an edge: levels, `max_level` and one above, the default
/// Z, `MIN`, `±DELTA`, fractions just around a level, negatives, and any
/// bits at all.
fn edge_z(g: &mut Gen, max_level: u16) -> I16F16 {
    let level = i32::from(u16::arbitrary(g) % (max_level + 2));
    let bits = match u8::arbitrary(g) % 12 {
        0..=3 => level << 16,
        4 => i32::from(max_level) << 16,
        5 => (i32::from(max_level) + 1) << 16,
        6 => DEFAULT_Z.to_bits(),
        7 => *g
            .choose(&[I16F16::MIN.to_bits(), 1, -1, i32::MAX - 1])
            .unwrap(),
        8 => (level << 16) + *g.choose(&[1, -1, 1 << 15, 1 << 14]).unwrap(),
        9 => -(level << 16) - *g.choose(&[0, 1 << 15]).unwrap(),
        10 => i32::arbitrary(g),
        _ => (level << 16) + 3 * (1 << 14),
    };
    I16F16::from_bits(bits)
}

impl Scenario {
    fn generate(g: &mut Gen, kinds: Vec<Kind>) -> Self {
        let objects = 1 + usize::arbitrary(g) % 8;
        let max_level = kinds.iter().map(|k| k.max_level()).max().unwrap();
        let len = usize::arbitrary(g) % 60;
        let ops = (0..len)
            .map(|_| {
                let c = usize::arbitrary(g) % kinds.len();
                let obj = usize::arbitrary(g) % objects;
                let z = edge_z(g, max_level);
                AnyOp(match u8::arbitrary(g) % 16 {
                    0..=3 => Op::Add { c, obj, z },
                    4..=6 => Op::Change { c, obj, z },
                    7..=8 => Op::Remove { c, obj },
                    9..=10 => Op::BackToFront { c },
                    11 => Op::FrontToBack { c },
                    12 => Op::BothEnds { c },
                    13 => Op::Pairs { c },
                    14 => Op::Update {
                        c,
                        pattern: u8::arbitrary(g),
                        z,
                    },
                    _ => Op::Clear { c },
                })
            })
            .collect();
        Scenario {
            kinds,
            objects,
            check_order: bool::arbitrary(g),
            ops,
        }
    }

    /// Many objects on three Z values, so buckets span several blocks of
    /// slots and fill, drain, compact and merge them; both orders checked
    /// after every step.
    fn crowded(g: &mut Gen, kind: Kind) -> Self {
        let objects = 40 + usize::arbitrary(g) % 90;
        let zs = match kind {
            Kind::Fixed { .. } => [z(1.0), z(0.5), DEFAULT_Z],
            Kind::Simple { .. } => [z(0.0), z(1.0), z(1.0)],
        };
        let len = usize::arbitrary(g) % if cfg!(miri) { 60 } else { 400 };
        let ops = (0..len)
            .map(|_| {
                let obj = usize::arbitrary(g) % objects;
                let z = *g.choose(&zs).unwrap();
                AnyOp(match u8::arbitrary(g) % 20 {
                    0..=6 => Op::Add { c: 0, obj, z },
                    7..=11 => Op::Change { c: 0, obj, z },
                    12..=17 => Op::Remove { c: 0, obj },
                    18 => Op::Update {
                        c: 0,
                        pattern: u8::arbitrary(g),
                        z,
                    },
                    _ => Op::BothEnds { c: 0 },
                })
            })
            .collect();
        Scenario {
            kinds: vec![kind],
            objects,
            check_order: true,
            ops,
        }
    }

    fn run(&self) -> bool {
        let mut harness = if self.check_order {
            Harness::checking_order(&self.kinds, self.objects)
        } else {
            Harness::new(&self.kinds, self.objects)
        };
        for op in &self.ops {
            harness.step(op.0);
        }
        harness.finish();
        true
    }
}

fn fixed(g: &mut Gen) -> Kind {
    Kind::Fixed {
        max_level: u16::arbitrary(g) % 12,
        prune_after: 1 + u32::arbitrary(g) % 4,
    }
}

fn simple(g: &mut Gen) -> Kind {
    Kind::Simple {
        max_level: u16::arbitrary(g) % 12,
    }
}

macro_rules! scenario_type {
    ($name:ident, |$g:ident| => $scenario:expr) => {
        #[derive(Debug, Clone)]
        struct $name(Scenario);

        impl Arbitrary for $name {
            fn arbitrary($g: &mut Gen) -> Self {
                $name($scenario)
            }

            fn shrink(&self) -> Box<dyn Iterator<Item = Self>> {
                let base = self.0.clone();
                Box::new(shrink_ops(&base.ops).map(move |ops| {
                    $name(Scenario {
                        ops,
                        ..base.clone()
                    })
                }))
            }
        }
    };
    ($name:ident, |$g:ident| $kinds:expr) => {
        scenario_type!($name, |$g| => {
            let kinds = $kinds;
            Scenario::generate($g, kinds)
        });
    };
}

/// Shorter operation lists: halves, then single removals.
fn shrink_ops(ops: &[AnyOp]) -> impl Iterator<Item = Vec<AnyOp>> + use<> {
    let ops = ops.to_vec();
    let n = ops.len();
    let halves = if n > 1 {
        vec![ops[..n / 2].to_vec(), ops[n / 2..].to_vec()]
    } else {
        vec![]
    };
    halves.into_iter().chain((0..n).map(move |i| {
        let mut fewer = ops.clone();
        fewer.remove(i);
        fewer
    }))
}

scenario_type!(FixedScenario, |g| vec![fixed(g)]);
scenario_type!(CrowdedFixedScenario, |g| => {
    let kind = fixed(g);
    Scenario::crowded(g, kind)
});
scenario_type!(CrowdedSimpleScenario, |g| => Scenario::crowded(g, Kind::Simple { max_level: 1 }));
scenario_type!(SimpleScenario, |g| vec![simple(g)]);
scenario_type!(MixedScenario, |g| {
    let n = 2 + usize::arbitrary(g) % 2;
    (0..n)
        .map(|_| {
            if bool::arbitrary(g) {
                fixed(g)
            } else {
                simple(g)
            }
        })
        .collect::<Vec<_>>()
});

#[test]
fn fixed_point_collection_matches_the_model() {
    QuickCheck::new()
        .tests(cases())
        .quickcheck((|s: FixedScenario| s.0.run()) as fn(FixedScenario) -> bool);
}

#[test]
fn crowded_fixed_point_buckets_match_the_model() {
    QuickCheck::new()
        .tests(cases() / 4)
        .quickcheck((|s: CrowdedFixedScenario| s.0.run()) as fn(CrowdedFixedScenario) -> bool);
}

#[test]
fn crowded_simple_buckets_match_the_model() {
    QuickCheck::new()
        .tests(cases() / 4)
        .quickcheck((|s: CrowdedSimpleScenario| s.0.run()) as fn(CrowdedSimpleScenario) -> bool);
}

#[test]
fn simple_collection_matches_the_model() {
    QuickCheck::new()
        .tests(cases())
        .quickcheck((|s: SimpleScenario| s.0.run()) as fn(SimpleScenario) -> bool);
}

#[test]
fn objects_moving_between_collections_match_the_model() {
    QuickCheck::new()
        .tests(cases())
        .quickcheck((|s: MixedScenario| s.0.run()) as fn(MixedScenario) -> bool);
}
