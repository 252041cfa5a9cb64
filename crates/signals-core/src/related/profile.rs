//! What an item gives the similarity: its title's and body's terms with
//! their counts (the title's weigh [`TITLE_WEIGHT`] times, as in the word
//! index), at most [`MAX_TERMS`] of them, and a MinHash sketch of its
//! shingles (three words in a row) that recognises near-copies: the same
//! stack frames, the same log lines, an error message pasted whole.
//!
//! Terms come from the word index's tokenizer ([`crate::search::tokens`]),
//! so `TypeError`, `torch.compile` and `修复` are the same terms here and
//! in a search. A plain word of ASCII letters is then cut to its stem
//! ([`stem`]: a plural `s` dropped, then its first [`STEM`] letters), so
//! `crackle` and `crackling`, `scene` and `scenes` count as one; the
//! profile keeps the first word seen for each stem, the word a reader is
//! shown. A profile is what the store keeps of an item for the
//! similarity; [`Profile::encode`] and [`Profile::decode`] are its text.

use std::collections::HashMap;

use crate::search::doc::TITLE_WEIGHT;
use crate::search::tokens::{Unit, tokens, units};

/// The most terms a profile keeps (the most frequent; a long log keeps
/// its 64 most repeated words, enough to find its neighbours).
pub const MAX_TERMS: usize = 64;

/// The letters a stem keeps.
pub const STEM: usize = 6;

/// The values of a MinHash sketch.
pub const SKETCH: usize = 32;

/// The most words of a text read for shingles: a pasted log of megabytes
/// is recognised by its beginning.
const MAX_SHINGLE_WORDS: usize = 4000;

/// Words that say nothing of a story: English function words. Their
/// weight would be small anyway (every item holds them); leaving them out
/// keeps a profile's places for words that do.
const STOP: &[&str] = &[
    "a", "about", "after", "all", "also", "am", "an", "and", "any", "are", "as", "at", "be",
    "because", "been", "but", "by", "can", "could", "did", "do", "does", "doesn", "don", "for",
    "from", "get", "got", "had", "has", "have", "he", "here", "how", "i", "if", "in", "into", "is",
    "isn", "it", "its", "just", "like", "me", "my", "no", "not", "of", "on", "one", "or", "our",
    "out", "s", "she", "should", "so", "some", "t", "than", "that", "the", "their", "them", "then",
    "there", "these", "they", "this", "to", "up", "us", "was", "we", "were", "what", "when",
    "where", "which", "while", "who", "why", "will", "with", "would", "you", "your",
];

/// An item as the similarity sees it.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct Profile {
    /// Its weighted length: the title's words count [`TITLE_WEIGHT`] times.
    pub len: u32,
    /// Its terms (stems) and their weighted counts, sorted by term.
    pub terms: Vec<(String, u32)>,
    /// The word shown for each term that is not its own word (a stem),
    /// sorted by term.
    pub words: Vec<(String, String)>,
    /// The MinHash of its shingles ([`SKETCH`] values), empty when it has
    /// fewer than three words.
    pub sketch: Vec<u32>,
}

/// Why a stored profile could not be read.
#[derive(Debug, thiserror::Error, PartialEq, Eq)]
#[error("a stored similarity profile is damaged at line {line}: {what}")]
pub struct ProfileError {
    /// Its line (1-based).
    pub line: usize,
    /// What was wrong.
    pub what: &'static str,
}

/// The stem of a folded term: a word of more than three ASCII letters
/// loses a plural `s` (not `ss`), then is cut to [`STEM`] letters; any
/// other term (an identifier, a number, a word of other letters) is its
/// own stem.
pub fn stem(term: &str) -> &str {
    if term.len() <= 3 || !term.bytes().all(|b| b.is_ascii_lowercase()) {
        return term;
    }
    let t = match term.strip_suffix('s') {
        Some(t) if !t.ends_with('s') => t,
        _ => term,
    };
    &t[..t.len().min(STEM)]
}

fn kept(term: &str) -> bool {
    let mut chars = term.chars();
    let one = chars.next().is_some() && chars.next().is_none();
    // A lone letter or digit says nothing, but a lone Han character does.
    let lone = one && term.is_ascii();
    !lone && STOP.binary_search(&term).is_err()
}

