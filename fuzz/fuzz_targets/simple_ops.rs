//! `simple_ops`: one simple `Rc` collection, checked against the contract model after every step (see
//! `zorder_testkit::fuzz`, which `tests/fuzz_corpus.rs` also runs on the
//! committed corpus with stable `cargo test`).

#![no_main]

use libfuzzer_sys::fuzz_target;

fuzz_target!(|bytes: &[u8]| zorder_testkit::fuzz::simple_ops(bytes));
