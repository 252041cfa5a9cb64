//! Related items of items the host no longer lists, end to end on the
//! defaults (a host, a token, a group) against a year of history: a
//! story told in three repositories of a group, and another in two; the
//! host then deletes one item and transfers another to a third
//! repository, and a reconcile finds both gone. The deleted item leaves
//! every list (each computed again without it), has no list of its own,
//! and its `related` endpoint answers an empty list; the transferred one
//! is a new item in its new repository with a list of its own, in the
//! old one's place; an item listed again is related again. On
//! PostgreSQL, a worker killed while its catch-up waits on another
//! catch-up of the group leaves the gone mark committed with its run (a
//! copy made then carries it), and the export's catch-up takes it out.

use std::collections::BTreeMap;
use std::path::Path;
use std::process::{Child, Command, Stdio};
use std::time::{Duration, Instant};

use jiff::{SignedDuration, Timestamp};
use serde_json::{Value, json};
use signals_store::{Reads, RelatedStore};
use signals_testhost::{Scenario, TestHost, synthetic};

use crate::related::{LINKING, TEXTURE, a_year_of, plant, related_ids, set};
use crate::serve::{get, serve_with};
use crate::support::{TempDir, read_json, run, show, signals_bin};

const TOKEN: (&str, &str) = ("GITHUB_TOKEN", "tok");

/// Items in each repository's year: one a day, the last opened 23 hours
/// ago; the stories are told in the last day, which a first run reads.
const DAYS: usize = 365;

/// The texture story, in three repositories.
const A: &str = "github:o/a:issue:365";
const B: &str = "github:o/b:issue:365";
const C: &str = "github:o/c:issue:365";
/// The linking story: `T` of o/a, transferred to o/c as `MOVED`; `P` of
/// o/b tells it too.
const T: &str = "github:o/a:issue:364";
const P: &str = "github:o/b:issue:364";
const MOVED: &str = "github:o/c:issue:366";

fn fmt(t: Timestamp) -> String {
    t.strftime("%Y-%m-%dT%H:%M:%SZ").to_string()
}

/// Item `n` of `repo` made open and updated an hour before `now`, telling
/// `title` and `body`.
fn story(s: &mut Scenario, repo: &str, n: u64, text: (&str, &str), now: Timestamp) {
    set(s, repo, n, text.0, text.1);
    let item = issue(s, repo, n);
    item["state"] = json!("open");
    item["closed_at"] = Value::Null;
    item["updated_at"] = json!(fmt(now - SignedDuration::from_hours(1)));
}

fn issue<'a>(s: &'a mut Scenario, repo: &str, n: u64) -> &'a mut Value {
    let issues = &mut s.repos.get_mut(repo).unwrap().issues;
    issues.iter_mut().find(|i| i["number"] == n).unwrap()
}

/// A year of history in o/a, o/b and o/c, their items' words their own,
/// with the two stories told in the last day.
fn year(now: Timestamp) -> Scenario {
    let start: Timestamp = "2025-01-01T00:00:00Z".parse().unwrap();
    let mut s = Scenario::default();
    for name in ["o/a", "o/b", "o/c"] {
        s.repos.extend(synthetic(name, DAYS, start).repos);
    }
    plant(&mut s, &["o/a", "o/b", "o/c"]);
    for name in ["o/a", "o/b", "o/c"] {
        a_year_of(&mut s, name, now);
    }
    let log = format!("Since 0.9 the game stops at once. Log:\n{TEXTURE}");
    let same = format!("Same crash at startup here:\n{TEXTURE}");
    story(
        &mut s,
        "o/a",
        365,
        ("Crash when loading textures", TEXTURE),
        now,
    );
    let texture_pack = ("Panic on startup with a texture pack", log.as_str());
    story(&mut s, "o/b", 365, texture_pack, now);
    let closes = (
        "Game closes at startup since the texture update",
        same.as_str(),
    );
    story(&mut s, "o/c", 365, closes, now);
    story(
        &mut s,
        "o/a",
        364,
        ("Linking fails on Debian", LINKING),
        now,
    );
    let build = format!("cargo build ends with:\n{LINKING}");
    let undefined = (
        "Build error: undefined reference to SDL_GetWindowWMInfo",
        build.as_str(),
    );
    story(&mut s, "o/b", 364, undefined, now);
    s
}