/// The profile of an item's title and body.
pub fn profile(title: &str, body: &str) -> Profile {
    let mut counts: HashMap<String, u32> = HashMap::new();
    let mut shown: HashMap<String, String> = HashMap::new();
    let mut add = |term: &str, weight: u32| {
        if kept(term) {
            let key = stem(term);
            match counts.get_mut(key) {
                Some(n) => *n = n.saturating_add(weight),
                None => {
                    counts.insert(key.to_string(), weight);
                    if key != term {
                        shown.insert(key.to_string(), term.to_string());
                    }
                }
            }
        }
    };
    let title_len = tokens(title, 0, &mut |t, _| add(t, TITLE_WEIGHT));
    let body_len = tokens(body, 0, &mut |t, _| add(t, 1));
    let mut terms: Vec<(String, u32)> = counts.into_iter().collect();
    // The most frequent first, a longer term before a shorter (longer
    // words are the rarer), then by bytes: the same text always keeps the
    // same terms.
    terms.sort_by(|a, b| {
        b.1.cmp(&a.1)
            .then(b.0.len().cmp(&a.0.len()))
            .then(a.0.cmp(&b.0))
    });
    terms.truncate(MAX_TERMS);
    terms.sort_by(|a, b| a.0.cmp(&b.0));
    let mut words: Vec<(String, String)> = terms
        .iter()
        .filter_map(|(t, _)| shown.remove(t).map(|w| (t.clone(), w)))
        .collect();
    words.sort();
    Profile {
        words,
        len: title_len
            .saturating_mul(TITLE_WEIGHT)
            .saturating_add(body_len),
        terms,
        sketch: sketch(title, body),
    }
}

/// FNV-1a of `bytes`, 64 bits.
fn fnv(bytes: &[u8], mut h: u64) -> u64 {
    for b in bytes {
        h ^= u64::from(*b);
        h = h.wrapping_mul(0x0100_0000_01b3);
    }
    h
}

/// A 64-bit mix (splitmix64's finaliser): one hash gives [`SKETCH`]
/// independent ones by mixing it with each seed.
fn mix(mut z: u64) -> u64 {
    z = (z ^ (z >> 30)).wrapping_mul(0xbf58_476d_1ce4_e5b9);
    z = (z ^ (z >> 27)).wrapping_mul(0x94d0_49bb_1331_11eb);
    z ^ (z >> 31)
}

/// The MinHash of the shingles of three words of `title` then `body`.
fn sketch(title: &str, body: &str) -> Vec<u32> {
    let mut words: Vec<u64> = Vec::new();
    for text in [title, body] {
        units(text, &mut |unit| {
            if words.len() >= MAX_SHINGLE_WORDS {
                return;
            }
            match unit {
                Unit::Word { parts, .. } => words.extend(
                    parts
                        .iter()
                        .map(|p| fnv(p.as_bytes(), 0xcbf2_9ce4_8422_2325)),
                ),
                Unit::Chars(chars) => words.extend(
                    chars
                        .iter()
                        .map(|c| fnv(c.as_bytes(), 0xcbf2_9ce4_8422_2325)),
                ),
            }
        });
    }
    if words.len() < 3 {
        return Vec::new();
    }
    let mut mins = vec![u32::MAX; SKETCH];
    for w in words.windows(3) {
        let h = mix(w[0] ^ mix(w[1] ^ mix(w[2])));
        for (i, m) in mins.iter_mut().enumerate() {
            let v = (mix(h ^ (i as u64).wrapping_mul(0x9e37_79b9_7f4a_7c15)) >> 32) as u32;
            if v < *m {
                *m = v;
            }
        }
    }
    mins
}

/// The share of equal values of two sketches: an estimate of the Jaccard
/// similarity of the two items' shingles (0 when either has none).
pub fn resemblance(a: &[u32], b: &[u32]) -> f64 {
    if a.len() != SKETCH || b.len() != SKETCH {
        return 0.0;
    }
    let same = a.iter().zip(b).filter(|(x, y)| x == y).count();
    same as f64 / SKETCH as f64
}

impl Profile {
    /// The word shown for `term`.
    pub fn word<'a>(&'a self, term: &'a str) -> &'a str {
        match self.words.binary_search_by(|(t, _)| t.as_str().cmp(term)) {
            Ok(i) => &self.words[i].1,
            Err(_) => term,
        }
    }

    /// The profile as text: its length, its sketch (hexadecimal, `,`
    /// between), then one `term count` line per term, or `term count
    /// word` when a stem's word is not itself.
    pub fn encode(&self) -> String {
        let mut out = self.len.to_string();
        out.push('\n');
        for (i, v) in self.sketch.iter().enumerate() {
            if i > 0 {
                out.push(',');
            }
            out.push_str(&format!("{v:x}"));
        }
        for (term, n) in &self.terms {
            out.push('\n');
            out.push_str(term);
            out.push(' ');
            out.push_str(&n.to_string());
            let word = self.word(term);
            if word != term {
                out.push(' ');
                out.push_str(word);
            }
        }
        out
    }

