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
pub mod de;
mod error;
mod host;
mod rate_limit;
pub mod wire;

pub use cache::{CachedResponse, MemoryCache, ResponseCache, token_fingerprint};
pub use client::{
    Client, Clock, Config, Fetched, Headers, Logger, Protocol, RateLimit, Refusal, RequestLog,
    Sleeper, Token, body_start, link_next, link_rel, retry_after_secs,
};
pub use error::{Error, decode};
pub use host::{Collect, Host, HostClient, ItemList, ListsSeen};
pub use rate_limit::RateLimitHeaders;
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

/// What one host client's listing of an owner's repositories (issue 20)
/// produced, the same for every host.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct OwnerListing {
    /// The owner's public repositories, as the host listed them.
    pub repos: Vec<signals_core::owners::Listed>,
    /// Every page answered 304: nothing changed since the last listing.
    pub not_modified: bool,
    /// Request counters of this listing.
    pub stats: RequestStats,
}

impl Client {
    /// Lists an owner's repositories: every page from the first of `urls`,
    /// each decoded as a list of `T`. When a URL answers 404, the next is tried
    /// (`/orgs/…` for an organisation, then `/users/…` for a user); a 404
    /// of the last is [`Error::OwnerNotFound`], `kinds` saying what the
    /// owner was looked up as.
    pub fn list_owner<T: wire::ListedEntry>(
        &mut self,
        owner: &str,
        urls: &[String],
        kinds: &'static str,
        cache: &mut dyn ResponseCache,
        per_page: usize,
    ) -> Result<OwnerListing, Error> {
        self.reset_stats();
        let host = self.host_name();
        for url in urls {
            let mut repos = vec![];
            let mut all_304 = true;
            let result = self.get_pages(url, cache, per_page, None, |fetched| {
                all_304 &= fetched.not_modified;
                let page: Vec<T> = decode(host, &fetched.url, &fetched.body)?;
                // The count of entries kept, as each host counted it before
                // the listing moved here.
                let before = repos.len();
                repos.extend(page.into_iter().filter_map(T::into_listed));
                let n = repos.len() - before;
                Ok(n)
            });
            match result {
                Ok(()) => {
                    return Ok(OwnerListing {
                        repos,
                        not_modified: all_304,
                        stats: self.stats(),
                    });
                }
                Err(Error::Http { status: 404, .. }) => {}
                Err(e) => return Err(e),
            }
        }
        Err(Error::OwnerNotFound {
            host: self.host_name(),
            owner: owner.to_string(),
            kinds,
        })
    }
}
