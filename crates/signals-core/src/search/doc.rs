//! What an item gives the word index: its title, labels,
//! author, body and comments, in that order, each field's words at
//! consecutive positions and one free position between fields (so a
//! phrase never spans two), and the document's weighted length: the title
//! counts [`TITLE_WEIGHT`] times.

use std::collections::BTreeMap;

use super::postings::Entry;
use super::tokens::tokens;

/// How much more a title's word weighs than a body's.
pub const TITLE_WEIGHT: u32 = 3;

/// The text of one item.
#[derive(Debug, Clone, Default)]
pub struct DocText<'a> {
    /// The title.
    pub title: &'a str,
    /// The labels.
    pub labels: Vec<&'a str>,
    /// The author's login.
    pub author: &'a str,
    /// The body.
    pub body: &'a str,
    /// The comments' bodies (comments, reviews, review comments), oldest
    /// first.
    pub comments: Vec<&'a str>,
}

/// Where a term is in a document.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct Occurrences {
    /// How many positions are in the title.
    pub title_tf: u32,
    /// Every position, in increasing order.
    pub positions: Vec<u32>,
}

/// A document as the index holds it: its terms and its weighted length.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct Indexed {
    /// The weighted length: `TITLE_WEIGHT` × the title's positions + the
    /// other fields' positions.
    pub len: u32,
    /// Each term's occurrences, by term.
    pub terms: BTreeMap<String, Occurrences>,
}

impl Indexed {
    /// The entry of `term` for document number `doc`, when it holds it.
    pub fn entry(&self, doc: u32, term: &str) -> Option<Entry> {
        self.terms.get(term).map(|o| Entry {
            doc,
            len: self.len,
            title_tf: o.title_tf,
            tf: o.positions.len() as u32,
            positions: o.positions.clone(),
        })
    }

    /// The distinct terms, sorted, joined by `\n` (terms hold no
    /// whitespace): what the store keeps to take a document out again.
    pub fn term_list(&self) -> String {
        let mut out = String::new();
        for term in self.terms.keys() {
            if !out.is_empty() {
                out.push('\n');
            }
            out.push_str(term);
        }
        out
    }
}

/// Indexes one document.
pub fn index(doc: &DocText<'_>) -> Indexed {
    let mut terms: BTreeMap<String, Occurrences> = BTreeMap::new();
    let mut add = |term: &str, pos: u32, title: bool| {
        let o = match terms.get_mut(term) {
            Some(o) => o,
            None => terms.entry(term.to_string()).or_default(),
        };
        if o.positions.last() != Some(&pos) {
            o.positions.push(pos);
            if title {
                o.title_tf += 1;
            }
        }
    };
    let title_end = tokens(doc.title, 0, &mut |t, p| add(t, p, true));
    let mut pos = title_end;
    let mut rest = 0u32;
    let fields = doc
        .labels
        .iter()
        .chain(std::iter::once(&doc.author))
        .chain(std::iter::once(&doc.body))
        .chain(doc.comments.iter());
    for text in fields {
        let start = pos.saturating_add(1);
        pos = tokens(text, start, &mut |t, p| add(t, p, false));
        rest = rest.saturating_add(pos - start);
    }
    Indexed {
        len: title_end.saturating_mul(TITLE_WEIGHT).saturating_add(rest),
        terms,
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn fields_are_numbered_apart_and_the_title_weighs_more() {
        let doc = DocText {
            title: "Crash on start",
            labels: vec!["bug", "good first issue"],
            author: "octocat",
            body: "It crashes. crash!",
            comments: vec!["Same crash here"],
        };
        let indexed = index(&doc);
        // Title 3 positions (x3), labels 1 + 3, author 1, body 3, comment 3.
        assert_eq!(indexed.len, 9 + 4 + 1 + 3 + 3);
        let crash = &indexed.terms["crash"];
        assert_eq!(crash.title_tf, 1);
        assert_eq!(crash.positions.len(), 3);
        assert_eq!(indexed.terms["octocat"].positions.len(), 1);
        // "start" ends the title at 2; "bug" is at 4, not 3.
        assert_eq!(indexed.terms["start"].positions, [2]);
        assert_eq!(indexed.terms["bug"].positions, [4]);
        assert!(indexed.term_list().split('\n').any(|t| t == "first"));
    }
}
