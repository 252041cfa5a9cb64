//! Checks of [`crate::HttpState`].

use super::*;
use crate::{CachedResponse, RateLimit, StoreError};

/// Cached responses and rate limits round-trip; URLs with credentials are
/// refused; pruning keeps what was used.
pub fn the_http_cache_and_rate_limits_round_trip(make: Factory<'_>) {
    let store = make();
    let at = ts("2026-11-21T10:00:00Z");
    let url = "https://api.github.com/repos/o/n/issues?page=1";
    let response = CachedResponse {
        etag: Some("\"abc\"".into()),
        last_modified: Some("Sat, 21 Nov 2026 10:00:00 GMT".into()),
        link_next: Some("https://api.github.com/repos/o/n/issues?page=2".into()),
        body: b"[\x00\xff]".to_vec(),
    };
    assert_eq!(store.cache_get(url, "fp").unwrap(), None);
    store.cache_put(url, "fp", &response, at).unwrap();
    assert_eq!(store.cache_get(url, "fp").unwrap(), Some(response.clone()));
    assert_eq!(store.cache_get(url, "other").unwrap(), None);
    let mut newer = response.clone();
    newer.etag = None;
    store.cache_put(url, "fp", &newer, at).unwrap();
    assert_eq!(store.cache_get(url, "fp").unwrap(), Some(newer.clone()));
    for leaky in [
        "https://api.github.com/repos/o/n?access_token=secret",
        "https://user:secret@api.github.com/repos/o/n",
    ] {
        assert!(matches!(
            store.cache_put(leaky, "fp", &response, at),
            Err(StoreError::CredentialsInUrl)
        ));
    }
    let other = "https://api.github.com/repos/o/n/pulls";
    store.cache_put(other, "fp", &response, at).unwrap();
    store
        .cache_touch(url, "fp", ts("2026-11-28T10:00:00Z"))
        .unwrap();
    assert_eq!(store.cache_prune(ts("2026-11-25T00:00:00Z")).unwrap(), 1);
    assert_eq!(store.cache_get(other, "fp").unwrap(), None);
    assert_eq!(store.cache_get(url, "fp").unwrap(), Some(newer));

    let limit = |remaining| RateLimit {
        limit: 5000,
        remaining,
        reset: Some(ts("2026-11-21T11:00:00.5Z")),
        used: None,
        resource: None,
    };
    assert_eq!(store.rate_limit_get("b").unwrap(), None);
    store.rate_limit_put("b", &limit(10), at).unwrap();
    store.rate_limit_put("a", &limit(20), at).unwrap();
    store.rate_limit_put("b", &limit(9), at).unwrap();
    assert_eq!(
        store
            .rate_limit_get("b")
            .unwrap()
            .map(|s| (s.limit, s.seen_at)),
        Some((limit(9), at))
    );
    // A refusal that did not say when it resets: kept as such.
    let unknown = RateLimit {
        reset: None,
        ..limit(0)
    };
    store.rate_limit_put("c", &unknown, at).unwrap();
    assert_eq!(
        store
            .rate_limit_get("c")
            .unwrap()
            .map(|s| (s.limit, s.seen_at)),
        Some((unknown, at))
    );
    let keys: Vec<String> = store
        .rate_limits()
        .unwrap()
        .into_iter()
        .map(|(k, _, _)| k)
        .collect();
    assert_eq!(keys, ["a", "b", "c"]);
    // Locking and unlocking a token does not fail where it is a no-op.
    store.lock_token("b").unwrap();
    store.unlock_token("b").unwrap();
}
