//! Lifecycle verdicts end to end: one test host repository for each
//! state (archived, abandoned, inert, declining, stable, active), each
//! collected by the real binary with the default thresholds and exported;
//! every `verdict.json` is valid against its schema, says its state with
//! reasons, and the API answers the same. A second group declares one of
//! them `stable`. Archiving a repository fires the `lifecycle` alert once
//! and puts the change on its trail (the API's, and the trail pages
//! exported and served, in the same places), and GitHub's
//! `stats/participation` answering 202 is asked again at the next run,
//! then no more that day. The state per repository and the alert run on
//! SQLite and on PostgreSQL.

use std::path::Path;

use jiff::{SignedDuration, Timestamp};
use serde_json::{Value, json};
use signals_store::{Backend, LifecycleStore, MessageState, Reads};
use signals_testhost::{Scenario, TestHost, synthetic};

use crate::support::{TempDir, read_json, run, show};

/// The repositories, by the state each is built to be in.
const STATES: [&str; 6] = [
    "archived",
    "abandoned",
    "inert",
    "declining",
    "stable",
    "active",
];

fn days_ago(now: Timestamp, d: i64) -> String {
    (now - SignedDuration::from_hours(d * 24))
        .strftime("%Y-%m-%dT%H:%M:%SZ")
        .to_string()
}

/// 52 weeks of commits: `before` a week in weeks 27 to 39, `recent` a
/// week in the last 13, `early` a week before.
fn weeks(early: u64, before: u64, recent: u64) -> Vec<u64> {
    (0..52)
        .map(|w| match w {
            0..26 => early,
            26..39 => before,
            _ => recent,
        })
        .collect()
}

/// One repository `t/<state>` built to be in `state`: its items all
/// opened `age` days ago (none commented, so an open one waits), open or
/// closed, its releases published `release` days ago, its commits per
/// week.
fn repo(scenario: &mut Scenario, state: &str, now: Timestamp) {
    let name = format!("t/{state}");
    let (age, open, release, commits) = match state {
        "archived" => (30, true, 10, weeks(5, 5, 5)),
        "abandoned" => (200, true, 400, weeks(0, 0, 0)),
        "inert" => (500, false, 500, weeks(0, 0, 0)),
        "declining" => (30, true, 10, weeks(5, 5, 1)),
        "stable" => (60, false, 60, weeks(1, 0, 0)),
        _ => (30, true, 10, weeks(5, 5, 5)),
    };
    let start = now - SignedDuration::from_hours(age * 24);
    let mut one = synthetic(&name, 12, start);
    let mut data = one.repos.remove(&name).unwrap();
    data.repo["id"] = json!(9_000 + STATES.iter().position(|s| *s == state).unwrap());
    data.repo["archived"] = json!(state == "archived");
    data.repo["pushed_at"] = json!(days_ago(now, age));
    for issue in &mut data.issues {
        issue["comments"] = json!(0);
        if !open {
            issue["state"] = json!("closed");
            issue["closed_at"] = issue["updated_at"].clone();
        }
    }
    for r in &mut data.releases {
        if !r["published_at"].is_null() {
            r["published_at"] = json!(days_ago(now, release));
            r["created_at"] = json!(days_ago(now, release));
        }
    }
    data.participation = Some(commits);
    scenario.repos.insert(name, data);
}

/// Every repository, one per state.
fn all(now: Timestamp) -> Scenario {
    let mut scenario = Scenario::default();
    for state in STATES {
        repo(&mut scenario, state, now);
    }
    scenario
}

/// Where a test keeps its store: the default SQLite file, or a database
/// of a throwaway PostgreSQL cluster.
enum Kept {
    Sqlite,
    Postgres(String),
}

impl Kept {
    /// The `store` setting.
    fn address(&self) -> &str {
        match self {
            Kept::Sqlite => "signals.db",
            Kept::Postgres(url) => url,
        }
    }

    /// The `interval` setting: on PostgreSQL a `collect` is one round of
    /// the repositories due, and each test's runs follow at once.
    fn interval(&self) -> &str {
        match self {
            Kept::Sqlite => "",
            Kept::Postgres(_) => "interval = \"0s\"\n",
        }
    }

