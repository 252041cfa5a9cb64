//! The API of `signals serve`, which reads through per-repository
//! indexes and paged store reads, answers exactly what the reference below
//! computes from the whole repository view (the API as it was before, kept
//! here to check against), on the demo's store and on a generated
//! repository, on SQLite and on PostgreSQL. Also: `/api/`'s list of each
//! endpoint's parameters against what the endpoint takes, and the errors
//! of a history asked in the wrong group.

use std::collections::{BTreeSet, HashMap};
use std::path::Path;

use jiff::{SignedDuration, Timestamp};
use serde_json::{Value, json};
use signals_core::first_response::{Responses, read_from};
use signals_core::importance::{Weights, echoed, score};
use signals_core::lifecycle::verdict::StateChange;
use signals_core::{Comment, CommentKind, ItemDetail, ItemSnapshot, ItemState};
use signals_store::suite::WholeReads;
use signals_store::{Backend, CommentStore, RepoView};
use signals_store_sqlite::Store;

use crate::serve::{get, serve_with};
use crate::support::{TempDir, run, show};
use crate::synth;

/// The reference's state of an item.
fn state_of(item: &ItemSnapshot) -> &'static str {
    match item.detail {
        ItemDetail::PullRequest { merged: true, .. } => "merged",
        _ => item.state.as_str(),
    }
}

fn encode_id(id: &str) -> String {
    let mut out = String::new();
    for b in id.bytes() {
        match b {
            b'A'..=b'Z' | b'a'..=b'z' | b'0'..=b'9' | b'-' | b'_' | b'.' | b'~' | b'/' | b':' => {
                out.push(b as char)
            }
            _ => out.push_str(&format!("%{b:02X}")),
        }
    }
    out
}

/// Each item's comment bodies.
type Comments = HashMap<String, Vec<String>>;

/// The reference's searches of one repository, by query, made once.
type Searches = std::cell::RefCell<HashMap<String, Result<Vec<String>, String>>>;

/// `/signals` by the reference: every latest snapshot filtered, scored at
/// the latest run, sorted and paged; `None` for a page past the last.
fn reference_signals(
    group: &str,
    repo: &str,
    (view, responses, comments, searches, echoes): (
        &RepoView,
        &Responses,
        &Comments,
        &Searches,
        &HashMap<String, usize>,
    ),
    params: &[(&str, &str)],
) -> Option<Value> {
    let param = |k: &str| {
        params
            .iter()
            .find(|(name, v)| *name == k && !v.is_empty())
            .map(|(_, v)| *v)
    };
    let instant = view.runs.last().unwrap().collected_at;
    let weights = Weights::default();
    // What the word index finds, ranked, by the reference.
    let searched = match param("q") {
        None => None,
        Some(q) => {
            let mut cache = searches.borrow_mut();
            let found = cache.entry(q.to_string()).or_insert_with(|| {
                crate::search::reference_search(&view.items, comments, q, instant)
            });
            match found {
                Ok(ids) => Some(ids.clone()),
                Err(_) => return None,
            }
        }
    };
    let rank: HashMap<&str, usize> = searched
        .iter()
        .flatten()
        .enumerate()
        .map(|(n, id)| (id.as_str(), n))
        .collect();
    let mut matched: Vec<(u32, &String, &ItemSnapshot)> = view
        .items
        .iter()
        .filter(|(_, i)| param("kind").is_none_or(|k| i.kind().as_str() == k))
        .filter(|(_, i)| param("state").is_none_or(|s| state_of(i) == s))
        .filter(|(_, i)| param("label").is_none_or(|l| i.labels.iter().any(|x| x == l)))
        .filter(|(_, i)| param("author").is_none_or(|a| i.author == a))
        .filter(|(id, i)| {
            param("waiting") != Some("true")
                || responses
                    .answer(id, i)
                    .is_some_and(|a| a.waits(i, Timestamp::now(), 2))
        })
        .filter(|(id, _)| searched.is_none() || rank.contains_key(id.as_str()))
        .map(|(id, i)| {
            let echo = echoes.get(id.as_str()).copied().unwrap_or(0);
            (
                echoed(score(i, instant, &weights), echo, &weights).total,
                id,
                i,
            )
        })
        .collect();
    if param("sort") == Some("updated") {
        matched.sort_by(|a, b| b.2.updated_at.cmp(&a.2.updated_at).then(a.1.cmp(b.1)));
    } else if searched.is_some() && param("sort") != Some("importance") {
        matched.sort_by_key(|m| rank[m.1.as_str()]);
    } else {
        matched.sort_by(|a, b| b.0.cmp(&a.0).then(a.1.cmp(b.1)));
    }
    let page: usize = param("page").map_or(1, |p| p.parse().unwrap());
    let total = matched.len();
    let pages = total.div_ceil(50);
    if page > pages.max(1) {
        return None;
    }
    let signals: Vec<Value> = matched
        .iter()
        .skip((page - 1) * 50)
        .take(50)
        .map(|(importance, id, item)| {
            json!({
                "id": id, "kind": item.kind().as_str(), "key": item.key, "title": item.title,
                "url": item.url, "state": state_of(item), "labels": item.labels,
                "author": item.author, "assignees": item.assignees,
                "createdAt": item.created_at.to_string(),
                "updatedAt": item.updated_at.to_string(),
                "reactions": item.metrics.reactions, "comments": item.metrics.comments,
                "importance": importance,
                "changedInLatest": view.changed_in_latest.contains(*id),
                "firstResponse": responses.of(id, item).map(|f| f.doc()),
                "firstResponseState": responses.answer(id, item).map(|a| a.state()),
                "history": format!("/api/signals/{}/history?group={group}", encode_id(id)),
            })
        })
        .collect();
    Some(json!({
        "group": group, "repo": repo, "total": total, "page": page, "pages": pages,
        "pageSize": 50, "signals": signals,
    }))
}

