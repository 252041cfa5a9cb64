//! The word index on PostgreSQL (migrations 0013 and 0018):
//! reads by primary key or key range (terms compare as bytes), and one
//! transaction per update that locks the repository's state row and checks
//! it is the one the update was computed from; blocks and documents are
//! written with one statement each. A block's documents' part is `data`
//! and its positions' part `positions`, each kept out of line uncompressed
//! (`STORAGE EXTERNAL`): a word's query never reads its positions, and no
//! read decompresses.

use std::collections::HashMap;

use signals_core::search::postings::{self, Block};
use signals_core::search::{Positions, Stats};
use signals_store::search::{
    EachBlock, IndexedDoc, PendingItem, SearchUpdate, prefix_end, unsplittable,
};
use signals_store::{RepoKey, Result, SearchIndex, SearchState};

use crate::PgStore;

fn state_of(r: &postgres::Row) -> SearchState {
    SearchState {
        through: r.get(0),
        next_doc: r.get::<_, i64>(1) as u32,
        stats: Stats {
            docs: r.get::<_, i64>(2) as u64,
            total_len: r.get::<_, i64>(3) as u64,
        },
    }
}

impl SearchIndex for PgStore {
    fn search_state(&self, repo: RepoKey) -> Result<SearchState> {
        Ok(self
            .query_opt(
                "reading the word index's state",
                "SELECT through, next_doc, docs, total_len FROM search_state WHERE repo = $1",
                &[&repo.raw()],
            )?
            .map(|r| state_of(&r))
            .unwrap_or_default())
    }

    fn search_blocks(&self, repo: RepoKey, term: &str, positions: Positions) -> Result<Vec<Block>> {
        let sql = if positions == Positions::Read {
            "SELECT data, positions FROM search_postings
             WHERE repo = $1 AND term = $2 AND length(data) > 0 ORDER BY block"
        } else {
            "SELECT data, ''::bytea FROM search_postings
             WHERE repo = $1 AND term = $2 AND length(data) > 0 ORDER BY block"
        };
        Ok(self
            .query("reading the word index", sql, &[&repo.raw(), &term])?
            .iter()
            .map(|r| Block {
                docs: r.get(0),
                positions: r.get(1),
            })
            .collect())
    }

    /// One statement for all of a prefix's terms (`term = ANY`), in term
    /// then block order, put back in the order of `terms`.
    fn search_blocks_of(&self, repo: RepoKey, terms: &[String]) -> Result<Vec<Vec<Block>>> {
        let mut lists: HashMap<String, Vec<Block>> = HashMap::with_capacity(terms.len());
        self.each_row(
            "reading the word index",
            "SELECT term, data FROM search_postings
             WHERE repo = $1 AND term = ANY($2) AND length(data) > 0 ORDER BY term, block",
            &[&repo.raw(), &terms],
            |r| {
                lists.entry(r.get(0)).or_default().push(Block {
                    docs: r.get(1),
                    positions: Vec::new(),
                });
                Ok(())
            },
        )?;
        // A term asked for twice gets the same list twice.
        let mut first: HashMap<&str, usize> = HashMap::with_capacity(terms.len());
        let mut out: Vec<Vec<Block>> = Vec::with_capacity(terms.len());
        for term in terms {
            let list = match first.get(term.as_str()) {
                Some(&at) => out[at].clone(),
                None => lists.remove(term).unwrap_or_default(),
            };
            first.entry(term).or_insert(out.len());
            out.push(list);
        }
        Ok(out)
    }

    fn search_blocks_at(
        &self,
        repo: RepoKey,
        keys: &[(String, u32)],
    ) -> Result<HashMap<(String, u32), Block>> {
        let terms: Vec<&str> = keys.iter().map(|(t, _)| t.as_str()).collect();
        let blocks: Vec<i64> = keys.iter().map(|(_, b)| i64::from(*b)).collect();
        Ok(self
            .query(
                "reading the word index's blocks",
                "SELECT p.term, p.block, p.data, p.positions
                 FROM unnest($2::text[], $3::bigint[]) AS k(term, block)
                 JOIN search_postings p ON p.repo = $1 AND p.term = k.term AND p.block = k.block",
                &[&repo.raw(), &terms, &blocks],
            )?
            .iter()
            .map(|r| {
                let block = Block {
                    docs: r.get(2),
                    positions: r.get(3),
                };
                ((r.get(0), r.get::<_, i64>(1) as u32), block)
            })
            .collect())
    }

