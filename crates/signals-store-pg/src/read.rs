//! The read side and the HTTP state, in PostgreSQL: the same queries as the
//! SQLite store's, returning the same values (the row decoding is shared:
//! `signals_store::{summary_from, run_record_from, trail_event_from,
//! Parts}`).

use std::collections::{BTreeMap, HashMap, HashSet};

use jiff::Timestamp;
use postgres::fallible_iterator::FallibleIterator;
use postgres::types::ToSql;
use signals_core::{ItemSnapshot, RunRecord, TrailEvent};
use signals_store::codec::{int, reset_parse, reset_text, ts_parse, ts_text, uint};
use signals_store::{
    CachedResponse, Failure, Parts, RateLimit, RepoKey, RepoStatus, RepoSummary, RepoView,
    RequestStats, Result, RunStatus, SNAPSHOT_COLUMNS, SNAPSHOT_JOINS, Status, StoreError,
    check_cacheable, run_record_from, summary_from, trail_event_from,
};

use crate::PgStore;

const SUMMARY_SQL: &str = "
    SELECT r.key, r.group_id, g.name, r.repo_id, r.source, r.full_name, r.display_name,
           r.keywords, r.host_name, r.missing, r.last_error,
           (SELECT count(*) FROM runs WHERE repo = r.key),
           (SELECT collected_at FROM runs WHERE repo = r.key ORDER BY id DESC LIMIT 1)
    FROM repositories r JOIN groups g ON g.id = r.group_id";

pub(crate) const RUN_COLUMNS: &str = "collected_at, since, observed_count, changed_count";

pub(crate) fn raw_parts(r: &postgres::Row, at: usize) -> signals_store::RawParts {
    (
        r.get(at),
        r.get(at + 1),
        r.get(at + 2),
        r.get(at + 3),
        r.get(at + 4),
        r.get(at + 5),
        r.get(at + 6),
        r.get(at + 7),
        r.get(at + 8),
        r.get(at + 9),
        r.get(at + 10),
        r.get(at + 11),
    )
}

/// A trail row as [`trail_event_from`] takes it, from the columns the
/// trail queries select.
pub(crate) fn trail_row(r: &postgres::Row) -> signals_store::TrailRow {
    (r.get(0), r.get(1), r.get(2), r.get(3), r.get(4), r.get(5))
}

fn summary_row(r: &postgres::Row) -> signals_store::SummaryRow {
    (
        r.get(0),
        r.get(1),
        r.get(2),
        r.get(3),
        r.get(4),
        r.get(5),
        r.get(6),
        r.get(7),
        r.get(8),
        r.get::<_, i64>(9) != 0,
        r.get(10),
        r.get(11),
        r.get(12),
    )
}

pub(crate) fn run_row(r: &postgres::Row) -> signals_store::RunRow {
    (r.get(0), r.get(1), r.get(2), r.get(3))
}

impl PgStore {
    /// Rows of a query, streamed to `each`.
    pub(crate) fn each_row(
        &self,
        doing: &'static str,
        sql: &str,
        params: &[&(dyn ToSql + Sync)],
        mut each: impl FnMut(&postgres::Row) -> Result<()>,
    ) -> Result<()> {
        let mut client = self.client.borrow_mut();
        let mut rows = client
            .query_raw(sql, params.iter().copied())
            .map_err(self.err(doing))?;
        while let Some(row) = rows.next().map_err(self.err(doing))? {
            each(&row)?;
        }
        Ok(())
    }

    pub(crate) fn query(
        &self,
        doing: &'static str,
        sql: &str,
        params: &[&(dyn ToSql + Sync)],
    ) -> Result<Vec<postgres::Row>> {
        self.retrying(|client, _| client.query(sql, params).map_err(self.err(doing)))
    }

    pub(crate) fn query_opt(
        &self,
        doing: &'static str,
        sql: &str,
        params: &[&(dyn ToSql + Sync)],
    ) -> Result<Option<postgres::Row>> {
        self.retrying(|client, _| client.query_opt(sql, params).map_err(self.err(doing)))
    }

