//! The read side: what a run needs from the store (the last run, the latest
//! snapshots), and the views the export, the page and `signals status` are
//! built from.
//!
//! Nothing here writes. Views are plain values of signals-core types, in the
//! orders the dataset needs (runs in collection order, items by id, the
//! trail by run then item id), so callers do not sort again.

use std::collections::{BTreeMap, HashMap, HashSet};
use std::path::Path;

use jiff::Timestamp;
use rusqlite::{OptionalExtension, Row, params};
use signals_core::{
    Group, ItemSnapshot, News, RepoContext, RepoName, RunRecord, SourceId, TrackedRepo, TrailEvent,
};

use crate::codec::{from_json, ts_parse, ts_text, uint};
use crate::error::{DbContext, Result, StoreError};
use crate::http::RateLimit;
use crate::snapshots::{Parts, SNAPSHOT_COLUMNS, SNAPSHOT_JOINS, raw_parts};
use crate::write::RequestStats;
use crate::{RepoKey, Store};

/// The fields of an item head the trail shows.
#[derive(serde::Deserialize)]
struct TrailHead {
    title: String,
    url: String,
}

/// A repository as the store knows it, for listings.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct RepoSummary {
    /// Its key in this store.
    pub key: RepoKey,
    /// Its group.
    pub group: Group,
    /// The repository as last configured.
    pub repo: TrackedRepo,
    /// Its `owner/name` on the host, when the host reported a rename.
    pub host_name: Option<RepoName>,
    /// The host said it was not found at the last attempt.
    pub missing: bool,
    /// The message of the last attempt, when it failed.
    pub last_error: Option<String>,
    /// Successful runs stored.
    pub run_count: u64,
    /// The instant of the latest successful run.
    pub last_collected_at: Option<Timestamp>,
}

/// Everything the dataset document and the page of one repository are
/// built from.
#[derive(Debug, Clone, PartialEq)]
pub struct RepoView {
    /// The repository, its group and its state.
    pub summary: RepoSummary,
    /// All successful runs, in collection order (never empty).
    pub runs: Vec<RunRecord>,
    /// The context seen by the latest run.
    pub context: RepoContext,
    /// The news computed by the latest run.
    pub news: News,
    /// The latest snapshot of every item, by signal id (byte order, the
    /// order of the dataset's `signals`).
    pub items: BTreeMap<String, ItemSnapshot>,
    /// Ids of the items that had a `changed` event in the latest run.
    pub changed_in_latest: HashSet<String>,
    /// Every observation event, by run (chronological), then by item id;
    /// title and URL come from the snapshot stored with the event.
    pub trail: Vec<TrailEvent>,
    /// The number of observation events (the page's `M`).
    pub event_count: u64,
    /// SPDX identifier of the license, as the latest run saw it.
    pub license: Option<String>,
}

/// The latest run of a repository, with what it cost.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct RunStatus {
    /// The run.
    pub record: RunRecord,
    /// Its requests.
    pub stats: RequestStats,
}

/// A failed collection attempt.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Failure {
    /// When it failed.
    pub at: Timestamp,
    /// The caller's classification: `not_found`, `rate_limited`, `http`,
    /// `decode`, ...
    pub kind: String,
    /// The error message.
    pub message: String,
}

/// What a repository's runs and failures add up to, for health and
/// metrics (issue 20): each an aggregate over indexed rows of that
/// repository, never a read of its snapshots.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq)]
pub struct RepoTotals {
    /// Items ever seen.
    pub items: u64,
    /// Events recorded (the sum of the runs' `changedCount`).
    pub events: u64,
    /// Failed attempts, all told.
    pub failures: u64,
    /// Failed attempts after the latest successful run (all of them when
    /// there is none): the failures in a row.
    pub failures_since_success: u64,
    /// The requests of every run, added up.
    pub requests: RequestStats,
}

/// One repository in `signals status`.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct RepoStatus {
    /// The repository.
    pub summary: RepoSummary,
    /// Its latest successful run.
    pub last_run: Option<RunStatus>,
    /// Its latest failed attempt (which may be older than the last run).
    pub last_failure: Option<Failure>,
    /// Its counts.
    pub totals: RepoTotals,
    /// Its latest reconcile run (one that listed every item).
    pub last_reconcile: Option<Timestamp>,
}

/// The aggregates behind [`RepoTotals`] as stored: items; runs' changed
/// counts, requests, 304s, bytes, retries; failures; failures after the
/// latest run. Public so both backends decode them alike.
pub type TotalsRow = [i64; 8];

