//! What the fuzz targets share: each target in `fuzz_targets/` is one line
//! that hands libFuzzer's bytes to a harness here (docs/fuzzing.md).
//!
//! The harnesses reach the parsers only through the library crates' public
//! entry points, the ones the binary and the collection use: a host's
//! `signals_http::Host` (its wire types as associated types, its
//! `Protocol`), `signals_http::decode`, `link_rel`, `retry_after_secs`,
//! `HostClient::collect` and `list_owner`, `signals_notify`'s senders,
//! `signals_config::Config::parse` and `signals_core::api`.
//! Where a parser is reached only through HTTP (a host's own steps, the
//! notify answers), the harness serves the fuzzed answer from a loopback
//! server ([`loopback`]); nothing here touches any other network.
//!
//! Besides "no panic, no hang", a harness checks what the domain promises
//! of a converted value (times in whole seconds, non-empty keys): a bad
//! value there would be stored and diffed forever.

pub mod answers;
pub mod api;
pub mod collect;
pub mod comments;
pub mod config;
pub mod graphql;
pub mod headers;
pub mod loopback;
pub mod notify;
pub mod search;
