//! What the `trace_parser` fuzz target runs, reachable from stable tests:
//! `fuzz/fuzz_targets/trace_parser.rs` calls [`trace_parser`], and
//! `tests/fuzz_corpus.rs` replays the committed corpus and any crash
//! artifacts through it.
//!
//! Each input is replayed on three configurations and checked against
//! models written from the format's and the contract's text, apart from the
//! code they check: a line splitter, a parser of each line, a parser of Z
//! values in exact integer arithmetic, and, for the collection, the
//! contract model every collection of the crate is checked against
//! (`zorder_testkit::model`: each object's `(Z, sequence number of its last
//! Z-action)` and the pruning rule of the contract). The replay also runs
//! three ways (the whole input at once, line by line, and through the
//! command-line tool reading it in small irregular pieces), which must
//! agree.
//!
//! Every check costs time linear in the input and the output: nothing is
//! sorted or searched per command beyond a hash lookup and a `BTreeSet`
//! step.

use std::collections::HashMap;
use std::io::{self, BufReader, Read};
use std::process::ExitCode;

use zorder::{FixedPointZCollection, I16F16, ZError};
use zorder_testkit::model::{Layout, Model as ContractModel};

use crate::cli::replay_main;
use crate::parse::{Command, ExactDecimal, Excerpt, LineError, ZProblem, parse_line, parse_z};
use crate::replay::{CollectionKind, Replay, ReplayConfig, ReplayError, TraceObject, error_code};

