//! Replaying recorded traces of Z-operations, to compare a port's order with
//! the legacy engine's.
//!
//! A trace is text, one command per line; blank lines and lines starting
//! with `#` are ignored:
//!
//! | command       | effect |
//! | ------------- | ------ |
//! | `add ID Z`    | set object `ID`'s Z, then `add` it |
//! | `remove ID`   | `remove` object `ID` |
//! | `change ID Z` | set object `ID`'s Z, then `change` it |
//! | `b2f`, `f2b`  | print the ids back to front / front to back |
//! | `stats`       | print `stats len N nonopt_buckets K` |
//!
//! `ID` is a decimal `u64` (an object is created on first mention). `Z` is
//! `max` (the default Z), `raw:<i32>` (exact `I16F16` bits), or a decimal
//! number such as `3`, `-2.5` or `0.125`.
//!
//! A refused operation prints `err LINE CODE` (see [`ZError::code`]) and the
//! replay goes on; a malformed line stops it with a [`ReplayError`].
//!
//! ```
//! use zorder::replay::{Replay, ReplayConfig};
//!
//! let mut replay = Replay::new(ReplayConfig::default())?;
//! let mut out = String::new();
//! replay.run_str("add 1 max\nadd 2 3\nchange 1 -0.5\nadd 2 1\nb2f\nf2b\n", &mut out)?;
//! assert_eq!(out, "err 4 already-in-collection\nb2f 1 2\nf2b 2 1\n");
//! # Ok::<(), Box<dyn core::error::Error>>(())
//! ```
//!
//! The parser and executor are `no_std`; `examples/replay.rs` wraps them
//! with buffered standard input and output.

use alloc::boxed::Box;
use alloc::collections::BTreeMap;
use alloc::rc::Rc;
use alloc::string::String;
use core::cell::Cell;
use core::fmt::{self, Write};
use core::str::FromStr;

use crate::{
    DEFAULT_PRUNE_AFTER, DEFAULT_Z, FixedPointZCollection, I16F16, SimpleZCollection, ZCollection,
    ZError, ZObject, ZSortable,
};

/// One command of a trace.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Command {
    /// `add ID Z`
    Add {
        /// The object.
        id: u64,
        /// Its Z.
        z: I16F16,
    },
    /// `remove ID`
    Remove {
        /// The object.
        id: u64,
    },
    /// `change ID Z`
    Change {
        /// The object.
        id: u64,
        /// Its new Z.
        z: I16F16,
    },
    /// `b2f`
    BackToFront,
    /// `f2b`
    FrontToBack,
    /// `stats`
    Stats,
}

/// What is wrong with a malformed line.
#[derive(Debug, Clone, PartialEq, Eq)]
#[non_exhaustive]
pub enum LineError {
    /// The line is not UTF-8.
    NotUtf8,
    /// The first word is not a command.
    UnknownCommand(Box<str>),
    /// A command lacks an argument.
    MissingArgument {
        /// The command.
        command: &'static str,
        /// The argument it lacks.
        argument: &'static str,
    },
    /// A command has more arguments than it takes.
    ExtraArgument(Box<str>),
    /// An id is not a decimal `u64`.
    BadId(Box<str>),
    /// A Z is not `max`, `raw:<i32>` or a decimal number in `I16F16`'s range.
    BadZ(Box<str>),
}

impl fmt::Display for LineError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            LineError::NotUtf8 => f.write_str("the line is not valid UTF-8"),
            LineError::UnknownCommand(word) => {
                write!(
                    f,
                    "unknown command `{word}` (expected add, remove, change, b2f, f2b or stats)"
                )
            }
            LineError::MissingArgument { command, argument } => {
                write!(f, "`{command}` needs {argument}")
            }
            LineError::ExtraArgument(word) => write!(f, "unexpected extra argument `{word}`"),
            LineError::BadId(word) => write!(f, "bad object id `{word}` (expected a decimal u64)"),
            LineError::BadZ(word) => write!(
                f,
                "bad Z `{word}` (expected `max`, `raw:<i32>`, or a decimal number from -32768 to 32767.99998)"
            ),
        }
    }
}

impl core::error::Error for LineError {}

/// A malformed line stopped the replay.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct ReplayError {
    /// The 1-based line number, counting every input line.
    pub line: u64,
    /// What is wrong with it.
    pub error: LineError,
}

impl fmt::Display for ReplayError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "line {}: {}", self.line, self.error)
    }
}

impl core::error::Error for ReplayError {}

