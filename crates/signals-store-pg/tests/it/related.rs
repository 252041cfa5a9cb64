//! Related items on PostgreSQL: a store from before migration 0022 opens,
//! migrates, and has every issue pending for its first catch-up; one from
//! before 0023 opens with no gone mark and marks its next reconcile's.

use signals_store::suite::{group, issue, run_of, tracked, ts};
use signals_store::{RelatedStore, RunWrites};
use signals_store_pg::PgStore;

use crate::cluster;

#[test]
fn a_store_from_before_related_items_migrates_with_everything_pending() {
    let Some(cluster) = cluster() else { return };
    let url = cluster.create_database("related0022").unwrap();
    let key = {
        let mut before = PgStore::open_before(&url, 21).unwrap();
        let key = before.ensure_repository(&group(), &tracked()).unwrap();
        let run = run_of(
            &before,
            key,
            ts("2026-11-20T10:00:00Z"),
            vec![issue("1")],
            1,
        );
        before.commit_run(key, &run).unwrap();
        key
    };
    let store = PgStore::open(&url).unwrap();
    assert_eq!(store.related_through(key).unwrap(), 0);
    assert_eq!(store.related_pending(&group().id, 0, 10).unwrap().len(), 1);
    assert!(store.related_vectors(&group().id).unwrap().is_empty());
}

#[test]
fn a_store_from_before_gone_marks_migrates_and_marks_the_next_gone_items() {
    let Some(cluster) = cluster() else { return };
    let url = cluster.create_database("related0023").unwrap();
    let one = issue("1");
    let key = {
        let mut before = PgStore::open_before(&url, 22).unwrap();
        assert_eq!(before.schema_version().unwrap(), 22);
        let key = before.ensure_repository(&group(), &tracked()).unwrap();
        let at = ts("2026-11-20T10:00:00Z");
        let run = run_of(&before, key, at, vec![one.clone(), issue("2")], 1);
        before.commit_run(key, &run).unwrap();
        key
    };
    let mut store = PgStore::open(&url).unwrap();
    assert!(store.schema_version().unwrap() > 22);
    signals_store::suite::a_migrated_store_marks_the_next_gone_items(&mut store, key, &one);
}

/// Two workers writing the same group's lists at once: before, both
/// deleted and inserted an item's rows and the second failed on the
/// primary key. Now one writes, the other is told to read again; neither
/// fails, and the lists are one catch-up's, whole.
#[test]
fn two_catch_ups_of_a_group_at_once_never_fail_and_never_interleave() {
    use signals_store::Linked;
    use signals_store::related::{Applied, RelatedEntry, RelatedUpdate};

    let Some(cluster) = cluster() else { return };
    let url = cluster.create_database("related_race").unwrap();
    let mut store = PgStore::open(&url).unwrap();
    let key = store.ensure_repository(&group(), &tracked()).unwrap();
    let update = |score: f64, through: i64| {
        let item = |n: usize| Linked {
            id: format!("github:o/r:issue:{n}"),
            repo: key,
        };
        RelatedUpdate {
            group: group().id,
            expected: vec![(key, 0)],
            lists: (0..200)
                .map(|n| {
                    let list = (1..6)
                        .map(|k| RelatedEntry {
                            item: item(n + k * 1000),
                            open: true,
                            score,
                            shared: vec!["w".into()],
                        })
                        .collect();
                    (item(n), list)
                })
                .collect(),
            through: vec![(key, through)],
            ..RelatedUpdate::default()
        }
    };
    let barrier = std::sync::Barrier::new(2);
    let results: Vec<Applied> = std::thread::scope(|scope| {
        let handles: Vec<_> = [(0.5, 5), (0.9, 6)]
            .into_iter()
            .map(|(score, through)| {
                let (url, barrier, update) = (&url, &barrier, update(score, through));
                scope.spawn(move || {
                    let mut worker = PgStore::open(url).unwrap();
                    barrier.wait();
                    worker.related_apply(&update).unwrap()
                })
            })
            .collect();
        handles.into_iter().map(|h| h.join().unwrap()).collect()
    });
    let written = results.iter().filter(|r| **r == Applied::Written).count();
    assert_eq!(written, 1, "{results:?}");
    assert!(results.contains(&Applied::Moved), "{results:?}");
    let through = store.related_through(key).unwrap();
    let score = if through == 5 { 0.5 } else { 0.9 };
    let ids: Vec<String> = (0..200).map(|n| format!("github:o/r:issue:{n}")).collect();
    let lists = store.related_of(key, &ids).unwrap();
    assert_eq!(lists.len(), 200);
    for list in lists.values() {
        assert_eq!(list.len(), 5);
        assert!(list.iter().all(|e| e.score == score), "{list:?}");
    }
}

/// A catch-up that enters a group waits for the one that entered before
/// it, and goes on as soon as that one leaves; entering nests, and holds
/// up no other group.
#[test]
fn a_catch_up_entering_a_group_waits_for_the_one_inside() {
    use std::sync::mpsc;
    use std::time::Duration;

    let Some(cluster) = cluster() else { return };
    let url = cluster.create_database("related_enter").unwrap();
    let first = PgStore::open(&url).unwrap();
    first.related_enter("g").unwrap();
    first.related_enter("g").unwrap();
    let (entered, told) = mpsc::channel();
    std::thread::scope(|scope| {
        scope.spawn(|| {
            let second = PgStore::open(&url).unwrap();
            // Another group is not held up.
            second.related_enter("h").unwrap();
            second.related_leave("h").unwrap();
            entered.send("h").unwrap();
            second.related_enter("g").unwrap();
            entered.send("g").unwrap();
            second.related_leave("g").unwrap();
        });
        assert_eq!(told.recv_timeout(Duration::from_secs(30)), Ok("h"));
        assert!(told.recv_timeout(Duration::from_millis(500)).is_err());
        // Entered twice: one leave still holds it.
        first.related_leave("g").unwrap();
        assert!(told.recv_timeout(Duration::from_millis(500)).is_err());
        first.related_leave("g").unwrap();
        assert_eq!(told.recv_timeout(Duration::from_secs(30)), Ok("g"));
    });
    assert!(first.take_notices().is_empty());
}
