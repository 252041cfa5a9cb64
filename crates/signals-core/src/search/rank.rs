//! Answering a query from posting lists: which documents match
//! ([`super::query`]'s rules) and how well, by BM25 over the weighted
//! document ([`super::doc`]): `k1` = 1.2, `b` = 0.75, a term's frequency
//! counting its title occurrences [`TITLE_WEIGHT`] times. A phrase scores
//! as its words; a prefix as every term it stands for that the document
//! holds. Scores are rounded to millionths ([`Hit::score`]) so that the
//! browser's script, doing the same sums in the same order on the same
//! doubles, ranks exactly as the API; ties are for the caller to break (by
//! importance, then id).
//!
//! [`scan`] answers the same question from a document's text alone, with
//! no index: the reference that recall is checked against.

use super::doc::{DocText, TITLE_WEIGHT, index};
use super::postings::Entry;
use super::query::{Clause, Part, Query};

/// BM25's `k1`.
pub const K1: f64 = 1.2;
/// BM25's `b`.
pub const B: f64 = 0.75;

/// What BM25 needs of the whole index.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
pub struct Stats {
    /// Documents in the index.
    pub docs: u64,
    /// The sum of their weighted lengths.
    pub total_len: u64,
}

/// A matching document and its score in millionths.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Hit {
    /// The document's number.
    pub doc: u32,
    /// BM25, × 1,000,000, rounded.
    pub score: i64,
}

/// The most terms a prefix may stand for.
pub const MAX_EXPANSION: usize = 1000;

/// Whether a posting list is read with each entry's word positions: a
/// phrase needs them, a word or a prefix does not.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Positions {
    /// Each entry with its positions.
    Read,
    /// The entries without their positions.
    Skip,
}

/// Where posting lists come from: the store, or a test's documents.
pub trait Source {
    /// Why a list could not be read.
    type Error;
    /// Every entry of `term`, in document order (with positions when
    /// asked).
    fn entries(&mut self, term: &str, positions: Positions) -> Result<Vec<Entry>, Self::Error>;
    /// The first `limit` indexed terms that start with `prefix`, sorted.
    fn expand(&mut self, prefix: &str, limit: usize) -> Result<Vec<String>, Self::Error>;
    /// Every document of `term`, in document order, with its BM25 share
    /// ([`term_score`], the idf from the list's length): what a word or a
    /// prefix needs. The default reads [`Source::entries`]; a source that
    /// can count a list before reading it may score as it reads, with the
    /// same result.
    fn scored(&mut self, term: &str, stats: Stats) -> Result<Vec<(u32, f64)>, Self::Error> {
        let list = self.entries(term, Positions::Skip)?;
        let mut scorer = TermScorer::new(stats, idf(stats, list.len()), list.len());
        Ok(list
            .iter()
            .map(|e| (e.doc, scorer.score(e.len, e.tf, e.title_tf)))
            .collect())
    }

    /// [`Source::scored`] of each of `terms`, in their order: what a
    /// prefix needs. The default scores one term at a time; a source that
    /// can read several lists at once (one round trip to a server) may,
    /// with the same result.
    fn scored_each(
        &mut self,
        terms: &[String],
        stats: Stats,
    ) -> Result<Vec<Vec<(u32, f64)>>, Self::Error> {
        terms.iter().map(|t| self.scored(t, stats)).collect()
    }
}

/// Why a query could not be answered.
#[derive(Debug, thiserror::Error)]
pub enum SearchFailure<E> {
    /// The source failed.
    #[error(transparent)]
    Source(E),
    /// A prefix stands for too many terms to look up at once.
    #[error("more than {MAX_EXPANSION} different words start with {0:?}: make the prefix longer")]
    TooManyTerms(String),
}

/// A term's inverse document frequency.
pub fn idf(stats: Stats, df: usize) -> f64 {
    let (n, df) = (stats.docs as f64, df as f64);
    ((n - df + 0.5) / (df + 0.5)).ln_1p()
}

/// One entry's share of a score, given its term's idf.
pub fn term_score(stats: Stats, idf: f64, e: &Entry) -> f64 {
    share(idf, average(stats), weighted_tf(e.tf, e.title_tf), e.len)
}

/// The average weighted length of the index's documents.
fn average(stats: Stats) -> f64 {
    if stats.docs == 0 {
        1.0
    } else {
        stats.total_len as f64 / stats.docs as f64
    }
}

