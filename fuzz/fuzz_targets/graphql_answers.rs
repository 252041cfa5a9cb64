//! GitHub's GraphQL answers: the reviews of the pull requests a run saw
//! change (`signals_github::parse_reviews`) and a page of discussions
//! (`signals_github::parse_discussions`).
#![no_main]

libfuzzer_sys::fuzz_target!(|data: &[u8]| signals_fuzz::graphql::answers(data));
