//! What the read side returns: repositories, their status and totals, a
//! repository read whole ([`RepoView`], for tests), and the role that
//! reads them ([`Reads`]), with the row decoding both backends share.
//!
//! Views are plain values of signals-core types, in the orders the dataset
//! needs (runs in collection order, items by id, the trail by run then
//! item id), so callers do not sort again.

use std::collections::{BTreeMap, HashMap, HashSet};
use std::path::Path;

use jiff::Timestamp;
use signals_core::{
    DiscussionsOff, Group, ItemSnapshot, News, RepoContext, RepoName, RunRecord, SourceId,
    TrackedRepo, TrailEvent,
};

use crate::codec::{from_json, ts_parse, uint};
use crate::http::RateLimit;
use crate::write::RequestStats;
use crate::{RepoKey, Result, StoreError};

/// What plans a repository's next reconcile ([`Reads::reconcile_marks`]).
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq)]
pub struct ReconcileMarks {
    /// When its first run collected (`None` before any).
    pub first_run: Option<Timestamp>,
    /// When its latest reconcile run collected (`None` before any).
    pub last_reconcile: Option<Timestamp>,
}

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

/// A repository read whole: everything its dataset document and page
/// are built from. The export streams instead, so only tests
/// read one, through `suite::WholeReads`.
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
/// metrics: each an aggregate over indexed rows of that
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

/// The raw columns of a repository summary (each backend's `SUMMARY_SQL`),
/// decoded outside the row callback so decoding errors are
/// [`StoreError::Corrupt`].
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

/// The raw columns of a run row.
pub type RunRow = (String, String, i64, i64);

/// What a run plans from and what listings and `signals status` show:
/// the last run, the latest snapshots of given items, an item's history,
/// the repositories and their status.
pub trait Reads {
    /// The latest successful run of a repository.
    fn last_successful_run(&self, repo: RepoKey) -> Result<Option<RunRecord>>;

    /// What plans a repository's next reconcile: the instants of
    /// its first run and of its latest reconcile run.
    fn reconcile_marks(&self, repo: RepoKey) -> Result<ReconcileMarks>;

    /// The repository's kept count of open pull requests and the last
    /// difference a reconcile found: one row read, whatever
    /// the repository's size.
    fn kept_pulls(&self, repo: RepoKey) -> Result<crate::PullsKept>;

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

    /// The latest snapshot of each of `repo`'s advisories (items of kind
    /// `advisory`), in id order: what its open advisories are counted from
    /// (`signals_core::advisories::open_advisories`). A repository holds a
    /// handful, so this reads no more than they are.
    fn advisories(&self, repo: RepoKey) -> Result<Vec<ItemSnapshot>>;

    /// [`Reads::latest_snapshots_for`] without the bodies (each read as
    /// an empty text): what a list of signals shows, at a fraction of the
    /// bytes (`serve`'s pages of 50).
    fn latest_heads_for(
        &self,
        repo: RepoKey,
        ids: &[String],
    ) -> Result<HashMap<String, ItemSnapshot>> {
        self.latest_snapshots_for(repo, ids)
    }

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

    /// One repository by its group's and its own id, `None` when the store
    /// has no such repository: what a request for one repository reads,
    /// whatever the number of repositories.
    fn repository(&self, group: &str, repo: &str) -> Result<Option<RepoSummary>>;

    /// Per repository: the last run and what it cost, the last failure and
    /// the totals; and the rate limits last seen. What `signals status`
    /// shows.
    fn status(&self) -> Result<Status>;

    /// Per repository whose latest run read no discussions, why: the
    /// latest run's `news.discussions_off`, in key order. What
    /// `signals status` says once.
    fn discussions_off(&self) -> Result<Vec<(RepoKey, DiscussionsOff)>>;
}

/// A run's `discussions_off`, as the JSON text of its news holds it.
pub fn discussions_off_from(path: &Path, text: &str) -> Result<DiscussionsOff> {
    from_json(path, "runs.news (discussions_off)", &format!("\"{text}\""))
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
