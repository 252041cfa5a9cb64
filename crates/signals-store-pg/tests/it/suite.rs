//! The store suite (`signals_store::suite`, also run on SQLite) against a
//! real PostgreSQL, and what only this backend has: the work queue, the
//! token locks, the address rules.

use std::sync::atomic::{AtomicUsize, Ordering};
use std::time::Duration;

use signals_store::suite::{self, group, issue, run_of, tracked, ts};
use signals_store::{Dump, HttpState, Owners, RunWrites, StoreError};
use signals_store_pg::PgStore;

use crate::cluster;

static DATABASES: AtomicUsize = AtomicUsize::new(0);

fn fresh(cluster: &signals_testpg::Cluster) -> PgStore {
    let n = DATABASES.fetch_add(1, Ordering::Relaxed);
    let url = cluster.create_database(&format!("suite{n}")).unwrap();
    PgStore::open(&url).unwrap()
}

/// Ends a worker's leases now, as if they had run out.
fn expire(url: &str, worker: &str) {
    let mut admin = postgres::Client::connect(url, postgres::NoTls).unwrap();
    admin
        .execute(
            "UPDATE leases SET lease_until = now() - interval '1 second' WHERE worker = $1",
            &[&worker],
        )
        .unwrap();
}

#[test]
fn the_store_suite_passes_on_postgres() {
    let Some(cluster) = cluster() else { return };
    // Fewer generated cases than on SQLite: each is a new database.
    let cases = std::env::var("SIGNALS_SUITE_CASES").unwrap_or_else(|_| "12".into());
    // SAFETY: no other thread of this test reads the environment now.
    unsafe { std::env::set_var("SIGNALS_SUITE_CASES", cases) };
    suite::run_all(&mut || Box::new(fresh(&cluster)));
}

#[test]
fn leases_give_each_due_repository_to_one_worker_and_expire() {
    let Some(cluster) = cluster() else { return };
    let url = cluster.create_database("leases").unwrap();
    let mut a = PgStore::open(&url).unwrap();
    let b = PgStore::open(&url).unwrap();
    let k1 = a.ensure_repository(&group(), &tracked()).unwrap();
    let other = signals_core::TrackedRepo {
        id: "m".into(),
        ..tracked()
    };
    let k2 = a.ensure_repository(&group(), &other).unwrap();
    let keys = [k1, k2];
    let hour = Duration::from_secs(3600);
    let long = Duration::from_secs(600);
    let got_a = a.claim("a", &keys, hour, None, long).unwrap().unwrap();
    let got_b = b.claim("b", &keys, hour, None, long).unwrap().unwrap();
    assert_ne!(got_a, got_b);
    assert_eq!(b.claim("b", &keys, hour, None, long).unwrap(), None);
    let status = a.queue_status(hour).unwrap();
    assert_eq!(status.leases.len(), 2);

    // A commits; its repository is not due again within the interval.
    let run = run_of(&a, got_a, ts("2026-11-20T10:00:00Z"), vec![issue("1")], 1);
    a.commit_run(got_a, &run).unwrap();
    assert_eq!(a.claim("a", &keys, hour, None, long).unwrap(), None);

    // B dies holding its lease (its connection goes); with a short lease
    // the repository is free again once it expires.
    drop(b);
    let c = PgStore::open(&url).unwrap();
    assert_eq!(c.claim("c", &keys, hour, None, long).unwrap(), None);
    expire(&url, "b");
    let mut c = c;
    let got_c = c.claim("c", &keys, hour, None, long).unwrap();
    assert_eq!(got_c, Some(got_b));
    let run = run_of(&c, got_b, ts("2026-11-20T10:00:00Z"), vec![issue("2")], 1);
    c.commit_run(got_b, &run).unwrap();
    assert_eq!(c.queue_status(hour).unwrap().leases, vec![]);

    // A worker whose lease was taken cannot commit: nothing is written.
    let d = PgStore::open(&url).unwrap();
    let zero = Duration::ZERO;
    let taken = d.claim("d", &keys, zero, None, long).unwrap().unwrap();
    expire(&url, "d");
    let e = PgStore::open(&url).unwrap();
    assert_eq!(e.claim("e", &keys, zero, None, long).unwrap(), Some(taken));
    let mut d = d;
    let before = d.table_counts().unwrap();
    let run = run_of(&d, taken, ts("2026-11-21T10:00:00Z"), vec![issue("3")], 1);
    let err = d.commit_run(taken, &run).unwrap_err();
    assert!(matches!(err, StoreError::LeaseLost { .. }), "{err:?}");
    assert_eq!(d.table_counts().unwrap(), before);
}

