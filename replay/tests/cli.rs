//! The command-line tool, run in-process through
//! [`zorder_replay::cli::replay_main`] with in-memory input, output and
//! errors: flags, streaming, exit statuses and messages.

use std::io::{self, Read, Write};
use std::process::ExitCode;

use zorder_replay::cli::replay_main;

/// Runs the tool on `trace` with `args`: exit status, output, errors.
fn tool(args: &[&str], trace: impl AsRef<[u8]>) -> (ExitCode, String, String) {
    let (mut output, mut errors) = (Vec::new(), Vec::new());
    let status = replay_main(args, trace.as_ref(), &mut output, &mut errors);
    let text = |bytes: Vec<u8>| String::from_utf8(bytes).expect("UTF-8 output");
    (status, text(output), text(errors))
}

#[test]
fn a_good_trace_prints_its_orders_and_exits_zero() {
    let (status, output, errors) = tool(
        &["--levels", "3"],
        "# comment\nadd 1 max\nadd 2 3\nchange 1 -0.5\nadd 2 1\nb2f\nf2b\nstats\n",
    );
    assert_eq!(status, ExitCode::SUCCESS);
    assert_eq!(
        output,
        "err 5 already-in-collection\nb2f 1 2\nf2b 2 1\nstats len 2 nonopt_buckets 1\n"
    );
    assert_eq!(errors, "");
}

#[test]
fn a_malformed_line_exits_two_naming_the_line_after_printing_what_came_before() {
    let (status, output, errors) = tool(&[], "add 1 2\nb2f\nadd 2 two\nb2f\n");
    assert_eq!(status, ExitCode::from(2));
    assert_eq!(output, "b2f 1\n", "what ran before the bad line is printed");
    assert_eq!(
        errors,
        "zorder-replay: line 3: bad Z `two`: expected `max`, `raw:<i32>`, or a decimal number such as 3, -2.5 or 0.125\n"
    );
}

#[test]
fn the_simple_collection_refuses_other_z_and_goes_on() {
    let (status, output, _) = tool(
        &["--collection", "simple", "--levels", "2"],
        "add 1 2.5\nadd 1 2\nadd 2 max\nadd 1 1\nremove 3\nchange 3 1\nchange 1 9\nf2b\n",
    );
    assert_eq!(status, ExitCode::SUCCESS);
    assert_eq!(
        output,
        "err 1 z-out-of-range\nerr 3 z-out-of-range\nerr 4 already-in-collection\n\
         err 5 not-in-collection\nerr 6 not-in-collection\nerr 7 z-out-of-range\nf2b 1\n"
    );
}

#[test]
fn bad_flags_exit_two_with_the_usage() {
    for (args, message) in [
        (
            &["--levels", "40000"][..],
            "--levels: `40000` is not a number from 0 to 32767",
        ),
        (
            &["--prune-after", "0"],
            "--prune-after: `0` is not a number from 1 to 4294967295",
        ),
        (
            &["--collection", "sorted"],
            "--collection: `sorted` is not `fixed` or `simple`",
        ),
        (&["--levels"], "--levels needs a value"),
        (&["--frobnicate", "1"], "unknown argument `--frobnicate`"),
    ] {
        let (status, output, errors) = tool(args, "b2f\n");
        assert_eq!(status, ExitCode::from(2), "{args:?}");
        assert_eq!(output, "", "{args:?}");
        assert_eq!(
            errors,
            format!(
                "zorder-replay: {message}\nusage: zorder-replay [--levels N] [--prune-after K] [--collection fixed|simple] < trace\n"
            ),
            "{args:?}"
        );
    }
    let (status, output, errors) = tool(&["--help"], "");
    assert_eq!(status, ExitCode::SUCCESS);
    assert!(output.starts_with("usage: zorder-replay"));
    assert_eq!(errors, "");
}

