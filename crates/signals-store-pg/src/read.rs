//! The read side in PostgreSQL: what a run plans from, the repositories
//! and `signals status`, by the same queries as the SQLite store's,
//! returning the same values (the row decoding is shared:
//! `signals_store::{summary_from, run_record_from, trail_event_from,
//! Parts}`).

use std::collections::HashMap;

use jiff::Timestamp;
use signals_core::{DiscussionsOff, ItemSnapshot, RunRecord};
use signals_store::codec::{ts_parse, uint};
use signals_store::{
    Failure, Parts, Reads, ReconcileMarks, RepoKey, RepoStatus, RepoSummary, RequestStats, Result,
    RunStatus, Status, StoreError, discussions_off_from, run_record_from, summary_from,
};

use crate::PgStore;

/// The columns of a snapshot row joined with its texts, in the order
/// `Parts::from_raw` reads them (`RawParts`); `s` is the alias of `snapshots`, the
/// others those of [`SNAPSHOT_JOINS`].
pub(crate) const SNAPSHOT_COLUMNS: &str = "h.text, b.text, s.updated_s, s.updated_ns, s.state, \
     s.reactions, s.comments, l.text, a.text, d.text, s.closed_s, s.closed_ns";

/// The joins that go with [`SNAPSHOT_COLUMNS`].
pub(crate) const SNAPSHOT_JOINS: &str = "JOIN texts h ON h.id = s.head JOIN texts b ON b.id = s.body \
     JOIN texts l ON l.id = s.labels JOIN texts a ON a.id = s.assignees \
     JOIN texts d ON d.id = s.detail";

/// [`SNAPSHOT_COLUMNS`] without the body (read as an empty text), and the
/// joins that go with it: what ranking and filtering need, at a fraction of
/// the bytes.
pub(crate) const HEAD_COLUMNS: &str = "h.text, '', s.updated_s, s.updated_ns, s.state, \
     s.reactions, s.comments, l.text, a.text, d.text, s.closed_s, s.closed_ns";

/// The joins that go with [`HEAD_COLUMNS`].
pub(crate) const HEAD_JOINS: &str = "JOIN texts h ON h.id = s.head \
     JOIN texts l ON l.id = s.labels JOIN texts a ON a.id = s.assignees \
     JOIN texts d ON d.id = s.detail";

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

impl Reads for PgStore {
    fn last_successful_run(&self, repo: RepoKey) -> Result<Option<RunRecord>> {
        let row = self.query_opt(
            "reading the last run",
            &format!("SELECT {RUN_COLUMNS} FROM runs WHERE repo = $1 ORDER BY id DESC LIMIT 1"),
            &[&repo.raw()],
        )?;
        row.map(|r| run_record_from(&self.path(), run_row(&r)))
            .transpose()
    }

    fn reconcile_marks(&self, repo: RepoKey) -> Result<ReconcileMarks> {
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
        Ok(ReconcileMarks {
            first_run: parse(row.get(0))?,
            last_reconcile: parse(row.get(1))?,
        })
    }

    fn kept_pulls(&self, repo: RepoKey) -> Result<signals_store::PullsKept> {
        let path = self.path();
        let row = self
            .query_opt(
                "reading the kept count of open pull requests",
                "SELECT open_pulls, open_pulls_differed FROM repositories WHERE key = $1",
                &[&repo.raw()],
            )?
            .ok_or_else(|| signals_store::StoreError::UnknownRepository {
                path: path.clone(),
                key: repo,
            })?;
        let count: Option<i64> = row.get(0);
        Ok(signals_store::PullsKept {
            count: count
                .map(|n| uint(&path, "repositories.open_pulls", n))
                .transpose()?,
            differed: row.get(1),
        })
    }

    fn discussions_off(&self) -> Result<Vec<(RepoKey, DiscussionsOff)>> {
        let path = self.path();
        self.query(
            "reading why discussions were not read",
            // Each repository's last run by the `(repo, id)` index: a
            // `GROUP BY` over all runs grew with the history.
            "SELECT r.key, (l.news::jsonb)->>'discussions_off' FROM repositories r
             CROSS JOIN LATERAL (SELECT news FROM runs WHERE repo = r.key
                                 ORDER BY id DESC LIMIT 1) l
             WHERE (l.news::jsonb) ? 'discussions_off'
             ORDER BY r.key",
            &[],
        )?
        .iter()
        .map(|r| {
            let off: String = r.get(1);
            Ok((
                RepoKey::from_raw(r.get(0)),
                discussions_off_from(&path, &off)?,
            ))
        })
        .collect()
    }

    fn open_item_ids(&self, repo: RepoKey) -> Result<Vec<String>> {
        Ok(self
            .query(
                "listing the open items",
                "SELECT i.item_id FROM items i JOIN snapshots s ON s.id = i.latest
                 WHERE i.repo = $1 AND i.kind NOT IN ('release', 'advisory') AND s.state = 0
                 ORDER BY i.item_id",
                &[&repo.raw()],
            )?
            .iter()
            .map(|r| r.get(0))
            .collect())
    }

    fn advisories(&self, repo: RepoKey) -> Result<Vec<ItemSnapshot>> {
        let path = self.path();
        let mut out = Vec::new();
        self.each_row(
            "reading the advisories",
            &format!(
                "SELECT i.item_key, {SNAPSHOT_COLUMNS}
                 FROM items i JOIN snapshots s ON s.id = i.latest {SNAPSHOT_JOINS}
                 WHERE i.repo = $1 AND i.kind = 'advisory' ORDER BY i.item_id"
            ),
            &[&repo.raw()],
            |r| {
                let key: String = r.get(0);
                out.push(Parts::join(&path, &key, raw_parts(r, 1))?);
                Ok(())
            },
        )?;
        Ok(out)
    }