    /// Reads [`Profile::encode`]'s text.
    pub fn decode(text: &str) -> Result<Profile, ProfileError> {
        let err = |line, what| ProfileError { line, what };
        let mut lines = text.split('\n');
        let len = lines
            .next()
            .and_then(|l| l.parse().ok())
            .ok_or(err(1, "no length"))?;
        let sketch_line = lines.next().unwrap_or("");
        let sketch = if sketch_line.is_empty() {
            Vec::new()
        } else {
            sketch_line
                .split(',')
                .map(|v| u32::from_str_radix(v, 16))
                .collect::<Result<Vec<u32>, _>>()
                .map_err(|_| err(2, "a sketch value is not hexadecimal"))?
        };
        if !sketch.is_empty() && sketch.len() != SKETCH {
            return Err(err(2, "the sketch has the wrong number of values"));
        }
        let mut terms = Vec::new();
        let mut words = Vec::new();
        for (i, line) in lines.enumerate() {
            let mut fields = line.split(' ');
            let term = fields.next().unwrap_or("");
            let n = fields
                .next()
                .ok_or(err(i + 3, "a term without its count"))?
                .parse()
                .map_err(|_| err(i + 3, "a count is not a number"))?;
            if term.is_empty() {
                return Err(err(i + 3, "an empty term"));
            }
            if let Some(word) = fields.next() {
                words.push((term.to_string(), word.to_string()));
            }
            terms.push((term.to_string(), n));
        }
        if !terms.windows(2).all(|w| w[0].0 < w[1].0) {
            return Err(err(3, "the terms are not sorted"));
        }
        Ok(Profile {
            len,
            terms,
            words,
            sketch,
        })
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn stems_join_forms_of_a_word_and_leave_identifiers_alone() {
        assert_eq!(stem("crackling"), stem("crackle"));
        assert_eq!(stem("scenes"), "scene");
        assert_eq!(stem("class"), "class");
        assert_eq!(stem("sdl_getwindowwminfo"), "sdl_getwindowwminfo");
        assert_eq!(stem("0:12"), "0:12");
        assert_eq!(stem("naïve"), "naïve");
        let p = profile("Audio crackling", "crackles");
        assert_eq!(p.terms, [("audio".into(), 3), ("crackl".into(), 4)]);
        assert_eq!(p.word("crackl"), "crackling");
    }

    #[test]
    fn the_stop_list_is_sorted_for_its_search() {
        assert!(STOP.windows(2).all(|w| w[0] < w[1]));
    }

    #[test]
    fn titles_weigh_more_and_function_words_are_left_out() {
        let p = profile("Crash in the parser", "The parser crashes on a tab.");
        let get = |t: &str| p.terms.iter().find(|(x, _)| x == t).map(|(_, n)| *n);
        assert_eq!(get("crash"), Some(3));
        assert_eq!(p.word("crash"), "crash");
        assert_eq!(get("parser"), Some(4));
        assert_eq!(get("the"), None);
        assert_eq!(p.len, 4 * 3 + 6);
        assert_eq!(p.sketch.len(), SKETCH);
    }

    #[test]
    fn a_profile_reads_back_as_written() {
        let p = profile(
            "TypeError in torch.compile",
            "at foo.bar (x.js:1:2)\n修复内存",
        );
        assert_eq!(Profile::decode(&p.encode()), Ok(p));
        let empty = profile("", "");
        assert_eq!(Profile::decode(&empty.encode()), Ok(empty));
    }

    #[test]
    fn damaged_profiles_are_refused_not_panicked_on() {
        for text in [
            "",
            "x",
            "3\nzz",
            "3\n1,2",
            "3\n\nterm",
            "3\n\nterm x",
            "3\n\n 4",
        ] {
            assert!(Profile::decode(text).is_err(), "{text:?}");
        }
    }

    #[test]
    fn near_copies_resemble_and_strangers_do_not() {
        let trace = "thread 'main' panicked at src/lexer.rs:42:9 index out of bounds: \
                     the len is 3 but the index is 7 note: run with RUST_BACKTRACE=1";
        let a = profile("Lexer panics", trace);
        let b = profile(
            "panic when lexing a file",
            &format!("Got this today:\n{trace}"),
        );
        let c = profile(
            "Docs typo",
            "The README says recieve instead of receive in two places",
        );
        assert!(resemblance(&a.sketch, &b.sketch) > 0.6);
        assert!(resemblance(&a.sketch, &c.sketch) < 0.2);
        assert_eq!(resemblance(&a.sketch, &[]), 0.0);
    }

    #[test]
    fn a_long_text_keeps_its_most_frequent_terms() {
        let body: String =
            (0..200).map(|i| format!("word{i} ")).collect::<String>() + "again again";
        let p = profile("", &body);
        assert_eq!(p.terms.len(), MAX_TERMS);
        assert!(p.terms.iter().any(|(t, n)| t == "again" && *n == 2));
    }
}
