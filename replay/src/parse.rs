//! The trace format, one line at a time: the commands, the Z values, and
//! what can be wrong with a line.

use std::fmt::{self, Write as _};
use std::str::FromStr;

use zorder::{DEFAULT_Z, I16F16};

/// Parses one line of a trace, given without its line ending.
///
/// Everything from the first `#` to the end of the line is a comment, and
/// only what comes before it must be UTF-8. Words are separated by ASCII
/// whitespace. A line with no command (blank, or only a comment) gives
/// `Ok(None)`.
///
/// ```
/// use zorder::I16F16;
/// use zorder_replay::{Command, LineError, parse_line};
///
/// assert_eq!(
///     parse_line("change 7 raw:-98304"),
///     Ok(Some(Command::Change { id: 7, z: I16F16::from_num(-1.5) }))
/// );
/// assert_eq!(parse_line("add 1 3  # the hero"), Ok(Some(Command::Add { id: 1, z: I16F16::from_num(3) })));
/// assert_eq!(parse_line(b"  # caf\xe9, in Latin-1"), Ok(None));
/// assert!(matches!(parse_line("add 7"), Err(LineError::MissingArgument { .. })));
/// ```
///
/// # Errors
///
/// A [`LineError`] saying what is wrong with the first word that is wrong.
pub fn parse_line(line: impl AsRef<[u8]>) -> Result<Option<Command>, LineError> {
    let line = line.as_ref();
    // `#` is ASCII, so it never occurs inside the encoding of another
    // character: the first `#` byte is the first `#` character.
    let code = match line.iter().position(|&b| b == b'#') {
        Some(hash) => &line[..hash],
        None => line,
    };
    let text = std::str::from_utf8(code).map_err(|error| LineError::NotUtf8 {
        valid_up_to: error.valid_up_to(),
    })?;
    let mut words = text.split_ascii_whitespace();
    let Some(first) = words.next() else {
        return Ok(None);
    };
    let command = match first {
        "add" => Command::Add {
            id: id_argument(words.next(), "add")?,
            z: z_argument(words.next(), "add")?,
        },
        "remove" => Command::Remove {
            id: id_argument(words.next(), "remove")?,
        },
        "change" => Command::Change {
            id: id_argument(words.next(), "change")?,
            z: z_argument(words.next(), "change")?,
        },
        "b2f" => Command::BackToFront,
        "f2b" => Command::FrontToBack,
        "stats" => Command::Stats,
        other => return Err(LineError::UnknownCommand(Excerpt::new(other))),
    };
    match words.next() {
        Some(extra) => Err(LineError::ExtraArgument(Excerpt::new(extra))),
        None => Ok(Some(command)),
    }
}

fn id_argument(word: Option<&str>, command: &'static str) -> Result<u64, LineError> {
    let word = word.ok_or(LineError::MissingArgument {
        command,
        argument: "an object id",
    })?;
    parse_id(word).ok_or_else(|| LineError::BadId(Excerpt::new(word)))
}

fn z_argument(word: Option<&str>, command: &'static str) -> Result<I16F16, LineError> {
    let word = word.ok_or(LineError::MissingArgument {
        command,
        argument: "a Z",
    })?;
    parse_z(word).map_err(|problem| LineError::BadZ {
        word: Excerpt::new(word),
        problem,
    })
}

/// Parses an object id: decimal digits only (no sign), at most `u64::MAX`.
///
/// ```
/// use zorder_replay::parse_id;
///
/// assert_eq!(parse_id("0042"), Some(42));
/// assert_eq!(parse_id("+1"), None);
/// assert_eq!(parse_id("18446744073709551616"), None);
/// ```
pub fn parse_id(word: &str) -> Option<u64> {
    // `u64::from_str` takes a leading `+`, which the format does not.
    if word.bytes().all(|b| b.is_ascii_digit()) {
        word.parse().ok()
    } else {
        None
    }
}

