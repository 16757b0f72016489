//! What zorder's tests, quickcheck properties and fuzz targets share: the
//! contract model ([`model`]), the operations they generate ([`ops`]), and
//! the harnesses that run real collections and the model side by side and
//! check them after every step ([`keyed`], [`rc`]).
//!
//! The fuzz targets and the quickcheck properties call the same entry
//! points ([`fuzz`]), so a fuzz input and a quickcheck case mean the same
//! thing, and `tests/fuzz_corpus.rs` replays the committed fuzz corpus on
//! stable `cargo test`. The programs that measure memory count the
//! allocator's calls with [`counting`].

pub mod counting;
pub mod keyed;
pub mod model;
pub mod ops;
pub mod rc;

use model::{Layout, MAX_LEVEL};
use zorder::ZError;

/// Entries at most in a collection the harnesses print whole: printing is
/// the same code at any length, and formatting is costly under the
/// fuzzer's instrumentation.
pub const PRINTED: usize = 16;

/// A deterministic stream of 64-bit values (xorshift64) from `seed`
/// (not zero): the random choices of a test, the same on every run.
pub fn xorshift(seed: u64) -> impl FnMut() -> u64 {
    let mut state = seed;
    move || {
        state ^= state << 13;
        state ^= state >> 7;
        state ^= state << 17;
        state
    }
}

/// The layout a harness uses for `layout`: if `layout` is invalid, checks
/// that `build` refuses it with the right error, then makes it valid.
pub fn valid_layout<T>(layout: Layout, build: impl Fn(Layout) -> Result<T, ZError>) -> Layout {
    let fixed = match layout {
        Layout::Fixed {
            max_level,
            prune_after,
        } => Layout::Fixed {
            max_level: max_level.min(MAX_LEVEL),
            prune_after: prune_after.max(1),
        },
        Layout::Simple { max_level } => Layout::Simple {
            max_level: max_level.min(MAX_LEVEL),
        },
    };
    if fixed != layout {
        let error = build(layout).err().expect("an invalid layout is refused");
        let max_level = layout.max_level();
        let expected = if max_level > MAX_LEVEL {
            ZError::MaxLevelTooLarge { max_level }
        } else {
            ZError::ZeroPruneThreshold
        };
        assert_eq!(error, expected, "{layout:?}");
        Shown::default().check(&Err::<(), _>(error));
    }
    fixed
}

/// What an in-walk update does with the entry it visits `rank`-th (from
/// 1): 0 keep, 1 remove, 2 re-file at the update's Z, 3 re-file at its own
/// Z; and whether the walk stops there.
pub fn effect(pattern: u8, rank: usize, stop: u8) -> (u8, bool) {
    let effect = (pattern >> (rank % 4 * 2)) & 3;
    (effect, stop != 0 && rank == usize::from(stop))
}

/// The error variants a run has shown as a user sees them (`Display`).
///
/// Each variant is shown once a run, at its first error: formatting is
/// costly under the fuzzer's instrumentation, and a second error of the
/// same variant goes through the same code.
#[derive(Debug, Default)]
pub struct Shown(Vec<std::mem::Discriminant<ZError>>);

impl Shown {
    /// Shows `result`'s error, if it is one and its variant is new to this
    /// run: never empty, and a refused Z with its exact bits.
    pub fn check<T>(&mut self, result: &Result<T, ZError>) {
        let Err(error) = result else { return };
        let variant = std::mem::discriminant(error);
        if self.0.contains(&variant) {
            return;
        }
        self.0.push(variant);
        let shown = error.to_string();
        assert!(!shown.is_empty(), "{error:?}");
        if let ZError::ZOutOfRange { z, .. } = error {
            assert!(shown.contains(&format!("{:#010x}", z.to_bits())), "{shown}");
            assert_eq!(
                shown.contains("DEFAULT_Z"),
                *z == zorder::DEFAULT_Z,
                "{shown}"
            );
        }
    }
}

/// Walks `walk` from both ends at once, meeting in the middle, with a
/// clone taken midway walked from either end, and compares with `expected`.
pub fn check_both_ends<I>(mut walk: I, expected: &[I::Item])
where
    I: DoubleEndedIterator + ExactSizeIterator + Clone,
    I::Item: PartialEq + std::fmt::Debug + Clone,
{
    let (mut front, mut back) = (Vec::new(), Vec::new());
    loop {
        assert_eq!(walk.len(), expected.len() - front.len() - back.len());
        // A clone walks on from the same place. At the start, by `next`
        // and by `rfold`; once each end has moved, by `next_back` and by
        // `fold`; an eighth of the way in, by `fold` and `rfold` (the main
        // walk covers `next` and `next_back` from there).
        let clones: &[By] = match front.len() {
            0 => &[By::Next, By::RFold],
            1 => &[By::NextBack, By::Fold],
            n if n == expected.len() / 8 => &[By::Fold, By::RFold],
            _ => &[],
        };
        let rest = &expected[front.len()..expected.len() - back.len()];
        for &clone in clones {
            let push = |mut v: Vec<I::Item>, item| {
                v.push(item);
                v
            };
            let mut seen = match clone {
                By::Next => walk.clone().collect(),
                By::NextBack => walk.clone().rev().collect(),
                By::Fold => walk.clone().fold(Vec::new(), push),
                By::RFold => walk.clone().rfold(Vec::new(), push),
            };
            if matches!(clone, By::NextBack | By::RFold) {
                seen.reverse();
            }
            assert_eq!(seen, rest, "a clone, by {clone:?}");
        }
        let Some(item) = walk.next() else { break };
        front.push(item);
        let Some(item) = walk.next_back() else { break };
        back.push(item);
    }
    assert!(walk.next().is_none() && walk.next_back().is_none(), "fused");
    back.reverse();
    front.extend(back);
    assert_eq!(front, expected);
}