    pub(crate) fn execute(
        &self,
        doing: &'static str,
        sql: &str,
        params: &[&(dyn ToSql + Sync)],
    ) -> Result<u64> {
        self.retrying(|client, _| client.execute(sql, params).map_err(self.err(doing)))
    }

    pub(crate) fn last_successful_run_(&self, repo: RepoKey) -> Result<Option<RunRecord>> {
        let row = self.query_opt(
            "reading the last run",
            &format!("SELECT {RUN_COLUMNS} FROM runs WHERE repo = $1 ORDER BY id DESC LIMIT 1"),
            &[&repo.raw()],
        )?;
        row.map(|r| run_record_from(&self.path(), run_row(&r)))
            .transpose()
    }

    pub(crate) fn reconcile_marks_(
        &self,
        repo: RepoKey,
    ) -> Result<(Option<Timestamp>, Option<Timestamp>)> {
        let path = self.path();
        let row = self
            .query_opt(
                "reading when the repository was last reconciled",
                "SELECT (SELECT collected_at FROM runs WHERE repo = $1 ORDER BY id LIMIT 1),
                        (SELECT collected_at FROM runs WHERE repo = $1 AND reconciled = 1
                         ORDER BY id DESC LIMIT 1)",
                &[&repo.raw()],
            )?
            .ok_or_else(|| self.corrupt("a query of two values answered no row".into()))?;
        let parse = |t: Option<String>| {
            t.map(|t| ts_parse(&path, "runs.collected_at", &t))
                .transpose()
        };
        Ok((parse(row.get(0))?, parse(row.get(1))?))
    }

    pub(crate) fn open_item_ids_(&self, repo: RepoKey) -> Result<Vec<String>> {
        Ok(self
            .query(
                "listing the open items",
                "SELECT i.item_id FROM items i JOIN snapshots s ON s.id = i.latest
                 WHERE i.repo = $1 AND i.kind <> 'release' AND s.state = 0
                 ORDER BY i.item_id",
                &[&repo.raw()],
            )?
            .iter()
            .map(|r| r.get(0))
            .collect())
    }

    pub(crate) fn latest_snapshots_(
        &self,
        repo: RepoKey,
    ) -> Result<BTreeMap<String, ItemSnapshot>> {
        let path = self.path();
        let mut out = BTreeMap::new();
        self.each_row(
            "reading the latest snapshots",
            &format!(
                "SELECT i.item_id, i.item_key, {SNAPSHOT_COLUMNS}
                 FROM items i JOIN snapshots s ON s.id = i.latest {SNAPSHOT_JOINS}
                 WHERE i.repo = $1"
            ),
            &[&repo.raw()],
            |r| {
                let key: String = r.get(1);
                out.insert(r.get(0), Parts::join(&path, &key, raw_parts(r, 2))?);
                Ok(())
            },
        )?;
        Ok(out)
    }

    /// One query for all `ids` (`= ANY`): one round trip, however many
    /// items a run observed, where SQLite does one seek per id.
    pub(crate) fn latest_snapshots_for_(
        &self,
        repo: RepoKey,
        ids: &[String],
    ) -> Result<HashMap<String, ItemSnapshot>> {
        let path = self.path();
        let mut out = HashMap::with_capacity(ids.len());
        if ids.is_empty() {
            return Ok(out);
        }
        let ids: Vec<&str> = ids.iter().map(String::as_str).collect();
        self.each_row(
            "reading the latest snapshots of observed items",
            &format!(
                "SELECT i.item_id, i.item_key, {SNAPSHOT_COLUMNS}
                 FROM items i JOIN snapshots s ON s.id = i.latest {SNAPSHOT_JOINS}
                 WHERE i.repo = $1 AND i.item_id = ANY($2)"
            ),
            &[&repo.raw(), &ids],
            |r| {
                let key: String = r.get(1);
                out.insert(r.get(0), Parts::join(&path, &key, raw_parts(r, 2))?);
                Ok(())
            },
        )?;
        Ok(out)
    }