/// A term's frequency with its title occurrences counted
/// [`TITLE_WEIGHT`] times.
fn weighted_tf(tf: u32, title_tf: u32) -> u32 {
    tf.saturating_add((TITLE_WEIGHT - 1).saturating_mul(title_tf))
}

/// BM25's share of one term in one document: the same operations in the
/// same order as the site's script (`search.js`), so both round alike.
fn share(idf: f64, avg: f64, tf: u32, len: u32) -> f64 {
    let tf = f64::from(tf);
    let norm = K1 * (1.0 - B + B * f64::from(len) / avg);
    idf * (tf * (K1 + 1.0)) / (tf + norm)
}

/// Weighted lengths below this have their shares remembered.
const MEMO_LENS: u32 = 1024;
/// Weighted frequencies below this have their shares remembered.
const MEMO_TFS: u32 = 32;
/// Lists at least this long remember shares (a shorter one would spend
/// more filling the memory than it saves).
const MEMO_DF: usize = 16_384;

/// [`term_score`] for every entry of one term's list. For a long list
/// each share is computed once per (weighted length, weighted frequency):
/// a common word's 100,000 entries hold a few thousand such pairs, and
/// the two divisions of each share were most of scoring them. The
/// remembered value is the one [`term_score`] computes, bit for bit.
pub struct TermScorer {
    idf: f64,
    avg: f64,
    memo: Vec<f64>,
}

impl TermScorer {
    /// A scorer for a term of inverse document frequency `idf` held by
    /// `df` documents.
    pub fn new(stats: Stats, idf: f64, df: usize) -> TermScorer {
        let memo = if df >= MEMO_DF {
            vec![f64::NAN; (MEMO_LENS * MEMO_TFS) as usize]
        } else {
            Vec::new()
        };
        TermScorer {
            idf,
            avg: average(stats),
            memo,
        }
    }

    /// The share of an entry of weighted length `len` holding the term
    /// `tf` times, `title_tf` of them in the title.
    #[inline]
    pub fn score(&mut self, len: u32, tf: u32, title_tf: u32) -> f64 {
        let tf = weighted_tf(tf, title_tf);
        if len < MEMO_LENS
            && tf < MEMO_TFS
            && let Some(slot) = self.memo.get_mut((len * MEMO_TFS + tf) as usize)
        {
            if slot.is_nan() {
                *slot = share(self.idf, self.avg, tf, len);
            }
            return *slot;
        }
        share(self.idf, self.avg, tf, len)
    }
}

/// Matching documents of one clause, in document order, with the clause's
/// score for each.
fn clause<S: Source>(
    c: &Clause,
    stats: Stats,
    source: &mut S,
) -> Result<Vec<(u32, f64)>, SearchFailure<S::Error>> {
    match c {
        Clause::Phrase(parts) if parts.len() == 1 => source
            .scored(&parts[0].term, stats)
            .map_err(SearchFailure::Source),
        Clause::Phrase(parts) => phrase(parts, stats, source).map_err(SearchFailure::Source),
        Clause::Prefix(prefix) => {
            let terms = source
                .expand(prefix, MAX_EXPANSION + 1)
                .map_err(SearchFailure::Source)?;
            if terms.len() > MAX_EXPANSION {
                return Err(SearchFailure::TooManyTerms(format!("{prefix}*")));
            }
            let lists = source
                .scored_each(&terms, stats)
                .map_err(SearchFailure::Source)?;
            Ok(sum_by_doc(lists))
        }
    }
}

/// Each document's scores in `lists` (each in document order), summed in
/// the order of the lists, so the sums are the same wherever they are
/// computed. When the lists cover much of the documents' range (a common
/// prefix), the sums go into an array indexed by document, read back in
/// order; else the entries are sorted by document (a stable sort keeps
/// the lists' order within a document). Both add in the same order, from
/// the same first share, so they give the same bits.
fn sum_by_doc(mut lists: Vec<Vec<(u32, f64)>>) -> Vec<(u32, f64)> {
    if lists.len() <= 1 {
        return lists.pop().unwrap_or_default();
    }
    let total: usize = lists.iter().map(Vec::len).sum();
    let end = lists
        .iter()
        .filter_map(|l| l.last())
        .map(|&(doc, _)| doc as usize + 1)
        .max()
        .unwrap_or(0);
    match total.saturating_mul(8) >= end {
        true => sum_dense(&lists, end),
        false => sum_sorted(&lists),
    }
}

