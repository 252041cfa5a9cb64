//! Checks of [`crate::RunWrites`]: a run committed and read back, refused
//! commits and failures that change nothing else, registration, purges,
//! and the compact rows a commit writes.

use std::collections::{BTreeMap, HashMap, HashSet};

use jiff::Timestamp;
use signals_core::run::ItemEvent;
use signals_core::{
    EventKind, ItemDetail, ItemSnapshot, ItemState, News, Observation, RepoName, TrackedField,
    TrackedRepo,
};

use super::*;
use crate::{Backend, RateLimit, RepoKey, StoreError};

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
    // One repository by its ids is the list's entry, and a purged or
    // unknown one is none.
    for s in &list {
        let one = store.repository(&s.group.id, &s.repo.id).unwrap();
        assert_eq!(
            one.map(|o| (o.key, o.group, o.repo)),
            Some((s.key, s.group.clone(), s.repo.clone()))
        );
    }
    assert!(
        store
            .repository(&list[0].group.id, "Zed")
            .unwrap()
            .is_none()
    );
    assert!(
        store
            .repository("no-such-group", &list[0].repo.id)
            .unwrap()
            .is_none()
    );
    // Ordered by group id, then repository id.
    assert_eq!(list[0].repo, other);
    assert_eq!(list[1].repo, repo);
    assert_eq!(list[1].group, renamed_group);
    assert_eq!(list[1].run_count, 0);
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
    // Issue #1's head and its body were used by nothing else.
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

/// The host's close time is kept with each snapshot, and a reopened item
/// has none again.
pub fn close_times_round_trip(make: Factory<'_>) {
    let mut store = make();
    let key = store.ensure_repository(&group(), &tracked()).unwrap();
    let mut closed = issue("1");
    closed.state = ItemState::Closed;
    closed.closed_at = Some(ts("2026-11-19T08:30:00Z"));
    closed.updated_at = ts("2026-11-19T08:30:00Z");
    // How it was closed is kept with the snapshot, and goes with a reopen.
    closed.detail = ItemDetail::Issue {
        closed_as: Some(signals_core::ClosedAs::Duplicate),
        duplicate_of: Some("github.com/o/n#2".into()),
    };
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
    assert_eq!(latest[&id(&closed)].detail, closed.detail);

    let mut reopened = closed.clone();
    reopened.state = ItemState::Open;
    reopened.closed_at = None;
    reopened.detail = ItemDetail::issue();
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
    assert_eq!(history[0].1.detail, closed.detail);
    assert_eq!(history[1].1.detail, ItemDetail::issue());
}

/// The compact rows (timestamps as seconds and
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
        association: None,
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
        .map(|i| {
            store.trail_page(key, i, 1).unwrap().events[0]
                .item_id
                .clone()
        })
        .collect();
    ids.reverse();
    assert_eq!(paged, ids);

    // A change of reactions only: a new snapshot, its event names metrics.
    let mut bumped = odd.clone();
    bumped.metrics.reactions += 1;
    let t2 = ts("2026-11-21T10:00:00Z");
    let run = run_of(&*store, key, t2, vec![bumped.clone()], 1);
    store.commit_run(key, &run).unwrap();
    let page = store.trail_page(key, 0, 1).unwrap().events;
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
