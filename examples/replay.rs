//! Replays a trace of Z-operations from standard input (see `zorder::replay`
//! for the format) and prints the orders and errors it produces.
//!
//! ```text
//! cargo run --release --example replay -- [--levels N] [--prune-after K] [--collection fixed|simple] < trace
//! ```
//!
//! Exit status: 0 on success, 2 for a malformed line or bad arguments (the
//! message on standard error names the line), 1 if reading or writing fails.

use std::io::{self, BufRead, BufReader, BufWriter, Write};
use std::process::ExitCode;

use zorder::replay::{Replay, ReplayConfig};

const USAGE: &str =
    "usage: replay [--levels N] [--prune-after K] [--collection fixed|simple] < trace";

fn main() -> ExitCode {
    if std::env::args().any(|arg| arg == "-h" || arg == "--help") {
        println!("{USAGE}");
        return ExitCode::SUCCESS;
    }
    let config = match ReplayConfig::from_args(std::env::args().skip(1)) {
        Ok(config) => config,
        Err(message) => {
            eprintln!("replay: {message}\n{USAGE}");
            return ExitCode::from(2);
        }
    };
    let mut replay = match Replay::new(config) {
        Ok(replay) => replay,
        Err(error) => {
            eprintln!("replay: {error}");
            return ExitCode::from(2);
        }
    };
    match run(&mut replay, io::stdin().lock(), io::stdout().lock()) {
        Ok(Outcome::Done) => ExitCode::SUCCESS,
        Ok(Outcome::Malformed(error)) => {
            eprintln!("replay: {error}");
            ExitCode::from(2)
        }
        // A closed pipe (`| head`) is the reader's choice, not a failure.
        Err(error) if error.kind() == io::ErrorKind::BrokenPipe => ExitCode::SUCCESS,
        Err(error) => {
            eprintln!("replay: {error}");
            ExitCode::from(1)
        }
    }
}

enum Outcome {
    Done,
    Malformed(zorder::replay::ReplayError),
}

/// Streams `input` through the replay: one reused line buffer, output
/// gathered in a string and flushed in large writes.
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
