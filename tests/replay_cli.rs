//! The replay tool itself (`examples/replay.rs`, included here): flags,
//! streaming, exit status and messages, with in-memory standard input,
//! output and error.

#[path = "../examples/replay.rs"]
mod cli;

use std::io::{self, Read, Write};
use std::process::ExitCode;

/// Runs the tool on `trace` with `args`: exit status, output, errors.
fn tool(args: &[&str], trace: &str) -> (ExitCode, String, String) {
    let args: Vec<String> = args.iter().map(|&arg| arg.to_owned()).collect();
    let (mut output, mut errors) = (Vec::new(), Vec::new());
    let status = cli::replay_main(&args, trace.as_bytes(), &mut output, &mut errors);
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
    assert!(
        errors.starts_with("replay: line 3: bad Z `two`"),
        "{errors}"
    );
}

#[test]
fn bad_flags_exit_two_with_the_usage() {
    for args in [
        &["--levels", "40000"][..],
        &["--prune-after", "0"],
        &["--collection", "sorted"],
        &["--levels"],
        &["--frobnicate", "1"],
    ] {
        let (status, output, errors) = tool(args, "b2f\n");
        assert_eq!(status, ExitCode::from(2), "{args:?}");
        assert_eq!(output, "", "{args:?}");
        assert!(errors.contains("usage: replay"), "{args:?}: {errors}");
    }
    let (status, output, _) = tool(&["--help"], "");
    assert_eq!(status, ExitCode::SUCCESS);
    assert!(output.starts_with("usage: replay"));
}

#[test]
fn the_simple_collection_refuses_other_z_and_goes_on() {
    let (status, output, _) = tool(
        &["--collection", "simple", "--levels", "2"],
        "add 1 2.5\nadd 1 2\nadd 2 max\nf2b\n",
    );
    assert_eq!(status, ExitCode::SUCCESS);
    assert_eq!(
        output,
        "err 1 z-out-of-range\nerr 3 z-out-of-range\nf2b 1\n"
    );
}

/// A trace generated on the fly, never held whole in memory: objects are
/// added, moved to a fractional Z and removed, and each window of them is
/// drawn, so the output is long too (flushed in pieces).
struct GeneratedTrace {
    line: usize,
    lines: usize,
    pending: Vec<u8>,
}

impl GeneratedTrace {
    fn command(line: usize) -> String {
        let id = line / 4;
        match line % 4 {
            0 => format!("add {id} {}\n", id % 7),
            1 => format!("change {id} {}.5\n", id % 5),
            2 => "b2f\n".to_owned(),
            _ if id >= 2 => format!("remove {}\n", id - 2),
            _ => "stats\n".to_owned(),
        }
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
    let input = io::BufReader::new(GeneratedTrace {
        line: 0,
        lines,
        pending: Vec::new(),
    });
    let mut output = Tail::default();
    let mut errors = Vec::new();
    let status = cli::replay_main(&[], input, &mut output, &mut errors);
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
