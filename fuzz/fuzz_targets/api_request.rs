//! A request target of `signals serve` (`/api/...?...`): its path and query
//! string as `signals_core::api` reads them.
#![no_main]

libfuzzer_sys::fuzz_target!(|data: &[u8]| signals_fuzz::api::target(data));