/// Parses a Z as a trace spells it: `max` (the default Z, `I16F16::MAX`),
/// `raw:<i32>` (the exact bits, as a legacy 16.16 int), or a decimal
/// number that is exactly an `I16F16` value.
///
/// A decimal is an optional sign, then digits with at most one `.` among
/// or around them (`3`, `-2.5`, `+.5`, `7.`), with any number of digits.
/// It must be a multiple of 2^-16 from -32768 to 32767.9999847412109375:
/// nothing is rounded. Exponents (`1e3`) are refused.
///
/// ```
/// use zorder::I16F16;
/// use zorder_replay::{ZProblem, parse_z};
///
/// assert_eq!(parse_z("max"), Ok(I16F16::MAX));
/// assert_eq!(parse_z("raw:-98304"), Ok(I16F16::from_num(-1.5)));
/// assert_eq!(parse_z("0.0000152587890625"), Ok(I16F16::from_bits(1)));
/// assert_eq!(
///     parse_z("0.1"),
///     Err(ZProblem::Inexact { below: Some(I16F16::from_bits(6553)), above: Some(I16F16::from_bits(6554)) })
/// );
/// assert_eq!(parse_z("32768"), Err(ZProblem::OutOfRange));
/// assert_eq!(parse_z("1e3"), Err(ZProblem::Exponent));
/// ```
///
/// # Errors
///
/// A [`ZProblem`] saying why `word` is not a Z.
pub fn parse_z(word: &str) -> Result<I16F16, ZProblem> {
    if word == "max" {
        Ok(DEFAULT_Z)
    } else if let Some(bits) = word.strip_prefix("raw:") {
        i32::from_str(bits)
            .map(I16F16::from_bits)
            .map_err(|_| ZProblem::Raw)
    } else {
        parse_decimal(word)
    }
}

const FRAC_BITS: u32 = I16F16::FRAC_NBITS;
const ONE: u32 = 1 << FRAC_BITS;

fn is_digit(byte: &u8) -> bool {
    byte.is_ascii_digit()
}

/// A decimal number, exactly, or the two Z values around it.
fn parse_decimal(word: &str) -> Result<I16F16, ZProblem> {
    let bytes = word.as_bytes();
    let (negative, unsigned) = match bytes.split_first() {
        Some((b'-', rest)) => (true, rest),
        Some((b'+', rest)) => (false, rest),
        _ => (false, bytes),
    };
    let int_len = unsigned.iter().take_while(|b| is_digit(b)).count();
    let (int_digits, rest) = unsigned.split_at(int_len);
    let (frac_digits, rest) = match rest.split_first() {
        Some((b'.', after_point)) => {
            let frac_len = after_point.iter().take_while(|b| is_digit(b)).count();
            after_point.split_at(frac_len)
        }
        _ => (&[][..], rest),
    };
    if int_digits.is_empty() && frac_digits.is_empty() {
        return Err(ZProblem::Syntax);
    }
    if !rest.is_empty() {
        return Err(if is_exponent(rest) {
            ZProblem::Exponent
        } else {
            ZProblem::Syntax
        });
    }

    // The integer part: six significant digits or more are at least
    // 100000, out of range whatever the fraction and the sign.
    let significant = match int_digits.iter().position(|&b| b != b'0') {
        Some(first) => &int_digits[first..],
        None => &[][..],
    };
    if significant.len() > 5 {
        return Err(ZProblem::OutOfRange);
    }
    let int = significant
        .iter()
        .fold(0i64, |n, &d| n * 10 + i64::from(d - b'0'));

    // The fraction times 2^16, by schoolbook multiplication from the last
    // digit: each step keeps one digit of the product and carries the rest.
    // The digits kept are the product's fraction, so the fraction is a
    // multiple of 2^-16 exactly when they are all zero, and the final carry
    // is the whole part of the product. Linear in the digits, however many.
    let frac_end = frac_digits
        .iter()
        .rposition(|&b| b != b'0')
        .map_or(0, |last| last + 1);
    let mut carry: u32 = 0;
    let mut exact = true;
    for &digit in frac_digits[..frac_end].iter().rev() {
        let product = u32::from(digit - b'0') * ONE + carry;
        exact &= product % 10 == 0;
        carry = product / 10;
    }
    let magnitude = (int << FRAC_BITS) + i64::from(carry);

    let z = |bits: i64| i32::try_from(bits).ok().map(I16F16::from_bits);
    if exact {
        let bits = if negative { -magnitude } else { magnitude };
        return z(bits).ok_or(ZProblem::OutOfRange);
    }
    // Strictly between two multiples of 2^-16.
    let (below, above) = if negative {
        (-magnitude - 1, -magnitude)
    } else {
        (magnitude, magnitude + 1)
    };
    match (z(below), z(above)) {
        (None, None) => Err(ZProblem::OutOfRange),
        (below, above) => Err(ZProblem::Inexact { below, above }),
    }
}

/// Whether `rest` (what follows a number's digits) is an exponent: `e` or
/// `E`, an optional sign, digits.
fn is_exponent(rest: &[u8]) -> bool {
    let Some((b'e' | b'E', exponent)) = rest.split_first() else {
        return false;
    };
    let digits = match exponent.split_first() {
        Some((b'+' | b'-', digits)) => digits,
        _ => exponent,
    };
    !digits.is_empty() && digits.iter().all(is_digit)
}