/// The reference's signals with their links, read one id at
/// a time from the store.
fn with_links(store: &dyn Backend, key: signals_store::RepoKey, expected: &mut Value) {
    for s in expected["signals"].as_array_mut().unwrap() {
        let id = s["id"].as_str().unwrap().to_string();
        let links = store
            .links_of(key, std::slice::from_ref(&id))
            .unwrap()
            .remove(&id);
        let links = links.unwrap_or_default();
        let ids = |l: Vec<signals_store::Linked>| -> Vec<String> {
            l.into_iter().map(|l| l.id).collect()
        };
        s["references"] = ids(links.references).into();
        s["referencedBy"] = ids(links.referenced_by).into();
        // Related items: the 5 best by score, the open ones first.
        let mut best = store
            .related_of(key, std::slice::from_ref(&id))
            .unwrap()
            .remove(&id)
            .unwrap_or_default();
        best.truncate(5);
        best.sort_by_key(|e| !e.open);
        s["related"] = best
            .into_iter()
            .map(|e| serde_json::json!({"id": e.item.id, "score": e.score, "shared": e.shared}))
            .collect::<Vec<_>>()
            .into();
    }
}

/// `/trail?page=` by the reference: the whole trail, each run's lifecycle
/// change after its items' events, reversed, 100 a page.
fn reference_trail(group: &str, repo: &str, trail: &[Value], page: usize) -> Value {
    let total = trail.len();
    let events: Vec<&Value> = trail
        .iter()
        .rev()
        .skip((page - 1) * 100)
        .take(100)
        .collect();
    json!({"group": group, "repo": repo, "total": total, "page": page,
           "pages": total.div_ceil(100), "pageSize": 100, "events": events})
}

/// The whole trail of `view` oldest first, as the API writes its events,
/// with the lifecycle `changes` (oldest first) after their runs' events.
fn whole_trail(group: &str, view: &RepoView, changes: &[StateChange]) -> Vec<Value> {
    let change = |c: &StateChange| {
        let detail = match c.from {
            Some(from) => format!("{} → {}", from.as_str(), c.to.as_str()),
            None => c.to.as_str().to_string(),
        };
        json!({"at": c.at.to_string(), "itemId": null, "title": null, "url": null,
               "kind": "lifecycle", "detail": detail, "history": null})
    };
    let mut changes = changes.iter().peekable();
    let mut out = Vec::new();
    for e in &view.trail {
        while let Some(c) = changes.next_if(|c| c.at < e.at) {
            out.push(change(c));
        }
        out.push(json!({
            "at": e.at.to_string(), "itemId": e.item_id, "title": e.title, "url": e.url,
            "kind": e.kind.as_str(), "detail": e.detail,
            "history": format!("/api/signals/{}/history?group={group}", encode_id(&e.item_id)),
        }));
    }
    out.extend(changes.map(change));
    out
}

