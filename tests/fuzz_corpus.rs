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
        let paths = entries.map(|e| e.expect("a directory entry").path());
        // Under Miri, which takes seconds to list a few thousand files and
        // longer to sort them, the two shortest of the first eight the
        // directory yields (a failure names its file); natively every
        // input, in path order.
        let paths: Vec<_> = if cfg!(miri) {
            let mut first: Vec<_> = paths.take(8).collect();
            first.sort_by_key(|path| std::fs::metadata(path).map_or(0, |m| m.len()));
            first.truncate(2);
            first
        } else {
            let mut paths: Vec<_> = paths.collect();
            paths.sort();
            paths
        };
        for path in &paths {
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