    /// The store, opened as the binary left it in `dir`.
    fn open(&self, dir: &Path) -> Box<dyn Backend> {
        match self {
            Kept::Sqlite => {
                Box::new(signals_store_sqlite::Store::open(dir.join("signals.db")).unwrap())
            }
            Kept::Postgres(url) => Box::new(signals_store_pg::PgStore::open(url).unwrap()),
        }
    }
}

/// A database named `name` on a throwaway cluster (kept alive by the
/// returned cluster), or `None` where PostgreSQL is not installed.
fn on_postgres(name: &str) -> Option<(signals_testpg::Cluster, Kept)> {
    let cluster = crate::workers::cluster()?;
    let url = cluster.create_database(name).unwrap();
    Some((cluster, Kept::Postgres(url)))
}

fn write_config(dir: &Path, api_url: &str, rules: &str, kept: &Kept) {
    let mut text = format!(
        "store = \"{}\"\n{}out = \"site\"\nbackfill_days = 36500\n\n[host]\napi_url = \"{api_url}\"\nmax_retries = 2\ntimeout_secs = 5\n\n[[groups]]\nid = \"g\"\nname = \"Group\"\nrepos = [",
        kept.address(),
        kept.interval()
    );
    let list: Vec<String> = STATES.iter().map(|s| format!("\"t/{s}\"")).collect();
    text.push_str(&list.join(", "));
    text.push_str(
        "]\n\n[[groups]]\nid = \"h\"\nname = \"Finished libraries\"\nlifecycle = \"stable\"\nrepos = [\"t/active\", \"t/archived\"]\n",
    );
    text.push_str(rules);
    std::fs::write(dir.join("signals.toml"), text).unwrap();
}

fn schema_errors(doc: &Value) -> Vec<String> {
    let schema: Value =
        serde_json::from_str(include_str!("../../../../schemas/verdict-v1.schema.json")).unwrap();
    let validator = jsonschema::draft202012::new(&schema).unwrap();
    validator
        .iter_errors(doc)
        .map(|e| format!("{e} at {}", e.instance_path()))
        .collect()
}

fn collect(dir: &Path) {
    let out = run(dir, &["collect"], &[]);
    assert_eq!(out.status.code(), Some(0), "{}", show(&out));
}

#[test]
fn each_repository_gets_its_state_with_reasons_and_a_declaration_overrides() {
    states_with_reasons(&Kept::Sqlite);
}

#[test]
fn each_repository_gets_its_state_with_reasons_on_postgresql() {
    let Some((_cluster, kept)) = on_postgres("lifecycle") else {
        return;
    };
    states_with_reasons(&kept);
}

fn states_with_reasons(kept: &Kept) {
    let host = TestHost::start(all(Timestamp::now())).unwrap();
    let dir = TempDir::new("lifecycle");
    write_config(dir.path(), host.base_url(), "", kept);
    collect(dir.path());
    let out = run(dir.path(), &["export"], &[]);
    assert_eq!(out.status.code(), Some(0), "{}", show(&out));
    let site = dir.path().join("site");
    for state in STATES {
        let verdict = read_json(&site.join("g").join(state).join("verdict.json"));
        assert_eq!(schema_errors(&verdict), Vec::<String>::new(), "{verdict:#}");
        assert_eq!(verdict["state"], state, "t/{state}: {verdict:#}");
        assert!(
            !verdict["reasons"].as_array().unwrap().is_empty(),
            "{verdict:#}"
        );
        let page = std::fs::read_to_string(site.join("g").join(state).join("index.html")).unwrap();
        assert!(
            page.contains(&format!("lifecycle-{state}\">{state}</span>")),
            "t/{state}'s page shows its state"
        );
    }
    // The same repository in a group that declares it stable.
    let declared = read_json(&site.join("h/active/verdict.json"));
    assert_eq!(schema_errors(&declared), Vec::<String>::new());
    assert_eq!(declared["state"], "stable");
    assert_eq!(declared["reasons"][0]["rule"], "declared");
    assert_eq!(declared["reasons"][1]["value"], "active");
    // A declaration never overrides archived.
    assert_eq!(
        read_json(&site.join("h/archived/verdict.json"))["state"],
        "archived"
    );
    // The reasons say what the rules read.
    let declining = read_json(&site.join("g/declining/verdict.json"));
    assert_eq!(declining["reasons"][0]["rule"], "commitsRecentWeeks");
    assert_eq!(declining["reasons"][0]["value"], 13);
    let abandoned = read_json(&site.join("g/abandoned/verdict.json"));
    let waiting = abandoned["reasons"]
        .as_array()
        .unwrap()
        .iter()
        .find(|r| r["rule"] == "waiting")
        .unwrap();
    assert!(waiting["value"].as_u64().unwrap() > 0, "{abandoned:#}");
}

