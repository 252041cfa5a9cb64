//! The static site's search in headless Chromium: the
//! shared corpus of queries answered by the page's script from the
//! exported word index (the same set as the corpus, in the order the
//! core's ranking gives on the same store), what a first one-word query
//! fetches, and an incremental export after 10 changed items.

use std::collections::{BTreeMap, BTreeSet};
use std::io::Write;
use std::path::Path;

use jiff::{SignedDuration, Timestamp};
use serde_json::Value;
use signals_core::search::Query;
use signals_core::{ItemSnapshot, Source};
use signals_store::search::{Postings, catch_up};
use signals_store::{RepoKey, RunWrites, SearchIndex};
use signals_store_sqlite::Store;

use crate::browser::{
    Chromium, Dom, Server, VIRTUAL_TIME, assert_clean, chromium_or_skip, filter_results,
    query_value,
};
use crate::support::{self, TempDir};
use crate::wordy::{word, wordy};

/// A store at `dir/signals.db` whose repository `o/r0` holds `items`,
/// indexed; returns its key.
fn store_with(dir: &Path, items: Vec<ItemSnapshot>, at: Timestamp) -> RepoKey {
    let mut store = Store::open(dir.join("signals.db")).unwrap();
    let key = store
        .ensure_repository(&crate::synth::group(), &crate::synth::tracked(0))
        .unwrap();
    crate::synth::commit(&mut store, key, 0, at, items);
    catch_up(&mut store, key).unwrap();
    key
}

fn export(dir: &Path) {
    let out = support::run(
        dir,
        &["export", "--store", "signals.db", "--out", "site"],
        &[],
    );
    assert!(
        out.status.success(),
        "export failed: {}",
        support::show(&out)
    );
}

/// The ids of the first `limit` matches of `q`, as the core ranks them on
/// the store, ties by importance (the exported cards') then id.
fn ranked(dir: &Path, key: RepoKey, q: &str, limit: usize) -> Result<Vec<String>, String> {
    let store = Store::open(dir.join("signals.db")).unwrap();
    let query = Query::parse(q).map_err(|e| e.to_string())?;
    let stats = store.search_state(key).unwrap().stats;
    let hits = signals_core::search::evaluate(
        &query,
        stats,
        &mut Postings {
            store: &store,
            repo: key,
        },
    )
    .map_err(|e| e.to_string())?;
    let docs: BTreeMap<u32, String> = store
        .search_docs(key)
        .unwrap()
        .into_iter()
        .map(|(id, d)| (d, id))
        .collect();
    let cards = cards(&dir.join("site/g/r0"));
    let mut rows: Vec<(i64, i64, String)> = hits
        .iter()
        .map(|h| {
            let id = docs[&h.doc].clone();
            (-h.score, -(cards[&id] as i64), id)
        })
        .collect();
    rows.sort();
    Ok(rows.into_iter().take(limit).map(|r| r.2).collect())
}

/// Every card of the exported text files: id -> importance.
fn cards(repo: &Path) -> BTreeMap<String, u64> {
    let mut out = BTreeMap::new();
    for e in std::fs::read_dir(repo.join("search")).unwrap() {
        let path = e.unwrap().path();
        let name = path.file_name().unwrap().to_string_lossy().to_string();
        if name.starts_with("t-") {
            for c in support::read_json(&path).as_array().unwrap() {
                if !c.is_null() {
                    out.insert(
                        c["id"].as_str().unwrap().to_string(),
                        c["importance"].as_u64().unwrap(),
                    );
                }
            }
        }
    }
    out
}

/// Loads the repository page with `?q=` and returns the ids shown and the
/// status line.
fn search_page(
    browser: &Chromium,
    dir: &TempDir,
    server: &Server,
    q: &str,
) -> (Vec<String>, String, Vec<String>) {
    let run = browser.run(
        dir,
        &["--dump-dom", VIRTUAL_TIME],
        &server.url(&format!("/g/r0/index.html?q={}", query_value(q))),
    );
    let (ids, status) = filter_results(&Dom::parse(&run.stdout));
    (ids, status, run.console)
}