/// The host deletes `A` and transfers `T` to o/c, where it is number 366,
/// updated at `now`.
fn delete_and_transfer(s: &mut Scenario, now: Timestamp) {
    let a = &mut s.repos.get_mut("o/a").unwrap().issues;
    a.retain(|i| i["number"] != 365);
    transfer(s, now);
}

fn transfer(s: &mut Scenario, now: Timestamp) {
    let a = &mut s.repos.get_mut("o/a").unwrap().issues;
    let at = a.iter().position(|i| i["number"] == 364).unwrap();
    let mut moved = a.remove(at);
    moved["number"] = json!(366);
    moved["id"] = json!(1_000_366);
    moved["url"] = json!("https://api.github.com/repos/o/c/issues/366");
    moved["html_url"] = json!("https://github.com/o/c/issues/366");
    moved["created_at"] = json!(fmt(now));
    moved["updated_at"] = json!(fmt(now));
    s.repos.get_mut("o/c").unwrap().issues.push(moved);
}

/// A configuration with only a host, a token and a group, its store at
/// `store`.
fn defaults(dir: &Path, store: &str, host: &TestHost) {
    std::fs::write(
        dir.join("signals.toml"),
        format!(
            "store = \"{store}\"\nout = \"site\"\n\n[host]\napi_url = \"{}\"\n\n\
             [[groups]]\nid = \"g\"\nname = \"G\"\nrepos = [\"o/a\", \"o/b\", \"o/c\"]\n",
            host.api_url()
        ),
    )
    .unwrap();
}

fn collect(dir: &Path, args: &[&str]) {
    let out = run(dir, &[&["collect"], args].concat(), &[TOKEN]);
    assert_eq!(out.status.code(), Some(0), "{}", show(&out));
}

/// Every signal of the group's datasets, each validated, by id.
fn signals(dir: &Path) -> BTreeMap<String, Value> {
    signals_of(dir, &[], "site")
}

/// The same, exported with `args` into `site`.
fn signals_of(dir: &Path, args: &[&str], site: &str) -> BTreeMap<String, Value> {
    let out = run(dir, &[&["export", "--out", site], args].concat(), &[TOKEN]);
    assert_eq!(out.status.code(), Some(0), "{}", show(&out));
    let mut all = BTreeMap::new();
    for repo in ["a", "b", "c"] {
        let path = dir.join(site).join("g").join(repo).join("dataset.json");
        let out = run(dir, &["validate", path.to_str().unwrap()], &[]);
        assert_eq!(out.status.code(), Some(0), "{}", show(&out));
        for s in read_json(&path)["dataset"]["signals"].as_array().unwrap() {
            all.insert(s["id"].as_str().unwrap().to_string(), s.clone());
        }
    }
    all
}

fn names(all: &BTreeMap<String, Value>, id: &str, other: &str) -> bool {
    related_ids(&all[id]).contains(&other.to_string())
}

/// Before anything is gone: the stories are related, and nothing else.
fn check_stories(all: &BTreeMap<String, Value>) {
    assert!(
        all.len() < 3 * DAYS / 10,
        "a first run reads the last day: {}",
        all.len()
    );
    for (id, other) in [(A, B), (A, C), (B, A), (B, C), (T, P), (P, T)] {
        assert!(names(all, id, other), "{id} names {other}: {}", all[id]);
    }
}

/// After `A` is gone: it is in no list and has none; `B` keeps `C`.
fn check_gone(all: &BTreeMap<String, Value>) {
    assert_eq!(all[A]["state"], "closed", "{}", all[A]);
    assert!(all[A].get("related").is_none(), "{}", all[A]);
    for (id, s) in all {
        assert!(!related_ids(s).contains(&A.to_string()), "{id}: {s}");
    }
    assert_eq!(related_ids(&all[B]), [C], "{}", all[B]);
    assert_eq!(related_ids(&all[C]), [B], "{}", all[C]);
}

/// After `T` is transferred: it is in no list and has none; `MOVED`, a
/// new item of o/c, takes its place in `P`'s list and has its own.
fn check_transferred(all: &BTreeMap<String, Value>) {
    assert!(all[T].get("related").is_none(), "{}", all[T]);
    for (id, s) in all {
        assert!(!related_ids(s).contains(&T.to_string()), "{id}: {s}");
    }
    assert_eq!(related_ids(&all[P]), [MOVED], "{}", all[P]);
    assert_eq!(related_ids(&all[MOVED]), [P], "{}", all[MOVED]);
}