#[test]
fn a_state_change_fires_lifecycle_once() {
    fires_once(&Kept::Sqlite);
}

#[test]
fn a_state_change_fires_lifecycle_once_on_postgresql() {
    let Some((_cluster, kept)) = on_postgres("lifecycle_alert") else {
        return;
    };
    fires_once(&kept);
}

fn fires_once(kept: &Kept) {
    let mut scenario = all(Timestamp::now());
    let host = TestHost::start(scenario.clone()).unwrap();
    let dir = TempDir::new("lifecycle-alert");
    let rules = "\n[[notify]]\nname = \"alive\"\nkind = \"webhook\"\nurl = \"http://127.0.0.1:9/hook\"\nevents = [\"lifecycle\"]\ninitial = \"none\"\n";
    write_config(dir.path(), host.base_url(), rules, kept);
    collect(dir.path());
    let lifecycle_messages = || {
        kept.open(dir.path())
            .outbox_messages(MessageState::Pending, Some("alive"))
            .unwrap()
    };
    // A first judgement is no change.
    assert!(lifecycle_messages().is_empty());
    let data = scenario.repos.get_mut("t/active").unwrap();
    data.repo["archived"] = json!(true);
    host.set_scenario(scenario.clone());
    collect(dir.path());
    collect(dir.path());
    let messages = lifecycle_messages();
    // One message in each group: group h declares the repository stable,
    // but no declaration overrides archived, so it fires there too.
    let groups: Vec<&str> = messages
        .iter()
        .filter_map(|m| m.payload.group.as_ref().map(|g| g.id.as_str()))
        .collect();
    assert_eq!(groups, ["g", "h"], "{messages:?}");
    // The change is on the repository's trail: in its verdict and page.
    let out = run(dir.path(), &["export"], &[]);
    assert_eq!(out.status.code(), Some(0), "{}", show(&out));
    let verdict = read_json(&dir.path().join("site/g/active/verdict.json"));
    assert_eq!(schema_errors(&verdict), Vec::<String>::new());
    let changes: Vec<(Value, Value)> = verdict["changes"]
        .as_array()
        .unwrap()
        .iter()
        .map(|c| (c["from"].clone(), c["to"].clone()))
        .collect();
    assert_eq!(
        changes,
        [
            (Value::Null, json!("active")),
            (json!("active"), json!("archived"))
        ]
    );
    let page = std::fs::read_to_string(dir.path().join("site/g/active/index.html")).unwrap();
    assert!(page.contains("active → archived"));
    // And on the API's trail, derived from the judgements: the first
    // judgement and the change, once each, at their runs' instants, each
    // first of its run (newest first), among the items' events.
    let served = crate::serve::serve_with(dir.path(), &["--store", kept.address()], &[]);
    let (status, trail) = crate::serve::get(served.port, "/api/repos/g/active/trail");
    assert_eq!(status, 200, "{trail:#}");
    let events = trail["events"].as_array().unwrap();
    assert_eq!(trail["total"], events.len(), "{trail:#}");
    let lifecycle: Vec<(usize, &Value)> = events
        .iter()
        .enumerate()
        .filter(|(_, e)| e["kind"] == "lifecycle")
        .collect();
    let details: Vec<&Value> = lifecycle.iter().map(|(_, e)| &e["detail"]).collect();
    assert_eq!(details, [&json!("active → archived"), &json!("active")]);
    for (i, e) in &lifecycle {
        assert_eq!(e["itemId"], Value::Null);
        assert!(
            *i == 0 || events[i - 1]["at"] != e["at"],
            "first of its run"
        );
    }
    let first_at = verdict["changes"][0]["at"].as_str().unwrap();
    let at: Timestamp = lifecycle[1].1["at"].as_str().unwrap().parse().unwrap();
    assert_eq!(at, first_at.parse::<Timestamp>().unwrap());
    // The first run's items' events follow its judgement.
    assert!(
        events[lifecycle[1].0 + 1..]
            .iter()
            .all(|e| e["kind"] == "discovered")
    );
    // The trail pages, exported and served, hold the same entries at the
    // same places, oldest first: the API's i-th event (newest first) is
    // the page's entry numbered total - i.
    let total = trail["total"].as_u64().unwrap() as usize;
    let entries: Vec<String> = lifecycle
        .iter()
        .map(|(i, e)| {
            let words = match e["detail"].as_str().unwrap() {
                "active" => "Lifecycle judged: active",
                _ => "Lifecycle: active → archived",
            };
            format!(
                "<li value=\"{}\" data-event-kind=\"lifecycle\"><span class=\"ev-kind ev-lifecycle\">lifecycle</span> <span class=\"ev-words\">{words}</span>",
                total - i
            )
        })
        .collect();
    let exported = std::fs::read_to_string(dir.path().join("site/g/active/trail.html")).unwrap();
    let (status, served_page) = crate::serve::raw(served.port, "GET", "/g/active/trail.html");
    assert_eq!(status, 200);
    let served_page = String::from_utf8(served_page).unwrap();
    for html in [&exported, &served_page] {
        assert!(
            html.contains(&format!(" of {total}, oldest first")),
            "{html}"
        );
        assert_eq!(html.matches("data-event-kind=\"lifecycle\"").count(), 2);
        for entry in &entries {
            assert_eq!(html.matches(entry.as_str()).count(), 1, "{entry} in {html}");
        }
    }
    // The repository's first page shows them in its latest entries.
    assert_eq!(page.matches("Lifecycle judged: active").count(), 1);
    assert_eq!(page.matches("Lifecycle: active → archived").count(), 1);
    for m in &messages {
        let change = m.payload.lifecycle.as_ref().unwrap();
        assert_eq!(change.from.as_str(), "active");
        assert_eq!(change.to.as_str(), "archived");
        let body = signals_notify::webhook::body(&m.delivery, &m.payload);
        let schema: Value =
            serde_json::from_str(include_str!("../../../../schemas/notify-v1.schema.json"))
                .unwrap();
        let doc: Value = serde_json::from_slice(&body).unwrap();
        assert!(
            jsonschema::draft202012::new(&schema)
                .unwrap()
                .is_valid(&doc)
        );
    }
}