/// Parses one line: `Ok(None)` for a blank line or a comment.
///
/// ```
/// use zorder::I16F16;
/// use zorder::replay::{Command, parse_line};
///
/// assert_eq!(parse_line("change 7 raw:-98304"), Ok(Some(Command::Change { id: 7, z: I16F16::from_num(-1.5) })));
/// assert_eq!(parse_line("  # a comment"), Ok(None));
/// assert!(parse_line("add 7").is_err());
/// ```
pub fn parse_line(line: &str) -> Result<Option<Command>, LineError> {
    let mut words = line.split_ascii_whitespace();
    let Some(first) = words.next() else {
        return Ok(None);
    };
    if first.starts_with('#') {
        return Ok(None);
    }
    let command = match first {
        "add" => Command::Add {
            id: parse_id(words.next(), "add")?,
            z: parse_z(words.next(), "add")?,
        },
        "remove" => Command::Remove {
            id: parse_id(words.next(), "remove")?,
        },
        "change" => Command::Change {
            id: parse_id(words.next(), "change")?,
            z: parse_z(words.next(), "change")?,
        },
        "b2f" => Command::BackToFront,
        "f2b" => Command::FrontToBack,
        "stats" => Command::Stats,
        other => return Err(LineError::UnknownCommand(other.into())),
    };
    match words.next() {
        Some(extra) => Err(LineError::ExtraArgument(extra.into())),
        None => Ok(Some(command)),
    }
}

fn parse_id(word: Option<&str>, command: &'static str) -> Result<u64, LineError> {
    let word = word.ok_or(LineError::MissingArgument {
        command,
        argument: "an object id",
    })?;
    // `u64::from_str` accepts a leading `+`; a trace id is plain digits.
    if !word.bytes().all(|b| b.is_ascii_digit()) {
        return Err(LineError::BadId(word.into()));
    }
    word.parse().map_err(|_| LineError::BadId(word.into()))
}

/// Parses a trace Z: `max`, `raw:<i32>`, or a decimal number.
pub fn parse_z_value(word: &str) -> Option<I16F16> {
    if word == "max" {
        Some(DEFAULT_Z)
    } else if let Some(bits) = word.strip_prefix("raw:") {
        i32::from_str(bits).ok().map(I16F16::from_bits)
    } else {
        I16F16::from_str(word).ok()
    }
}

fn parse_z(word: Option<&str>, command: &'static str) -> Result<I16F16, LineError> {
    let word = word.ok_or(LineError::MissingArgument {
        command,
        argument: "a Z",
    })?;
    parse_z_value(word).ok_or_else(|| LineError::BadZ(word.into()))
}

/// Which collection a replay drives.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
pub enum CollectionKind {
    /// [`FixedPointZCollection`]
    #[default]
    FixedPoint,
    /// [`SimpleZCollection`]
    Simple,
}

/// How to set up a replay.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct ReplayConfig {
    /// The collection's `max_level` (default 100).
    pub max_level: u16,
    /// The pruning threshold of a fixed-point collection (default
    /// [`DEFAULT_PRUNE_AFTER`]).
    pub prune_after: u32,
    /// The collection to drive (default fixed-point).
    pub collection: CollectionKind,
}

impl ReplayConfig {
    /// Reads the replay tool's flags: `--levels N`, `--prune-after K` and
    /// `--collection fixed|simple`, each optional, defaults otherwise.
    ///
    /// # Errors
    ///
    /// A message naming the flag or value that is wrong.
    ///
    /// ```
    /// use zorder::replay::{CollectionKind, ReplayConfig};
    ///
    /// let config = ReplayConfig::from_args(["--collection", "simple", "--levels", "3"])?;
    /// assert_eq!((config.collection, config.max_level), (CollectionKind::Simple, 3));
    /// assert!(ReplayConfig::from_args(["--levels"]).is_err());
    /// # Ok::<(), String>(())
    /// ```
    pub fn from_args<S: AsRef<str>>(args: impl IntoIterator<Item = S>) -> Result<Self, String> {
        let mut config = ReplayConfig::default();
        let mut args = args.into_iter();
        while let Some(flag) = args.next() {
            let flag = flag.as_ref();
            let value = args.next();
            let value = value
                .as_ref()
                .map(AsRef::as_ref)
                .ok_or_else(|| alloc::format!("{flag} needs a value"))?;
            match flag {
                "--levels" => {
                    config.max_level = value
                        .parse()
                        .ok()
                        .filter(|&level| level <= crate::MAX_LEVEL_LIMIT)
                        .ok_or_else(|| {
                            alloc::format!("--levels: `{value}` is not a number from 0 to 32767")
                        })?;
                }
                "--prune-after" => {
                    config.prune_after =
                        value.parse().ok().filter(|&k| k > 0).ok_or_else(|| {
                            alloc::format!(
                                "--prune-after: `{value}` is not a number from 1 to 4294967295"
                            )
                        })?;
                }
                "--collection" => {
                    config.collection = match value {
                        "fixed" => CollectionKind::FixedPoint,
                        "simple" => CollectionKind::Simple,
                        other => {
                            return Err(alloc::format!(
                                "--collection: `{other}` is neither `fixed` nor `simple`"
                            ));
                        }
                    }
                }
                other => return Err(alloc::format!("unknown argument `{other}`")),
            }
        }
        Ok(config)
    }
}