/// The API agrees: `B`'s list in its repository's signals, and the whole
/// lists of `related`, an empty one for the gone items.
fn check_api(dir: &Path, store_args: &[&str], all: &BTreeMap<String, Value>) {
    let served = serve_with(dir, store_args, &[]);
    let (status, list) = get(served.port, "/api/repos/g/b/signals");
    assert_eq!(status, 200, "{list}");
    let b = list["signals"]
        .as_array()
        .unwrap()
        .iter()
        .find(|s| s["id"] == B)
        .unwrap();
    assert_eq!(b["related"], all[B]["related"]);
    for id in [A, T] {
        let (status, full) = get(served.port, &format!("/api/signals/{id}/related"));
        assert_eq!(status, 200, "{full}");
        assert_eq!(full["related"], json!([]), "{full}");
    }
    let (status, full) = get(served.port, &format!("/api/signals/{P}/related"));
    assert_eq!(status, 200, "{full}");
    let ids: Vec<&str> = full["related"]
        .as_array()
        .unwrap()
        .iter()
        .map(|r| r["id"].as_str().unwrap())
        .collect();
    assert_eq!(ids, [MOVED], "{full}");
    drop(served);
}

#[test]
fn a_deleted_or_transferred_item_leaves_every_list_on_the_defaults() {
    let now = Timestamp::now();
    let mut scenario = year(now);
    let host = TestHost::start(scenario.clone()).unwrap();
    let dir = TempDir::new("related-gone");
    defaults(dir.path(), "signals.db", &host);
    collect(dir.path(), &[]);
    check_stories(&signals(dir.path()));

    // The host deletes A and moves T to o/c; a reconcile finds both gone.
    let a = issue(&mut scenario, "o/a", 365).clone();
    delete_and_transfer(&mut scenario, Timestamp::now());
    host.set_scenario(scenario.clone());
    collect(dir.path(), &["--reconcile"]);
    let all = signals(dir.path());
    check_gone(&all);
    check_transferred(&all);
    check_api(dir.path(), &[], &all);

    // A is listed again: a new snapshot, open, after the one that closed
    // it; it is profiled again and related again.
    let mut back = a;
    back["updated_at"] = json!(fmt(Timestamp::now()));
    let issues = &mut scenario.repos.get_mut("o/a").unwrap().issues;
    issues.push(back);
    host.set_scenario(scenario);
    collect(dir.path(), &[]);
    let all = signals(dir.path());
    assert_eq!(all[A]["state"], "open", "{}", all[A]);
    for (id, other) in [(A, B), (A, C), (B, A), (C, A)] {
        assert!(names(&all, id, other), "{id} names {other}: {}", all[id]);
    }
    check_transferred(&all);
}

/// `signals collect` as a child, with the token and no variable of the
/// developer's shell.
fn spawn_collect(dir: &Path, args: &[&str]) -> Child {
    let mut cmd = Command::new(signals_bin());
    cmd.current_dir(dir).arg("collect").args(args);
    for (k, _) in std::env::vars() {
        if ["SIGNALS_", "GITHUB_", "GITLAB_", "FORGEJO_", "HOST_TOKEN"]
            .iter()
            .any(|p| k.starts_with(p))
        {
            cmd.env_remove(k);
        }
    }
    let log = std::fs::File::create(dir.join("collect.log")).unwrap();
    cmd.env(TOKEN.0, TOKEN.1)
        .stdout(Stdio::null())
        .stderr(log)
        .spawn()
        .unwrap()
}

/// Waits until a session waits for an advisory lock (the catch-up, behind
/// the one the test holds), or fails when `child` ends first, with its
/// log (`collect.log` in `dir`).
fn wait_for_a_waiting_catch_up(dir: &Path, admin: &mut postgres::Client, child: &mut Child) {
    let deadline = Instant::now() + Duration::from_secs(120);
    loop {
        let waiting: i64 = admin
            .query_one(
                "SELECT count(*) FROM pg_locks WHERE locktype = 'advisory' AND NOT granted",
                &[],
            )
            .unwrap()
            .get(0);
        if waiting > 0 {
            return;
        }
        if let Some(status) = child.try_wait().unwrap() {
            let log = std::fs::read_to_string(dir.join("collect.log")).unwrap_or_default();
            panic!("the collection ended ({status}) without its catch-up waiting:\n{log}");
        }
        assert!(Instant::now() < deadline, "no catch-up waited");
        std::thread::sleep(Duration::from_millis(50));
    }
}

