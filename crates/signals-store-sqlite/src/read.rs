//! The read side on SQLite: what a run needs from the store (the last
//! run, the latest snapshots of what it observed), an item's history, the
//! repositories and `signals status`. Nothing here writes.

use std::collections::HashMap;

use jiff::Timestamp;
use rusqlite::{OptionalExtension, Row, params};
use signals_core::{DiscussionsOff, ItemSnapshot, RunRecord};
use signals_store::codec::{ts_parse, uint};
use signals_store::{
    Failure, Parts, Reads, ReconcileMarks, RepoKey, RepoStatus, RepoSummary, RequestStats, Result,
    RunRow, RunStatus, Status, StoreError, SummaryRow, TrailRow, discussions_off_from,
    run_record_from, summary_from, totals_from,
};

use crate::Store;
use crate::error::DbContext;
use crate::snapshots::raw_parts;
use crate::snapshots::{HEAD_COLUMNS, HEAD_JOINS, SNAPSHOT_COLUMNS, SNAPSHOT_JOINS};

const SUMMARY_SQL: &str = "
    SELECT r.key, r.group_id, g.name, r.repo_id, r.source, r.full_name, r.display_name,
           r.keywords, r.host_name, r.missing, r.last_error,
           (SELECT count(*) FROM runs WHERE repo = r.key),
           (SELECT collected_at FROM runs WHERE repo = r.key ORDER BY id DESC LIMIT 1)
    FROM repositories r JOIN groups g ON g.id = r.group_id";

fn summary_row(r: &Row<'_>) -> rusqlite::Result<SummaryRow> {
    Ok((
        r.get(0)?,
        r.get(1)?,
        r.get(2)?,
        r.get(3)?,
        r.get(4)?,
        r.get(5)?,
        r.get(6)?,
        r.get(7)?,
        r.get(8)?,
        r.get(9)?,
        r.get(10)?,
        r.get(11)?,
        r.get(12)?,
    ))
}

pub(crate) const RUN_COLUMNS: &str = "collected_at, since, observed_count, changed_count";

pub(crate) fn run_row(r: &Row<'_>) -> rusqlite::Result<RunRow> {
    Ok((r.get(0)?, r.get(1)?, r.get(2)?, r.get(3)?))
}

impl Reads for Store {
    fn last_successful_run(&self, repo: RepoKey) -> Result<Option<RunRecord>> {
        let row = self
            .conn
            .query_row(
                &format!("SELECT {RUN_COLUMNS} FROM runs WHERE repo = ?1 ORDER BY id DESC LIMIT 1"),
                [repo.raw()],
                run_row,
            )
            .optional()
            .doing(&self.path, "reading the last run")?;
        row.map(|r| run_record_from(&self.path, r)).transpose()
    }

    fn reconcile_marks(&self, repo: RepoKey) -> Result<ReconcileMarks> {
        let (first, last): (Option<String>, Option<String>) = self
            .conn
            .query_row(
                "SELECT (SELECT collected_at FROM runs WHERE repo = ?1 ORDER BY id LIMIT 1),
                        (SELECT collected_at FROM runs WHERE repo = ?1 AND reconciled = 1
                         ORDER BY id DESC LIMIT 1)",
                [repo.raw()],
                |r| Ok((r.get(0)?, r.get(1)?)),
            )
            .doing(
                &self.path,
                "reading when the repository was last reconciled",
            )?;
        let parse = |t: Option<String>| {
            t.map(|t| ts_parse(&self.path, "runs.collected_at", &t))
                .transpose()
        };
        Ok(ReconcileMarks {
            first_run: parse(first)?,
            last_reconcile: parse(last)?,
        })
    }

    fn kept_pulls(&self, repo: RepoKey) -> Result<signals_store::PullsKept> {
        let doing = "reading the kept count of open pull requests";
        let row: Option<(Option<i64>, Option<String>)> = self
            .conn
            .query_row(
                "SELECT open_pulls, open_pulls_differed FROM repositories WHERE key = ?1",
                [repo.raw()],
                |r| Ok((r.get(0)?, r.get(1)?)),
            )
            .optional()
            .doing(&self.path, doing)?;
        let Some((count, differed)) = row else {
            return Err(signals_store::StoreError::UnknownRepository {
                path: self.path.clone(),
                key: repo,
            });
        };
        Ok(signals_store::PullsKept {
            count: count
                .map(|n| uint(&self.path, "repositories.open_pulls", n))
                .transpose()?,
            differed,
        })
    }

