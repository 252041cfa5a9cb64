//! The HTTP layer every code host of Repo Signals shares.
//!
//! [`Client::get`] fetches one URL the way every host client needs it:
//! serially, with conditional requests through a [`ResponseCache`], rate
//! limits waited out (or returned as [`Error::RateLimited`] when the wait
//! is too long), retries with backoff after 5xx answers and cut
//! connections, redirects followed by hand, the next page read from the
//! answer, and a request log. Tokens are redacted in `Debug` and sent only
//! to the base URL's origin.
//!
//! The host crates (`signals-github`, `signals-gitlab`, `signals-forgejo`)
//! supply their dialect through [`Protocol`] and keep their own wire types
//! and URLs: this crate must not know any host's JSON.

#![warn(missing_docs)]

mod cache;
mod client;
pub mod de;
mod error;

pub use cache::{CachedResponse, MemoryCache, ResponseCache, token_fingerprint};
pub use client::{
    Client, Clock, Config, Fetched, Headers, Logger, Protocol, RateLimit, Refusal, RequestLog,
    Sleeper, Token, body_start, link_next, link_rel, retry_after_secs,
};
pub use error::{Error, decode};
/// Counters of requests (a core type, so the store records them as they
/// are).
pub use signals_core::RequestStats;

use signals_core::model::{Collected, RepoName};

/// What one host client's `collect` of one repository produced, the same
/// for every host.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Collection {
    /// Context, releases, milestones and items, in domain types.
    pub collected: Collected,
    /// The new name when the host redirected the repository (it was
    /// renamed or transferred); requests after the first used it.
    pub renamed_to: Option<RepoName>,
    /// Request counters of this collection.
    pub stats: RequestStats,
}