    /// One query for all `ids` (`= ANY`): one round trip, however many
    /// items a run observed, where SQLite does one seek per id.
    fn latest_snapshots_for(
        &self,
        repo: RepoKey,
        ids: &[String],
    ) -> Result<HashMap<String, ItemSnapshot>> {
        self.latest_of(repo, ids, SNAPSHOT_COLUMNS, SNAPSHOT_JOINS)
    }

    fn latest_heads_for(
        &self,
        repo: RepoKey,
        ids: &[String],
    ) -> Result<HashMap<String, ItemSnapshot>> {
        self.latest_of(repo, ids, HEAD_COLUMNS, HEAD_JOINS)
    }

    fn snapshot_history(
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

    fn repository(&self, group: &str, repo: &str) -> Result<Option<RepoSummary>> {
        let row = self.query_opt(
            "reading a repository",
            &format!("{SUMMARY_SQL} WHERE r.group_id = $1 AND r.repo_id = $2"),
            &[&group, &repo],
        )?;
        row.map(|r| summary_from(&self.path(), summary_row(&r)))
            .transpose()
    }

    fn repositories(&self) -> Result<Vec<RepoSummary>> {
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

    /// One statement for every repository: each repository's
    /// last run, last failure and last reconcile come from `LATERAL`
    /// subqueries on the `(repo, id)` indexes, its totals from its row of
    /// `repo_totals`, where one query per repository and per value cost 5
    /// round trips a repository.
    fn status(&self) -> Result<Status> {
        let path = self.path();
        let rows = self.query(
            "reading the status of the repositories",
            &format!("{STATUS_SQL} ORDER BY r.group_id, r.repo_id"),
            &[],
        )?;
        let mut repositories = Vec::with_capacity(rows.len());
        for r in &rows {
            repositories.push(status_from(&path, r)?);
        }
        Ok(Status {
            repositories,
            rate_limits: self.all_rate_limits()?,
        })
    }
}

/// [`SUMMARY_SQL`]'s 13 columns, then the last run (13-20), the last
/// failure (21-23), the totals (24-31) and the last reconcile (32). The
/// counts and sums are the repository's kept row of `repo_totals`
/// (`totals.rs`), not a pass over its history.
const STATUS_SQL: &str = "
    SELECT r.key, r.group_id, g.name, r.repo_id, r.source, r.full_name, r.display_name,
           r.keywords, r.host_name, r.missing, r.last_error,
           coalesce(t.runs, 0),
           lr.collected_at,
           lr.collected_at, lr.since, lr.observed_count, lr.changed_count,
           lr.requests, lr.not_modified, lr.bytes_received, lr.retries,
           lf.at, lf.kind, lf.message,
           coalesce(t.items, 0),
           coalesce(t.changed, 0), coalesce(t.requests, 0),
           coalesce(t.not_modified, 0), coalesce(t.bytes, 0),
           coalesce(t.retries, 0),
           coalesce(t.failures, 0), coalesce(t.failures_since, 0),
           (SELECT collected_at FROM runs WHERE repo = r.key AND reconciled = 1
            ORDER BY id DESC LIMIT 1)
    FROM repositories r JOIN groups g ON g.id = r.group_id
    LEFT JOIN LATERAL (
        SELECT collected_at, since, observed_count, changed_count,
               requests, not_modified, bytes_received, retries
        FROM runs WHERE repo = r.key ORDER BY id DESC LIMIT 1) lr ON true
    LEFT JOIN LATERAL (
        SELECT at, kind, message FROM failures WHERE repo = r.key
        ORDER BY id DESC LIMIT 1) lf ON true
    LEFT JOIN repo_totals t ON t.repo = r.key";

/// A row of [`STATUS_SQL`].
fn status_from(path: &std::path::Path, r: &postgres::Row) -> Result<RepoStatus> {
    let summary = summary_from(path, summary_row(r))?;
    let last_run = match r.get::<_, Option<String>>(13) {
        None => None,
        Some(at) => Some(RunStatus {
            record: run_record_from(path, (at, r.get(14), r.get(15), r.get(16)))?,
            stats: RequestStats {
                requests: uint(path, "runs.requests", r.get(17))?,
                not_modified: uint(path, "runs.not_modified", r.get(18))?,
                bytes_received: uint(path, "runs.bytes_received", r.get(19))?,
                retries: uint(path, "runs.retries", r.get(20))?,
            },
        }),
    };
    let last_failure = match r.get::<_, Option<String>>(21) {
        None => None,
        Some(at) => Some(Failure {
            at: ts_parse(path, "failures.at", &at)?,
            kind: r.get(22),
            message: r.get(23),
        }),
    };
    let mut totals = [0i64; 8];
    for (i, v) in totals.iter_mut().enumerate() {
        *v = r.get(24 + i);
    }
    let last_reconcile = r
        .get::<_, Option<String>>(32)
        .map(|t| ts_parse(path, "runs.collected_at", &t))
        .transpose()?;
    Ok(RepoStatus {
        summary,
        last_run,
        last_failure,
        totals: signals_store::totals_from(path, totals)?,
        last_reconcile,
    })
}

impl PgStore {
    /// The latest snapshot of each of `ids`, read with `columns` and
    /// their joins, in one statement.
    fn latest_of(
        &self,
        repo: RepoKey,
        ids: &[String],
        columns: &str,
        joins: &str,
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
                "SELECT i.item_id, i.item_key, {columns}
                 FROM items i JOIN snapshots s ON s.id = i.latest {joins}
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
}