/// On PostgreSQL: another catch-up of the group holds the group's lock
/// (as a second worker's does) while the reconcile that finds `A` gone
/// commits; the worker is killed as its catch-up waits. The run and its
/// gone mark are committed, the lists untouched; a copy made then carries
/// the mark, and the export's catch-up, of the copy as of the original,
/// takes `A` out. The transfer, found by the next reconcile, is caught
/// up at once.
#[test]
fn a_gone_item_leaves_the_lists_after_a_worker_killed_before_its_catch_up() {
    let Some(cluster) = crate::workers::cluster() else {
        return;
    };
    let url = cluster.create_database("related_gone").unwrap();
    let now = Timestamp::now();
    let mut scenario = year(now);
    let host = TestHost::start(scenario.clone()).unwrap();
    let dir = TempDir::new("related-gone-pg");
    defaults(dir.path(), &url, &host);
    collect(dir.path(), &[]);
    check_stories(&signals(dir.path()));

    scenario
        .repos
        .get_mut("o/a")
        .unwrap()
        .issues
        .retain(|i| i["number"] != 365);
    host.set_scenario(scenario.clone());
    let mut holder = postgres::Client::connect(&url, postgres::NoTls).unwrap();
    holder
        .execute(
            "SELECT pg_advisory_lock(hashtext('signals.related'), hashtext('g'))",
            &[],
        )
        .unwrap();
    // `--interval 0s`: every repository is due again at once.
    let mut child = spawn_collect(dir.path(), &["--reconcile", "--interval", "0s"]);
    let mut admin = postgres::Client::connect(&url, postgres::NoTls).unwrap();
    wait_for_a_waiting_catch_up(dir.path(), &mut admin, &mut child);
    child.kill().unwrap();
    child.wait().unwrap();
    drop(holder);

    // The reconcile of o/a is committed with A's gone mark; no list moved.
    let store = signals_store_pg::PgStore::open(&url).unwrap();
    let key = |id: &str| {
        store
            .repositories()
            .unwrap()
            .into_iter()
            .find(|r| r.repo.repo.to_string() == id)
            .unwrap()
            .key
    };
    let history = store.snapshot_history(key("o/a"), A).unwrap();
    assert_eq!(
        history.last().unwrap().1.state,
        signals_core::ItemState::Closed
    );
    let marks = store.related_gone("g").unwrap();
    let marked: Vec<&str> = marks.iter().map(|m| m.item.id.as_str()).collect();
    assert_eq!(marked, [A]);
    let b_list = store.related_of(key("o/b"), &[B.to_string()]).unwrap();
    assert!(b_list[B].iter().any(|e| e.item.id == A), "{b_list:?}");
    drop(store);

    // `signals migrate` carries the unread mark over: the copy's export
    // takes A out as well.
    let out = run(
        dir.path(),
        &["migrate", "--from", &url, "--to", "copy.db"],
        &[],
    );
    assert!(out.status.success(), "{}", show(&out));
    let copy = signals_store_sqlite::Store::open(dir.path().join("copy.db")).unwrap();
    assert_eq!(copy.related_gone("g").unwrap(), marks);
    drop(copy);
    check_gone(&signals_of(dir.path(), &["--store", "copy.db"], "copied"));

    // The export's catch-up takes A out.
    let all = signals(dir.path());
    check_gone(&all);
    let store = signals_store_pg::PgStore::open(&url).unwrap();
    assert!(store.related_gone("g").unwrap().is_empty());
    drop(store);

    // The transfer, found by the next reconcile.
    transfer(&mut scenario, Timestamp::now());
    host.set_scenario(scenario);
    collect(dir.path(), &["--reconcile", "--interval", "0s"]);
    let all = signals(dir.path());
    check_gone(&all);
    check_transferred(&all);
    check_api(dir.path(), &["--store", &url], &all);
}
