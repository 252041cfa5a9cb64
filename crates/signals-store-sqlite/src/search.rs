//! The word index on SQLite (migrations 0014 and 0018): reads by
//! primary key or key range, and one `BEGIN IMMEDIATE` transaction per
//! update that first checks the stored state is the one the update was
//! computed from. A block's documents' part is `data` and its positions'
//! part `positions`, the row's last column, so a word's read stops before
//! the positions' bytes.

use std::collections::HashMap;

use rusqlite::{OptionalExtension, TransactionBehavior, params};
use signals_core::search::postings::{self, Block};
use signals_core::search::{Positions, Stats};
use signals_store::search::{
    EachBlock, IndexedDoc, PendingItem, SearchUpdate, prefix_end, unsplittable,
};
use signals_store::{RepoKey, Result, SearchIndex, SearchState};

use crate::Store;
use crate::error::DbContext;

fn state_row(r: &rusqlite::Row<'_>) -> rusqlite::Result<SearchState> {
    Ok(SearchState {
        through: r.get(0)?,
        next_doc: r.get(1)?,
        stats: Stats {
            docs: r.get::<_, i64>(2)? as u64,
            total_len: r.get::<_, i64>(3)? as u64,
        },
    })
}

impl SearchIndex for Store {
    fn search_state(&self, repo: RepoKey) -> Result<SearchState> {
        let doing = "reading the word index's state";
        Ok(self
            .conn
            .prepare_cached(
                "SELECT through, next_doc, docs, total_len FROM search_state WHERE repo = ?1",
            )
            .doing(&self.path, doing)?
            .query_row([repo.raw()], state_row)
            .optional()
            .doing(&self.path, doing)?
            .unwrap_or_default())
    }

    fn search_blocks(&self, repo: RepoKey, term: &str, positions: Positions) -> Result<Vec<Block>> {
        let doing = "reading the word index";
        let sql = if positions == Positions::Read {
            "SELECT data, positions FROM search_postings
             WHERE repo = ?1 AND term = ?2 AND length(data) > 0 ORDER BY block"
        } else {
            "SELECT data, x'' FROM search_postings
             WHERE repo = ?1 AND term = ?2 AND length(data) > 0 ORDER BY block"
        };
        self.conn
            .prepare_cached(sql)
            .doing(&self.path, doing)?
            .query_map(params![repo.raw(), term], |r| {
                Ok(Block {
                    docs: r.get(0)?,
                    positions: r.get(1)?,
                })
            })
            .doing(&self.path, doing)?
            .collect::<rusqlite::Result<Vec<Block>>>()
            .doing(&self.path, doing)
    }

    fn search_blocks_at(
        &self,
        repo: RepoKey,
        keys: &[(String, u32)],
    ) -> Result<HashMap<(String, u32), Block>> {
        let doing = "reading the word index's blocks";
        let mut stmt = self
            .conn
            .prepare_cached(
                "SELECT data, positions FROM search_postings
                 WHERE repo = ?1 AND term = ?2 AND block = ?3",
            )
            .doing(&self.path, doing)?;
        let mut out = HashMap::new();
        for (term, block) in keys {
            let data: Option<Block> = stmt
                .query_row(params![repo.raw(), term, block], |r| {
                    Ok(Block {
                        docs: r.get(0)?,
                        positions: r.get(1)?,
                    })
                })
                .optional()
                .doing(&self.path, doing)?;
            if let Some(data) = data {
                out.insert((term.clone(), *block), data);
            }
        }
        Ok(out)
    }

    fn search_expand(&self, repo: RepoKey, prefix: &str, limit: usize) -> Result<Vec<String>> {
        let doing = "looking up a prefix in the word index";
        self.conn
            .prepare_cached(
                "SELECT DISTINCT term FROM search_postings
                 WHERE repo = ?1 AND term >= ?2 AND term < ?3 AND length(data) > 0
                 ORDER BY term LIMIT ?4",
            )
            .doing(&self.path, doing)?
            .query_map(
                params![repo.raw(), prefix, prefix_end(prefix), limit as i64],
                |r| r.get(0),
            )
            .doing(&self.path, doing)?
            .collect::<rusqlite::Result<Vec<String>>>()
            .doing(&self.path, doing)
    }

    fn search_terms_written(&self, repo: RepoKey, after: i64) -> Result<Vec<String>> {
        let doing = "finding the words the index changed";
        self.conn
            .prepare_cached(
                "SELECT DISTINCT term FROM search_postings
                 WHERE repo = ?1 AND written > ?2 ORDER BY term",
            )
            .doing(&self.path, doing)?
            .query_map(params![repo.raw(), after], |r| r.get(0))
            .doing(&self.path, doing)?
            .collect::<rusqlite::Result<Vec<String>>>()
            .doing(&self.path, doing)
    }

