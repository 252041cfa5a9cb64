//! How text becomes terms: the one tokenizer the store's word
//! index, the API's queries and the static site's index share, so the
//! three find the same items.
//!
//! - **Folding.** Each character is decomposed (canonical, NFD), lowered
//!   (`char::to_lowercase`, character by character) and its combining marks
//!   dropped: `Ärger` → `arger`, `İ` → `i`.
//! - **Words.** A word is a run of letters and digits (`char::is_alphanumeric`).
//!   A lower-case letter followed by an upper-case one starts a new part
//!   (`getElementById` → `get`, `element`, `by`, `id`).
//! - **Identifiers.** Parts joined by `_`, `.`, `-`, `/` or `:` (with a
//!   letter or digit on both sides) make one identifier, indexed whole *and*
//!   by its parts: `CUDA_VISIBLE_DEVICES` gives `cuda_visible_devices`,
//!   `cuda`, `visible`, `devices`; `v0.6.3` gives `v0.6.3`, `v0`, `6`, `3`.
//!   The whole takes the position of its first part, so a phrase of parts
//!   still matches.
//! - **Text without spaces** (Han, Hiragana, Katakana, Thai): each character
//!   is a term, and so is each pair of neighbours (bigrams), so a word of
//!   several characters is found as the phrase of its bigrams.
//! - **Length.** A term is cut to [`MAX_TERM`] bytes (at a character
//!   boundary); an identifier longer than that is indexed by its parts only.
//!
//! Everything else (spaces, punctuation, symbols, control characters)
//! separates words.

use unicode_normalization::char::{decompose_canonical, is_combining_mark};

/// The longest term, in bytes.
pub const MAX_TERM: usize = 64;

/// One term at its position in a field's token stream.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Token {
    /// The folded term.
    pub term: String,
    /// Its position: consecutive words have consecutive positions.
    pub pos: u32,
}

/// How a run of text came out of the tokenizer, for queries: a query word
/// is looked up by its unit's representative terms (see
/// [`crate::search::query`]).
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Unit {
    /// A word or an identifier: its parts, and the whole when it has
    /// several parts and fits [`MAX_TERM`].
    Word {
        /// The parts, folded.
        parts: Vec<String>,
        /// The whole identifier, folded, with its joiners.
        whole: Option<String>,
    },
    /// A run of characters written without spaces, folded, one string per
    /// character.
    Chars(Vec<String>),
}

impl Unit {
    /// How many positions the unit takes.
    pub fn width(&self) -> u32 {
        match self {
            Unit::Word { parts, .. } => parts.len() as u32,
            Unit::Chars(chars) => chars.len() as u32,
        }
    }
}

/// Whether `c` (folded) belongs to a script written without spaces.
pub fn is_spaceless(c: char) -> bool {
    matches!(c as u32,
        0x0E00..=0x0E7F // Thai
        | 0x3040..=0x309F // Hiragana
        | 0x30A0..=0x30FF // Katakana
        | 0x31F0..=0x31FF // Katakana phonetic extensions
        | 0x3400..=0x4DBF // CJK extension A
        | 0x4E00..=0x9FFF // CJK unified ideographs
        | 0xF900..=0xFAFF // CJK compatibility ideographs
        | 0xFF66..=0xFF9F // half-width Katakana
        | 0x20000..=0x2FFFF // CJK extensions B-F, compatibility supplement
    )
}

fn is_joiner(c: char) -> bool {
    matches!(c, '_' | '.' | '-' | '/' | ':')
}

/// The folded form of one character, pushed to `out` (none, one or
/// several characters).
pub fn fold_char(c: char, out: &mut String) {
    if c.is_ascii() {
        out.push(c.to_ascii_lowercase());
        return;
    }
    decompose_canonical(c, |d| {
        for l in d.to_lowercase() {
            if !is_combining_mark(l) {
                out.push(l);
            }
        }
    });
}

