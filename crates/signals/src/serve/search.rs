//! Text search of the signals list: the query, parsed by the
//! search language (`signals_core::search`), is answered from the store's
//! word index and ranked by BM25; its documents are mapped to the rows of
//! the repository's index, where the list's other filters and orders
//! apply. Nothing is scanned: the cost is the posting lists of the query's
//! terms.

use signals_core::search::{MAX_EXPANSION, Query, SearchFailure, evaluate};
use signals_store::search::Postings;
use signals_store::{Backend, RepoSummary};

use super::index::{DocRow, RepoIndex};

/// What a search found.
pub enum Searched {
    /// The matching rows, in the order of the word index's documents.
    Rows(Vec<Match>),
    /// The search cannot be answered; the message says why (a 400).
    Refused(String),
    /// The repository's word index has not been built yet (a 503).
    NotIndexed,
}

/// A matching row.
#[derive(Debug, Clone, Copy)]
pub struct Match {
    /// Its position in the index.
    pub row: u32,
    /// Its score, in millionths.
    pub score: i64,
    /// Its importance.
    pub importance: u32,
}

/// The rows of `index` that `query` matches, with their scores.
pub fn search(
    store: &dyn Backend,
    s: &RepoSummary,
    index: &RepoIndex,
    query: &Query,
) -> anyhow::Result<Searched> {
    let state = store.search_state(s.key)?;
    if state.through == 0 && !index.rows.is_empty() {
        return Ok(Searched::NotIndexed);
    }
    let mut source = Postings { store, repo: s.key };
    match evaluate(query, state.stats, &mut source) {
        Ok(hits) => Ok(Searched::Rows(index.with_document_rows(
            store,
            s,
            state.through,
            |docs: &[DocRow]| {
                hits.iter()
                    .filter_map(|h| {
                        let d = docs.get(h.doc as usize)?;
                        (d.row != DocRow::NONE.row).then_some(Match {
                            row: d.row,
                            score: h.score,
                            importance: d.importance,
                        })
                    })
                    .collect()
            },
        )?)),
        Err(SearchFailure::TooManyTerms(prefix)) => Ok(Searched::Refused(format!(
            "more than {MAX_EXPANSION} different words start with {prefix:?}: make the prefix longer"
        ))),
        Err(SearchFailure::Source(e)) => Err(e.into()),
    }
}

/// How [`order`] ranks the matches of a search.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Ranking {
    /// In the order the list was asked in (importance or update time).
    Asked,
    /// Best score first; only the first `shown` are kept, the rest
    /// counted.
    Relevance {
        /// The matches on the pages up to the one asked for.
        shown: usize,
    },
}

/// `matches` kept where `allowed` (the filters' rows of an index of `n`
/// rows, in the asked order) has them, and how many: in `allowed`'s
/// order, or best score first (ties by importance, then id) for
/// relevance. For relevance only the first `shown` (the pages up to the
/// one asked for) are returned, the rest only counted.
///
/// Relevance keeps the best `shown` of compact keys (score, importance,
/// row) taken from the matches alone, in a heap: each match is compared
/// with the worst kept one, and no row of the index is visited (with a
/// word in every one of 100,000 items, visiting the rows and ordering all
/// matches were most of a request's time).
pub fn order(
    n: usize,
    matches: Vec<Match>,
    allowed: &[u32],
    ranking: Ranking,
) -> (Vec<u32>, usize) {
    let shown = match ranking {
        Ranking::Relevance { shown } => shown,
        Ranking::Asked => 0,
    };
    if ranking == Ranking::Asked {
        let mut hit = vec![false; n];
        for m in &matches {
            if let Some(slot) = hit.get_mut(m.row as usize) {
                *slot = true;
            }
        }
        let rows: Vec<u32> = allowed
            .iter()
            .copied()
            .filter(|&p| hit[p as usize])
            .collect();
        let total = rows.len();
        return (rows, total);
    }
    // `allowed` holds each row at most once: as many as there are rows is
    // every row (no filter), and then no pass over all rows is needed.
    let everything = allowed.len() == n;
    let mut ok = Vec::new();
    if !everything {
        ok = vec![false; n];
        for &p in allowed {
            ok[p as usize] = true;
        }
    }
    // Best first is smallest first: the highest score, then importance;
    // ties by id, which is row order.
    type Key = (std::cmp::Reverse<(i64, u32)>, u32);
    let mut best: std::collections::BinaryHeap<Key> =
        std::collections::BinaryHeap::with_capacity(shown + 1);
    let mut total = 0;
    for m in matches {
        if (m.row as usize) >= n || !(everything || ok[m.row as usize]) {
            continue;
        }
        total += 1;
        let key = (std::cmp::Reverse((m.score, m.importance)), m.row);
        if best.len() < shown {
            best.push(key);
        } else if let Some(mut worst) = best.peek_mut()
            && key < *worst
        {
            *worst = key;
        }
    }
    let rows = best.into_sorted_vec().into_iter().map(|(_, p)| p).collect();
    (rows, total)
}