/// A query string of `params`, percent-encoded.
fn query(params: &[(&str, &str)]) -> String {
    params
        .iter()
        .map(|(k, v)| {
            let v: String = v
                .bytes()
                .map(|b| match b {
                    b'A'..=b'Z' | b'a'..=b'z' | b'0'..=b'9' | b'-' | b'_' | b'.' => {
                        (b as char).to_string()
                    }
                    _ => format!("%{b:02X}"),
                })
                .collect();
            format!("{k}={v}")
        })
        .collect::<Vec<_>>()
        .join("&")
}

/// Asks the server at `port` every query of `cases` about every
/// repository of `store`, plus each of its labels, authors and some words
/// of its titles, every page of each, and every trail page; each answer
/// must equal the reference's.
fn compare(port: u16, store: &dyn Backend) -> usize {
    let mut asked = 0;
    for summary in store.repositories().unwrap() {
        let Some(view) = store.repository_view(summary.key).unwrap() else {
            continue;
        };
        let (g, r) = (summary.group.id.as_str(), summary.repo.id.as_str());
        // The store read comments from its first run less the default 90
        // days (`comments_backfill_days`).
        let read_from = read_from(Some(view.runs[0].collected_at), 90);
        let responses =
            Responses::new(store.replies(summary.key).unwrap(), &[]).read_from(read_from);
        let mut comments: HashMap<String, Vec<String>> = HashMap::new();
        for (item, body) in store.comment_texts(summary.key).unwrap() {
            comments.entry(item).or_default().push(body);
        }
        let searches = Searches::default();
        let labels: BTreeSet<&str> = view
            .items
            .values()
            .flat_map(|i| i.labels.iter().map(String::as_str))
            .collect();
        let authors: BTreeSet<&str> = view.items.values().map(|i| i.author.as_str()).collect();
        let words: BTreeSet<String> = view
            .items
            .values()
            .take(5)
            .flat_map(|i| i.title.split_whitespace().map(str::to_uppercase))
            .take(6)
            .collect();
        let mut cases: Vec<Vec<(&str, &str)>> = vec![
            vec![],
            vec![("sort", "updated")],
            vec![("state", "open")],
            vec![("state", "merged"), ("kind", "pull_request")],
            vec![("kind", "issue"), ("state", "closed"), ("sort", "updated")],
            vec![("kind", "release")],
            vec![("kind", "discussion")],
            vec![
                ("kind", "discussion"),
                ("state", "open"),
                ("sort", "updated"),
            ],
            vec![("label", "no such label")],
            vec![("author", "nobody at all")],
            vec![("q", "steps to REPRODUCE"), ("sort", "updated")],
            vec![("q", "item 1"), ("state", "open")],
            vec![("q", "\"steps to\" -reproduce")],
            vec![("q", "repro*"), ("sort", "importance")],
            vec![("q", "reply")],
            vec![("q", "..."), ("kind", "issue")],
            vec![("waiting", "true")],
            vec![("waiting", "true"), ("kind", "issue"), ("sort", "updated")],
        ];
        for l in &labels {
            cases.push(vec![("label", l)]);
            cases.push(vec![("label", l), ("state", "open"), ("sort", "updated")]);
        }
        for a in authors.iter().take(12) {
            cases.push(vec![("author", a)]);
        }
        for w in &words {
            cases.push(vec![("q", w.as_str())]);
        }
        // The echo term of importance: the other repositories among each
        // item's related items.
        let ids: Vec<String> = view.items.keys().cloned().collect();
        let echoes: HashMap<String, usize> = store
            .related_of(summary.key, &ids)
            .unwrap()
            .into_iter()
            .map(|(id, list)| {
                let mut repos: Vec<_> = list
                    .iter()
                    .map(|e| e.item.repo)
                    .filter(|r| *r != summary.key)
                    .collect();
                repos.sort_unstable();
                repos.dedup();
                (id, repos.len())
            })
            .collect();
        for case in cases {
            let mut page = 1;
            loop {
                let page_text = page.to_string();
                let mut params = case.clone();
                params.push(("page", &page_text));
                let target = format!("/api/repos/{g}/{r}/signals?{}", query(&params));
                let (status, served) = get(port, &target);
                asked += 1;
                let texts = (&view, &responses, &comments, &searches, &echoes);
                match reference_signals(g, r, texts, &params) {
                    Some(mut expected) => {
                        with_links(store, summary.key, &mut expected);
                        assert_eq!(status, 200, "{target}: {served}");
                        assert_eq!(served, expected, "{target}");
                        if page >= expected["pages"].as_u64().unwrap() as usize {
                            break;
                        }
                    }
                    None => {
                        assert_eq!(status, 400, "{target}: {served}");
                        break;
                    }
                }
                page += 1;
            }
        }
        let trail = whole_trail(g, &view, &store.lifecycle_changes(summary.key).unwrap());
        let pages = trail.len().div_ceil(100).max(1);
        for page in 1..=pages {
            let target = format!("/api/repos/{g}/{r}/trail?page={page}");
            let (status, served) = get(port, &target);
            asked += 1;
            assert_eq!(status, 200, "{target}: {served}");
            assert_eq!(served, reference_trail(g, r, &trail, page), "{target}");
        }
    }
    asked
}

