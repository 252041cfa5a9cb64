//! The search language (docs/api.md "Search"): words, `"a
//! phrase"`, a prefix `word*` and `-word` to exclude, parsed into clauses
//! of terms at relative positions with the tokenizer of [`super::tokens`].
//!
//! - Every clause must match (AND); an excluded clause must not.
//! - A word that is one identifier (`torch.compile`) is looked up whole; a
//!   word of several units (`foo,bar`), a run of characters without spaces
//!   and a quoted phrase are phrases: their terms at consecutive positions.
//! - A prefix is a single word or identifier of at least
//!   [`MIN_PREFIX`] characters.
//! - An open quote runs to the end of the query; a query with nothing to
//!   look for (only excluded words, or only punctuation) is an error the API
//!   answers with a 400.

use super::tokens::{Unit, units};

/// The fewest characters before `*`.
pub const MIN_PREFIX: usize = 3;

/// The most clauses in a query.
pub const MAX_CLAUSES: usize = 16;

/// One term of a clause, at its position relative to the clause's first.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Part {
    /// The folded term.
    pub term: String,
    /// Its offset from the clause's first term.
    pub offset: u32,
}

/// What a clause looks for.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Clause {
    /// Every part, at its offset (a single part: the term anywhere).
    Phrase(Vec<Part>),
    /// Any term that starts with this (folded) text.
    Prefix(String),
}

/// A parsed query.
#[derive(Debug, Clone, PartialEq, Eq, Default)]
pub struct Query {
    /// What every match holds.
    pub include: Vec<Clause>,
    /// What no match holds.
    pub exclude: Vec<Clause>,
}

/// Why a query cannot be answered; the message says what to change.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
pub enum QueryError {
    /// Nothing to look for.
    #[error(
        "the query has no word to look for: give at least one word of letters or digits (excluded words alone match nothing to rank)"
    )]
    Empty,
    /// A prefix too short to look up cheaply.
    #[error("a prefix needs at least {MIN_PREFIX} letters or digits before '*': {0:?}")]
    ShortPrefix(String),
    /// A prefix that is not one word.
    #[error("a prefix must be one word or identifier before '*': {0:?}")]
    PrefixNotAWord(String),
    /// Too many clauses.
    #[error("the query has more than {MAX_CLAUSES} words or phrases: remove some")]
    TooLong,
}

/// The clause of the terms of `text`: the representative terms of each
/// unit at consecutive positions (a word's whole or its only part, each
/// bigram of a run without spaces, or its only character).
fn phrase_of(text: &str) -> Option<Clause> {
    let mut parts = Vec::new();
    let mut pos = 0u32;
    units(text, &mut |unit| {
        match &unit {
            Unit::Word { parts: p, whole } => match whole {
                Some(whole) => parts.push(Part {
                    term: whole.clone(),
                    offset: pos,
                }),
                None if p.len() == 1 => parts.push(Part {
                    term: p[0].clone(),
                    offset: pos,
                }),
                // Too long to be kept whole: its parts, in order.
                None => parts.extend(p.iter().enumerate().map(|(i, t)| Part {
                    term: t.clone(),
                    offset: pos + i as u32,
                })),
            },
            Unit::Chars(chars) if chars.len() == 1 => parts.push(Part {
                term: chars[0].clone(),
                offset: pos,
            }),
            Unit::Chars(chars) => {
                for (i, pair) in chars.windows(2).enumerate() {
                    parts.push(Part {
                        term: format!("{}{}", pair[0], pair[1]),
                        offset: pos + i as u32,
                    });
                }
            }
        }
        pos = pos.saturating_add(unit.width());
    });
    (!parts.is_empty()).then_some(Clause::Phrase(parts))
}

fn prefix_of(word: &str) -> Result<Option<Clause>, QueryError> {
    let mut found = Vec::new();
    units(word, &mut |unit| found.push(unit));
    match found.as_slice() {
        [] => Ok(None),
        [Unit::Word { parts, whole }] => {
            let term = whole.clone().unwrap_or_else(|| parts.concat());
            if term.chars().count() < MIN_PREFIX {
                return Err(QueryError::ShortPrefix(format!("{word}*")));
            }
            Ok(Some(Clause::Prefix(term)))
        }
        [Unit::Chars(chars)] if chars.len() >= MIN_PREFIX => {
            Ok(Some(Clause::Prefix(chars.concat())))
        }
        [Unit::Chars(_)] => Err(QueryError::ShortPrefix(format!("{word}*"))),
        _ => Err(QueryError::PrefixNotAWord(format!("{word}*"))),
    }
}