    fn discussions_off(&self) -> Result<Vec<(RepoKey, DiscussionsOff)>> {
        let doing = "reading why discussions were not read";
        let mut stmt = self
            .conn
            .prepare_cached(
                "SELECT r.repo, json_extract(r.news, '$.discussions_off') FROM runs r
                 JOIN (SELECT repo, max(id) AS id FROM runs GROUP BY repo) l ON l.id = r.id
                 WHERE json_extract(r.news, '$.discussions_off') IS NOT NULL
                 ORDER BY r.repo",
            )
            .doing(&self.path, doing)?;
        let rows = stmt
            .query_map([], |r| Ok((r.get::<_, i64>(0)?, r.get::<_, String>(1)?)))
            .doing(&self.path, doing)?
            .collect::<rusqlite::Result<Vec<_>>>()
            .doing(&self.path, doing)?;
        rows.into_iter()
            .map(|(key, off)| {
                Ok((
                    RepoKey::from_raw(key),
                    discussions_off_from(&self.path, &off)?,
                ))
            })
            .collect()
    }

    fn open_item_ids(&self, repo: RepoKey) -> Result<Vec<String>> {
        let doing = "listing the open items";
        let mut stmt = self
            .conn
            .prepare_cached(
                "SELECT i.item_id FROM items i JOIN snapshots s ON s.id = i.latest
                 WHERE i.repo = ?1 AND i.kind NOT IN ('release', 'advisory') AND s.state = 0
                 ORDER BY i.item_id",
            )
            .doing(&self.path, doing)?;
        let ids = stmt
            .query_map([repo.raw()], |r| r.get(0))
            .doing(&self.path, doing)?
            .collect::<rusqlite::Result<Vec<String>>>()
            .doing(&self.path, doing)?;
        Ok(ids)
    }

    fn advisories(&self, repo: RepoKey) -> Result<Vec<ItemSnapshot>> {
        let doing = "reading the advisories";
        let mut stmt = self
            .conn
            .prepare_cached(&format!(
                "SELECT i.item_key, {SNAPSHOT_COLUMNS}
                 FROM items i JOIN snapshots s ON s.id = i.latest {SNAPSHOT_JOINS}
                 WHERE i.repo = ?1 AND i.kind = 'advisory' ORDER BY i.item_id"
            ))
            .doing(&self.path, doing)?;
        let rows = stmt
            .query_map([repo.raw()], |r| {
                Ok((r.get::<_, String>(0)?, raw_parts(r, 1)?))
            })
            .doing(&self.path, doing)?;
        let mut out = Vec::new();
        for row in rows {
            let (key, raw) = row.doing(&self.path, doing)?;
            out.push(Parts::join(&self.path, &key, raw)?);
        }
        Ok(out)
    }

