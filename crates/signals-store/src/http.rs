//! What the HTTP client keeps between runs: responses for conditional
//! requests (`If-None-Match` / `If-Modified-Since`), and the last rate limit
//! the host reported.
//!
//! Both are keyed by a token *fingerprint* that the caller computes (a
//! digest, or an empty string for anonymous requests). This module must
//! never receive or write a token: it refuses URLs that carry credentials,
//! and it does not know the host crate (the binary adapts these methods to
//! the host client's cache trait).

use jiff::Timestamp;
use rusqlite::{OptionalExtension, params};

use crate::Store;
use crate::codec::{int, reset_parse, reset_text, ts_parse, ts_text, uint};
use crate::error::{DbContext, Result, StoreError};

pub use signals_core::{CachedResponse, RateLimit};

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
    fn rate_limit_get(&self, key: &str) -> Result<Option<(RateLimit, Timestamp)>>;

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

impl HttpState for Store {
    fn cache_get(&self, url: &str, fingerprint: &str) -> Result<Option<CachedResponse>> {
        let path = &self.path;
        let doing = "reading the HTTP cache";
        type Row = (
            Option<String>,
            Option<String>,
            Option<String>,
            Vec<u8>,
            String,
        );
        let row: Option<Row> = self
            .conn
            .prepare_cached(
                "SELECT etag, last_modified, link_next, body, stored_at FROM http_cache
                 WHERE url = ?1 AND token_fingerprint = ?2",
            )
            .doing(path, doing)?
            .query_row(params![url, fingerprint], |r| {
                Ok((r.get(0)?, r.get(1)?, r.get(2)?, r.get(3)?, r.get(4)?))
            })
            .optional()
            .doing(path, doing)?;
        row.map(|(etag, last_modified, link_next, body, stored_at)| {
            // A row whose time cannot be read is damaged: say so.
            ts_parse(path, "http_cache.stored_at", &stored_at)?;
            Ok(CachedResponse {
                etag,
                last_modified,
                link_next,
                body,
            })
        })
        .transpose()
    }

    fn cache_put(
        &self,
        url: &str,
        fingerprint: &str,
        response: &CachedResponse,
        stored_at: Timestamp,
    ) -> Result<()> {
        check_cacheable(url, response)?;
        self.conn
            .prepare_cached(
                "INSERT INTO http_cache
                    (url, token_fingerprint, etag, last_modified, link_next, body, stored_at)
                 VALUES (?1, ?2, ?3, ?4, ?5, ?6, ?7)
                 ON CONFLICT (url, token_fingerprint) DO UPDATE SET
                    etag = excluded.etag, last_modified = excluded.last_modified,
                    link_next = excluded.link_next, body = excluded.body,
                    stored_at = excluded.stored_at",
            )
            .doing(&self.path, "writing the HTTP cache")?
            .execute(params![
                url,
                fingerprint,
                response.etag,
                response.last_modified,
                response.link_next,
                response.body,
                ts_text(stored_at)
            ])
            .doing(&self.path, "writing the HTTP cache")?;
        Ok(())
    }

    fn cache_touch(&self, url: &str, fingerprint: &str, at: Timestamp) -> Result<()> {
        self.conn
            .prepare_cached(
                "UPDATE http_cache SET stored_at = ?3 WHERE url = ?1 AND token_fingerprint = ?2",
            )
            .doing(&self.path, "touching the HTTP cache")?
            .execute(params![url, fingerprint, ts_text(at)])
            .doing(&self.path, "touching the HTTP cache")?;
        Ok(())
    }

    fn cache_prune(&self, before: Timestamp) -> Result<usize> {
        let n = self
            .conn
            .prepare_cached("DELETE FROM http_cache WHERE julianday(stored_at) < julianday(?1)")
            .doing(&self.path, "pruning the HTTP cache")?
            .execute(params![ts_text(before)])
            .doing(&self.path, "pruning the HTTP cache")?;
        Ok(n)
    }

    fn rate_limit_put(
        &self,
        fingerprint: &str,
        limit: &RateLimit,
        seen_at: Timestamp,
    ) -> Result<()> {
        self.conn
            .prepare_cached(
                "INSERT INTO rate_limits (token_fingerprint, rate_limit, remaining, reset_at, seen_at)
                 VALUES (?1, ?2, ?3, ?4, ?5)
                 ON CONFLICT (token_fingerprint) DO UPDATE SET
                    rate_limit = excluded.rate_limit, remaining = excluded.remaining,
                    reset_at = excluded.reset_at, seen_at = excluded.seen_at",
            )
            .doing(&self.path, "recording a rate limit")?
            .execute(params![
                fingerprint,
                int("rate limit", limit.limit)?,
                int("rate limit remaining", limit.remaining)?,
                reset_text(limit.reset),
                ts_text(seen_at)
            ])
            .doing(&self.path, "recording a rate limit")?;
        Ok(())
    }

    fn rate_limit_get(&self, fingerprint: &str) -> Result<Option<(RateLimit, Timestamp)>> {
        Ok(self
            .all_rate_limits()?
            .into_iter()
            .find(|(f, _, _)| f == fingerprint)
            .map(|(_, l, seen)| (l, seen)))
    }
}