/// Writes the Z of `bits` (which may lie just outside `i32`) as an exact
/// decimal: 2^-16 is 152587890625 × 10^-16, so 16 fractional digits always
/// suffice, and trailing zeros are dropped.
fn write_exact(f: &mut impl fmt::Write, bits: i64) -> fmt::Result {
    let sign = if bits < 0 { "-" } else { "" };
    let magnitude = bits.unsigned_abs();
    let int = magnitude >> FRAC_BITS;
    let mut frac = (magnitude & u64::from(ONE - 1)) * 152_587_890_625;
    if frac == 0 {
        return write!(f, "{sign}{int}");
    }
    let mut width = 16;
    while frac % 10 == 0 {
        frac /= 10;
        width -= 1;
    }
    write!(f, "{sign}{int}.{frac:0width$}")
}

/// A Z shown as the exact decimal it is, which reads back as the same Z
/// (`fixed`'s own `Display` rounds: it shows bits 6553 and 6554 both as
/// `0.1`).
///
/// ```
/// use zorder::I16F16;
/// use zorder_replay::{ExactDecimal, parse_z};
///
/// assert_eq!(ExactDecimal(I16F16::from_bits(6553)).to_string(), "0.0999908447265625");
/// assert_eq!(ExactDecimal(I16F16::from_num(-1.5)).to_string(), "-1.5");
/// assert_eq!(ExactDecimal(I16F16::MAX).to_string(), "32767.9999847412109375");
/// let z = I16F16::from_bits(-12345);
/// assert_eq!(parse_z(&ExactDecimal(z).to_string()), Ok(z));
/// ```
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub struct ExactDecimal(pub I16F16);

impl fmt::Display for ExactDecimal {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write_exact(f, i64::from(self.0.to_bits()))
    }
}

/// One command of a trace.
///
/// Its `Display` is the command's line in the format, which
/// [`parse_line`] reads back as the same command; a Z is shown as `max` or
/// as its exact decimal.
///
/// ```
/// use zorder::I16F16;
/// use zorder_replay::{Command, parse_line};
///
/// let command = Command::Add { id: 3, z: I16F16::from_bits(-1) };
/// assert_eq!(command.to_string(), "add 3 -0.0000152587890625");
/// assert_eq!(parse_line(command.to_string()), Ok(Some(command)));
/// ```
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum Command {
    /// `add ID Z`: set the object's Z, then add it.
    Add {
        /// The object.
        id: u64,
        /// Its Z.
        z: I16F16,
    },
    /// `remove ID`: remove the object.
    Remove {
        /// The object.
        id: u64,
    },
    /// `change ID Z`: set the object's Z, then change it (re-file it).
    Change {
        /// The object.
        id: u64,
        /// Its new Z.
        z: I16F16,
    },
    /// `b2f`: print the ids back to front.
    BackToFront,
    /// `f2b`: print the ids front to back.
    FrontToBack,
    /// `stats`: print the length and the non-optimized bucket count.
    Stats,
}

/// A Z as a trace spells it: `max` or the exact decimal.
struct TraceZ(I16F16);

impl fmt::Display for TraceZ {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        if self.0 == DEFAULT_Z {
            f.write_str("max")
        } else {
            ExactDecimal(self.0).fmt(f)
        }
    }
}

impl fmt::Display for Command {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match *self {
            Command::Add { id, z } => write!(f, "add {id} {}", TraceZ(z)),
            Command::Remove { id } => write!(f, "remove {id}"),
            Command::Change { id, z } => write!(f, "change {id} {}", TraceZ(z)),
            Command::BackToFront => f.write_str("b2f"),
            Command::FrontToBack => f.write_str("f2b"),
            Command::Stats => f.write_str("stats"),
        }
    }
}

/// The most characters of a word that a message repeats.
pub const EXCERPT_CHARS: usize = 40;

/// A word of the input as a message repeats it: at most
/// [`EXCERPT_CHARS`] characters of it are kept, and its `Display` quotes
/// them in backticks with control characters, NUL and other invisible
/// characters escaped (as Rust's `char::escape_debug` does), followed, if
/// the word was longer, by an ellipsis and the word's length in bytes.
///
/// ```
/// use zorder_replay::Excerpt;
///
/// assert_eq!(Excerpt::new("two").to_string(), "`two`");
/// assert_eq!(Excerpt::new("a\0b\u{feff}").to_string(), r"`a\0b\u{feff}`");
/// let long = "9".repeat(10_000_000);
/// assert_eq!(
///     Excerpt::new(&long).to_string(),
///     format!("`{}…` (10000000 bytes)", "9".repeat(40))
/// );
/// ```
#[derive(Debug, Clone, PartialEq, Eq, Hash)]
pub struct Excerpt {
    head: Box<str>,
    len: usize,
}

