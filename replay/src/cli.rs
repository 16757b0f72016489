//! The command-line tool, as one function of its arguments and streams, so
//! tests can run it in-process.

use std::io::{self, BufRead, Write};
use std::process::ExitCode;

use crate::replay::{Replay, ReplayConfig, RunError};

/// What `--help` prints, and what follows a message about bad arguments.
pub const USAGE: &str =
    "usage: zorder-replay [--levels N] [--prune-after K] [--collection fixed|simple] < trace";

/// The whole tool: `args` are its arguments (without the program's name),
/// the trace comes from `input`, the orders and errors it prints go to
/// `output`, and messages to `errors`.
///
/// The exit status is 0 when the whole trace ran (refused commands print
/// `err LINE CODE` and do not count as failures), 2 for a malformed line
/// (after printing what the lines before it printed; the message names the
/// line) or for bad arguments (the message is followed by the usage), and 1
/// if reading or writing fails. A closed output (`| head`) ends the run
/// quietly with status 0. `-h` or `--help` prints the usage.
///
/// ```
/// use std::process::ExitCode;
/// use zorder_replay::cli::replay_main;
///
/// let (mut output, mut errors) = (Vec::new(), Vec::new());
/// let status = replay_main(&["--levels", "3"], &b"add 1 2\nadd 2 0.5\nb2f\nadd 3 x\n"[..], &mut output, &mut errors);
/// assert_eq!(status, ExitCode::from(2));
/// assert_eq!(output, b"b2f 2 1\n");
/// assert!(String::from_utf8(errors).unwrap().starts_with("zorder-replay: line 4: bad Z `x`"));
/// ```
pub fn replay_main<S: AsRef<str>>(
    args: &[S],
    input: impl BufRead,
    output: impl Write,
    mut errors: impl Write,
) -> ExitCode {
    // A message that cannot be written leaves nothing better to do.
    if args
        .iter()
        .any(|arg| matches!(arg.as_ref(), "-h" | "--help"))
    {
        let mut output = output;
        return match writeln!(output, "{USAGE}").and_then(|()| output.flush()) {
            Ok(()) => ExitCode::SUCCESS,
            Err(error) => io_failure(&mut errors, &error),
        };
    }
    let config = match ReplayConfig::from_args(args) {
        Ok(config) => config,
        Err(error) => {
            let _ = writeln!(errors, "zorder-replay: {error}\n{USAGE}");
            return ExitCode::from(2);
        }
    };
    let mut replay = match Replay::new(config) {
        Ok(replay) => replay,
        Err(error) => {
            let _ = writeln!(errors, "zorder-replay: {error}\n{USAGE}");
            return ExitCode::from(2);
        }
    };
    match replay.run_reader(input, output) {
        Ok(()) => ExitCode::SUCCESS,
        Err(RunError::Malformed(error)) => {
            let _ = writeln!(errors, "zorder-replay: {error}");
            ExitCode::from(2)
        }
        Err(RunError::Io(error)) => io_failure(&mut errors, &error),
    }
}

fn io_failure(errors: &mut impl Write, error: &io::Error) -> ExitCode {
    // A closed pipe (`| head`) is the reader's choice, not a failure.
    if error.kind() == io::ErrorKind::BrokenPipe {
        return ExitCode::SUCCESS;
    }
    let _ = writeln!(errors, "zorder-replay: {error}");
    ExitCode::from(1)
}
