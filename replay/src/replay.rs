//! The executor: a collection, the trace's objects, and what each command
//! prints.

use std::cell::Cell;
use std::collections::HashMap;
use std::fmt;
use std::io::{self, BufRead};
use std::rc::Rc;

use zorder::{
    DEFAULT_Z, FixedPointZCollection, I16F16, SimpleZCollection, ZCollection, ZError, ZObject,
    ZSortable,
};

use crate::lines::LineReader;
use crate::parse::{Command, Excerpt, LineError, parse_line};

/// The stable code a refused command prints (`err LINE CODE`) for each
/// [`ZError`]. A replay can only meet the first three and, in theory,
/// `capacity-overflow`; the others are there so that every error has a
/// code. An error `zorder` adds later prints `other-error` until it gets a
/// code of its own.
///
/// ```
/// use zorder::{I16F16, ZError};
/// use zorder_replay::error_code;
///
/// assert_eq!(error_code(&ZError::AlreadyInCollection), "already-in-collection");
/// assert_eq!(error_code(&ZError::NotInCollection), "not-in-collection");
/// assert_eq!(error_code(&ZError::ZOutOfRange { z: I16F16::MAX, max_level: 3 }), "z-out-of-range");
/// ```
pub fn error_code(error: &ZError) -> &'static str {
    match error {
        ZError::AlreadyInCollection => "already-in-collection",
        ZError::NotInCollection => "not-in-collection",
        ZError::ZOutOfRange { .. } => "z-out-of-range",
        ZError::MaxLevelTooLarge { .. } => "max-level-too-large",
        ZError::ZeroPruneThreshold => "zero-prune-threshold",
        ZError::IndexInUse { .. } => "index-in-use",
        ZError::CapacityOverflow => "capacity-overflow",
        _ => "other-error",
    }
}

/// Which collection a replay drives.
///
/// ```
/// use zorder_replay::CollectionKind;
///
/// assert_eq!(CollectionKind::default(), CollectionKind::FixedPoint);
/// ```
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Default)]
pub enum CollectionKind {
    /// A [`FixedPointZCollection`]: every Z is legal (`--collection fixed`).
    #[default]
    FixedPoint,
    /// A [`SimpleZCollection`]: only the levels `0..=max_level`
    /// (`--collection simple`).
    Simple,
}

/// How to set up a replay: the tool's flags.
///
/// ```
/// use zorder_replay::{CollectionKind, ReplayConfig};
///
/// let config = ReplayConfig::default();
/// assert_eq!((config.max_level, config.prune_after, config.collection), (100, 8, CollectionKind::FixedPoint));
/// ```
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub struct ReplayConfig {
    /// The collection's highest optimized level, `--levels N` (default
    /// 100, at most [`ReplayConfig::MAX_LEVEL`]).
    pub max_level: u16,
    /// The pruning threshold of a fixed-point collection,
    /// `--prune-after K` (default
    /// [`FixedPointZCollection::DEFAULT_PRUNE_AFTER`], at least 1). A
    /// simple collection has nothing to prune and ignores it.
    pub prune_after: u32,
    /// The collection to drive, `--collection fixed|simple` (default
    /// fixed-point).
    pub collection: CollectionKind,
}

impl ReplayConfig {
    /// The largest `--levels`: the largest integer an `I16F16` holds.
    ///
    /// ```
    /// assert_eq!(zorder_replay::ReplayConfig::MAX_LEVEL, 32767);
    /// ```
    pub const MAX_LEVEL: u16 = FixedPointZCollection::<TraceObject>::MAX_LEVEL;