/// A generated repository of 1,300 items over four runs: 300 items gained
/// reactions, 40 closed, 25 pull requests merged.
fn generated(dir: &Path) {
    let mut store = Store::open(dir.join("signals.db")).unwrap();
    let t1: Timestamp = "2026-11-20T10:00:00Z".parse().unwrap();
    let t2 = t1 + SignedDuration::from_hours(6);
    let t3 = t2 + SignedDuration::from_hours(6);
    let t4 = t3 + SignedDuration::from_hours(6);
    let keys = synth::populate(&mut store, 1, 1_300, 300, t1);
    synth::bump(&mut store, keys[0], 0, 300, 300, t1, t2);
    let closed = (1..=40)
        .map(|k| {
            let mut i = synth::item(0, k * 7, 300, t1);
            i.state = ItemState::Closed;
            i.updated_at = t3;
            i
        })
        .collect();
    synth::commit(&mut store, keys[0], 0, t3, closed);
    let merged = (1..=25)
        .map(|k| {
            let mut i = synth::item(0, k * 3, 300, t1);
            i.state = ItemState::Closed;
            i.detail = ItemDetail::PullRequest {
                draft: false,
                merged: true,
                merged_at: Some(t4),
                association: None,
            };
            i.updated_at = t4;
            i
        })
        .collect();
    synth::commit(&mut store, keys[0], 0, t4, merged);
    // Replies: some items answered by a maintainer, some by
    // their author only, so `firstResponse` and `waiting` have both kinds.
    let items = store.latest_snapshots(keys[0]).unwrap();
    let comments: Vec<(String, Comment)> = items
        .iter()
        .filter(|(_, i)| i.kind() != signals_core::ItemKind::Release)
        .take(120)
        .enumerate()
        .map(|(n, (id, i))| {
            let at = i.created_at + SignedDuration::from_mins(n as i64 * 7 + 1);
            let comment = Comment {
                kind: CommentKind::Comment,
                host_id: n.to_string(),
                item_kind: i.kind(),
                item_key: i.key.clone(),
                author: if n % 3 == 0 {
                    i.author.clone()
                } else {
                    "maint".into()
                },
                association: None,
                bot: false,
                state: None,
                created_at: at,
                updated_at: at,
                body: format!("reply {n}"),
            };
            (id.clone(), comment)
        })
        .collect();
    store.store_comments(keys[0], &comments).unwrap();
    // Discussions, some closed, filtered by their own kind.
    let t5 = t4 + SignedDuration::from_hours(6);
    let discussions = (1..=30)
        .map(|k| {
            let mut i = synth::item(0, k * 11, 300, t1);
            i.detail = ItemDetail::Discussion {
                category: "Q&A".into(),
                answered: k % 2 == 0,
            };
            if k % 3 == 0 {
                i.state = ItemState::Closed;
            }
            i.updated_at = t5;
            i
        })
        .collect();
    synth::commit(&mut store, keys[0], 0, t5, discussions);
}