/// The configurations each trace runs on: the default; a fixed-point
/// collection with few levels that prunes at the second traversal (most Z
/// values take the sorted tree, and pruning shows within a short input);
/// and a simple collection (most Z values are refused).
pub const CONFIGS: [ReplayConfig; 3] = [
    ReplayConfig {
        max_level: 100,
        prune_after: FixedPointZCollection::<TraceObject>::DEFAULT_PRUNE_AFTER,
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

/// The `trace_parser` fuzz target: `bytes` as a trace, on each of
/// [`CONFIGS`]. Panics if the replay does anything the format and the
/// contract do not say, or if its three ways of running disagree.
///
/// ```
/// zorder_replay::fuzzing::trace_parser(b"add 1 2\nadd 2 0.5 # c\r\nb2f\rstats\n");
/// ```
pub fn trace_parser(bytes: &[u8]) {
    let lines = reference_lines(bytes);
    for config in CONFIGS {
        check_trace(bytes, &lines, config);
    }
}

/// The lines of `bytes` as the format defines them, by a plain scan: a
/// leading byte-order mark is dropped; `\n`, `\r\n` and `\r` end lines; an
/// unended last line counts unless it is empty.
fn reference_lines(bytes: &[u8]) -> Vec<&[u8]> {
    let body = bytes.strip_prefix(&[0xEF, 0xBB, 0xBF][..]).unwrap_or(bytes);
    let mut lines = Vec::new();
    let (mut start, mut at) = (0, 0);
    while at < body.len() {
        let byte = body[at];
        at += 1;
        if byte == b'\n' || byte == b'\r' {
            lines.push(&body[start..at - 1]);
            if byte == b'\r' && body.get(at) == Some(&b'\n') {
                at += 1;
            }
            start = at;
        }
    }
    if start < body.len() {
        lines.push(&body[start..]);
    }
    lines
}

fn check_trace(bytes: &[u8], lines: &[&[u8]], config: ReplayConfig) {
    // The whole input at once.
    let mut replay = Replay::new(config).expect("a valid configuration");
    let mut out = String::new();
    let result = replay.run_bytes(bytes, &mut out);
    replay.collection().check_invariants();

    // Line by line, as the reference splits them.
    let mut by_line = Replay::new(config).expect("a valid configuration");
    let mut by_line_out = String::new();
    let mut by_line_result = Ok(());
    for line in lines {
        by_line_result = by_line.run_line(line, &mut by_line_out);
        if by_line_result.is_err() {
            break;
        }
        if matches!(
            parse_line(line),
            Ok(Some(Command::BackToFront | Command::FrontToBack))
        ) {
            // As costly as the traversal's output, so linear overall.
            by_line.collection().check_invariants();
        }
    }
    assert_eq!(
        by_line_result, result,
        "{config:?}: run_line agrees with run_bytes"
    );
    assert_eq!(
        by_line_out, out,
        "{config:?}: run_line prints what run_bytes prints"
    );
    if result.is_ok() {
        assert_eq!(
            replay.line(),
            lines.len() as u64,
            "{config:?}: every line counted"
        );
    }

    check_cli(bytes, config, &out, &result);

    // What the models say.
    let mut model = Model::new(config);
    let mut expected = Vec::new();
    let mut malformed = None;
    for (index, line) in lines.iter().enumerate() {
        let number = index as u64 + 1;
        let parsed = parse_line(line);
        check_parse(line, &parsed);
        let command = match parsed {
            Ok(Some(command)) => command,
            Ok(None) => continue,
            Err(error) => {
                malformed = Some(ReplayError {
                    line: number,
                    error,
                });
                break;
            }
        };
        let outcome = match command {
            Command::Add { id, z } => model.add(id, z),
            Command::Change { id, z } => model.change(id, z),
            Command::Remove { id } => model.remove(id),
            Command::BackToFront | Command::FrontToBack => {
                model.traverse();
                let ids: Vec<String> = model.back_to_front().map(|id| id.to_string()).collect();
                let (word, ids) = if command == Command::BackToFront {
                    ("b2f", ids)
                } else {
                    ("f2b", ids.into_iter().rev().collect())
                };
                expected.push(
                    std::iter::once(word.to_owned())
                        .chain(ids)
                        .collect::<Vec<_>>()
                        .join(" "),
                );
                Ok(())
            }
            Command::Stats => {
                expected.push(format!(
                    "stats len {} nonopt_buckets {}",
                    model.len(),
                    model.buckets()
                ));
                Ok(())
            }
        };
        if let Err(code) = outcome {
            expected.push(format!("err {number} {code}"));
        }
    }
    assert_eq!(result, malformed.map_or(Ok(()), Err), "{config:?}");

    assert!(
        out.is_empty() || out.ends_with('\n'),
        "whole lines: {out:?}"
    );
    // Line by line, so a failure shows the first line that differs.
    let printed: Vec<&str> = out.lines().collect();
    for (number, (line, expected)) in printed.iter().zip(&expected).enumerate() {
        assert_eq!(line, expected, "{config:?}: output line {}", number + 1);
    }
    assert_eq!(
        printed.len(),
        expected.len(),
        "{config:?}: {out:?} against {expected:?}"
    );
}

/// The command-line tool, reading `bytes` in small irregular pieces, must
/// print what [`Replay::run_bytes`] printed, exit as its result says, and
/// keep its message short and free of raw control characters.
fn check_cli(bytes: &[u8], config: ReplayConfig, out: &str, result: &Result<(), ReplayError>) {
    let args = [
        "--levels".to_owned(),
        config.max_level.to_string(),
        "--prune-after".to_owned(),
        config.prune_after.to_string(),
        "--collection".to_owned(),
        match config.collection {
            CollectionKind::FixedPoint => "fixed",
            CollectionKind::Simple => "simple",
        }
        .to_owned(),
    ];
    let seed = bytes
        .iter()
        .fold(0x9E37_79B9u32, |h, &b| h.rotate_left(5) ^ u32::from(b));
    let input = BufReader::with_capacity(16, Trickle { bytes, state: seed });
    let (mut output, mut errors) = (Vec::new(), Vec::new());
    let status = replay_main(&args, input, &mut output, &mut errors);
    assert_eq!(
        output,
        out.as_bytes(),
        "{config:?}: the tool prints what run_bytes prints"
    );
    let errors = String::from_utf8(errors).expect("UTF-8 messages");
    match result {
        Ok(()) => {
            assert_eq!(status, ExitCode::SUCCESS, "{config:?}: {errors}");
            assert_eq!(errors, "");
        }
        Err(error) => {
            assert_eq!(status, ExitCode::from(2), "{config:?}");
            assert_eq!(errors, format!("zorder-replay: {error}\n"));
            assert!(errors.len() <= 400, "a short message: {errors:?}");
            assert!(
                !errors.trim_end_matches('\n').chars().any(char::is_control),
                "control characters are escaped: {errors:?}"
            );
        }
    }
}

/// Reads its bytes 1 to 13 at a time, in an order its seed picks.
struct Trickle<'a> {
    bytes: &'a [u8],
    state: u32,
}

impl Read for Trickle<'_> {
    fn read(&mut self, buf: &mut [u8]) -> io::Result<usize> {
        self.state = self.state.wrapping_mul(1_103_515_245).wrapping_add(12_345);
        let chunk = 1 + (self.state >> 16) as usize % 13;
        let n = chunk.min(buf.len()).min(self.bytes.len());
        buf[..n].copy_from_slice(&self.bytes[..n]);
        self.bytes = &self.bytes[n..];
        Ok(n)
    }
}

