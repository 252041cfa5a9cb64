//! A group page's search in headless Chromium: the
//! group's word index, written at export from its repositories' indexes,
//! answers the search language over all the group's signals, ranked by
//! BM25 over the group's documents (the core's ranking over the
//! repositories' postings, numbered as the group's manifest says), ties
//! by importance then id; results link to the cards in their
//! repositories; an export after one repository changed rewrites only the
//! group's shards whose terms changed.

use std::collections::{BTreeMap, BTreeSet};
use std::path::Path;

use jiff::{SignedDuration, Timestamp};
use serde_json::Value;
use signals_core::ItemSnapshot;
use signals_core::search::postings::Entry;
use signals_core::search::{Positions, Query, Stats};
use signals_store::search::{Postings, catch_up};
use signals_store::{RepoKey, RunWrites, SearchIndex, StoreError};
use signals_store_sqlite::Store;

use crate::browser::{
    Chromium, Dom, Server, VIRTUAL_TIME, assert_clean, chromium_or_skip, filter_results,
    query_value,
};
use crate::support::{self, TempDir};
use crate::wordy::{word, wordy_in};

/// Repositories of the test's group and signals in each: a group page
/// over 1,200 signals, quick to export.
const REPOS: usize = 24;
const ITEMS: usize = 50;
const VOCAB: usize = 5000;

/// Item `k` of repository `n`, its text drawn from the shared vocabulary;
/// items 1 to 10 of repository 3, the ones that change, have short texts
/// of a few words (a changed length changes every list holding the
/// document, so long texts would touch every shard).
fn item(n: usize, k: usize, at: Timestamp) -> ItemSnapshot {
    if n == 3 && k <= 10 {
        return crate::synth::item(n, k, 40, at);
    }
    wordy_in(n, k, VOCAB, at)
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

/// The group's postings: each repository's from the store, its documents
/// moved up by its base in the group's manifest.
struct Group<'a> {
    store: &'a Store,
    parts: Vec<(u32, RepoKey)>,
}

impl signals_core::search::Source for Group<'_> {
    type Error = StoreError;

    fn entries(&mut self, term: &str, positions: Positions) -> Result<Vec<Entry>, StoreError> {
        let mut out = Vec::new();
        for &(base, repo) in &self.parts {
            let mut p = Postings {
                store: self.store,
                repo,
            };
            out.extend(p.entries(term, positions)?.into_iter().map(|mut e| {
                e.doc += base;
                e
            }));
        }
        Ok(out)
    }

    fn expand(&mut self, prefix: &str, limit: usize) -> Result<Vec<String>, StoreError> {
        let mut all = BTreeSet::new();
        for &(_, repo) in &self.parts {
            all.extend(self.store.search_expand(repo, prefix, limit)?);
        }
        Ok(all.into_iter().take(limit).collect())
    }
}

/// The ids of the first `limit` matches of `q` over the group, as the core
/// ranks them, ties by importance (the repositories' cards) then id.
fn ranked(dir: &Path, keys: &BTreeMap<String, RepoKey>, q: &str, limit: usize) -> Vec<String> {
    let store = Store::open(dir.join("signals.db")).unwrap();
    let manifest = support::read_json(&dir.join("site/g/_search/search.json"));
    let mut parts = Vec::new();
    let mut ids: BTreeMap<u32, String> = BTreeMap::new();
    let mut importance: BTreeMap<String, u64> = BTreeMap::new();
    let mut stats = Stats::default();
    for p in manifest["repos"].as_array().unwrap() {
        let prefix = p["prefix"].as_str().unwrap().trim_end_matches('/');
        let base = p["base"].as_u64().unwrap() as u32;
        let key = keys[prefix];
        parts.push((base, key));
        let state = store.search_state(key).unwrap().stats;
        stats.docs += state.docs;
        stats.total_len += state.total_len;
        for (id, doc) in store.search_docs(key).unwrap() {
            ids.insert(base + doc, id);
        }
        let ranks = support::read_json(&dir.join(format!("site/g/{prefix}/search/ranks.json")));
        for r in ranks.as_array().unwrap() {
            importance.insert(r[2].as_str().unwrap().into(), r[1].as_u64().unwrap());
        }
    }
    let query = Query::parse(q).unwrap();
    let hits = signals_core::search::evaluate(
        &query,
        stats,
        &mut Group {
            store: &store,
            parts,
        },
    )
    .unwrap();
    let mut rows: Vec<(i64, i64, String)> = hits
        .iter()
        .map(|h| {
            let id = ids[&h.doc].clone();
            (-h.score, -(importance[&id] as i64), id)
        })
        .collect();
    rows.sort();
    rows.into_iter().take(limit).map(|r| r.2).collect()
}

/// A store at `dir` with the group's repositories, indexed; their keys by
/// id.
fn group_store(dir: &Path, at: Timestamp) -> BTreeMap<String, RepoKey> {
    let mut store = Store::open(dir.join("signals.db")).unwrap();
    let mut keys = BTreeMap::new();
    for n in 0..REPOS {
        let key = store
            .ensure_repository(&crate::synth::group(), &crate::synth::tracked(n))
            .unwrap();
        let items = (1..=ITEMS).map(|k| item(n, k, at)).collect();
        crate::synth::commit(&mut store, key, n, at, items);
        catch_up(&mut store, key).unwrap();
        keys.insert(format!("r{n}"), key);
    }
    keys
}

