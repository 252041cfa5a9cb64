//! Concurrent writers on one PostgreSQL store: commits that
//! share texts never deadlock, a deadlock forced from outside is retried,
//! a connection lost in the middle of a commit is restored and the run
//! written once, and a purge never deletes a text a commit is about to
//! reference, and a commit whose prepared statements went stale is
//! retried. Real server (signals-testpg); skipped without PostgreSQL
//! unless SIGNALS_REQUIRE_POSTGRES=1.

use std::sync::{Arc, Barrier};
use std::thread;
use std::time::{Duration, Instant};

use jiff::SignedDuration;
use signals_core::{ItemSnapshot, TrackedRepo};
use signals_store::suite::{WholeReads, group, issue, run_of, tracked, ts};
use signals_store::{RepoKey, RunWrites};
use signals_store_pg::PgStore;

use crate::cluster;

fn repo(id: &str) -> TrackedRepo {
    TrackedRepo {
        id: id.into(),
        ..tracked()
    }
}

/// `n` new items whose bodies are `bodies`, in that order.
fn items(prefix: &str, bodies: &[String]) -> Vec<ItemSnapshot> {
    bodies
        .iter()
        .enumerate()
        .map(|(i, b)| {
            let mut item = issue(&format!("{prefix}{i}"));
            item.text = b.clone();
            item
        })
        .collect()
}

fn admin(url: &str) -> postgres::Client {
    postgres::Client::connect(url, postgres::NoTls).unwrap()
}

/// Counts of snapshots whose head or body text is missing (must be 0).
fn dangling(url: &str) -> i64 {
    admin(url)
        .query_one(
            "SELECT count(*) FROM snapshots s
             WHERE NOT EXISTS (SELECT 1 FROM texts t WHERE t.id = s.head)
                OR NOT EXISTS (SELECT 1 FROM texts t WHERE t.id = s.body)",
            &[],
        )
        .unwrap()
        .get(0)
}

#[test]
fn commits_sharing_new_texts_in_opposite_orders_never_deadlock() {
    let Some(cluster) = cluster() else { return };
    let url = cluster.create_database("opposite").unwrap();
    let writers = 4;
    let rounds = 25;
    let barrier = Arc::new(Barrier::new(writers));
    let handles: Vec<_> = (0..writers)
        .map(|w| {
            let (url, barrier) = (url.clone(), barrier.clone());
            thread::spawn(move || {
                let mut store = PgStore::open(&url).unwrap();
                let key = store
                    .ensure_repository(&group(), &repo(&format!("w{w}")))
                    .unwrap();
                for round in 0..rounds {
                    // 60 new texts a round, shared by every writer, each
                    // writer listing them in its own order.
                    let mut bodies: Vec<String> = (0..60)
                        .map(|i| format!("shared body {round}-{i}"))
                        .collect();
                    match w % 3 {
                        0 => {}
                        1 => bodies.reverse(),
                        _ => bodies.rotate_left(17 * w),
                    }
                    let at = ts("2026-11-20T10:00:00Z") + SignedDuration::from_mins(round);
                    let run = run_of(&store, key, at, items(&format!("r{round}-"), &bodies), 1);
                    barrier.wait();
                    store
                        .commit_run(key, &run)
                        .unwrap_or_else(|e| panic!("writer {w}: {e}"));
                }
                store.take_notices()
            })
        })
        .collect();
    let notices: Vec<String> = handles
        .into_iter()
        .flat_map(|h| h.join().unwrap())
        .collect();
    let log = cluster.log();
    assert_eq!(log.matches("deadlock detected").count(), 0, "{log}");
    assert!(
        notices.iter().all(|n| !n.contains("conflict")),
        "{notices:?}"
    );
    let texts: i64 = admin(&url)
        .query_one(
            "SELECT count(DISTINCT text) FROM texts WHERE text LIKE 'shared body %'",
            &[],
        )
        .unwrap()
        .get(0);
    assert_eq!(texts, 60 * rounds);
    assert_eq!(dangling(&url), 0);
}

