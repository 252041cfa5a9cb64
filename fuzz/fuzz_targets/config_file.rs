//! The configuration file's text, as `signals_config::Config::parse` reads
//! it: the hosts, groups, owners, importance weights and alert rules.
#![no_main]

libfuzzer_sys::fuzz_target!(|data: &[u8]| signals_fuzz::config::file(data));
