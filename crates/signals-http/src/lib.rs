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
//! [`HostClient`] collects one repository, or lists an owner's
//! repositories, the same way on every host. A host crate
//! (`signals-github`, `signals-gitlab`, `signals-forgejo`) is its
//! [`Host`]: its dialect ([`Protocol`]), its URLs, its wire types and the
//! steps only it needs. Wire shapes that several hosts send alike are
//! shared in [`wire`] ([`wire::v3`]: GitHub's REST v3 objects, which
//! Forgejo and Gitea copy); a shape only one host sends stays in its crate.

#![warn(missing_docs)]

mod cache;
mod client;
mod collect;
mod config;
pub mod de;
mod error;
mod host;
mod host_client;
mod items;
mod links;
mod open_pulls;
mod owner;
mod protocol;
mod rate_limit;
mod token;
pub mod wire;

pub use cache::{CachedResponse, MemoryCache, ResponseCache, token_fingerprint};
pub use client::{Client, Fetched, Logger, Posted, RequestLog};
pub use collect::Collect;
pub use config::{Clock, Config, Sleeper};
pub use error::{Error, decode};
pub use host::{HEADS_PER_QUERY, Host, ItemList, ListsSeen};
pub use host_client::{Asked, Collection, DiscussionsBefore, HostClient};
pub use items::{HeldReplies, ItemStamp, PageSink, ReplySink};
pub use links::{link_next, link_rel, retry_after_secs};
pub use open_pulls::{OpenPulls, Owed};
pub use owner::OwnerListing;
pub use protocol::{Headers, Protocol, Refusal, body_start};
pub use rate_limit::RateLimitHeaders;
/// The last rate limit a host reported for a token (a core type, shared
/// with the store).
pub use signals_core::RateLimit;
/// Counters of requests (a core type, so the store records them as they
/// are).
pub use signals_core::RequestStats;
pub use token::Token;
