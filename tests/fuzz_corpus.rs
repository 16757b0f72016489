//! Replays the committed fuzz corpus and any crash artifacts
//! (`fuzz/corpus/<target>/`, `fuzz/artifacts/<target>/`) through the very
//! functions the fuzz targets call, so a bug found once stays fixed on
//! stable `cargo test`, without nightly or cargo-fuzz.
//!
//! Under Miri, which cannot read the file system with isolation on and is
//! far slower, each target replays only the few inputs embedded below.

mod common;
#[path = "common/fuzz_input.rs"]
mod fuzz_input;

use std::panic::{AssertUnwindSafe, catch_unwind};
use std::path::{Path, PathBuf};

/// A few inputs per target, compiled in for Miri; they are also in the
/// corpus directories, so the ordinary run covers them too.
macro_rules! embedded {
    ($target:literal: $($file:literal),+ $(,)?) => {
        [$((
            concat!($target, "/", $file),
            include_bytes!(concat!("../fuzz/corpus/", $target, "/", $file)).as_slice(),
        )),+]
    };
}

fn embedded(target: &str) -> Vec<(&'static str, &'static [u8])> {
    match target {
        "fixed_point_ops" => embedded!("fixed_point_ops": "seed-pruning", "seed-edges").to_vec(),
        "simple_ops" => embedded!("simple_ops": "seed-out-of-range", "seed-levels").to_vec(),
        "cross_collection" => embedded!("cross_collection": "seed-moves", "seed-misuse").to_vec(),
        "trace_parser" => embedded!("trace_parser":
            "doc_example.trace",
            "nonoptimized_and_pruning.trace",
            "misuse_errors.trace",
            "crlf_and_not_utf8.trace",
        )
        .to_vec(),
        _ => unreachable!("no such target {target}"),
    }
}

/// Every file of `fuzz/<dir>/<target>/`, sorted; none if it does not exist.
fn files(dir: &str, target: &str) -> Vec<PathBuf> {
    let path = Path::new(env!("CARGO_MANIFEST_DIR"))
        .join("fuzz")
        .join(dir)
        .join(target);
    let Ok(entries) = std::fs::read_dir(&path) else {
        return Vec::new();
    };
    let mut files: Vec<PathBuf> = entries
        .map(|entry| entry.expect("a readable directory").path())
        .filter(|path| path.is_file())
        .collect();
    files.sort();
    files
}

/// Runs `run` on each input, and fails naming every input that panicked.
fn replay(target: &str, run: fn(&[u8]), inputs: &[(String, Vec<u8>)]) {
    let failed: Vec<&str> = inputs
        .iter()
        .filter(|(_, bytes)| catch_unwind(AssertUnwindSafe(|| run(bytes))).is_err())
        .map(|(name, _)| name.as_str())
        .collect();
    assert!(failed.is_empty(), "{target}: failing inputs {failed:#?}");
}

fn replay_target(target: &str, run: fn(&[u8])) {
    let inputs: Vec<(String, Vec<u8>)> = if cfg!(miri) {
        embedded(target)
            .into_iter()
            .map(|(name, bytes)| (name.to_owned(), bytes.to_vec()))
            .collect()
    } else {
        let corpus = files("corpus", target);
        assert!(!corpus.is_empty(), "{target}: the seed corpus is committed");
        corpus
            .into_iter()
            .chain(files("artifacts", target))
            .map(|path| {
                let bytes = std::fs::read(&path).expect("a readable input");
                (path.display().to_string(), bytes)
            })
            .collect()
    };
    replay(target, run, &inputs);
}

#[test]
fn fixed_point_ops_corpus() {
    replay_target("fixed_point_ops", fuzz_input::fixed_point_ops);
}

#[test]
fn simple_ops_corpus() {
    replay_target("simple_ops", fuzz_input::simple_ops);
}

#[test]
fn cross_collection_corpus() {
    replay_target("cross_collection", fuzz_input::cross_collection);
}

#[test]
fn trace_parser_corpus() {
    replay_target("trace_parser", fuzz_input::trace_parser);
}
