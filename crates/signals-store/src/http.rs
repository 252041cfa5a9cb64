//! What the HTTP client keeps in the store between runs: responses for
//! conditional requests (`If-None-Match` / `If-Modified-Since`), the last
//! rate limit the host reported, and where processes share a store, the
//! locks that keep requests on one token serial ([`HttpState`]).
//!
//! All are keyed by a token *fingerprint* that the caller computes (a
//! digest, or an empty string for anonymous requests). A store must never
//! receive or write a token: it refuses URLs that carry credentials
//! ([`check_cacheable`]), and it does not know the host crate (the binary
//! adapts these methods to the host client's cache trait).

use jiff::Timestamp;

use crate::{Result, StoreError};

pub use signals_core::{CachedResponse, RateLimit};

/// A rate limit as last seen, and when ([`HttpState::rate_limit_get`]).
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct SeenLimit {
    /// The limit.
    pub limit: RateLimit,
    /// When a response reported it.
    pub seen_at: Timestamp,
}

/// What the HTTP client keeps in the store and shares through it: cached
/// responses, the rate limits last seen, and, where several processes
/// share a store, the token locks.
///
/// Its methods take `&self`: the host client writes them while a run
/// reads.
pub trait HttpState {
    /// The cached response for `url` fetched with the token whose
    /// fingerprint is `fingerprint` (when it was stored or last used is the
    /// store's own business: pruning).
    fn cache_get(&self, url: &str, fingerprint: &str) -> Result<Option<CachedResponse>>;

    /// Stores (or replaces) the cached response for `url` and
    /// `fingerprint`, stored at `stored_at`. Refuses a URL with credentials
    /// in it ([`check_cacheable`]), so a token can never reach the store
    /// through a URL.
    fn cache_put(
        &self,
        url: &str,
        fingerprint: &str,
        response: &CachedResponse,
        stored_at: Timestamp,
    ) -> Result<()>;

    /// Marks a cached response as used at `at`, so pruning keeps it.
    fn cache_touch(&self, url: &str, fingerprint: &str, at: Timestamp) -> Result<()>;

    /// Deletes the cached responses neither stored nor used since `before`
    /// and returns how many went. Issue lists are cached per `since` URL, a
    /// new one each day, so without pruning the cache would grow forever;
    /// pruning loses nothing but a later 304.
    fn cache_prune(&self, before: Timestamp) -> Result<usize>;

    /// Records the rate limit last reported for a key (a token fingerprint,
    /// prefixed by the host name when several hosts are configured), seen
    /// at `seen_at` (`used` and `resource` are not kept).
    fn rate_limit_put(&self, key: &str, limit: &RateLimit, seen_at: Timestamp) -> Result<()>;

    /// The rate limit last seen for a key, and when.
    fn rate_limit_get(&self, key: &str) -> Result<Option<SeenLimit>>;

    /// True when other processes share this store's HTTP state while it is
    /// open (PostgreSQL): then the client shares rate limits after every
    /// answer and sends on a token only while holding
    /// [`HttpState::lock_token`].
    fn shares_http_state(&self) -> bool {
        false
    }

    /// Waits until no other process of this store sends on the token of
    /// `key`, and keeps them from doing so until [`HttpState::unlock_token`].
    /// A no-op where one process owns the store (SQLite, under the
    /// collection lock).
    fn lock_token(&self, key: &str) -> Result<()> {
        let _ = key;
        Ok(())
    }

    /// Releases [`HttpState::lock_token`].
    fn unlock_token(&self, key: &str) -> Result<()> {
        let _ = key;
        Ok(())
    }
}

/// True when a URL carries credentials: user info before the host, or a
/// query parameter that is a known secret.
/// Refuses a response to cache whose URL (or next-page URL) carries
/// credentials: a token must never reach the store through a URL.
pub fn check_cacheable(url: &str, response: &CachedResponse) -> Result<()> {
    if carries_credentials(url)
        || response
            .link_next
            .as_deref()
            .is_some_and(carries_credentials)
    {
        return Err(StoreError::CredentialsInUrl);
    }
    Ok(())
}

fn carries_credentials(url: &str) -> bool {
    let rest = url.split_once("://").map_or(url, |(_, rest)| rest);
    let authority_end = rest.find(['/', '?', '#']).unwrap_or(rest.len());
    if rest[..authority_end].contains('@') {
        return true;
    }
    let Some((_, query)) = rest.split_once('?') else {
        return false;
    };
    let query = query.split('#').next().unwrap_or("");
    query.split('&').any(|pair| {
        let name = pair.split('=').next().unwrap_or("").to_ascii_lowercase();
        matches!(name.as_str(), "access_token" | "client_secret" | "token")
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn credentials_in_urls_are_detected() {
        for bad in [
            "https://user:ghp_x@api.github.com/repos/o/n",
            "https://ghp_x@api.github.com/repos/o/n",
            "https://api.github.com/repos/o/n/issues?access_token=ghp_x",
            "https://api.github.com/x?page=2&Client_Secret=s",
            "https://api.github.com/x?token=s#top",
        ] {
            assert!(carries_credentials(bad), "{bad}");
        }
        for good in [
            "https://api.github.com/repos/o/n/issues?state=all&since=2026-01-01T00:00:00Z&page=2",
            "https://api.github.com/repos/o/n/issues?q=a@b",
            "https://api.github.com/users/someone/repos",
            "http://127.0.0.1:8080/repos/o/n",
        ] {
            assert!(!carries_credentials(good), "{good}");
        }
    }
}