/// Issue: `replay extra` said "extra needs a value".
#[test]
fn an_unknown_argument_is_named_as_unknown() {
    let (status, output, errors) = tool(&["extra"], "b2f\n");
    assert_eq!(status, ExitCode::from(2));
    assert_eq!(output, "");
    assert!(
        errors.starts_with("zorder-replay: unknown argument `extra`\nusage: "),
        "{errors}"
    );
    let (_, _, errors) = tool(&["--levels", "3", "extra"], "b2f\n");
    assert!(
        errors.starts_with("zorder-replay: unknown argument `extra`\n"),
        "{errors}"
    );
}

/// Issue: a UTF-8 byte-order mark gave "unknown command `add`" on line 1.
#[test]
fn a_byte_order_mark_at_the_start_is_skipped() {
    let (status, output, errors) = tool(&[], b"\xEF\xBB\xBFadd 1 2\nadd 1 3\nb2f\n");
    assert_eq!((status, errors.as_str()), (ExitCode::SUCCESS, ""));
    assert_eq!(output, "err 2 already-in-collection\nb2f 1\n");
    // Anywhere else it is no space: it is refused, and shown escaped.
    let (status, output, errors) = tool(&[], b"b2f\n\xEF\xBB\xBFadd 1 2\n");
    assert_eq!(status, ExitCode::from(2));
    assert_eq!(output, "b2f\n");
    assert!(
        errors.starts_with(r"zorder-replay: line 2: unknown command `\u{feff}add`"),
        "{errors}"
    );
}

/// Issue: `add 1 3  # hero` was refused, though `#` starts a comment; and
/// a Latin-1 byte in a comment stopped the run as invalid UTF-8.
#[test]
fn comments_may_follow_commands_and_hold_any_bytes() {
    let (status, output, errors) = tool(
        &[],
        b"# sc\xe8ne d'ouverture\nadd 1 3  # hero\nadd 2 3 # h\xe9ros\nadd 1 1 #\xff\nf2b # touches\n",
    );
    assert_eq!(errors, "");
    assert_eq!(status, ExitCode::SUCCESS);
    assert_eq!(output, "err 4 already-in-collection\nf2b 2 1\n");
    // Before the `#`, the line must still be UTF-8.
    let (status, _, errors) = tool(&[], b"add 1 3\nadd 2 3\xe9 # x\n");
    assert_eq!(status, ExitCode::from(2));
    assert_eq!(
        errors,
        "zorder-replay: line 2: not valid UTF-8 from byte 8 on (only a comment, after `#`, may hold other encodings)\n"
    );
}

/// Issue: bare CR line endings (old Mac tools) failed.
#[test]
fn lf_crlf_and_bare_cr_all_end_lines() {
    let (status, output, errors) = tool(
        &[],
        "add 1 2\rremove 5\r\nremove 6\nremove 7\r\rb2f\rremove 8",
    );
    assert_eq!((status, errors.as_str()), (ExitCode::SUCCESS, ""));
    assert_eq!(
        output,
        "err 2 not-in-collection\nerr 3 not-in-collection\nerr 4 not-in-collection\nb2f 1\nerr 7 not-in-collection\n"
    );
    let (status, _, errors) = tool(&[], "b2f\r\rb2f\r\nstats x\r");
    assert_eq!(status, ExitCode::from(2));
    assert_eq!(
        errors,
        "zorder-replay: line 4: unexpected extra argument `x`\n"
    );
}