#[test]
fn participation_answering_202_is_asked_again_at_the_next_run_then_no_more_that_day() {
    let mut scenario = all(Timestamp::now());
    scenario
        .repos
        .get_mut("t/active")
        .unwrap()
        .participation_computing = true;
    let host = TestHost::start(scenario.clone()).unwrap();
    let dir = TempDir::new("lifecycle-202");
    write_config(dir.path(), host.base_url(), "", &Kept::Sqlite);
    let asked = |host: &TestHost| -> Vec<Option<u16>> {
        host.requests()
            .iter()
            .filter(|r| r.path.ends_with("/t/active/stats/participation"))
            .map(|r| r.status)
            .collect()
    };
    collect(dir.path());
    // Asked once per group's repository, 202 each time, and the run
    // succeeded all the same.
    assert_eq!(asked(&host), [Some(202), Some(202)]);
    let key_of = |group: &str| {
        let store = signals_store_sqlite::Store::open(dir.path().join("signals.db")).unwrap();
        let key = store.repository(group, "active").unwrap().unwrap().key;
        store.lifecycle(key).unwrap().unwrap()
    };
    assert!(
        key_of("g")
            .reasons
            .iter()
            .any(|r| r.rule == "daysSincePush")
    );
    host.clear_requests();
    scenario
        .repos
        .get_mut("t/active")
        .unwrap()
        .participation_computing = false;
    host.set_scenario(scenario);
    collect(dir.path());
    // The second group's asks the same URL again, conditionally: 304.
    assert_eq!(asked(&host), [Some(200), Some(304)]);
    let record = key_of("g");
    assert_eq!(record.state.as_str(), "active");
    assert_eq!(record.reasons[0].rule, "commitsRecentWeeks");
    host.clear_requests();
    collect(dir.path());
    assert!(asked(&host).is_empty(), "asked at most daily");
}
