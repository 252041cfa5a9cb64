//! A body GitHub sent, decoded as each of its wire shapes (repository,
//! releases, milestones, items, owner listing, error) and converted to the
//! domain values, through `signals_github::GitHub`'s `signals_http::Host` types,
//! and as the commits per week of `stats/participation`.
#![no_main]

libfuzzer_sys::fuzz_target!(|data: &[u8]| signals_fuzz::answers::github_body(data));