    pub(crate) fn snapshot_history_(
        &self,
        repo: RepoKey,
        item_id: &str,
    ) -> Result<Vec<(Timestamp, ItemSnapshot)>> {
        let path = self.path();
        let mut out = Vec::new();
        self.each_row(
            "reading an item's history",
            &format!(
                "SELECT r.collected_at, i.item_key, {SNAPSHOT_COLUMNS}
                 FROM items i JOIN snapshots s ON s.item = i.id {SNAPSHOT_JOINS}
                      JOIN runs r ON r.id = s.run
                 WHERE i.repo = $1 AND i.item_id = $2 ORDER BY s.id"
            ),
            &[&repo.raw(), &item_id],
            |r| {
                let at: String = r.get(0);
                let key: String = r.get(1);
                out.push((
                    ts_parse(&path, "runs.collected_at", &at)?,
                    Parts::join(&path, &key, raw_parts(r, 2))?,
                ));
                Ok(())
            },
        )?;
        Ok(out)
    }

    pub(crate) fn repositories_(&self) -> Result<Vec<RepoSummary>> {
        let path = self.path();
        self.query(
            "listing the repositories",
            &format!("{SUMMARY_SQL} ORDER BY r.group_id, r.repo_id"),
            &[],
        )?
        .iter()
        .map(|r| summary_from(&path, summary_row(r)))
        .collect()
    }

    pub(crate) fn summary_of(&self, repo: RepoKey) -> Result<RepoSummary> {
        match self.query_opt(
            "reading a repository",
            &format!("{SUMMARY_SQL} WHERE r.key = $1"),
            &[&repo.raw()],
        )? {
            Some(r) => summary_from(&self.path(), summary_row(&r)),
            None => Err(StoreError::UnknownRepository {
                path: self.path(),
                key: repo,
            }),
        }
    }

    pub(crate) fn repository_view_(&self, repo: RepoKey) -> Result<Option<RepoView>> {
        let Some(outline) = self.repository_outline_(repo)? else {
            return Ok(None);
        };
        let items = self.latest_snapshots_(repo)?;
        let changed_in_latest: HashSet<String> = self
            .query(
                "reading the latest run's changes",
                "SELECT i.item_id FROM events e JOIN items i ON i.id = e.item
                 WHERE e.run = (SELECT max(id) FROM runs WHERE repo = $1) AND e.kind = 1",
                &[&repo.raw()],
            )?
            .iter()
            .map(|r| r.get(0))
            .collect();
        let trail = self.trail(repo)?;
        Ok(Some(RepoView {
            summary: outline.summary,
            runs: outline.runs,
            license: outline.license,
            context: outline.context,
            news: outline.news,
            items,
            changed_in_latest,
            event_count: trail.len() as u64,
            trail,
        }))
    }

    fn trail(&self, repo: RepoKey) -> Result<Vec<TrailEvent>> {
        let path = self.path();
        let mut out = Vec::new();
        self.each_row(
            "reading the observation trail",
            "SELECT r.collected_at, i.item_id, h.text, e.kind, e.fields, e.detail
             FROM runs r
             JOIN events e ON e.run = r.id
             JOIN items i ON i.id = e.item
             JOIN snapshots s ON s.id = e.snapshot
             JOIN texts h ON h.id = s.head
             WHERE r.repo = $1
             ORDER BY r.id, e.pos",
            &[&repo.raw()],
            |r| {
                out.push(trail_event_from(&path, trail_row(r))?);
                Ok(())
            },
        )?;
        Ok(out)
    }

