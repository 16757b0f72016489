//! Replays the committed corpus of the `trace_parser` fuzz target
//! (`fuzz/corpus/trace_parser/`) and any crash artifacts
//! (`fuzz/artifacts/trace_parser/`) through the very function the target
//! calls, so a bug the fuzzer found once stays fixed on stable
//! `cargo test`, without nightly or cargo-fuzz.

use std::panic::catch_unwind;
use std::path::{Path, PathBuf};

use zorder_replay::fuzzing::trace_parser;

/// Every file of `fuzz/<dir>/trace_parser/`, sorted; none if there is no
/// such directory.
fn inputs(dir: &str) -> Vec<PathBuf> {
    let path = Path::new(env!("CARGO_MANIFEST_DIR"))
        .join("../fuzz")
        .join(dir)
        .join("trace_parser");
    let Ok(entries) = std::fs::read_dir(&path) else {
        return Vec::new();
    };
    let mut files: Vec<PathBuf> = entries
        .map(|entry| entry.expect("a readable directory").path())
        .filter(|path| path.is_file())
        .collect();
    // By the bytes of the path: `Path`'s own order, component by component,
    // takes minutes for a few hundred paths under Miri.
    files.sort_by(|a, b| a.as_os_str().cmp(b.as_os_str()));
    files
}

#[test]
fn trace_parser_corpus_and_artifacts() {
    let corpus = inputs("corpus");
    assert!(
        corpus.len() >= 20,
        "the corpus is committed: found {} inputs",
        corpus.len()
    );
    // Under Miri, which is far slower, a sample.
    let step = if cfg!(miri) { 25 } else { 1 };
    let failed: Vec<String> = corpus
        .iter()
        .chain(&inputs("artifacts"))
        .step_by(step)
        .filter(|path| {
            let bytes = std::fs::read(path).expect("a readable input");
            catch_unwind(|| trace_parser(&bytes)).is_err()
        })
        .map(|path| path.display().to_string())
        .collect();
    assert!(failed.is_empty(), "failing inputs: {failed:#?}");
}
