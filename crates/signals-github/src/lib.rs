//! The GitHub host of Repo Signals: the only crate that knows GitHub's JSON
//! and HTTP.
//!
//! [`Client::collect`] fetches one repository's context, releases, open
//! milestones and the issues and pull requests updated since an instant,
//! and returns them as `signals_core` domain types. Around that it handles
//! what GitHub asks of integrators: serial requests, conditional requests
//! through a [`ResponseCache`], primary and secondary rate limits, retries
//! with backoff, and redirects of renamed repositories.
//!
//! It must not reach into the store or the dataset: data flows out of here
//! as domain values only.

#![warn(missing_docs)]

mod cache;
mod client;
mod error;
mod wire;

pub use cache::{CachedResponse, MemoryCache, ResponseCache, token_fingerprint};
pub use client::{
    Client, Clock, Collection, Config, Logger, PER_PAGE, RateLimit, RequestLog, RequestStats,
    Sleeper, Token,
};
pub use error::Error;