impl Excerpt {
    /// Keeps the first [`EXCERPT_CHARS`] characters of `word`, and its
    /// length.
    ///
    /// ```
    /// use zorder_replay::Excerpt;
    ///
    /// let excerpt = Excerpt::new(&"é".repeat(50));
    /// assert_eq!(excerpt.head().chars().count(), 40);
    /// assert_eq!(excerpt.len(), 100);
    /// assert!(excerpt.is_truncated());
    /// ```
    pub fn new(word: &str) -> Self {
        let end = word
            .char_indices()
            .nth(EXCERPT_CHARS)
            .map_or(word.len(), |(at, _)| at);
        Excerpt {
            head: word[..end].into(),
            len: word.len(),
        }
    }

    /// The characters kept: the whole word unless it was truncated.
    ///
    /// ```
    /// use zorder_replay::Excerpt;
    ///
    /// assert_eq!(Excerpt::new("jump").head(), "jump");
    /// ```
    pub fn head(&self) -> &str {
        &self.head
    }

    /// The length of the whole word, in bytes.
    ///
    /// ```
    /// use zorder_replay::Excerpt;
    ///
    /// assert_eq!(Excerpt::new("jump").len(), 4);
    /// ```
    pub fn len(&self) -> usize {
        self.len
    }

    /// Whether the word was empty.
    ///
    /// ```
    /// use zorder_replay::Excerpt;
    ///
    /// assert!(Excerpt::new("").is_empty());
    /// ```
    pub fn is_empty(&self) -> bool {
        self.len == 0
    }

    /// Whether characters of the word were left out.
    ///
    /// ```
    /// use zorder_replay::Excerpt;
    ///
    /// assert!(!Excerpt::new("jump").is_truncated());
    /// ```
    pub fn is_truncated(&self) -> bool {
        self.head.len() < self.len
    }
}

impl fmt::Display for Excerpt {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_char('`')?;
        for c in self.head.chars() {
            match c {
                // Quotes need no escape between backticks.
                '"' | '\'' => f.write_char(c)?,
                _ => write!(f, "{}", c.escape_debug())?,
            }
        }
        if self.is_truncated() {
            write!(f, "…` ({} bytes)", self.len)
        } else {
            f.write_char('`')
        }
    }
}

/// Why a word is not a Z.
///
/// ```
/// use zorder_replay::{ZProblem, parse_z};
///
/// assert_eq!(parse_z("two"), Err(ZProblem::Syntax));
/// assert_eq!(parse_z("raw:2147483648"), Err(ZProblem::Raw));
/// assert!(parse_z("32767.99999").unwrap_err().to_string().contains("32767.9999847412109375 (raw:2147483647)"));
/// ```
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
#[non_exhaustive]
pub enum ZProblem {
    /// Neither `max`, nor `raw:` with anything after it, nor a decimal
    /// number.
    Syntax,
    /// A decimal number with an exponent (`1e3`, `2.5E-1`), which the
    /// format does not take.
    Exponent,
    /// `raw:` followed by something other than an `i32`.
    Raw,
    /// A number below -32768 or above 32767.9999847412109375, and not
    /// within 2^-16 of either.
    OutOfRange,
    /// A number strictly between two consecutive multiples of 2^-16: the
    /// Z values just below and just above it, `None` for one beyond the
    /// range (the number is then within 2^-16 outside it).
    Inexact {
        /// The largest Z below the number.
        below: Option<I16F16>,
        /// The smallest Z above the number.
        above: Option<I16F16>,
    },
}

impl ZProblem {
    fn neighbour(f: &mut fmt::Formatter<'_>, z: Option<I16F16>, beyond: i64) -> fmt::Result {
        match z {
            Some(z) => write!(f, "{} (raw:{})", ExactDecimal(z), z.to_bits()),
            None => {
                write_exact(f, beyond)?;
                f.write_str(" (out of range)")
            }
        }
    }
}

