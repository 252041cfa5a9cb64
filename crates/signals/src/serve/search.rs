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
///
/// Relevance orders compact keys (score, importance, row), not row
/// positions looked up in the index at each comparison: with a word in
/// every one of 100,000 items, the lookups were most of a request's time.
pub fn order(
    index: &RepoIndex,
    rows: Vec<(u32, i64)>,
    allowed: &[u32],
    (relevance, shown): (bool, usize),
) -> Vec<u32> {
    let n = index.rows.len();
    if !relevance {
        let mut hit = vec![false; n];
        for (p, _) in &rows {
            if let Some(slot) = hit.get_mut(*p as usize) {
                *slot = true;
            }
        }
        return allowed
            .iter()
            .copied()
            .filter(|&p| hit[p as usize])
            .collect();
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
    // Best first: the highest score, then importance; ties by id, which
    // is row order.
    let mut keyed: Vec<(std::cmp::Reverse<(i64, u32)>, u32)> = rows
        .into_iter()
        .filter(|&(p, _)| (p as usize) < n && (everything || ok[p as usize]))
        .map(|(p, s)| (std::cmp::Reverse((s, index.rows[p as usize].score)), p))
        .collect();
    if keyed.len() > shown {
        keyed.select_nth_unstable(shown);
        keyed[..shown].sort_unstable();
    } else {
        keyed.sort_unstable();
    }
    keyed.into_iter().map(|(_, p)| p).collect()
}
