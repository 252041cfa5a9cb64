//! The read side in PostgreSQL: what a run plans from, the repositories
//! and `signals status`, by the same queries as the SQLite store's,
//! returning the same values (the row decoding is shared:
//! `signals_store::{summary_from, run_record_from, trail_event_from,
//! Parts}`).

use std::collections::HashMap;

use jiff::Timestamp;
use signals_core::{DiscussionsOff, ItemSnapshot, RunRecord};
use signals_store::codec::{ts_parse, ts_text, uint};
use signals_store::{
    Failure, Parts, Reads, RepoKey, RepoStatus, RepoSummary, RequestStats, Result, RunStatus,
    SNAPSHOT_COLUMNS, SNAPSHOT_JOINS, Status, StoreError, discussions_off_from, run_record_from,
    summary_from,
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

    fn reconcile_marks(&self, repo: RepoKey) -> Result<(Option<Timestamp>, Option<Timestamp>)> {
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
            "SELECT r.repo, (r.news::jsonb)->>'discussions_off' FROM runs r
             JOIN (SELECT repo, max(id) AS id FROM runs GROUP BY repo) l ON l.id = r.id
             WHERE (r.news::jsonb) ? 'discussions_off'
             ORDER BY r.repo",
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
                 WHERE i.repo = $1 AND i.kind <> 'release' AND s.state = 0
                 ORDER BY i.item_id",
                &[&repo.raw()],
            )?
            .iter()
            .map(|r| r.get(0))
            .collect())
    }

    /// One query for all `ids` (`= ANY`): one round trip, however many
    /// items a run observed, where SQLite does one seek per id.
    fn latest_snapshots_for(
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

    fn status(&self) -> Result<Status> {
        let path = self.path();
        let mut repositories = Vec::new();
        for summary in self.repositories()? {
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
            let last_reconcile = self.reconcile_marks(summary.key)?.1;
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
            rate_limits: self.all_rate_limits()?,
        })
    }
}

impl PgStore {
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
