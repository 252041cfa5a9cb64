//! GitHub Discussions on the test host: paging down to the
//! watermark, a discussion that changes between runs, answered and
//! unanswered ones, a repository with discussions off, no token, a group
//! that turns them off, and GraphQL's errors (`RATE_LIMITED` and
//! `NOT_FOUND` in 200 answers, a 502). Every dataset validates against
//! the v3 schema, and discussions never add a REST request.

use std::path::Path;

use jiff::{SignedDuration, Timestamp};
use serde_json::Value;
use signals_core::ItemKind;
use signals_store::Backend;
use signals_store::suite::{group, issue, run_of, tracked};
use signals_testhost::{Fault, Scenario, TestHost, discussion, synthetic, synthetic_discussions};

use crate::support::{TempDir, config, read_json, run, show};

const REPO: &str = "o/talk";
const TOKEN: (&str, &str) = ("GITHUB_TOKEN", "tok");

/// `REPO` with 6 old issues and `discussions` (`None`: turned off), its
/// REST object saying `has_discussions` as GitHub's does. Issues only:
/// a pull request would add the reviews' GraphQL query, and every
/// POST here is the discussions'.
fn scenario(discussions: Option<Vec<Value>>) -> Scenario {
    let mut s = synthetic(
        REPO,
        6,
        Timestamp::now() - SignedDuration::from_hours(24 * 40),
    );
    with_discussions(&mut s, discussions);
    s
}

/// Makes the one repository of `s` hold issues only and `discussions`
/// (`None`: turned off), its REST object saying so.
fn with_discussions(s: &mut Scenario, discussions: Option<Vec<Value>>) {
    let data = s.repos.values_mut().next().unwrap();
    for issue in &mut data.issues {
        if let Some(entry) = issue.as_object_mut() {
            entry.remove("pull_request");
        }
    }
    data.pulls.clear();
    data.repo["has_discussions"] = discussions.is_some().into();
    data.discussions = discussions;
}

/// 250 discussions updated 30 days ago (three pages).
fn many() -> Vec<Value> {
    synthetic_discussions(
        REPO,
        250,
        Timestamp::now() - SignedDuration::from_hours(24 * 30),
    )
}

fn setup(name: &str, host: &TestHost, extra_group: &str) -> TempDir {
    let dir = TempDir::new(name);
    let text = config(host.base_url(), &[REPO], "").replace(
        "name = \"Group\"\n",
        &format!("name = \"Group\"\n{extra_group}"),
    );
    std::fs::write(dir.path().join("signals.toml"), text).unwrap();
    dir
}

fn collect(dir: &Path, env: &[(&str, &str)]) -> Value {
    let out = run(dir, &["collect", "--json"], env);
    assert_eq!(out.status.code(), Some(0), "{}", show(&out));
    serde_json::from_slice(&out.stdout).unwrap()
}

/// Exports, validates every dataset against the v3 schema, and returns
/// the repository's document.
fn export(dir: &Path) -> Value {
    let out = run(dir, &["export"], &[]);
    assert_eq!(out.status.code(), Some(0), "{}", show(&out));
    let doc = dir.join("site/g/talk/dataset.json");
    let out = run(dir, &["validate", doc.to_str().unwrap()], &[]);
    assert_eq!(out.status.code(), Some(0), "{}", show(&out));
    read_json(&doc)
}

fn posts(host: &TestHost) -> usize {
    host.requests()
        .iter()
        .filter(|r| r.method == "POST" && r.path == "/graphql")
        .count()
}

fn discussions_of(doc: &Value) -> Vec<&Value> {
    doc["dataset"]["signals"]
        .as_array()
        .unwrap()
        .iter()
        .filter(|s| s["kind"] == "discussion")
        .collect()
}

fn page(dir: &Path) -> String {
    std::fs::read_to_string(dir.join("site/g/talk/index.html")).unwrap()
}