    pub(crate) fn status_(&self) -> Result<Status> {
        let path = self.path();
        let mut repositories = Vec::new();
        for summary in self.repositories_()? {
            let key = summary.key.raw();
            let last_run = match self.query_opt(
                "reading the last run",
                &format!(
                    "SELECT {RUN_COLUMNS}, requests, not_modified, bytes_received, retries
                     FROM runs WHERE repo = $1 ORDER BY id DESC LIMIT 1"
                ),
                &[&key],
            )? {
                None => None,
                Some(r) => Some(RunStatus {
                    record: run_record_from(&path, run_row(&r))?,
                    stats: RequestStats {
                        requests: uint(&path, "runs.requests", r.get(4))?,
                        not_modified: uint(&path, "runs.not_modified", r.get(5))?,
                        bytes_received: uint(&path, "runs.bytes_received", r.get(6))?,
                        retries: uint(&path, "runs.retries", r.get(7))?,
                    },
                }),
            };
            let last_failure = match self.query_opt(
                "reading the last failure",
                "SELECT at, kind, message FROM failures WHERE repo = $1 ORDER BY id DESC LIMIT 1",
                &[&key],
            )? {
                None => None,
                Some(r) => Some(Failure {
                    at: ts_parse(&path, "failures.at", r.get(0))?,
                    kind: r.get(1),
                    message: r.get(2),
                }),
            };
            let since = last_run.as_ref().map(|l| ts_text(l.record.collected_at));
            let r = self
                .query_opt(
                    "adding up the runs and failures",
                    "SELECT (SELECT count(*) FROM items WHERE repo = $1),
                            coalesce(sum(changed_count), 0)::bigint,
                            coalesce(sum(requests), 0)::bigint,
                            coalesce(sum(not_modified), 0)::bigint,
                            coalesce(sum(bytes_received), 0)::bigint,
                            coalesce(sum(retries), 0)::bigint,
                            (SELECT count(*) FROM failures WHERE repo = $1),
                            (SELECT count(*) FROM failures WHERE repo = $1 AND ($2::text IS NULL
                                OR at::timestamptz > $2::text::timestamptz))
                     FROM runs WHERE repo = $1",
                    &[&key, &since],
                )?
                .ok_or_else(|| self.corrupt("an aggregate answered no row".into()))?;
            let mut row = [0i64; 8];
            for (i, v) in row.iter_mut().enumerate() {
                *v = r.get(i);
            }
            let last_reconcile = self.reconcile_marks_(summary.key)?.1;
            repositories.push(RepoStatus {
                summary,
                last_run,
                last_failure,
                totals: signals_store::totals_from(&path, row)?,
                last_reconcile,
            });
        }
        Ok(Status {
            repositories,
            rate_limits: self.rate_limits_()?,
        })
    }

    pub(crate) fn cache_get_(
        &self,
        url: &str,
        fingerprint: &str,
    ) -> Result<Option<CachedResponse>> {
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

    pub(crate) fn cache_put_(
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

    pub(crate) fn cache_touch_(&self, url: &str, fingerprint: &str, at: Timestamp) -> Result<()> {
        self.execute(
            "touching the HTTP cache",
            "UPDATE http_cache SET stored_at = $3 WHERE url = $1 AND token_fingerprint = $2",
            &[&url, &fingerprint, &ts_text(at)],
        )?;
        Ok(())
    }

    pub(crate) fn cache_prune_(&self, before: Timestamp) -> Result<usize> {
        let n = self.execute(
            "pruning the HTTP cache",
            "DELETE FROM http_cache WHERE stored_at::timestamptz < $1::text::timestamptz",
            &[&ts_text(before)],
        )?;
        Ok(n as usize)
    }

    pub(crate) fn rate_limit_put_(
        &self,
        key: &str,
        limit: &RateLimit,
        seen_at: Timestamp,
    ) -> Result<()> {
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

    pub(crate) fn rate_limit_get_(&self, key: &str) -> Result<Option<(RateLimit, Timestamp)>> {
        self.query_opt(
            "reading a rate limit",
            "SELECT token_fingerprint, rate_limit, remaining, reset_at, seen_at
             FROM rate_limits WHERE token_fingerprint = $1",
            &[&key],
        )?
        .map(|r| self.limit_row(&r).map(|(_, l, s)| (l, s)))
        .transpose()
    }

    pub(crate) fn rate_limits_(&self) -> Result<Vec<(String, RateLimit, Timestamp)>> {
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