    fn search_expand(&self, repo: RepoKey, prefix: &str, limit: usize) -> Result<Vec<String>> {
        Ok(self
            .query(
                "looking up a prefix in the word index",
                "SELECT DISTINCT term FROM search_postings
                 WHERE repo = $1 AND term >= $2 AND term < $3 AND length(data) > 0
                 ORDER BY term LIMIT $4",
                &[&repo.raw(), &prefix, &prefix_end(prefix), &(limit as i64)],
            )?
            .iter()
            .map(|r| r.get(0))
            .collect())
    }

    fn search_terms_written(&self, repo: RepoKey, after: i64) -> Result<Vec<String>> {
        Ok(self
            .query(
                "finding the words the index changed",
                "SELECT DISTINCT term FROM search_postings
                 WHERE repo = $1 AND written > $2 ORDER BY term",
                &[&repo.raw(), &after],
            )?
            .iter()
            .map(|r| r.get(0))
            .collect())
    }

    fn search_each_block(&self, repo: RepoKey, each: &mut EachBlock<'_>) -> Result<()> {
        self.each_row(
            "reading the word index",
            "SELECT term, block, data, positions FROM search_postings
             WHERE repo = $1 AND length(data) > 0 ORDER BY term, block",
            &[&repo.raw()],
            |r| each(r.get(0), r.get::<_, i64>(1) as u32, r.get(2), r.get(3)),
        )
    }

    fn search_docs(&self, repo: RepoKey) -> Result<Vec<(String, u32)>> {
        let mut out = Vec::new();
        self.each_row(
            "reading the word index's documents",
            "SELECT item_id, doc FROM search_docs WHERE repo = $1",
            &[&repo.raw()],
            |r| {
                out.push((r.get(0), r.get::<_, i64>(1) as u32));
                Ok(())
            },
        )?;
        Ok(out)
    }

    fn search_pending(
        &self,
        repo: RepoKey,
        through: i64,
        limit: usize,
    ) -> Result<Vec<PendingItem>> {
        Ok(self
            .query(
                "finding the items the word index has not read",
                "SELECT i.item_id, i.latest, d.doc, d.len, d.terms
                 FROM (SELECT item_id FROM items WHERE repo = $1 AND latest > $2
                       UNION SELECT item FROM search_dirty WHERE repo = $1) p
                 JOIN items i ON i.repo = $1 AND i.item_id = p.item_id
                 LEFT JOIN search_docs d ON d.repo = i.repo AND d.item_id = i.item_id
                 ORDER BY i.latest LIMIT $3",
                &[&repo.raw(), &through, &(limit as i64)],
            )?
            .iter()
            .map(|r| PendingItem {
                id: r.get(0),
                latest: r.get(1),
                indexed: r.get::<_, Option<i64>>(2).map(|doc| IndexedDoc {
                    doc: doc as u32,
                    len: r.get::<_, i64>(3) as u32,
                    terms: r.get(4),
                }),
            })
            .collect())
    }

    fn search_comments(
        &self,
        repo: RepoKey,
        ids: &[String],
    ) -> Result<HashMap<String, Vec<String>>> {
        let mut out: HashMap<String, Vec<String>> = HashMap::new();
        for r in self.query(
            "reading comments for the word index",
            "SELECT c.item, t.text FROM comments c JOIN texts t ON t.id = c.body
             WHERE c.repo = $1 AND c.item = ANY($2)
             ORDER BY c.item, c.created_s, c.kind, c.host_id",
            &[&repo.raw(), &ids],
        )? {
            out.entry(r.get(0)).or_default().push(r.get(1));
        }
        Ok(out)
    }