#[test]
fn site_search_answers_the_shared_corpus_in_headless_chromium() {
    let Some(browser) = chromium_or_skip() else {
        return;
    };
    let corpus: Value =
        serde_json::from_str(include_str!("data/search_corpus.json")).expect("the corpus is JSON");
    let dir = TempDir::new("site-search-corpus");
    let at: Timestamp = "2026-11-20T10:00:00Z".parse().unwrap();
    let items: Vec<ItemSnapshot> = corpus["items"]
        .as_array()
        .unwrap()
        .iter()
        .map(|it| {
            let k: usize = it["key"].as_str().unwrap().parse().unwrap();
            let mut i = crate::synth::item(0, k, 16, at);
            i.title = it["title"].as_str().unwrap().into();
            i.text = it["body"].as_str().unwrap().into();
            i.author = it["author"].as_str().unwrap().into();
            i.labels = it["labels"]
                .as_array()
                .unwrap()
                .iter()
                .map(|l| l.as_str().unwrap().into())
                .collect();
            i
        })
        .collect();
    let id_of: BTreeMap<String, String> = items
        .iter()
        .map(|i| (i.key.clone(), i.id(Source::Github)))
        .collect();
    let key = store_with(dir.path(), items, at);
    export(dir.path());
    let server = Server::start(&dir.path().join("site"));
    let mut console = Vec::new();
    let mut queries: Vec<Value> = corpus["queries"].as_array().unwrap().clone();
    // Hostile input beyond the corpus's: the page must answer, not break.
    for q in [
        "\"",
        "-",
        "<script>alert(1)</script>",
        "\u{7f}\u{202e}memory",
    ] {
        queries.push(serde_json::json!({ "q": q }));
    }
    for case in &queries {
        let q = case["q"].as_str().unwrap();
        let (ids, status, seen) = search_page(&browser, &dir, &server, q);
        console.extend(seen);
        match ranked(dir.path(), key, q, PAGE) {
            Err(error) => {
                assert!(ids.is_empty(), "{q:?}: results shown for a refused query");
                assert!(
                    status.contains(&error),
                    "{q:?}: status {status:?} lacks {error:?}"
                );
                if let Some(want) = case["error"].as_str() {
                    assert!(
                        status.contains(want),
                        "{q:?}: status {status:?} lacks {want:?}"
                    );
                }
            }
            Ok(order) => {
                if let Some(found) = case["found"].as_array() {
                    let want: BTreeSet<&str> = found
                        .iter()
                        .map(|k| id_of[k.as_str().unwrap()].as_str())
                        .collect();
                    let got: BTreeSet<&str> = ids.iter().map(String::as_str).collect();
                    assert_eq!(got, want, "{q:?}: found set");
                }
                assert_eq!(ids, order, "{q:?}: order differs from the core's ranking");
                assert!(
                    status.starts_with(&format!("{} signal", order.len())),
                    "{q:?}: status {status:?}"
                );
            }
        }
    }
    assert_clean(&console, &server);
}

/// Bytes of the files the server sent since request `from`, by kind.
fn sent(server: &Server, root: &Path, from: usize) -> (u64, Vec<String>) {
    let mut total = 0;
    let mut paths = Vec::new();
    for (path, status) in &server.requests()[from..] {
        let rel = path.split('?').next().unwrap().trim_start_matches('/');
        if *status == 200 && (rel.contains("/search/") || rel.ends_with("/search.json")) {
            total += std::fs::metadata(root.join(rel))
                .map(|m| m.len())
                .unwrap_or(0);
            paths.push(rel.to_string());
        }
    }
    (total, paths)
}

/// Results on the first page, as the API's.
const PAGE: usize = 50;

/// Generated signals for the bytes test (the benchmark runs 10,000 and
/// 100,000).
const GENERATED: usize = 5000;
const VOCAB: usize = 20_000;

#[test]
fn site_search_first_query_fetches_little_in_headless_chromium() {
    let Some(browser) = chromium_or_skip() else {
        return;
    };
    let dir = TempDir::new("site-search-bytes");
    let at: Timestamp = "2026-11-20T10:00:00Z".parse().unwrap();
    let items = (1..=GENERATED).map(|k| wordy(k, VOCAB, at)).collect();
    let key = store_with(dir.path(), items, at);
    export(dir.path());
    let site = dir.path().join("site");
    let server = Server::start(&site);
    let mut console = Vec::new();
    for (q, what) in [
        (word(0), "the most common word"),
        (word(VOCAB / 2), "a rare word"),
    ] {
        let before = server.requests().len();
        let (ids, status, seen) = search_page(&browser, &dir, &server, &q);
        console.extend(seen);
        let want = ranked(dir.path(), key, &q, PAGE).unwrap();
        assert!(!want.is_empty(), "{what} {q} is in some signal");
        assert_eq!(
            ids, want,
            "{what} {q}: the first page differs from the core's"
        );
        assert!(status.contains("match"), "{status:?}");
        let (bytes, paths) = sent(&server, &site, before);
        let text: u64 = paths
            .iter()
            .filter(|p| p.contains("/search/t-"))
            .map(|p| std::fs::metadata(site.join(p)).unwrap().len())
            .sum();
        let _ = writeln!(
            std::io::stderr(),
            "{what} {q}: {} of {GENERATED} signals match; {} bytes of index and {text} of result text fetched",
            ids.len(),
            bytes - text
        );
        assert!(
            bytes <= 500_000,
            "{what} {q}: {bytes} bytes fetched ({text} of them result text): {paths:?}"
        );
        let all = server.requests();
        assert!(
            !all[before..]
                .iter()
                .any(|(p, _)| p.ends_with("signals.json")),
            "{what}: a query alone reads no filter index"
        );
    }
    assert_clean(&console, &server);
}