/// Walks `walk` to its end (or drops it after `stop` items), taking each
/// item from the back if the bit of `how` at its rank (modulo 8) is set,
/// else from the front, and compares with `expected`. At every step the
/// size hint must hold what is left: exactly, if `exact` (an owned
/// iterator), else within its bounds (a range). At the end the walk must
/// stay ended at both ends.
pub fn check_mixed<I>(mut walk: I, expected: &[I::Item], how: u8, stop: Option<usize>, exact: bool)
where
    I: DoubleEndedIterator,
    I::Item: PartialEq + std::fmt::Debug,
{
    let (mut front, mut back) = (0, expected.len());
    for rank in 0.. {
        if stop == Some(rank) {
            return;
        }
        let left = back - front;
        let (low, high) = walk.size_hint();
        if exact {
            assert_eq!((low, high), (left, Some(left)), "the exact size");
        } else {
            assert!(
                low <= left && high.is_none_or(|high| high >= left),
                "the size hint"
            );
        }
        let from_back = (how >> (rank % 8)) & 1 == 1;
        let item = if from_back {
            walk.next_back()
        } else {
            walk.next()
        };
        let Some(item) = item else {
            assert_eq!(left, 0, "the walk ended early ({rank} taken)");
            break;
        };
        assert!(left > 0, "the walk goes on past its end: {item:?}");
        if from_back {
            back -= 1;
            assert_eq!(item, expected[back], "from the back, at {back}");
        } else {
            assert_eq!(item, expected[front], "from the front, at {front}");
            front += 1;
        }
    }
    assert!(walk.next().is_none() && walk.next_back().is_none(), "fused");
}

/// How [`check_both_ends`] walks a clone.
#[derive(Debug, Clone, Copy)]
enum By {
    Next,
    NextBack,
    Fold,
    RFold,
}

/// Nested walks: an outer walk compared with `expected`, and at a few of
/// its steps (the first two, the middle one, the last) a whole inner walk
/// the other way, while the outer one is held. Returns how many walks
/// started. A few inner walks rather than one at every step keep an input's
/// cost linear in its entries.
pub fn check_nested<O, I>(outer: O, inner: impl Fn() -> I, expected: &[O::Item]) -> u64
where
    O: Iterator,
    I: Iterator<Item = O::Item>,
    O::Item: PartialEq + std::fmt::Debug + Clone,
{
    let n = expected.len();
    let reversed: Vec<O::Item> = expected.iter().rev().cloned().collect();
    let (mut walks, mut seen) = (1, 0);
    for (i, item) in outer.enumerate() {
        assert_eq!(Some(&item), expected.get(i), "the outer walk");
        seen += 1;
        if i <= 1 || i == n / 2 || i + 1 == n {
            walks += 1;
            assert_eq!(inner().collect::<Vec<_>>(), reversed, "an inner walk");
        }
    }
    assert_eq!(seen, n, "the outer walk's length");
    walks
}

/// The entry points the fuzz targets and the corpus test share: each
/// decodes a scenario from bytes and runs it.
pub mod fuzz {
    use arbitrary::Unstructured;

    use crate::keyed::KeyedHarness;
    use crate::ops::{Kinds, Scenario};
    use crate::rc::RcHarness;

    /// A scenario checked cheaply after every step (counts, the entry
    /// touched), with full orders at walks and everything at the end: fast
    /// enough for fuzzing, with no check quadratic in the input.
    fn scenario(bytes: &[u8], kinds: Kinds, hostile: bool) -> Option<Scenario> {
        let mut scenario = Scenario::decode(&mut Unstructured::new(bytes), kinds, hostile).ok()?;
        scenario.check_every_step = false;
        Some(scenario)
    }

    /// One fixed-point `Rc` collection.
    pub fn fixed_point_ops(bytes: &[u8]) {
        if let Some(s) = scenario(bytes, Kinds::Fixed, false) {
            RcHarness::run(&s);
        }
    }

    /// One simple `Rc` collection.
    pub fn simple_ops(bytes: &[u8]) {
        if let Some(s) = scenario(bytes, Kinds::Simple, false) {
            RcHarness::run(&s);
        }
    }

    /// Two or three `Rc` collections sharing hostile objects.
    pub fn cross_collection(bytes: &[u8]) {
        if let Some(s) = scenario(bytes, Kinds::Mixed, true) {
            RcHarness::run(&s);
        }
    }

    /// One to three keyed collections sharing generational keys.
    pub fn keyed_ops(bytes: &[u8]) {
        let kinds = match bytes.first().map(|b| b % 3) {
            Some(0) => Kinds::Fixed,
            Some(1) => Kinds::Simple,
            _ => Kinds::Mixed,
        };
        if let Some(s) = scenario(bytes.get(1..).unwrap_or_default(), kinds, false) {
            KeyedHarness::run(&s);
        }
    }
}
