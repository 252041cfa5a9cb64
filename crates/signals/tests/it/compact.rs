//! The compact events and snapshots of SQLite migration
//! 0008 (PostgreSQL 0007) keep every history exactly.
//!
//! `data/schema6.jsonl` is a store written by the code of schema 6 (SQLite;
//! PostgreSQL's schema 5 has the same tables and columns): every row of
//! every table, as that code's `dump` gave them. `data/schema6-expected.json`
//! holds what that code read back from it: every item's history
//! (`signals_core::history`), every repository's trail, and the bytes of
//! every `dataset.json` its `signals export` wrote. Both were made by
//! `record_schema6_fixture` (ignored) before the migration existed; the
//! histories are rich (label, assignee, body and title changes, reactions,
//! state changes, drafts and merges, releases, untracked changes, items
//! closed by a reconcile, a repository whose configured name changed, so one
//! run holds two id prefixes, and one tracked in two groups).
//!
//! The test loads those rows into a store of the old schema on each
//! backend, lets it migrate, and compares what it reads back with what the
//! old code read.

use std::collections::{BTreeMap, HashMap};
use std::path::Path;

use jiff::{SignedDuration, Timestamp};
use serde_json::{Value as Json, json};
use signals_core::run::account;
use signals_core::{
    Group, ItemDetail, ItemSnapshot, ItemState, Metrics, News, RepoContext, RepoName, RunRecord,
    Source, TrackedRepo,
};
use signals_store::Backend;
use signals_store::dump::Value;
use signals_store::suite::WholeReads;
use signals_store::{Dump, RepoKey, RunCommit};

use crate::support::{TempDir, run, show};

fn fixture_dir() -> std::path::PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/it/data")
}

/// A deterministic pseudo-random sequence.
struct Rng(u64);

impl Rng {
    fn below(&mut self, n: u64) -> u64 {
        self.0 = self
            .0
            .wrapping_mul(6364136223846793005)
            .wrapping_add(1442695040888963407);
        (self.0 >> 33) % n
    }
}

fn tracked(id: &str, full: &str) -> TrackedRepo {
    TrackedRepo {
        id: id.into(),
        source: Source::Github.into(),
        repo: RepoName::parse(full).unwrap(),
        name: id.to_uppercase(),
        keywords: vec![],
    }
}

fn context(full: &str) -> RepoContext {
    RepoContext {
        repository: RepoName::parse(full).unwrap(),
        url: format!("https://github.com/{full}"),
        description: "A repository with rich histories".into(),
        homepage: String::new(),
        language: "Rust".into(),
        topics: vec!["signals".into()],
        default_branch: "main".into(),
        stars: 40,
        forks: 4,
        open_issues: 3,
        archived: false,
        license: None,
        pushed_at: None,
        created_at: None,
    }
}

fn item(full: &str, k: u64, at: Timestamp) -> ItemSnapshot {
    let repo = RepoName::parse(full).unwrap();
    let (key, detail, url) = match k % 4 {
        3 => (
            format!("v1.{k}"),
            ItemDetail::Release {
                prerelease: k % 8 == 3,
                published_at: at,
            },
            format!("https://github.com/{full}/releases/tag/v1.{k}"),
        ),
        1 => (
            k.to_string(),
            ItemDetail::PullRequest {
                draft: k.is_multiple_of(3),
                merged: false,
                merged_at: None,
                association: None,
            },
            format!("https://github.com/{full}/pull/{k}"),
        ),
        _ => (
            k.to_string(),
            ItemDetail::issue(),
            format!("https://github.com/{full}/issues/{k}"),
        ),
    };
    ItemSnapshot {
        repo,
        key,
        title: format!("Item {k} of {full}"),
        text: format!("Body of item {k}. ").repeat(1 + (k as usize % 5) * 3),
        url,
        created_at: at - SignedDuration::from_hours(48),
        updated_at: at,
        metrics: Metrics {
            reactions: k % 3,
            comments: k % 4,
        },
        labels: if k.is_multiple_of(2) {
            vec!["bug".into()]
        } else {
            vec![]
        },
        author: format!("user{}", k % 3),
        state: if k % 4 == 3 {
            ItemState::Closed
        } else {
            ItemState::Open
        },
        closed_at: None,
        assignees: vec![],
        detail,
    }
}

