//! The word index as both stores keep it: posting blocks by
//! `(repository, term, block)` ([`signals_core::search::postings`]), each
//! item's document number, weighted length and terms (to take it out
//! again), and per repository the index's statistics and how far it has
//! read (`through`: every item whose latest snapshot id is at most this is
//! indexed as of that snapshot).
//!
//! The index is derived data, kept apart from a run's commit: after a run
//! commits, [`catch_up`] reads the items whose latest snapshot is newer
//! than `through` (a chunk at a time, by an index on `items (repo,
//! latest)`: it costs what changed) and those whose comments were stored
//! since (`search_dirty`, marked by the comments' store in its own
//! transaction), indexes each with its comments,
//! rewrites the blocks of the terms that came or went, and commits that
//! with the new `through` in one transaction ([`SearchIndex::search_apply`]),
//! which refuses a state that moved meanwhile. A process killed between
//! a run's commit and its indexing leaves `through` behind, and the next
//! catch-up (the next `collect`, even a quiet one) completes it. A store
//! from before the index starts at `through` = 0 and is indexed whole by
//! its first catch-up. `signals migrate` copies no index row: the copy is
//! indexed from its snapshots. Each block row carries the `through` of the
//! update that last wrote it (`written`), and a block left without
//! documents stays as an empty row, so an export knows which terms changed
//! since it last wrote them ([`SearchIndex::search_terms_written`]).

use std::collections::{BTreeMap, HashMap};

use signals_core::search::postings::{self, Block, Entry, block_of};
use signals_core::search::{DocText, Positions, Stats, index, rank};

use crate::{RepoKey, Result, StoreError};

/// Items indexed per transaction.
pub const CHUNK: usize = 2000;

/// A repository's index as a whole.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
pub struct SearchState {
    /// Every item whose latest snapshot id is at most this is indexed.
    pub through: i64,
    /// The next document number to give.
    pub next_doc: u32,
    /// Documents and their total weighted length.
    pub stats: Stats,
}

/// What the index holds of one item.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct IndexedDoc {
    /// Its document number.
    pub doc: u32,
    /// Its weighted length.
    pub len: u32,
    /// Its distinct terms, sorted, joined by `\n`.
    pub terms: String,
}

/// An item to (re)index.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct PendingItem {
    /// The signal id.
    pub id: String,
    /// Its latest snapshot's id.
    pub latest: i64,
    /// What the index holds of it, if anything.
    pub indexed: Option<IndexedDoc>,
}

/// One transaction of the index: the blocks to write (an empty block has
/// no document left; its row stays, empty, so an incremental export sees
/// that the term changed), the documents to write, and the new state,
/// applied only if the stored state is still `from`.
#[derive(Debug, Clone, PartialEq, Eq, Default)]
pub struct SearchUpdate {
    /// The state this update was computed from.
    pub from: SearchState,
    /// The state after it.
    pub to: SearchState,
    /// `(term, block number, block)`.
    pub blocks: Vec<(String, u32, Block)>,
    /// `(signal id, document)`.
    pub docs: Vec<(String, IndexedDoc)>,
    /// Every item this update read (their marks of stored comments go).
    pub read: Vec<String>,
}

/// What [`SearchIndex::search_each_block`] hands each block to: its term,
/// its number, its documents' part and its positions' part.
pub type EachBlock<'a> = dyn FnMut(&str, u32, &[u8], &[u8]) -> Result<()> + 'a;

/// The word index's reads and its one write, both backends alike.
pub trait SearchIndex {
    /// The repository's index state (all zero before its first catch-up).
    fn search_state(&self, repo: RepoKey) -> Result<SearchState>;

    /// The non-empty blocks of `term`, in block order, with their
    /// positions only when `positions` says to read them (else their
    /// positions' part is empty: a word reads a third of a phrase's bytes).
    fn search_blocks(&self, repo: RepoKey, term: &str, positions: Positions) -> Result<Vec<Block>>;

    /// The non-empty blocks of each of `terms`, without positions: one
    /// list per term, in the order of `terms` (empty for a term with no
    /// block). What a prefix reads: its terms' lists at once. The default
    /// reads them one term at a time; a store across a network reads
    /// them in one statement (a prefix of 69 terms was 70 round trips).
    fn search_blocks_of(&self, repo: RepoKey, terms: &[String]) -> Result<Vec<Vec<Block>>> {
        terms
            .iter()
            .map(|term| self.search_blocks(repo, term, Positions::Skip))
            .collect()
    }

    /// The blocks (whole) of each `(term, block)` that exists.
    fn search_blocks_at(
        &self,
        repo: RepoKey,
        keys: &[(String, u32)],
    ) -> Result<HashMap<(String, u32), Block>>;

    /// The first `limit` terms starting with `prefix` that some document
    /// holds, sorted by bytes.
    fn search_expand(&self, repo: RepoKey, prefix: &str, limit: usize) -> Result<Vec<String>>;