/// A session that holds what a commit needs and then asks for what the
/// commit holds: the server aborts the commit (its deadlock check runs
/// first), and the store tries it again once the other session is done.
#[test]
fn a_deadlock_forced_from_outside_is_retried_and_the_run_committed() {
    let Some(cluster) = cluster() else { return };
    let url = cluster.create_database("forced").unwrap();
    let mut store = PgStore::open(&url).unwrap();
    let key = store.ensure_repository(&group(), &tracked()).unwrap();
    let run = run_of(&store, key, ts("2026-11-20T10:00:00Z"), vec![issue("1")], 1);

    let mut other = admin(&url);
    other
        .batch_execute("SET deadlock_timeout = '10s'; BEGIN; LOCK TABLE runs IN SHARE MODE")
        .unwrap();
    let raw = key.raw();
    let blocker = thread::spawn(move || {
        let mut watch = admin(&url);
        // Wait until the commit waits for the table lock, holding its row.
        let end = Instant::now() + Duration::from_secs(30);
        loop {
            let waiting: i64 = watch
                .query_one(
                    "SELECT count(*) FROM pg_stat_activity
                     WHERE wait_event_type = 'Lock' AND query LIKE 'INSERT INTO runs%'",
                    &[],
                )
                .unwrap()
                .get(0);
            if waiting > 0 {
                break;
            }
            assert!(Instant::now() < end, "the commit never waited for the lock");
            thread::sleep(Duration::from_millis(20));
        }
        // Now close the cycle: the commit holds this row.
        other
            .execute(
                "SELECT 1 FROM repositories WHERE key = $1 FOR UPDATE",
                &[&raw],
            )
            .unwrap();
        thread::sleep(Duration::from_millis(300));
        other.batch_execute("COMMIT").unwrap();
    });
    store.commit_run(key, &run).unwrap();
    blocker.join().unwrap();
    let log = cluster.log();
    assert!(log.contains("deadlock detected"), "{log}");
    let notices = store.take_notices();
    assert!(
        notices.iter().any(|n| n.contains("conflict")),
        "{notices:?}"
    );
    assert_eq!(store.repository_view(key).unwrap().unwrap().runs.len(), 1);
}

#[test]
fn a_connection_lost_in_the_middle_of_a_commit_is_restored_and_the_run_written_once() {
    let Some(cluster) = cluster() else { return };
    let url = cluster.create_database("lost").unwrap();
    let mut store = PgStore::open(&url).unwrap();
    let key = store.ensure_repository(&group(), &tracked()).unwrap();
    let run = run_of(
        &store,
        key,
        ts("2026-11-20T10:00:00Z"),
        vec![issue("1"), issue("2")],
        1,
    );

    let mut other = admin(&url);
    other
        .batch_execute("BEGIN; LOCK TABLE runs IN SHARE MODE")
        .unwrap();
    let killer = thread::spawn(move || {
        // Another session: statistics read inside a transaction stay as
        // they were at its first read.
        let mut watch = admin(&url);
        let end = Instant::now() + Duration::from_secs(30);
        let killed = loop {
            let n: i64 = watch
                .query_one(
                    "SELECT count(pg_terminate_backend(pid)) FROM pg_stat_activity
                     WHERE wait_event_type = 'Lock' AND query LIKE 'INSERT INTO runs%'",
                    &[],
                )
                .unwrap()
                .get(0);
            if n > 0 {
                break n;
            }
            assert!(Instant::now() < end, "the commit never waited for the lock");
            thread::sleep(Duration::from_millis(20));
        };
        other.batch_execute("ROLLBACK").unwrap();
        killed
    });
    store.commit_run(key, &run).unwrap();
    assert_eq!(killer.join().unwrap(), 1);
    let notices = store.take_notices();
    assert!(
        notices.iter().any(|n| n.contains("reconnected")),
        "{notices:?}"
    );
    assert_eq!(store.repository_view(key).unwrap().unwrap().runs.len(), 1);
    let view = store.repository_view(key).unwrap().unwrap();
    assert_eq!(view.items.len(), 2);
    assert_eq!(view.trail.len(), 2);
}

