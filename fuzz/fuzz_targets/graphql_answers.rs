//! GitHub's GraphQL answers: the reviews of the pull requests a run saw
//! change (`signals_github::parse_reviews`).
#![no_main]

libfuzzer_sys::fuzz_target!(|data: &[u8]| signals_fuzz::graphql::reviews(data));