/// Serves `store` (a path or address) from `dir` and compares every answer.
fn serve_and_compare(dir: &Path, store_arg: &str, store: &dyn Backend) -> usize {
    let s = serve_with(dir, &["--store", store_arg], &[]);
    compare(s.port, store)
}

#[test]
fn the_api_equals_the_reference_on_a_generated_repository_and_the_demo() {
    let dir = TempDir::new("api-reference");
    generated(dir.path());
    let store = Store::open(dir.path().join("signals.db")).unwrap();
    let asked = serve_and_compare(dir.path(), "signals.db", &store);
    assert!(asked > 100, "{asked}");

    let out = run(dir.path(), &["demo", "--out", "demo"], &[]);
    assert_eq!(out.status.code(), Some(0), "{}", show(&out));
    let demo = Store::open(dir.path().join("demo/signals.db")).unwrap();
    assert!(serve_and_compare(dir.path(), "demo/signals.db", &demo) > 50);
}

#[test]
fn the_api_equals_the_reference_on_postgresql() {
    let Some(cluster) = crate::workers::cluster() else {
        return;
    };
    let dir = TempDir::new("api-reference-pg");
    generated(dir.path());
    let url = cluster.create_database("api").unwrap();
    let out = run(
        dir.path(),
        &["migrate", "--from", "signals.db", "--to", &url],
        &[],
    );
    assert!(out.status.success(), "{}", show(&out));
    let store = signals_store_pg::PgStore::open(&url).unwrap();
    let mut s = serve_with(dir.path(), &["--store", &url], &[]);
    assert!(compare(s.port, &store) > 100);
    // It stops cleanly: its PostgreSQL sessions close outside the
    // server's runtime (closing them inside it panicked).
    let status = s.terminate();
    let log = std::fs::read_to_string(dir.path().join("serve.log")).unwrap();
    assert_eq!(status.and_then(|s| s.code()), Some(0), "{log}");
    assert!(!log.contains("panicked"), "{log}");
}

/// A value each query parameter of the API accepts on the demo, so that a
/// parameter an endpoint takes answers 200 there. A parameter `/api/` lists
/// that is missing here fails the test below: it is then new, and needs a
/// value.
fn accepted_value(param: &str, group: &str) -> String {
    match param {
        "page" => "1",
        "q" => "cassette",
        "kind" => "issue",
        "state" => "open",
        "label" => "bug",
        "author" => "sigmavirus24",
        "sort" => "updated",
        "waiting" => "true",
        "group" => group,
        other => panic!("/api/ lists a parameter {other:?} this test has no value for"),
    }
    .to_string()
}

