//! A collection or an owner's listing of GitHub, GitLab or Forgejo whose
//! every answer (status, headers, body) is fuzzed, served from loopback:
//! every host parser as `HostClient` reaches it, its own steps included.
#![no_main]

libfuzzer_sys::fuzz_target!(|data: &[u8]| signals_fuzz::collect::run(data));
