//! Related items on PostgreSQL: a store from before migration 0023 opens,
//! migrates, and has every issue pending for its first catch-up.

use signals_store::suite::{group, issue, run_of, tracked, ts};
use signals_store::{RelatedStore, RunWrites};
use signals_store_pg::PgStore;

use crate::cluster;

#[test]
fn a_store_from_before_related_items_migrates_with_everything_pending() {
    let Some(cluster) = cluster() else { return };
    let url = cluster.create_database("related0023").unwrap();
    let key = {
        let mut before = PgStore::open_before(&url, 18).unwrap();
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