/// Issue: a 10 MB malformed token was echoed whole to standard error, and
/// a NUL byte raw.
#[test]
fn messages_quote_truncate_and_escape_what_they_repeat() {
    // 10 MB (16 KB under Miri, which is slower per byte).
    let digits = if cfg!(miri) { 16_384 } else { 10_000_000 };
    let mut trace = b"add 1 2\nadd 2 ".to_vec();
    trace.extend(std::iter::repeat_n(b'7', digits));
    trace.extend_from_slice(b".5x\n");
    let (status, output, errors) = tool(&[], &trace);
    assert_eq!(status, ExitCode::from(2));
    assert_eq!(output, "");
    assert_eq!(
        errors,
        format!(
            "zorder-replay: line 2: bad Z `{}…` ({} bytes): expected `max`, `raw:<i32>`, or a decimal number such as 3, -2.5 or 0.125\n",
            "7".repeat(40),
            digits + 3
        )
    );

    let (status, _, errors) = tool(&[], b"add 1\x00 2\n");
    assert_eq!(status, ExitCode::from(2));
    assert_eq!(
        errors,
        "zorder-replay: line 1: bad object id `1\\0` (expected a decimal u64)\n"
    );
    assert!(!errors.contains('\0'));

    let (_, _, errors) = tool(&["--collection", "simple\u{7}\u{0}"], "");
    assert_eq!(
        errors.lines().next(),
        Some(r"zorder-replay: --collection: `simple\u{7}\0` is not `fixed` or `simple`")
    );
}

/// Issue: `32767.99999` silently became `max`.
#[test]
fn an_inexact_decimal_stops_the_run_naming_both_neighbours() {
    let (status, output, errors) = tool(
        &[],
        "add 1 0.5\nadd 2 -2.25\nadd 3 0.0000152587890625\nb2f\nadd 4 32767.99999\n",
    );
    assert_eq!(status, ExitCode::from(2));
    assert_eq!(output, "b2f 2 3 1\n");
    assert_eq!(
        errors,
        "zorder-replay: line 5: bad Z `32767.99999`: not exactly an I16F16 value (a multiple of 2^-16); \
         the nearest are 32767.9999847412109375 (raw:2147483647) and 32768 (out of range)\n"
    );
    let (status, _, errors) = tool(&[], "add 1 -0.1\n");
    assert_eq!(status, ExitCode::from(2));
    assert_eq!(
        errors,
        "zorder-replay: line 1: bad Z `-0.1`: not exactly an I16F16 value (a multiple of 2^-16); \
         the nearest are -0.100006103515625 (raw:-6554) and -0.0999908447265625 (raw:-6553)\n"
    );
    let (status, _, errors) = tool(&[], "add 1 32768\n");
    assert_eq!(status, ExitCode::from(2));
    assert!(
        errors.starts_with("zorder-replay: line 1: bad Z `32768`: out of range"),
        "{errors}"
    );
}

/// Issue: `1e3` was accepted though the format says decimal.
#[test]
fn an_exponent_stops_the_run() {
    let (status, output, errors) = tool(&[], "add 1 1000\nadd 2 1e3\n");
    assert_eq!(status, ExitCode::from(2));
    assert_eq!(output, "");
    assert_eq!(
        errors,
        "zorder-replay: line 2: bad Z `1e3`: exponents are not part of the trace format: write the decimal digits out\n"
    );
}

/// Fails every read after giving `good` bytes.
struct FailingInput<'a> {
    good: &'a [u8],
}

impl Read for FailingInput<'_> {
    fn read(&mut self, buf: &mut [u8]) -> io::Result<usize> {
        if self.good.is_empty() {
            return Err(io::Error::other("disk on fire"));
        }
        let n = buf.len().min(self.good.len());
        buf[..n].copy_from_slice(&self.good[..n]);
        self.good = &self.good[n..];
        Ok(n)
    }
}

/// Fails every write with `kind`.
struct FailingOutput(io::ErrorKind);

impl Write for FailingOutput {
    fn write(&mut self, _: &[u8]) -> io::Result<usize> {
        Err(self.0.into())
    }

    fn flush(&mut self) -> io::Result<()> {
        Ok(())
    }
}

