//! The kept totals on PostgreSQL: a store from before
//! migration 0017 gets every repository's row when it is opened, equal to
//! what `status` computed from the rows before.

use signals_store::RunWrites;
use signals_store::suite::{issue, run_of, status_totals, totals_history, ts};
use signals_store_pg::PgStore;

use crate::cluster;

/// Each repository's totals as `status` computed them before 0017, from
/// every row (as `status_totals` lists them).
fn old_totals(url: &str) -> Vec<(i64, [i64; 9])> {
    let mut c = postgres::Client::connect(url, postgres::NoTls).unwrap();
    c.query(
        "SELECT r.key, (SELECT count(*) FROM items WHERE repo = r.key),
                t.runs, coalesce(t.changed, 0)::bigint, coalesce(t.requests, 0)::bigint,
                coalesce(t.not_modified, 0)::bigint, coalesce(t.bytes, 0)::bigint,
                coalesce(t.retries, 0)::bigint, f.failures, f.since_last_run
         FROM repositories r
         LEFT JOIN LATERAL (SELECT collected_at FROM runs WHERE repo = r.key
                            ORDER BY id DESC LIMIT 1) lr ON true
         CROSS JOIN LATERAL (
             SELECT count(*) AS runs, sum(changed_count) AS changed,
                    sum(requests) AS requests, sum(not_modified) AS not_modified,
                    sum(bytes_received) AS bytes, sum(retries) AS retries
             FROM runs WHERE repo = r.key) t
         CROSS JOIN LATERAL (
             SELECT count(*) AS failures,
                    count(*) FILTER (WHERE lr.collected_at IS NULL
                        OR at::timestamptz > lr.collected_at::timestamptz) AS since_last_run
             FROM failures WHERE repo = r.key) f
         ORDER BY r.key",
        &[],
    )
    .unwrap()
    .iter()
    .map(|r| {
        let mut v = [0i64; 9];
        for (i, x) in v.iter_mut().enumerate() {
            *x = r.get(i + 1);
        }
        (r.get(0), v)
    })
    .collect()
}

#[test]
fn migration_0017_fills_in_the_totals_of_a_store_from_before() {
    let Some(cluster) = cluster() else { return };
    let url = cluster.create_database("totals0017").unwrap();
    let keys = {
        let mut before = PgStore::open_before(&url, 16).unwrap();
        assert_eq!(before.schema_version().unwrap(), 16);
        totals_history(&mut before)
    };
    let old = old_totals(&url);
    assert_eq!(old[0].1, [4, 3, 5, 33, 3, 3 * 12_345, 0, 3, 2], "{old:?}");
    assert_eq!(old[1].1, [0, 0, 0, 0, 0, 0, 0, 1, 1], "{old:?}");

    let mut store = PgStore::open(&url).unwrap();
    assert!(store.schema_version().unwrap() >= 17);
    assert_eq!(status_totals(&store), old);

    let at = ts("2026-11-20T14:00:00Z");
    let run = run_of(&store, keys[1], at, vec![issue("9")], 5);
    store.commit_run(keys[1], &run).unwrap();
    store
        .record_failure(keys[2], ts("2026-11-20T15:00:00Z"), "http", "500")
        .unwrap();
    assert_eq!(status_totals(&store), old_totals(&url));
}