/// The pieces of a query as written: `(excluded, quoted, text)`.
fn pieces(q: &str) -> Vec<(bool, bool, String)> {
    let mut out = Vec::new();
    let mut chars = q.chars().peekable();
    while let Some(&c) = chars.peek() {
        if c.is_whitespace() {
            chars.next();
            continue;
        }
        let mut excluded = false;
        if c == '-' {
            chars.next();
            excluded = true;
        }
        if chars.peek() == Some(&'"') {
            chars.next();
            let text: String = chars.by_ref().take_while(|&c| c != '"').collect();
            out.push((excluded, true, text));
            continue;
        }
        let mut text = String::new();
        while let Some(&c) = chars.peek() {
            if c.is_whitespace() || c == '"' {
                break;
            }
            text.push(c);
            chars.next();
        }
        out.push((excluded, false, text));
    }
    out
}

impl Query {
    /// Parses a query (at most [`crate::api::MAX_Q`] characters, which the
    /// API checks first).
    pub fn parse(q: &str) -> Result<Query, QueryError> {
        let mut query = Query::default();
        for (excluded, quoted, text) in pieces(q) {
            let clause = match text.strip_suffix('*') {
                Some(word) if !quoted => prefix_of(word)?,
                _ => phrase_of(&text),
            };
            let Some(clause) = clause else { continue };
            if excluded {
                query.exclude.push(clause);
            } else {
                query.include.push(clause);
            }
            if query.include.len() + query.exclude.len() > MAX_CLAUSES {
                return Err(QueryError::TooLong);
            }
        }
        if query.include.is_empty() {
            return Err(QueryError::Empty);
        }
        Ok(query)
    }

    /// Every term the query looks up exactly (not prefixes), once.
    pub fn terms(&self) -> Vec<&str> {
        let mut out: Vec<&str> = self
            .include
            .iter()
            .chain(&self.exclude)
            .flat_map(|c| match c {
                Clause::Phrase(parts) => parts.iter().map(|p| p.term.as_str()).collect(),
                Clause::Prefix(_) => Vec::new(),
            })
            .collect();
        out.sort_unstable();
        out.dedup();
        out
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn word(t: &str) -> Clause {
        Clause::Phrase(vec![Part {
            term: t.into(),
            offset: 0,
        }])
    }

    fn phrase(terms: &[(&str, u32)]) -> Clause {
        Clause::Phrase(
            terms
                .iter()
                .map(|(t, o)| Part {
                    term: t.to_string(),
                    offset: *o,
                })
                .collect(),
        )
    }

    #[test]
    fn words_phrases_prefixes_and_exclusions() {
        let q = Query::parse(r#"Crash "out of memory" comp* -wontfix -"not a bug""#).unwrap();
        assert_eq!(
            q.include,
            [
                word("crash"),
                phrase(&[("out", 0), ("of", 1), ("memory", 2)]),
                Clause::Prefix("comp".into())
            ]
        );
        assert_eq!(
            q.exclude,
            [word("wontfix"), phrase(&[("not", 0), ("a", 1), ("bug", 2)])]
        );
    }

    #[test]
    fn identifiers_are_looked_up_whole_and_spaceless_text_by_bigrams() {
        assert_eq!(
            Query::parse("CUDA_VISIBLE_DEVICES").unwrap().include,
            [word("cuda_visible_devices")]
        );
        assert_eq!(Query::parse("v0.6.3").unwrap().include, [word("v0.6.3")]);
        assert_eq!(
            Query::parse("内存泄漏").unwrap().include,
            [phrase(&[("内存", 0), ("存泄", 1), ("泄漏", 2)])]
        );
        assert_eq!(Query::parse("中").unwrap().include, [word("中")]);
        assert_eq!(
            Query::parse("foo,bar").unwrap().include,
            [phrase(&[("foo", 0), ("bar", 1)])]
        );
    }

    #[test]
    fn what_cannot_be_answered_says_why() {
        assert_eq!(Query::parse(""), Err(QueryError::Empty));
        assert_eq!(Query::parse("\0 ... \u{7}"), Err(QueryError::Empty));
        assert_eq!(Query::parse("-bug"), Err(QueryError::Empty));
        assert_eq!(
            Query::parse("ab*"),
            Err(QueryError::ShortPrefix("ab*".into()))
        );
        assert_eq!(
            Query::parse("a,b*"),
            Err(QueryError::PrefixNotAWord("a,b*".into()))
        );
        let many = "w ".repeat(MAX_CLAUSES + 1);
        assert_eq!(Query::parse(&many), Err(QueryError::TooLong));
        // Open quotes and stray stars are read, not refused.
        assert_eq!(
            Query::parse("\"open quote").unwrap().include,
            [phrase(&[("open", 0), ("quote", 1)])]
        );
        assert_eq!(Query::parse("*").err(), Some(QueryError::Empty));
        assert_eq!(Query::parse("a").unwrap().include, [word("a")]);
    }
}