    /// The terms whose blocks an update after `after` (a `through`) wrote
    /// or emptied, sorted: what an incremental export rewrites.
    fn search_terms_written(&self, repo: RepoKey, after: i64) -> Result<Vec<String>>;

    /// Every non-empty block of the repository, in term then block order,
    /// handed to `each` one at a time.
    fn search_each_block(&self, repo: RepoKey, each: &mut EachBlock<'_>) -> Result<()>;

    /// Every indexed item's signal id and document number.
    fn search_docs(&self, repo: RepoKey) -> Result<Vec<(String, u32)>>;

    /// Up to `limit` items whose latest snapshot id is above `through` or
    /// whose comments were stored since they were indexed, in latest
    /// snapshot id order, with what the index holds of each.
    fn search_pending(&self, repo: RepoKey, through: i64, limit: usize)
    -> Result<Vec<PendingItem>>;

    /// The bodies of the comments of each of `ids`, oldest first.
    fn search_comments(
        &self,
        repo: RepoKey,
        ids: &[String],
    ) -> Result<HashMap<String, Vec<String>>>;

    /// Applies `update` in one transaction if the stored state is still
    /// `update.from`; `Ok(false)` (nothing written) if it moved.
    fn search_apply(&mut self, repo: RepoKey, update: &SearchUpdate) -> Result<bool>;
}

/// The upper bound of the terms starting with `prefix` in byte order:
/// `prefix` followed by the largest character.
pub fn prefix_end(prefix: &str) -> String {
    format!("{prefix}\u{10FFFF}")
}

/// What migration 0018 says of a stored block it cannot cut in two: which
/// block, why, and how to have the index rebuilt (both backends).
pub fn unsplittable(repo: i64, term: &str, block: i64, e: &postings::BlockError) -> String {
    format!(
        "migration 0018: the word index's block {block} of {term:?} (repository {repo}): {e}; \
         delete the store's word index (DELETE FROM search_postings; DELETE FROM search_docs; \
         DELETE FROM search_state) and it is rebuilt by the next collect"
    )
}

/// Indexes every item of `repo` that changed since the last catch-up, a
/// chunk at a time; returns how many items were (re)indexed.
pub fn catch_up<S>(store: &mut S, repo: RepoKey) -> Result<u64>
where
    S: SearchIndex + crate::Reads + ?Sized,
{
    let mut done = 0u64;
    let mut moved = 0;
    loop {
        let state = store.search_state(repo)?;
        let pending = store.search_pending(repo, state.through, CHUNK)?;
        if pending.is_empty() {
            return Ok(done);
        }
        let update = plan(&*store, repo, state, &pending)?;
        if store.search_apply(repo, &update)? {
            done += pending.len() as u64;
        } else {
            moved += 1;
            if moved > 3 {
                return Err(StoreError::Corrupt {
                    path: format!("repository {repo}").into(),
                    what: "the word index's state kept moving while it was being updated; \
                           is another process indexing the same store?"
                        .into(),
                });
            }
        }
    }
}

/// The update that indexes `pending` on top of `state`.
fn plan<S>(
    store: &S,
    repo: RepoKey,
    state: SearchState,
    pending: &[PendingItem],
) -> Result<SearchUpdate>
where
    S: SearchIndex + crate::Reads + ?Sized,
{
    let ids: Vec<String> = pending.iter().map(|p| p.id.clone()).collect();
    let snapshots = store.latest_snapshots_for(repo, &ids)?;
    let comments = store.search_comments(repo, &ids)?;
    let mut to = state;
    // Items marked for their comments may be older than `through`.
    to.through = pending
        .iter()
        .map(|p| p.latest)
        .max()
        .unwrap_or(state.through)
        .max(state.through);
    // Per (term, block): the documents to take out, the entries to put in.
    let mut changes: BTreeMap<(String, u32), (Vec<u32>, Vec<Entry>)> = BTreeMap::new();
    let mut docs = Vec::with_capacity(pending.len());
    for item in pending {
        let doc = match &item.indexed {
            Some(old) => {
                for term in old.terms.split('\n').filter(|t| !t.is_empty()) {
                    let key = (term.to_string(), block_of(old.doc));
                    changes.entry(key).or_default().0.push(old.doc);
                }
                to.stats.docs = to.stats.docs.saturating_sub(1);
                to.stats.total_len = to.stats.total_len.saturating_sub(u64::from(old.len));
                old.doc
            }
            None => {
                to.next_doc += 1;
                to.next_doc - 1
            }
        };
        let Some(snapshot) = snapshots.get(&item.id) else {
            continue;
        };
        let bodies = comments.get(&item.id);
        let text = DocText {
            title: &snapshot.title,
            labels: snapshot.labels.iter().map(String::as_str).collect(),
            author: &snapshot.author,
            body: &snapshot.text,
            comments: bodies
                .map(|b| b.iter().map(String::as_str).collect())
                .unwrap_or_default(),
        };
        let indexed = index(&text);
        for term in indexed.terms.keys() {
            let key = (term.clone(), block_of(doc));
            if let Some(entry) = indexed.entry(doc, term) {
                changes.entry(key).or_default().1.push(entry);
            }
        }
        to.stats.docs += 1;
        to.stats.total_len += u64::from(indexed.len);
        docs.push((
            item.id.clone(),
            crate::search::IndexedDoc {
                doc,
                len: indexed.len,
                terms: indexed.term_list(),
            },
        ));
    }
    let keys: Vec<(String, u32)> = changes.keys().cloned().collect();
    let mut stored = store.search_blocks_at(repo, &keys)?;
    let mut blocks = Vec::with_capacity(changes.len());
    for (key, (mut remove, add)) in changes {
        let mut entries = Vec::new();
        if let Some(block) = stored.remove(&key).filter(|b| !b.is_empty()) {
            let positions = Some(block.positions.as_slice());
            postings::decode(&block.docs, positions, &mut entries).map_err(|e| {
                StoreError::Corrupt {
                    path: format!("repository {repo}").into(),
                    what: format!("the word index's block {} of {:?}: {e}", key.1, key.0),
                }
            })?;
        }
        remove.sort_unstable();
        remove.dedup();
        let merged = postings::merge(entries, &remove, add);
        let block = if merged.is_empty() {
            Block::default()
        } else {
            postings::encode(&merged)
        };
        blocks.push((key.0, key.1, block));
    }
    Ok(SearchUpdate {
        from: state,
        to,
        blocks,
        docs,
        read: ids,
    })
}

/// A repository's posting lists, read from its store as a query asks for
/// them: what `signals serve` and the suite answer queries from.
pub struct Postings<'a, S: ?Sized> {
    /// The store.
    pub store: &'a S,
    /// The repository.
    pub repo: RepoKey,
}