/// [`sum_by_doc`] into an array of the documents below `end`.
fn sum_dense(lists: &[Vec<(u32, f64)>], end: usize) -> Vec<(u32, f64)> {
    let mut sums: Vec<Option<f64>> = vec![None; end];
    for &(doc, score) in lists.iter().flatten() {
        let sum = &mut sums[doc as usize];
        *sum = Some(sum.map_or(score, |s| s + score));
    }
    (0u32..)
        .zip(sums)
        .filter_map(|(doc, sum)| sum.map(|s| (doc, s)))
        .collect()
}

/// [`sum_by_doc`] by a stable sort of every entry.
fn sum_sorted(lists: &[Vec<(u32, f64)>]) -> Vec<(u32, f64)> {
    let mut all: Vec<(u32, f64)> = lists.concat();
    all.sort_by_key(|(doc, _)| *doc);
    let mut out: Vec<(u32, f64)> = Vec::with_capacity(all.len());
    for (doc, score) in all {
        match out.last_mut() {
            Some((d, s)) if *d == doc => *s += score,
            _ => out.push((doc, score)),
        }
    }
    out
}

fn phrase<S: Source>(
    parts: &[Part],
    stats: Stats,
    source: &mut S,
) -> Result<Vec<(u32, f64)>, S::Error> {
    let mut lists = Vec::with_capacity(parts.len());
    for p in parts {
        let list = source.entries(&p.term, Positions::Read)?;
        let idf = idf(stats, list.len());
        lists.push((list, idf));
    }
    let mut cursors = vec![0usize; lists.len()];
    let mut out = Vec::new();
    'docs: for e in &lists[0].0 {
        let mut entries = Vec::with_capacity(lists.len());
        for (i, (list, _)) in lists.iter().enumerate() {
            let c = &mut cursors[i];
            while *c < list.len() && list[*c].doc < e.doc {
                *c += 1;
            }
            match list.get(*c) {
                Some(found) if found.doc == e.doc => entries.push(found),
                _ => continue 'docs,
            }
        }
        let at = |start: u32| {
            parts.iter().zip(&entries).all(|(p, entry)| {
                let want = start.checked_add(p.offset);
                want.is_some_and(|w| entry.positions.binary_search(&w).is_ok())
            })
        };
        let first = parts[0].offset;
        if e.positions.iter().any(|&p| p >= first && at(p - first)) {
            let score = entries
                .iter()
                .zip(&lists)
                .map(|(entry, (_, idf))| term_score(stats, *idf, entry))
                .fold(0.0, |a, b| a + b);
            out.push((e.doc, score));
        }
    }
    Ok(out)
}

/// The documents of both `a` and `b` (each in document order), each with
/// the sum of its two scores (one addition: the same bits whichever list
/// is walked). The shorter list is walked and the longer one searched
/// ahead by doubling steps, so a rare word after a common one costs the
/// rare word's length, not the common one's.
fn intersect(a: &[(u32, f64)], b: &[(u32, f64)]) -> Vec<(u32, f64)> {
    let (short, long) = if a.len() <= b.len() { (a, b) } else { (b, a) };
    let mut out = Vec::with_capacity(short.len());
    let mut from = 0;
    for &(doc, score) in short {
        from += ahead(&long[from..], doc);
        match long.get(from) {
            Some(&(d, other)) if d == doc => out.push((doc, score + other)),
            Some(_) => {}
            None => break,
        }
    }
    out
}

/// How many of `list`'s first entries are below `doc`: a doubling search
/// from the start, then a binary one within the last step.
fn ahead(list: &[(u32, f64)], doc: u32) -> usize {
    let mut step = 1;
    while step < list.len() && list[step].0 < doc {
        step *= 2;
    }
    let end = (step + 1).min(list.len());
    let start = step / 2;
    start + list[start..end].partition_point(|&(d, _)| d < doc)
}

/// The documents matching `query`, with their scores, in document order.
pub fn evaluate<S: Source>(
    query: &Query,
    stats: Stats,
    source: &mut S,
) -> Result<Vec<Hit>, SearchFailure<S::Error>> {
    let mut matched: Option<Vec<(u32, f64)>> = None;
    for c in &query.include {
        let found = clause(c, stats, source)?;
        matched = Some(match matched {
            None => found,
            Some(so_far) => intersect(&so_far, &found),
        });
        if matched.as_ref().is_some_and(Vec::is_empty) {
            break;
        }
    }
    let mut matched = matched.unwrap_or_default();
    for c in &query.exclude {
        if matched.is_empty() {
            break;
        }
        let found = clause(c, stats, source)?;
        let mut j = 0;
        matched.retain(|(doc, _)| {
            while j < found.len() && found[j].0 < *doc {
                j += 1;
            }
            found.get(j).is_none_or(|(d, _)| d != doc)
        });
    }
    Ok(matched
        .into_iter()
        .map(|(doc, score)| Hit {
            doc,
            score: (score * 1_000_000.0).round() as i64,
        })
        .collect())
}

