//! Comment lists: GitHub's and Forgejo's repository-wide comments
//! (`signals_http::wire::comment::parse_list`) and GitLab's notes of an
//! item (`signals_gitlab::parse_notes`).
#![no_main]

libfuzzer_sys::fuzz_target!(|data: &[u8]| signals_fuzz::comments::lists(data));
