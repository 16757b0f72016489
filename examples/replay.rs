//! Replays a trace of Z-operations from standard input (see `zorder::replay`
//! for the format) and prints the orders and errors it produces.
//!
//! ```text
//! cargo run --release --example replay -- [--levels N] [--prune-after K] [--collection fixed|simple] < trace
//! ```
//!
//! Exit status: 0 on success, 2 for a malformed line or bad arguments (the
//! message on standard error names the line), 1 if reading or writing fails.
//!
//! `tests/replay_cli.rs` includes this file and drives [`replay_main`] with
//! in-memory input and output.

use std::io::{self, BufRead, BufReader, BufWriter, Write};
use std::process::ExitCode;

use zorder::replay::{Replay, ReplayConfig, ReplayError};

const USAGE: &str =
    "usage: replay [--levels N] [--prune-after K] [--collection fixed|simple] < trace";

#[allow(dead_code)] // `tests/replay_cli.rs` includes this file and calls `replay_main`
fn main() -> ExitCode {
    let args: Vec<String> = std::env::args().skip(1).collect();
    replay_main(
        &args,
        io::stdin().lock(),
        io::stdout().lock(),
        &mut io::stderr().lock(),
    )
}

/// The whole tool: `args` are the flags, the trace comes from `input`, the
/// orders and errors go to `output`, messages to `errors`.
pub(crate) fn replay_main(
    args: &[String],
    input: impl BufRead,
    mut output: impl Write,
    errors: &mut impl Write,
) -> ExitCode {
    // Below, a failed write of a message leaves nothing better to do.
    if args.iter().any(|arg| arg == "-h" || arg == "--help") {
        let _ = writeln!(output, "{USAGE}");
        return ExitCode::SUCCESS;
    }
    let config = match ReplayConfig::from_args(args) {
        Ok(config) => config,
        Err(message) => {
            let _ = writeln!(errors, "replay: {message}\n{USAGE}");
            return ExitCode::from(2);
        }
    };
    let mut replay = match Replay::new(config) {
        Ok(replay) => replay,
        Err(error) => {
            let _ = writeln!(errors, "replay: {error}");
            return ExitCode::from(2);
        }
    };
    match run(&mut replay, input, output) {
        Ok(Outcome::Done) => ExitCode::SUCCESS,
        Ok(Outcome::Malformed(error)) => {
            let _ = writeln!(errors, "replay: {error}");
            ExitCode::from(2)
        }
        // A closed pipe (`| head`) is the reader's choice, not a failure.
        Err(error) if error.kind() == io::ErrorKind::BrokenPipe => ExitCode::SUCCESS,
        Err(error) => {
            let _ = writeln!(errors, "replay: {error}");
            ExitCode::from(1)
        }
    }
}

enum Outcome {
    Done,
    Malformed(ReplayError),
}

/// Streams `input` through the replay: one reused line buffer, output
/// gathered in a string and flushed in large writes. Memory stays bounded
/// by the longest line, the live objects and the flush size, however long
/// the trace.
fn run(replay: &mut Replay, input: impl BufRead, output: impl Write) -> io::Result<Outcome> {
    const FLUSH_AT: usize = 1 << 16;
    let mut input = BufReader::with_capacity(1 << 16, input);
    let mut output = BufWriter::with_capacity(1 << 16, output);
    let mut line = Vec::new();
    let mut printed = String::new();
    loop {
        line.clear();
        if input.read_until(b'\n', &mut line)? == 0 {
            break;
        }
        let text = line.strip_suffix(b"\n").unwrap_or(&line);
        let outcome = replay.run_line(text, &mut printed);
        if printed.len() >= FLUSH_AT || outcome.is_err() {
            output.write_all(printed.as_bytes())?;
            printed.clear();
        }
        if let Err(error) = outcome {
            output.flush()?;
            return Ok(Outcome::Malformed(error));
        }
    }
    output.write_all(printed.as_bytes())?;
    output.flush()?;
    Ok(Outcome::Done)
}