#[test]
fn site_search_incremental_export_rewrites_only_changed_shards() {
    let Some(browser) = chromium_or_skip() else {
        return;
    };
    let dir = TempDir::new("site-search-incremental");
    let t1: Timestamp = "2026-11-20T10:00:00Z".parse().unwrap();
    let t2 = t1 + SignedDuration::from_hours(1);
    // Items 1 to 10, the ones that change, have short texts of a few
    // shared words, so their terms fall in a few shards.
    let short = |k: usize| crate::synth::item(0, k, 40, t1);
    let items = (1..=2000)
        .map(|k| {
            if k <= 10 {
                short(k)
            } else {
                wordy(k, VOCAB, t1)
            }
        })
        .collect();
    let key = store_with(dir.path(), items, t1);
    export(dir.path());
    let repo = dir.path().join("site/g/r0");
    let before: Value = support::read_json(&repo.join("search.json"));
    let through = before["through"].as_i64().unwrap();
    let inode = |p: &Path| std::os::unix::fs::MetadataExt::ino(&std::fs::metadata(p).unwrap());
    let old: BTreeMap<String, u64> = shard_files(&before)
        .into_iter()
        .map(|f| {
            let i = inode(&repo.join(&f));
            (f, i)
        })
        .collect();
    {
        let mut store = Store::open(dir.path().join("signals.db")).unwrap();
        let changed = (1..=10)
            .map(|k| {
                let mut i = short(k);
                i.text.push_str(" zebracorn");
                i.updated_at = t2;
                i
            })
            .collect();
        crate::synth::commit(&mut store, key, 0, t2, changed);
        catch_up(&mut store, key).unwrap();
    }
    export(dir.path());
    let after: Value = support::read_json(&repo.join("search.json"));
    let terms = Store::open(dir.path().join("signals.db"))
        .unwrap()
        .search_terms_written(key, through)
        .unwrap();
    assert!(terms.iter().any(|t| t == "zebracorn"));
    let shards = after["shards"].as_array().unwrap();
    let firsts: Vec<&str> = shards.iter().map(|s| s[0].as_str().unwrap()).collect();
    let mut rewritten = 0;
    for (i, s) in shards.iter().enumerate() {
        let stem = s[1].as_str().unwrap();
        let file = format!("search/w-{stem}.bin");
        let linked = old.get(&file) == Some(&inode(&repo.join(&file)));
        let end = firsts.get(i + 1).copied();
        let holds = terms
            .iter()
            .any(|t| t.as_str() >= firsts[i] && end.is_none_or(|e| t.as_str() < e));
        if linked {
            assert!(!holds, "shard {stem} holds a changed term but was kept");
        } else {
            assert!(
                holds,
                "shard {stem} was rewritten though none of its terms changed"
            );
            rewritten += 1;
        }
    }
    assert!(
        rewritten > 0 && rewritten < shards.len() / 2,
        "{rewritten} of {} shards rewritten",
        shards.len()
    );
    let server = Server::start(&dir.path().join("site"));
    let (ids, _, console) = search_page(&browser, &dir, &server, "zebracorn");
    let want: BTreeSet<String> = (1..=10).map(|k| format!("github:o/r0:issue:{k}")).collect();
    let got: BTreeSet<String> = ids.into_iter().collect();
    assert_eq!(got.len(), 10, "{got:?}");
    assert_eq!(
        got.iter()
            .map(|i| i.rsplit(':').next().unwrap().to_string())
            .collect::<BTreeSet<_>>(),
        want.iter()
            .map(|i| i.rsplit(':').next().unwrap().to_string())
            .collect::<BTreeSet<_>>()
    );
    assert_clean(&console, &server);
}

fn shard_files(manifest: &Value) -> Vec<String> {
    manifest["shards"]
        .as_array()
        .unwrap()
        .iter()
        .flat_map(|s| {
            let stem = s[1].as_str().unwrap();
            [
                format!("search/w-{stem}.bin"),
                format!("search/p-{stem}.bin"),
            ]
        })
        .collect()
}
