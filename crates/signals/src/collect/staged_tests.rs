//! The runs that go through their stage against the
//! same runs holding every item: a repository's first run with
//! `[[notify]]` rules, its summaries made a chunk at a time, and a
//! reconcile, with its alerts and the items it closes. The same messages,
//! store and outcome either way.

use std::path::{Path, PathBuf};

use jiff::{SignedDuration, Timestamp};
use signals_core::notify::MessageKind;
use std::collections::BTreeMap;

use signals_core::ItemSnapshot;
use signals_store::suite::WholeReads;
use signals_store::{MessageState, Outbox, RunWrites};
use signals_testhost::{TestHost, synthetic};

use super::run::{self, Alerts, Reconcile, Run, RunOutcome, Window};
use crate::config::Config;

const REPO: &str = "o/big";

fn scratch(name: &str) -> PathBuf {
    let dir = std::env::temp_dir().join(format!("signals-staged-{name}-{}", std::process::id()));
    let _ = std::fs::remove_dir_all(&dir);
    std::fs::create_dir_all(&dir).unwrap();
    dir
}

fn config(api_url: &str) -> Config {
    let text = format!(
        r#"store = "signals.db"
backfill_days = 36500
waiting_days = 29
base_url = "https://signals.example/"

[host]
api_url = "{api_url}"

[[groups]]
id = "g"
name = "Group"

[[groups.repos]]
repo = "{REPO}"
keywords = ["regression"]

[[notify]]
name = "all"
kind = "webhook"
url = "http://127.0.0.1:9/all"
include_bots = true

[[notify]]
name = "bugs"
kind = "webhook"
url = "http://127.0.0.1:9/bugs"
labels = ["bug"]

[[notify]]
name = "quiet"
kind = "webhook"
url = "http://127.0.0.1:9/quiet"
initial = "none"

[[notify]]
name = "waiting"
kind = "webhook"
url = "http://127.0.0.1:9/waiting"
events = ["waiting"]
initial = "none"
"#
    );
    Config::parse(&text, Path::new("<test>")).unwrap()
}

/// A message in the outbox: its delivery id, rule and payload.
type Message = (String, String, signals_core::notify::Payload);

/// A run's outcome, the outbox's pending messages and the latest
/// snapshots.
type RunOf = (RunOutcome, Vec<Message>, BTreeMap<String, ItemSnapshot>);

/// One run into the store in `dir` (made when new), held or through its
/// stage, a reconcile when `reconcile`; its outcome, the outbox's pending
/// messages (delivery id, rule, payload) and the latest snapshots.
fn one_run(dir: &Path, config: &Config, (staged, reconcile): (bool, bool), at: Timestamp) -> RunOf {
    let (group, repo) = config.select(None, None)[0];
    let mut client =
        crate::hosts::build(&config.hosts[0], |_| None, crate::hosts::Requests::Unlogged)
            .unwrap()
            .client;
    let mut store = signals_store_sqlite::Store::open(dir.join("signals.db")).unwrap();
    let key = store.ensure_repository(group, repo).unwrap();
    let discussions_off = Vec::new();
    let window = Window {
        window: SignedDuration::from_hours(24),
        backfill: Some(SignedDuration::from_hours(36500 * 24)),
        comments_backfill: SignedDuration::from_hours(24 * 30),
        alerts: Alerts::of(config),
        reconcile: Reconcile {
            days: 0,
            force: reconcile,
        },
        discussions_off: &discussions_off,
        config,
    };
    let one = Run {
        group,
        repo,
        ask: &repo.repo,
        collected_at: at,
        window,
        rate_prefix: "test",
    };
    let plan = run::plan(&store, key, &one).unwrap();
    assert_eq!(plan.reconcile, reconcile);
    assert!(plan.staged());
    let outcome = if staged {
        super::staged::run(&mut client, &mut store, key, &one, &plan)
    } else {
        super::held::run(&mut client, &mut store, key, &one, &plan)
    }
    .unwrap();
    assert_eq!(
        signals_store::RunStaging::staged_count(&store, key).unwrap(),
        0
    );
    let messages = store
        .outbox_messages(MessageState::Pending, None)
        .unwrap()
        .into_iter()
        .map(|m| (m.delivery, m.rule, m.payload))
        .collect();
    let items = store.latest_snapshots(key).unwrap();
    (outcome, messages, items)
}

/// One first run into a new store in `dir`, held or through its stage.
fn first_run(dir: &Path, config: &Config, staged: bool, at: Timestamp) -> RunOf {
    one_run(dir, config, (staged, false), at)
}

/// What a held and a staged run stored and recorded is the same.
fn same_run(held: &RunOf, staged: &RunOf) {
    assert!(held.2 == staged.2, "the same items stored");
    assert_eq!(
        format!("{:?}", held.0.run),
        format!("{:?}", staged.0.run),
        "the same run recorded"
    );
    assert_eq!(held.0.discovered, staged.0.discovered);
}