/// `text` folded as a whole (for labels and authors shown back, and tests).
pub fn fold(text: &str) -> String {
    let mut out = String::with_capacity(text.len());
    for c in text.chars() {
        fold_char(c, &mut out);
    }
    out
}

/// `s` cut to at most [`MAX_TERM`] bytes, at a character boundary.
pub fn cut(mut s: String) -> String {
    if s.len() > MAX_TERM {
        let mut end = MAX_TERM;
        while !s.is_char_boundary(end) {
            end -= 1;
        }
        s.truncate(end);
    }
    s
}

/// What kind of character a folded one is.
#[derive(Clone, Copy, PartialEq, Eq)]
enum Class {
    Word,
    Spaceless,
    Joiner,
    Other,
}

fn class(c: char) -> Class {
    if is_spaceless(c) {
        Class::Spaceless
    } else if c.is_alphanumeric() {
        Class::Word
    } else if is_joiner(c) {
        Class::Joiner
    } else {
        Class::Other
    }
}

/// The units of `text`, in order. Folds as it goes; never allocates per
/// character beyond the unit being built.
pub fn units(text: &str, each: &mut dyn FnMut(Unit)) {
    let mut parts: Vec<String> = Vec::new();
    let mut whole = String::new();
    let mut part = String::new();
    let mut pending_joiner: Option<char> = None;
    let mut chars: Vec<String> = Vec::new();
    // Whether the previous original character was a lower-case letter (for
    // camelCase parts).
    let mut after_lower = false;
    let mut folded = String::new();

    let end_part = |part: &mut String, parts: &mut Vec<String>| {
        if !part.is_empty() {
            parts.push(cut(std::mem::take(part)));
        }
    };
    let end_word = |parts: &mut Vec<String>, whole: &mut String, each: &mut dyn FnMut(Unit)| {
        if parts.is_empty() {
            whole.clear();
            return;
        }
        let whole_term = (parts.len() > 1 && whole.len() <= MAX_TERM).then(|| whole.clone());
        whole.clear();
        each(Unit::Word {
            parts: std::mem::take(parts),
            whole: whole_term,
        });
    };
    let end_chars = |chars: &mut Vec<String>, each: &mut dyn FnMut(Unit)| {
        if !chars.is_empty() {
            each(Unit::Chars(std::mem::take(chars)));
        }
    };

    for c in text.chars() {
        folded.clear();
        fold_char(c, &mut folded);
        let upper = c.is_uppercase();
        let mut first = true;
        for f in folded.chars() {
            match class(f) {
                Class::Word => {
                    end_chars(&mut chars, each);
                    if let Some(j) = pending_joiner.take() {
                        end_part(&mut part, &mut parts);
                        whole.push(j);
                    } else if first && upper && after_lower {
                        end_part(&mut part, &mut parts);
                    }
                    part.push(f);
                    whole.push(f);
                }
                Class::Spaceless => {
                    pending_joiner = None;
                    end_part(&mut part, &mut parts);
                    end_word(&mut parts, &mut whole, each);
                    chars.push(f.to_string());
                }
                Class::Joiner if !part.is_empty() && pending_joiner.is_none() => {
                    pending_joiner = Some(f);
                }
                Class::Joiner | Class::Other => {
                    pending_joiner = None;
                    end_part(&mut part, &mut parts);
                    end_word(&mut parts, &mut whole, each);
                    end_chars(&mut chars, each);
                }
            }
            first = false;
        }
        after_lower = c.is_lowercase();
    }
    end_part(&mut part, &mut parts);
    end_word(&mut parts, &mut whole, each);
    end_chars(&mut chars, each);
}