/// Whether `doc` matches `query`, from its text alone (no index, no
/// ranking): the reference for recall.
pub fn scan(query: &Query, doc: &DocText<'_>) -> bool {
    let indexed = index(doc);
    let holds = |c: &Clause| match c {
        Clause::Prefix(prefix) => indexed
            .terms
            .range::<str, _>((
                std::ops::Bound::Included(prefix.as_str()),
                std::ops::Bound::Unbounded,
            ))
            .next()
            .is_some_and(|(t, _)| t.starts_with(prefix.as_str())),
        Clause::Phrase(parts) => {
            let Some(first) = indexed.terms.get(&parts[0].term) else {
                return false;
            };
            first.positions.iter().any(|&p| {
                p >= parts[0].offset
                    && parts.iter().all(|part| {
                        indexed.terms.get(&part.term).is_some_and(|o| {
                            o.positions
                                .binary_search(&(p - parts[0].offset + part.offset))
                                .is_ok()
                        })
                    })
            })
        }
    };
    query.include.iter().all(holds) && !query.exclude.iter().any(holds)
}

#[cfg(test)]
mod sum_tests {
    use super::{intersect, sum_dense, sum_sorted};

    /// Lists of a prefix's terms, drawn by a small generator: each a
    /// sorted set of documents below `end` with shares of many sizes.
    fn lists(seed: u64, terms: usize, end: u32) -> Vec<Vec<(u32, f64)>> {
        let mut x = seed.wrapping_mul(6364136223846793005).wrapping_add(1);
        let mut next = move || {
            x = x
                .wrapping_mul(6364136223846793005)
                .wrapping_add(1442695040888963407);
            x >> 33
        };
        let mut out = Vec::with_capacity(terms);
        for _ in 0..terms {
            let every = 1 + next() % 7;
            let mut list = Vec::new();
            for doc in 0..end {
                if next() % every == 0 {
                    list.push((doc, (next() % 100_000) as f64 / 7.0 + 0.1));
                }
            }
            out.push(list);
        }
        out
    }

    #[test]
    fn the_array_and_the_sort_sum_to_the_same_bits() {
        for seed in 0..40 {
            let lists = lists(seed, 1 + (seed as usize % 9), 300 + seed as u32 * 17);
            let end = lists
                .iter()
                .filter_map(|l| l.last())
                .map(|&(d, _)| d as usize + 1)
                .max()
                .unwrap_or(0);
            let dense = sum_dense(&lists, end);
            let sorted = sum_sorted(&lists);
            assert_eq!(dense.len(), sorted.len());
            for (a, b) in dense.iter().zip(&sorted) {
                assert_eq!(a.0, b.0);
                assert_eq!(a.1.to_bits(), b.1.to_bits(), "document {}", a.0);
            }
        }
    }

    #[test]
    fn intersecting_by_steps_gives_what_a_merge_gives() {
        for seed in 0..60 {
            let l = lists(seed, 2, 50 + seed as u32 * 97);
            // The second list cut short now and then: one much rarer.
            let (a, mut b) = (l[0].clone(), l[1].clone());
            if seed % 3 == 0 {
                b.retain(|(d, _)| d % 17 == 0);
            }
            for (x, y) in [(&a, &b), (&b, &a)] {
                let mut want = Vec::new();
                for &(doc, s) in x.iter() {
                    if let Some(&(_, t)) = y.iter().find(|(d, _)| *d == doc) {
                        want.push((doc, s + t));
                    }
                }
                let got = intersect(x, y);
                assert_eq!(got.len(), want.len(), "seed {seed}");
                for (g, w) in got.iter().zip(&want) {
                    assert_eq!(g.0, w.0);
                    assert_eq!(g.1.to_bits(), w.1.to_bits(), "document {}", g.0);
                }
            }
        }
        assert!(intersect(&[], &[(1, 1.0)]).is_empty());
    }
}