    /// Reads the tool's flags (`--levels N`, `--prune-after K`,
    /// `--collection fixed|simple`, each optional, the last of a repeated
    /// flag counting); what is not given keeps its default.
    ///
    /// # Errors
    ///
    /// An [`ArgError`] for the first argument that is not a flag, a flag
    /// without its value, or a value out of range.
    ///
    /// ```
    /// use zorder_replay::{ArgError, CollectionKind, Excerpt, ReplayConfig};
    ///
    /// let config = ReplayConfig::from_args(["--collection", "simple", "--levels", "3"])?;
    /// assert_eq!((config.collection, config.max_level), (CollectionKind::Simple, 3));
    /// assert_eq!(ReplayConfig::from_args(["--levels"]), Err(ArgError::MissingValue { flag: "--levels" }));
    /// assert_eq!(ReplayConfig::from_args(["extra"]), Err(ArgError::Unknown(Excerpt::new("extra"))));
    /// # Ok::<(), ArgError>(())
    /// ```
    pub fn from_args<S: AsRef<str>>(args: impl IntoIterator<Item = S>) -> Result<Self, ArgError> {
        let mut config = ReplayConfig::default();
        let mut args = args.into_iter();
        while let Some(arg) = args.next() {
            // Which flag first: an unknown word is never taken for a flag
            // lacking its value.
            let flag = match arg.as_ref() {
                "--levels" => "--levels",
                "--prune-after" => "--prune-after",
                "--collection" => "--collection",
                other => return Err(ArgError::Unknown(Excerpt::new(other))),
            };
            let value = args.next().ok_or(ArgError::MissingValue { flag })?;
            let value = value.as_ref();
            let bad = |expected| ArgError::BadValue {
                flag,
                value: Excerpt::new(value),
                expected,
            };
            match flag {
                "--levels" => {
                    config.max_level = value
                        .parse()
                        .ok()
                        .filter(|&level| level <= Self::MAX_LEVEL)
                        .ok_or_else(|| bad("a number from 0 to 32767"))?;
                }
                "--prune-after" => {
                    config.prune_after = value
                        .parse()
                        .ok()
                        .filter(|&k| k > 0)
                        .ok_or_else(|| bad("a number from 1 to 4294967295"))?;
                }
                _ => {
                    config.collection = match value {
                        "fixed" => CollectionKind::FixedPoint,
                        "simple" => CollectionKind::Simple,
                        _ => return Err(bad("`fixed` or `simple`")),
                    };
                }
            }
        }
        Ok(config)
    }
}

impl Default for ReplayConfig {
    fn default() -> Self {
        ReplayConfig {
            max_level: 100,
            prune_after: FixedPointZCollection::<TraceObject>::DEFAULT_PRUNE_AFTER,
            collection: CollectionKind::FixedPoint,
        }
    }
}

/// What is wrong with the tool's arguments.
///
/// ```
/// use zorder_replay::ReplayConfig;
///
/// let error = ReplayConfig::from_args(["--collection", "sorted"]).unwrap_err();
/// assert_eq!(error.to_string(), "--collection: `sorted` is not `fixed` or `simple`");
/// ```
#[derive(Debug, Clone, PartialEq, Eq, Hash)]
#[non_exhaustive]
pub enum ArgError {
    /// An argument that is not one of the flags.
    Unknown(Excerpt),
    /// A flag was the last argument, without its value.
    MissingValue {
        /// The flag.
        flag: &'static str,
    },
    /// A flag's value is not one it takes.
    BadValue {
        /// The flag.
        flag: &'static str,
        /// The value given.
        value: Excerpt,
        /// What the flag takes.
        expected: &'static str,
    },
}

impl fmt::Display for ArgError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            ArgError::Unknown(argument) => write!(f, "unknown argument {argument}"),
            ArgError::MissingValue { flag } => write!(f, "{flag} needs a value"),
            ArgError::BadValue {
                flag,
                value,
                expected,
            } => write!(f, "{flag}: {value} is not {expected}"),
        }
    }
}

impl std::error::Error for ArgError {}

/// A malformed line stopped the replay.
///
/// ```
/// use zorder_replay::{Replay, ReplayConfig};
///
/// let mut replay = Replay::new(ReplayConfig::default())?;
/// let error = replay.run_str("b2f\nadd 1\n", &mut String::new()).unwrap_err();
/// assert_eq!(error.line, 2);
/// assert_eq!(error.to_string(), "line 2: `add` needs a Z");
/// # Ok::<(), zorder::ZError>(())
/// ```
#[derive(Debug, Clone, PartialEq, Eq, Hash)]
pub struct ReplayError {
    /// The line's number, from 1, counting every line of the input.
    pub line: u64,
    /// What is wrong with it.
    pub error: LineError,
}

