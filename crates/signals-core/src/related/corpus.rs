//! The items of one group held at once, and each one's neighbours.
//!
//! **Weights.** A term of an item weighs its BM25 share ([`rank::idf`]
//! over the group's items × the saturated count, normalised by the
//! item's length against the group's average, `k1` and `b` as the word
//! index's), and an item is the unit vector of its terms' weights. Words
//! that many items hold weigh little; a rare identifier, an error name, a
//! file of a stack frame weighs much.
//!
//! **Candidates.** An item's [`PROBES`] heaviest terms are looked up in
//! the group's postings (terms held by more than [`common_limit`] items
//! are not probed: they find everything and decide nothing), and the
//! [`CANDIDATES`] items with the largest partial products are scored
//! whole. The cost of one item is the postings of its rare terms, not
//! the group's size.
//!
//! **Score.** The cosine of the two vectors; when the two items'
//! sketches resemble ([`NEAR_COPY`] or more of equal MinHash values,
//! the same lines pasted), the larger of the cosine and the resemblance.
//! A pair is related at [`THRESHOLD`] or more; the words shown are the
//! [`SHARED`] terms that add the most to its score.

use std::collections::HashMap;

use super::profile::{Profile, SKETCH};
use super::vector::Vector;
use crate::search::rank::{self, B, K1, Stats};

/// The score from which two items are related, chosen from the planted
/// pairs' recall and precision (docs/importance.md, "Related items").
pub const THRESHOLD: f64 = 0.20;

/// The resemblance of sketches from which two items are near-copies.
pub const NEAR_COPY: f64 = 0.5;

/// How many of an item's heaviest terms find its candidates.
pub const PROBES: usize = 16;

/// How many candidates are scored whole.
pub const CANDIDATES: usize = 64;

/// The most related items kept per item.
pub const LISTED: usize = 20;

/// How many related items an item shows (the API's `related`, a card).
pub const SHOWN: usize = 5;

/// How many shared words a pair shows.
pub const SHARED: usize = 5;

/// The most items a probed term may be held by: 2 % of the group's items,
/// at least 50 and at most 1,000 (a term of more items is common enough
/// that the rarer terms of a pair find it).
pub fn common_limit(items: usize) -> usize {
    (items / 50).clamp(50, 1000)
}

/// An item of the group.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Member {
    /// Its signal id.
    pub id: String,
    /// Its repository (any number the caller tells repositories apart by).
    pub repo: i64,
    /// Whether it is open.
    pub open: bool,
    /// Its terms as keys ([`Profile::vector`]).
    pub vector: Vector,
}

/// One related item as the corpus finds it: the words shared are term
/// keys, named by the listing item's profile ([`Found::named`]).
#[derive(Debug, Clone, PartialEq)]
pub struct Found {
    /// Its signal id.
    pub id: String,
    /// Its repository.
    pub repo: i64,
    /// Whether it is open.
    pub open: bool,
    /// The pair's score, 0 to 1, rounded to two decimals.
    pub score: f64,
    /// The keys of the terms the two share that add the most to the score.
    pub shared: Vec<u64>,
}

impl Found {
    /// The related item with its shared terms named as `profile` (the
    /// listing item's) shows them; a key it does not hold is left out.
    pub fn named(self, profile: &Profile) -> Neighbour {
        Neighbour {
            shared: self
                .shared
                .iter()
                .filter_map(|k| profile.word_of(*k).map(str::to_string))
                .collect(),
            id: self.id,
            repo: self.repo,
            open: self.open,
            score: self.score,
        }
    }
}

/// One related item.
#[derive(Debug, Clone, PartialEq)]
pub struct Neighbour {
    /// Its signal id.
    pub id: String,
    /// Its repository.
    pub repo: i64,
    /// Whether it is open.
    pub open: bool,
    /// The pair's score, 0 to 1, rounded to two decimals.
    pub score: f64,
    /// The words the two share that add the most to the score.
    pub shared: Vec<String>,
}

/// What one thread reuses from item to item: the partial products of
/// every member (dense, zero between items) and those it touched.
pub struct Scratch {
    partial: Vec<f32>,
    seen: Vec<bool>,
    touched: Vec<u32>,
}

/// The group's items with their weighted vectors and the postings of
/// their rare terms, in flat arrays (no allocation per item or term).
pub struct Corpus {
    ids: Vec<String>,
    repos: Vec<i64>,
    open: Vec<bool>,
    /// Member `i`'s sketch is `sketches[i * SKETCH..][..SKETCH]`, or none
    /// when `sketched[i]` is false.
    sketches: Vec<u32>,
    sketched: Vec<bool>,
    by_id: HashMap<String, u32>,
    /// Term keys by number.
    keys: Vec<u64>,
    /// Member `i`'s terms are `terms[starts[i]..starts[i + 1]]` (term
    /// number, weight), sorted by term number.
    starts: Vec<usize>,
    terms: Vec<(u32, f32)>,
    /// Each probed term's members and weights: `posted[heads[t]..heads[t + 1]]`
    /// (empty for a term held by more than the common limit).
    heads: Vec<usize>,
    posted: Vec<(u32, f32)>,
    /// How many members hold each term.
    df: Vec<u32>,
    limit: u32,
}