impl fmt::Display for ZProblem {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match *self {
            ZProblem::Syntax => f.write_str(
                "expected `max`, `raw:<i32>`, or a decimal number such as 3, -2.5 or 0.125",
            ),
            ZProblem::Exponent => f.write_str(
                "exponents are not part of the trace format: write the decimal digits out",
            ),
            ZProblem::Raw => {
                f.write_str("`raw:` takes the Z's bits as an i32, from -2147483648 to 2147483647")
            }
            ZProblem::OutOfRange => f.write_str(
                "out of range: a Z runs from -32768 to 32767.9999847412109375 \
                 (raw:-2147483648 to raw:2147483647)",
            ),
            ZProblem::Inexact { below, above } => {
                f.write_str("not exactly an I16F16 value (a multiple of 2^-16); the nearest are ")?;
                let below_bits = below.map_or(i64::from(i32::MIN) - 1, |z| i64::from(z.to_bits()));
                let above_bits = above.map_or(i64::from(i32::MAX) + 1, |z| i64::from(z.to_bits()));
                Self::neighbour(f, below, below_bits)?;
                f.write_str(" and ")?;
                Self::neighbour(f, above, above_bits)
            }
        }
    }
}

impl std::error::Error for ZProblem {}

/// What is wrong with a malformed line.
///
/// ```
/// use zorder_replay::{Excerpt, LineError, parse_line};
///
/// let error = parse_line("jump 1").unwrap_err();
/// assert_eq!(error, LineError::UnknownCommand(Excerpt::new("jump")));
/// assert_eq!(
///     error.to_string(),
///     "unknown command `jump` (expected add, remove, change, b2f, f2b or stats)"
/// );
/// ```
#[derive(Debug, Clone, PartialEq, Eq, Hash)]
#[non_exhaustive]
pub enum LineError {
    /// The line before any `#` is not UTF-8.
    NotUtf8 {
        /// How many bytes of the line are valid UTF-8 before the first
        /// invalid one.
        valid_up_to: usize,
    },
    /// The first word is not a command.
    UnknownCommand(Excerpt),
    /// A command lacks an argument.
    MissingArgument {
        /// The command.
        command: &'static str,
        /// The argument it lacks, with its article (`a Z`).
        argument: &'static str,
    },
    /// A command has more arguments than it takes: the first extra one.
    ExtraArgument(Excerpt),
    /// An id is not a decimal `u64`.
    BadId(Excerpt),
    /// A Z is not one.
    BadZ {
        /// The word.
        word: Excerpt,
        /// Why it is not a Z.
        problem: ZProblem,
    },
}

impl fmt::Display for LineError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            LineError::NotUtf8 { valid_up_to } => write!(
                f,
                "not valid UTF-8 from byte {} on (only a comment, after `#`, may hold other encodings)",
                valid_up_to + 1
            ),
            LineError::UnknownCommand(word) => write!(
                f,
                "unknown command {word} (expected add, remove, change, b2f, f2b or stats)"
            ),
            LineError::MissingArgument { command, argument } => {
                write!(f, "`{command}` needs {argument}")
            }
            LineError::ExtraArgument(word) => write!(f, "unexpected extra argument {word}"),
            LineError::BadId(word) => {
                write!(f, "bad object id {word} (expected a decimal u64)")
            }
            LineError::BadZ { word, problem } => write!(f, "bad Z {word}: {problem}"),
        }
    }
}

impl std::error::Error for LineError {}

#[cfg(test)]
mod tests {
    use super::*;

    fn z(bits: i32) -> I16F16 {
        I16F16::from_bits(bits)
    }

    fn add(id: u64, z: I16F16) -> Option<Command> {
        Some(Command::Add { id, z })
    }

    #[test]
    fn commands_parse_as_the_format_says() {
        assert_eq!(parse_line("add 1 2"), Ok(add(1, z(2 << 16))));
        assert_eq!(
            parse_line("\tremove  18446744073709551615 "),
            Ok(Some(Command::Remove { id: u64::MAX }))
        );
        assert_eq!(
            parse_line("change 0 max"),
            Ok(Some(Command::Change {
                id: 0,
                z: I16F16::MAX
            }))
        );
        assert_eq!(parse_line("b2f"), Ok(Some(Command::BackToFront)));
        assert_eq!(parse_line("f2b"), Ok(Some(Command::FrontToBack)));
        assert_eq!(parse_line("stats"), Ok(Some(Command::Stats)));
        assert_eq!(parse_line(""), Ok(None));
        assert_eq!(parse_line(" \t "), Ok(None));
        assert_eq!(parse_line("#add 1 2"), Ok(None));
        assert_eq!(parse_line("  # add 1 2"), Ok(None));
    }

