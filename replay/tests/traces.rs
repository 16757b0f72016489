//! The hand-written traces of `tests/traces/` give their expected output:
//! each `NAME.trace` runs, with the flags its first line gives after
//! `# args:` if it does, and must print exactly `NAME.expected`, both
//! through the library and through the command-line tool.

use std::fs;
use std::path::Path;
use std::process::ExitCode;

use zorder_replay::cli::replay_main;
use zorder_replay::{Replay, ReplayConfig};

/// The flags a trace asks for on its first line.
fn flags(trace: &[u8]) -> Vec<String> {
    let first = trace
        .split(|&b| b == b'\n' || b == b'\r')
        .next()
        .unwrap_or_default();
    let first = String::from_utf8_lossy(first);
    let first = first.trim_start_matches('\u{feff}');
    first
        .strip_prefix("# args:")
        .map(|args| args.split_whitespace().map(str::to_owned).collect())
        .unwrap_or_default()
}

#[test]
fn every_trace_gives_its_expected_output() {
    let dir = Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/traces");
    let mut paths: Vec<_> = fs::read_dir(&dir)
        .unwrap()
        .map(|entry| entry.unwrap().path())
        .filter(|path| path.extension().is_some_and(|e| e == "trace"))
        .collect();
    // By the bytes of the path: `Path`'s own order, component by component,
    // takes minutes for a few hundred paths under Miri.
    paths.sort_by(|a, b| a.as_os_str().cmp(b.as_os_str()));
    assert!(
        paths.len() >= 5,
        "found only {} traces in {}",
        paths.len(),
        dir.display()
    );
    for path in paths {
        let trace = fs::read(&path).unwrap();
        let expected = fs::read_to_string(path.with_extension("expected")).unwrap();
        let args = flags(&trace);

        let mut replay = Replay::new(ReplayConfig::from_args(&args).unwrap()).unwrap();
        let mut out = String::new();
        assert_eq!(
            replay.run_bytes(&trace, &mut out),
            Ok(()),
            "{}",
            path.display()
        );
        assert_eq!(out, expected, "{}", path.display());

        let (mut output, mut errors) = (Vec::new(), Vec::new());
        let status = replay_main(&args, &trace[..], &mut output, &mut errors);
        assert_eq!(
            status,
            ExitCode::SUCCESS,
            "{}: {}",
            path.display(),
            String::from_utf8_lossy(&errors)
        );
        assert_eq!(
            String::from_utf8(output).unwrap(),
            expected,
            "{}",
            path.display()
        );
    }
}