/// What a line should parse to, by the format's text.
#[derive(Debug, PartialEq)]
enum Parsed {
    Blank,
    Command(Command),
    NotUtf8(usize),
    Unknown(String),
    Missing(&'static str, &'static str),
    Extra(String),
    BadId(String),
    /// The word, and the problem when the reference decides it.
    BadZ(String, Option<ZProblem>),
}

fn reference_parse(line: &[u8]) -> Parsed {
    let code = line.split(|&b| b == b'#').next().unwrap_or_default();
    let text = match std::str::from_utf8(code) {
        Ok(text) => text,
        Err(error) => return Parsed::NotUtf8(error.valid_up_to()),
    };
    let words: Vec<&str> = text
        .split(|c: char| c.is_ascii_whitespace())
        .filter(|w| !w.is_empty())
        .collect();
    let Some((&name, args)) = words.split_first() else {
        return Parsed::Blank;
    };
    let (name, takes): (&'static str, &[&'static str]) = match name {
        "add" => ("add", &["an object id", "a Z"]),
        "change" => ("change", &["an object id", "a Z"]),
        "remove" => ("remove", &["an object id"]),
        "b2f" => ("b2f", &[]),
        "f2b" => ("f2b", &[]),
        "stats" => ("stats", &[]),
        other => return Parsed::Unknown(other.to_owned()),
    };
    let mut id = 0;
    let mut z = I16F16::ZERO;
    for (index, &argument) in takes.iter().enumerate() {
        let Some(&word) = args.get(index) else {
            return Parsed::Missing(name, argument);
        };
        if index == 0 {
            match reference_id(word) {
                Some(value) => id = value,
                None => return Parsed::BadId(word.to_owned()),
            }
        } else {
            match reference_z(word) {
                Some(Ok(value)) => z = value,
                Some(Err(problem)) => return Parsed::BadZ(word.to_owned(), Some(problem)),
                // Undecided: take the parser's word for it, if it is a Z.
                None => match parse_z(word) {
                    Ok(value) => z = value,
                    Err(_) => return Parsed::BadZ(word.to_owned(), None),
                },
            }
        }
    }
    if let Some(&extra) = args.get(takes.len()) {
        return Parsed::Extra(extra.to_owned());
    }
    Parsed::Command(match name {
        "add" => Command::Add { id, z },
        "change" => Command::Change { id, z },
        "remove" => Command::Remove { id },
        "b2f" => Command::BackToFront,
        "f2b" => Command::FrontToBack,
        _ => Command::Stats,
    })
}

fn reference_id(word: &str) -> Option<u64> {
    if word.is_empty() || !word.chars().all(|c| c.is_ascii_digit()) {
        return None;
    }
    let digits = word.trim_start_matches('0');
    if digits.len() > 20 {
        return None;
    }
    let value = digits
        .chars()
        .fold(0u128, |n, c| n * 10 + u128::from(c as u8 - b'0'));
    u64::try_from(value).ok()
}