    fn search_each_block(&self, repo: RepoKey, each: &mut EachBlock<'_>) -> Result<()> {
        let doing = "reading the word index";
        let mut stmt = self
            .conn
            .prepare_cached(
                "SELECT term, block, data, positions FROM search_postings
                 WHERE repo = ?1 AND length(data) > 0 ORDER BY term, block",
            )
            .doing(&self.path, doing)?;
        let mut rows = stmt.query([repo.raw()]).doing(&self.path, doing)?;
        while let Some(r) = rows.next().doing(&self.path, doing)? {
            let term: String = r.get(0).doing(&self.path, doing)?;
            let block: u32 = r.get(1).doing(&self.path, doing)?;
            let docs: Vec<u8> = r.get(2).doing(&self.path, doing)?;
            let positions: Vec<u8> = r.get(3).doing(&self.path, doing)?;
            each(&term, block, &docs, &positions)?;
        }
        Ok(())
    }

    fn search_docs(&self, repo: RepoKey) -> Result<Vec<(String, u32)>> {
        let doing = "reading the word index's documents";
        self.conn
            .prepare_cached("SELECT item_id, doc FROM search_docs WHERE repo = ?1")
            .doing(&self.path, doing)?
            .query_map([repo.raw()], |r| Ok((r.get(0)?, r.get(1)?)))
            .doing(&self.path, doing)?
            .collect::<rusqlite::Result<Vec<(String, u32)>>>()
            .doing(&self.path, doing)
    }

    fn search_pending(
        &self,
        repo: RepoKey,
        through: i64,
        limit: usize,
    ) -> Result<Vec<PendingItem>> {
        let doing = "finding the items the word index has not read";
        self.conn
            .prepare_cached(
                "SELECT i.item_id, i.latest, d.doc, d.len, d.terms
                 FROM (SELECT item_id FROM items WHERE repo = ?1 AND latest > ?2
                       UNION SELECT item FROM search_dirty WHERE repo = ?1) p
                 JOIN items i ON i.repo = ?1 AND i.item_id = p.item_id
                 LEFT JOIN search_docs d ON d.repo = i.repo AND d.item_id = i.item_id
                 ORDER BY i.latest LIMIT ?3",
            )
            .doing(&self.path, doing)?
            .query_map(params![repo.raw(), through, limit as i64], |r| {
                let doc: Option<u32> = r.get(2)?;
                Ok(PendingItem {
                    id: r.get(0)?,
                    latest: r.get(1)?,
                    indexed: match doc {
                        Some(doc) => Some(IndexedDoc {
                            doc,
                            len: r.get(3)?,
                            terms: r.get(4)?,
                        }),
                        None => None,
                    },
                })
            })
            .doing(&self.path, doing)?
            .collect::<rusqlite::Result<Vec<PendingItem>>>()
            .doing(&self.path, doing)
    }

    fn search_comments(
        &self,
        repo: RepoKey,
        ids: &[String],
    ) -> Result<HashMap<String, Vec<String>>> {
        let doing = "reading comments for the word index";
        let mut stmt = self
            .conn
            .prepare_cached(
                "SELECT t.text FROM comments c JOIN texts t ON t.id = c.body
                 WHERE c.repo = ?1 AND c.item = ?2 ORDER BY c.created_s, c.kind, c.host_id",
            )
            .doing(&self.path, doing)?;
        let mut out = HashMap::new();
        for id in ids {
            let bodies = stmt
                .query_map(params![repo.raw(), id], |r| r.get(0))
                .doing(&self.path, doing)?
                .collect::<rusqlite::Result<Vec<String>>>()
                .doing(&self.path, doing)?;
            if !bodies.is_empty() {
                out.insert(id.clone(), bodies);
            }
        }
        Ok(out)
    }

    fn search_apply(&mut self, repo: RepoKey, update: &SearchUpdate) -> Result<bool> {
        let doing = "writing the word index";
        let path = self.path.clone();
        let tx = self
            .conn
            .transaction_with_behavior(TransactionBehavior::Immediate)
            .doing(&path, doing)?;
        let stored = tx
            .prepare_cached(
                "SELECT through, next_doc, docs, total_len FROM search_state WHERE repo = ?1",
            )
            .doing(&path, doing)?
            .query_row([repo.raw()], state_row)
            .optional()
            .doing(&path, doing)?
            .unwrap_or_default();
        if stored != update.from {
            return Ok(false);
        }
        for (term, block, data) in &update.blocks {
            tx.prepare_cached(
                "INSERT OR REPLACE INTO search_postings
                     (repo, term, block, data, written, positions)
                 VALUES (?1, ?2, ?3, ?4, ?5, ?6)",
            )
            .doing(&path, doing)?
            .execute(params![
                repo.raw(),
                term,
                block,
                data.docs,
                update.to.through,
                data.positions
            ])
            .doing(&path, doing)?;
        }
        for (id, d) in &update.docs {
            tx.prepare_cached(
                "INSERT OR REPLACE INTO search_docs (repo, item_id, doc, len, terms)
                 VALUES (?1, ?2, ?3, ?4, ?5)",
            )
            .doing(&path, doing)?
            .execute(params![repo.raw(), id, d.doc, d.len, d.terms])
            .doing(&path, doing)?;
        }
        for id in &update.read {
            tx.prepare_cached("DELETE FROM search_dirty WHERE repo = ?1 AND item = ?2")
                .doing(&path, doing)?
                .execute(params![repo.raw(), id])
                .doing(&path, doing)?;
        }
        let to = update.to;
        tx.prepare_cached(
            "INSERT OR REPLACE INTO search_state (repo, through, next_doc, docs, total_len)
             VALUES (?1, ?2, ?3, ?4, ?5)",
        )
        .doing(&path, doing)?
        .execute(params![
            repo.raw(),
            to.through,
            to.next_doc,
            to.stats.docs as i64,
            to.stats.total_len as i64
        ])
        .doing(&path, doing)?;
        tx.commit().doing(&path, doing)?;
        Ok(true)
    }
}

