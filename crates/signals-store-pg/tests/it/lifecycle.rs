//! Migration 0019 on PostgreSQL: a store from before the lifecycle's
//! table opens, its runs stand, and the next judging run's record is kept;
//! migration 0021 the same for the merges.

use signals_store::RunWrites;
use signals_store::suite::{group, issue, lifecycle_after_migration, run_of, tracked, ts};
use signals_store_pg::PgStore;

use crate::cluster;

#[test]
fn migration_0019_adds_the_lifecycle_to_a_store_from_before() {
    let Some(cluster) = cluster() else { return };
    let url = cluster.create_database("lifecycle0019").unwrap();
    let key = {
        let mut store = PgStore::open_before(&url, 18).unwrap();
        assert_eq!(store.schema_version().unwrap(), 18);
        let key = store.ensure_repository(&group(), &tracked()).unwrap();
        let run = run_of(&store, key, ts("2026-11-01T10:00:00Z"), vec![issue("1")], 1);
        store.commit_run(key, &run).unwrap();
        key
    };
    let mut store = PgStore::open(&url).unwrap();
    assert!(store.schema_version().unwrap() >= 19);
    lifecycle_after_migration(&mut store, key);
}

/// Migration 0021: a store from before the merges' table (20 migrations)
/// opens, its runs stand, and a run's merges are kept.
#[test]
fn migration_0021_adds_the_merges_to_a_store_from_before() {
    let Some(cluster) = cluster() else { return };
    let url = cluster.create_database("merges0021").unwrap();
    let key = {
        let mut store = PgStore::open_before(&url, 20).unwrap();
        assert_eq!(store.schema_version().unwrap(), 20);
        let key = store.ensure_repository(&group(), &tracked()).unwrap();
        let run = run_of(&store, key, ts("2026-11-01T10:00:00Z"), vec![issue("1")], 1);
        store.commit_run(key, &run).unwrap();
        key
    };
    let mut store = PgStore::open(&url).unwrap();
    assert!(store.schema_version().unwrap() >= 21);
    signals_store::suite::merges_after_migration(&mut store, key);
}
