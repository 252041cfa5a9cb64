//! Security advisories on the test host, run after run: one withdrawn
//! before the first run is a closed signal; one published, one whose
//! severity changes, one assigned a CVE and one withdrawn between runs,
//! each with its trail; the `advisory` alert once per publication or
//! severity change; the list asked once per run, a 304 when unchanged,
//! which costs no rate limit; a repository with none asks once too.
//! Every dataset and alert validates against its schema.

use std::path::Path;

use jiff::{SignedDuration, Timestamp};
use serde_json::{Value, json};
use signals_store::Reads;
use signals_store::suite::WholeReads;
use signals_testhost::{Scenario, TestHost, synthetic};

use crate::receiver::{Answer, Receiver};
use crate::support::{TempDir, config, read_json, run, show};

const REPO: &str = "o/sec";
const ADVISORIES: &str = "/repos/o/sec/security-advisories";
const HIGH: &str = "GHSA-hhhh-hhhh-hhhh";
const OLD: &str = "GHSA-wwww-wwww-wwww";
const NEW: &str = "GHSA-nnnn-nnnn-nnnn";
const DRAFT: &str = "GHSA-dddd-dddd-dddd";

fn at(days_ago: i64) -> String {
    hours_ago(24 * days_ago)
}

fn hours_ago(hours: i64) -> String {
    (Timestamp::now() - SignedDuration::from_hours(hours))
        .strftime("%Y-%m-%dT%H:%M:%SZ")
        .to_string()
}

/// A GitHub repository advisory as the list gives it.
fn advisory(ghsa: &str, severity: &str, state: &str, updated_days_ago: i64) -> Value {
    json!({
        "ghsa_id": ghsa, "cve_id": null,
        "url": format!("https://api.github.com/repos/o/sec/security-advisories/{ghsa}"),
        "html_url": format!("https://github.com/o/sec/security/advisories/{ghsa}"),
        "summary": format!("{ghsa} summary"), "description": "What is affected, and how.",
        "severity": severity, "state": state,
        "created_at": at(60), "updated_at": at(updated_days_ago),
        "published_at": if state == "draft" { Value::Null } else { at(50).into() },
        "withdrawn_at": if state == "withdrawn" { at(updated_days_ago).into() } else { Value::Null },
        "cvss": {"vector_string": null, "score": 7.5},
        "publisher": {"login": "maint"}, "author": {"login": "finder"},
    })
}

fn scenario(advisories: Vec<Value>) -> Scenario {
    let mut s = synthetic(
        REPO,
        3,
        Timestamp::now() - SignedDuration::from_hours(24 * 40),
    );
    s.repos.get_mut(REPO).unwrap().advisories = advisories;
    s
}

fn collect(dir: &Path) -> Value {
    let out = run(dir, &["collect", "--json"], &[]);
    assert_eq!(out.status.code(), Some(0), "{}", show(&out));
    serde_json::from_slice(&out.stdout).unwrap()
}

/// The answers to the advisories' list since `from`, by status.
fn asked(host: &TestHost, from: usize) -> Vec<Option<u16>> {
    host.requests()[from..]
        .iter()
        .filter(|r| r.path.starts_with(ADVISORIES))
        .map(|r| r.status)
        .collect()
}

/// What `next` (a run's `--json` summary) cost of the rate limit left
/// after `previous` is its requests less its 304s: a 304 costs nothing.
fn assert_costs_only_its_200s(previous: &Value, next: &Value) {
    let left = |v: &Value| v["rateLimit"]["remaining"].as_u64().unwrap();
    let paid = next["requests"].as_u64().unwrap() - next["notModified"].as_u64().unwrap();
    assert_eq!(left(previous) - left(next), paid, "{previous}\n{next}");
    assert!(next["notModified"].as_u64().unwrap() >= 1, "{next}");
}

/// The trail of each advisory, `kind: detail` in run order.
fn trails(dir: &Path) -> Vec<(String, String)> {
    let store = signals_store_sqlite::Store::open(dir.join("signals.db")).unwrap();
    let key = store.repositories().unwrap()[0].key;
    let view = store.repository_view(key).unwrap().unwrap();
    view.trail
        .iter()
        .filter(|e| e.item_id.contains(":advisory:"))
        .map(|e| {
            let ghsa = e.item_id.rsplit(':').next().unwrap().to_string();
            (ghsa, format!("{}: {}", e.kind.as_str(), e.detail))
        })
        .collect()
}