#[test]
fn discussions_are_paged_then_changed_then_quiet() {
    let host = TestHost::start(scenario(Some(many()))).unwrap();
    let dir = setup("disc-runs", &host, "");

    // First run: three pages of 100, one point each; no REST request more.
    let summary = collect(dir.path(), &[TOKEN]);
    assert_eq!(posts(&host), 3);
    assert_eq!(
        (&summary["graphqlRequests"], &summary["graphqlPoints"]),
        (&Value::from(3), &Value::from(3)),
        "{summary}"
    );
    let rest = host.requests().iter().filter(|r| r.method == "GET").count();
    assert_eq!(summary["requests"], rest, "{summary}");
    let doc = export(dir.path());
    let found = discussions_of(&doc);
    assert_eq!(found.len(), 250);
    let d3 = found
        .iter()
        .find(|s| s["id"] == "github:o/talk:discussion:3")
        .unwrap();
    assert_eq!(
        (&d3["category"], &d3["answered"]),
        (&"Q&A".into(), &false.into())
    );
    assert_eq!(d3["url"], "https://github.com/o/talk/discussions/3");
    let d4 = found
        .iter()
        .find(|s| s["id"] == "github:o/talk:discussion:4")
        .unwrap();
    assert_eq!(
        (&d4["category"], &d4["answered"]),
        (&"Ideas".into(), &false.into())
    );
    assert_eq!(d4["metrics"]["reactions"], 4, "upvotes, as reactions");
    // The news: the ten most recently updated open ones, newest first.
    let news = doc["dataset"]["news"]["communityDiscussions"]
        .as_array()
        .unwrap();
    let numbers: Vec<u64> = news.iter().map(|d| d["number"].as_u64().unwrap()).collect();
    assert_eq!(numbers, (241..=250).rev().collect::<Vec<_>>());
    assert_eq!(news[0]["repository"], REPO);
    let html = page(dir.path());
    assert!(html.contains("Community discussions"), "{html}");
    assert!(html.contains("href=\"https://github.com/o/talk/discussions/250\""));

    // Second run: discussion 3 is answered and commented now; one page.
    let mut changed = many();
    let now = Timestamp::now() - SignedDuration::from_mins(1);
    changed[2] = discussion(REPO, 3, now, "Q&A");
    changed[2]["isAnswered"] = true.into();
    changed[2]["comments"]["totalCount"] = 5.into();
    host.set_scenario(scenario(Some(changed.clone())));
    host.clear_requests();
    let summary = collect(dir.path(), &[TOKEN]);
    assert_eq!(posts(&host), 1);
    assert_eq!(summary["graphqlPoints"], 1, "{summary}");
    assert_eq!(summary["changedCount"], 1, "{summary}");
    let doc = export(dir.path());
    let d3 = discussions_of(&doc)
        .into_iter()
        .find(|s| s["id"] == "github:o/talk:discussion:3")
        .unwrap()
        .clone();
    assert_eq!(
        (&d3["answered"], &d3["change"]),
        (&true.into(), &"updated".into())
    );
    assert_eq!(d3["metrics"]["comments"], 5);
    let news = &doc["dataset"]["news"]["communityDiscussions"];
    assert_eq!(news[0]["number"], 3, "{news}");
    assert_eq!(news[0]["answered"], true);
    assert!(page(dir.path()).contains("answered"));

    // A quiet run: one request, one point, nothing changed.
    host.clear_requests();
    let summary = collect(dir.path(), &[TOKEN]);
    assert_eq!(posts(&host), 1);
    assert_eq!(
        (&summary["graphqlPoints"], &summary["changedCount"]),
        (&Value::from(1), &Value::from(0)),
        "{summary}"
    );
    assert_eq!(
        discussions_of(&export(dir.path())).len(),
        250,
        "history keeps them all"
    );
}

/// Three repositories with discussions on one host, as `scenario` makes
/// `REPO`; the second has 120 of them.
fn three(second: Vec<Value>) -> Scenario {
    let mut all = scenario(Some(vec![]));
    for (name, discussions) in [("o/b", second), ("o/c", vec![])] {
        let mut s = synthetic(
            name,
            3,
            Timestamp::now() - SignedDuration::from_hours(24 * 40),
        );
        with_discussions(&mut s, Some(discussions));
        all.repos.extend(s.repos);
    }
    all
}

