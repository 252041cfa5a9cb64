//! The word index's posting blocks, and the search language with the
//! tokenizer, against a scan (`signals_fuzz::search::input`).
#![no_main]

libfuzzer_sys::fuzz_target!(|data: &[u8]| signals_fuzz::search::input(data));
