//! The HTTP state on SQLite: the cache and the rate limits, in the file.
//! One process owns the store under the collection lock, so the token
//! locks are no-ops (the role's defaults).

use jiff::Timestamp;
use rusqlite::{OptionalExtension, params};
use signals_store::codec::{int, reset_parse, reset_text, ts_parse, ts_text, uint};
use signals_store::{CachedResponse, HttpState, RateLimit, Result, SeenLimit, check_cacheable};

use crate::Store;
use crate::error::DbContext;

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
        // A response body can be large: on a full disk, its rolled-back
        // pages are given back.
        let written = self
            .conn
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
            .doing(&self.path, "writing the HTTP cache");
        self.give_back(written).map(drop)
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

    fn rate_limit_get(&self, fingerprint: &str) -> Result<Option<SeenLimit>> {
        Ok(self
            .all_rate_limits()?
            .into_iter()
            .find(|(f, _, _)| f == fingerprint)
            .map(|(_, limit, seen_at)| SeenLimit { limit, seen_at }))
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

#[cfg(test)]
mod tests {
    use super::*;
    use signals_store::StoreError;
    use signals_store::suite::WholeReads;

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
            store
                .rate_limit_get("fp")
                .unwrap()
                .map(|s| (s.limit, s.seen_at)),
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