impl fmt::Display for ReplayError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "line {}: {}", self.line, self.error)
    }
}

impl std::error::Error for ReplayError {
    fn source(&self) -> Option<&(dyn std::error::Error + 'static)> {
        Some(&self.error)
    }
}

/// Why a streamed replay stopped early.
///
/// ```
/// use zorder_replay::{Replay, ReplayConfig, RunError};
///
/// let mut replay = Replay::new(ReplayConfig::default())?;
/// let mut output = Vec::new();
/// let stopped = replay.run_reader(&b"add 1 2\nb2f\nadd 1\n"[..], &mut output);
/// assert!(matches!(stopped, Err(RunError::Malformed(ref error)) if error.line == 3));
/// assert_eq!(output, b"b2f 1\n");
/// # Ok::<(), zorder::ZError>(())
/// ```
#[derive(Debug)]
#[non_exhaustive]
pub enum RunError {
    /// A malformed line.
    Malformed(ReplayError),
    /// Reading the trace or writing the output failed.
    Io(io::Error),
}

impl fmt::Display for RunError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            RunError::Malformed(error) => error.fmt(f),
            RunError::Io(error) => error.fmt(f),
        }
    }
}

impl std::error::Error for RunError {
    fn source(&self) -> Option<&(dyn std::error::Error + 'static)> {
        match self {
            RunError::Malformed(error) => Some(error),
            RunError::Io(error) => Some(error),
        }
    }
}

impl From<io::Error> for RunError {
    fn from(error: io::Error) -> Self {
        RunError::Io(error)
    }
}

/// An object of a trace: its id, and its Z, which `add` and `change` set.
///
/// ```
/// use std::cell::Cell;
/// use zorder::{I16F16, ZSortable};
/// use zorder_replay::TraceObject;
///
/// let object = TraceObject { id: 7, z: Cell::new(I16F16::from_num(3)) };
/// assert_eq!(object.z_order(), 3);
/// ```
#[derive(Debug)]
pub struct TraceObject {
    /// The id the trace names it by.
    pub id: u64,
    /// Its Z.
    pub z: Cell<I16F16>,
}

impl ZSortable for TraceObject {
    fn z_order(&self) -> I16F16 {
        self.z.get()
    }
}

/// Runs a trace against a collection, line by line.
///
/// An object comes to life at the first mention of its id, at the default
/// Z. An object that is in no collection after a command is forgotten, and
/// a later mention of its id makes it afresh, which no command can tell
/// apart (its Z is set by any command that files it), so memory stays
/// bounded by the objects in the collection.
///
/// ```
/// use zorder_replay::{Replay, ReplayConfig};
///
/// let mut replay = Replay::new(ReplayConfig::default())?;
/// let mut out = String::new();
/// replay.run_str("add 1 max\nadd 2 3\nchange 1 -0.5\nadd 2 1\nb2f\nf2b\n", &mut out)?;
/// assert_eq!(out, "err 4 already-in-collection\nb2f 1 2\nf2b 2 1\n");
/// # Ok::<(), Box<dyn std::error::Error>>(())
/// ```
pub struct Replay {
    collection: Box<dyn ZCollection<TraceObject>>,
    objects: HashMap<u64, Rc<ZObject<TraceObject>>>,
    line: u64,
}