impl Default for ReplayConfig {
    fn default() -> Self {
        ReplayConfig {
            max_level: 100,
            prune_after: DEFAULT_PRUNE_AFTER,
            collection: CollectionKind::FixedPoint,
        }
    }
}

/// An object of a trace: its id and its current Z.
#[derive(Debug)]
pub struct TraceObject {
    /// The id the trace names it by.
    pub id: u64,
    /// Its Z, set by `add` and `change` commands.
    pub z: Cell<I16F16>,
}

impl ZSortable for TraceObject {
    fn z_order(&self) -> I16F16 {
        self.z.get()
    }
}

/// Runs a trace against a collection, line by line.
///
/// Memory stays bounded by the live objects: an object that is in no
/// collection after a command is forgotten, and a later mention of its id
/// creates it afresh, which no command can tell apart.
pub struct Replay {
    collection: Box<dyn ZCollection<TraceObject>>,
    objects: BTreeMap<u64, Rc<ZObject<TraceObject>>>,
    line: u64,
}

impl Replay {
    /// A replay on an empty collection.
    ///
    /// # Errors
    ///
    /// The configuration's error, as the collection's constructor reports it.
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
            objects: BTreeMap::new(),
            line: 0,
        })
    }

    /// The collection being driven.
    pub fn collection(&self) -> &dyn ZCollection<TraceObject> {
        self.collection.as_ref()
    }

    /// Runs the next input line (the line number counts every call) and
    /// appends what it prints to `out`.
    ///
    /// # Errors
    ///
    /// A [`ReplayError`] naming the line if it is malformed; nothing ran.
    pub fn run_line(&mut self, line: &[u8], out: &mut impl Write) -> Result<(), ReplayError> {
        self.line += 1;
        let line_no = self.line;
        let malformed = |error| ReplayError {
            line: line_no,
            error,
        };
        let text = core::str::from_utf8(line).map_err(|_| malformed(LineError::NotUtf8))?;
        if let Some(command) = parse_line(text).map_err(malformed)? {
            self.execute(command, out);
        }
        Ok(())
    }

    /// Runs every line of `text` (split at `\n`).
    ///
    /// # Errors
    ///
    /// The first malformed line; what ran before it stays done and printed.
    pub fn run_str(&mut self, text: &str, out: &mut impl Write) -> Result<(), ReplayError> {
        self.run_bytes(text.as_bytes(), out)
    }

    /// Runs every line of `bytes` (split at `\n`).
    ///
    /// # Errors
    ///
    /// The first malformed line; what ran before it stays done and printed.
    pub fn run_bytes(&mut self, bytes: &[u8], out: &mut impl Write) -> Result<(), ReplayError> {
        let bytes = bytes.strip_suffix(b"\n").unwrap_or(bytes);
        if bytes.is_empty() {
            return Ok(());
        }
        bytes
            .split(|&b| b == b'\n')
            .try_for_each(|line| self.run_line(line, out))
    }

    /// Executes one parsed command, appending what it prints to `out`.
    pub fn execute(&mut self, command: Command, out: &mut impl Write) {
        // Writing to a `fmt::Write` sink only fails if the sink does; the
        // example's `String` never does, so results are ignored below.
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
            let _ = writeln!(out, "err {} {}", self.line, error.code());
        }
    }

    /// Sets object `id`'s Z and runs `operation`; on error the object's Z is
    /// put back, so a refused command changes nothing at all.
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
            .is_some_and(|object| !object.is_in_collection())
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
            .finish()
    }
}

fn print_ids<'a>(
    out: &mut impl Write,
    word: &str,
    objects: impl Iterator<Item = &'a ZObject<TraceObject>>,
) -> fmt::Result {
    out.write_str(word)?;
    for object in objects {
        write!(out, " {}", object.id)?;
    }
    out.write_char('\n')
}