#[test]
fn a_round_collects_each_repository_once_even_with_no_interval() {
    let Some(cluster) = cluster() else { return };
    let url = cluster.create_database("round").unwrap();
    let mut a = PgStore::open(&url).unwrap();
    let k1 = a.ensure_repository(&group(), &tracked()).unwrap();
    let start = a.server_now().unwrap();
    let zero = Duration::ZERO;
    let long = Duration::from_secs(600);
    let got = a.claim("a", &[k1], zero, Some(&start), long).unwrap();
    assert_eq!(got, Some(k1));
    a.record_failure(k1, ts("2026-11-20T10:00:00Z"), "http", "500")
        .unwrap();
    // Attempted in this round: not again, though the interval is zero.
    assert_eq!(a.claim("a", &[k1], zero, Some(&start), long).unwrap(), None);
    // A new round takes it again.
    std::thread::sleep(Duration::from_millis(5));
    let next = a.server_now().unwrap();
    assert_eq!(
        a.claim("a", &[k1], zero, Some(&next), long).unwrap(),
        Some(k1)
    );
    a.abandon().unwrap();
    assert_eq!(a.next_due_in(&[k1], zero).unwrap(), Some(Duration::ZERO));
}

#[test]
fn token_locks_exclude_other_connections() {
    let Some(cluster) = cluster() else { return };
    let url = cluster.create_database("tokens").unwrap();
    let a = PgStore::open(&url).unwrap();
    a.lock_token("fp").unwrap();
    let (tx, rx) = std::sync::mpsc::channel();
    let url2 = url.clone();
    let waiter = std::thread::spawn(move || {
        let b = PgStore::open(&url2).unwrap();
        b.lock_token("fp").unwrap();
        tx.send(()).unwrap();
        b.unlock_token("fp").unwrap();
    });
    // B waits while A holds the token (it has not sent within 300 ms);
    // then gets it once A lets go.
    assert!(rx.recv_timeout(Duration::from_millis(300)).is_err());
    a.unlock_token("fp").unwrap();
    rx.recv_timeout(Duration::from_secs(30)).unwrap();
    waiter.join().unwrap();
}

#[test]
fn bad_addresses_and_foreign_databases_are_refused_with_advice() {
    let err = PgStore::open("postgres://u:hunter2@127.0.0.1:1/x").unwrap_err();
    assert!(matches!(err, StoreError::BadAddress { .. }), "{err:?}");
    assert!(!err.to_string().contains("hunter2"), "{err}");
    let Some(cluster) = cluster() else { return };
    let url = cluster.create_database("foreign").unwrap();
    let mut client = postgres::Client::connect(&url, postgres::NoTls).unwrap();
    client
        .batch_execute("CREATE TABLE orders (id int)")
        .unwrap();
    let err = PgStore::open(&url).unwrap_err();
    assert!(matches!(err, StoreError::NotAStore { .. }), "{err:?}");
    // Nothing of ours was created there.
    let n: i64 = client
        .query_one(
            "SELECT count(*) FROM information_schema.tables WHERE table_schema = 'public'",
            &[],
        )
        .unwrap()
        .get(0);
    assert_eq!(n, 1, "only the other application's table");
    let port = cluster.port();
    drop(cluster);
    let err = PgStore::open(&format!("postgres://postgres@127.0.0.1:{port}/x")).unwrap_err();
    assert!(matches!(err, StoreError::Connect { .. }), "{err:?}");
    assert!(
        err.to_string().contains("check that the server runs"),
        "{err}"
    );
}

/// 0008_owner_host_id: the rows of an owner stored before are kept,
/// without a host id until the next listing names them; a rename onto a
/// gone repository's name then fits beside it.
#[test]
fn the_owner_host_id_migration_keeps_the_owners_rows() {
    let Some(cluster) = cluster() else { return };
    let url = cluster.create_database("owners0008").unwrap();
    drop(PgStore::open_before(&url, 7).unwrap());
    let mut c = postgres::Client::connect(&url, postgres::NoTls).unwrap();
    c.batch_execute(
        "INSERT INTO groups VALUES ('g', 'G');
         INSERT INTO owners (group_id, host, owner, listings) VALUES ('g', 'github', 'org', 2);
         INSERT INTO owner_repos VALUES
            ('g', 'github', 'org', 'org/a', 'a', 'tracked',
             '2026-01-01T00:00:00Z', '2026-01-01T00:00:00Z'),
            ('g', 'github', 'org', 'org/b', 'b', 'gone',
             '2026-01-02T00:00:00Z', '2026-01-01T00:00:00Z');",
    )
    .unwrap();
    let store = PgStore::open(&url).unwrap();
    let fresh = cluster.create_database("owners-fresh").unwrap();
    assert_eq!(
        store.schema_version().unwrap(),
        PgStore::open(&fresh).unwrap().schema_version().unwrap()
    );
    let rows = store.owner_repos("g").unwrap();
    let got: Vec<_> = rows
        .iter()
        .map(|r| {
            let k = &r.known;
            (
                k.full_name.to_string(),
                k.repo_id.clone(),
                k.state.as_str(),
                k.host_id,
                k.tracked_as.clone(),
            )
        })
        .collect();
    assert_eq!(
        got,
        vec![
            ("org/a".to_string(), "a".to_string(), "tracked", None, None),
            ("org/b".to_string(), "b".to_string(), "gone", None, None),
        ]
    );
    c.execute(
        "UPDATE owner_repos SET full_name = 'org/b', host_id = 7, tracked_as = 'org/a'
         WHERE repo_id = 'a'",
        &[],
    )
    .unwrap();
    assert_eq!(store.owner_repos("g").unwrap().len(), 2);
    assert!(
        c.execute(
            "UPDATE owner_repos SET host_id = -1 WHERE repo_id = 'b'",
            &[]
        )
        .is_err()
    );
}