/// The error of a damaged block of `term`'s list.
fn damaged(repo: RepoKey, term: &str) -> impl Fn(postings::BlockError) -> StoreError + '_ {
    move |e| StoreError::Corrupt {
        path: format!("repository {repo}").into(),
        what: format!("the word index's list of {term:?}: {e}"),
    }
}

impl<S: SearchIndex + ?Sized> signals_core::search::Source for Postings<'_, S> {
    type Error = StoreError;

    fn entries(&mut self, term: &str, positions: Positions) -> Result<Vec<Entry>> {
        let mut out = Vec::new();
        for block in self.store.search_blocks(self.repo, term, positions)? {
            let with = (positions == Positions::Read).then_some(block.positions.as_slice());
            postings::decode(&block.docs, with, &mut out).map_err(damaged(self.repo, term))?;
        }
        Ok(out)
    }

    fn expand(&mut self, prefix: &str, limit: usize) -> Result<Vec<String>> {
        self.store.search_expand(self.repo, prefix, limit)
    }

    /// Scores as it reads: the blocks' counts give the idf first, then
    /// each entry is scored where it is decoded, and no list of entries
    /// is kept (a word in every one of 100,000 items made 100,000).
    fn scored(&mut self, term: &str, stats: Stats) -> Result<Vec<(u32, f64)>> {
        let blocks = self.store.search_blocks(self.repo, term, Positions::Skip)?;
        score_blocks(&blocks, stats, damaged(self.repo, term))
    }

    /// Every term's blocks read at once ([`SearchIndex::search_blocks_of`]),
    /// then scored as [`Postings::scored`] scores one term's.
    fn scored_each(&mut self, terms: &[String], stats: Stats) -> Result<Vec<Vec<(u32, f64)>>> {
        // One list per term, in order: the trait's contract, checked by
        // the store suite.
        let lists = self.store.search_blocks_of(self.repo, terms)?;
        terms
            .iter()
            .zip(&lists)
            .map(|(term, blocks)| score_blocks(blocks, stats, damaged(self.repo, term)))
            .collect()
    }
}

/// Every entry of one term's `blocks` (documents' parts), in document
/// order, with its BM25 share: the blocks' counts give the idf first.
fn score_blocks(
    blocks: &[Block],
    stats: Stats,
    damaged: impl Fn(postings::BlockError) -> StoreError,
) -> Result<Vec<(u32, f64)>> {
    let mut df = 0usize;
    for block in blocks {
        df += postings::count(&block.docs).map_err(&damaged)? as usize;
    }
    let mut scorer = rank::TermScorer::new(stats, rank::idf(stats, df), df);
    let mut out = Vec::with_capacity(df);
    for block in blocks {
        postings::each(&block.docs, |e| {
            out.push((e.doc, scorer.score(e.len, e.tf, e.title_tf)));
        })
        .map_err(&damaged)?;
    }
    Ok(out)
}
