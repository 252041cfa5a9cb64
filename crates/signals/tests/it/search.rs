//! The word index through the API. The shared corpus of queries
//! (`data/search_corpus.json`) is asked of `signals serve` on SQLite and,
//! after `signals migrate`, on PostgreSQL: each query finds exactly its
//! items, in the order of the reference below (the index built in memory
//! from the items' texts, ranked by the same rules), and both stores give
//! the same answers; what cannot be answered is a 400 that says why.

use std::collections::{BTreeMap, HashMap};

use jiff::Timestamp;
use serde_json::Value;
use signals_core::ItemSnapshot;
use signals_core::importance::{Weights, score};
use signals_core::search::{DocText, Memory, Query, evaluate, index, scan};
use signals_store_sqlite::Store;

use crate::serve::{get, serve_with};
use crate::support::{TempDir, run, show};
use crate::synth;

fn text_of<'a>(item: &'a ItemSnapshot, comments: &'a [String]) -> DocText<'a> {
    DocText {
        title: &item.title,
        labels: item.labels.iter().map(String::as_str).collect(),
        author: &item.author,
        body: &item.text,
        comments: comments.iter().map(String::as_str).collect(),
    }
}

/// The ids `q` finds among `items` (with their comments), best first: ties
/// by importance at `instant`, then id; every match also checked by a scan
/// of its text. `Err` with the query's error.
pub fn reference_search(
    items: &BTreeMap<String, ItemSnapshot>,
    comments: &HashMap<String, Vec<String>>,
    q: &str,
    instant: Timestamp,
) -> Result<Vec<String>, String> {
    let query = Query::parse(q).map_err(|e| e.to_string())?;
    let mut memory = Memory::default();
    let ids: Vec<&String> = items.keys().collect();
    let none = Vec::new();
    for (doc, (id, item)) in items.iter().enumerate() {
        memory.add(
            doc as u32,
            &index(&text_of(item, comments.get(id).unwrap_or(&none))),
        );
    }
    let hits = evaluate(&query, memory.stats, &mut memory).map_err(|e| e.to_string())?;
    let scanned: Vec<u32> = items
        .iter()
        .enumerate()
        .filter(|(_, (id, item))| scan(&query, &text_of(item, comments.get(*id).unwrap_or(&none))))
        .map(|(doc, _)| doc as u32)
        .collect();
    let found: Vec<u32> = hits.iter().map(|h| h.doc).collect();
    assert_eq!(found, scanned, "{q}: the index against a scan");
    let weights = Weights::default();
    let mut ranked: Vec<(i64, u32, &String)> = hits
        .iter()
        .map(|h| {
            let id = ids[h.doc as usize];
            (h.score, score(&items[id], instant, &weights).total, id)
        })
        .collect();
    ranked.sort_by(|a, b| b.0.cmp(&a.0).then(b.1.cmp(&a.1)).then(a.2.cmp(b.2)));
    Ok(ranked.into_iter().map(|(_, _, id)| id.clone()).collect())
}

/// The corpus, as items of repository 0 of `synth`.
fn corpus() -> (Vec<ItemSnapshot>, Vec<Value>) {
    let text = include_str!("data/search_corpus.json");
    let corpus: Value = serde_json::from_str(text).unwrap();
    let at: Timestamp = "2026-11-20T10:00:00Z".parse().unwrap();
    let items = corpus["items"]
        .as_array()
        .unwrap()
        .iter()
        .map(|c| {
            let k: usize = c["key"].as_str().unwrap().parse().unwrap();
            let mut item = synth::item(0, k, 10, at);
            item.title = c["title"].as_str().unwrap().into();
            item.text = c["body"].as_str().unwrap().into();
            item.author = c["author"].as_str().unwrap().into();
            item.labels = c["labels"]
                .as_array()
                .unwrap()
                .iter()
                .map(|l| l.as_str().unwrap().to_string())
                .collect();
            item
        })
        .collect();
    (items, corpus["queries"].as_array().unwrap().clone())
}

fn percent(q: &str) -> String {
    q.bytes()
        .map(|b| match b {
            b'A'..=b'Z' | b'a'..=b'z' | b'0'..=b'9' => (b as char).to_string(),
            _ => format!("%{b:02X}"),
        })
        .collect()
}

/// Asks every corpus query of the server at `port`; returns the answers.
fn ask_corpus(
    port: u16,
    queries: &[Value],
    items: &BTreeMap<String, ItemSnapshot>,
    instant: Timestamp,
) -> Vec<Value> {
    let (g, r) = ("g", "r0");
    let mut answers = Vec::new();
    for case in queries {
        let q = case["q"].as_str().unwrap();
        let target = format!("/api/repos/{g}/{r}/signals?q={}", percent(q));
        let (status, served) = get(port, &target);
        if let Some(error) = case["error"].as_str() {
            assert_eq!(status, 400, "{q:?}: {served}");
            let message = served["error"].as_str().unwrap();
            assert!(message.contains(error), "{q:?}: {message}");
        } else {
            assert_eq!(status, 200, "{q:?}: {served}");
            let keys: Vec<&str> = served["signals"]
                .as_array()
                .unwrap()
                .iter()
                .map(|s| s["key"].as_str().unwrap())
                .collect();
            let mut sorted = keys.clone();
            sorted.sort();
            let mut expected: Vec<&str> = case["found"]
                .as_array()
                .unwrap()
                .iter()
                .map(|k| k.as_str().unwrap())
                .collect();
            expected.sort();
            assert_eq!(sorted, expected, "{q:?}: the set found");
            assert_eq!(served["total"], expected.len(), "{q:?}: total");
            let ids: Vec<&str> = served["signals"]
                .as_array()
                .unwrap()
                .iter()
                .map(|s| s["id"].as_str().unwrap())
                .collect();
            let reference = reference_search(items, &HashMap::new(), q, instant).unwrap();
            assert_eq!(ids, reference, "{q:?}: the order");
        }
        answers.push(served);
    }
    answers
}

#[test]
fn the_shared_corpus_is_answered_alike_on_sqlite_and_postgresql() {
    let dir = TempDir::new("search-corpus");
    let (items, queries) = corpus();
    let at: Timestamp = "2026-11-20T10:00:00Z".parse().unwrap();
    let by_id: BTreeMap<String, ItemSnapshot> = items
        .iter()
        .map(|i| (i.id(signals_core::Source::Github), i.clone()))
        .collect();
    {
        let mut store = Store::open(dir.path().join("signals.db")).unwrap();
        let before = at - jiff::SignedDuration::from_hours(1);
        let key = synth::populate(&mut store, 1, 0, 10, before)[0];
        synth::commit(&mut store, key, 0, at, items);
    }
    let sqlite = {
        let s = serve_with(dir.path(), &["--store", "signals.db"], &[]);
        ask_corpus(s.port, &queries, &by_id, at)
    };
    let Some(cluster) = crate::workers::cluster() else {
        return;
    };
    let url = cluster.create_database("corpus").unwrap();
    let out = run(
        dir.path(),
        &["migrate", "--from", "signals.db", "--to", &url],
        &[],
    );
    assert!(out.status.success(), "{}", show(&out));
    let s = serve_with(dir.path(), &["--store", &url], &[]);
    let postgres = ask_corpus(s.port, &queries, &by_id, at);
    assert_eq!(sqlite, postgres, "the same answers on both stores");
}