/// The tokens of `text`, positions starting at `start`; returns the
/// position after the last one. Each unit's terms: a word's parts at
/// consecutive positions and its whole at the first part's; characters
/// without spaces each at its own position, and each pair of neighbours at
/// the first one's.
pub fn tokens(text: &str, start: u32, each: &mut dyn FnMut(&str, u32)) -> u32 {
    let mut pos = start;
    units(text, &mut |unit| {
        match &unit {
            Unit::Word { parts, whole } => {
                if let Some(whole) = whole {
                    each(whole, pos);
                }
                for (i, p) in parts.iter().enumerate() {
                    each(p, pos + i as u32);
                }
            }
            Unit::Chars(chars) => {
                let mut pair = String::new();
                for (i, c) in chars.iter().enumerate() {
                    each(c, pos + i as u32);
                    if let Some(next) = chars.get(i + 1) {
                        pair.clear();
                        pair.push_str(c);
                        pair.push_str(next);
                        each(&pair, pos + i as u32);
                    }
                }
            }
        }
        pos = pos.saturating_add(unit.width());
    });
    pos
}

#[cfg(test)]
mod tests {
    use super::*;

    fn terms(text: &str) -> Vec<(String, u32)> {
        let mut out = Vec::new();
        tokens(text, 0, &mut |t, p| out.push((t.to_string(), p)));
        out
    }

    fn t(list: &[(&str, u32)]) -> Vec<(String, u32)> {
        list.iter().map(|(s, p)| (s.to_string(), *p)).collect()
    }

    #[test]
    fn words_are_folded_and_numbered() {
        assert_eq!(
            terms("Crash on Ärger, naïve café!"),
            t(&[
                ("crash", 0),
                ("on", 1),
                ("arger", 2),
                ("naive", 3),
                ("cafe", 4)
            ])
        );
    }

    #[test]
    fn identifiers_are_kept_whole_and_split() {
        assert_eq!(
            terms("set CUDA_VISIBLE_DEVICES=0"),
            t(&[
                ("set", 0),
                ("cuda_visible_devices", 1),
                ("cuda", 1),
                ("visible", 2),
                ("devices", 3),
                ("0", 4)
            ])
        );
        assert_eq!(
            terms("torch.compile in v0.6.3."),
            t(&[
                ("torch.compile", 0),
                ("torch", 0),
                ("compile", 1),
                ("in", 2),
                ("v0.6.3", 3),
                ("v0", 3),
                ("6", 4),
                ("3", 5)
            ])
        );
        assert_eq!(
            terms("getElementById"),
            t(&[
                ("getelementbyid", 0),
                ("get", 0),
                ("element", 1),
                ("by", 2),
                ("id", 3)
            ])
        );
    }

    #[test]
    fn joiners_at_the_edges_or_doubled_separate() {
        assert_eq!(terms("-a- b__c"), t(&[("a", 0), ("b", 1), ("c", 2)]));
        assert_eq!(terms("end. Next"), t(&[("end", 0), ("next", 1)]));
    }

    #[test]
    fn text_without_spaces_gives_characters_and_bigrams() {
        assert_eq!(
            terms("修复内存 leak"),
            t(&[
                ("修", 0),
                ("修复", 0),
                ("复", 1),
                ("复内", 1),
                ("内", 2),
                ("内存", 2),
                ("存", 3),
                ("leak", 4)
            ])
        );
        assert_eq!(terms("a中"), t(&[("a", 0), ("中", 1)]));
    }

    #[test]
    fn long_terms_are_cut_at_a_character_boundary() {
        let long = "é".repeat(40);
        let out = terms(&long);
        assert_eq!(out.len(), 1);
        assert_eq!(out[0].0, "e".repeat(40));
        let long = "ü".repeat(40).to_uppercase() + "\u{4e2d}";
        assert!(terms(&long).iter().all(|(t, _)| t.len() <= MAX_TERM));
        let ident = format!("{}_{}", "a".repeat(40), "b".repeat(40));
        let out = terms(&ident);
        assert_eq!(out.len(), 2, "{out:?}");
    }

    #[test]
    fn hostile_text_gives_no_empty_term() {
        for text in [
            "\0\u{1}\u{7f}",
            "\"\"\"",
            "---",
            "",
            "...a...",
            "\u{301}\u{301}",
        ] {
            assert!(terms(text).iter().all(|(t, _)| !t.is_empty()), "{text:?}");
        }
    }
}