    /// One indexed lookup per id.
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
        let doing = "reading an item's history";
        let mut stmt = self
            .conn
            .prepare_cached(&format!(
                "SELECT r.collected_at, i.item_key, {SNAPSHOT_COLUMNS}
                 FROM items i JOIN snapshots s ON s.item = i.id {SNAPSHOT_JOINS}
                      JOIN runs r ON r.id = s.run
                 WHERE i.repo = ?1 AND i.item_id = ?2 ORDER BY s.id"
            ))
            .doing(&self.path, doing)?;
        let rows = stmt
            .query_map(params![repo.raw(), item_id], |r| {
                Ok((
                    r.get::<_, String>(0)?,
                    r.get::<_, String>(1)?,
                    raw_parts(r, 2)?,
                ))
            })
            .doing(&self.path, doing)?;
        let mut out = Vec::new();
        for row in rows {
            let (at, key, raw) = row.doing(&self.path, doing)?;
            out.push((
                ts_parse(&self.path, "runs.collected_at", &at)?,
                Parts::join(&self.path, &key, raw)?,
            ));
        }
        Ok(out)
    }

    fn repository(&self, group: &str, repo: &str) -> Result<Option<RepoSummary>> {
        let doing = "reading a repository";
        let row = self
            .conn
            .prepare_cached(&format!(
                "{SUMMARY_SQL} WHERE r.group_id = ?1 AND r.repo_id = ?2"
            ))
            .doing(&self.path, doing)?
            .query_row([group, repo], summary_row)
            .optional()
            .doing(&self.path, doing)?;
        row.map(|row| summary_from(&self.path, row)).transpose()
    }

    fn repositories(&self) -> Result<Vec<RepoSummary>> {
        let doing = "listing the repositories";
        let mut stmt = self
            .conn
            .prepare_cached(&format!("{SUMMARY_SQL} ORDER BY r.group_id, r.repo_id"))
            .doing(&self.path, doing)?;
        let rows = stmt.query_map([], summary_row).doing(&self.path, doing)?;
        let mut out = Vec::new();
        for row in rows {
            out.push(summary_from(&self.path, row.doing(&self.path, doing)?)?);
        }
        Ok(out)
    }

    /// One statement for every repository: per repository a
    /// statement prepared each time was most of the cost at 2,000.
    fn status(&self) -> Result<Status> {
        let path = &self.path;
        let doing = "reading the status of the repositories";
        let mut stmt = self
            .conn
            .prepare_cached(&format!("{STATUS_SQL} ORDER BY r.group_id, r.repo_id"))
            .doing(path, doing)?;
        let rows = stmt
            .query_map([], |r| {
                let mut totals = [0i64; 8];
                for (i, v) in totals.iter_mut().enumerate() {
                    *v = r.get(24 + i)?;
                }
                Ok((
                    summary_row(r)?,
                    r.get::<_, Option<String>>(13)?,
                    (
                        r.get::<_, Option<String>>(14)?,
                        r.get::<_, Option<i64>>(15)?,
                        r.get::<_, Option<i64>>(16)?,
                    ),
                    [
                        r.get::<_, Option<i64>>(17)?,
                        r.get(18)?,
                        r.get(19)?,
                        r.get(20)?,
                    ],
                    (r.get::<_, Option<String>>(21)?, r.get(22)?, r.get(23)?),
                    totals,
                    r.get::<_, Option<String>>(32)?,
                ))
            })
            .doing(path, doing)?;
        let mut repositories = Vec::new();
        for row in rows {
            let (summary, last_at, run, stats, failure, totals, reconciled) =
                row.doing(path, doing)?;
            let last_run = match last_at {
                None => None,
                Some(at) => {
                    let [requests, not_modified, bytes, retries] =
                        stats.map(Option::unwrap_or_default);
                    Some(RunStatus {
                        // A run's columns are never NULL: only absent.
                        record: run_record_from(
                            path,
                            (
                                at,
                                run.0.unwrap_or_default(),
                                run.1.unwrap_or_default(),
                                run.2.unwrap_or_default(),
                            ),
                        )?,
                        stats: RequestStats {
                            requests: uint(path, "runs.requests", requests)?,
                            not_modified: uint(path, "runs.not_modified", not_modified)?,
                            bytes_received: uint(path, "runs.bytes_received", bytes)?,
                            retries: uint(path, "runs.retries", retries)?,
                        },
                    })
                }
            };
            let last_failure = match failure {
                (Some(at), Some(kind), Some(message)) => Some(Failure {
                    at: ts_parse(path, "failures.at", &at)?,
                    kind,
                    message,
                }),
                _ => None,
            };
            repositories.push(RepoStatus {
                summary: summary_from(path, summary)?,
                last_run,
                last_failure,
                totals: totals_from(path, totals)?,
                last_reconcile: reconciled
                    .map(|t| ts_parse(path, "runs.collected_at", &t))
                    .transpose()?,
            });
        }
        Ok(Status {
            repositories,
            rate_limits: self.all_rate_limits()?,
        })
    }
}

