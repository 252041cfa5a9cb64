//! Checks of [`crate::Reads`]: the totals of `signals status` and what
//! plans a reconcile.

use signals_core::ItemState;

use super::*;
use crate::Backend;

/// Health and metrics read these: items, events and requests
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

/// A reconcile is planned from the first run and the latest
/// reconcile run, and looks for the open issues and pull requests the host
/// no longer lists (closed ones and releases are not looked for).
pub fn reconcile_marks_and_open_items_plan_a_reconcile(make: Factory<'_>) {
    let mut store = make();
    let key = store.ensure_repository(&group(), &tracked()).unwrap();
    assert_eq!(
        store
            .reconcile_marks(key)
            .map(|m| (m.first_run, m.last_reconcile))
            .unwrap(),
        (None, None)
    );
    assert!(store.open_item_ids(key).unwrap().is_empty());
    let t1 = ts("2026-11-20T10:00:00Z");
    let mut closed = issue("2");
    closed.state = ItemState::Closed;
    closed.closed_at = Some(t1);
    let run = run_of(&*store, key, t1, vec![issue("1"), closed, issue("3")], 1);
    store.commit_run(key, &run).unwrap();
    assert_eq!(
        store
            .reconcile_marks(key)
            .map(|m| (m.first_run, m.last_reconcile))
            .unwrap(),
        (Some(t1), None)
    );
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
    assert_eq!(
        store
            .reconcile_marks(key)
            .map(|m| (m.first_run, m.last_reconcile))
            .unwrap(),
        (Some(t1), Some(t2))
    );
    let status = store.status().unwrap();
    assert_eq!(status.repositories[0].last_reconcile, Some(t2));
}

/// The kept count of open pull requests: none until a run
/// keeps one; each run's count replaces it and a run that keeps none
/// leaves it; a difference a reconcile found is recorded and ends it,
/// and stays recorded after later runs. Another repository's count is
/// its own.
pub fn the_kept_count_of_open_pulls_is_written_by_runs(make: Factory<'_>) {
    use crate::{KeptPulls, PullsKept};
    let mut store = make();
    let key = store.ensure_repository(&group(), &tracked()).unwrap();
    let other = store
        .ensure_repository(
            &group(),
            &TrackedRepo {
                id: "other".into(),
                repo: RepoName::parse("o/other").unwrap(),
                ..tracked()
            },
        )
        .unwrap();
    assert_eq!(store.kept_pulls(key).unwrap(), PullsKept::default());
    let at = |h: u32| ts(&format!("2026-11-20T{h:02}:00:00Z"));
    let mut run = run_of(&*store, key, at(1), vec![issue("1")], 1);
    run.open_pulls = KeptPulls::Count(7);
    store.commit_run(key, &run).unwrap();
    assert_eq!(store.kept_pulls(key).unwrap().count, Some(7));
    let mut run = run_of(&*store, key, at(2), vec![], 1);
    run.open_pulls = KeptPulls::Count(0);
    store.commit_run(key, &run).unwrap();
    assert_eq!(store.kept_pulls(key).unwrap().count, Some(0));
    let mut run = run_of(&*store, key, at(3), vec![], 1);
    run.open_pulls = KeptPulls::Count(3);
    store.commit_run(key, &run).unwrap();
    // A run that keeps none leaves the count as it was.
    store
        .commit_run(key, &run_of(&*store, key, at(4), vec![], 1))
        .unwrap();
    assert_eq!(store.kept_pulls(key).unwrap().count, Some(3));
    assert_eq!(store.kept_pulls(other).unwrap(), PullsKept::default());
    let mut reconcile = run_of(&*store, key, at(5), vec![], 1);
    reconcile.reconciled = true;
    reconcile.open_pulls = KeptPulls::Differed { kept: 3, host: 4 };
    store.commit_run(key, &reconcile).unwrap();
    let differed = PullsKept {
        count: None,
        differed: Some(format!("kept 3, host 4 at {}", at(5))),
    };
    assert_eq!(store.kept_pulls(key).unwrap(), differed);
    store
        .commit_run(key, &run_of(&*store, key, at(6), vec![], 1))
        .unwrap();
    assert_eq!(store.kept_pulls(key).unwrap(), differed);
    // A run refused leaves the count as it was.
    let mut late = run_of(&*store, key, at(6), vec![], 1);
    late.open_pulls = KeptPulls::Count(9);
    assert!(store.commit_run(key, &late).is_err());
    assert_eq!(store.kept_pulls(key).unwrap(), differed);
}

