//! References on PostgreSQL: a store from before migration
//! 0011 gets the references of its stored bodies when it is opened.

use signals_store::suite::{commit_referencing_items, links_of_items};
use signals_store_pg::PgStore;

use crate::cluster;

#[test]
fn migration_0011_fills_in_the_references_of_stored_bodies() {
    let Some(cluster) = cluster() else { return };
    let url = cluster.create_database("refs0011").unwrap();
    let mut store = PgStore::open(&url).unwrap();
    let items = commit_referencing_items(&mut store);
    let expected = links_of_items(&store, &items);
    assert_eq!(expected[0].references.len(), 2, "{expected:?}");
    assert_eq!(expected[0].referenced_by.len(), 1, "{expected:?}");
    let version = store.schema_version().unwrap();
    drop(store);
    // The store as the version before 0011 left it: without 0011's tables
    // and those of the migrations after it (0012, the open pull request
    // count; 0013, the word index; 0014, the due leases' index; 0015, the
    // run's stage; 0016, the reconciles' index; 0017, the repositories'
    // totals; 0020, the download counts; 0021, the merges): they run again on
    // opening.
    let mut c = postgres::Client::connect(&url, postgres::NoTls).unwrap();
    c.batch_execute(
        "DROP TABLE lifecycle; DROP INDEX comments_by_time;
         DROP TABLE repo_totals;
         DROP TABLE item_keys; DROP TABLE item_refs; DROP TABLE reference_marks;
         DROP TABLE search_postings; DROP TABLE search_docs; DROP TABLE search_state;
         DROP TABLE search_dirty;
         DROP INDEX items_by_latest;
         ALTER TABLE repositories DROP COLUMN open_pulls;
         ALTER TABLE repositories DROP COLUMN open_pulls_differed;
         DROP INDEX leases_due;
         DROP TABLE run_stage_items; DROP TABLE run_stages;
         DROP INDEX runs_reconciled;
         DROP TABLE asset_downloads; DROP TABLE merges;
         DROP TABLE related_profiles; DROP TABLE related_texts; DROP TABLE related_lists; DROP TABLE related_state; DROP TABLE related_gone;
         DELETE FROM signals_schema WHERE version >= 11;",
    )
    .unwrap();
    let store = PgStore::open(&url).unwrap();
    assert_eq!(store.schema_version().unwrap(), version);
    assert_eq!(links_of_items(&store, &items), expected);
}