/// One change of an item between two runs.
fn mutate(rng: &mut Rng, s: &mut ItemSnapshot, at: Timestamp) {
    match rng.below(12) {
        0 => s.metrics.reactions += 1 + rng.below(3),
        1 => s.metrics.comments += 1,
        2 => s.labels.push(format!("area:{}", rng.below(3))),
        3 => {
            s.labels.pop();
        }
        4 => s.assignees.push(format!("dev{}", rng.below(4))),
        5 => s.assignees.clear(),
        6 if s.state == ItemState::Open => {
            s.state = ItemState::Closed;
            s.closed_at = Some(at);
            if let ItemDetail::PullRequest {
                merged, merged_at, ..
            } = &mut s.detail
            {
                *merged = true;
                *merged_at = Some(at);
            }
        }
        6 if !matches!(s.detail, ItemDetail::Release { .. }) => {
            s.state = ItemState::Open;
            s.closed_at = None;
        }
        7 => s.text.push_str("\n\nEdited."),
        8 => s.title = format!("{} (renamed {})", s.title, rng.below(100)),
        // Untracked: a new snapshot without an event.
        9 => s.url.push_str("#moved"),
        10 => {
            if let ItemDetail::PullRequest { draft, .. } = &mut s.detail {
                *draft = !*draft;
            }
        }
        _ => {}
    }
    // Sub-second precision round-trips too.
    s.updated_at = if rng.below(5) == 0 {
        at + SignedDuration::new(0, 123_456_789)
    } else {
        at
    };
}

/// Builds the rich store through the store API, as collections would.
fn build(store: &mut dyn Backend) -> Vec<(RepoKey, String)> {
    let mut rng = Rng(0x1717);
    let base: Timestamp = "2026-10-01T08:00:00Z".parse().unwrap();
    let groups = [
        Group {
            id: "g".into(),
            name: "G".into(),
        },
        Group {
            id: "h".into(),
            name: "H".into(),
        },
    ];
    // (group, id, configured names over time)
    let repos: [(usize, &str, &str); 3] = [
        (0, "alpha", "o/alpha"),
        (1, "alpha", "o/alpha"),
        (0, "beta", "o/beta"),
    ];
    let mut keys = Vec::new();
    let mut latest: Vec<BTreeMap<String, ItemSnapshot>> = vec![BTreeMap::new(); repos.len()];
    for (g, id, full) in repos.iter() {
        let key = store
            .ensure_repository(&groups[*g], &tracked(id, full))
            .unwrap();
        keys.push((key, format!("{}/{id}", groups[*g].id)));
    }
    for run in 0..9i64 {
        for (r, (g, id, full)) in repos.iter().enumerate() {
            let at =
                base + SignedDuration::from_hours(24 * run) + SignedDuration::from_mins(r as i64);
            // Run 5 of beta: its configured name changes; items seen from
            // then on have the new id prefix, older ones keep theirs.
            let full = if *id == "beta" && run >= 5 {
                "o/beta2"
            } else {
                *full
            };
            if *id == "beta" && run == 5 {
                store
                    .ensure_repository(&groups[*g], &tracked(id, full))
                    .unwrap();
            }
            let key = keys[r].0;
            let reconcile = run == 7;
            let mut observed: Vec<ItemSnapshot> = Vec::new();
            let n = 6 + run as u64 * 2;
            for k in 1..=n {
                let fresh = item(full, k, at);
                let id_now = fresh.id(Source::Github);
                match latest[r].get(&id_now) {
                    None => observed.push(fresh),
                    Some(prev) => {
                        if rng.below(3) != 0 {
                            let mut s = prev.clone();
                            mutate(&mut rng, &mut s, at);
                            observed.push(s);
                        }
                    }
                }
            }
            if reconcile {
                // Open items the host no longer lists: closed at the
                // reconcile (those of the old prefix in beta, some others).
                for (iid, prev) in &latest[r] {
                    let listed = observed.iter().any(|o| &o.id(Source::Github) == iid);
                    let gone = !iid.contains(&format!(":{full}:")) || rng.below(4) == 0;
                    if !listed && gone && prev.state == ItemState::Open {
                        observed.push(signals_core::reconcile::gone(prev, at));
                    }
                }
            }
            let ids: Vec<String> = observed.iter().map(|i| i.id(Source::Github)).collect();
            let previous: HashMap<String, ItemSnapshot> =
                store.latest_snapshots_for(key, &ids).unwrap();
            let delta = account(Source::Github, observed, &previous);
            for (iid, s) in &delta.snapshots {
                latest[r].insert(iid.clone(), s.clone());
            }
            store
                .commit_run(
                    key,
                    &RunCommit {
                        record: RunRecord {
                            collected_at: at,
                            since: at - SignedDuration::from_hours(24),
                            observed_count: delta.observed_count,
                            changed_count: delta.changed_count(),
                        },
                        context: context(full),
                        news: News::default(),
                        snapshots: delta.snapshots,
                        events: delta.events,
                        references: vec![],
                        stats: Default::default(),
                        renamed_to: None,
                        messages: vec![],
                        reconciled: reconcile,
                        open_pulls: Default::default(),
                        downloads: Vec::new(),
                        gone: Vec::new(),
                    },
                )
                .unwrap();
        }
    }
    keys
}