impl Replay {
    /// A replay on an empty collection as `config` says.
    ///
    /// # Errors
    ///
    /// The collection's constructor's error, if `config` has a `max_level`
    /// above [`ReplayConfig::MAX_LEVEL`] or a `prune_after` of 0.
    ///
    /// ```
    /// use zorder::ZError;
    /// use zorder_replay::{Replay, ReplayConfig};
    ///
    /// let config = ReplayConfig { prune_after: 0, ..ReplayConfig::default() };
    /// assert_eq!(Replay::new(config).unwrap_err(), ZError::ZeroPruneThreshold);
    /// ```
    pub fn new(config: ReplayConfig) -> Result<Self, ZError> {
        let collection: Box<dyn ZCollection<TraceObject>> = match config.collection {
            CollectionKind::FixedPoint => Box::new(FixedPointZCollection::with_prune_after(
                config.max_level,
                config.prune_after,
            )?),
            CollectionKind::Simple => Box::new(SimpleZCollection::new(config.max_level)?),
        };
        Ok(Replay {
            collection,
            objects: HashMap::new(),
            line: 0,
        })
    }

    /// The collection being driven.
    ///
    /// ```
    /// use zorder_replay::{Replay, ReplayConfig};
    ///
    /// let mut replay = Replay::new(ReplayConfig::default())?;
    /// replay.run_str("add 1 2\nadd 2 0.5\n", &mut String::new())?;
    /// assert_eq!(replay.collection().len(), 2);
    /// assert_eq!(replay.collection().nonoptimized_buckets(), 1);
    /// # Ok::<(), Box<dyn std::error::Error>>(())
    /// ```
    pub fn collection(&self) -> &dyn ZCollection<TraceObject> {
        self.collection.as_ref()
    }

    /// How many lines have run: the number of the last one.
    ///
    /// ```
    /// use zorder_replay::{Replay, ReplayConfig};
    ///
    /// let mut replay = Replay::new(ReplayConfig::default())?;
    /// replay.run_str("# one\r\n\rb2f", &mut String::new())?;
    /// assert_eq!(replay.line(), 3);
    /// # Ok::<(), Box<dyn std::error::Error>>(())
    /// ```
    pub fn line(&self) -> u64 {
        self.line
    }

    /// How many objects the replay keeps: those in the collection.
    ///
    /// ```
    /// use zorder_replay::{Replay, ReplayConfig};
    ///
    /// let mut replay = Replay::new(ReplayConfig::default())?;
    /// replay.run_str("add 1 2\nadd 2 2\nremove 1\nremove 3\n", &mut String::new())?;
    /// assert_eq!(replay.objects(), 1);
    /// # Ok::<(), Box<dyn std::error::Error>>(())
    /// ```
    pub fn objects(&self) -> usize {
        self.objects.len()
    }

    /// Runs the next line of the input, given without its line ending
    /// (the line number counts every call), and appends what it prints to
    /// `out`.
    ///
    /// # Errors
    ///
    /// A [`ReplayError`] naming the line if it is malformed; then nothing
    /// ran and nothing was printed.
    ///
    /// ```
    /// use zorder_replay::{Replay, ReplayConfig};
    ///
    /// let mut replay = Replay::new(ReplayConfig::default())?;
    /// let mut out = String::new();
    /// replay.run_line(b"add 1 2 # caf\xe9", &mut out)?;
    /// replay.run_line(b"remove 2", &mut out)?;
    /// assert_eq!(out, "err 2 not-in-collection\n");
    /// # Ok::<(), Box<dyn std::error::Error>>(())
    /// ```
    pub fn run_line(&mut self, line: &[u8], out: &mut impl fmt::Write) -> Result<(), ReplayError> {
        self.line += 1;
        match parse_line(line) {
            Ok(Some(command)) => {
                self.execute(command, out);
                Ok(())
            }
            Ok(None) => Ok(()),
            Err(error) => Err(ReplayError {
                line: self.line,
                error,
            }),
        }
    }

