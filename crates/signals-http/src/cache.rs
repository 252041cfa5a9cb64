//! Conditional requests: what the client remembers of an earlier answer so
//! it can send `If-None-Match` / `If-Modified-Since` and reuse the body on a
//! 304, which GitHub does not count against the rate limit (and which costs
//! any host less than a full answer).
//!
//! The trait has two implementations: [`MemoryCache`] here and the SQLite
//! store. Entries are keyed by URL and a token *fingerprint*, because a host
//! may answer differently per token (private repositories); the token itself
//! is never stored.

use std::collections::HashMap;

use sha2::{Digest, Sha256};

pub use signals_core::{CachedResponse, RateLimit};

/// Storage of earlier answers for conditional requests.
pub trait ResponseCache {
    /// The entry for `url` fetched with the token of that fingerprint.
    fn get(&self, url: &str, token_fingerprint: &str) -> Option<CachedResponse>;
    /// Stores (replaces) the entry for `url` and the token fingerprint.
    fn put(&mut self, url: &str, token_fingerprint: &str, response: CachedResponse);

    /// Called before a request on the token of that fingerprint: returns
    /// once no other process sharing this state has a request in flight on
    /// it, and keeps them waiting until [`ResponseCache::unlock_token`].
    /// Several workers on one store so keep requests serial per token, as
    /// GitHub asks. By default (one process) it does nothing.
    fn lock_token(&mut self, token_fingerprint: &str) {
        let _ = token_fingerprint;
    }
    /// Called when the request's answer has been read.
    fn unlock_token(&mut self, token_fingerprint: &str) {
        let _ = token_fingerprint;
    }
    /// The token's rate limit as the processes sharing this state last saw
    /// it (another worker may have spent the budget); `None` by default.
    fn shared_limit(&self, token_fingerprint: &str) -> Option<RateLimit> {
        let _ = token_fingerprint;
        None
    }
    /// Shares the rate limit an answer reported for the token.
    fn share_limit(&mut self, token_fingerprint: &str, limit: &RateLimit) {
        let _ = (token_fingerprint, limit);
    }
}

/// A [`ResponseCache`] in memory, for one process (tests, the demo).
#[derive(Debug, Clone, Default)]
pub struct MemoryCache {
    entries: HashMap<(String, String), CachedResponse>,
}

impl MemoryCache {
    /// An empty cache.
    pub fn new() -> MemoryCache {
        MemoryCache::default()
    }

    /// Number of entries.
    pub fn len(&self) -> usize {
        self.entries.len()
    }

    /// True when empty.
    pub fn is_empty(&self) -> bool {
        self.entries.is_empty()
    }

    /// All entries as `(url, fingerprint, response)`, for inspection.
    pub fn entries(&self) -> impl Iterator<Item = (&str, &str, &CachedResponse)> {
        self.entries
            .iter()
            .map(|((u, f), r)| (u.as_str(), f.as_str(), r))
    }
}

impl ResponseCache for MemoryCache {
    fn get(&self, url: &str, token_fingerprint: &str) -> Option<CachedResponse> {
        self.entries
            .get(&(url.to_string(), token_fingerprint.to_string()))
            .cloned()
    }

    fn put(&mut self, url: &str, token_fingerprint: &str, response: CachedResponse) {
        self.entries
            .insert((url.to_string(), token_fingerprint.to_string()), response);
    }
}

/// The fingerprint of a token: the first 8 bytes of its SHA-256, in hex.
/// `anonymous` without a token. Cannot be turned back into the token.
pub fn token_fingerprint(token: Option<&str>) -> String {
    match token {
        None => "anonymous".to_string(),
        Some(t) => hex(&Sha256::digest(t.as_bytes())[..8]),
    }
}

/// Bytes in lower-case hex.
pub(crate) fn hex(bytes: &[u8]) -> String {
    bytes.iter().map(|b| format!("{b:02x}")).collect()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn fingerprints_are_short_stable_and_distinct() {
        let a = token_fingerprint(Some("ghp_secret"));
        assert_eq!(a.len(), 16);
        assert_eq!(a, token_fingerprint(Some("ghp_secret")));
        assert_ne!(a, token_fingerprint(Some("ghp_other")));
        assert!(!a.contains("secret"));
        assert_eq!(token_fingerprint(None), "anonymous");
    }

    #[test]
    fn memory_cache_keys_by_url_and_token() {
        let mut c = MemoryCache::new();
        let r = CachedResponse {
            etag: Some("\"x\"".into()),
            last_modified: None,
            link_next: None,
            body: b"[]".to_vec(),
        };
        c.put("u", "f1", r.clone());
        assert_eq!(c.get("u", "f1"), Some(r));
        assert_eq!(c.get("u", "f2"), None);
        assert_eq!(c.len(), 1);
    }
}