    fn search_apply(&mut self, repo: RepoKey, update: &SearchUpdate) -> Result<bool> {
        let err = self.err("writing the word index");
        let key = repo.raw();
        let put_terms: Vec<&str> = update.blocks.iter().map(|(t, _, _)| t.as_str()).collect();
        let put_blocks: Vec<i64> = update
            .blocks
            .iter()
            .map(|(_, b, _)| i64::from(*b))
            .collect();
        let put_data: Vec<&[u8]> = update.blocks.iter().map(|(_, _, d)| &d.docs[..]).collect();
        let put_positions: Vec<&[u8]> = update
            .blocks
            .iter()
            .map(|(_, _, d)| &d.positions[..])
            .collect();
        let ids: Vec<&str> = update.docs.iter().map(|(id, _)| id.as_str()).collect();
        let docs: Vec<i64> = update.docs.iter().map(|(_, d)| i64::from(d.doc)).collect();
        let lens: Vec<i64> = update.docs.iter().map(|(_, d)| i64::from(d.len)).collect();
        let terms: Vec<&str> = update.docs.iter().map(|(_, d)| d.terms.as_str()).collect();
        let read: Vec<&str> = update.read.iter().map(String::as_str).collect();
        self.retrying(|client, _| {
            let mut tx = client.transaction().map_err(&err)?;
            // The state row, locked: another indexer of this repository
            // waits here, then finds the state moved.
            tx.execute(
                "INSERT INTO search_state (repo, through, next_doc, docs, total_len)
                 VALUES ($1, 0, 0, 0, 0) ON CONFLICT (repo) DO NOTHING",
                &[&key],
            )
            .map_err(&err)?;
            let stored = tx
                .query_one(
                    "SELECT through, next_doc, docs, total_len FROM search_state
                     WHERE repo = $1 FOR UPDATE",
                    &[&key],
                )
                .map_err(&err)?;
            if state_of(&stored) != update.from {
                return Ok(false);
            }
            tx.execute(
                "INSERT INTO search_postings (repo, term, block, data, positions, written)
                 SELECT $1, k.*, $6
                 FROM unnest($2::text[], $3::bigint[], $4::bytea[], $5::bytea[]) AS k
                 ON CONFLICT (repo, term, block) DO UPDATE
                 SET data = excluded.data, positions = excluded.positions,
                     written = excluded.written",
                &[
                    &key,
                    &put_terms,
                    &put_blocks,
                    &put_data,
                    &put_positions,
                    &update.to.through,
                ],
            )
            .map_err(&err)?;
            tx.execute(
                "INSERT INTO search_docs (repo, item_id, doc, len, terms)
                 SELECT $1, k.* FROM unnest($2::text[], $3::bigint[], $4::bigint[], $5::text[]) AS k
                 ON CONFLICT (repo, item_id) DO UPDATE
                 SET doc = excluded.doc, len = excluded.len, terms = excluded.terms",
                &[&key, &ids, &docs, &lens, &terms],
            )
            .map_err(&err)?;
            tx.execute(
                "DELETE FROM search_dirty WHERE repo = $1 AND item = ANY($2)",
                &[&key, &read],
            )
            .map_err(&err)?;
            let to = update.to;
            tx.execute(
                "UPDATE search_state SET through = $2, next_doc = $3, docs = $4, total_len = $5
                 WHERE repo = $1",
                &[
                    &key,
                    &to.through,
                    &i64::from(to.next_doc),
                    &(to.stats.docs as i64),
                    &(to.stats.total_len as i64),
                ],
            )
            .map_err(&err)?;
            tx.commit().map_err(&err)?;
            Ok(true)
        })
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
pub(crate) fn migrate_0018(store: &PgStore, tx: &mut postgres::Transaction<'_>) -> Result<()> {
    let err = store.err("splitting the word index's blocks (migration 0018)");
    let mut after: (i64, String, i64) = (i64::MIN, String::new(), -1);
    loop {
        let rows = tx
            .query(
                "SELECT repo, term, block, data FROM search_postings
                 WHERE (repo, term, block) > ($1, $2, $3) AND length(data) > 0
                 ORDER BY repo, term, block LIMIT $4",
                &[&after.0, &after.1, &after.2, &SPLIT_ROWS],
            )
            .map_err(&err)?;
        let Some(last) = rows.last() else {
            return Ok(());
        };
        after = (last.get(0), last.get(1), last.get(2));
        let (mut repos, mut terms, mut blocks) = (Vec::new(), Vec::new(), Vec::new());
        let (mut docs, mut positions) = (Vec::new(), Vec::new());
        for r in &rows {
            let (repo, term, block): (i64, String, i64) = (r.get(0), r.get(1), r.get(2));
            let split = postings::split_first_format(r.get(3))
                .map_err(|e| store.corrupt(unsplittable(repo, &term, block, &e)))?;
            repos.push(repo);
            terms.push(term);
            blocks.push(block);
            docs.push(split.docs);
            positions.push(split.positions);
        }
        tx.execute(
            "UPDATE search_postings p SET data = k.data, positions = k.positions
             FROM unnest($1::bigint[], $2::text[], $3::bigint[], $4::bytea[], $5::bytea[])
                 AS k(repo, term, block, data, positions)
             WHERE p.repo = k.repo AND p.term = k.term AND p.block = k.block",
            &[&repos, &terms, &blocks, &docs, &positions],
        )
        .map_err(&err)?;
    }
}
