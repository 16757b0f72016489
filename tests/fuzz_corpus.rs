//! Replays the committed fuzz corpus, and any crash artifacts, through the
//! very functions the fuzz targets call, on stable `cargo test`: a bug the
//! fuzzer found once stays fixed without nightly.

use std::path::Path;

fn replay(target: &str, run: fn(&[u8])) {
    let root = Path::new(env!("CARGO_MANIFEST_DIR")).join("fuzz");
    let mut inputs = 0;
    for dir in ["corpus", "artifacts"] {
        let Ok(entries) = std::fs::read_dir(root.join(dir).join(target)) else {
            continue;
        };
        let mut paths: Vec<_> = entries
            .map(|e| e.expect("a directory entry").path())
            .collect();
        // By the bytes of the path: `Path`'s own order, component by component,
        // takes minutes for a few hundred paths under Miri.
        paths.sort_by(|a, b| a.as_os_str().cmp(b.as_os_str()));
        // Under Miri, a sample of three inputs spread over the corpus,
        // whatever its size, so the suite stays well inside CI's time.
        let step = if cfg!(miri) {
            paths.len().div_ceil(3).max(1)
        } else {
            1
        };
        for path in paths.iter().step_by(step) {
            let bytes = std::fs::read(path).expect("a readable input");
            let outcome = std::panic::catch_unwind(|| run(&bytes));
            assert!(outcome.is_ok(), "{target}: {} fails", path.display());
            inputs += 1;
        }
    }
    assert!(inputs > 0, "{target}: no corpus found");
}

#[test]
fn fixed_point_ops_corpus() {
    replay("fixed_point_ops", zorder_testkit::fuzz::fixed_point_ops);
}

#[test]
fn simple_ops_corpus() {
    replay("simple_ops", zorder_testkit::fuzz::simple_ops);
}

#[test]
fn cross_collection_corpus() {
    replay("cross_collection", zorder_testkit::fuzz::cross_collection);
}

#[test]
fn keyed_ops_corpus() {
    replay("keyed_ops", zorder_testkit::fuzz::keyed_ops);
}