/// The names of the repositories each POST of `host` asked for: the
/// heads query's are `heads`, a discussions page's its `owner/name`.
fn asked(host: &TestHost) -> Vec<String> {
    host.requests()
        .iter()
        .filter(|r| r.method == "POST")
        .map(|r| {
            let body: Value = serde_json::from_slice(&r.body).unwrap_or_default();
            match body["data"]["repository"]["discussions"].is_object() {
                true => "page".to_string(),
                false => "heads".to_string(),
            }
        })
        .collect()
}

#[test]
fn a_quiet_round_asks_every_repository_at_once_for_one_point() {
    let at = Timestamp::now() - SignedDuration::from_hours(24 * 30);
    let second = synthetic_discussions("o/b", 120, at);
    let host = TestHost::start(three(second.clone())).unwrap();
    let dir = TempDir::new("disc-heads");
    std::fs::write(
        dir.path().join("signals.toml"),
        config(host.base_url(), &[REPO, "o/b", "o/c"], ""),
    )
    .unwrap();

    // First runs: no heads (nothing read before to keep), each its own
    // pages: o/b's two, one each for the others.
    let summary = collect(dir.path(), &[TOKEN]);
    assert_eq!(asked(&host), ["page", "page", "page", "page"]);
    assert_eq!(summary["graphqlPoints"], 4, "{summary}");
    let news = |dir: &Path| {
        let out = run(dir, &["export"], &[]);
        assert_eq!(out.status.code(), Some(0), "{}", show(&out));
        read_json(&dir.join("site/g/b/dataset.json"))["dataset"]["news"]["communityDiscussions"]
            .clone()
    };
    let first = news(dir.path());
    assert_eq!(first.as_array().unwrap().len(), 10);

    // A quiet round: one request, one point, for the three; the news
    // keeps the open discussions the last read found.
    host.clear_requests();
    let summary = collect(dir.path(), &[TOKEN]);
    assert_eq!(asked(&host), ["heads"]);
    assert_eq!(
        (&summary["graphqlRequests"], &summary["graphqlPoints"]),
        (&Value::from(1), &Value::from(1)),
        "{summary}"
    );
    assert_eq!(news(dir.path()), first);

    // One discussion of o/b changes: the heads, then o/b's first page.
    let mut changed = second;
    changed[4] = discussion(
        "o/b",
        5,
        Timestamp::now() - SignedDuration::from_mins(1),
        "Ideas",
    );
    let s = three(changed);
    host.set_scenario(s);
    host.clear_requests();
    let summary = collect(dir.path(), &[TOKEN]);
    assert_eq!(asked(&host), ["heads", "page"]);
    assert_eq!(summary["changedCount"], 1, "{summary}");
    assert_eq!(news(dir.path())[0]["number"], 5);
}

#[test]
fn no_token_discussions_off_and_a_group_that_turns_them_off_fail_nothing() {
    // Without a token: no GraphQL request, a note on the page.
    let host = TestHost::start(scenario(Some(many()))).unwrap();
    let dir = setup("disc-anon", &host, "");
    let summary = collect(dir.path(), &[]);
    assert_eq!(
        (posts(&host), &summary["graphqlRequests"]),
        (0, &Value::from(0))
    );
    let doc = export(dir.path());
    assert!(discussions_of(&doc).is_empty());
    assert_eq!(
        doc["dataset"]["news"]["communityDiscussions"],
        Value::Array(vec![])
    );
    assert!(page(dir.path()).contains("GraphQL API needs a token"));
    let status = run(dir.path(), &["status"], &[]);
    let text = String::from_utf8_lossy(&status.stdout);
    assert!(
        text.contains("GraphQL API needs a token"),
        "{}",
        show(&status)
    );

    // Turned off on the repository: its REST object says so, and GraphQL
    // is not asked.
    let host = TestHost::start(scenario(None)).unwrap();
    let dir = setup("disc-off", &host, "");
    collect(dir.path(), &[TOKEN]);
    assert_eq!(posts(&host), 0);
    export(dir.path());
    assert!(page(dir.path()).contains("Discussions are turned off on this repository"));
    // REST says on, GraphQL's `hasDiscussionsEnabled` says off (turned
    // off between the two): one request, the same note.
    let mut s = scenario(None);
    s.repos.values_mut().next().unwrap().repo["has_discussions"] = true.into();
    let host = TestHost::start(s).unwrap();
    let dir = setup("disc-off-graphql", &host, "");
    collect(dir.path(), &[TOKEN]);
    assert_eq!(posts(&host), 1);
    export(dir.path());
    assert!(page(dir.path()).contains("Discussions are turned off on this repository"));

    // Turned off in the group: not asked.
    let host = TestHost::start(scenario(Some(many()))).unwrap();
    let dir = setup("disc-config", &host, "discussions = false\n");
    collect(dir.path(), &[TOKEN]);
    assert_eq!(posts(&host), 0);
    assert!(discussions_of(&export(dir.path())).is_empty());
}