/// Blocks converted per statement by [`migrate_0018`].
const SPLIT_ROWS: i64 = 512;

/// Migration 0018's step: every block of the first format (one string of
/// bytes, each entry's positions after its counts) cut into its two parts,
/// a few hundred rows at a time by key, so memory holds a chunk, never the
/// index. A block that cannot be read stops the migration (its
/// transaction rolls back, the store stays as it was) with the block's
/// key.
pub(crate) fn migrate_0018(tx: &rusqlite::Transaction<'_>, path: &std::path::Path) -> Result<()> {
    let doing = "splitting the word index's blocks (migration 0018)";
    let mut read = tx
        .prepare(
            "SELECT repo, term, block, data FROM search_postings
             WHERE (repo, term, block) > (?1, ?2, ?3) AND length(data) > 0
             ORDER BY repo, term, block LIMIT ?4",
        )
        .doing(path, doing)?;
    let mut write = tx
        .prepare(
            "UPDATE search_postings SET data = ?4, positions = ?5
             WHERE repo = ?1 AND term = ?2 AND block = ?3",
        )
        .doing(path, doing)?;
    let mut after: (i64, String, i64) = (i64::MIN, String::new(), -1);
    loop {
        let rows = read
            .query_map(params![after.0, after.1, after.2, SPLIT_ROWS], |r| {
                Ok((r.get(0)?, r.get(1)?, r.get(2)?, r.get::<_, Vec<u8>>(3)?))
            })
            .doing(path, doing)?
            .collect::<rusqlite::Result<Vec<(i64, String, i64, Vec<u8>)>>>()
            .doing(path, doing)?;
        let Some(last) = rows.last() else {
            return Ok(());
        };
        after = (last.0, last.1.clone(), last.2);
        for (repo, term, block, data) in rows {
            let split = postings::split_first_format(&data).map_err(|e| {
                signals_store::StoreError::Corrupt {
                    path: path.to_path_buf(),
                    what: unsplittable(repo, &term, block, &e),
                }
            })?;
            write
                .execute(params![repo, term, block, split.docs, split.positions])
                .doing(path, doing)?;
        }
    }
}

#[cfg(test)]
mod tests {
    use signals_store::suite::{
        first_format, indexed_repository, word_index_answers, word_index_blocks,
    };

    use crate::Store;
    use crate::schema::MIGRATIONS;

    /// A word index of the first format (one string per block) is cut into
    /// its documents' and positions' parts when the store is opened, byte
    /// for byte, and answers as before.
    #[test]
    fn migration_0018_splits_the_blocks_of_a_store_from_before() {
        let dir = crate::tests::temp_dir("split0018");
        let path = dir.join("signals.db");
        let (key, blocks, answers) = {
            let mut store = Store::open(&path).unwrap();
            let key = indexed_repository(&mut store);
            (
                key,
                word_index_blocks(&store, key),
                word_index_answers(&store, key),
            )
        };
        assert!(blocks.iter().any(|b| b.3.len() > 1), "several positions");
        {
            // The store as schema 17 left it: the first format in `data`,
            // no `positions` column (and no `asset_downloads` nor `merges`, 0020's and 0021's).
            let mut conn = rusqlite::Connection::open(&path).unwrap();
            let tx = conn.transaction().unwrap();
            for (term, block, docs, positions) in &blocks {
                tx.execute(
                    "UPDATE search_postings SET data = ?3 WHERE term = ?1 AND block = ?2",
                    rusqlite::params![term, block, first_format(docs, positions)],
                )
                .unwrap();
            }
            tx.execute_batch(
                "DROP TABLE lifecycle; DROP INDEX comments_by_time;
                 ALTER TABLE search_postings DROP COLUMN positions; DROP TABLE asset_downloads; DROP TABLE merges;
                 DROP TABLE related_profiles; DROP TABLE related_texts; DROP TABLE related_lists;
                 DROP TABLE related_state; DROP TABLE related_gone;
                 PRAGMA user_version = 17;",
            )
            .unwrap();
            tx.commit().unwrap();
        }
        let store = Store::open(&path).unwrap();
        assert_eq!(store.schema_version().unwrap(), MIGRATIONS.len() as i64);
        assert_eq!(word_index_blocks(&store, key), blocks);
        assert_eq!(word_index_answers(&store, key), answers);
        let _ = std::fs::remove_dir_all(dir);
    }
}