impl Store {
    /// Every rate limit last seen, by token fingerprint, with when it was
    /// seen (for [`crate::Reads::status`]).
    pub(crate) fn all_rate_limits(&self) -> Result<Vec<(String, RateLimit, Timestamp)>> {
        let path = &self.path;
        let doing = "reading the rate limits";
        let mut stmt = self
            .conn
            .prepare_cached(
                "SELECT token_fingerprint, rate_limit, remaining, reset_at, seen_at
                 FROM rate_limits ORDER BY token_fingerprint",
            )
            .doing(path, doing)?;
        let rows = stmt
            .query_map([], |r| {
                Ok((
                    r.get::<_, String>(0)?,
                    r.get::<_, i64>(1)?,
                    r.get::<_, i64>(2)?,
                    r.get::<_, String>(3)?,
                    r.get::<_, String>(4)?,
                ))
            })
            .doing(path, doing)?;
        let mut out = Vec::new();
        for row in rows {
            let (fingerprint, limit, remaining, reset, seen) = row.doing(path, doing)?;
            out.push((
                fingerprint,
                RateLimit {
                    limit: uint(path, "rate_limits.rate_limit", limit)?,
                    remaining: uint(path, "rate_limits.remaining", remaining)?,
                    reset: reset_parse(path, "rate_limits.reset_at", &reset)?,
                    used: None,
                    resource: None,
                },
                ts_parse(path, "rate_limits.seen_at", &seen)?,
            ));
        }
        Ok(out)
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
    use crate::suite::WholeReads;

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

    #[test]
    fn pruning_drops_only_entries_unused_since_the_bound() {
        let store = Store::open_in_memory().unwrap();
        let entry = CachedResponse {
            etag: Some("\"e\"".into()),
            last_modified: None,
            link_next: None,
            body: b"[]".to_vec(),
        };
        let at = |s: &str| s.parse::<Timestamp>().unwrap();
        store
            .cache_put("https://h/old", "fp", &entry, at("2026-11-01T00:00:00Z"))
            .unwrap();
        store
            .cache_put("https://h/used", "fp", &entry, at("2026-11-01T00:00:00Z"))
            .unwrap();
        store
            .cache_put("https://h/new", "fp", &entry, at("2026-11-20T23:59:59.9Z"))
            .unwrap();
        store
            .cache_touch(
                "https://h/used",
                "fp",
                "2026-11-21T00:00:00.25Z".parse().unwrap(),
            )
            .unwrap();
        let n = store
            .cache_prune("2026-11-14T00:00:00Z".parse().unwrap())
            .unwrap();
        assert_eq!(n, 1);
        assert!(store.cache_get("https://h/old", "fp").unwrap().is_none());
        assert!(store.cache_get("https://h/used", "fp").unwrap().is_some());
        assert!(store.cache_get("https://h/new", "fp").unwrap().is_some());
    }

    #[test]
    fn cache_round_trips_and_is_per_fingerprint() {
        let store = Store::open_in_memory().unwrap();
        let url = "https://api.github.com/repos/o/n/issues?page=1";
        let at: Timestamp = "2026-11-21T10:00:00.5Z".parse().unwrap();
        let response = CachedResponse {
            etag: Some("W/\"abc\"".into()),
            last_modified: None,
            link_next: Some("https://api.github.com/repos/o/n/issues?page=2".into()),
            body: b"[{\"number\":1}]".to_vec(),
        };
        assert_eq!(store.cache_get(url, "fp1").unwrap(), None);
        store.cache_put(url, "fp1", &response, at).unwrap();
        assert_eq!(store.cache_get(url, "fp1").unwrap(), Some(response.clone()));
        assert_eq!(store.cache_get(url, "fp2").unwrap(), None);
        let newer = CachedResponse {
            etag: Some("\"def\"".into()),
            body: vec![0, 159, 146, 150],
            ..response
        };
        store.cache_put(url, "fp1", &newer, at).unwrap();
        assert_eq!(store.cache_get(url, "fp1").unwrap(), Some(newer.clone()));
        assert!(matches!(
            store.cache_put("https://a:b@h/x", "fp1", &newer, at),
            Err(StoreError::CredentialsInUrl)
        ));
    }

    #[test]
    fn rate_limits_round_trip() {
        let store = Store::open_in_memory().unwrap();
        let limit = RateLimit {
            limit: 5000,
            remaining: 4990,
            reset: Some("2026-11-21T11:00:00Z".parse().unwrap()),
            used: None,
            resource: None,
        };
        let seen: Timestamp = "2026-11-21T10:00:00.250Z".parse().unwrap();
        assert_eq!(store.rate_limit_get("fp").unwrap(), None);
        store.rate_limit_put("fp", &limit, seen).unwrap();
        let later = RateLimit {
            remaining: 10,
            ..limit.clone()
        };
        store.rate_limit_put("fp", &later, seen).unwrap();
        store.rate_limit_put("", &limit, seen).unwrap();
        assert_eq!(
            store.rate_limit_get("fp").unwrap(),
            Some((later.clone(), seen))
        );
        assert_eq!(
            store.rate_limits().unwrap(),
            vec![
                ("".to_string(), limit, seen),
                ("fp".to_string(), later, seen)
            ]
        );
    }
}
