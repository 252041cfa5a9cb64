//! Values a host crate derives from answers (a count it followed pages
//! for) kept in the response cache beside them, so a quiet run can reuse
//! them without asking again.

use super::Client;
use crate::cache::{CachedResponse, ResponseCache, token_fingerprint};

impl Client {
    /// A value a host crate derived from answers and kept with
    /// [`Client::keep`] under `key`, if the cache still has it.
    pub fn recall(&self, key: &str, cache: &dyn ResponseCache) -> Option<Vec<u8>> {
        cache
            .get(&derived_key(key), &self.derived_fingerprint())
            .map(|c| c.body)
    }

    /// Keeps a value a host crate derived from answers (not an answer of
    /// its own: it has no validators) in the cache under `key`, a URL the
    /// value belongs to. It is stored under the URL with a `#signals-derived`
    /// fragment, which no request sends, so it never stands in for an
    /// answer; and under the first token's fingerprint, whichever token
    /// the answers came with.
    pub fn keep(&self, key: &str, value: Vec<u8>, cache: &mut dyn ResponseCache) {
        let entry = CachedResponse {
            etag: None,
            last_modified: None,
            link_next: None,
            body: value,
        };
        cache.put(&derived_key(key), &self.derived_fingerprint(), entry);
    }

    fn derived_fingerprint(&self) -> String {
        token_fingerprint(self.config.tokens.first().map(|t| t.secret()))
    }
}

/// Where [`Client::keep`] stores a value derived for `url`.
fn derived_key(url: &str) -> String {
    format!("{url}#signals-derived")
}