#[test]
fn graphql_errors_are_waited_out_retried_or_said() {
    // RATE_LIMITED in a 200: the reset (a second away) is waited for.
    let host = TestHost::start(scenario(Some(many()))).unwrap();
    let dir = setup("disc-limited", &host, "");
    host.inject_for("/graphql", Fault::GraphqlRateLimited { reset_in_secs: 1 });
    let summary = collect(dir.path(), &[TOKEN]);
    assert_eq!(posts(&host), 4, "one refused, three pages");
    assert_eq!(summary["graphqlPoints"], 3, "{summary}");
    assert_eq!(discussions_of(&export(dir.path())).len(), 250);

    // A 502: retried.
    let host = TestHost::start(scenario(Some(many()))).unwrap();
    let dir = setup("disc-502", &host, "");
    host.inject_for("/graphql", Fault::Status(502));
    collect(dir.path(), &[TOKEN]);
    assert_eq!(posts(&host), 4, "one 502, three pages");
    assert_eq!(discussions_of(&export(dir.path())).len(), 250);

    // NOT_FOUND: no discussions, said, the run stands.
    let host = TestHost::start(scenario(Some(many()))).unwrap();
    let dir = setup("disc-notfound", &host, "");
    host.inject_for("/graphql", Fault::GraphqlNotFound);
    let summary = collect(dir.path(), &[TOKEN]);
    assert_eq!(
        summary["repositories"][0]["status"], "collected",
        "{summary}"
    );
    let doc = export(dir.path());
    assert!(discussions_of(&doc).is_empty());
    assert!(page(dir.path()).contains("GraphQL did not find the repository"));

    // A budget spent for longer than the client waits: the run stops like
    // a REST rate limit, and the next one covers its window.
    let host = TestHost::start(scenario(Some(many()))).unwrap();
    let dir = setup("disc-spent", &host, "");
    host.inject_for(
        "/graphql",
        Fault::GraphqlRateLimited {
            reset_in_secs: 7200,
        },
    );
    let out = run(dir.path(), &["collect", "--json"], &[TOKEN]);
    assert_ne!(out.status.code(), Some(0), "{}", show(&out));
    let summary = collect(dir.path(), &[TOKEN]);
    assert_eq!(summary["graphqlRequests"], 3, "{summary}");
    assert_eq!(discussions_of(&export(dir.path())).len(), 250);
}

/// A store from before discussions were kept (SQLite schema 9) takes them, and
/// is brought up to the schema of a fresh store.
#[test]
fn a_store_from_before_takes_discussions_on_sqlite() {
    let dir = TempDir::new("disc-migrate");
    let path = dir.path().join("signals.db");
    let mut store = signals_store_sqlite::Store::open_before(&path, 9).unwrap();
    an_issue_before(&mut store);
    drop(store);
    let mut store = signals_store_sqlite::Store::open(&path).unwrap();
    let fresh = signals_store_sqlite::Store::open_in_memory().unwrap();
    assert_eq!(
        store.schema_version().unwrap(),
        fresh.schema_version().unwrap()
    );
    goes_on_with_a_discussion(&mut store);
}

/// The same on PostgreSQL (schema 8).
#[test]
fn a_store_from_before_takes_discussions_on_postgres() {
    let Some(cluster) = crate::workers::cluster() else {
        return;
    };
    let url = cluster.create_database("discussions").unwrap();
    let mut store = signals_store_pg::PgStore::open_before(&url, 8).unwrap();
    an_issue_before(&mut store);
    drop(store);
    let mut store = signals_store_pg::PgStore::open(&url).unwrap();
    let fresh = cluster.create_database("discussions-fresh").unwrap();
    let fresh = signals_store_pg::PgStore::open(&fresh).unwrap();
    assert_eq!(
        store.schema_version().unwrap(),
        fresh.schema_version().unwrap()
    );
    goes_on_with_a_discussion(&mut store);
}

