//! A body GitHub sent, decoded as each of its wire shapes (repository,
//! releases, milestones, items, owner listing, error) and converted to the
//! domain values, through `signals_github::GitHub`'s `signals_http::Host` types.
#![no_main]

libfuzzer_sys::fuzz_target!(|data: &[u8]| {
    signals_fuzz::answers::host_body::<signals_github::GitHub>(data)
});
