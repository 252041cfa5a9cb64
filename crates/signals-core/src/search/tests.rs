//! The index path against the reference scan, on generated documents and
//! queries, and the ranking's promises.

use proptest::prelude::*;

use super::*;

const WORDS: &[&str] = &[
    "crash",
    "Crash",
    "memory",
    "out",
    "of",
    "leak",
    "torch.compile",
    "v0.6.3",
    "CUDA_VISIBLE_DEVICES",
    "cuda",
    "Ärger",
    "arger",
    "内存泄漏",
    "内存",
    "修复",
    "getElementById",
    "element",
    "a",
    "the",
    "-",
    "\"",
    "...",
    "bug",
    "fix",
];

fn text() -> impl Strategy<Value = String> {
    prop::collection::vec(prop::sample::select(WORDS), 0..12).prop_map(|w| w.join(" "))
}

fn query() -> impl Strategy<Value = String> {
    let piece = prop_oneof![
        prop::sample::select(WORDS).prop_map(str::to_string),
        prop::sample::select(WORDS).prop_map(|w| format!("-{w}")),
        prop::sample::select(WORDS).prop_map(|w| format!("{w}*")),
        (prop::sample::select(WORDS), prop::sample::select(WORDS))
            .prop_map(|(a, b)| format!("\"{a} {b}\"")),
    ];
    prop::collection::vec(piece, 1..4).prop_map(|p| p.join(" "))
}

proptest! {
    #[test]
    fn the_index_finds_exactly_what_a_scan_finds(
        docs in prop::collection::vec((text(), text()), 1..30),
        q in query(),
    ) {
        let Ok(query) = Query::parse(&q) else { return Ok(()) };
        let mut memory = Memory::default();
        for (i, (title, body)) in docs.iter().enumerate() {
            memory.add(i as u32 * 997, &index(&DocText { title, body, ..DocText::default() }));
        }
        let found: Vec<u32> = evaluate(&query, memory.stats, &mut memory).unwrap()
            .iter().map(|h| h.doc).collect();
        let scanned: Vec<u32> = docs.iter().enumerate()
            .filter(|(_, (title, body))| scan(&query, &DocText { title, body, ..DocText::default() }))
            .map(|(i, _)| i as u32 * 997)
            .collect();
        prop_assert_eq!(found, scanned, "{}", q);
    }
}

fn ranked(docs: &[(&str, &str)], q: &str) -> Vec<u32> {
    let mut memory = Memory::default();
    for (i, (title, body)) in docs.iter().enumerate() {
        memory.add(
            i as u32,
            &index(&DocText {
                title,
                body,
                ..DocText::default()
            }),
        );
    }
    let mut hits = evaluate(&Query::parse(q).unwrap(), memory.stats, &mut memory).unwrap();
    hits.sort_by_key(|h| (-h.score, h.doc));
    hits.iter().map(|h| h.doc).collect()
}

#[test]
fn a_word_in_the_title_ranks_above_the_same_word_in_the_body() {
    let docs = [
        ("Docs typo", "the scheduler crashes on start in some cases"),
        ("Scheduler crashes on start", "see the log"),
        ("Unrelated", "nothing here"),
    ];
    assert_eq!(ranked(&docs, "crashes"), [1, 0]);
}

#[test]
fn a_rare_word_weighs_more_than_a_common_one() {
    let docs = [
        ("bug in the parser", "bug bug"),
        ("bug in the lexer", "segfault"),
        ("bug in the parser", "see also"),
    ];
    assert_eq!(ranked(&docs, "bug segfault"), [1]);
    let bug = ranked(&docs, "bug");
    let at = |doc| bug.iter().position(|&d| d == doc);
    assert!(
        at(0) < at(2),
        "more occurrences rank higher at the same length: {bug:?}"
    );
}

#[test]
fn phrases_need_their_words_in_order_and_next_to_each_other() {
    let docs = [
        ("out of memory", ""),
        ("memory out of", ""),
        ("out of the memory", ""),
        ("", "we ran OUT of Memory twice"),
    ];
    let mut found = ranked(&docs, "\"out of memory\"");
    found.sort();
    assert_eq!(found, [0, 3]);
}

#[test]
fn identifiers_and_spaceless_text_are_found_whole_and_by_parts() {
    let docs = [
        ("CUDA_VISIBLE_DEVICES is ignored", ""),
        ("torch.compile fails on v0.6.3", ""),
        ("修复内存泄漏", ""),
    ];
    assert_eq!(ranked(&docs, "cuda_visible_devices"), [0]);
    assert_eq!(ranked(&docs, "visible"), [0]);
    assert_eq!(ranked(&docs, "\"visible devices\""), [0]);
    assert_eq!(ranked(&docs, "torch.compile"), [1]);
    assert_eq!(ranked(&docs, "compile"), [1]);
    assert_eq!(ranked(&docs, "v0.6.3"), [1]);
    assert_eq!(ranked(&docs, "内存泄漏"), [2]);
    assert_eq!(ranked(&docs, "内存"), [2]);
    assert_eq!(ranked(&docs, "泄"), [2]);
    assert!(ranked(&docs, "存内").is_empty());
    assert_eq!(ranked(&docs, "torc*"), [1]);
}

#[test]
fn the_remembering_scorer_equals_term_score_bit_for_bit() {
    use super::postings::Entry;
    use super::rank::{Stats, TermScorer, idf, term_score};
    let stats = Stats {
        docs: 100_000,
        total_len: 4_321_987,
    };
    let idf = idf(stats, 31_337);
    let mut long = TermScorer::new(stats, idf, 31_337);
    let mut short = TermScorer::new(stats, idf, 3);
    for round in 0..2 {
        for len in [0, 1, 7, 43, 1023, 1024, 5000, u32::MAX] {
            for (tf, title_tf) in [(1, 0), (1, 1), (2, 1), (7, 0), (31, 0), (32, 0), (40, 13)] {
                let e = Entry {
                    doc: 0,
                    len,
                    title_tf,
                    tf,
                    positions: Vec::new(),
                };
                let want = term_score(stats, idf, &e);
                for scorer in [&mut long, &mut short] {
                    let got = scorer.score(len, tf, title_tf);
                    assert_eq!(
                        got.to_bits(),
                        want.to_bits(),
                        "{round} {len} {tf} {title_tf}"
                    );
                }
            }
        }
    }
}