/// Every item's history, every trail, as a backend reads them.
fn histories(store: &dyn Backend) -> Json {
    let mut out = serde_json::Map::new();
    for summary in store.repositories().unwrap() {
        let key = summary.key;
        let name = format!("{}/{}", summary.group.id, summary.repo.id);
        let view = store.repository_view(key).unwrap().unwrap();
        let mut items = serde_json::Map::new();
        for id in view.items.keys() {
            let snapshots = store.snapshot_history(key, id).unwrap();
            let history = signals_core::history::history(id, &snapshots).unwrap();
            items.insert(id.clone(), serde_json::to_value(&history).unwrap());
        }
        // The trail whole, and paged newest first in pages of 7.
        let total = store.trail_page(key, 0, 0).unwrap().total;
        let mut paged = Vec::new();
        let mut offset = 0;
        while offset < total {
            paged.extend(store.trail_page(key, offset, 7).unwrap().events);
            offset += 7;
        }
        out.insert(
            name,
            json!({
                "items": items,
                "trail": view.trail,
                "trailPaged": paged,
                "changedInLatest": view.changed_in_latest.iter().collect::<std::collections::BTreeSet<_>>(),
                "openItems": store.open_item_ids(key).unwrap(),
                "growth": format!("{:?}", store.growth_since(key, "2026-10-05T00:00:00Z".parse().unwrap()).unwrap()),
            }),
        );
    }
    Json::Object(out)
}

/// The `dataset.json` of every repository, as `signals export` writes it
/// from `store`.
fn exports(dir: &Path, store: &str) -> BTreeMap<String, String> {
    let out = run(dir, &["export", "--store", store, "--out", "site"], &[]);
    assert!(out.status.success(), "{}", show(&out));
    let mut docs = BTreeMap::new();
    for name in ["g/alpha", "h/alpha", "g/beta"] {
        let path = dir.join("site").join(name).join("dataset.json");
        docs.insert(name.to_string(), std::fs::read_to_string(&path).unwrap());
    }
    std::fs::remove_dir_all(dir.join("site")).ok();
    for leftover in std::fs::read_dir(dir).unwrap() {
        let p = leftover.unwrap().path();
        if p.file_name()
            .unwrap()
            .to_string_lossy()
            .starts_with(".site")
        {
            std::fs::remove_dir_all(p).ok();
        }
    }
    docs
}

fn value_json(v: &Value) -> Json {
    match v {
        Value::Null => Json::Null,
        Value::Int(i) => json!(i),
        Value::Text(t) => json!(t),
        Value::Blob(b) => {
            json!({ "hex": b.iter().map(|x| format!("{x:02x}")).collect::<String>() })
        }
    }
}

/// Writes the fixture with the code of schema 6. Run once, before
/// migration 0008 existed:
/// `SIGNALS_RECORD_FIXTURE=1 cargo test -p signals --test it record_schema6_fixture -- --ignored`
#[test]
#[ignore]
fn record_schema6_fixture() {
    if std::env::var_os("SIGNALS_RECORD_FIXTURE").is_none() {
        return;
    }
    let dir = TempDir::new("compact-record");
    let path = dir.path().join("signals.db");
    let mut store = signals_store_sqlite::Store::open(&path).unwrap();
    assert_eq!(store.schema_version().unwrap(), 6);
    build(&mut store);
    let mut lines = String::new();
    Dump::dump(&store, &mut |record| {
        let columns: Vec<&str> = record.table.columns().iter().map(|(c, _)| *c).collect();
        let values: Vec<Json> = record.values.iter().map(value_json).collect();
        lines.push_str(
            &serde_json::to_string(&json!({
                "table": record.table.name(),
                "columns": columns,
                "values": values,
            }))
            .unwrap(),
        );
        lines.push('\n');
        Ok(())
    })
    .unwrap();
    let expected = json!({
        "histories": histories(&store),
        "exports": exports(dir.path(), "signals.db"),
    });
    drop(store);
    std::fs::create_dir_all(fixture_dir()).unwrap();
    std::fs::write(fixture_dir().join("schema6.jsonl"), lines).unwrap();
    std::fs::write(
        fixture_dir().join("schema6-expected.json"),
        serde_json::to_string_pretty(&expected).unwrap() + "\n",
    )
    .unwrap();
}

