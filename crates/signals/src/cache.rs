//! The store as the host clients' response cache.
//!
//! The client's `ResponseCache` cannot fail (a cache miss is always a valid
//! answer), so a store error while reading is a miss, and the first error
//! while writing is kept and reported after the run.

use signals_http::{CachedResponse, ResponseCache};
use signals_store::{Store, StoreError};

/// Adapts a [`Store`] to [`ResponseCache`].
pub struct StoreCache<'a> {
    store: &'a Store,
    /// The first error the store gave while writing, if any.
    pub error: Option<StoreError>,
}

impl<'a> StoreCache<'a> {
    /// Wraps a store.
    pub fn new(store: &'a Store) -> Self {
        StoreCache { store, error: None }
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
        if let Err(e) =
            self.store
                .cache_put(url, token_fingerprint, &response, jiff::Timestamp::now())
            && self.error.is_none()
        {
            self.error = Some(e);
        }
    }
}
