//! `cross_collection`: see `tests/common/fuzz_input.rs`, which `tests/fuzz_corpus.rs`
//! also runs on the committed corpus with stable `cargo test`.

#![no_main]

#[path = "../../tests/common/mod.rs"]
mod common;
#[path = "../../tests/common/fuzz_input.rs"]
mod fuzz_input;

use libfuzzer_sys::fuzz_target;

fuzz_target!(|input: fuzz_input::CrossCollection| input.0.run());
