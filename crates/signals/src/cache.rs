//! The store as the host clients' response cache and shared HTTP state.
//!
//! The client's `ResponseCache` cannot fail (a cache miss is always a valid
//! answer), so a store error while reading is a miss, and the first error
//! while writing is kept and reported after the run. On a store that other
//! workers share (PostgreSQL), it also holds the per-token lock around each
//! request and shares each rate limit as soon as an answer reports it;
//! a failure there is kept like a write error (the run then fails, and
//! nothing of it is committed).

use signals_http::{CachedResponse, RateLimit, ResponseCache};
use signals_store::{HttpState, StoreError};

/// Adapts a store to [`ResponseCache`].
pub struct StoreCache<'a> {
    store: &'a dyn HttpState,
    /// Prefix of rate-limit keys (`<host name>:` when several hosts are
    /// configured, see `collect::rate_key`).
    prefix: String,
    /// The first error the store gave while writing, if any.
    pub error: Option<StoreError>,
}

impl<'a> StoreCache<'a> {
    /// Wraps a store, for a host whose rate-limit keys start with `prefix`.
    pub fn new(store: &'a dyn HttpState, prefix: String) -> Self {
        StoreCache {
            store,
            prefix,
            error: None,
        }
    }

    fn keep(&mut self, result: Result<(), StoreError>) {
        if let Err(e) = result
            && self.error.is_none()
        {
            self.error = Some(e);
        }
    }

    fn key(&self, fingerprint: &str) -> String {
        format!("{}{fingerprint}", self.prefix)
    }
}

impl ResponseCache for StoreCache<'_> {
    fn get(&self, url: &str, token_fingerprint: &str) -> Option<CachedResponse> {
        let hit = self.store.cache_get(url, token_fingerprint).ok()??;
        // A response asked for again is in use: keep it from pruning. A
        // failure here costs at most a later full answer instead of a 304.
        let _ = self
            .store
            .cache_touch(url, token_fingerprint, jiff::Timestamp::now());
        Some(hit)
    }

    fn put(&mut self, url: &str, token_fingerprint: &str, response: CachedResponse) {
        let result =
            self.store
                .cache_put(url, token_fingerprint, &response, jiff::Timestamp::now());
        self.keep(result);
    }

    fn lock_token(&mut self, token_fingerprint: &str) {
        if self.store.shares_http_state() {
            let result = self.store.lock_token(&self.key(token_fingerprint));
            self.keep(result);
        }
    }

    fn unlock_token(&mut self, token_fingerprint: &str) {
        if self.store.shares_http_state() {
            let result = self.store.unlock_token(&self.key(token_fingerprint));
            self.keep(result);
        }
    }

    fn shared_limit(&self, token_fingerprint: &str) -> Option<RateLimit> {
        if !self.store.shares_http_state() {
            return None;
        }
        let seen = self
            .store
            .rate_limit_get(&self.key(token_fingerprint))
            .ok()??;
        Some(seen.limit)
    }

    fn share_limit(&mut self, token_fingerprint: &str, limit: &RateLimit) {
        if self.store.shares_http_state() {
            let result = self.store.rate_limit_put(
                &self.key(token_fingerprint),
                limit,
                jiff::Timestamp::now(),
            );
            self.keep(result);
        }
    }
}