/// Decodes a [`TotalsRow`].
pub fn totals_from(path: &Path, row: TotalsRow) -> Result<RepoTotals> {
    let [
        items,
        events,
        requests,
        not_modified,
        bytes,
        retries,
        failures,
        since,
    ] = row;
    Ok(RepoTotals {
        items: uint(path, "items", items)?,
        events: uint(path, "runs.changed_count", events)?,
        failures: uint(path, "failures", failures)?,
        failures_since_success: uint(path, "failures", since)?,
        requests: RequestStats {
            requests: uint(path, "runs.requests", requests)?,
            not_modified: uint(path, "runs.not_modified", not_modified)?,
            bytes_received: uint(path, "runs.bytes_received", bytes)?,
            retries: uint(path, "runs.retries", retries)?,
        },
    })
}

/// What `signals status` shows.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Status {
    /// Every repository, by group id then repository id.
    pub repositories: Vec<RepoStatus>,
    /// The last rate limit seen, per token fingerprint (sorted), and when.
    pub rate_limits: Vec<(String, RateLimit, Timestamp)>,
}

const SUMMARY_SQL: &str = "
    SELECT r.key, r.group_id, g.name, r.repo_id, r.source, r.full_name, r.display_name,
           r.keywords, r.host_name, r.missing, r.last_error,
           (SELECT count(*) FROM runs WHERE repo = r.key),
           (SELECT collected_at FROM runs WHERE repo = r.key ORDER BY id DESC LIMIT 1)
    FROM repositories r JOIN groups g ON g.id = r.group_id";

/// The raw columns of [`SUMMARY_SQL`], decoded outside the row callback so
/// decoding errors are [`StoreError::Corrupt`].
pub type SummaryRow = (
    i64,
    String,
    String,
    String,
    String,
    String,
    String,
    String,
    Option<String>,
    bool,
    Option<String>,
    i64,
    Option<String>,
);

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

/// The raw columns of a run row.
pub type RunRow = (String, String, i64, i64);

pub(crate) const RUN_COLUMNS: &str = "collected_at, since, observed_count, changed_count";

pub(crate) fn run_row(r: &Row<'_>) -> rusqlite::Result<RunRow> {
    Ok((r.get(0)?, r.get(1)?, r.get(2)?, r.get(3)?))
}

/// What a run plans from and what listings and `signals status` show:
/// the last run, the latest snapshots of given items, an item's history,
/// the repositories and their status.
pub trait Reads {
    /// The latest successful run of a repository.
    fn last_successful_run(&self, repo: RepoKey) -> Result<Option<RunRecord>>;

    /// What plans a repository's next reconcile (issue 20): the instants of
    /// its first run and of its latest reconcile run.
    fn reconcile_marks(&self, repo: RepoKey) -> Result<(Option<Timestamp>, Option<Timestamp>)>;

    /// The signal ids of the items of a repository whose latest snapshot is
    /// open, in id order (a reconcile looks for those the host no longer
    /// lists).
    fn open_item_ids(&self, repo: RepoKey) -> Result<Vec<String>>;

    /// The latest snapshot of each of `ids` that the store has, by signal
    /// id; unknown ids are absent from the map. It reads what a run
    /// observed, not the whole repository.
    fn latest_snapshots_for(
        &self,
        repo: RepoKey,
        ids: &[String],
    ) -> Result<HashMap<String, ItemSnapshot>>;

    /// Every distinct snapshot of one item, oldest first, each with the
    /// instant of the run that saw it.
    ///
    /// Takes the repository as well as the item id: the same host repository
    /// may be tracked in two groups, and then its items' ids are the same in
    /// both.
    fn snapshot_history(
        &self,
        repo: RepoKey,
        item_id: &str,
    ) -> Result<Vec<(Timestamp, ItemSnapshot)>>;

    /// Every repository in the store, by group id then repository id (byte
    /// order).
    fn repositories(&self) -> Result<Vec<RepoSummary>>;

    /// Per repository: the last run and what it cost, the last failure and
    /// the totals; and the rate limits last seen. What `signals status`
    /// shows.
    fn status(&self) -> Result<Status>;
}

impl Reads for Store {
    fn last_successful_run(&self, repo: RepoKey) -> Result<Option<RunRecord>> {
        let row = self
            .conn
            .query_row(
                &format!("SELECT {RUN_COLUMNS} FROM runs WHERE repo = ?1 ORDER BY id DESC LIMIT 1"),
                [repo.0],
                run_row,
            )
            .optional()
            .doing(&self.path, "reading the last run")?;
        row.map(|r| run_record_from(&self.path, r)).transpose()
    }