/// A hasher for keys that are hashes already.
#[derive(Default)]
struct KeyHasher(u64);

impl std::hash::Hasher for KeyHasher {
    fn finish(&self) -> u64 {
        self.0
    }
    fn write(&mut self, bytes: &[u8]) {
        for b in bytes {
            self.0 = self.0.rotate_left(8) ^ u64::from(*b);
        }
    }
    fn write_u64(&mut self, n: u64) {
        self.0 = n;
    }
}

type KeyMap = HashMap<u64, u32, std::hash::BuildHasherDefault<KeyHasher>>;

impl Corpus {
    /// Weighs every member against the others.
    pub fn new(members: Vec<Member>) -> Corpus {
        let mut numbers: KeyMap = KeyMap::default();
        let mut keys: Vec<u64> = Vec::new();
        let mut df: Vec<u32> = Vec::new();
        let mut total_len = 0u64;
        let mut starts = Vec::with_capacity(members.len() + 1);
        let mut terms: Vec<(u32, f32)> = Vec::new();
        starts.push(0);
        for m in &members {
            total_len += u64::from(m.vector.len);
            for (k, tf) in &m.vector.terms {
                let n = *numbers.entry(*k).or_insert_with(|| {
                    keys.push(*k);
                    df.push(0);
                    (keys.len() - 1) as u32
                });
                df[n as usize] += 1;
                terms.push((n, *tf as f32));
            }
            starts.push(terms.len());
        }
        let stats = Stats {
            docs: members.len() as u64,
            total_len,
        };
        let avg = (total_len as f64 / members.len().max(1) as f64).max(1.0);
        let idf: Vec<f64> = df.iter().map(|d| rank::idf(stats, *d as usize)).collect();
        let limit = common_limit(members.len()) as u32;
        for (i, m) in members.iter().enumerate() {
            let norm_len = K1 * (1.0 - B + B * f64::from(m.vector.len) / avg);
            let v = &mut terms[starts[i]..starts[i + 1]];
            for (n, w) in v.iter_mut() {
                let tf = f64::from(*w);
                *w = (idf[*n as usize] * tf * (K1 + 1.0) / (tf + norm_len)) as f32;
            }
            let length = v.iter().map(|(_, w)| w * w).sum::<f32>().sqrt();
            if length > 0.0 {
                v.iter_mut().for_each(|(_, w)| *w /= length);
            }
            v.sort_unstable_by_key(|(n, _)| *n);
        }
        let mut heads = vec![0usize; keys.len() + 1];
        for (t, d) in df.iter().enumerate() {
            heads[t + 1] = heads[t] + if *d <= limit { *d as usize } else { 0 };
        }
        let mut fill = heads.clone();
        let mut posted = vec![(0u32, 0f32); heads[keys.len()]];
        for i in 0..members.len() {
            for (n, w) in &terms[starts[i]..starts[i + 1]] {
                if df[*n as usize] <= limit {
                    posted[fill[*n as usize]] = (i as u32, *w);
                    fill[*n as usize] += 1;
                }
            }
        }
        let mut ids = Vec::with_capacity(members.len());
        let mut repos = Vec::with_capacity(members.len());
        let mut open = Vec::with_capacity(members.len());
        let mut sketches = Vec::with_capacity(members.len() * SKETCH);
        let mut sketched = Vec::with_capacity(members.len());
        let mut by_id = HashMap::with_capacity(members.len());
        for (i, m) in members.into_iter().enumerate() {
            by_id.insert(m.id.clone(), i as u32);
            ids.push(m.id);
            repos.push(m.repo);
            open.push(m.open);
            let whole = m.vector.sketch.len() == SKETCH;
            sketched.push(whole);
            if whole {
                sketches.extend_from_slice(&m.vector.sketch);
            } else {
                sketches.extend_from_slice(&[0; SKETCH]);
            }
        }
        Corpus {
            ids,
            repos,
            open,
            sketches,
            sketched,
            by_id,
            keys,
            starts,
            terms,
            heads,
            posted,
            df,
            limit,
        }
    }

    /// How many items the group holds.
    pub fn len(&self) -> usize {
        self.ids.len()
    }

    /// Whether the group holds no item.
    pub fn is_empty(&self) -> bool {
        self.ids.is_empty()
    }

    /// Whether the group holds `id`.
    pub fn contains(&self, id: &str) -> bool {
        self.by_id.contains_key(id)
    }

    /// A thread's scratch for [`Corpus::neighbours_with`].
    pub fn scratch(&self) -> Scratch {
        Scratch {
            partial: vec![0.0; self.ids.len()],
            seen: vec![false; self.ids.len()],
            touched: Vec::new(),
        }
    }

    /// The related items of `id`, best first, at most [`LISTED`]; none
    /// when the group does not hold it. Never the item itself.
    pub fn neighbours(&self, id: &str) -> Vec<Found> {
        self.neighbours_with(id, &mut self.scratch())
    }

