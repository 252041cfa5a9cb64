//! A `Link` header's value, as `signals_http::link_rel` reads it for the
//! next page (every host's paging) and the last (GitHub's count of open
//! pull requests).
#![no_main]

libfuzzer_sys::fuzz_target!(|data: &[u8]| signals_fuzz::headers::link_value(data));
