//! Migration 0018 on PostgreSQL: a word index of the first
//! format (one string per block) is cut into its documents' and positions'
//! parts when the store is opened, byte for byte, and answers as before.

use signals_store::suite::{
    first_format, indexed_repository, word_index_answers, word_index_blocks,
};
use signals_store_pg::PgStore;

use crate::cluster;

#[test]
fn migration_0018_splits_the_blocks_of_a_store_from_before() {
    let Some(cluster) = cluster() else { return };
    let url = cluster.create_database("split0018").unwrap();
    let (key, blocks, answers) = {
        let mut store = PgStore::open(&url).unwrap();
        let key = indexed_repository(&mut store);
        (
            key,
            word_index_blocks(&store, key),
            word_index_answers(&store, key),
        )
    };
    assert!(
        blocks.iter().any(|b| b.3.len() > 1),
        "some block holds several positions"
    );
    // The store as schema 17 left it: the first format in `data`, no
    // `positions` column, 0018 and what follows not applied.
    let mut c = postgres::Client::connect(&url, postgres::NoTls).unwrap();
    let mut tx = c.transaction().unwrap();
    for (term, block, docs, positions) in &blocks {
        let old = first_format(docs, positions);
        tx.execute(
            "UPDATE search_postings SET data = $3 WHERE term = $1 AND block = $2",
            &[term, &i64::from(*block), &old],
        )
        .unwrap();
    }
    tx.batch_execute(
        "DROP TABLE lifecycle; DROP INDEX comments_by_time;
         DELETE FROM signals_schema WHERE version = 19;
         ALTER TABLE search_postings DROP COLUMN positions;
         ALTER TABLE search_postings ALTER COLUMN data SET STORAGE EXTENDED;
         DROP TABLE asset_downloads; DROP TABLE merges;
         DROP TABLE related_profiles; DROP TABLE related_texts; DROP TABLE related_lists; DROP TABLE related_state; DROP TABLE related_gone;
         DELETE FROM signals_schema WHERE version >= 18;",
    )
    .unwrap();
    tx.commit().unwrap();

    let store = PgStore::open(&url).unwrap();
    assert!(store.schema_version().unwrap() >= 18);
    assert_eq!(word_index_blocks(&store, key), blocks);
    assert_eq!(word_index_answers(&store, key), answers);
    let storage: Vec<String> = c
        .query(
            "SELECT attstorage::text FROM pg_attribute
             WHERE attrelid = 'search_postings'::regclass AND attname IN ('data', 'positions')",
            &[],
        )
        .unwrap()
        .iter()
        .map(|r| r.get(0))
        .collect();
    assert_eq!(storage, ["e", "e"], "kept out of line, uncompressed");
}