#[test]
fn every_endpoint_takes_exactly_the_parameters_the_front_door_lists() {
    let dir = TempDir::new("api-front-door");
    let out = run(dir.path(), &["demo", "--out", "demo"], &[]);
    assert_eq!(out.status.code(), Some(0), "{}", show(&out));
    let s = serve_with(dir.path(), &["--store", "demo/signals.db"], &[]);
    let (status, front) = get(s.port, "/api/");
    assert_eq!(status, 200, "{front}");
    let (_, groups) = get(s.port, "/api/groups");
    let first = &groups["groups"][0];
    let (group, repo) = (
        first["id"].as_str().unwrap(),
        first["repositories"][0]["id"].as_str().unwrap(),
    );
    let (_, signals) = get(s.port, &format!("/api/repos/{group}/{repo}/signals"));
    let id = signals["signals"][0]["id"].as_str().unwrap();
    let endpoints: Vec<(String, BTreeSet<String>)> = front["endpoints"]
        .as_array()
        .unwrap()
        .iter()
        .map(|e| {
            let path = e["path"]
                .as_str()
                .unwrap()
                .replace("{group}", group)
                .replace("{repo}", repo)
                .replace("{id}", &encode_id(id));
            let params = e["params"]
                .as_array()
                .unwrap()
                .iter()
                .map(|p| p.as_str().unwrap().to_string())
                .collect();
            (path, params)
        })
        .collect();
    assert!(
        endpoints.iter().any(|(p, params)| p.ends_with("/signals")
            && params.contains("waiting")
            && params.contains("q")),
        "/api/ leaves signals parameters out: {front}"
    );
    // Every parameter any endpoint lists, and one none does, sent to every
    // endpoint: answered (200) exactly when that endpoint lists it, else a
    // 400 that names it.
    let mut all: BTreeSet<String> = endpoints.iter().flat_map(|(_, p)| p.clone()).collect();
    all.insert("x".to_string());
    let mut asked = 0;
    for (path, params) in &endpoints {
        for param in &all {
            let value = if params.contains(param) {
                accepted_value(param, group)
            } else {
                "1".to_string()
            };
            let target = format!("{path}?{param}={value}");
            let (status, body) = crate::serve::raw(s.port, "GET", &target);
            let body = String::from_utf8_lossy(&body);
            if params.contains(param) {
                assert_eq!(status, 200, "{target}, listed by /api/, is refused: {body}");
            } else {
                assert_eq!(
                    status, 400,
                    "{target}, not listed by /api/, is taken: {body}"
                );
                assert!(
                    body.contains(&format!("unknown parameter \\\"{param}\\\"")),
                    "{target}: {body}"
                );
            }
            asked += 1;
        }
    }
    assert!(asked >= 6 * 10, "{asked}");
    let (status, body) = get(s.port, "/api/?x=1");
    assert_eq!(status, 400, "{body}");
}

#[test]
fn a_history_asked_in_an_unknown_group_names_that_group() {
    let dir = TempDir::new("api-history-group");
    let out = run(dir.path(), &["demo", "--out", "demo"], &[]);
    assert_eq!(out.status.code(), Some(0), "{}", show(&out));
    let s = serve_with(dir.path(), &["--store", "demo/signals.db"], &[]);
    let (_, groups) = get(s.port, "/api/groups");
    let groups = groups["groups"].as_array().unwrap();
    assert!(groups.len() >= 2, "the demo has two groups: {groups:?}");
    let (group, other) = (
        groups[0]["id"].as_str().unwrap(),
        groups[1]["id"].as_str().unwrap(),
    );
    let repos = |g: &Value| -> Vec<(String, String)> {
        g["repositories"]
            .as_array()
            .unwrap()
            .iter()
            .map(|r| {
                (
                    r["id"].as_str().unwrap().into(),
                    r["repo"].as_str().unwrap().into(),
                )
            })
            .collect()
    };
    // A repository of the first group that the second does not track.
    let elsewhere = repos(&groups[1]);
    let (repo, _) = repos(&groups[0])
        .into_iter()
        .find(|(_, name)| elsewhere.iter().all(|(_, n)| n != name))
        .expect("the demo's first group has a repository of its own");
    let (_, signals) = get(s.port, &format!("/api/repos/{group}/{repo}/signals"));
    let id = encode_id(signals["signals"][0]["id"].as_str().unwrap());
    let history = |g: &str| get(s.port, &format!("/api/signals/{id}/history?group={g}"));

    let (status, answer) = history(group);
    assert_eq!(status, 200, "{answer}");
    let (status, answer) = history("nosuch");
    assert_eq!(status, 404, "{answer}");
    let error = answer["error"].as_str().unwrap();
    assert!(
        error.contains("no group \"nosuch\"") && error.contains("/api/groups"),
        "{error}"
    );
    // A group that exists but does not track the repository says so.
    let (status, answer) = history(other);
    assert_eq!(status, 404, "{answer}");
    let error = answer["error"].as_str().unwrap();
    assert!(
        error.contains(&format!("group \"{other}\" does not track")),
        "{error}"
    );
}
