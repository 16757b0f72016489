//! `zorder-replay`: replays a trace of Z-operations from standard input and
//! prints the orders and errors it produces. See the `zorder_replay` crate
//! docs for the format.
//!
//! ```text
//! cargo run --release -p zorder-replay -- [--levels N] [--prune-after K] [--collection fixed|simple] < trace
//! ```

use std::io::{self, BufReader};
use std::process::ExitCode;

fn main() -> ExitCode {
    // An argument that is not Unicode is no flag: it is refused by name,
    // its odd bytes shown as U+FFFD.
    let args: Vec<String> = std::env::args_os()
        .skip(1)
        .map(|arg| arg.to_string_lossy().into_owned())
        .collect();
    zorder_replay::cli::replay_main(
        &args,
        BufReader::with_capacity(1 << 16, io::stdin().lock()),
        io::stdout().lock(),
        io::stderr().lock(),
    )
}