#[test]
fn a_staged_first_run_sends_the_summaries_of_a_held_one() {
    let at = Timestamp::now();
    // 1,300 items: three chunks of the stage.
    let host = TestHost::start(synthetic(
        REPO,
        1300,
        at - SignedDuration::from_hours(24 * 30),
    ))
    .unwrap();
    let config = config(&host.api_url());
    let dirs = [scratch("held"), scratch("staged")];
    let held = first_run(&dirs[0], &config, false, at);
    let staged = first_run(&dirs[1], &config, true, at);
    for dir in &dirs {
        let _ = std::fs::remove_dir_all(dir);
    }
    assert!(held.2.len() > 1300);
    same_run(&held, &staged);
    // Two summaries ("quiet" sends none), each of the 20 most important
    // of hundreds, in the same order and words.
    let rules: Vec<&str> = held.1.iter().map(|(_, r, _)| r.as_str()).collect();
    assert_eq!(rules, ["all", "bugs"]);
    for (_, _, payload) in &held.1 {
        assert_eq!(payload.kind, MessageKind::Summary);
        assert_eq!(payload.signals.len(), signals_core::notify::MAX_SIGNALS);
        assert!(payload.more > 200, "{}", payload.more);
    }
    assert_eq!(held.1, staged.1);
}

/// What a reconcile finds in the synthetic repository a day after its
/// first run: reactions added without a change of `updated_at` (items 1
/// to 100), items the host no longer lists (201 to 260), items closed in
/// the window (301 to 310) and five new ones.
fn changed_since(
    mut scenario: signals_testhost::Scenario,
    at: Timestamp,
) -> signals_testhost::Scenario {
    let data = scenario.repos.get_mut(REPO).unwrap();
    let recent = (at - SignedDuration::from_hours(1)).to_string();
    for (i, issue) in data.issues.iter_mut().enumerate() {
        let number = i + 1;
        if number <= 100 {
            issue["reactions"] = serde_json::json!({ "total_count": 40, "+1": 40 });
        }
        if (301..=310).contains(&number) {
            issue["state"] = "closed".into();
            issue["closed_at"] = recent.clone().into();
            issue["updated_at"] = recent.clone().into();
        }
    }
    let mut fresh: Vec<serde_json::Value> = data.issues[..5].to_vec();
    for (i, issue) in fresh.iter_mut().enumerate() {
        let number = 2000 + i;
        issue["number"] = number.into();
        issue["id"] = (2_000_000 + number).into();
        issue["title"] = format!("Fresh item {number}").into();
        issue["created_at"] = recent.clone().into();
        issue["updated_at"] = recent.clone().into();
        issue["url"] = format!("https://api.github.com/repos/{REPO}/issues/{number}").into();
        issue["html_url"] = format!("https://github.com/{REPO}/issues/{number}").into();
        if let Some(pull) = issue.get_mut("pull_request") {
            pull["html_url"] = format!("https://github.com/{REPO}/pull/{number}").into();
        }
    }
    data.issues
        .retain(|i| !(201..=260).contains(&i["number"].as_u64().unwrap()));
    data.issues.extend(fresh);
    scenario
}

#[test]
fn a_staged_reconcile_stores_and_sends_what_a_held_one_does() {
    let at = Timestamp::now();
    let before = at - SignedDuration::from_hours(24);
    // 1,300 items: three chunks of the stage.
    let scenario = synthetic(REPO, 1300, at - SignedDuration::from_hours(24 * 30));
    let host = TestHost::start(scenario.clone()).unwrap();
    let config = config(&host.api_url());
    let dirs = [scratch("reconcile-held"), scratch("reconcile-staged")];
    for dir in &dirs {
        first_run(dir, &config, true, before);
    }
    host.set_scenario(changed_since(scenario, at));
    let held = one_run(&dirs[0], &config, (false, true), at);
    let staged = one_run(&dirs[1], &config, (true, true), at);
    for dir in &dirs {
        let _ = std::fs::remove_dir_all(dir);
    }
    same_run(&held, &staged);
    assert_eq!(held.0.discovered, 5, "the five new items");
    // 100 reactions, 60 gone (the open ones closed), 10 closed, 5 new.
    let closed = |items: &BTreeMap<String, ItemSnapshot>| {
        items
            .values()
            .filter(|i| i.state == signals_core::ItemState::Closed)
            .count()
    };
    assert!(held.0.run.changed_count > 150, "{:?}", held.0.run);
    assert_eq!(closed(&held.2), closed(&staged.2));
    // The first run's summaries, then the reconcile's alerts, the
    // `waiting` rule's among them: the same in both.
    let later: Vec<(&str, MessageKind)> = held
        .1
        .iter()
        .filter(|(_, _, p)| p.kind != MessageKind::Summary)
        .map(|(_, r, p)| (r.as_str(), p.kind))
        .collect();
    assert!(later.contains(&("all", MessageKind::Alert)), "{later:?}");
    assert!(later.iter().any(|(r, _)| *r == "waiting"), "{later:?}");
    assert_eq!(held.1, staged.1);
}