    #[test]
    fn malformed_lines_are_named_precisely() {
        let e = Excerpt::new;
        let bad_z = |word: &str, problem| LineError::BadZ {
            word: e(word),
            problem,
        };
        let cases: &[(&[u8], LineError)] = &[
            (b"jump 1", LineError::UnknownCommand(e("jump"))),
            (b"ADD 1 2", LineError::UnknownCommand(e("ADD"))),
            (
                b"add 1",
                LineError::MissingArgument {
                    command: "add",
                    argument: "a Z",
                },
            ),
            (
                b"change",
                LineError::MissingArgument {
                    command: "change",
                    argument: "an object id",
                },
            ),
            (
                b"remove",
                LineError::MissingArgument {
                    command: "remove",
                    argument: "an object id",
                },
            ),
            (b"b2f now", LineError::ExtraArgument(e("now"))),
            (b"remove 1 2", LineError::ExtraArgument(e("2"))),
            (b"add -1 2", LineError::BadId(e("-1"))),
            (b"add +1 2", LineError::BadId(e("+1"))),
            (
                b"add 18446744073709551616 2",
                LineError::BadId(e("18446744073709551616")),
            ),
            (b"add 1 two", bad_z("two", ZProblem::Syntax)),
            (b"add 1 32768", bad_z("32768", ZProblem::OutOfRange)),
            (
                b"add 1 raw:2147483648",
                bad_z("raw:2147483648", ZProblem::Raw),
            ),
            (b"add 1 raw:", bad_z("raw:", ZProblem::Raw)),
            (b"add 1 MAX", bad_z("MAX", ZProblem::Syntax)),
            (b"add 1 1_0", bad_z("1_0", ZProblem::Syntax)),
            (b"add 1 nan", bad_z("nan", ZProblem::Syntax)),
            (b"add 1 .", bad_z(".", ZProblem::Syntax)),
            (b"add 1 \xff", LineError::NotUtf8 { valid_up_to: 6 }),
        ];
        for (line, expected) in cases {
            assert_eq!(
                &parse_line(line).unwrap_err(),
                expected,
                "{}",
                String::from_utf8_lossy(line)
            );
        }
    }

    /// Issue: `add 1 3  # hero` was refused, though `#` starts a comment.
    #[test]
    fn a_comment_may_follow_a_command() {
        assert_eq!(parse_line("add 1 3  # hero"), Ok(add(1, z(3 << 16))));
        assert_eq!(parse_line("add 1 3# hero"), Ok(add(1, z(3 << 16))));
        assert_eq!(parse_line("b2f # draw"), Ok(Some(Command::BackToFront)));
        assert_eq!(
            parse_line("remove 4 #"),
            Ok(Some(Command::Remove { id: 4 }))
        );
        // The comment does not hide what is missing before it.
        assert_eq!(
            parse_line("add 1 # 3"),
            Err(LineError::MissingArgument {
                command: "add",
                argument: "a Z"
            })
        );
        assert_eq!(
            parse_line("b2f 2 # x"),
            Err(LineError::ExtraArgument(Excerpt::new("2")))
        );
    }

    /// Issue: a Latin-1 byte in a comment stopped the run as invalid
    /// UTF-8, though comments are ignored.
    #[test]
    fn only_the_part_before_the_comment_must_be_utf8() {
        assert_eq!(parse_line(b"# caf\xe9 cr\xe8me"), Ok(None));
        assert_eq!(parse_line(b"   #\xff\xfe\x00"), Ok(None));
        assert_eq!(parse_line(b"add 1 3 # h\xe9ros"), Ok(add(1, z(3 << 16))));
        assert_eq!(parse_line(b"add 1 3#\xe9"), Ok(add(1, z(3 << 16))));
        // Before the `#` it still must be.
        assert_eq!(
            parse_line(b"add 1 3\xe9 # x"),
            Err(LineError::NotUtf8 { valid_up_to: 7 })
        );
        assert_eq!(
            parse_line(b"\xe9"),
            Err(LineError::NotUtf8 { valid_up_to: 0 })
        );
        // UTF-8 in a comment is fine too, of course.
        assert_eq!(parse_line("stats # état"), Ok(Some(Command::Stats)));
    }

