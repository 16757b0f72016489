//! `trace_parser`: arbitrary bytes as a replay trace, checked by
//! `zorder_replay::fuzzing::trace_parser` against models of the format and
//! the ordering contract. `replay/tests/fuzz_corpus.rs` runs the same
//! function on the committed corpus with stable `cargo test`.

#![no_main]

use libfuzzer_sys::fuzz_target;

fuzz_target!(|bytes: &[u8]| zorder_replay::fuzzing::trace_parser(bytes));