    /// [`Corpus::neighbours`] with a scratch kept from item to item.
    pub fn neighbours_with(&self, id: &str, scratch: &mut Scratch) -> Vec<Found> {
        let Some(&i) = self.by_id.get(id) else {
            return Vec::new();
        };
        let i = i as usize;
        let own = self.terms_of(i);
        let mut probes: Vec<(u32, f32)> = own
            .iter()
            .copied()
            .filter(|(n, _)| self.df[*n as usize] <= self.limit)
            .collect();
        probes.sort_by(|a, b| b.1.total_cmp(&a.1));
        probes.truncate(PROBES);
        if scratch.partial.len() != self.ids.len() {
            *scratch = self.scratch();
        }
        let Scratch {
            partial,
            seen,
            touched,
        } = scratch;
        for (n, w) in &probes {
            let n = *n as usize;
            for (j, wj) in &self.posted[self.heads[n]..self.heads[n + 1]] {
                if *j as usize != i {
                    if !std::mem::replace(&mut seen[*j as usize], true) {
                        touched.push(*j);
                    }
                    partial[*j as usize] += w * wj;
                }
            }
        }
        let mut candidates: Vec<(u32, f32)> = touched
            .drain(..)
            .map(|j| {
                seen[j as usize] = false;
                (j, std::mem::take(&mut partial[j as usize]))
            })
            .collect();
        let order = |a: &(u32, f32), b: &(u32, f32)| b.1.total_cmp(&a.1).then(a.0.cmp(&b.0));
        if candidates.len() > CANDIDATES {
            candidates.select_nth_unstable_by(CANDIDATES, order);
            candidates.truncate(CANDIDATES);
        }
        candidates.sort_by(order);
        let mut out: Vec<Found> = candidates
            .into_iter()
            .filter_map(|(j, _)| self.pair(i, j as usize))
            .collect();
        out.sort_by(|a, b| b.score.total_cmp(&a.score).then(a.id.cmp(&b.id)));
        out.truncate(LISTED);
        out
    }

    /// Member `i`'s terms (number, weight), sorted by number.
    fn terms_of(&self, i: usize) -> &[(u32, f32)] {
        &self.terms[self.starts[i]..self.starts[i + 1]]
    }

    /// The share of equal sketch values of `i` and `j` (0 when either has
    /// no sketch).
    fn near(&self, i: usize, j: usize) -> f64 {
        if !self.sketched[i] || !self.sketched[j] {
            return 0.0;
        }
        let a = &self.sketches[i * SKETCH..(i + 1) * SKETCH];
        let b = &self.sketches[j * SKETCH..(j + 1) * SKETCH];
        a.iter().zip(b).filter(|(x, y)| x == y).count() as f64 / SKETCH as f64
    }

    /// The score of `i` and `j` and their shared terms, when related.
    /// The cosine is summed first without keeping anything: most
    /// candidates fall below the threshold.
    fn pair(&self, i: usize, j: usize) -> Option<Found> {
        let (a, b) = (self.terms_of(i), self.terms_of(j));
        let mut cosine = 0f64;
        merge(a, b, |p, _| cosine += f64::from(p));
        let near = self.near(i, j);
        let score = if near >= NEAR_COPY {
            cosine.max(near)
        } else {
            cosine
        };
        let score = (score.min(1.0) * 100.0).round() / 100.0;
        if score < THRESHOLD {
            return None;
        }
        let mut shares: Vec<(f32, u32)> = Vec::new();
        merge(a, b, |p, n| shares.push((p, n)));
        shares.sort_by(|p, q| q.0.total_cmp(&p.0).then(p.1.cmp(&q.1)));
        Some(Found {
            id: self.ids[j].clone(),
            repo: self.repos[j],
            open: self.open[j],
            score,
            shared: shares
                .iter()
                .take(SHARED)
                .map(|(_, n)| self.keys[*n as usize])
                .collect(),
        })
    }
}

/// Calls `each(product, term)` for every term two sorted vectors share,
/// in term order.
fn merge(a: &[(u32, f32)], b: &[(u32, f32)], mut each: impl FnMut(f32, u32)) {
    let (mut x, mut y) = (0, 0);
    while x < a.len() && y < b.len() {
        match a[x].0.cmp(&b[y].0) {
            std::cmp::Ordering::Less => x += 1,
            std::cmp::Ordering::Greater => y += 1,
            std::cmp::Ordering::Equal => {
                each(a[x].1 * b[y].1, a[x].0);
                x += 1;
                y += 1;
            }
        }
    }
}

/// The related items shown beside an item: its [`SHOWN`] best by
/// score, the open ones first (each part best first).
pub fn shown(list: &[Neighbour]) -> Vec<&Neighbour> {
    let mut best: Vec<&Neighbour> = list.iter().take(SHOWN).collect();
    best.sort_by(|a, b| b.open.cmp(&a.open).then(b.score.total_cmp(&a.score)));
    best
}
