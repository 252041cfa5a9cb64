//! An answer's head (status, headers) and error body, as every host's
//! `Protocol` reads it: rate limits, refusals, `Retry-After`, the next
//! page, the error message.
#![no_main]

libfuzzer_sys::fuzz_target!(|data: &[u8]| signals_fuzz::headers::read_answer(data));