/// The fixture's rows as `INSERT` statements, with literals written for
/// one backend (`pg`: PostgreSQL's bytea, else SQLite's blob).
fn fixture_inserts(pg: bool) -> Vec<String> {
    let text = std::fs::read_to_string(fixture_dir().join("schema6.jsonl")).unwrap();
    text.lines()
        .map(|line| {
            let row: Json = serde_json::from_str(line).unwrap();
            let columns: Vec<&str> = row["columns"]
                .as_array()
                .unwrap()
                .iter()
                .map(|c| c.as_str().unwrap())
                .collect();
            let values: Vec<String> = row["values"]
                .as_array()
                .unwrap()
                .iter()
                .map(|v| match v {
                    Json::Null => "NULL".to_string(),
                    Json::Number(n) => n.to_string(),
                    Json::String(t) => format!("'{}'", t.replace('\'', "''")),
                    Json::Object(o) => {
                        let hex = o["hex"].as_str().unwrap();
                        if pg {
                            format!("'\\x{hex}'::bytea")
                        } else {
                            format!("X'{hex}'")
                        }
                    }
                    other => panic!("unexpected value {other}"),
                })
                .collect();
            format!(
                "INSERT INTO {} ({}) VALUES ({})",
                row["table"].as_str().unwrap(),
                columns.join(", "),
                values.join(", ")
            )
        })
        .collect()
}

fn expected() -> Json {
    serde_json::from_str(
        &std::fs::read_to_string(fixture_dir().join("schema6-expected.json")).unwrap(),
    )
    .unwrap()
}

fn assert_same(store: &dyn Backend, dir: &Path, address: &str, backend: &str) {
    let expected = expected();
    let got = histories(store);
    for (repo, want) in expected["histories"].as_object().unwrap() {
        let have = &got[repo];
        for (part, want) in want.as_object().unwrap() {
            // `growth_since` has answered only the items that grew since the
            // fixture was recorded (a change of its meaning, not of the
            // rows); the store suite checks it on both backends.
            if part == "growth" {
                continue;
            }
            assert_eq!(&have[part], want, "{backend}: {repo}: {part}");
        }
    }
    let exports = exports(dir, address);
    for (name, want) in expected["exports"].as_object().unwrap() {
        // The fixture was recorded before signals had `firstResponse`,
        // `firstResponseState` and `related`; these items have no comments read, so
        // the first is null on every one and the second is never
        // `answered`, and the rest must be exactly as recorded.
        let mut have: Json = serde_json::from_str(exports[name].as_str()).unwrap();
        for signal in have["dataset"]["signals"].as_array_mut().unwrap() {
            let signal = signal.as_object_mut().unwrap();
            let first = signal.remove("firstResponse");
            assert_eq!(first, Some(Json::Null), "{backend}: {name}");
            let state = signal.remove("firstResponseState");
            assert_ne!(state, Some(Json::from("answered")), "{backend}: {name}");
            // Nor had it `related`, which the export computes from the
            // migrated items' words (tests/it/related.rs checks the lists):
            // here only that an item is never its own relative.
            let id = signal["id"].clone();
            if let Some(Json::Array(related)) = signal.remove("related") {
                assert!(related.iter().all(|r| r["id"] != id), "{backend}: {id}");
            }
        }
        let want: Json = serde_json::from_str(want.as_str().unwrap()).unwrap();
        assert_eq!(have, want, "{backend}: {name}/dataset.json");
    }
}