/// The alerts' signals received since `from`: (GHSA id, event).
fn alerted(rx: &Receiver, from: usize) -> Vec<(String, String)> {
    let schema: Value =
        serde_json::from_str(include_str!("../../../../schemas/notify-v1.schema.json")).unwrap();
    let validator = jsonschema::draft202012::new(&schema).unwrap();
    let mut out = Vec::new();
    for hit in &rx.hits()[from..] {
        let body: Value = serde_json::from_slice(&hit.body).unwrap();
        let errors: Vec<String> = validator
            .iter_errors(&body)
            .map(|e| e.to_string())
            .collect();
        assert!(errors.is_empty(), "{errors:?}");
        for s in body["signals"].as_array().unwrap() {
            let id = s["id"].as_str().unwrap();
            let ghsa = id.rsplit(':').next().unwrap().to_string();
            out.push((ghsa, s["event"].as_str().unwrap().to_string()));
        }
    }
    out.sort();
    out
}

/// Exports and validates, and returns the advisories of the dataset.
fn exported(dir: &Path) -> Vec<Value> {
    let out = run(dir, &["export"], &[]);
    assert_eq!(out.status.code(), Some(0), "{}", show(&out));
    let doc = dir.join("site/g/sec/dataset.json");
    let out = run(dir, &["validate", doc.to_str().unwrap()], &[]);
    assert_eq!(out.status.code(), Some(0), "{}", show(&out));
    read_json(&doc)["dataset"]["signals"]
        .as_array()
        .unwrap()
        .iter()
        .filter(|s| s["kind"] == "advisory")
        .cloned()
        .collect()
}

