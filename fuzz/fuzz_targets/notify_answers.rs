//! A receiver's answer to an alert: a webhook's HTTP answer and an SMTP
//! server's replies, as `signals_notify` reads them, served from loopback.
#![no_main]

libfuzzer_sys::fuzz_target!(|data: &[u8]| signals_fuzz::notify::answer(data));