    #[test]
    fn z_values_parse_as_the_format_says() {
        assert_eq!(parse_z("max"), Ok(I16F16::MAX));
        assert_eq!(parse_z("raw:-98304"), Ok(I16F16::from_num(-1.5)));
        assert_eq!(parse_z("raw:-2147483648"), Ok(I16F16::MIN));
        assert_eq!(parse_z("raw:2147483647"), Ok(I16F16::MAX));
        assert_eq!(parse_z("3"), Ok(z(3 << 16)));
        assert_eq!(parse_z("-2.5"), Ok(I16F16::from_num(-2.5)));
        assert_eq!(parse_z("0.125"), Ok(I16F16::from_num(0.125)));
        assert_eq!(parse_z("-32768"), Ok(I16F16::MIN));
        assert_eq!(parse_z("-32768.000"), Ok(I16F16::MIN));
        assert_eq!(parse_z("32767.9999847412109375"), Ok(I16F16::MAX));
        // Signs and bare points, as decimal literals allow.
        assert_eq!(parse_z("+3"), Ok(z(3 << 16)));
        assert_eq!(parse_z(".5"), Ok(z(1 << 15)));
        assert_eq!(parse_z("-.5"), Ok(z(-(1 << 15))));
        assert_eq!(parse_z("5."), Ok(z(5 << 16)));
        assert_eq!(parse_z("-0"), Ok(z(0)));
        assert_eq!(parse_z("00003"), Ok(z(3 << 16)));
    }

    /// Issue: decimals that are exactly `I16F16` values stay accepted, with
    /// any number of digits.
    #[test]
    fn exact_decimals_are_taken_digit_for_digit() {
        assert_eq!(parse_z("0.5"), Ok(z(1 << 15)));
        assert_eq!(parse_z("-2.25"), Ok(I16F16::from_num(-2.25)));
        assert_eq!(parse_z("0.0000152587890625"), Ok(z(1)));
        assert_eq!(parse_z("-0.0000152587890625"), Ok(z(-1)));
        assert_eq!(parse_z("0.0999908447265625"), Ok(z(6553)));
        assert_eq!(parse_z("0.100006103515625"), Ok(z(6554)));
        assert_eq!(
            parse_z("0.5000000000000000000000000000000000"),
            Ok(z(1 << 15))
        );
        let zeros = format!("{}1.{}", "0".repeat(10_000), "0".repeat(10_000));
        assert_eq!(parse_z(&zeros), Ok(z(1 << 16)));
        // Every Z reads back from its exact decimal.
        for bits in [
            i32::MIN,
            i32::MIN + 1,
            -65537,
            -65536,
            -1,
            0,
            1,
            6553,
            65535,
            i32::MAX - 1,
            i32::MAX,
        ] {
            let text = ExactDecimal(z(bits)).to_string();
            assert_eq!(parse_z(&text), Ok(z(bits)), "{text}");
        }
    }

    /// Issue: `32767.99999` silently became `max`; a decimal that is not
    /// exactly an `I16F16` must be refused, naming its two neighbours.
    #[test]
    fn inexact_decimals_are_refused_naming_both_neighbours() {
        assert_eq!(
            parse_z("32767.99999"),
            Err(ZProblem::Inexact {
                below: Some(I16F16::MAX),
                above: None
            })
        );
        assert_eq!(
            parse_z("-32768.00001"),
            Err(ZProblem::Inexact {
                below: None,
                above: Some(I16F16::MIN)
            })
        );
        assert_eq!(
            parse_z("0.1"),
            Err(ZProblem::Inexact {
                below: Some(z(6553)),
                above: Some(z(6554))
            })
        );
        assert_eq!(
            parse_z("-0.1"),
            Err(ZProblem::Inexact {
                below: Some(z(-6554)),
                above: Some(z(-6553))
            })
        );
        assert_eq!(
            parse_z("0.00001"),
            Err(ZProblem::Inexact {
                below: Some(z(0)),
                above: Some(z(1))
            })
        );
        assert_eq!(
            parse_z("-0.00001"),
            Err(ZProblem::Inexact {
                below: Some(z(-1)),
                above: Some(z(0))
            })
        );
        // One digit too many past an exact value.
        assert_eq!(
            parse_z("0.00001525878906251"),
            Err(ZProblem::Inexact {
                below: Some(z(1)),
                above: Some(z(2))
            })
        );
        // A long decimal costs no more than its digits (fewer under Miri).
        let zeros = if cfg!(miri) { 2_000 } else { 100_000 };
        let long = format!("1.{}1", "0".repeat(zeros));
        assert_eq!(
            parse_z(&long),
            Err(ZProblem::Inexact {
                below: Some(z(1 << 16)),
                above: Some(z((1 << 16) + 1))
            })
        );

        let message = parse_line("add 1 32767.99999").unwrap_err().to_string();
        assert_eq!(
            message,
            "bad Z `32767.99999`: not exactly an I16F16 value (a multiple of 2^-16); the nearest are \
             32767.9999847412109375 (raw:2147483647) and 32768 (out of range)"
        );
        assert_eq!(
            parse_z("0.1").unwrap_err().to_string(),
            "not exactly an I16F16 value (a multiple of 2^-16); the nearest are \
             0.0999908447265625 (raw:6553) and 0.100006103515625 (raw:6554)"
        );
        assert_eq!(
            parse_z("-32768.00001").unwrap_err().to_string(),
            "not exactly an I16F16 value (a multiple of 2^-16); the nearest are \
             -32768.0000152587890625 (out of range) and -32768 (raw:-2147483648)"
        );
    }