    /// Runs `bytes` as a trace: split into lines as [`LineReader`] does
    /// (`\n`, `\r\n` or `\r`; a byte-order mark at its start skipped),
    /// numbered on from the lines run before.
    ///
    /// # Errors
    ///
    /// The first malformed line; what ran before it stays done and printed.
    ///
    /// ```
    /// use zorder_replay::{Replay, ReplayConfig};
    ///
    /// let mut replay = Replay::new(ReplayConfig::default())?;
    /// let mut out = String::new();
    /// replay.run_bytes(b"\xEF\xBB\xBFadd 1 2\radd 2 2\r\nf2b", &mut out)?;
    /// assert_eq!(out, "f2b 2 1\n");
    /// # Ok::<(), Box<dyn std::error::Error>>(())
    /// ```
    pub fn run_bytes(
        &mut self,
        bytes: &[u8],
        out: &mut impl fmt::Write,
    ) -> Result<(), ReplayError> {
        let mut lines = LineReader::new(bytes);
        // Reading a slice never fails.
        while let Ok(Some(line)) = lines.next_line() {
            self.run_line(line, out)?;
        }
        Ok(())
    }

    /// Runs `text` as a trace, as [`run_bytes`](Self::run_bytes) does.
    ///
    /// # Errors
    ///
    /// The first malformed line; what ran before it stays done and printed.
    ///
    /// ```
    /// use zorder_replay::{Replay, ReplayConfig};
    ///
    /// let mut replay = Replay::new(ReplayConfig { max_level: 3, ..ReplayConfig::default() })?;
    /// let mut out = String::new();
    /// replay.run_str("add 1 3 # the hero\nadd 2 7\nstats\n", &mut out)?;
    /// assert_eq!(out, "stats len 2 nonopt_buckets 1\n");
    /// # Ok::<(), Box<dyn std::error::Error>>(())
    /// ```
    pub fn run_str(&mut self, text: &str, out: &mut impl fmt::Write) -> Result<(), ReplayError> {
        self.run_bytes(text.as_bytes(), out)
    }

    /// Streams a trace from `input` to `output`: one reused line buffer,
    /// and the output gathered and written in pieces of about 64 KiB (and
    /// before returning), so memory stays bounded by the longest line and
    /// the objects in the collection, however long the trace.
    ///
    /// # Errors
    ///
    /// [`RunError::Malformed`] for the first malformed line, after writing
    /// everything printed before it; [`RunError::Io`] if reading or
    /// writing fails.
    ///
    /// ```
    /// use zorder_replay::{Replay, ReplayConfig};
    ///
    /// let mut replay = Replay::new(ReplayConfig::default())?;
    /// let mut output = Vec::new();
    /// replay.run_reader(&b"add 1 2\r\nadd 2 1\rb2f\n"[..], &mut output)?;
    /// assert_eq!(output, b"b2f 2 1\n");
    /// # Ok::<(), Box<dyn std::error::Error>>(())
    /// ```
    pub fn run_reader(
        &mut self,
        input: impl BufRead,
        mut output: impl io::Write,
    ) -> Result<(), RunError> {
        const FLUSH_AT: usize = 1 << 16;
        let mut lines = LineReader::new(input);
        let mut printed = String::new();
        while let Some(line) = lines.next_line()? {
            let outcome = self.run_line(line, &mut printed);
            if printed.len() >= FLUSH_AT || outcome.is_err() {
                output.write_all(printed.as_bytes())?;
                printed.clear();
            }
            if let Err(error) = outcome {
                output.flush()?;
                return Err(RunError::Malformed(error));
            }
        }
        output.write_all(printed.as_bytes())?;
        output.flush()?;
        Ok(())
    }

