//! The store test suite, run against every backend (SQLite here, in
//! `tests/store.rs`; PostgreSQL in `signals-store-pg`), so the two cannot
//! drift. Each check takes a factory of fresh, empty stores.
//!
//! Built with the `suite` feature (and for this crate's own tests); not
//! part of the store's API for the binary.

#![allow(missing_docs)]

use std::collections::{BTreeMap, HashMap, HashSet};

use jiff::{SignedDuration, Timestamp};
use proptest::prelude::*;
use proptest::test_runner::{Config, TestRunner};
use signals_core::run::{ItemEvent, account};
use signals_core::{
    EventKind, Group, ItemDetail, ItemSnapshot, ItemState, Metrics, News, Observation, RepoContext,
    RepoName, RunRecord, Source, TrackedField, TrackedRepo, TrailEvent,
};

use crate::{
    Backend, CachedResponse, LatestItem, RateLimit, RepoKey, RepoView, RequestStats, Result,
    RunCommit, StoreError, TrailKey,
};

/// Makes a fresh, empty store.
pub type Factory<'a> = &'a mut dyn FnMut() -> Box<dyn Backend>;

/// A check of the suite.
pub type Check = fn(Factory<'_>);

/// Every check, by name.
pub const CHECKS: &[(&str, Check)] = &[
    ("commit_run_round_trips", commit_run_round_trips),
    (
        "history_keeps_every_distinct_snapshot",
        history_keeps_every_distinct_snapshot,
    ),
    (
        "a_refused_commit_leaves_the_store_as_before",
        a_refused_commit_leaves_the_store_as_before,
    ),
    (
        "failures_are_recorded_alone_and_status_shows_them",
        failures_are_recorded_alone_and_status_shows_them,
    ),
    (
        "ensure_repository_keeps_its_key_and_updates_display_fields",
        ensure_repository_keeps_its_key_and_updates_display_fields,
    ),
    (
        "the_http_cache_and_rate_limits_round_trip",
        the_http_cache_and_rate_limits_round_trip,
    ),
    (
        "purge_deletes_one_repository_and_its_texts",
        purge_deletes_one_repository_and_its_texts,
    ),
    (
        "dump_and_load_copy_everything",
        dump_and_load_copy_everything,
    ),
    (
        "changed_counts_add_up_to_the_events",
        changed_counts_add_up_to_the_events,
    ),
    (
        "exported_documents_equal_the_reference_rebuilt_from_full_snapshots",
        exported_documents_equal_the_reference_rebuilt_from_full_snapshots,
    ),
    ("close_times_round_trip", close_times_round_trip),
    (
        "trend_reads_return_the_runs_and_growth_since_a_time",
        trend_reads_return_the_runs_and_growth_since_a_time,
    ),
    (
        "alerts_commit_with_their_run_and_are_claimed_once",
        alerts_commit_with_their_run_and_are_claimed_once,
    ),
    (
        "digests_fold_held_alerts_once_and_purge_takes_them",
        digests_fold_held_alerts_once_and_purge_takes_them,
    ),
    (
        "the_outbox_holds_exactly_the_messages_of_committed_runs",
        the_outbox_holds_exactly_the_messages_of_committed_runs,
    ),
    (
        "status_totals_count_items_events_requests_and_failures_in_a_row",
        status_totals_count_items_events_requests_and_failures_in_a_row,
    ),
    (
        "paged_reads_equal_the_whole_view",
        paged_reads_equal_the_whole_view,
    ),
    (
        "batched_reads_equal_the_whole_view",
        batched_reads_equal_the_whole_view,
    ),
    (
        "text_search_candidates_hold_every_match",
        text_search_candidates_hold_every_match,
    ),
    (
        "reconcile_marks_and_open_items_plan_a_reconcile",
        reconcile_marks_and_open_items_plan_a_reconcile,
    ),
    (
        "owners_keep_their_repositories_and_are_claimed_once_per_interval",
        owners_keep_their_repositories_and_are_claimed_once_per_interval,
    ),
    (
        "compact_rows_keep_every_value_and_the_trail_order",
        compact_rows_keep_every_value_and_the_trail_order,
    ),
];

/// Reads only tests use, made of the roles' own reads (so no backend
/// keeps SQL for them): a repository read whole, every latest snapshot,
/// every rate limit. For any store: `Box<dyn Backend>`, `Store`, `PgStore`.
pub trait WholeReads {
    /// Everything the dataset and the page of one repository are built
    /// from; `None` before its first successful run,
    /// [`StoreError::UnknownRepository`] for a key the store does not have.
    fn repository_view(&self, repo: RepoKey) -> Result<Option<RepoView>>;

    /// The latest snapshot of every item of a repository, by signal id.
    fn latest_snapshots(&self, repo: RepoKey) -> Result<BTreeMap<String, ItemSnapshot>>;

    /// Every rate limit last seen, by key, with when it was seen.
    fn rate_limits(&self) -> Result<Vec<(String, RateLimit, Timestamp)>>;
}

/// How many rows each batch of [`WholeReads`] reads.
const WHOLE_BATCH: usize = 500;

impl<B: Backend + ?Sized> WholeReads for B {
    fn repository_view(&self, repo: RepoKey) -> Result<Option<RepoView>> {
        let Some(outline) = self.repository_outline(repo)? else {
            return Ok(None);
        };
        let latest = latest_items(self, repo)?;
        let changed_in_latest = latest
            .iter()
            .filter(|i| i.latest_event == Some(EventKind::Changed))
            .map(|i| i.id.clone())
            .collect();
        let trail = whole_trail(self, repo)?;
        Ok(Some(RepoView {
            summary: outline.summary,
            runs: outline.runs,
            context: outline.context,
            news: outline.news,
            items: latest.into_iter().map(|i| (i.id, i.item)).collect(),
            changed_in_latest,
            event_count: trail.len() as u64,
            trail,
            license: outline.license,
        }))
    }

    fn latest_snapshots(&self, repo: RepoKey) -> Result<BTreeMap<String, ItemSnapshot>> {
        Ok(latest_items(self, repo)?
            .into_iter()
            .map(|i| (i.id, i.item))
            .collect())
    }

    fn rate_limits(&self) -> Result<Vec<(String, RateLimit, Timestamp)>> {
        Ok(self.status()?.rate_limits)
    }
}

/// Every latest snapshot of `repo`, in id order, a batch at a time.
fn latest_items<B: Backend + ?Sized>(store: &B, repo: RepoKey) -> Result<Vec<LatestItem>> {
    let mut items: Vec<LatestItem> = Vec::new();
    loop {
        let after = items.last().map(|i| i.id.as_str());
        let batch = store.latest_items_after(repo, after, WHOLE_BATCH)?;
        if batch.is_empty() {
            return Ok(items);
        }
        items.extend(batch);
    }
}

/// The whole trail of `repo` in its order (run, then item id), its keys a
/// batch at a time and the events of each batch by their keys.
fn whole_trail<B: Backend + ?Sized>(store: &B, repo: RepoKey) -> Result<Vec<TrailEvent>> {
    let mut trail = Vec::new();
    let mut last: Option<TrailKey> = None;
    loop {
        let after = last.as_ref().map(|(run, id)| (*run, id.as_str()));
        let batch = store.trail_keys_after(repo, after, WHOLE_BATCH)?;
        let Some((run, event)) = batch.last() else {
            return Ok(trail);
        };
        last = Some((*run, event.item_id.clone()));
        let keys: Vec<TrailKey> = batch.into_iter().map(|(r, e)| (r, e.item_id)).collect();
        trail.extend(store.trail_events(repo, &keys)?);
    }
}

/// Runs every check, naming each on stderr first (so a failure names its
/// check).
pub fn run_all(make: Factory<'_>) {
    for (name, check) in CHECKS {
        eprintln!("store suite: {name}");
        check(make);
    }
}

/// Property-test cases: the default, or `SIGNALS_SUITE_CASES` (a backend
/// whose fresh stores are slow may run fewer).
fn cases(default: u32) -> u32 {
    std::env::var("SIGNALS_SUITE_CASES")
        .ok()
        .and_then(|v| v.parse().ok())
        .unwrap_or(default)
}

pub fn ts(s: &str) -> Timestamp {
    s.parse().unwrap()
}

pub fn group() -> Group {
    Group {
        id: "engines".into(),
        name: "Inference engines".into(),
    }
}

pub fn tracked() -> TrackedRepo {
    TrackedRepo {
        id: "n".into(),
        source: Source::Github.into(),
        repo: RepoName::parse("o/n").unwrap(),
        name: "N".into(),
        keywords: vec!["n".into(), "engine".into()],
    }
}

pub fn context(stars: u64) -> RepoContext {
    RepoContext {
        repository: RepoName::parse("o/n").unwrap(),
        url: "https://github.com/o/n".into(),
        description: "an engine".into(),
        homepage: String::new(),
        language: "Rust".into(),
        topics: vec!["llm".into()],
        default_branch: "main".into(),
        stars,
        forks: 2,
        open_issues: 3,
        archived: false,
        license: Some("MIT".into()),
    }
}

pub fn issue(key: &str) -> ItemSnapshot {
    ItemSnapshot {
        repo: RepoName::parse("o/n").unwrap(),
        key: key.to_string(),
        title: format!("issue {key}"),
        text: "body".into(),
        url: format!("https://github.com/o/n/issues/{key}"),
        created_at: ts("2026-11-01T00:00:00Z"),
        updated_at: ts("2026-11-20T00:00:00Z"),
        metrics: Metrics {
            reactions: 1,
            comments: 2,
        },
        labels: vec!["bug".into()],
        author: "alice".into(),
        state: ItemState::Open,
        closed_at: None,
        assignees: vec![],
        detail: ItemDetail::Issue,
    }
}

pub fn id(s: &ItemSnapshot) -> String {
    s.id(Source::Github)
}

/// Builds the commit of a run the way the collector does: account the
/// observed items against the store's latest snapshots.
pub fn run_of(
    store: &dyn Backend,
    key: RepoKey,
    at: Timestamp,
    observed: Vec<ItemSnapshot>,
    stars: u64,
) -> RunCommit {
    let ids: Vec<String> = observed.iter().map(id).collect();
    let previous = store.latest_snapshots_for(key, &ids).unwrap();
    let delta = account(Source::Github, observed, &previous);
    RunCommit {
        record: RunRecord {
            collected_at: at,
            since: at - SignedDuration::from_hours(24),
            observed_count: delta.observed_count,
            changed_count: delta.changed_count(),
        },
        context: context(stars),
        news: News::default(),
        snapshots: delta.snapshots,
        events: delta.events,
        stats: RequestStats {
            requests: 4,
            not_modified: 1,
            bytes_received: 12_345,
            retries: 0,
        },
        renamed_to: None,
        messages: vec![],
        reconciled: false,
    }
}

/// A run committed and read back: runs, context, items, the trail.
pub fn commit_run_round_trips(make: Factory<'_>) {
    let mut store = make();
    let key = store.ensure_repository(&group(), &tracked()).unwrap();
    assert_eq!(store.last_successful_run(key).unwrap(), None);
    assert_eq!(store.repository_view(key).unwrap(), None);

    // Run 1 discovers three items; "10" sorts before "9" by byte.
    let t1 = ts("2026-11-20T10:00:00.123Z");
    let r1 = run_of(
        &*store,
        key,
        t1,
        vec![issue("9"), issue("10"), issue("2")],
        1,
    );
    assert_eq!(r1.events.len(), 3);
    store.commit_run(key, &r1).unwrap();

    // Run 2: #9 retitled and closed, #2 only moved (untracked: a snapshot,
    // no event), #10 unchanged, #11 discovered.
    let t2 = ts("2026-11-21T10:00:00.000000007Z");
    let mut nine = issue("9");
    nine.title = "issue 9, retitled".into();
    nine.state = ItemState::Closed;
    let mut two = issue("2");
    two.url = "https://github.com/o/n/issues/2#moved".into();
    let mut r2 = run_of(
        &*store,
        key,
        t2,
        vec![nine.clone(), two.clone(), issue("10"), issue("11")],
        5,
    );
    r2.record.since = ts("2026-11-19T00:00:00.5Z");
    assert_eq!(r2.events.len(), 2);
    store.commit_run(key, &r2).unwrap();

    let view = store.repository_view(key).unwrap().unwrap();
    assert_eq!(view.runs, vec![r1.record.clone(), r2.record.clone()]);
    assert_eq!(
        store.last_successful_run(key).unwrap(),
        Some(r2.record.clone())
    );
    assert_eq!(view.context, context(5));
    assert_eq!(view.license.as_deref(), Some("MIT"));
    assert_eq!(view.news, News::default());
    assert_eq!(view.summary.group, group());
    assert_eq!(view.summary.repo, tracked());
    assert_eq!(view.summary.run_count, 2);
    assert_eq!(view.summary.last_collected_at, Some(t2));

    let expected_items: BTreeMap<String, ItemSnapshot> =
        [nine.clone(), two, issue("10"), issue("11")]
            .into_iter()
            .map(|s| (id(&s), s))
            .collect();
    assert_eq!(view.items, expected_items);
    assert_eq!(
        view.changed_in_latest,
        HashSet::from(["github:o/n:issue:9".to_string()])
    );

    let trail: Vec<(Timestamp, &str, &str, EventKind, &str)> = view
        .trail
        .iter()
        .map(|e| {
            (
                e.at,
                e.item_id.as_str(),
                e.title.as_str(),
                e.kind,
                e.detail.as_str(),
            )
        })
        .collect();
    assert_eq!(
        trail,
        vec![
            (
                t1,
                "github:o/n:issue:10",
                "issue 10",
                EventKind::Discovered,
                "initial snapshot"
            ),
            (
                t1,
                "github:o/n:issue:2",
                "issue 2",
                EventKind::Discovered,
                "initial snapshot"
            ),
            (
                t1,
                "github:o/n:issue:9",
                "issue 9",
                EventKind::Discovered,
                "initial snapshot"
            ),
            (
                t2,
                "github:o/n:issue:11",
                "issue 11",
                EventKind::Discovered,
                "initial snapshot"
            ),
            (
                t2,
                "github:o/n:issue:9",
                "issue 9, retitled",
                EventKind::Changed,
                "title, state"
            ),
        ]
    );
    assert_eq!(view.trail[0].url, "https://github.com/o/n/issues/10");
    assert_eq!(view.event_count, 5);
    assert_eq!(
        view.event_count,
        view.runs.iter().map(|r| r.changed_count).sum::<u64>()
    );

    // The items are the latest snapshots of all four.
    assert_eq!(view.items.len(), 4);
    assert_eq!(view.items["github:o/n:issue:9"].metrics.comments, 2);
}

/// Every distinct snapshot is kept, and only distinct ones.
pub fn history_keeps_every_distinct_snapshot(make: Factory<'_>) {
    let mut store = make();
    let key = store.ensure_repository(&group(), &tracked()).unwrap();
    let a = issue("1");
    let mut b = a.clone();
    b.metrics.comments = 3;
    b.updated_at = ts("2026-11-21T00:00:00Z");
    let times = [
        ts("2026-11-20T10:00:00Z"),
        ts("2026-11-21T10:00:00Z"),
        ts("2026-11-22T10:00:00Z"),
        ts("2026-11-23T10:00:00Z"),
    ];
    // a, then b, then b again, then back to a.
    for (at, s) in times.iter().zip([&a, &b, &b, &a]) {
        let mut run = run_of(&*store, key, *at, vec![s.clone()], 1);
        // The collector passes only differing snapshots; passing the same
        // one again must not store a duplicate either.
        if run.snapshots.is_empty() {
            run.snapshots.push((id(s), s.clone()));
        }
        store.commit_run(key, &run).unwrap();
    }
    let history = store.snapshot_history(key, &id(&a)).unwrap();
    assert_eq!(
        history,
        vec![
            (times[0], a.clone()),
            (times[1], b.clone()),
            (times[3], a.clone())
        ]
    );
    let view = store.repository_view(key).unwrap().unwrap();
    let counts: Vec<u64> = view.runs.iter().map(|r| r.changed_count).collect();
    assert_eq!(counts, [1, 1, 0, 1]);
    assert_eq!(view.trail[1].detail, "metrics, updatedAt");
    // The latest run changed it back, so it is marked changed.
    assert!(view.changed_in_latest.contains(&id(&a)));

    let asked = vec![id(&a), "github:o/n:issue:404".to_string()];
    let latest = store.latest_snapshots_for(key, &asked).unwrap();
    assert_eq!(latest, HashMap::from([(id(&a), a)]));
    assert!(
        store
            .snapshot_history(key, "github:o/n:issue:404")
            .unwrap()
            .is_empty()
    );
}

/// Row counts the tests compare before and after a refused commit.
fn footprint(store: &dyn Backend, key: RepoKey) -> (Option<crate::RepoView>, usize, Vec<usize>) {
    let history: Vec<usize> = ["1", "2", "3"]
        .iter()
        .map(|k| store.snapshot_history(key, &id(&issue(k))).unwrap().len())
        .collect();
    (
        store.repository_view(key).unwrap(),
        store.latest_snapshots(key).unwrap().len(),
        history,
    )
}

/// A refused or failing commit writes nothing.
pub fn a_refused_commit_leaves_the_store_as_before(make: Factory<'_>) {
    let mut store = make();
    let key = store.ensure_repository(&group(), &tracked()).unwrap();
    let t1 = ts("2026-11-20T10:00:00Z");
    store
        .commit_run(key, &run_of(&*store, key, t1, vec![issue("1")], 1))
        .unwrap();
    let before = footprint(&*store, key);

    // An event for an item with no snapshot fails after the run and its
    // snapshots were inserted: all of it must be rolled back.
    let t2 = ts("2026-11-21T10:00:00Z");
    let mut changed = issue("1");
    changed.state = ItemState::Closed;
    let mut bad = run_of(&*store, key, t2, vec![changed, issue("2")], 1);
    bad.events.push(ItemEvent {
        item_id: id(&issue("3")),
        observation: Observation::Changed(vec![TrackedField::State]),
    });
    bad.record.observed_count += 1;
    bad.record.changed_count += 1;
    let err = store.commit_run(key, &bad).unwrap_err();
    assert!(matches!(err, StoreError::InvalidRun { .. }), "{err:?}");
    assert!(err.to_string().contains("github:o/n:issue:3"), "{err}");
    assert_eq!(footprint(&*store, key), before);

    // A run that contradicts its own events is refused before any write.
    let mut lying = run_of(&*store, key, t2, vec![issue("2")], 1);
    lying.record.changed_count = 0;
    let err = store.commit_run(key, &lying).unwrap_err();
    assert!(matches!(err, StoreError::InvalidRun { .. }), "{err:?}");
    assert_eq!(footprint(&*store, key), before);

    // Same instant as the last run, and an earlier one: out of order.
    for at in [t1, ts("2026-11-19T10:00:00Z")] {
        let late = run_of(&*store, key, at, vec![issue("2")], 1);
        let err = store.commit_run(key, &late).unwrap_err();
        assert!(matches!(err, StoreError::RunOutOfOrder { .. }), "{err:?}");
        assert!(err.to_string().contains("check the system clock"), "{err}");
    }
    assert_eq!(footprint(&*store, key), before);

    // Nothing was left behind that would block the same run done right.
    let good = run_of(&*store, key, t2, vec![issue("2")], 1);
    store.commit_run(key, &good).unwrap();
    let view = store.repository_view(key).unwrap().unwrap();
    assert_eq!(view.runs.len(), 2);
    assert_eq!(view.event_count, 2);
}

/// Failures write a failure row alone; status shows them.
pub fn failures_are_recorded_alone_and_status_shows_them(make: Factory<'_>) {
    let mut store = make();
    let key = store.ensure_repository(&group(), &tracked()).unwrap();
    let t1 = ts("2026-11-20T10:00:00.250Z");
    let run = run_of(&*store, key, t1, vec![issue("1")], 1);
    store.commit_run(key, &run).unwrap();
    let before = store.repository_view(key).unwrap();

    let failed_at = ts("2026-11-21T10:00:00Z");
    store
        .record_failure(key, failed_at, "not_found", "GET /repos/o/n: 404 Not Found")
        .unwrap();
    let after = store.repository_view(key).unwrap().unwrap();
    assert_eq!(after.runs, before.as_ref().unwrap().runs);
    assert_eq!(after.trail, before.as_ref().unwrap().trail);
    assert!(after.summary.missing);

    let limit = RateLimit {
        limit: 5000,
        remaining: 0,
        reset: Some(ts("2026-11-21T11:00:00Z")),
        used: None,
        resource: None,
    };
    store.rate_limit_put("fp-1", &limit, failed_at).unwrap();
    let status = store.status().unwrap();
    assert_eq!(status.repositories.len(), 1);
    let repo = &status.repositories[0];
    let last = repo.last_run.as_ref().unwrap();
    assert_eq!(last.record, run.record);
    assert_eq!(last.stats, run.stats);
    let failure = repo.last_failure.as_ref().unwrap();
    assert_eq!(
        (failure.at, failure.kind.as_str(), failure.message.as_str()),
        (failed_at, "not_found", "GET /repos/o/n: 404 Not Found")
    );
    assert_eq!(
        repo.summary.last_error.as_deref(),
        Some("GET /repos/o/n: 404 Not Found")
    );
    assert_eq!(
        status.rate_limits,
        vec![("fp-1".to_string(), limit, failed_at)]
    );

    // The next successful run clears the missing flag and the error, and
    // records a rename.
    let mut next = run_of(&*store, key, ts("2026-11-22T10:00:00Z"), vec![], 1);
    next.renamed_to = Some(RepoName::parse("o2/n").unwrap());
    store.commit_run(key, &next).unwrap();
    let summary = &store.repositories().unwrap()[0];
    assert!(!summary.missing);
    assert_eq!(summary.last_error, None);
    assert_eq!(summary.host_name, Some(RepoName::parse("o2/n").unwrap()));

    // A key from another store is not silently treated as "no runs".
    let mut other = make();
    let err = other.repository_view(key).unwrap_err();
    assert!(
        matches!(err, StoreError::UnknownRepository { .. }),
        "{err:?}"
    );
    let err = other
        .record_failure(key, failed_at, "http", "500")
        .unwrap_err();
    assert!(
        matches!(err, StoreError::UnknownRepository { .. }),
        "{err:?}"
    );
    assert!(other.status().unwrap().repositories.is_empty());
}

/// Health and metrics read these (issue 20): items, events and requests
/// add up over the runs; failures in a row are those after the latest
/// successful run, compared as instants (a failure a quarter second after
/// a run at a whole second counts), and all of them before any run.
pub fn status_totals_count_items_events_requests_and_failures_in_a_row(make: Factory<'_>) {
    let mut store = make();
    let key = store.ensure_repository(&group(), &tracked()).unwrap();
    let totals = |store: &dyn Backend| store.status().unwrap().repositories[0].totals;
    assert_eq!(totals(&*store), crate::RepoTotals::default());
    store
        .record_failure(key, ts("2026-11-19T10:00:00Z"), "http", "500")
        .unwrap();
    store
        .record_failure(key, ts("2026-11-19T11:00:00.5Z"), "http", "502")
        .unwrap();
    let t = totals(&*store);
    assert_eq!((t.failures, t.failures_since_success), (2, 2));

    let first = run_of(
        &*store,
        key,
        ts("2026-11-20T10:00:00Z"),
        vec![issue("1"), issue("2")],
        1,
    );
    store.commit_run(key, &first).unwrap();
    let mut changed = issue("1");
    changed.metrics.reactions += 3;
    let second = run_of(
        &*store,
        key,
        ts("2026-11-21T10:00:00Z"),
        vec![changed, issue("3")],
        1,
    );
    store.commit_run(key, &second).unwrap();
    let t = totals(&*store);
    assert_eq!(t.items, 3);
    assert_eq!(t.events, 4);
    assert_eq!(
        t.events,
        first.events.len() as u64 + second.events.len() as u64
    );
    assert_eq!(t.requests.requests, 8);
    assert_eq!(t.requests.not_modified, 2);
    assert_eq!(t.requests.bytes_received, 24_690);
    assert_eq!((t.failures, t.failures_since_success), (2, 0));

    // Earlier than the run by string order, later by time.
    store
        .record_failure(key, ts("2026-11-21T10:00:00.25Z"), "http", "503")
        .unwrap();
    store
        .record_failure(key, ts("2026-11-21T11:00:00Z"), "decode", "bad JSON")
        .unwrap();
    let t = totals(&*store);
    assert_eq!((t.failures, t.failures_since_success), (4, 2));
}

/// A reconcile (issue 20) is planned from the first run and the latest
/// reconcile run, and looks for the open issues and pull requests the host
/// no longer lists (closed ones and releases are not looked for).
pub fn reconcile_marks_and_open_items_plan_a_reconcile(make: Factory<'_>) {
    let mut store = make();
    let key = store.ensure_repository(&group(), &tracked()).unwrap();
    assert_eq!(store.reconcile_marks(key).unwrap(), (None, None));
    assert!(store.open_item_ids(key).unwrap().is_empty());
    let t1 = ts("2026-11-20T10:00:00Z");
    let mut closed = issue("2");
    closed.state = ItemState::Closed;
    closed.closed_at = Some(t1);
    let run = run_of(&*store, key, t1, vec![issue("1"), closed, issue("3")], 1);
    store.commit_run(key, &run).unwrap();
    assert_eq!(store.reconcile_marks(key).unwrap(), (Some(t1), None));
    assert_eq!(
        store.open_item_ids(key).unwrap(),
        vec![id(&issue("1")), id(&issue("3"))]
    );
    let t2 = ts("2026-11-21T10:00:00.5Z");
    let mut reconcile = run_of(&*store, key, t2, vec![], 1);
    reconcile.reconciled = true;
    store.commit_run(key, &reconcile).unwrap();
    let t3 = ts("2026-11-22T10:00:00Z");
    store
        .commit_run(key, &run_of(&*store, key, t3, vec![], 1))
        .unwrap();
    assert_eq!(store.reconcile_marks(key).unwrap(), (Some(t1), Some(t2)));
    let status = store.status().unwrap();
    assert_eq!(status.repositories[0].last_reconcile, Some(t2));
}

/// Keys are stable; display fields follow the configuration; the list is
/// in byte order of group id then repository id.
pub fn ensure_repository_keeps_its_key_and_updates_display_fields(make: Factory<'_>) {
    let mut store = make();
    let key = store.ensure_repository(&group(), &tracked()).unwrap();
    let mut renamed_group = group();
    renamed_group.name = "Engines".into();
    let mut repo = tracked();
    repo.name = "N (renamed)".into();
    repo.keywords = vec!["other".into()];
    assert_eq!(store.ensure_repository(&renamed_group, &repo).unwrap(), key);
    let other = TrackedRepo {
        id: "m".into(),
        ..tracked()
    };
    let key2 = store.ensure_repository(&renamed_group, &other).unwrap();
    assert_ne!(key2, key);
    // Byte order, whatever the database's collation: "Zed" before "alpha".
    let upper = TrackedRepo {
        id: "Zed".into(),
        ..tracked()
    };
    let lower = TrackedRepo {
        id: "alpha".into(),
        ..tracked()
    };
    store.ensure_repository(&renamed_group, &lower).unwrap();
    store.ensure_repository(&renamed_group, &upper).unwrap();
    let ids: Vec<String> = store
        .repositories()
        .unwrap()
        .into_iter()
        .map(|s| s.repo.id)
        .collect();
    assert_eq!(ids, ["Zed", "alpha", "m", "n"]);
    for key in [&upper, &lower].map(|r| {
        store
            .repositories()
            .unwrap()
            .into_iter()
            .find(|s| s.repo.id == r.id)
            .unwrap()
            .key
    }) {
        store.purge_repository(key).unwrap();
    }
    let list = store.repositories().unwrap();
    assert_eq!(list.len(), 2);
    // Ordered by group id, then repository id.
    assert_eq!(list[0].repo, other);
    assert_eq!(list[1].repo, repo);
    assert_eq!(list[1].group, renamed_group);
    assert_eq!(list[1].run_count, 0);
}

/// One step of a generated history: which items a run observes, and which
/// of them got a new comment since the last run.
fn observations() -> impl Strategy<Value = Vec<Vec<(u8, bool, bool)>>> {
    proptest::collection::vec(
        proptest::collection::vec((0u8..12, any::<bool>(), any::<bool>()), 0..10),
        1..8,
    )
}

/// Over any sequence of runs, the sum of changedCount equals the number
/// of stored observation events, and the store's latest snapshots are the
/// last ones observed.
pub fn changed_counts_add_up_to_the_events(make: Factory<'_>) {
    let mut runner = TestRunner::new(Config {
        cases: cases(48),
        ..Config::default()
    });
    let make = std::cell::RefCell::new(make);
    let result = runner.run(&observations(), |runs| {
        let mut store = (make.borrow_mut())();
        let key = store.ensure_repository(&group(), &tracked()).unwrap();
        let mut model: HashMap<String, ItemSnapshot> = HashMap::new();
        let mut comments: HashMap<u8, u64> = HashMap::new();
        let start = ts("2026-11-01T00:00:00Z");
        for (i, run) in runs.iter().enumerate() {
            let observed: Vec<ItemSnapshot> = run
                .iter()
                .map(|&(k, comment, close)| {
                    let c = comments.entry(k).or_insert(0);
                    if comment {
                        *c += 1;
                    }
                    let mut s = issue(&k.to_string());
                    s.metrics.comments = *c;
                    if close {
                        s.state = ItemState::Closed;
                    }
                    s
                })
                .collect();
            let at = start + SignedDuration::from_millis(3_600_000 * i as i64 + 7);
            let commit = run_of(&*store, key, at, observed, 1);
            for (id, s) in &commit.snapshots {
                model.insert(id.clone(), s.clone());
            }
            store.commit_run(key, &commit).unwrap();
        }
        let view = store.repository_view(key).unwrap().unwrap();
        let sum: u64 = view.runs.iter().map(|r| r.changed_count).sum();
        prop_assert_eq!(sum, view.event_count);
        prop_assert_eq!(sum, view.trail.len() as u64);
        prop_assert!(
            view.runs
                .iter()
                .all(|r| r.changed_count <= r.observed_count)
        );
        prop_assert_eq!(view.runs.len(), runs.len());
        prop_assert_eq!(
            store
                .latest_snapshots(key)
                .unwrap()
                .into_iter()
                .collect::<HashMap<_, _>>(),
            model
        );
        // The trail is ordered by run, then by item id.
        let order: Vec<(Timestamp, String)> = view
            .trail
            .iter()
            .map(|e| (e.at, e.item_id.clone()))
            .collect();
        let mut sorted = order.clone();
        sorted.sort();
        prop_assert_eq!(order, sorted);
        Ok(())
    });
    if let Err(e) = result {
        panic!("{e}");
    }
}

/// One observation of a generated history: item, a new comment, closed, a
/// body among three (so bodies change, come back and are shared), a label
/// among two, a new reaction.
type Step = (u8, bool, bool, u8, bool, bool);

fn histories() -> impl Strategy<Value = Vec<Vec<Step>>> {
    proptest::collection::vec(
        proptest::collection::vec(
            (
                0u8..10,
                any::<bool>(),
                any::<bool>(),
                0u8..3,
                any::<bool>(),
                any::<bool>(),
            ),
            0..8,
        ),
        1..7,
    )
}

/// Commits a generated history, a run an hour from 2026-11-01: comments
/// counted per item, bodies among three, the `bug` label, closes.
fn commit_histories(store: &mut dyn Backend, key: RepoKey, runs: &[Vec<Step>]) {
    let mut counts: HashMap<u8, u64> = HashMap::new();
    let start = ts("2026-11-01T00:00:00Z");
    for (i, run) in runs.iter().enumerate() {
        let at = start + SignedDuration::from_hours(i as i64);
        let observed: Vec<ItemSnapshot> = run
            .iter()
            .map(|&(k, comment, close, body, label, _)| {
                let c = counts.entry(k).or_insert(0);
                if comment {
                    *c += 1;
                }
                let mut s = issue(&k.to_string());
                s.metrics.comments = *c;
                s.text = ["body", "another body", ""][body as usize].to_string();
                if label {
                    s.labels.push("bug".into());
                }
                if close {
                    s.state = ItemState::Closed;
                }
                s
            })
            .collect();
        let commit = run_of(&*store, key, at, observed, 1);
        store.commit_run(key, &commit).unwrap();
    }
}

/// The reference path: the design before issue 7, kept here to check the
/// new one against. Every snapshot is kept whole, a run is accounted
/// against the whole latest state (not a per-item query of the store), and
/// the export's inputs are rebuilt from those full snapshots.
#[derive(Default)]
struct Reference {
    /// Every snapshot ever kept, whole, in run order.
    full: Vec<(usize, String, ItemSnapshot)>,
    runs: Vec<RunRecord>,
    /// (run instant, item id) of every event, in run then id order.
    trail: Vec<(Timestamp, String)>,
    changed_in_latest: HashSet<String>,
}

impl Reference {
    fn latest(&self) -> BTreeMap<String, ItemSnapshot> {
        let mut latest = BTreeMap::new();
        for (_, id, s) in &self.full {
            latest.insert(id.clone(), s.clone());
        }
        latest
    }

    fn run(&mut self, at: Timestamp, observed: Vec<ItemSnapshot>) {
        let previous: HashMap<String, ItemSnapshot> = self.latest().into_iter().collect();
        let delta = account(Source::Github, observed, &previous);
        let n = self.runs.len();
        self.runs.push(RunRecord {
            collected_at: at,
            since: at - SignedDuration::from_hours(24),
            observed_count: delta.observed_count,
            changed_count: delta.changed_count(),
        });
        self.changed_in_latest = delta
            .events
            .iter()
            .filter(|e| matches!(e.observation, Observation::Changed(_)))
            .map(|e| e.item_id.clone())
            .collect();
        for e in &delta.events {
            self.trail.push((at, e.item_id.clone()));
        }
        for (id, s) in delta.snapshots {
            self.full.push((n, id, s));
        }
    }
}

/// For any sequence of runs, the v3 document and the scores the export
/// computes from the store (content-addressed texts, runs that read only
/// the observed items' latest snapshots, importance at the dataset's
/// instant) equal those rebuilt from full snapshots by the reference path.
pub fn exported_documents_equal_the_reference_rebuilt_from_full_snapshots(make: Factory<'_>) {
    use signals_core::dataset::{DatasetInput, build};
    use signals_core::importance::{Weights, score};

    let mut runner = TestRunner::new(Config {
        cases: cases(40),
        ..Config::default()
    });
    let make = std::cell::RefCell::new(make);
    let result = runner.run(&histories(), |runs| {
        let mut store = (make.borrow_mut())();
        let key = store.ensure_repository(&group(), &tracked()).unwrap();
        let mut reference = Reference::default();
        let mut counts: HashMap<u8, (u64, u64)> = HashMap::new();
        let bodies = ["body", "a longer body, with **markdown**", ""];
        let start = ts("2026-11-01T00:00:00Z");
        for (i, run) in runs.iter().enumerate() {
            let at = start + SignedDuration::from_millis(3_600_000 * i as i64 + 11);
            let observed: Vec<ItemSnapshot> = run
                .iter()
                .map(|&(k, comment, close, body, label, reaction)| {
                    let c = counts.entry(k).or_insert((0, 0));
                    if comment {
                        c.0 += 1;
                    }
                    if reaction {
                        c.1 += 1;
                    }
                    let mut s = issue(&k.to_string());
                    s.metrics.comments = c.0;
                    s.metrics.reactions = c.1;
                    s.text = bodies[body as usize].to_string();
                    if label {
                        s.labels.push("help wanted".into());
                    }
                    if close {
                        s.state = ItemState::Closed;
                    }
                    s.updated_at = at;
                    s
                })
                .collect();
            reference.run(at, observed.clone());
            let commit = run_of(&*store, key, at, observed, 7);
            store.commit_run(key, &commit).unwrap();
        }

        let view = store.repository_view(key).unwrap().unwrap();
        let items: Vec<ItemSnapshot> = view.items.values().cloned().collect();
        let exported = build(&DatasetInput {
            group: &view.summary.group,
            repo: &view.summary.repo,
            context: &view.context,
            news: &view.news,
            runs: &view.runs,
            items: &items,
            changed_in_latest: &view.changed_in_latest,
        })
        .unwrap();

        let latest = reference.latest();
        let reference_items: Vec<ItemSnapshot> = latest.values().cloned().collect();
        let rebuilt = build(&DatasetInput {
            group: &group(),
            repo: &tracked(),
            context: &context(7),
            news: &News::default(),
            runs: &reference.runs,
            items: &reference_items,
            changed_in_latest: &reference.changed_in_latest,
        })
        .unwrap();
        prop_assert_eq!(
            serde_json::to_value(&exported).unwrap(),
            serde_json::to_value(&rebuilt).unwrap()
        );

        let instant = view.runs.last().unwrap().collected_at;
        let weights = Weights::default();
        for (id, item) in &view.items {
            prop_assert_eq!(
                score(item, instant, &weights),
                score(&latest[id], instant, &weights)
            );
        }
        prop_assert_eq!(view.items.len(), latest.len());
        let trail: Vec<(Timestamp, String)> = view
            .trail
            .iter()
            .map(|e| (e.at, e.item_id.clone()))
            .collect();
        prop_assert_eq!(trail, reference.trail.clone());
        // Every kept snapshot of every item, back from the store whole.
        for id in latest.keys() {
            let history: Vec<ItemSnapshot> = store
                .snapshot_history(key, id)
                .unwrap()
                .into_iter()
                .map(|(_, s)| s)
                .collect();
            let expected: Vec<ItemSnapshot> = reference
                .full
                .iter()
                .filter(|(_, i, _)| i == id)
                .map(|(_, _, s)| s.clone())
                .collect();
            prop_assert_eq!(history, expected);
        }
        Ok(())
    });
    if let Err(e) = result {
        panic!("{e}");
    }
}

/// The batched reads `signals export` streams from (issue 17) give what
/// the whole view holds: the outline; the latest snapshots in id order,
/// whatever the batch size, each with its event of the latest run; the
/// trail's keys in its order; and its events read back by key.
pub fn batched_reads_equal_the_whole_view(make: Factory<'_>) {
    let mut runner = TestRunner::new(Config {
        cases: cases(24),
        ..Config::default()
    });
    let make = std::cell::RefCell::new(make);
    let result = runner.run(&histories(), |runs| {
        let mut store = (make.borrow_mut())();
        let key = store.ensure_repository(&group(), &tracked()).unwrap();
        prop_assert!(store.repository_outline(key).unwrap().is_none());
        commit_histories(&mut *store, key, &runs);
        let view = store.repository_view(key).unwrap().unwrap();
        let outline = store.repository_outline(key).unwrap().unwrap();
        prop_assert_eq!(&outline.summary, &view.summary);
        prop_assert_eq!(&outline.runs, &view.runs);
        prop_assert_eq!(&outline.context, &view.context);
        prop_assert_eq!(&outline.news, &view.news);
        prop_assert_eq!(&outline.license, &view.license);

        let latest_run: HashMap<&str, EventKind> = view
            .trail
            .iter()
            .filter(|e| e.at == view.runs.last().unwrap().collected_at)
            .map(|e| (e.item_id.as_str(), e.kind))
            .collect();
        for limit in [1usize, 3, 1000] {
            let mut items = Vec::new();
            let mut after: Option<String> = None;
            loop {
                let batch = store
                    .latest_items_after(key, after.as_deref(), limit)
                    .unwrap();
                prop_assert!(batch.len() <= limit);
                let Some(last) = batch.last() else { break };
                after = Some(last.id.clone());
                items.extend(batch);
            }
            let ids: Vec<&String> = items.iter().map(|i| &i.id).collect();
            prop_assert_eq!(ids, view.items.keys().collect::<Vec<_>>());
            for i in &items {
                prop_assert_eq!(&i.item, &view.items[&i.id]);
                prop_assert_eq!(i.latest_event, latest_run.get(i.id.as_str()).copied());
                prop_assert_eq!(
                    i.latest_event == Some(EventKind::Changed),
                    view.changed_in_latest.contains(&i.id)
                );
            }
        }

        for limit in [1usize, 2, 1000] {
            let mut keys = Vec::new();
            let mut events = Vec::new();
            loop {
                let after = keys
                    .last()
                    .map(|(run, id): &(i64, String)| (*run, id.as_str()));
                let batch = store.trail_keys_after(key, after, limit).unwrap();
                prop_assert!(batch.len() <= limit);
                if batch.is_empty() {
                    break;
                }
                for (run, e) in batch {
                    keys.push((run, e.item_id.clone()));
                    events.push(e);
                }
            }
            let bare: Vec<_> = view
                .trail
                .iter()
                .map(|e| (e.at, e.item_id.clone(), e.kind, e.detail.clone()))
                .collect();
            let read: Vec<_> = events
                .iter()
                .map(|e| (e.at, e.item_id.clone(), e.kind, e.detail.clone()))
                .collect();
            prop_assert_eq!(read, bare);
            let mut reversed = keys.clone();
            reversed.reverse();
            let mut whole = store.trail_events(key, &reversed).unwrap();
            whole.reverse();
            prop_assert_eq!(&whole, &view.trail);
        }
        prop_assert!(store.trail_events(key, &[]).unwrap().is_empty());
        Ok(())
    });
    if let Err(e) = result {
        panic!("{e}");
    }
}

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
    assert_eq!(store.rate_limit_get("b").unwrap(), Some((limit(9), at)));
    // A refusal that did not say when it resets (issue 16): kept as such.
    let unknown = RateLimit {
        reset: None,
        ..limit(0)
    };
    store.rate_limit_put("c", &unknown, at).unwrap();
    assert_eq!(store.rate_limit_get("c").unwrap(), Some((unknown, at)));
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

/// Purging deletes one repository, its history and its unshared texts,
/// and leaves the others whole.
pub fn purge_deletes_one_repository_and_its_texts(make: Factory<'_>) {
    let mut store = make();
    let key = store.ensure_repository(&group(), &tracked()).unwrap();
    let other = TrackedRepo {
        id: "m".into(),
        ..tracked()
    };
    let key2 = store.ensure_repository(&group(), &other).unwrap();
    let t1 = ts("2026-11-20T10:00:00Z");
    let mut only_here = issue("1");
    only_here.text = "a body only this repository has".into();
    let run = run_of(&*store, key, t1, vec![only_here, issue("2")], 1);
    store.commit_run(key, &run).unwrap();
    let run2 = run_of(&*store, key2, t1, vec![issue("2")], 1);
    store.commit_run(key2, &run2).unwrap();
    store.record_failure(key, t1, "http", "500").unwrap();
    let before = store.repository_view(key2).unwrap();
    let texts = |s: &dyn Backend| {
        s.table_counts()
            .unwrap()
            .into_iter()
            .find(|(t, _)| *t == "texts")
            .unwrap()
            .1
    };
    let texts_before = texts(&*store);
    assert_eq!(store.purge_repository(key).unwrap(), 1);
    assert_eq!(store.repository_view(key2).unwrap(), before);
    assert_eq!(store.repositories().unwrap().len(), 1);
    // Issue 1's head and its body were used by nothing else.
    assert_eq!(texts(&*store), texts_before - 2);
    assert!(matches!(
        store.repository_view(key),
        Err(StoreError::UnknownRepository { .. })
    ));
    assert!(matches!(
        store.purge_repository(key),
        Err(StoreError::UnknownRepository { .. })
    ));
}

/// A dump loaded into a fresh store gives the same rows, counts and views;
/// a store that holds data refuses a load.
pub fn dump_and_load_copy_everything(make: Factory<'_>) {
    let mut store = make();
    let key = store.ensure_repository(&group(), &tracked()).unwrap();
    let t1 = ts("2026-11-20T10:00:00.001Z");
    let rules = [("now", false), ("mail", true)];
    let run = alerting_run(&*store, key, t1, vec![issue("1"), issue("2")], &rules);
    store.commit_run(key, &run).unwrap();
    let mut changed = issue("1");
    changed.state = ItemState::Closed;
    let t2 = ts("2026-11-21T10:00:00Z");
    let run = alerting_run(&*store, key, t2, vec![changed], &rules);
    store.commit_run(key, &run).unwrap();
    // Alerts: one delivered, one pending, two held folded into a digest
    // (which references its parts' digest row, made after them).
    let sent = store
        .outbox_claim(t2, SignedDuration::from_secs(60))
        .unwrap()
        .unwrap();
    store
        .outbox_settle(sent.id, t2, &crate::Settle::Delivered)
        .unwrap();
    let held = store
        .outbox_messages(crate::MessageState::Held, None)
        .unwrap();
    let payloads: Vec<_> = held.iter().map(|m| m.payload.clone()).collect();
    let digest = signals_core::notify::digest("mail", &payloads, 10, t2).unwrap();
    let parts: Vec<i64> = held.iter().map(|m| m.id).collect();
    assert!(store.outbox_digest(&parts, &digest, t2).unwrap());
    store
        .record_failure(key, t2, "http", "500 \u{1F600}")
        .unwrap();
    let response = CachedResponse {
        etag: None,
        last_modified: None,
        link_next: None,
        body: vec![0, 159, 255],
    };
    store.cache_put("https://h/x", "fp", &response, t2).unwrap();
    let limit = RateLimit {
        limit: 60,
        remaining: 1,
        reset: Some(t2),
        used: None,
        resource: None,
    };
    store.rate_limit_put("fp", &limit, t2).unwrap();
    let owner = crate::OwnerRef {
        group: &group(),
        host: "github",
        owner: "o",
    };
    assert!(store.owner_claim(owner, t2, SignedDuration::ZERO).unwrap());
    // A renamed one: its host id, first name and rename are copied too.
    let mut renamed = known("o/b2", "b", "tracked", t1);
    renamed.host_id = Some(42);
    renamed.tracked_as = Some(RepoName::parse("o/b").unwrap());
    renamed.renamed_at = Some(t2);
    store
        .owner_listed(
            owner,
            t2,
            &[known("o/a", "a", "tracked", t2), renamed.clone()],
            &stats(2, 1),
        )
        .unwrap();

    let mut rows = Vec::new();
    store
        .dump(&mut |r| {
            rows.push(r);
            Ok(())
        })
        .unwrap();
    let mut copy = make();
    copy.load(&mut rows.clone().into_iter().map(Ok)).unwrap();
    assert_eq!(copy.table_counts().unwrap(), store.table_counts().unwrap());
    assert!(copy.table_counts().unwrap().iter().all(|(_, n)| *n > 0));
    assert_eq!(
        copy.repository_view(key).unwrap(),
        store.repository_view(key).unwrap()
    );
    assert_eq!(copy.status().unwrap(), store.status().unwrap());
    assert_eq!(copy.cache_get("https://h/x", "fp").unwrap(), Some(response));
    assert_eq!(
        copy.owners_status().unwrap(),
        store.owners_status().unwrap()
    );
    assert_eq!(copy.owners_status().unwrap()[0].repos[1], renamed);
    assert_eq!(
        copy.outbox_status().unwrap(),
        store.outbox_status().unwrap()
    );
    assert_eq!(
        copy.outbox_messages(crate::MessageState::Pending, None)
            .unwrap(),
        store
            .outbox_messages(crate::MessageState::Pending, None)
            .unwrap()
    );
    let mut again = Vec::new();
    copy.dump(&mut |r| {
        again.push(r);
        Ok(())
    })
    .unwrap();
    assert_eq!(again, rows);
    // The copy goes on as the original would: new ids do not collide.
    let t3 = ts("2026-11-22T10:00:00Z");
    let run = run_of(&*copy, key, t3, vec![issue("3")], 1);
    copy.commit_run(key, &run).unwrap();
    let other = TrackedRepo {
        id: "m".into(),
        ..tracked()
    };
    copy.ensure_repository(&group(), &other).unwrap();

    let err = copy.load(&mut rows.into_iter().map(Ok)).unwrap_err();
    assert!(matches!(err, StoreError::NotEmpty { .. }), "{err:?}");
}

/// The host's close time is kept with each snapshot, and a reopened item
/// has none again.
pub fn close_times_round_trip(make: Factory<'_>) {
    let mut store = make();
    let key = store.ensure_repository(&group(), &tracked()).unwrap();
    let mut closed = issue("1");
    closed.state = ItemState::Closed;
    closed.closed_at = Some(ts("2026-11-19T08:30:00Z"));
    closed.updated_at = ts("2026-11-19T08:30:00Z");
    let run = run_of(
        &*store,
        key,
        ts("2026-11-20T10:00:00Z"),
        vec![closed.clone()],
        1,
    );
    store.commit_run(key, &run).unwrap();
    let latest = store.latest_snapshots(key).unwrap();
    assert_eq!(latest[&id(&closed)].closed_at, closed.closed_at);

    let mut reopened = closed.clone();
    reopened.state = ItemState::Open;
    reopened.closed_at = None;
    reopened.updated_at = ts("2026-11-20T11:00:00Z");
    let run = run_of(
        &*store,
        key,
        ts("2026-11-20T12:00:00Z"),
        vec![reopened.clone()],
        1,
    );
    store.commit_run(key, &run).unwrap();
    let history = store.snapshot_history(key, &id(&closed)).unwrap();
    assert_eq!(history.len(), 2);
    assert_eq!(history[0].1.closed_at, closed.closed_at);
    assert_eq!(history[1].1.closed_at, None);
}

/// Trends' reads: the runs' context since a time, oldest first, and the
/// items observed after a time with their metrics then (or at first
/// sight) and now.
pub fn trend_reads_return_the_runs_and_growth_since_a_time(make: Factory<'_>) {
    let mut store = make();
    let key = store.ensure_repository(&group(), &tracked()).unwrap();
    let with = |key: &str, reactions: u64, comments: u64, updated: &str| {
        let mut i = issue(key);
        i.metrics = Metrics {
            reactions,
            comments,
        };
        i.updated_at = ts(updated);
        i
    };
    let t1 = ts("2026-11-01T10:00:00Z");
    let run = run_of(
        &*store,
        key,
        t1,
        vec![
            with("1", 1, 1, "2026-11-01T09:00:00Z"),
            with("2", 0, 0, "2026-11-01T09:00:00Z"),
        ],
        10,
    );
    store.commit_run(key, &run).unwrap();
    let t2 = ts("2026-11-10T10:00:00Z");
    let run = run_of(
        &*store,
        key,
        t2,
        vec![
            with("1", 4, 3, "2026-11-10T09:00:00Z"),
            with("3", 2, 0, "2026-11-10T09:00:00Z"),
            with("4", 1, 0, "2026-11-10T09:00:00Z"),
        ],
        12,
    );
    store.commit_run(key, &run).unwrap();
    let t3 = ts("2026-11-12T10:00:00Z");
    let run = run_of(
        &*store,
        key,
        t3,
        vec![
            with("1", 9, 3, "2026-11-12T09:00:00Z"),
            with("3", 2, 3, "2026-11-12T09:00:00Z"),
        ],
        15,
    );
    store.commit_run(key, &run).unwrap();

    let contexts = store.run_contexts(key, ts("2026-11-05T00:00:00Z")).unwrap();
    let seen: Vec<(Timestamp, u64)> = contexts.iter().map(|(t, c)| (*t, c.stars)).collect();
    assert_eq!(seen, vec![(t2, 12), (t3, 15)]);

    // From 2026-11-05 on: issue 1 grew from 2 (its snapshot of t1) to 12;
    // issue 3 was first seen at 2 and is at 5; issue 4, first seen at 1,
    // is still at 1: it did not grow and is left out; issue 2 was not
    // observed.
    let mut growth = store.growth_since(key, ts("2026-11-05T00:00:00Z")).unwrap();
    growth.sort_by(|a, b| a.id.cmp(&b.id));
    let got: Vec<(String, u64, u64, String)> = growth
        .into_iter()
        .map(|r| (r.id, r.from, r.to, r.title))
        .collect();
    assert_eq!(
        got,
        vec![
            (id(&issue("1")), 2, 12, "issue 1".to_string()),
            (id(&issue("3")), 2, 5, "issue 3".to_string()),
        ]
    );
    assert!(store.growth_since(key, t3).unwrap().is_empty());
}

/// A run of `observed` with the messages of rules `pending` (sent on their
/// own) and `held` (for a digest), as the collector makes them.
fn alerting_run(
    store: &dyn Backend,
    key: RepoKey,
    at: Timestamp,
    observed: Vec<ItemSnapshot>,
    rules: &[(&str, bool)],
) -> RunCommit {
    use signals_core::notify::{Rule, RuleRef, RunInput, messages};
    let mut run = run_of(store, key, at, observed, 1);
    let rules: Vec<Rule> = rules.iter().map(|(n, _)| Rule::any(n)).collect();
    let refs: Vec<RuleRef<'_>> = rules
        .iter()
        .zip([false, true])
        .map(|(rule, held)| RuleRef { rule, held })
        .collect();
    let weights = signals_core::importance::Weights::default();
    run.messages = messages(
        &refs,
        &RunInput {
            group: &group(),
            repo: &tracked(),
            repo_url: "https://github.com/o/n",
            collected_at: at,
            first_run: false,
            events: &run.events,
            snapshots: &run.snapshots,
            weights: &weights,
            link: None,
        },
    );
    run
}

pub fn alerts_commit_with_their_run_and_are_claimed_once(make: Factory<'_>) {
    use crate::outbox::{MessageState, Settle};
    let mut store = make();
    let key = store.ensure_repository(&group(), &tracked()).unwrap();
    let t1 = ts("2026-11-20T10:00:00Z");
    let run = alerting_run(
        &*store,
        key,
        t1,
        vec![issue("1"), issue("2")],
        &[("now", false)],
    );
    assert_eq!(run.messages.len(), 1);
    store.commit_run(key, &run).unwrap();
    let pending = store.outbox_messages(MessageState::Pending, None).unwrap();
    assert_eq!(pending.len(), 1);
    assert_eq!(pending[0].payload, run.messages[0].payload);
    assert_eq!(pending[0].delivery, run.messages[0].delivery);
    assert_eq!(pending[0].created_at, t1);

    // A refused run (out of order) leaves no message behind.
    let late = alerting_run(&*store, key, t1, vec![issue("3")], &[("now", false)]);
    assert!(!late.messages.is_empty());
    assert!(store.commit_run(key, &late).is_err());
    assert_eq!(
        store
            .outbox_messages(MessageState::Pending, None)
            .unwrap()
            .len(),
        1
    );

    // One claim at a time; an expired claim frees the message, which
    // keeps its delivery id and body.
    let claim = SignedDuration::from_secs(60);
    let now = ts("2026-11-20T10:00:01Z");
    let first = store.outbox_claim(now, claim).unwrap().unwrap();
    assert_eq!(first.delivery, pending[0].delivery);
    assert!(store.outbox_claim(now, claim).unwrap().is_none());
    let later = now + SignedDuration::from_secs(61);
    let again = store.outbox_claim(later, claim).unwrap().unwrap();
    assert_eq!(
        (&again.delivery, &again.payload),
        (&first.delivery, &first.payload)
    );

    // A failed attempt waits for its backoff.
    let next = later + SignedDuration::from_secs(5);
    store
        .outbox_settle(
            again.id,
            later,
            &Settle::Retry {
                next,
                error: "HTTP 500".into(),
            },
        )
        .unwrap();
    assert_eq!(store.outbox_next_due().unwrap(), Some(next));
    assert!(store.outbox_claim(later, claim).unwrap().is_none());
    let status = store.outbox_status().unwrap();
    assert_eq!(
        (status[0].pending, status[0].last_error.as_deref()),
        (1, Some("HTTP 500"))
    );
    let third = store.outbox_claim(next, claim).unwrap().unwrap();
    assert_eq!(third.attempts, 1);
    store
        .outbox_settle(third.id, next, &Settle::Delivered)
        .unwrap();
    assert!(store.outbox_claim(next + claim, claim).unwrap().is_none());
    assert_eq!(store.outbox_next_due().unwrap(), None);

    // A given-up message is kept, failed, with its error.
    let t2 = ts("2026-11-21T10:00:00Z");
    let mut two = issue("2");
    two.state = ItemState::Closed;
    let run2 = alerting_run(&*store, key, t2, vec![two], &[("now", false)]);
    store.commit_run(key, &run2).unwrap();
    let m = store.outbox_claim(t2, claim).unwrap().unwrap();
    assert_ne!(m.delivery, first.delivery);
    store
        .outbox_settle(
            m.id,
            t2,
            &Settle::Failed {
                error: "gave up after 24h: HTTP 404".into(),
            },
        )
        .unwrap();
    let status = store.outbox_status().unwrap();
    assert_eq!(status.len(), 1);
    assert_eq!(
        (
            status[0].rule.as_str(),
            status[0].pending,
            status[0].delivered,
            status[0].failed
        ),
        ("now", 0, 1, 1)
    );
    assert_eq!(
        status[0].last_error.as_deref(),
        Some("gave up after 24h: HTTP 404")
    );
}

pub fn digests_fold_held_alerts_once_and_purge_takes_them(make: Factory<'_>) {
    use crate::outbox::MessageState;
    let mut store = make();
    let key = store.ensure_repository(&group(), &tracked()).unwrap();
    let t1 = ts("2026-11-20T10:00:00Z");
    let t2 = ts("2026-11-21T10:00:00Z");
    let run = alerting_run(
        &*store,
        key,
        t1,
        vec![issue("1")],
        &[("a", false), ("mail", true)],
    );
    store.commit_run(key, &run).unwrap();
    let mut one = issue("1");
    one.metrics.comments = 9;
    let run = alerting_run(
        &*store,
        key,
        t2,
        vec![one, issue("2")],
        &[("a", false), ("mail", true)],
    );
    store.commit_run(key, &run).unwrap();
    let held = store
        .outbox_messages(MessageState::Held, Some("mail"))
        .unwrap();
    assert_eq!(held.len(), 2);
    assert!(
        store
            .outbox_messages(MessageState::Held, Some("a"))
            .unwrap()
            .is_empty()
    );
    assert_eq!(store.outbox_last_digest("mail").unwrap(), None);

    let at = ts("2026-11-22T08:00:00Z");
    let payloads: Vec<_> = held.iter().map(|m| m.payload.clone()).collect();
    let digest = signals_core::notify::digest("mail", &payloads, 10, at).unwrap();
    let ids: Vec<i64> = held.iter().map(|m| m.id).collect();
    assert!(store.outbox_digest(&ids, &digest, at).unwrap());
    assert!(
        store
            .outbox_messages(MessageState::Held, None)
            .unwrap()
            .is_empty()
    );
    // Twice is refused and writes nothing.
    let again =
        signals_core::notify::digest("mail", &payloads, 10, at + SignedDuration::from_secs(1))
            .unwrap();
    assert!(!store.outbox_digest(&ids, &again, at).unwrap());
    let pending = store
        .outbox_messages(MessageState::Pending, Some("mail"))
        .unwrap();
    assert_eq!(pending.len(), 1);
    assert_eq!(pending[0].payload, digest.payload);
    // Two items, issue 1 once (as last seen, with 9 comments).
    assert_eq!(pending[0].payload.signals.len(), 2);
    assert!(
        pending[0]
            .payload
            .signals
            .iter()
            .any(|s| s.signal.metrics.comments == 9)
    );
    assert_eq!(store.outbox_last_digest("mail").unwrap(), Some(at));

    // Purging the repository takes its messages; the digest stays.
    store.purge_repository(key).unwrap();
    let left: Vec<_> = store
        .outbox_status()
        .unwrap()
        .into_iter()
        .map(|r| (r.rule, r.pending, r.held))
        .collect();
    assert_eq!(left, vec![("mail".to_string(), 1, 0)]);
}

/// Issue 17: for any sequence of runs, the reads `serve` pages with equal
/// the whole view: the latest heads are the latest snapshots without their
/// bodies, in id order; the items changed in the latest run are the
/// view's; every page of the trail, of any size, is the matching slice of
/// the view's trail reversed, with its total.
pub fn paged_reads_equal_the_whole_view(make: Factory<'_>) {
    let mut runner = TestRunner::new(Config {
        cases: cases(24),
        ..Config::default()
    });
    let make = std::cell::RefCell::new(make);
    let result = runner.run(&histories(), |runs| {
        let mut store = (make.borrow_mut())();
        let key = store.ensure_repository(&group(), &tracked()).unwrap();
        commit_histories(&mut *store, key, &runs);
        let view = store.repository_view(key).unwrap().unwrap();

        let mut heads = Vec::new();
        store
            .each_latest_head(key, &mut |id, s, _| {
                heads.push((id, s));
                Ok(())
            })
            .unwrap();
        let expected: Vec<(String, ItemSnapshot)> = view
            .items
            .iter()
            .map(|(id, s)| {
                let mut s = s.clone();
                s.text.clear();
                (id.clone(), s)
            })
            .collect();
        prop_assert_eq!(heads, expected);
        prop_assert_eq!(
            store.changed_in_latest(key).unwrap(),
            view.changed_in_latest.clone()
        );

        let newest_first: Vec<_> = view.trail.iter().rev().cloned().collect();
        for limit in [1u64, 3, 100] {
            let mut offset = 0;
            loop {
                let (total, page) = store.trail_page(key, offset, limit).unwrap();
                prop_assert_eq!(total, newest_first.len() as u64);
                let from = (offset as usize).min(newest_first.len());
                let to = ((offset + limit) as usize).min(newest_first.len());
                prop_assert_eq!(&page[..], &newest_first[from..to]);
                if to == newest_first.len() {
                    break;
                }
                offset += limit;
            }
        }
        Ok(())
    });
    if let Err(e) = result {
        panic!("{e}");
    }
}

/// Issue 17: the texts a store's index gives for a query hold every text
/// that contains it case-insensitively (its candidates may hold more), the
/// index follows new texts and purges, and queries it cannot narrow are
/// `None`.
pub fn text_search_candidates_hold_every_match(make: Factory<'_>) {
    let mut store = make();
    let key = store.ensure_repository(&group(), &tracked()).unwrap();
    let texts = [
        "Crash when loading a Q4 model",
        "crash? no: a CRASHING test, 100% of runs",
        "Tabs\tand new\nlines, \"quotes\", back\\slash and 50% off_road",
        "Überprüfung der Größe: ÄÖÜ",
        "nothing to see here",
        "",
    ];
    let mut at = ts("2026-11-20T10:00:00Z");
    for round in 0..2 {
        let observed: Vec<ItemSnapshot> = texts
            .iter()
            .enumerate()
            .map(|(k, text)| {
                let mut s = issue(&k.to_string());
                s.title = format!("Item {k} round {round}");
                s.text = format!("{text} (round {round})");
                s
            })
            .collect();
        let commit = run_of(&*store, key, at, observed, 1);
        store.commit_run(key, &commit).unwrap();
        at += SignedDuration::from_hours(1);
    }
    let mut latest = Vec::new();
    store
        .each_latest_head(key, &mut |id, _, ids| {
            latest.push((id, ids));
            Ok(())
        })
        .unwrap();
    let full = store.latest_snapshots(key).unwrap();
    let queries = [
        "crash",
        "CRASH",
        "q4 model",
        "100%",
        "50% off",
        "off_road",
        "\"quotes\"",
        "back\\",
        "tabs\tand",
        "round 1",
        "round 0",
        "item 3 round",
        "no such text",
        "größe",
        "ab",
        "",
    ];
    for q in queries {
        let q = q.to_lowercase();
        let found = store.texts_matching(&q).unwrap();
        if !crate::searchable(&q) {
            assert_eq!(found, None, "{q:?} cannot be narrowed");
            continue;
        }
        let Some(found) = found else {
            continue; // a store without a text index
        };
        for (id, ids) in &latest {
            let item = &full[id];
            if item.title.to_lowercase().contains(&q) {
                assert!(found.contains(&ids.head), "{q:?} in the title of {id}");
            }
            if item.text.to_lowercase().contains(&q) {
                assert!(found.contains(&ids.body), "{q:?} in the body of {id}");
            }
        }
        if q == "round 0" {
            // The first round's bodies are no item's latest, but their
            // texts are still stored, and found.
            assert!(!found.is_empty());
        }
    }
    // A purge takes its texts out of the index.
    store.purge_repository(key).unwrap();
    if let Some(found) = store.texts_matching("crash").unwrap() {
        assert!(found.is_empty(), "{found:?}");
    }
}

/// Over random runs (issues commented, closed, relabelled) and random
/// rules, some runs refused (out of order): the outbox holds exactly the
/// messages `signals_core::notify::messages` made for the committed runs,
/// one per (rule, run) that matched anything, each with its payload, in
/// the state its rule asks for. With core's property test (messages equal
/// a reference filter), the outbox equals the reference.
pub fn the_outbox_holds_exactly_the_messages_of_committed_runs(make: Factory<'_>) {
    use crate::outbox::MessageState;
    use signals_core::notify::{Outgoing, Rule, RuleRef, RunInput, Trigger, messages};
    let rules = || {
        (
            proptest::sample::subsequence(Trigger::ALL.to_vec(), 0..3),
            proptest::option::of(0u32..30),
            proptest::sample::subsequence(vec!["bug", "perf"], 0..2),
            any::<bool>(),
        )
            .prop_map(|(events, min, labels, held)| {
                let mut r = Rule::any("r");
                r.events = events;
                r.min_importance = min.map(f64::from);
                r.labels = labels.iter().map(|l| l.to_string()).collect();
                (r, held)
            })
    };
    let strategy = (
        proptest::collection::vec(rules(), 1..4),
        proptest::collection::vec(
            (
                proptest::collection::vec(
                    (0u8..8, any::<bool>(), any::<bool>(), any::<bool>()),
                    0..8,
                ),
                any::<bool>(),
            ),
            1..6,
        ),
    );
    let mut runner = TestRunner::new(Config {
        cases: cases(24),
        ..Config::default()
    });
    let make = std::cell::RefCell::new(make);
    let result = runner.run(&strategy, |(rules, runs)| {
        let rules: Vec<(Rule, bool)> = rules
            .into_iter()
            .enumerate()
            .map(|(i, (r, held))| {
                (
                    Rule {
                        name: format!("r{i}"),
                        ..r
                    },
                    held,
                )
            })
            .collect();
        let refs: Vec<RuleRef<'_>> = rules
            .iter()
            .map(|(rule, held)| RuleRef { rule, held: *held })
            .collect();
        let mut store = (make.borrow_mut())();
        let key = store.ensure_repository(&group(), &tracked()).unwrap();
        let weights = signals_core::importance::Weights::default();
        let mut comments: HashMap<u8, u64> = HashMap::new();
        let mut expected: Vec<Outgoing> = Vec::new();
        let start = ts("2026-11-01T00:00:00Z");
        for (i, (run, refused)) in runs.iter().enumerate() {
            let observed: Vec<ItemSnapshot> = run
                .iter()
                .map(|&(k, comment, close, perf)| {
                    let c = comments.entry(k).or_insert(0);
                    if comment {
                        *c += 1;
                    }
                    let mut s = issue(&k.to_string());
                    s.metrics.comments = *c;
                    if close {
                        s.state = ItemState::Closed;
                    }
                    if perf {
                        s.labels = vec!["perf".into()];
                    }
                    s
                })
                .collect();
            let at = start + SignedDuration::from_hours(i as i64);
            // A refused run is one out of order: before the last commit.
            let at = if *refused && i > 0 {
                start - SignedDuration::from_hours(1)
            } else {
                at
            };
            let mut commit = run_of(&*store, key, at, observed, 1);
            commit.messages = messages(
                &refs,
                &RunInput {
                    group: &group(),
                    repo: &tracked(),
                    repo_url: "https://github.com/o/n",
                    collected_at: at,
                    first_run: i == 0,
                    events: &commit.events,
                    snapshots: &commit.snapshots,
                    weights: &weights,
                    link: None,
                },
            );
            if store.commit_run(key, &commit).is_ok() {
                expected.extend(commit.messages);
            }
        }
        let mut stored: Vec<(String, String, bool, String)> = Vec::new();
        for (state, held) in [(MessageState::Pending, false), (MessageState::Held, true)] {
            for m in store.outbox_messages(state, None).unwrap() {
                stored.push((
                    m.delivery,
                    m.rule,
                    held,
                    serde_json::to_string(&m.payload).unwrap(),
                ));
            }
        }
        stored.sort();
        let mut want: Vec<(String, String, bool, String)> = expected
            .into_iter()
            .map(|m| {
                (
                    m.delivery,
                    m.rule,
                    m.held,
                    serde_json::to_string(&m.payload).unwrap(),
                )
            })
            .collect();
        want.sort();
        prop_assert_eq!(stored, want);
        Ok(())
    });
    if let Err(e) = result {
        panic!("{e}");
    }
}

fn known(full_name: &str, id: &str, state: &str, at: Timestamp) -> signals_core::owners::Known {
    signals_core::owners::Known {
        full_name: RepoName::parse(full_name).unwrap(),
        repo_id: id.into(),
        state: signals_core::owners::State::parse(state).unwrap(),
        since: at,
        first_seen: at,
        host_id: None,
        tracked_as: None,
        renamed_at: None,
    }
}

fn stats(requests: u64, not_modified: u64) -> RequestStats {
    RequestStats {
        requests,
        not_modified,
        bytes_received: 100 * (requests - not_modified),
        ..RequestStats::default()
    }
}

/// An owner's listing is taken on once per interval; its repositories
/// are kept with their states and ids, gone ones included, and the cost
/// of its listings is added up; a failed listing leaves them as they were.
/// Host ids, the name a renamed repository's ids keep and when it was
/// renamed round-trip, and two rows may share a name (a rename onto a
/// gone repository's name).
pub fn owners_keep_their_repositories_and_are_claimed_once_per_interval(make: Factory<'_>) {
    let mut store = make();
    let g = group();
    let owner = crate::OwnerRef {
        group: &g,
        host: "github",
        owner: "org",
    };
    let t1 = ts("2026-11-20T10:00:00Z");
    let hour = SignedDuration::from_hours(1);
    assert!(store.owner_claim(owner, t1, hour).unwrap());
    // Claimed a moment ago (by the store's clock on PostgreSQL): not again
    // within the hour, by this worker or another.
    assert!(!store.owner_claim(owner, t1, hour).unwrap());
    // Zero: every collection lists (one process owns a SQLite store).
    assert!(store.owner_claim(owner, t1, SignedDuration::ZERO).unwrap());
    assert!(store.owner_repos(&g.id).unwrap().is_empty());
    // org/b as stored before host ids were read.
    let mut first = [
        known("org/a", "a", "tracked", t1),
        known("org/b", "b", "tracked", t1),
    ];
    first[0].host_id = Some(1);
    store.owner_listed(owner, t1, &first, &stats(1, 0)).unwrap();
    let t2 = ts("2026-11-20T11:00:00.5Z");
    let mut second = first.to_vec();
    second[0].state = signals_core::owners::State::Gone;
    second[0].since = t2;
    // Renamed onto the gone one's name: two rows share it, told apart by
    // their ids; its signal ids keep the name it was first tracked under.
    second[1].full_name = RepoName::parse("org/a").unwrap();
    second[1].host_id = Some(2);
    second[1].tracked_as = Some(RepoName::parse("org/b").unwrap());
    second[1].renamed_at = Some(t2);
    let mut c = known("org/C", "c", "tracked", t2);
    c.host_id = Some(i64::MAX as u64);
    second.push(c);
    assert!(store.owner_claim(owner, t2, SignedDuration::ZERO).unwrap());
    store
        .owner_listed(owner, t2, &second, &stats(2, 2))
        .unwrap();
    let repos: Vec<_> = store
        .owner_repos(&g.id)
        .unwrap()
        .into_iter()
        .map(|r| (r.host, r.owner, r.known))
        .collect();
    let mut want: Vec<_> = second
        .iter()
        .map(|k| ("github".to_string(), "org".to_string(), k.clone()))
        .collect();
    want.sort_by_key(|(_, _, k)| (k.full_name.to_string(), k.repo_id.clone()));
    assert_eq!(repos, want);
    assert_eq!(repos[2].2.ids_name().to_string(), "org/b");
    store
        .owner_failed(owner, ts("2026-11-20T12:00:00Z"), "500 from the host")
        .unwrap();
    assert_eq!(store.owner_repos(&g.id).unwrap().len(), 3);
    let status = store.owners_status().unwrap();
    assert_eq!(status.len(), 1);
    let o = &status[0];
    assert_eq!(
        (o.group_id.as_str(), o.host.as_str(), o.owner.as_str()),
        ("engines", "github", "org")
    );
    assert_eq!(o.listed_at, Some(t2));
    assert_eq!(o.listings, 2);
    assert_eq!((o.last.requests, o.last.not_modified), (2, 2));
    assert_eq!(
        (
            o.totals.requests,
            o.totals.not_modified,
            o.totals.bytes_received
        ),
        (3, 2, 100)
    );
    assert_eq!(
        o.failure,
        Some((ts("2026-11-20T12:00:00Z"), "500 from the host".to_string()))
    );
    assert_eq!(o.repos.len(), 3);
    // A success clears the failure.
    assert!(store.owner_claim(owner, t2, SignedDuration::ZERO).unwrap());
    store
        .owner_listed(owner, t2, &second, &stats(1, 1))
        .unwrap();
    let back = store.owners_status().unwrap();
    assert_eq!(back[0].failure, None);
    assert_eq!(
        back[0].repos,
        want.iter().map(|(_, _, k)| k.clone()).collect::<Vec<_>>()
    );
    // A host id no column holds (no host sends one) is kept as unknown
    // rather than failing the listing.
    let mut odd = second.clone();
    odd[2].host_id = Some(u64::MAX);
    assert!(store.owner_claim(owner, t2, SignedDuration::ZERO).unwrap());
    store.owner_listed(owner, t2, &odd, &stats(1, 1)).unwrap();
    let c = store.owner_repos(&g.id).unwrap().remove(0).known;
    assert_eq!(
        (c.full_name.to_string(), c.host_id),
        ("org/C".to_string(), None)
    );
    // Another group's owners are its own.
    assert!(store.owner_repos("other").unwrap().is_empty());
}

/// Issue 17, part 5: the compact rows (timestamps as seconds and
/// nanoseconds, labels, assignees and detail as shared texts, events as
/// integers numbered in signal id order) give back every value exactly,
/// whatever order a run's events come in; and a purge keeps the texts
/// another repository still uses while removing those only it used.
pub fn compact_rows_keep_every_value_and_the_trail_order(make: Factory<'_>) {
    let mut store = make();
    let key = store.ensure_repository(&group(), &tracked()).unwrap();
    let other = TrackedRepo {
        id: "m".into(),
        ..tracked()
    };
    let key2 = store.ensure_repository(&group(), &other).unwrap();
    let t1 = ts("2026-11-20T10:00:00Z");
    let mut odd = issue("10");
    odd.updated_at = ts("1969-12-31T23:59:59.000000007Z");
    odd.closed_at = Some(ts("9999-12-30T22:00:00.999999999Z"));
    odd.state = ItemState::Closed;
    odd.labels = vec!["only here".into(), "bug".into()];
    odd.assignees = vec!["dev".into()];
    odd.detail = ItemDetail::PullRequest {
        draft: false,
        merged: true,
        merged_at: Some(ts("2026-11-19T00:00:00.5Z")),
    };
    let items = vec![issue("9"), odd.clone(), issue("100")];
    let mut run = run_of(&*store, key, t1, items.clone(), 1);
    // Events in an order other than the ids' (the trail orders them).
    run.events.reverse();
    run.snapshots.reverse();
    store.commit_run(key, &run).unwrap();
    let run2 = run_of(&*store, key2, t1, vec![issue("9")], 1);
    store.commit_run(key2, &run2).unwrap();

    let latest = store.latest_snapshots(key).unwrap();
    for item in &items {
        assert_eq!(latest.get(&id(item)), Some(item), "{}", id(item));
    }
    let mut ids: Vec<String> = items.iter().map(id).collect();
    ids.sort();
    let view = store.repository_view(key).unwrap().unwrap();
    let trail: Vec<String> = view.trail.iter().map(|e| e.item_id.clone()).collect();
    assert_eq!(trail, ids);
    let paged: Vec<String> = (0..3)
        .map(|i| store.trail_page(key, i, 1).unwrap().1[0].item_id.clone())
        .collect();
    ids.reverse();
    assert_eq!(paged, ids);

    // A change of reactions only: a new snapshot, its event names metrics.
    let mut bumped = odd.clone();
    bumped.metrics.reactions += 1;
    let t2 = ts("2026-11-21T10:00:00Z");
    let run = run_of(&*store, key, t2, vec![bumped.clone()], 1);
    store.commit_run(key, &run).unwrap();
    let (_, page) = store.trail_page(key, 0, 1).unwrap();
    assert_eq!(
        (page[0].item_id.as_str(), page[0].detail.as_str()),
        (id(&odd).as_str(), "metrics")
    );
    let history = store.snapshot_history(key, &id(&odd)).unwrap();
    let history: Vec<ItemSnapshot> = history.into_iter().map(|(_, s)| s).collect();
    assert_eq!(history, [odd, bumped]);

    // Texts only the purged repository used go; shared ones stay.
    let texts_of = |items: &[ItemSnapshot]| -> HashSet<String> {
        items
            .iter()
            .flat_map(|i| {
                let parts = crate::Parts::split(std::path::Path::new("x"), i).unwrap();
                parts.texts().map(str::to_string)
            })
            .collect()
    };
    let kept = texts_of(&[issue("9")]);
    let mine = texts_of(
        &store
            .latest_snapshots(key)
            .unwrap()
            .into_values()
            .collect::<Vec<_>>(),
    );
    let gone = mine.difference(&kept).count() as u64;
    let count = |s: &dyn Backend| {
        s.table_counts()
            .unwrap()
            .into_iter()
            .find(|(t, _)| *t == "texts")
            .unwrap()
            .1
    };
    let before = count(&*store);
    let view2 = store.repository_view(key2).unwrap();
    store.purge_repository(key).unwrap();
    assert_eq!(count(&*store), before - gone);
    assert_eq!(store.repository_view(key2).unwrap(), view2);
}
