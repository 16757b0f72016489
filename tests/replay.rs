//! The replay executor: hand-written traces with their expected output
//! (tests/traces/*.trace and *.expected; a first line `# args: ...` gives the
//! replay tool's flags), and the error cases of the trace format.

use std::fs;
use std::path::Path;

use zorder::I16F16;
use zorder::replay::{Command, LineError, Replay, ReplayConfig, ReplayError, parse_line};

fn replay(args: &[&str], trace: &str) -> (String, Result<(), ReplayError>) {
    let mut replay = Replay::new(ReplayConfig::from_args(args).unwrap()).unwrap();
    let mut out = String::new();
    let result = replay.run_str(trace, &mut out);
    (out, result)
}

#[test]
fn every_trace_gives_its_expected_output() {
    let dir = Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/traces");
    let mut traces = 0;
    for entry in fs::read_dir(&dir).unwrap() {
        let path = entry.unwrap().path();
        if path.extension().is_none_or(|e| e != "trace") {
            continue;
        }
        let trace = fs::read_to_string(&path).unwrap();
        let expected = fs::read_to_string(path.with_extension("expected")).unwrap();
        let args: Vec<&str> = trace
            .lines()
            .next()
            .and_then(|first| first.strip_prefix("# args:"))
            .map(|args| args.split_whitespace().collect())
            .unwrap_or_default();
        let (out, result) = replay(&args, &trace);
        assert_eq!(result, Ok(()), "{}", path.display());
        assert_eq!(out, expected, "{}", path.display());
        traces += 1;
    }
    assert!(
        traces >= 4,
        "found only {traces} traces in {}",
        dir.display()
    );
}

#[test]
fn a_malformed_line_stops_the_run_naming_the_line_and_keeps_what_was_printed() {
    let (out, result) = replay(&[], "add 1 2\nb2f\n\n# fine\nadd 2 two\nb2f\n");
    assert_eq!(out, "b2f 1\n");
    let error = result.unwrap_err();
    assert_eq!(error.line, 5);
    assert_eq!(error.error, LineError::BadZ("two".into()));
    assert_eq!(
        error.to_string(),
        "line 5: bad Z `two` (expected `max`, `raw:<i32>`, or a decimal number from -32768 to 32767.99998)"
    );
}

#[test]
fn malformed_lines_are_named_precisely() {
    let cases: &[(&[u8], LineError)] = &[
        (b"jump 1", LineError::UnknownCommand("jump".into())),
        (b"ADD 1 2", LineError::UnknownCommand("ADD".into())),
        (
            b"add 1",
            LineError::MissingArgument {
                command: "add",
                argument: "a Z",
            },
        ),
        (
            b"remove",
            LineError::MissingArgument {
                command: "remove",
                argument: "an object id",
            },
        ),
        (b"b2f now", LineError::ExtraArgument("now".into())),
        (b"remove 1 2", LineError::ExtraArgument("2".into())),
        (b"add -1 2", LineError::BadId("-1".into())),
        (b"add +1 2", LineError::BadId("+1".into())),
        (
            b"add 18446744073709551616 2",
            LineError::BadId("18446744073709551616".into()),
        ),
        (b"add 1 32768", LineError::BadZ("32768".into())),
        (
            b"add 1 raw:2147483648",
            LineError::BadZ("raw:2147483648".into()),
        ),
        (b"add 1 raw:", LineError::BadZ("raw:".into())),
        (b"add 1 MAX", LineError::BadZ("MAX".into())),
        (b"add 1 1_0", LineError::BadZ("1_0".into())),
        (b"add 1 nan", LineError::BadZ("nan".into())),
        (b"add 1 \xff", LineError::NotUtf8),
    ];
    for (line, expected) in cases {
        let mut replay = Replay::new(ReplayConfig::default()).unwrap();
        let mut out = String::new();
        let error = replay.run_line(line, &mut out).unwrap_err();
        assert_eq!(&error.error, expected, "{}", String::from_utf8_lossy(line));
        assert_eq!(error.line, 1);
        assert!(out.is_empty());
    }
}

#[test]
fn z_values_parse_as_the_format_says() {
    let z = |word: &str| match parse_line(&format!("add 1 {word}")) {
        Ok(Some(Command::Add { z, .. })) => z,
        other => panic!("{word}: {other:?}"),
    };
    assert_eq!(z("max"), I16F16::MAX);
    assert_eq!(z("raw:-98304"), I16F16::from_num(-1.5));
    assert_eq!(z("raw:-2147483648"), I16F16::MIN);
    assert_eq!(z("3"), I16F16::from_num(3));
    assert_eq!(z("-2.5"), I16F16::from_num(-2.5));
    assert_eq!(z("0.125"), I16F16::from_num(0.125));
    assert_eq!(z("-32768"), I16F16::MIN);
    assert_eq!(parse_line("   "), Ok(None));
    assert_eq!(parse_line("#add 1 2"), Ok(None));
    assert_eq!(parse_line("stats\r"), Ok(Some(Command::Stats)));
}

#[test]
fn misuse_prints_an_error_and_the_run_goes_on() {
    let (out, result) = replay(
        &["--collection", "simple", "--levels", "2"],
        "add 1 1\nadd 1 2\nremove 2\nchange 2 1\nadd 3 2.5\nchange 1 9\nb2f\n",
    );
    assert_eq!(result, Ok(()));
    assert_eq!(
        out,
        "err 2 already-in-collection\nerr 3 not-in-collection\nerr 4 not-in-collection\n\
         err 5 z-out-of-range\nerr 6 z-out-of-range\nb2f 1\n"
    );
}

#[test]
fn a_refused_command_leaves_the_object_as_it_was() {
    // Object 1 stays at Z 1 after the refused `add 1 0`, so `change 1 1`
    // keeps it in level 1 and pops it in front of object 2.
    let (out, _) = replay(&[], "add 1 1\nadd 2 1\nadd 1 0\nb2f\nchange 1 1\nb2f\n");
    assert_eq!(out, "err 3 already-in-collection\nb2f 1 2\nb2f 2 1\n");
}

#[test]
fn bad_flags_are_refused() {
    for args in [
        &["--levels", "32768"][..],
        &["--levels", "-1"],
        &["--prune-after", "0"],
        &["--collection", "sorted"],
        &["--verbose"],
        &["--levels"],
    ] {
        assert!(ReplayConfig::from_args(args).is_err(), "{args:?}");
    }
}