    /// Executes one command, appending what it prints to `out` (a
    /// traversal's ids, the stats, or `err LINE CODE` with the number of
    /// the last line run, if the collection refuses the command).
    ///
    /// ```
    /// use zorder::I16F16;
    /// use zorder_replay::{Command, Replay, ReplayConfig};
    ///
    /// let mut replay = Replay::new(ReplayConfig::default())?;
    /// let mut out = String::new();
    /// replay.execute(Command::Add { id: 5, z: I16F16::from_num(2) }, &mut out);
    /// replay.execute(Command::FrontToBack, &mut out);
    /// assert_eq!(out, "f2b 5\n");
    /// # Ok::<(), zorder::ZError>(())
    /// ```
    pub fn execute(&mut self, command: Command, out: &mut impl fmt::Write) {
        // A `fmt::Write` sink fails only if it fails by itself (a `String`
        // never does); nothing better is left to do then than to go on.
        let outcome = match command {
            Command::Add { id, z } => self.with_z(id, z, |c, o| c.add(o)),
            Command::Change { id, z } => self.with_z(id, z, |c, o| c.change(o)),
            Command::Remove { id } => {
                let object = self.object(id);
                let outcome = self.collection.remove(&object);
                self.forget_if_free(id);
                outcome
            }
            Command::BackToFront => {
                let _ = print_ids(out, "b2f", self.collection.back_to_front());
                Ok(())
            }
            Command::FrontToBack => {
                let _ = print_ids(out, "f2b", self.collection.front_to_back());
                Ok(())
            }
            Command::Stats => {
                let _ = writeln!(
                    out,
                    "stats len {} nonopt_buckets {}",
                    self.collection.len(),
                    self.collection.nonoptimized_buckets()
                );
                Ok(())
            }
        };
        if let Err(error) = outcome {
            let _ = writeln!(out, "err {} {}", self.line, error_code(&error));
        }
    }

    /// Sets object `id`'s Z and runs `operation`; on error puts the Z
    /// back, so a refused command changes nothing at all.
    fn with_z(
        &mut self,
        id: u64,
        z: I16F16,
        operation: impl FnOnce(
            &mut dyn ZCollection<TraceObject>,
            &Rc<ZObject<TraceObject>>,
        ) -> Result<(), ZError>,
    ) -> Result<(), ZError> {
        let object = self.object(id);
        let before = object.z.replace(z);
        let outcome = operation(self.collection.as_mut(), &object);
        if outcome.is_err() {
            object.z.set(before);
        }
        self.forget_if_free(id);
        outcome
    }

    fn object(&mut self, id: u64) -> Rc<ZObject<TraceObject>> {
        let object = self.objects.entry(id).or_insert_with(|| {
            Rc::new(ZObject::new(TraceObject {
                id,
                z: Cell::new(DEFAULT_Z),
            }))
        });
        Rc::clone(object)
    }

    fn forget_if_free(&mut self, id: u64) {
        if self
            .objects
            .get(&id)
            .is_some_and(|object| !ZObject::is_in_collection(object))
        {
            self.objects.remove(&id);
        }
    }
}

impl fmt::Debug for Replay {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_struct("Replay")
            .field("line", &self.line)
            .field("len", &self.collection.len())
            .field("objects", &self.objects.len())
            .finish_non_exhaustive()
    }
}