/// The group page with `?q=`: the ids shown, the status, the console.
fn group_page(
    browser: &Chromium,
    dir: &TempDir,
    server: &Server,
    q: &str,
) -> (Vec<String>, String, Vec<String>, Dom) {
    let run = browser.run(
        dir,
        &["--dump-dom", VIRTUAL_TIME],
        &server.url(&format!("/g/index.html?q={}", query_value(q))),
    );
    let dom = Dom::parse(&run.stdout);
    let (ids, status) = filter_results(&dom);
    (ids, status, run.console, dom)
}

#[test]
fn site_search_group_page_ranks_over_the_group_and_stays_incremental() {
    let Some(browser) = chromium_or_skip() else {
        return;
    };
    let dir = TempDir::new("site-search-group");
    let t1: Timestamp = "2026-11-20T10:00:00Z".parse().unwrap();
    let keys = group_store(dir.path(), t1);
    export(dir.path());
    let site = dir.path().join("site");
    let server = Server::start(&site);
    let mut console = Vec::new();
    for q in [
        word(0),
        word(VOCAB / 3),
        format!("{} {}", word(1), word(2)),
        format!("\"{} {}\"", word(0), word(0)),
        format!("{}* -{}", word(30), word(0)),
    ] {
        let before = server.requests().len();
        let (ids, status, seen, dom) = group_page(&browser, &dir, &server, &q);
        console.extend(seen);
        let want = ranked(dir.path(), &keys, &q, 50);
        assert!(!want.is_empty(), "{q}: some signal matches");
        assert_eq!(
            ids, want,
            "{q}: the group page's order differs from the core's"
        );
        assert!(status.contains("match"), "{q}: {status:?}");
        // Results link to the cards in their repositories.
        let href = dom
            .elements()
            .filter(|&e| dom.text(e) == "full card")
            .filter_map(|e| dom.attr(e, "href"))
            .next()
            .unwrap_or_default()
            .to_string();
        assert!(
            href.starts_with('r') && href.contains("/index.html#") || href.contains("/page-"),
            "{q}: a result's card link {href:?}"
        );
        let page = href.split('#').next().unwrap();
        assert!(site.join("g").join(page).is_file(), "{q}: {page} exists");
        let bytes: u64 = server.requests()[before..]
            .iter()
            .filter(|(p, s)| *s == 200 && p.contains("search") && !p.contains("/search/t-"))
            .map(|(p, _)| {
                let rel = p.split('?').next().unwrap().trim_start_matches('/');
                std::fs::metadata(site.join(rel)).map_or(0, |m| m.len())
            })
            .sum();
        assert!(bytes <= 500_000, "{q}: {bytes} bytes of index fetched");
        assert!(
            !server.requests()[before..]
                .iter()
                .any(|(p, _)| p.ends_with("signals.json")),
            "{q}: a query alone reads no filter index"
        );
    }
    assert_clean(&console, &server);

    // One repository changes 10 items: the group's shards holding none of
    // its changed terms are kept (hard links to the previous ones).
    let group = site.join("g/_search");
    let before: Value = support::read_json(&group.join("search.json"));
    let inode = |p: &Path| std::os::unix::fs::MetadataExt::ino(&std::fs::metadata(p).unwrap());
    let old: BTreeMap<String, u64> = before["shards"]
        .as_array()
        .unwrap()
        .iter()
        .map(|s| {
            let f = format!("search/w-{}.bin", s[1].as_str().unwrap());
            let i = inode(&group.join(&f));
            (f, i)
        })
        .collect();
    let t2 = t1 + SignedDuration::from_hours(1);
    {
        let mut store = Store::open(dir.path().join("signals.db")).unwrap();
        let key = keys["r3"];
        let changed = (1..=10)
            .map(|k| {
                let mut i = item(3, k, t1);
                i.text.push_str(" zebracorn");
                i.updated_at = t2;
                i
            })
            .collect();
        crate::synth::commit(&mut store, key, 3, t2, changed);
        catch_up(&mut store, key).unwrap();
    }
    export(dir.path());
    let after: Value = support::read_json(&group.join("search.json"));
    let shards = after["shards"].as_array().unwrap();
    let kept = shards
        .iter()
        .filter(|s| {
            let f = format!("search/w-{}.bin", s[1].as_str().unwrap());
            old.get(&f) == Some(&inode(&group.join(&f)))
        })
        .count();
    assert!(
        kept * 2 > shards.len(),
        "only {kept} of {} group shards kept after one repository changed",
        shards.len()
    );
    let ranges = |m: &Value| -> Vec<(String, u64, u64)> {
        m["repos"]
            .as_array()
            .unwrap()
            .iter()
            .map(|p| {
                (
                    p["prefix"].as_str().unwrap().to_string(),
                    p["base"].as_u64().unwrap(),
                    p["room"].as_u64().unwrap(),
                )
            })
            .collect()
    };
    assert_eq!(ranges(&before), ranges(&after), "the numbering is kept");
    let server = Server::start(&site);
    let (ids, _, console, _) = group_page(&browser, &dir, &server, "zebracorn");
    let got: BTreeSet<String> = ids.into_iter().collect();
    let want: BTreeSet<String> = (1..=10).map(|k| format!("github:o/r3:issue:{k}")).collect();
    assert_eq!(
        got.iter()
            .map(|i| i.rsplit(':').next().unwrap().to_string())
            .collect::<BTreeSet<_>>(),
        want.iter()
            .map(|i| i.rsplit(':').next().unwrap().to_string())
            .collect::<BTreeSet<_>>(),
    );
    assert!(got.iter().all(|i| i.contains("o/r3:")), "{got:?}");
    assert_clean(&console, &server);
}