/// A Z by the format's text, in exact integer arithmetic, or `None` for a
/// decimal with too many digits to decide that way.
fn reference_z(word: &str) -> Option<Result<I16F16, ZProblem>> {
    if word == "max" {
        return Some(Ok(I16F16::MAX));
    }
    if let Some(raw) = word.strip_prefix("raw:") {
        let (negative, digits) = match raw.as_bytes().first() {
            Some(b'-') => (true, &raw[1..]),
            Some(b'+') => (false, &raw[1..]),
            _ => (false, raw),
        };
        let digits = if !digits.is_empty() && digits.chars().all(|c| c.is_ascii_digit()) {
            digits.trim_start_matches('0')
        } else {
            return Some(Err(ZProblem::Raw));
        };
        if digits.len() > 12 {
            return Some(Err(ZProblem::Raw));
        }
        let magnitude = digits
            .chars()
            .fold(0i64, |n, c| n * 10 + i64::from(c as u8 - b'0'));
        let bits = if negative { -magnitude } else { magnitude };
        return Some(
            i32::try_from(bits)
                .map(I16F16::from_bits)
                .map_err(|_| ZProblem::Raw),
        );
    }
    let Some((negative, int, frac)) = decimal_parts(word) else {
        let exponent = word.find(['e', 'E']).is_some_and(|at| {
            let (mantissa, exponent) = (&word[..at], &word[at + 1..]);
            let exponent = exponent.strip_prefix(['+', '-']).unwrap_or(exponent);
            decimal_parts(mantissa).is_some()
                && !exponent.is_empty()
                && exponent.chars().all(|c| c.is_ascii_digit())
        });
        return Some(Err(if exponent {
            ZProblem::Exponent
        } else {
            ZProblem::Syntax
        }));
    };
    let int = int.trim_start_matches('0');
    let frac = frac.trim_end_matches('0');
    if int.len() > 5 {
        return Some(Err(ZProblem::OutOfRange));
    }
    if frac.len() > 25 {
        return None;
    }
    // |value| = number / 10^scale, exactly; times 2^16, divided out.
    let scale = 10i128.pow(frac.len() as u32);
    let number = format!("{int}{frac}")
        .chars()
        .fold(0i128, |n, c| n * 10 + i128::from(c as u8 - b'0'));
    let scaled = number << 16;
    let (whole, rest) = (scaled / scale, scaled % scale);
    let fits = |bits: i128| i32::try_from(bits).ok().map(I16F16::from_bits);
    let signed = |bits: i128| if negative { -bits } else { bits };
    if rest == 0 {
        return Some(fits(signed(whole)).ok_or(ZProblem::OutOfRange));
    }
    let (below, above) = if negative {
        (-whole - 1, -whole)
    } else {
        (whole, whole + 1)
    };
    Some(match (fits(below), fits(above)) {
        (None, None) => Err(ZProblem::OutOfRange),
        (below, above) => Err(ZProblem::Inexact { below, above }),
    })
}

/// A decimal's sign, integer digits and fraction digits, if `word` is one:
/// an optional sign, then digits around at most one point, at least one
/// digit in all.
fn decimal_parts(word: &str) -> Option<(bool, &str, &str)> {
    let (negative, unsigned) = match word.strip_prefix('-') {
        Some(rest) => (true, rest),
        None => (false, word.strip_prefix('+').unwrap_or(word)),
    };
    let (int, frac) = unsigned.split_once('.').unwrap_or((unsigned, ""));
    let digits = |part: &str| part.chars().all(|c| c.is_ascii_digit());
    (digits(int) && digits(frac) && !(int.is_empty() && frac.is_empty()))
        .then_some((negative, int, frac))
}

/// The parser must agree with the reference, and what it parses must read
/// back from every spelling of it.
fn check_parse(line: &[u8], parsed: &Result<Option<Command>, LineError>) {
    let expected = reference_parse(line);
    let excerpt = |word: &str, excerpt: &Excerpt| {
        assert_eq!(excerpt, &Excerpt::new(word));
        assert!(word.starts_with(excerpt.head()) && excerpt.len() == word.len());
    };
    match (parsed, &expected) {
        (Ok(None), Parsed::Blank) => {}
        (Ok(Some(command)), Parsed::Command(reference)) => {
            assert_eq!(command, reference);
            assert_eq!(
                parse_line(command.to_string()).as_ref(),
                Ok(&Some(*command)),
                "{command}"
            );
            if let Command::Add { z, .. } | Command::Change { z, .. } = *command {
                assert_eq!(parse_z(&format!("raw:{}", z.to_bits())), Ok(z));
                assert_eq!(parse_z(&ExactDecimal(z).to_string()), Ok(z));
            }
        }
        (Err(LineError::NotUtf8 { valid_up_to }), Parsed::NotUtf8(reference)) => {
            assert_eq!(valid_up_to, reference);
        }
        (Err(LineError::UnknownCommand(word)), Parsed::Unknown(reference))
        | (Err(LineError::ExtraArgument(word)), Parsed::Extra(reference))
        | (Err(LineError::BadId(word)), Parsed::BadId(reference)) => excerpt(reference, word),
        (Err(LineError::MissingArgument { command, argument }), Parsed::Missing(name, what)) => {
            assert_eq!((command, argument), (name, what));
        }
        (Err(LineError::BadZ { word, problem }), Parsed::BadZ(reference, reference_problem)) => {
            excerpt(reference, word);
            if let Some(reference_problem) = reference_problem {
                assert_eq!(problem, reference_problem, "{reference}");
            }
        }
        _ => panic!(
            "{:?} parses as {parsed:?}, not {expected:?}",
            String::from_utf8_lossy(line)
        ),
    }
}