#[test]
fn a_purge_never_deletes_a_text_a_concurrent_commit_references() {
    let Some(cluster) = cluster() else { return };
    let url = cluster.create_database("purge").unwrap();
    let shared: Vec<String> = (0..40)
        .map(|i| format!("body shared with the purged {i}"))
        .collect();
    for attempt in 0..6 {
        // The repository to purge holds the shared texts ...
        let mut purger = PgStore::open(&url).unwrap();
        let doomed = purger
            .ensure_repository(&group(), &repo(&format!("doomed{attempt}")))
            .unwrap();
        let at = ts("2026-11-20T10:00:00Z") + SignedDuration::from_mins(attempt);
        let run = run_of(&purger, doomed, at, items("d", &shared), 1);
        purger.commit_run(doomed, &run).unwrap();
        // ... while three writers commit runs that use them too.
        let barrier = Arc::new(Barrier::new(4));
        let writers: Vec<_> = (0..3)
            .map(|w| {
                let (url, barrier, shared) = (url.clone(), barrier.clone(), shared.clone());
                thread::spawn(move || {
                    let mut store = PgStore::open(&url).unwrap();
                    let key: RepoKey = store
                        .ensure_repository(&group(), &repo(&format!("keep{attempt}-{w}")))
                        .unwrap();
                    let run = run_of(&store, key, at, items(&format!("k{w}-"), &shared), 1);
                    barrier.wait();
                    store.commit_run(key, &run).unwrap();
                    key
                })
            })
            .collect();
        barrier.wait();
        purger.purge_repository(doomed).unwrap();
        for w in writers {
            let key = w.join().unwrap();
            let view = purger.repository_view(key).unwrap().unwrap();
            assert_eq!(view.items.len(), 40);
            assert!(
                view.items
                    .values()
                    .all(|s| s.text.starts_with("body shared"))
            );
        }
        assert_eq!(dangling(&url), 0);
    }
}

/// The session prepares a commit's statements once; when the
/// schema changes what one of them returns (as another process's
/// migration may), the server refuses it and aborts the commit's
/// transaction: the store forgets its statements and the commit is
/// retried, prepared anew, and written once.
#[test]
fn a_commit_whose_prepared_statements_went_stale_is_retried() {
    let Some(cluster) = cluster() else { return };
    let url = cluster.create_database("stale").unwrap();
    let mut store = PgStore::open(&url).unwrap();
    let key = store.ensure_repository(&group(), &repo("stale")).unwrap();
    let naming = |n: u32| {
        let mut item = issue("1");
        item.text = format!("Fixed in #{n}.");
        item
    };
    let run = run_of(&store, key, ts("2026-11-20T10:00:00Z"), vec![naming(2)], 1);
    assert!(!run.references.is_empty());
    store.commit_run(key, &run).unwrap();
    // The reads of an item's references now return another type (one the
    // store reads as it did), so the statements prepared for them no
    // longer fit: "cached plan must not change result type".
    admin(&url)
        .batch_execute(
            "ALTER TABLE item_refs ALTER COLUMN target TYPE varchar;
             ALTER TABLE item_keys ALTER COLUMN key TYPE varchar;",
        )
        .unwrap();
    let mut later = naming(3);
    later.updated_at += SignedDuration::from_hours(1);
    let run = run_of(&store, key, ts("2026-11-21T10:00:00Z"), vec![later], 1);
    store.commit_run(key, &run).unwrap();
    let notices = store.take_notices();
    assert!(
        notices.iter().any(|n| n.contains("trying again")),
        "{notices:?}"
    );
    let view = store.repository_view(key).unwrap().unwrap();
    assert_eq!(view.runs.len(), 2, "the run written once");
    assert_eq!(view.items.values().next().unwrap().text, "Fixed in #3.");
}