/// A store of schema 6 (SQLite) migrated to the compact
/// rows reads back every history, trail and document exactly as the old
/// code did; and it goes on collecting.
#[test]
fn the_compact_migration_keeps_every_history_on_sqlite() {
    let dir = TempDir::new("compact-sqlite");
    let path = dir.path().join("signals.db");
    drop(signals_store_sqlite::Store::open_before(&path, 6).unwrap());
    {
        let conn = rusqlite::Connection::open(&path).unwrap();
        let tx = rusqlite::Connection::unchecked_transaction(&conn).unwrap();
        for sql in fixture_inserts(false) {
            tx.execute(&sql, [])
                .unwrap_or_else(|e| panic!("{sql}: {e}"));
        }
        tx.commit().unwrap();
    }
    let store = signals_store_sqlite::Store::open(&path).unwrap();
    // Brought up to the version of a fresh store.
    let fresh = signals_store_sqlite::Store::open_in_memory().unwrap();
    assert_eq!(
        store.schema_version().unwrap(),
        fresh.schema_version().unwrap()
    );
    assert_same(&store, dir.path(), "signals.db", "SQLite");
    goes_on(store);
}

/// The same on PostgreSQL, from its schema 5.
#[test]
fn the_compact_migration_keeps_every_history_on_postgres() {
    let Some(cluster) = crate::workers::cluster() else {
        return;
    };
    let url = cluster.create_database("compact").unwrap();
    drop(signals_store_pg::PgStore::open_before(&url, 5).unwrap());
    {
        let mut c = postgres::Client::connect(&url, postgres::NoTls).unwrap();
        let mut tx = c.transaction().unwrap();
        for sql in fixture_inserts(true) {
            tx.execute(&sql, &[])
                .unwrap_or_else(|e| panic!("{sql}: {e}"));
        }
        for (table, column) in [
            ("repositories", "key"),
            ("runs", "id"),
            ("texts", "id"),
            ("items", "id"),
            ("snapshots", "id"),
            ("events", "id"),
        ] {
            tx.execute(
                &format!(
                    "SELECT setval(pg_get_serial_sequence('{table}', '{column}'),
                                   (SELECT max({column}) FROM {table}) + 1, false)"
                ),
                &[],
            )
            .unwrap();
        }
        tx.execute(
            "INSERT INTO leases (repo) SELECT key FROM repositories",
            &[],
        )
        .unwrap();
        tx.commit().unwrap();
    }
    let store = signals_store_pg::PgStore::open(&url).unwrap();
    // Brought up to the version of a fresh store.
    let fresh = cluster.create_database("compact-fresh").unwrap();
    let fresh = signals_store_pg::PgStore::open(&fresh).unwrap();
    assert_eq!(
        store.schema_version().unwrap(),
        fresh.schema_version().unwrap()
    );
    let dir = TempDir::new("compact-pg");
    assert_same(&store, dir.path(), &url, "PostgreSQL");
    goes_on(store);
}

/// A migrated store takes the next run, whose events follow the old ones.
fn goes_on(mut store: impl Backend) {
    let repo = store.repositories().unwrap()[0].clone();
    let view = store.repository_view(repo.key).unwrap().unwrap();
    let (id, mut s) = view.items.into_iter().next().unwrap();
    let at = view.runs.last().unwrap().collected_at + SignedDuration::from_hours(1);
    s.metrics.reactions += 1;
    s.updated_at = at;
    let previous = store
        .latest_snapshots_for(repo.key, std::slice::from_ref(&id))
        .unwrap();
    let delta = account(Source::Github, vec![s.clone()], &previous);
    let before = store.trail_page(repo.key, 0, 0).unwrap().total;
    store
        .commit_run(
            repo.key,
            &RunCommit {
                record: RunRecord {
                    collected_at: at,
                    since: at - SignedDuration::from_hours(24),
                    observed_count: 1,
                    changed_count: delta.changed_count(),
                },
                context: context("o/alpha"),
                news: News::default(),
                snapshots: delta.snapshots,
                events: delta.events,
                references: vec![],
                stats: Default::default(),
                renamed_to: None,
                messages: vec![],
                reconciled: false,
                open_pulls: Default::default(),
                downloads: Vec::new(),
                gone: Vec::new(),
            },
        )
        .unwrap();
    let signals_store::TrailPage {
        total: after,
        events: page,
    } = store.trail_page(repo.key, 0, 1).unwrap();
    assert_eq!(after, before + 1);
    assert_eq!(page[0].item_id, id);
    assert_eq!(page[0].detail, "metrics, updatedAt");
    let history = store.snapshot_history(repo.key, &id).unwrap();
    assert_eq!(history.last().unwrap().1, s);
}