fn at(hours: i64) -> Timestamp {
    "2026-01-01T00:00:00Z".parse::<Timestamp>().unwrap() + SignedDuration::from_hours(hours)
}

/// Commits a run with an issue on the old schema, which knows no
/// references (they came after discussions, in the same issue).
fn an_issue_before(store: &mut dyn Backend) {
    let key = store.ensure_repository(&group(), &tracked()).unwrap();
    let mut commit = run_of(&*store, key, at(0), vec![issue("1")], 1);
    commit.references.clear();
    store.commit_run(key, &commit).unwrap();
}

fn goes_on_with_a_discussion(store: &mut dyn Backend) {
    let key = store.ensure_repository(&group(), &tracked()).unwrap();
    let mut d = issue("2");
    d.detail = signals_core::ItemDetail::Discussion {
        category: "Q&A".into(),
        answered: true,
    };
    assert_eq!(d.kind(), ItemKind::Discussion);
    let commit = run_of(&*store, key, at(1), vec![d.clone()], 1);
    store.commit_run(key, &commit).unwrap();
    let ids = [
        issue("1").id(signals_core::Source::Github),
        d.id(signals_core::Source::Github),
    ];
    let got = store.latest_snapshots_for(key, &ids).unwrap();
    assert_eq!(got.len(), 2, "{got:?}");
    assert_eq!(got[&ids[1]], d);
    assert!(ids[1].ends_with(":discussion:2"));
}

/// `REPO` with three discussions, and `o/b` whose REST object says it has
/// discussions while GraphQL answers they are turned off (GitHub turns
/// them off without the REST object following at once).
fn one_off() -> Scenario {
    let at = Timestamp::now() - SignedDuration::from_hours(24 * 30);
    let mut all = scenario(Some(synthetic_discussions(REPO, 3, at)));
    let mut s = synthetic(
        "o/b",
        3,
        Timestamp::now() - SignedDuration::from_hours(24 * 40),
    );
    with_discussions(&mut s, None);
    s.repos.get_mut("o/b").unwrap().repo["has_discussions"] = true.into();
    all.repos.extend(s.repos);
    all
}

#[test]
fn a_quiet_round_with_discussions_off_costs_one_point_in_either_order() {
    for order in [["o/b", REPO], [REPO, "o/b"]] {
        let host = TestHost::start(one_off()).unwrap();
        let dir = TempDir::new("disc-off-round");
        let text = config(host.base_url(), &order, "");
        std::fs::write(dir.path().join("signals.toml"), text).unwrap();
        collect(dir.path(), &[TOKEN]);
        // The repository without discussions is asked through the heads,
        // and the last one of the round shares them: one request.
        host.clear_requests();
        let quiet = collect(dir.path(), &[TOKEN]);
        assert_eq!(asked(&host), ["heads"], "{order:?}");
        assert_eq!(quiet["graphqlPoints"], 1, "{order:?}: {quiet}");
    }
}

#[test]
fn a_repository_without_discussions_alone_is_asked_at_most_daily() {
    let mut s = one_off();
    s.repos.remove(REPO);
    let host = TestHost::start(s).unwrap();
    let dir = TempDir::new("disc-off-alone");
    std::fs::write(
        dir.path().join("signals.toml"),
        config(host.base_url(), &["o/b"], ""),
    )
    .unwrap();
    collect(dir.path(), &[TOKEN]);
    assert_eq!(asked(&host), ["page"]);
    // No round to share heads with, and the same UTC day: not asked.
    host.clear_requests();
    let quiet = collect(dir.path(), &[TOKEN]);
    let same_day = asked(&host).is_empty();
    // A run just after midnight UTC asks again, once.
    let midnight = Timestamp::now().as_second() % 86_400 < 5;
    assert!(same_day || midnight, "{quiet}");
    if same_day {
        assert_eq!(quiet["graphqlPoints"], 0, "{quiet}");
    }
}
