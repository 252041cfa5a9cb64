//! The word index's parsers (issue 28): posting blocks as the stores and
//! the static site keep them (`signals_core::search::postings::decode`),
//! and the search language with the tokenizer (`Query::parse`, `index`).
//!
//! A block that decodes (its two parts, or one of the first format cut in
//! two) must encode back to the same bytes' meaning; a
//! query the API accepts must have something to look for, every term at
//! most 64 bytes; and the index must find in a fuzzed text exactly what a
//! scan of it finds.

use signals_core::search::postings::{decode, encode, split_first_format};
use signals_core::search::tokens::MAX_TERM;
use signals_core::search::{DocText, Memory, Query, evaluate, index, scan};

/// The first byte chooses: even, a block; odd, a text and a query (split
/// at the first newline).
pub fn input(data: &[u8]) {
    let Some((&mode, rest)) = data.split_first() else {
        return;
    };
    if mode % 2 == 0 {
        block(rest);
    } else if let Ok(text) = std::str::from_utf8(rest) {
        let (body, q) = text.split_once('\n').unwrap_or((text, text));
        query(body, q);
    }
}

fn block(bytes: &[u8]) {
    // As a documents' part and a positions' part, cut where the first
    // byte says: what decodes encodes back to the same entries.
    let cut = bytes
        .first()
        .map_or(0, |&b| usize::from(b))
        .min(bytes.len());
    let (docs, positions) = bytes.split_at(cut);
    round_trip(docs, positions);
    // As a block of the first format, which migration 0018 cuts in two.
    if let Ok(split) = split_first_format(bytes) {
        round_trip(&split.docs, &split.positions);
    }
}

fn round_trip(docs: &[u8], positions: &[u8]) {
    let mut entries = Vec::new();
    if decode(docs, Some(positions), &mut entries).is_ok() {
        let again = encode(&entries);
        let mut back = Vec::new();
        decode(&again.docs, Some(&again.positions), &mut back).expect("an encoded block decodes");
        assert_eq!(back, entries);
        let mut bare = Vec::new();
        decode(docs, None, &mut bare).expect("without positions too");
        assert_eq!(bare.len(), entries.len());
    }
}

fn query(body: &str, q: &str) {
    let Ok(query) = Query::parse(q) else {
        return;
    };
    assert!(!query.include.is_empty());
    assert!(
        query
            .terms()
            .iter()
            .all(|t| !t.is_empty() && t.len() <= MAX_TERM)
    );
    let doc = DocText {
        title: q,
        body,
        ..DocText::default()
    };
    let indexed = index(&doc);
    assert!(
        indexed
            .terms
            .keys()
            .all(|t| !t.is_empty() && t.len() <= MAX_TERM)
    );
    let mut memory = Memory::default();
    memory.add(0, &indexed);
    let found = match evaluate(&query, memory.stats, &mut memory) {
        Ok(hits) => !hits.is_empty(),
        Err(_) => return, // a prefix standing for too many words
    };
    assert_eq!(found, scan(&query, &doc), "{q:?} in {body:?}");
}