    #[test]
    fn values_out_of_range_are_refused() {
        for word in [
            "32768",
            "-32769",
            "32768.5",
            "-32768.0000152587890625",
            "40000",
            "100000",
            "-99999999999999999999.5",
        ] {
            assert_eq!(parse_z(word), Err(ZProblem::OutOfRange), "{word}");
        }
        assert!(
            parse_z("32768")
                .unwrap_err()
                .to_string()
                .starts_with("out of range")
        );
    }

    /// Issue: `1e3` was accepted though the format says decimal; exponents
    /// are refused, with a message saying so.
    #[test]
    fn exponents_are_refused() {
        for word in ["1e3", "1E3", "1e-3", "2.5e+1", "-1.e3", ".5e1"] {
            assert_eq!(parse_z(word), Err(ZProblem::Exponent), "{word}");
        }
        for word in ["e3", "1e", "1e+", "1ee3", "1e3.0", "1x3"] {
            assert_eq!(parse_z(word), Err(ZProblem::Syntax), "{word}");
        }
        assert_eq!(
            parse_line("add 1 1e3").unwrap_err().to_string(),
            "bad Z `1e3`: exponents are not part of the trace format: write the decimal digits out"
        );
    }

    /// Issue: a 10 MB token was echoed whole, and a NUL byte raw.
    #[test]
    fn messages_quote_and_truncate_what_they_repeat() {
        // A 10 MB token (8 KB under Miri, which is slower per byte).
        let bytes = if cfg!(miri) {
            8 * 1024
        } else {
            10 * 1024 * 1024
        };
        let huge = "x".repeat(bytes);
        let message = parse_line(format!("{huge} 1")).unwrap_err().to_string();
        assert_eq!(
            message,
            format!(
                "unknown command `{}…` ({bytes} bytes) (expected add, remove, change, b2f, f2b or stats)",
                "x".repeat(EXCERPT_CHARS)
            )
        );
        let message = parse_line(format!("add 1 {huge}")).unwrap_err().to_string();
        assert!(message.len() < 300, "{} bytes", message.len());

        let message = parse_line(b"add 1 2\x00").unwrap_err().to_string();
        assert!(message.starts_with(r"bad Z `2\0`: "), "{message}");
        assert!(!message.contains('\0'));
        let message = parse_line(b"ad\x1bd\x07 1 2").unwrap_err().to_string();
        assert!(
            message.starts_with(r"unknown command `ad\u{1b}d\u{7}`"),
            "{message}"
        );
        // Tabs and form feeds separate words; other controls are escaped.
        let message = parse_line("b2f \u{0b}x").unwrap_err().to_string();
        assert_eq!(message, r"unexpected extra argument `\u{b}x`");
        // A multi-byte character is never cut in half.
        let message = parse_line(format!("{} 1", "é".repeat(100)))
            .unwrap_err()
            .to_string();
        assert!(
            message.starts_with(&format!(
                "unknown command `{}…` (200 bytes)",
                "é".repeat(40)
            )),
            "{message}"
        );
    }

    #[test]
    fn commands_display_as_lines_that_read_back() {
        let commands = [
            Command::Add {
                id: 0,
                z: I16F16::MAX,
            },
            Command::Add {
                id: 1,
                z: I16F16::MIN,
            },
            Command::Change {
                id: u64::MAX,
                z: z(6553),
            },
            Command::Remove { id: 9 },
            Command::BackToFront,
            Command::FrontToBack,
            Command::Stats,
        ];
        for command in commands {
            assert_eq!(
                parse_line(command.to_string()),
                Ok(Some(command)),
                "{command}"
            );
        }
        assert_eq!(
            Command::Add {
                id: 0,
                z: I16F16::MAX
            }
            .to_string(),
            "add 0 max"
        );
    }
}
