//! Text search of the signals list (issue 28): the query, parsed by the
//! search language (`signals_core::search`), is answered from the store's
//! word index and ranked by BM25; its documents are mapped to the rows of
//! the repository's index, where the list's other filters and orders
//! apply. Nothing is scanned: the cost is the posting lists of the query's
//! terms.

use signals_core::search::{MAX_EXPANSION, Query, SearchFailure, evaluate};
use signals_store::search::Postings;
use signals_store::{Backend, RepoSummary};

use super::index::RepoIndex;

/// What a search found.
pub enum Searched {
    /// The matching rows and their scores (millionths), in row order of the
    /// index's documents.
    Rows(Vec<(u32, i64)>),
    /// The search cannot be answered; the message says why (a 400).
    Refused(String),
    /// The repository's word index has not been built yet (a 503).
    NotIndexed,
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
            (store, s, state.through),
            |rows| {
                hits.iter()
                    .filter_map(|h| {
                        let row = *rows.get(h.doc as usize)?;
                        (row != u32::MAX).then_some((row, h.score))
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

/// `rows` (matching rows with their scores) kept where `allowed` (the
/// filters' rows, in the asked order) has them: in `allowed`'s order, or
/// best score first (ties by importance, then id) for relevance, of which
/// only the first `shown` are put in order (the pages up to the one asked
/// for; the rest only count).
pub fn order(
    index: &RepoIndex,
    rows: Vec<(u32, i64)>,
    allowed: &[u32],
    (relevance, shown): (bool, usize),
) -> Vec<u32> {
    let mut score: Vec<Option<i64>> = vec![None; index.rows.len()];
    for (row, s) in rows {
        if let Some(slot) = score.get_mut(row as usize) {
            *slot = Some(s);
        }
    }
    let mut out: Vec<u32> = allowed
        .iter()
        .copied()
        .filter(|&p| score[p as usize].is_some())
        .collect();
    if relevance {
        // Rows are in id order, so ties by id are by position.
        let best_first = |a: &u32, b: &u32| {
            let key = |p: u32| (score[p as usize], index.rows[p as usize].score);
            key(*b).cmp(&key(*a)).then(a.cmp(b))
        };
        if out.len() > shown {
            out.select_nth_unstable_by(shown, best_first);
            out[..shown].sort_by(best_first);
        } else {
            out.sort_by(best_first);
        }
    }
    out
}
