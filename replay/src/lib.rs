//! Replays recorded traces of Z-operations through `zorder`'s collections.
//!
//! Porting teams record what the legacy engine did to its Z-ordered
//! collection (objects added, removed, moved, and the orders it drew and
//! dispatched touches in), replay the trace here, and compare the orders.
//! The crate is a library (the parser, the executor, the command-line
//! tool's code) and a binary:
//!
//! ```text
//! cargo run --release -p zorder-replay -- [--levels N] [--prune-after K] [--collection fixed|simple] < trace
//! ```
//!
//! `--levels N` is the collection's highest optimized level (default 100,
//! at most 32767), `--prune-after K` the pruning threshold of the
//! fixed-point collection (default 8, at least 1), and `--collection`
//! picks [`FixedPointZCollection`](zorder::FixedPointZCollection) (`fixed`,
//! the default) or [`SimpleZCollection`](zorder::SimpleZCollection)
//! (`simple`).
//!
//! # The trace format
//!
//! A trace is text, one command a line:
//!
//! | command       | effect |
//! | ------------- | ------ |
//! | `add ID Z`    | set object `ID`'s Z, then `add` it |
//! | `remove ID`   | `remove` object `ID` |
//! | `change ID Z` | set object `ID`'s Z, then `change` it (re-file it, even at the same Z) |
//! | `b2f`         | print the ids back to front: `b2f 4 1 7` |
//! | `f2b`         | print the ids front to back: `f2b 7 1 4` |
//! | `stats`       | print `stats len N nonopt_buckets K`: the objects, and the buckets of Z values other than the levels and the default Z that exist (see `zorder`'s docs on pruning) |
//!
//! A command the collection refuses prints `err LINE CODE` and changes
//! nothing (the object keeps the Z it had), and the replay goes on. `CODE`
//! is `already-in-collection`, `not-in-collection` or `z-out-of-range`
//! ([`error_code`] has the codes of every [`ZError`](zorder::ZError)). A
//! traversal of an empty collection prints the bare word, `b2f`.
//!
//! **Lines.** A line ends at `\n`, at `\r\n` or at a bare `\r` (files of
//! old Mac tools), and line numbers count each line once, blank lines and
//! comments included; a `\r\n` is one line end. The last line needs no
//! ending. A UTF-8 byte-order mark at the very start of the input is
//! skipped; anywhere else it is an ordinary character, so an error.
//!
//! **Comments and words.** `#` starts a comment wherever it is, to the end
//! of the line: `add 1 3  # hero` is `add 1 3`, and so is `add 1 3#hero`.
//! Only the part of a line before its first `#` must be UTF-8, so comments
//! may hold bytes of any encoding (Latin-1 names, say). Words are separated
//! by ASCII whitespace (spaces, tabs, form feeds); commands are lowercase.
//!
//! **Ids.** `ID` is a decimal `u64`, digits only (no sign). An object comes
//! to life at the first mention of its id, at the default Z.
//!
//! **Z values.** `Z` is one of
//! - `max`: the default Z, `I16F16::MAX`;
//! - `raw:<i32>`: the exact bits, as the legacy engine's 16.16 int
//!   (`raw:-98304` is -1.5, `raw:2147483647` is `max`);
//! - a decimal number: an optional sign, digits, and at most one `.`
//!   among or around them (`3`, `-2.5`, `0.125`, `+.5`, `7.`), with as
//!   many digits as it takes.
//!
//! A decimal must be **exactly** an `I16F16` value: a multiple of 2^-16
//! from -32768 to 32767.9999847412109375. `0.5`, `-2.25` and
//! `0.0000152587890625` (2^-16) are taken as they are, digit for digit; a
//! value between two `I16F16` values, such as `0.1` or `32767.99999`, is
//! never rounded but refused, and the message names both neighbours, as
//! decimals and as `raw:` bits, so the trace can say which one it meant
//! (a neighbour beyond the range is marked out of range). Values beyond
//! the range are refused too. An exponent (`1e3`, `2.5E-1`) is refused:
//! the format is decimal, and an exponent would let one word stand for a
//! value that takes thousands of digits to check; write the digits out.
//! [`ExactDecimal`] prints any Z as the decimal that reads back as it.
//!
//! **Malformed lines.** A line that is not a command, lacks an argument,
//! has one too many, or has a bad id or Z stops the run: what the lines
//! before it printed is printed, and the tool exits with status 2 and a
//! message naming the line, such as `zorder-replay: line 5: bad Z
//! \`two\`: ...`. A message repeats at most 40 characters of a word,
//! quoted in backticks, with control characters, NUL and invisible
//! characters escaped (`\0`, `\u{feff}`), and, if it is longer, an
//! ellipsis and its length in bytes. Bad arguments also exit with status
//! 2, and failing to read the input or write the output with status 1.
//!
//! **Memory.** The trace is streamed through one reused line buffer and
//! the output written in pieces of about 64 KiB. An object in no
//! collection after a command is forgotten (a later mention of its id
//! makes it afresh, which no command can tell apart), so memory stays
//! bounded by the longest line and the objects in the collection, however
//! long the trace.
//!
//! # Example
//!
//! ```
//! use zorder_replay::{Replay, ReplayConfig};
//!
//! let mut replay = Replay::new(ReplayConfig::default())?;
//! let mut out = String::new();
//! replay.run_bytes(
//!     b"\xEF\xBB\xBF# sc\xe8ne 1, in Latin-1\r\nadd 1 max\radd 2 3  # hero\nchange 1 -0.5\nadd 2 1\nb2f\nf2b\nstats\n",
//!     &mut out,
//! )?;
//! assert_eq!(out, "err 5 already-in-collection\nb2f 1 2\nf2b 2 1\nstats len 2 nonopt_buckets 1\n");
//!
//! let error = replay.run_str("add 3 0.1\n", &mut out).unwrap_err();
//! assert_eq!(
//!     error.to_string(),
//!     "line 9: bad Z `0.1`: not exactly an I16F16 value (a multiple of 2^-16); the nearest are \
//!      0.0999908447265625 (raw:6553) and 0.100006103515625 (raw:6554)"
//! );
//! # Ok::<(), Box<dyn std::error::Error>>(())
//! ```

pub mod cli;
#[cfg(feature = "fuzzing")]
#[doc(hidden)]
pub mod fuzzing;
mod lines;
mod parse;
mod replay;

pub use lines::{BOM, LineReader};
pub use parse::{
    Command, EXCERPT_CHARS, ExactDecimal, Excerpt, LineError, ZProblem, parse_id, parse_line,
    parse_z,
};
pub use replay::{
    ArgError, CollectionKind, Replay, ReplayConfig, ReplayError, RunError, TraceObject, error_code,
};