/// The contract model of `zorder-testkit` (the one every collection of the
/// crate is checked against) for the replay's one collection. The model
/// numbers its entries densely; the trace's ids are numbered in the order
/// of their first mention.
#[derive(Debug)]
struct Model {
    model: ContractModel,
    /// The entry of each id met.
    entries: HashMap<u64, usize>,
    /// The id of each entry.
    ids: Vec<u64>,
}

impl Model {
    fn new(config: ReplayConfig) -> Self {
        let layout = match config.collection {
            CollectionKind::FixedPoint => Layout::Fixed {
                max_level: config.max_level,
                prune_after: config.prune_after,
            },
            CollectionKind::Simple => Layout::Simple {
                max_level: config.max_level,
            },
        };
        Model {
            model: ContractModel::new(&[layout], false),
            entries: HashMap::new(),
            ids: Vec::new(),
        }
    }

    /// The entry of object `id`.
    fn entry(&mut self, id: u64) -> usize {
        let next = self.ids.len();
        let entry = *self.entries.entry(id).or_insert(next);
        if entry == next {
            self.ids.push(id);
        }
        entry
    }

    /// What a command prints if the collection refuses it.
    fn code<T>(outcome: Result<T, ZError>) -> Result<(), &'static str> {
        outcome.map(drop).map_err(|error| error_code(&error))
    }

    fn add(&mut self, id: u64, z: I16F16) -> Result<(), &'static str> {
        let entry = self.entry(id);
        Self::code(self.model.add(0, entry, z))
    }

    fn change(&mut self, id: u64, z: I16F16) -> Result<(), &'static str> {
        let entry = self.entry(id);
        Self::code(self.model.change(0, entry, z))
    }

    fn remove(&mut self, id: u64) -> Result<(), &'static str> {
        let entry = self.entry(id);
        Self::code(self.model.remove(0, entry))
    }

    /// A traversal starts.
    fn traverse(&mut self) {
        self.model.collections[0].tick();
    }

    /// The ids back to front.
    fn back_to_front(&self) -> impl DoubleEndedIterator<Item = u64> + '_ {
        self.model.collections[0]
            .pairs()
            .map(|(entry, _)| self.ids[entry])
    }

    fn len(&self) -> usize {
        self.model.collections[0].len()
    }

    fn buckets(&self) -> usize {
        self.model.collections[0].nonoptimized_buckets()
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn reference_lines_follow_the_format() {
        let lines = |bytes: &'static [u8]| reference_lines(bytes);
        assert_eq!(
            lines(b"\xEF\xBB\xBFa\r\nb\rc\n\nd"),
            [&b"a"[..], b"b", b"c", b"", b"d"]
        );
        assert!(lines(b"").is_empty());
        assert!(lines(b"\xEF\xBB\xBF").is_empty());
    }

    #[test]
    fn the_reference_z_parser_decides_what_the_format_says() {
        let z = I16F16::from_bits;
        assert_eq!(
            reference_z("0.1"),
            Some(Err(ZProblem::Inexact {
                below: Some(z(6553)),
                above: Some(z(6554))
            }))
        );
        assert_eq!(reference_z("-32768"), Some(Ok(I16F16::MIN)));
        assert_eq!(
            reference_z("32767.99999"),
            Some(Err(ZProblem::Inexact {
                below: Some(I16F16::MAX),
                above: None
            }))
        );
        assert_eq!(reference_z("1e3"), Some(Err(ZProblem::Exponent)));
        assert_eq!(reference_z("raw:-1"), Some(Ok(z(-1))));
        assert_eq!(reference_z("0.00000000000000000000000000001"), None);
    }

    #[test]
    fn the_model_prunes_at_the_traversal_after_prune_after() {
        let mut model = Model::new(CONFIGS[0]);
        model.add(1, I16F16::from_num(0.5)).unwrap();
        model.add(2, I16F16::from_num(0.25)).unwrap();
        model.remove(1).unwrap();
        assert_eq!(model.buckets(), 2);
        for _ in 0..8 {
            model.traverse();
        }
        assert_eq!(model.buckets(), 2);
        model.traverse();
        assert_eq!(model.buckets(), 1);
    }

    #[test]
    fn a_short_trace_passes_every_check() {
        trace_parser(b"add 1 0.5\nremove 1\nb2f\nb2f\nstats\nb2f\nstats\n");
    }
}