/// [`SUMMARY_SQL`]'s 13 columns, then the last run (13-20), the last
/// failure (21-23), the totals (24-31) and the last reconcile (32), as on
/// PostgreSQL. The last run and failure are found by the `(repo, id)`
/// indexes; the counts and sums are the repository's kept row of
/// `repo_totals` (`totals.rs`), not a pass over its history.
const STATUS_SQL: &str = "
    SELECT r.key, r.group_id, g.name, r.repo_id, r.source, r.full_name, r.display_name,
           r.keywords, r.host_name, r.missing, r.last_error,
           coalesce(t.runs, 0),
           lr.collected_at,
           lr.collected_at, lr.since, lr.observed_count, lr.changed_count,
           lr.requests, lr.not_modified, lr.bytes_received, lr.retries,
           lf.at, lf.kind, lf.message,
           coalesce(t.items, 0),
           coalesce(t.changed, 0), coalesce(t.requests, 0), coalesce(t.not_modified, 0),
           coalesce(t.bytes, 0), coalesce(t.retries, 0),
           coalesce(t.failures, 0), coalesce(t.failures_since, 0),
           (SELECT collected_at FROM runs WHERE repo = r.key AND reconciled = 1
            ORDER BY id DESC LIMIT 1)
    FROM repositories r JOIN groups g ON g.id = r.group_id
    LEFT JOIN runs lr
        ON lr.id = (SELECT id FROM runs WHERE repo = r.key ORDER BY id DESC LIMIT 1)
    LEFT JOIN failures lf
        ON lf.id = (SELECT id FROM failures WHERE repo = r.key ORDER BY id DESC LIMIT 1)
    LEFT JOIN repo_totals t ON t.repo = r.key";

impl Store {
    /// The observation trail of a repository: by run, then item id (the
    /// migration tests compare it before and after).
    #[cfg(test)]
    pub(crate) fn trail(&self, repo: RepoKey) -> Result<Vec<signals_core::TrailEvent>> {
        let path = &self.path;
        let doing = "reading the observation trail";
        let mut stmt = self
            .conn
            .prepare_cached(
                "SELECT r.collected_at, i.item_id, h.text, e.kind, e.fields, e.detail
                 FROM runs r
                 JOIN events e ON e.run = r.id
                 JOIN items i ON i.id = e.item
                 JOIN snapshots s ON s.id = e.snapshot
                 JOIN texts h ON h.id = s.head
                 WHERE r.repo = ?1
                 ORDER BY r.id, e.pos",
            )
            .doing(path, doing)?;
        let rows = stmt.query_map([repo.raw()], trail_row).doing(path, doing)?;
        let mut out = Vec::new();
        for row in rows {
            out.push(signals_store::trail_event_from(
                path,
                row.doing(path, doing)?,
            )?);
        }
        Ok(out)
    }

    /// The latest snapshot of each of `ids`, read with `columns` and
    /// their joins, in one statement: the ids go in as one JSON array,
    /// which `json_each` walks, each looked up by the items' index (a
    /// statement per id cost `serve` about a millisecond a page).
    fn latest_of(
        &self,
        repo: RepoKey,
        ids: &[String],
        columns: &str,
        joins: &str,
    ) -> Result<HashMap<String, ItemSnapshot>> {
        let doing = "reading the latest snapshots of observed items";
        let mut out = HashMap::with_capacity(ids.len());
        if ids.is_empty() {
            return Ok(out);
        }
        let asked = ids_json(&self.path, ids)?;
        let mut stmt = self
            .conn
            .prepare_cached(&format!(
                "SELECT i.item_id, i.item_key, {columns}
                 FROM json_each(?2) w CROSS JOIN items i ON i.repo = ?1 AND i.item_id = w.value
                 JOIN snapshots s ON s.id = i.latest {joins}"
            ))
            .doing(&self.path, doing)?;
        let rows = stmt
            .query_map(params![repo.raw(), asked], |r| {
                Ok((
                    r.get::<_, String>(0)?,
                    r.get::<_, String>(1)?,
                    raw_parts(r, 2)?,
                ))
            })
            .doing(&self.path, doing)?;
        for row in rows {
            let (id, key, raw) = row.doing(&self.path, doing)?;
            out.insert(id, Parts::join(&self.path, &key, raw)?);
        }
        Ok(out)
    }

    pub(crate) fn summary_of(&self, repo: RepoKey) -> Result<RepoSummary> {
        let row = self
            .conn
            .query_row(
                &format!("{SUMMARY_SQL} WHERE r.key = ?1"),
                [repo.raw()],
                summary_row,
            )
            .optional()
            .doing(&self.path, "reading a repository")?;
        match row {
            Some(row) => summary_from(&self.path, row),
            None => Err(StoreError::UnknownRepository {
                path: self.path.clone(),
                key: repo,
            }),
        }
    }
}