fn print_ids<'a>(
    out: &mut impl fmt::Write,
    word: &str,
    objects: impl Iterator<Item = &'a Rc<ZObject<TraceObject>>>,
) -> fmt::Result {
    out.write_str(word)?;
    for object in objects {
        write!(out, " {}", object.id)?;
    }
    out.write_char('\n')
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn every_error_has_a_kebab_case_code() {
        let errors = [
            ZError::AlreadyInCollection,
            ZError::NotInCollection,
            ZError::ZOutOfRange {
                z: I16F16::ZERO,
                max_level: 0,
            },
            ZError::MaxLevelTooLarge { max_level: 40_000 },
            ZError::ZeroPruneThreshold,
            ZError::IndexInUse { index: 3 },
            ZError::CapacityOverflow,
        ];
        let codes: Vec<&str> = errors.iter().map(error_code).collect();
        assert_eq!(
            codes,
            [
                "already-in-collection",
                "not-in-collection",
                "z-out-of-range",
                "max-level-too-large",
                "zero-prune-threshold",
                "index-in-use",
                "capacity-overflow",
            ]
        );
    }

    #[test]
    fn a_refused_command_leaves_the_object_as_it_was() {
        // The refused `add 1 0` neither moves object 1 nor changes its Z.
        let mut replay = Replay::new(ReplayConfig::default()).unwrap();
        let mut out = String::new();
        replay
            .run_str("add 1 1\nadd 2 1\nadd 1 0\nb2f\n", &mut out)
            .unwrap();
        assert_eq!(out, "err 3 already-in-collection\nb2f 1 2\n");
        assert_eq!(replay.objects[&1].z.get(), 1);

        // Nor does a change the simple collection refuses.
        let config = ReplayConfig {
            collection: CollectionKind::Simple,
            max_level: 3,
            ..ReplayConfig::default()
        };
        let mut replay = Replay::new(config).unwrap();
        replay
            .run_str("add 1 2\nadd 2 2\nchange 1 2.5\nb2f\n", &mut out)
            .unwrap();
        assert_eq!(
            out,
            "err 3 already-in-collection\nb2f 1 2\nerr 3 z-out-of-range\nb2f 1 2\n"
        );
        assert_eq!(replay.objects[&1].z.get(), 2);
        assert_eq!(
            replay.collection().z_of(&replay.objects[&1]),
            Some(I16F16::from_num(2))
        );
    }

    #[test]
    fn objects_in_no_collection_are_forgotten() {
        let mut replay = Replay::new(ReplayConfig::default()).unwrap();
        let mut out = String::new();
        // (Fewer under Miri, which is slow per round.)
        for id in 0..if cfg!(miri) { 100 } else { 1000 } {
            replay
                .run_str(
                    &format!("add {id} 0.5\nremove {id}\nremove {id}\nchange {id} 1\n"),
                    &mut out,
                )
                .unwrap();
            assert_eq!(replay.objects(), 0);
        }
        replay
            .run_str("add 1 2\nadd 2 3\nremove 1\n", &mut out)
            .unwrap();
        assert_eq!(replay.objects(), 1);
    }

    /// Issue: `replay extra` said "extra needs a value".
    #[test]
    fn an_unknown_argument_is_named_as_such() {
        assert_eq!(
            ReplayConfig::from_args(["extra"]),
            Err(ArgError::Unknown(Excerpt::new("extra")))
        );
        assert_eq!(
            ReplayConfig::from_args(["extra"]).unwrap_err().to_string(),
            "unknown argument `extra`"
        );
        assert_eq!(
            ReplayConfig::from_args(["--levels", "3", "--verbose"]),
            Err(ArgError::Unknown(Excerpt::new("--verbose")))
        );
        assert_eq!(
            ReplayConfig::from_args(["--levels"]),
            Err(ArgError::MissingValue { flag: "--levels" })
        );
        assert_eq!(
            ReplayConfig::from_args(["--levels"])
                .unwrap_err()
                .to_string(),
            "--levels needs a value"
        );
    }

    #[test]
    fn flags_take_their_values_and_refuse_others() {
        let config = ReplayConfig::from_args([
            "--levels",
            "32767",
            "--prune-after",
            "1",
            "--collection",
            "simple",
        ])
        .unwrap();
        assert_eq!(
            config,
            ReplayConfig {
                max_level: 32767,
                prune_after: 1,
                collection: CollectionKind::Simple
            }
        );
        assert_eq!(
            ReplayConfig::from_args(Vec::<String>::new()),
            Ok(ReplayConfig::default())
        );
        for (args, message) in [
            (
                &["--levels", "32768"][..],
                "--levels: `32768` is not a number from 0 to 32767",
            ),
            (
                &["--levels", "-1"],
                "--levels: `-1` is not a number from 0 to 32767",
            ),
            (
                &["--prune-after", "0"],
                "--prune-after: `0` is not a number from 1 to 4294967295",
            ),
            (
                &["--collection", "sorted"],
                "--collection: `sorted` is not `fixed` or `simple`",
            ),
            (&["--collection"], "--collection needs a value"),
        ] {
            assert_eq!(
                ReplayConfig::from_args(args).unwrap_err().to_string(),
                message,
                "{args:?}"
            );
        }
        let long = "7".repeat(1000);
        let message = ReplayConfig::from_args(["--levels", &long])
            .unwrap_err()
            .to_string();
        assert!(
            message.contains("…` (1000 bytes)") && message.len() < 120,
            "{message}"
        );
    }
}
