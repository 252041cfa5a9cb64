//! Migration 0020 on PostgreSQL: a store from before takes advisories
//! (the items' kind constraint widened) and download counts.

use signals_store::suite::{
    a_migrated_store_takes_advisories_and_downloads, group, issue, run_of, tracked, ts,
};
use signals_store::{Reads, RunWrites};
use signals_store_pg::PgStore;

use crate::cluster;

#[test]
fn migration_0020_adds_advisories_and_downloads_to_a_store_from_before() {
    let Some(cluster) = cluster() else { return };
    // 0020 is the latest migration: the schema before it is one less than
    // a new store's.
    let latest = {
        let url = cluster.create_database("latest0020").unwrap();
        PgStore::open(&url).unwrap().schema_version().unwrap()
    };
    let url = cluster.create_database("advisories0020").unwrap();
    let key = {
        let mut store = PgStore::open_before(&url, (latest - 1) as usize).unwrap();
        assert_eq!(store.schema_version().unwrap(), latest - 1);
        let key = store.ensure_repository(&group(), &tracked()).unwrap();
        let run = run_of(&store, key, ts("2026-11-01T10:00:00Z"), vec![issue("1")], 1);
        store.commit_run(key, &run).unwrap();
        key
    };
    let mut store = PgStore::open(&url).unwrap();
    assert_eq!(store.schema_version().unwrap(), latest);
    assert_eq!(store.open_item_ids(key).unwrap().len(), 1);
    a_migrated_store_takes_advisories_and_downloads(&mut store, key);
}
