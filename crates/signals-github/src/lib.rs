//! The GitHub host of Repo Signals: the only crate that knows GitHub's JSON
//! and GitHub's HTTP dialect.
//!
//! [`Client::collect`] fetches one repository's context, releases, open
//! milestones and the issues and pull requests updated since an instant,
//! and returns them as `signals_core` domain types. What GitHub asks of
//! integrators (serial requests, conditional requests through a
//! [`ResponseCache`], primary and secondary rate limits, retries with
//! backoff, redirects of renamed repositories) is done by the shared
//! `signals_http` layer; this crate tells it how GitHub says those things.
//!
//! It must not reach into the store or the dataset: data flows out of here
//! as domain values only.

#![warn(missing_docs)]

mod client;
mod wire;

pub use client::{API_URL, Client, PER_PAGE};
pub use signals_http::{
    CachedResponse, Clock, Collection, Config, Error, Logger, MemoryCache, RateLimit, RequestLog,
    RequestStats, ResponseCache, Sleeper, Token, token_fingerprint,
};

/// The host's display name in messages.
pub const HOST: &str = "GitHub";