    fn reconcile_marks(&self, repo: RepoKey) -> Result<(Option<Timestamp>, Option<Timestamp>)> {
        let (first, last): (Option<String>, Option<String>) = self
            .conn
            .query_row(
                "SELECT (SELECT collected_at FROM runs WHERE repo = ?1 ORDER BY id LIMIT 1),
                        (SELECT collected_at FROM runs WHERE repo = ?1 AND reconciled = 1
                         ORDER BY id DESC LIMIT 1)",
                [repo.0],
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
        Ok((parse(first)?, parse(last)?))
    }

    fn open_item_ids(&self, repo: RepoKey) -> Result<Vec<String>> {
        let doing = "listing the open items";
        let mut stmt = self
            .conn
            .prepare_cached(
                "SELECT i.item_id FROM items i JOIN snapshots s ON s.id = i.latest
                 WHERE i.repo = ?1 AND i.kind <> 'release' AND s.state = 0
                 ORDER BY i.item_id",
            )
            .doing(&self.path, doing)?;
        let ids = stmt
            .query_map([repo.0], |r| r.get(0))
            .doing(&self.path, doing)?
            .collect::<rusqlite::Result<Vec<String>>>()
            .doing(&self.path, doing)?;
        Ok(ids)
    }

    /// One indexed lookup per id.
    fn latest_snapshots_for(
        &self,
        repo: RepoKey,
        ids: &[String],
    ) -> Result<HashMap<String, ItemSnapshot>> {
        let doing = "reading the latest snapshots of observed items";
        let mut stmt = self
            .conn
            .prepare_cached(&format!(
                "SELECT i.item_key, {SNAPSHOT_COLUMNS}
                 FROM items i JOIN snapshots s ON s.id = i.latest {SNAPSHOT_JOINS}
                 WHERE i.repo = ?1 AND i.item_id = ?2"
            ))
            .doing(&self.path, doing)?;
        let mut out = HashMap::with_capacity(ids.len());
        for id in ids {
            let row = stmt
                .query_row(params![repo.0, id], |r| {
                    Ok((r.get::<_, String>(0)?, raw_parts(r, 1)?))
                })
                .optional()
                .doing(&self.path, doing)?;
            if let Some((key, raw)) = row {
                out.insert(id.clone(), Parts::join(&self.path, &key, raw)?);
            }
        }
        Ok(out)
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
            .query_map(params![repo.0, item_id], |r| {
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

    fn status(&self) -> Result<Status> {
        let path = &self.path;
        let mut repositories = Vec::new();
        for summary in self.repositories()? {
            let key = summary.key.0;
            let last_run = self
                .conn
                .query_row(
                    &format!(
                        "SELECT {RUN_COLUMNS}, requests, not_modified, bytes_received, retries
                         FROM runs WHERE repo = ?1 ORDER BY id DESC LIMIT 1"
                    ),
                    [key],
                    |r| {
                        Ok((
                            run_row(r)?,
                            [r.get::<_, i64>(4)?, r.get(5)?, r.get(6)?, r.get(7)?],
                        ))
                    },
                )
                .optional()
                .doing(path, "reading the last run")?;
            let last_run = match last_run {
                None => None,
                Some((row, [requests, not_modified, bytes, retries])) => Some(RunStatus {
                    record: run_record_from(&self.path, row)?,
                    stats: RequestStats {
                        requests: uint(path, "runs.requests", requests)?,
                        not_modified: uint(path, "runs.not_modified", not_modified)?,
                        bytes_received: uint(path, "runs.bytes_received", bytes)?,
                        retries: uint(path, "runs.retries", retries)?,
                    },
                }),
            };
            let last_failure: Option<(String, String, String)> = self
                .conn
                .query_row(
                    "SELECT at, kind, message FROM failures WHERE repo = ?1
                     ORDER BY id DESC LIMIT 1",
                    [key],
                    |r| Ok((r.get(0)?, r.get(1)?, r.get(2)?)),
                )
                .optional()
                .doing(path, "reading the last failure")?;
            let last_failure = match last_failure {
                None => None,
                Some((at, kind, message)) => Some(Failure {
                    at: ts_parse(path, "failures.at", &at)?,
                    kind,
                    message,
                }),
            };
            let since = last_run.as_ref().map(|l| ts_text(l.record.collected_at));
            let summary_key = summary.key;
            let totals = self
                .conn
                .query_row(
                    "SELECT (SELECT count(*) FROM items WHERE repo = ?1),
                            coalesce(sum(changed_count), 0), coalesce(sum(requests), 0),
                            coalesce(sum(not_modified), 0), coalesce(sum(bytes_received), 0),
                            coalesce(sum(retries), 0),
                            (SELECT count(*) FROM failures WHERE repo = ?1),
                            (SELECT count(*) FROM failures WHERE repo = ?1 AND (?2 IS NULL
                                OR unixepoch(at, 'subsec') > unixepoch(?2, 'subsec')))
                     FROM runs WHERE repo = ?1",
                    params![key, since],
                    |r| {
                        let mut row = [0i64; 8];
                        for (i, v) in row.iter_mut().enumerate() {
                            *v = r.get(i)?;
                        }
                        Ok(row)
                    },
                )
                .doing(path, "adding up the runs and failures")?;
            repositories.push(RepoStatus {
                summary,
                last_run,
                last_failure,
                totals: totals_from(path, totals)?,
                last_reconcile: self.reconcile_marks(summary_key)?.1,
            });
        }
        Ok(Status {
            repositories,
            rate_limits: self.all_rate_limits()?,
        })
    }
}

impl Store {
    /// The observation trail of a repository: by run, then item id (the
    /// migration tests compare it before and after).
    #[cfg(test)]
    pub(crate) fn trail(&self, repo: RepoKey) -> Result<Vec<TrailEvent>> {
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
        let rows = stmt.query_map([repo.0], trail_row).doing(path, doing)?;
        let mut out = Vec::new();
        for row in rows {
            out.push(trail_event_from(path, row.doing(path, doing)?)?);
        }
        Ok(out)
    }

    pub(crate) fn summary_of(&self, repo: RepoKey) -> Result<RepoSummary> {
        let row = self
            .conn
            .query_row(
                &format!("{SUMMARY_SQL} WHERE r.key = ?1"),
                [repo.0],
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

/// A [`RepoSummary`] from its columns (for backends: both read the same
/// columns), checking each.
pub fn summary_from(path: &Path, row: SummaryRow) -> Result<RepoSummary> {
    let (
        key,
        group_id,
        group_name,
        repo_id,
        source,
        full_name,
        display_name,
        keywords,
        host_name,
        missing,
        last_error,
        run_count,
        last,
    ) = row;
    let corrupt = |what: String| StoreError::Corrupt {
        path: path.to_path_buf(),
        what,
    };
    let source = SourceId::parse(&source).map_err(|_| {
        corrupt(format!(
            "repositories.source {source:?} is not a known host"
        ))
    })?;
    let name = |column: &str, text: &str| {
        RepoName::parse(text).map_err(|e| corrupt(format!("repositories.{column}: {e}")))
    };
    Ok(RepoSummary {
        key: RepoKey(key),
        group: Group {
            id: group_id,
            name: group_name,
        },
        repo: TrackedRepo {
            id: repo_id,
            source,
            repo: name("full_name", &full_name)?,
            name: display_name,
            keywords: from_json(path, "repositories.keywords", &keywords)?,
        },
        host_name: host_name.map(|h| name("host_name", &h)).transpose()?,
        missing,
        last_error,
        run_count: uint(path, "run count", run_count)?,
        last_collected_at: last
            .map(|t| ts_parse(path, "runs.collected_at", &t))
            .transpose()?,
    })
}

/// The columns of a trail event, in the order the trail queries select
/// them: the run's instant, the item id, the head text of the snapshot
/// stored with the event, the event's kind, fields and kept detail.
pub type TrailRow = (String, String, String, i64, i64, Option<String>);

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

/// A trail event from its columns (both backends).
pub fn trail_event_from(
    path: &Path,
    (at, item_id, head, kind, fields, detail): TrailRow,
) -> Result<TrailEvent> {
    let TrailHead { title, url } = from_json(path, "texts.text (item head)", &head)?;
    let detail = crate::events::detail_of(path, kind, fields, detail)?;
    Ok(TrailEvent {
        at: ts_parse(path, "runs.collected_at", &at)?,
        item_id,
        title,
        url,
        kind: crate::events::kind_of(path, kind)?,
        detail,
    })
}

/// A [`RunRecord`] from its columns, checking each.
pub fn run_record_from(path: &Path, (at, since, observed, changed): RunRow) -> Result<RunRecord> {
    Ok(RunRecord {
        collected_at: ts_parse(path, "runs.collected_at", &at)?,
        since: ts_parse(path, "runs.since", &since)?,
        observed_count: uint(path, "runs.observed_count", observed)?,
        changed_count: uint(path, "runs.changed_count", changed)?,
    })
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::RunWrites;
    use crate::suite::WholeReads;
    use signals_core::TrackedRepo;

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