/// `ids` as one JSON array, for a statement that walks them with
/// `json_each` (one statement for a page of items, not one an item).
pub(crate) fn ids_json(path: &std::path::Path, ids: &[String]) -> Result<String> {
    serde_json::to_string(ids).map_err(|e| StoreError::Corrupt {
        path: path.to_path_buf(),
        what: format!("item ids that cannot be written as JSON: {e}"),
    })
}

/// Reads a [`TrailRow`].
pub(crate) fn trail_row(r: &rusqlite::Row<'_>) -> rusqlite::Result<TrailRow> {
    trail_row_at(r, 0)
}

/// Reads a [`TrailRow`] starting at column `at`.
pub(crate) fn trail_row_at(r: &rusqlite::Row<'_>, at: usize) -> rusqlite::Result<TrailRow> {
    Ok((
        r.get(at)?,
        r.get(at + 1)?,
        r.get(at + 2)?,
        r.get(at + 3)?,
        r.get(at + 4)?,
        r.get(at + 5)?,
    ))
}

#[cfg(test)]
mod tests {
    use super::*;
    use signals_core::TrackedRepo;
    use signals_core::{Group, RepoName};
    use signals_store::RunWrites;
    use signals_store::suite::WholeReads;

    fn store_with_repo() -> (Store, RepoKey) {
        let mut store = Store::open_in_memory().unwrap();
        let key = store
            .ensure_repository(
                &Group {
                    id: "g".into(),
                    name: "G".into(),
                },
                &TrackedRepo {
                    id: "n".into(),
                    source: signals_core::Source::Github.into(),
                    repo: RepoName::parse("o/n").unwrap(),
                    name: "N".into(),
                    keywords: vec![],
                },
            )
            .unwrap();
        (store, key)
    }

    /// `latest_snapshots_for` runs once per observed item on every run; it
    /// must be index seeks, not a scan of the repository's history.
    #[test]
    fn latest_snapshot_lookup_uses_indexes() {
        let (store, _) = store_with_repo();
        let mut stmt = store
            .conn
            .prepare(&format!(
                "EXPLAIN QUERY PLAN SELECT i.item_key, {SNAPSHOT_COLUMNS}
                 FROM items i JOIN snapshots s ON s.id = i.latest {SNAPSHOT_JOINS}
                 WHERE i.repo = ?1 AND i.item_id = ?2"
            ))
            .unwrap();
        let plan: Vec<String> = stmt
            .query_map(params![1, "x"], |r| r.get(3))
            .unwrap()
            .collect::<rusqlite::Result<_>>()
            .unwrap();
        let plan = plan.join("\n");
        assert!(plan.contains("SEARCH i USING INDEX"), "{plan}");
        assert!(!plan.contains("SCAN"), "{plan}");
    }

    #[test]
    fn damaged_rows_are_errors_not_panics() {
        let (store, key) = store_with_repo();
        store
            .conn
            .execute_batch(
                "INSERT INTO runs (repo, collected_at, since, observed_count, changed_count,
                                   requests, not_modified, bytes_received, retries, context, news)
                 VALUES (1, '2026-11-21T10:00:00Z', 'not a time', 0, 0, 0, 0, 0, 0, '{}', '{}');
                 INSERT INTO texts (id, hash, text) VALUES (1, zeroblob(32), '{\"broken\":');
                 INSERT INTO items (id, repo, item_id, kind, item_key, latest)
                 VALUES (1, 1, 'github:o/n:issue:1', 'issue', '1', 1);
                 INSERT INTO snapshots (id, item, run, head, body, labels, assignees, detail,
                                        updated_s, updated_ns, state, reactions, comments)
                 VALUES (1, 1, 1, 1, 1, 1, 1, 1, 0, 0, 0, 0, 0);",
            )
            .unwrap();
        let err = store.last_successful_run(key).unwrap_err();
        assert!(matches!(err, StoreError::Corrupt { .. }), "{err:?}");
        assert!(err.to_string().contains("runs.since"), "{err}");
        let err = store.latest_snapshots(key).unwrap_err();
        assert!(matches!(err, StoreError::Corrupt { .. }), "{err:?}");
        let err = store.repository_view(key).unwrap_err();
        assert!(matches!(err, StoreError::Corrupt { .. }), "{err:?}");
        store
            .conn
            .execute("UPDATE repositories SET full_name = 'no-slash'", [])
            .unwrap();
        let err = store.repositories().unwrap_err();
        assert!(err.to_string().contains("repositories.full_name"), "{err}");
    }
}
