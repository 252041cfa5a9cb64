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

use super::profile::{Profile, resemblance};
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
    /// Its profile.
    pub profile: Profile,
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

/// The group's items with their weighted vectors and postings.
pub struct Corpus {
    members: Vec<Member>,
    by_id: HashMap<String, usize>,
    /// Terms by number.
    names: Vec<String>,
    /// Each member's vector: (term number, weight), sorted by term number.
    vectors: Vec<Vec<(u32, f32)>>,
    /// Each term's members and their weights.
    postings: Vec<Vec<(u32, f32)>>,
}

impl Corpus {
    /// Weighs every member against the others.
    pub fn new(members: Vec<Member>) -> Corpus {
        let mut numbers: HashMap<&str, u32> = HashMap::new();
        let mut names: Vec<String> = Vec::new();
        let mut df: Vec<u32> = Vec::new();
        let mut total_len = 0u64;
        for m in &members {
            total_len += u64::from(m.profile.len);
            for (term, _) in &m.profile.terms {
                let n = *numbers.entry(term.as_str()).or_insert_with(|| {
                    names.push(term.clone());
                    df.push(0);
                    (names.len() - 1) as u32
                });
                df[n as usize] += 1;
            }
        }
        let stats = Stats {
            docs: members.len() as u64,
            total_len,
        };
        let avg = (total_len as f64 / members.len().max(1) as f64).max(1.0);
        let idf: Vec<f64> = df.iter().map(|d| rank::idf(stats, *d as usize)).collect();
        let mut postings: Vec<Vec<(u32, f32)>> = vec![Vec::new(); names.len()];
        let mut vectors = Vec::with_capacity(members.len());
        for (i, m) in members.iter().enumerate() {
            let norm_len = K1 * (1.0 - B + B * f64::from(m.profile.len) / avg);
            let mut v: Vec<(u32, f32)> = m
                .profile
                .terms
                .iter()
                .map(|(term, tf)| {
                    let n = numbers[term.as_str()];
                    let tf = f64::from(*tf);
                    let w = idf[n as usize] * tf * (K1 + 1.0) / (tf + norm_len);
                    (n, w as f32)
                })
                .collect();
            let length = v.iter().map(|(_, w)| w * w).sum::<f32>().sqrt();
            if length > 0.0 {
                v.iter_mut().for_each(|(_, w)| *w /= length);
            }
            v.sort_unstable_by_key(|(n, _)| *n);
            for (n, w) in &v {
                postings[*n as usize].push((i as u32, *w));
            }
            vectors.push(v);
        }
        let by_id = members
            .iter()
            .enumerate()
            .map(|(i, m)| (m.id.clone(), i))
            .collect();
        Corpus {
            members,
            by_id,
            names,
            vectors,
            postings,
        }
    }

    /// How many items the group holds.
    pub fn len(&self) -> usize {
        self.members.len()
    }

    /// Whether the group holds no item.
    pub fn is_empty(&self) -> bool {
        self.members.is_empty()
    }

    /// Whether the group holds `id`.
    pub fn contains(&self, id: &str) -> bool {
        self.by_id.contains_key(id)
    }

    /// The related items of `id`, best first, at most [`LISTED`]; none
    /// when the group does not hold it. Never the item itself.
    pub fn neighbours(&self, id: &str) -> Vec<Neighbour> {
        let Some(&i) = self.by_id.get(id) else {
            return Vec::new();
        };
        let limit = common_limit(self.members.len());
        let mut probes: Vec<(u32, f32)> = self.vectors[i]
            .iter()
            .copied()
            .filter(|(n, _)| self.postings[*n as usize].len() <= limit)
            .collect();
        probes.sort_by(|a, b| b.1.total_cmp(&a.1));
        probes.truncate(PROBES);
        let mut partial: HashMap<u32, f32> = HashMap::new();
        for (n, w) in &probes {
            for (j, wj) in &self.postings[*n as usize] {
                if *j as usize != i {
                    *partial.entry(*j).or_insert(0.0) += w * wj;
                }
            }
        }
        let mut candidates: Vec<(u32, f32)> = partial.into_iter().collect();
        candidates.sort_by(|a, b| b.1.total_cmp(&a.1).then(a.0.cmp(&b.0)));
        candidates.truncate(CANDIDATES);
        let mut out: Vec<Neighbour> = candidates
            .into_iter()
            .filter_map(|(j, _)| self.pair(i, j as usize))
            .collect();
        out.sort_by(|a, b| b.score.total_cmp(&a.score).then(a.id.cmp(&b.id)));
        out.truncate(LISTED);
        out
    }

    /// The score of `i` and `j` and their shared words, when related.
    fn pair(&self, i: usize, j: usize) -> Option<Neighbour> {
        let (a, b) = (&self.vectors[i], &self.vectors[j]);
        let (mut x, mut y) = (0, 0);
        let mut cosine = 0f64;
        let mut shares: Vec<(f32, u32)> = Vec::new();
        while x < a.len() && y < b.len() {
            match a[x].0.cmp(&b[y].0) {
                std::cmp::Ordering::Less => x += 1,
                std::cmp::Ordering::Greater => y += 1,
                std::cmp::Ordering::Equal => {
                    let p = a[x].1 * b[y].1;
                    cosine += f64::from(p);
                    shares.push((p, a[x].0));
                    x += 1;
                    y += 1;
                }
            }
        }
        let near = resemblance(
            &self.members[i].profile.sketch,
            &self.members[j].profile.sketch,
        );
        let score = if near >= NEAR_COPY {
            cosine.max(near)
        } else {
            cosine
        };
        let score = (score.min(1.0) * 100.0).round() / 100.0;
        if score < THRESHOLD {
            return None;
        }
        shares.sort_by(|p, q| q.0.total_cmp(&p.0).then(p.1.cmp(&q.1)));
        let other = &self.members[j];
        Some(Neighbour {
            id: other.id.clone(),
            repo: other.repo,
            open: other.open,
            score,
            shared: shares
                .iter()
                .take(SHARED)
                .map(|(_, n)| {
                    let term = &self.names[*n as usize];
                    self.members[i].profile.word(term).to_string()
                })
                .collect(),
        })
    }
}

/// The related items shown beside an item: its [`SHOWN`] best by
/// score, the open ones first (each part best first).
pub fn shown(list: &[Neighbour]) -> Vec<&Neighbour> {
    let mut best: Vec<&Neighbour> = list.iter().take(SHOWN).collect();
    best.sort_by(|a, b| b.open.cmp(&a.open).then(b.score.total_cmp(&a.score)));
    best
}