#[test]
fn input_and_output_failures_exit_one_but_a_closed_pipe_is_fine() {
    let input = io::BufReader::new(FailingInput {
        good: b"add 1 2\nb2f\n",
    });
    let (mut output, mut errors) = (Vec::new(), Vec::new());
    let status = replay_main::<&str>(&[], input, &mut output, &mut errors);
    assert_eq!(status, ExitCode::from(1));
    assert_eq!(
        String::from_utf8(errors).unwrap(),
        "zorder-replay: disk on fire\n"
    );

    let mut errors = Vec::new();
    let status = replay_main::<&str>(
        &[],
        &b"b2f\n"[..],
        FailingOutput(io::ErrorKind::PermissionDenied),
        &mut errors,
    );
    assert_eq!(status, ExitCode::from(1));
    assert!(
        String::from_utf8(errors)
            .unwrap()
            .starts_with("zorder-replay: ")
    );

    let mut errors = Vec::new();
    let status = replay_main::<&str>(
        &[],
        &b"b2f\n"[..],
        FailingOutput(io::ErrorKind::BrokenPipe),
        &mut errors,
    );
    assert_eq!(status, ExitCode::SUCCESS);
    assert!(errors.is_empty());
}

/// A trace generated on the fly, never held whole in memory: objects are
/// added, moved to a fractional Z and removed, and each window of them is
/// drawn, so the output is long too (written in pieces). Line ends cycle
/// through `\n`, `\r\n` and `\r`.
struct GeneratedTrace {
    line: usize,
    lines: usize,
    pending: Vec<u8>,
}

impl GeneratedTrace {
    fn command(line: usize) -> String {
        let id = line / 4;
        let command = match line % 4 {
            0 => format!("add {id} {}", id % 7),
            1 => format!("change {id} {}.5 # moved", id % 5),
            2 => "b2f".to_owned(),
            _ if id >= 2 => format!("remove {}", id - 2),
            _ => "stats".to_owned(),
        };
        let end = ["\n", "\r\n", "\r"][line % 3];
        command + end
    }
}

impl Read for GeneratedTrace {
    fn read(&mut self, buf: &mut [u8]) -> io::Result<usize> {
        while self.pending.len() < buf.len() && self.line < self.lines {
            self.pending
                .extend_from_slice(Self::command(self.line).as_bytes());
            self.line += 1;
        }
        let n = buf.len().min(self.pending.len());
        buf[..n].copy_from_slice(&self.pending[..n]);
        self.pending.drain(..n);
        Ok(n)
    }
}

/// Counts the lines it is given and keeps only the last whole one.
#[derive(Default)]
struct Tail {
    lines: usize,
    current: Vec<u8>,
    last: Vec<u8>,
}

impl Write for Tail {
    fn write(&mut self, buf: &[u8]) -> io::Result<usize> {
        for &b in buf {
            if b == b'\n' {
                self.lines += 1;
                self.last = std::mem::take(&mut self.current);
            } else {
                self.current.push(b);
            }
        }
        Ok(buf.len())
    }

    fn flush(&mut self) -> io::Result<()> {
        Ok(())
    }
}

#[test]
fn long_traces_stream_through() {
    let lines = if cfg!(miri) { 400 } else { 400_000 };
    let input = io::BufReader::with_capacity(
        1000,
        GeneratedTrace {
            line: 0,
            lines,
            pending: Vec::new(),
        },
    );
    let mut output = Tail::default();
    let mut errors = Vec::new();
    let status = replay_main::<&str>(&[], input, &mut output, &mut errors);
    assert_eq!(
        status,
        ExitCode::SUCCESS,
        "{}",
        String::from_utf8_lossy(&errors)
    );
    // One `b2f` per object, and a `stats` for each of the first two, which
    // have nothing two behind them to remove. Each `b2f` shows the object
    // and the two before it: back to front, the one changed to the lowest
    // Z first.
    assert_eq!(output.lines, lines / 4 + 2);
    let last_id = lines / 4 - 1;
    let mut live: Vec<usize> = (last_id - 2..=last_id).collect();
    live.sort_by_key(|&id| (id % 5, id));
    let expected = format!("b2f {} {} {}", live[0], live[1], live[2]);
    assert_eq!(String::from_utf8_lossy(&output.last), expected);
}