#[test]
fn advisories_published_changed_and_withdrawn_between_runs_each_with_its_trail() {
    let withdrawn = advisory(OLD, "low", "withdrawn", 30);
    let host = TestHost::start(scenario(vec![
        advisory(HIGH, "high", "published", 45),
        withdrawn.clone(),
        advisory(DRAFT, "critical", "draft", 1),
    ]))
    .unwrap();
    let rx = Receiver::start(|_, _| Answer::Ok);
    let dir = TempDir::new("advisories-runs");
    let rules = format!(
        "[[notify]]\nname = \"security\"\nkind = \"webhook\"\nurl = \"{}/sec\"\ninitial = \"none\"\nevents = [\"advisory\"]\n",
        rx.url
    );
    std::fs::write(
        dir.path().join("signals.toml"),
        config(host.base_url(), &[REPO], &rules),
    )
    .unwrap();

    // First run: one request; the withdrawn advisory is a closed signal,
    // the draft is nothing; a first run alerts nothing.
    let first = collect(dir.path());
    assert_eq!(asked(&host, 0), vec![Some(200)]);
    let signals = exported(dir.path());
    let states: Vec<(&str, &str, &Value)> = signals
        .iter()
        .map(|s| {
            (
                s["id"].as_str().unwrap(),
                s["state"].as_str().unwrap(),
                &s["severity"],
            )
        })
        .collect();
    assert_eq!(
        states,
        vec![
            (
                "github:o/sec:advisory:GHSA-hhhh-hhhh-hhhh",
                "open",
                &json!("high")
            ),
            (
                "github:o/sec:advisory:GHSA-wwww-wwww-wwww",
                "closed",
                &json!("low")
            ),
        ]
    );
    assert_eq!(signals[0]["cvssScore"], 7.5);
    assert_eq!(signals[0]["cveId"], Value::Null);
    assert_eq!(signals[0]["author"], "maint");
    assert!(signals[1]["withdrawnAt"].is_string());
    assert!(rx.hits().is_empty());

    // A quiet run: the list answers 304, which costs no rate limit.
    let before = host.requests().len();
    let quiet = collect(dir.path());
    assert_eq!(asked(&host, before), vec![Some(304)]);
    assert_costs_only_its_200s(&first, &quiet);
    assert!(rx.hits().is_empty());

    // Published, and a severity raised: one `advisory` alert each.
    let mut raised = advisory(HIGH, "critical", "published", 0);
    raised["cvss"]["score"] = 9.8.into();
    raised["updated_at"] = hours_ago(3).into();
    let mut published = advisory(NEW, "medium", "published", 0);
    published["published_at"] = hours_ago(3).into();
    published["updated_at"] = hours_ago(3).into();
    host.set_scenario(scenario(vec![
        raised.clone(),
        published.clone(),
        withdrawn.clone(),
    ]));
    let before = host.requests().len();
    collect(dir.path());
    assert_eq!(asked(&host, before), vec![Some(200)]);
    assert_eq!(
        alerted(&rx, 0),
        vec![
            (HIGH.to_string(), "advisory".to_string()),
            (NEW.to_string(), "advisory".to_string()),
        ]
    );

    // A CVE assigned: a change in the trail, no `advisory` alert.
    let mut assigned = raised.clone();
    assigned["cve_id"] = "CVE-2026-12345".into();
    assigned["updated_at"] = hours_ago(2).into();
    let hits = rx.hits().len();
    host.set_scenario(scenario(vec![
        assigned.clone(),
        published.clone(),
        withdrawn.clone(),
    ]));
    collect(dir.path());
    assert_eq!(rx.hits().len(), hits, "a CVE id is no publication");

    // Withdrawn: the signal closes, no `advisory` alert.
    let mut gone = published.clone();
    gone["state"] = "withdrawn".into();
    gone["updated_at"] = hours_ago(1).into();
    gone["withdrawn_at"] = hours_ago(1).into();
    host.set_scenario(scenario(vec![assigned, gone, withdrawn]));
    collect(dir.path());
    assert_eq!(rx.hits().len(), hits, "a withdrawal is no publication");

    let trail = trails(dir.path());
    let of = |ghsa: &str| -> Vec<&str> {
        trail
            .iter()
            .filter(|(g, _)| g == ghsa)
            .map(|(_, d)| d.as_str())
            .collect()
    };
    assert_eq!(
        of(HIGH),
        vec![
            "discovered: initial snapshot",
            "changed: updatedAt, severity, cvssScore",
            "changed: updatedAt, cveId",
        ]
    );
    assert_eq!(of(OLD), vec!["discovered: initial snapshot"]);
    assert_eq!(
        of(NEW),
        vec!["discovered: initial snapshot", "changed: state, updatedAt"]
    );
    let signals = exported(dir.path());
    let new = signals
        .iter()
        .find(|s| s["id"].as_str().unwrap().ends_with(NEW))
        .unwrap();
    assert_eq!(new["state"], "closed");
    assert!(new["withdrawnAt"].is_string());
    let high = signals
        .iter()
        .find(|s| s["id"].as_str().unwrap().ends_with(HIGH))
        .unwrap();
    assert_eq!(
        (&high["severity"], &high["cveId"], &high["cvssScore"]),
        (&json!("critical"), &json!("CVE-2026-12345"), &json!(9.8))
    );
    // Open advisories first on the group page: the one still in force,
    // not the withdrawn ones.
    let group = std::fs::read_to_string(dir.path().join("site/g/index.html")).unwrap();
    let start = group
        .find("id=\"advisories-h\"")
        .expect("an advisories section");
    let end = group.find("id=\"changed-h\"").unwrap();
    assert!(start < end, "before what changed");
    let section = &group[start..end];
    assert!(
        section.contains(HIGH) && section.contains("critical"),
        "{section}"
    );
    assert!(section.contains("CVE-2026-12345"), "{section}");
    assert!(
        !section.contains(NEW) && !section.contains(OLD),
        "{section}"
    );
}

#[test]
fn a_repository_with_no_advisories_asks_once_a_run() {
    let host = TestHost::start(scenario(vec![])).unwrap();
    let dir = TempDir::new("advisories-none");
    std::fs::write(
        dir.path().join("signals.toml"),
        config(host.base_url(), &[REPO], ""),
    )
    .unwrap();
    let first = collect(dir.path());
    assert_eq!(asked(&host, 0), vec![Some(200)]);
    let before = host.requests().len();
    let quiet = collect(dir.path());
    assert_eq!(asked(&host, before), vec![Some(304)]);
    assert_costs_only_its_200s(&first, &quiet);
    assert!(exported(dir.path()).is_empty());
    // A host without the feature (an older GitHub Enterprise server) is
    // no failure: the run goes on without advisories.
    host.inject_for(ADVISORIES, signals_testhost::Fault::Status(404));
    let summary = collect(dir.path());
    assert_eq!(
        summary["repositories"][0]["status"], "collected",
        "{summary}"
    );
}