/// A repository's advisories: the latest snapshot of each item of kind
/// `advisory`, in id order, withdrawn ones too; none of them is an open
/// item a reconcile would close.
pub fn advisories_read_back_with_their_latest_snapshot(make: Factory<'_>) {
    use signals_core::advisories::open_advisories;
    use signals_core::{ItemDetail, Severity};
    let mut store = make();
    let key = store.ensure_repository(&group(), &tracked()).unwrap();
    let advisory = |ghsa: &str, severity: Severity, withdrawn: Option<&str>| {
        let mut a = issue(ghsa);
        a.url = format!("https://github.com/o/n/security/advisories/{ghsa}");
        a.state = match withdrawn {
            None => ItemState::Open,
            Some(_) => ItemState::Closed,
        };
        a.detail = ItemDetail::Advisory {
            severity: Some(severity),
            cvss_score: signals_core::CvssScore::from_f64(7.5),
            cve_id: None,
            published_at: ts("2026-10-01T00:00:00Z"),
            withdrawn_at: withdrawn.map(ts),
        };
        a
    };
    let first = vec![
        advisory("GHSA-aaaa-bbbb-cccc", Severity::High, None),
        advisory(
            "GHSA-dddd-eeee-ffff",
            Severity::Low,
            Some("2026-10-02T00:00:00Z"),
        ),
        issue("1"),
    ];
    let run = run_of(&*store, key, ts("2026-11-01T10:00:00Z"), first, 1);
    store.commit_run(key, &run).unwrap();
    let mut raised = advisory("GHSA-aaaa-bbbb-cccc", Severity::Critical, None);
    raised.updated_at = ts("2026-11-02T00:00:00Z");
    let run = run_of(
        &*store,
        key,
        ts("2026-11-02T10:00:00Z"),
        vec![raised.clone()],
        1,
    );
    store.commit_run(key, &run).unwrap();
    let read = store.advisories(key).unwrap();
    assert_eq!(read.len(), 2);
    assert_eq!(read[0], raised);
    let open = open_advisories(&read);
    assert_eq!((open.critical, open.high, open.low), (1, 0, 0));
    assert_eq!(store.open_item_ids(key).unwrap(), vec![id(&issue("1"))]);
}

/// What a store migrated from before `0020_advisories_downloads` takes:
/// an advisory beside the items it held (`key` holds one issue, committed
/// before the migration), and download counts.
pub fn a_migrated_store_takes_advisories_and_downloads(store: &mut dyn Backend, key: RepoKey) {
    use signals_core::{AssetCount, ItemDetail, Severity};
    let mut a = issue("GHSA-aaaa-bbbb-cccc");
    a.detail = ItemDetail::Advisory {
        severity: Some(Severity::Medium),
        cvss_score: None,
        cve_id: Some("CVE-2026-0001".into()),
        published_at: ts("2026-11-01T00:00:00Z"),
        withdrawn_at: None,
    };
    let mut run = run_of(store, key, ts("2026-12-01T10:00:00Z"), vec![a.clone()], 1);
    run.downloads = vec![AssetCount {
        asset: "7".into(),
        count: 12,
    }];
    store.commit_run(key, &run).unwrap();
    assert_eq!(store.advisories(key).unwrap(), vec![a]);
    assert_eq!(store.open_item_ids(key).unwrap(), vec![id(&issue("1"))]);
    let seen = store
        .asset_sightings(key, ts("2026-12-01T00:00:00Z"))
        .unwrap();
    assert_eq!(seen.len(), 1);
    assert_eq!((seen[0].asset.as_str(), seen[0].count), ("7", 12));
}