/// 0010_comments: a store from before, with a run and its texts, takes
/// comments once migrated, and a purge takes them with it.
#[test]
fn the_comments_migration_takes_a_store_from_before() {
    use signals_core::model::{Comment, CommentKind, ItemKind};
    use signals_store::CommentStore;

    let Some(cluster) = cluster() else { return };
    let url = cluster.create_database("comments0010").unwrap();
    {
        // Schema 9: through 0009_discussions, before 0010_comments.
        let mut before = PgStore::open_before(&url, 9).unwrap();
        let key = before.ensure_repository(&group(), &tracked()).unwrap();
        let mut run = run_of(
            &before,
            key,
            ts("2026-11-01T10:00:00Z"),
            vec![issue("1")],
            1,
        );
        // The references' tables come after the comments'.
        run.references.clear();
        before.commit_run(key, &run).unwrap();
    }
    let mut store = PgStore::open(&url).unwrap();
    let key = store.ensure_repository(&group(), &tracked()).unwrap();
    let comment = Comment {
        kind: CommentKind::Review,
        host_id: "7".into(),
        item_kind: ItemKind::PullRequest,
        item_key: "1".into(),
        author: "m".into(),
        association: Some("MEMBER".into()),
        bot: false,
        state: Some("APPROVED".into()),
        created_at: ts("2026-11-01T11:00:00Z"),
        updated_at: ts("2026-11-01T11:00:00Z"),
        body: "issue 1 body".into(),
    };
    store
        .store_comments(key, &[("i".into(), comment.clone()), ("i".into(), comment)])
        .unwrap();
    let replies = store.replies(key).unwrap();
    assert_eq!(replies.len(), 1);
    assert_eq!(replies[0].1.state.as_deref(), Some("APPROVED"));
    store.purge_repository(key).unwrap();
    assert!(store.comment_texts(key).unwrap().is_empty());
}

/// 0013_word_index: a store from before gets an empty word index, which
/// its first catch-up fills from the stored snapshots; the trigram index is
/// gone.
#[test]
fn the_word_index_migration_indexes_a_store_from_before() {
    use signals_core::search::{Query, evaluate};
    use signals_store::SearchIndex;
    use signals_store::search::{Postings, catch_up};

    let Some(cluster) = cluster() else { return };
    let url = cluster.create_database("words0012").unwrap();
    {
        // Schema 12: through 0012_open_pulls, before 0013_word_index.
        let mut before = PgStore::open_before(&url, 12).unwrap();
        let key = before.ensure_repository(&group(), &tracked()).unwrap();
        let mut crash = issue("1");
        crash.text = "It crashes on start".into();
        let run = run_of(
            &before,
            key,
            ts("2026-11-01T10:00:00Z"),
            vec![crash, issue("2")],
            1,
        );
        before.commit_run(key, &run).unwrap();
    }
    let mut store = PgStore::open(&url).unwrap();
    let key = store.ensure_repository(&group(), &tracked()).unwrap();
    assert_eq!(
        store.search_state(key).unwrap().through,
        0,
        "not indexed yet"
    );
    assert_eq!(catch_up(&mut store, key).unwrap(), 2);
    let stats = store.search_state(key).unwrap().stats;
    let query = Query::parse("crashes").unwrap();
    let hits = evaluate(
        &query,
        stats,
        &mut Postings {
            store: &store,
            repo: key,
        },
    )
    .unwrap();
    assert_eq!(hits.len(), 1);
    let mut c = postgres::Client::connect(&url, postgres::NoTls).unwrap();
    let trigrams: bool = c
        .query_one("SELECT to_regclass('texts_trigrams') IS NOT NULL", &[])
        .unwrap()
        .get(0);
    assert!(!trigrams, "the trigram index is gone");
}
