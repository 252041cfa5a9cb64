//! The HTTP state on PostgreSQL, shared by the clients of every worker:
//! the conditional-request cache, the rate limits last seen, and a
//! per-token advisory lock that keeps requests on one token serial across
//! workers.

use jiff::Timestamp;
use signals_store::codec::{int, reset_parse, reset_text, ts_parse, ts_text, uint};
use signals_store::{CachedResponse, HttpState, RateLimit, Result, SeenLimit, check_cacheable};

use crate::{PgStore, lock_key};

impl HttpState for PgStore {
    fn cache_get(&self, url: &str, fingerprint: &str) -> Result<Option<CachedResponse>> {
        let row = self.query_opt(
            "reading the HTTP cache",
            "SELECT etag, last_modified, link_next, body, stored_at FROM http_cache
             WHERE url = $1 AND token_fingerprint = $2",
            &[&url, &fingerprint],
        )?;
        row.map(|r| {
            ts_parse(&self.path(), "http_cache.stored_at", r.get(4))?;
            Ok(CachedResponse {
                etag: r.get(0),
                last_modified: r.get(1),
                link_next: r.get(2),
                body: r.get(3),
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
        self.execute(
            "writing the HTTP cache",
            "INSERT INTO http_cache
                (url, token_fingerprint, etag, last_modified, link_next, body, stored_at)
             VALUES ($1, $2, $3, $4, $5, $6, $7)
             ON CONFLICT (url, token_fingerprint) DO UPDATE SET
                etag = excluded.etag, last_modified = excluded.last_modified,
                link_next = excluded.link_next, body = excluded.body,
                stored_at = excluded.stored_at",
            &[
                &url,
                &fingerprint,
                &response.etag,
                &response.last_modified,
                &response.link_next,
                &response.body,
                &ts_text(stored_at),
            ],
        )?;
        Ok(())
    }

    fn cache_touch(&self, url: &str, fingerprint: &str, at: Timestamp) -> Result<()> {
        self.execute(
            "touching the HTTP cache",
            "UPDATE http_cache SET stored_at = $3 WHERE url = $1 AND token_fingerprint = $2",
            &[&url, &fingerprint, &ts_text(at)],
        )?;
        Ok(())
    }

    fn cache_prune(&self, before: Timestamp) -> Result<usize> {
        let n = self.execute(
            "pruning the HTTP cache",
            "DELETE FROM http_cache WHERE stored_at::timestamptz < $1::text::timestamptz",
            &[&ts_text(before)],
        )?;
        Ok(n as usize)
    }

    fn rate_limit_put(&self, key: &str, limit: &RateLimit, seen_at: Timestamp) -> Result<()> {
        self.execute(
            "recording a rate limit",
            "INSERT INTO rate_limits (token_fingerprint, rate_limit, remaining, reset_at, seen_at)
             VALUES ($1, $2, $3, $4, $5)
             ON CONFLICT (token_fingerprint) DO UPDATE SET
                rate_limit = excluded.rate_limit, remaining = excluded.remaining,
                reset_at = excluded.reset_at, seen_at = excluded.seen_at",
            &[
                &key,
                &int("rate limit", limit.limit)?,
                &int("rate limit remaining", limit.remaining)?,
                &reset_text(limit.reset),
                &ts_text(seen_at),
            ],
        )?;
        Ok(())
    }

    fn rate_limit_get(&self, key: &str) -> Result<Option<SeenLimit>> {
        self.query_opt(
            "reading a rate limit",
            "SELECT token_fingerprint, rate_limit, remaining, reset_at, seen_at
             FROM rate_limits WHERE token_fingerprint = $1",
            &[&key],
        )?
        .map(|r| {
            self.limit_row(&r)
                .map(|(_, limit, seen_at)| SeenLimit { limit, seen_at })
        })
        .transpose()
    }

    fn shares_http_state(&self) -> bool {
        true
    }
    /// A session advisory lock per token key: held while a request on the
    /// token is in flight, so requests on one token stay serial across
    /// workers. It goes with the connection, so a worker that dies frees it.
    /// While a worker holds a lease, each request also renews it: a lease
    /// expires only when its worker stops making progress.
    fn lock_token(&self, key: &str) -> Result<()> {
        self.execute(
            "waiting for a token",
            "SELECT pg_advisory_lock($1)",
            &[&lock_key(key)],
        )?;
        let lease = self.lease.borrow().clone();
        if let Some((repo, worker, secs)) = lease {
            self.execute(
                "renewing a lease",
                "UPDATE leases SET lease_until = now() + make_interval(secs => $3)
                 WHERE repo = $1 AND worker = $2 AND lease_until > now()",
                &[&repo, &worker, &secs],
            )?;
        }
        Ok(())
    }
    fn unlock_token(&self, key: &str) -> Result<()> {
        self.execute(
            "releasing a token",
            "SELECT pg_advisory_unlock($1)",
            &[&lock_key(key)],
        )?;
        Ok(())
    }
}

impl PgStore {
    fn limit_row(&self, r: &postgres::Row) -> Result<(String, RateLimit, Timestamp)> {
        let path = self.path();
        Ok((
            r.get(0),
            RateLimit {
                limit: uint(&path, "rate_limits.rate_limit", r.get(1))?,
                remaining: uint(&path, "rate_limits.remaining", r.get(2))?,
                reset: reset_parse(&path, "rate_limits.reset_at", r.get(3))?,
                used: None,
                resource: None,
            },
            ts_parse(&path, "rate_limits.seen_at", r.get(4))?,
        ))
    }

    /// Every rate limit last seen, by key, with when it was seen (for
    /// [`signals_store::Reads::status`]).
    pub(crate) fn all_rate_limits(&self) -> Result<Vec<(String, RateLimit, Timestamp)>> {
        self.query(
            "reading the rate limits",
            "SELECT token_fingerprint, rate_limit, remaining, reset_at, seen_at
             FROM rate_limits ORDER BY token_fingerprint",
            &[],
        )?
        .iter()
        .map(|r| self.limit_row(r))
        .collect()
    }
}
