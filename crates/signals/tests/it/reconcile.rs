//! The periodic reconcile, with the real binary against the
//! loopback test host: reactions added without a change of `updated_at`
//! (as GitHub adds them) are missed by a normal run and found by a
//! reconcile, which records them as `changed` events naming `metrics`;
//! items the host no longer lists (deleted, transferred) are recorded as
//! closed, with their history kept and the dataset still valid.

use signals_store::Reads;
use signals_store::suite::WholeReads;
use std::collections::BTreeMap;

use jiff::{SignedDuration, Timestamp};
use serde_json::Value;
use signals_testhost::{TestHost, synthetic};

use crate::support::{TempDir, read_json, run, show};

const REPO: &str = "o/r";

/// Reactions and state per issue number, as the dataset has them.
fn dataset(dir: &std::path::Path) -> BTreeMap<u64, (u64, String)> {
    let out = run(dir, &["export", "--quiet"], &[]);
    assert!(out.status.success(), "{}", show(&out));
    let path = dir.join("site/g/r/dataset.json");
    let out = run(dir, &["validate", path.to_str().unwrap()], &[]);
    assert!(out.status.success(), "{}", show(&out));
    read_json(&path)["dataset"]["signals"]
        .as_array()
        .unwrap()
        .iter()
        .filter(|s| s["kind"] != "release")
        .map(|s| {
            let key = s["id"].as_str().unwrap().rsplit(':').next().unwrap();
            (
                key.parse().unwrap(),
                (
                    s["metrics"]["reactions"].as_u64().unwrap(),
                    s["state"].as_str().unwrap().to_string(),
                ),
            )
        })
        .collect()
}

#[test]
fn a_reconcile_finds_silent_reactions_and_items_the_host_no_longer_lists() {
    let start = Timestamp::now() - SignedDuration::from_hours(72);
    let mut scenario = synthetic(REPO, 30, start);
    let host = TestHost::start(scenario.clone()).unwrap();
    let dir = TempDir::new("reconcile");
    std::fs::write(
        dir.path().join("signals.toml"),
        crate::support::config(&host.api_url(), &[REPO], ""),
    )
    .unwrap();
    let out = run(dir.path(), &["collect", "--quiet"], &[]);
    assert!(out.status.success(), "{}", show(&out));
    let first = dataset(dir.path());
    assert_eq!(first.len(), 30);

    // On the host: five items gain reactions without a new `updated_at`;
    // two open items disappear (one deleted, one transferred).
    let issues = &mut scenario.repos.get_mut(REPO).unwrap().issues;
    let silent = [2u64, 3, 6, 7, 8];
    for entry in issues.iter_mut() {
        let number = entry["number"].as_u64().unwrap();
        if silent.contains(&number) {
            let total = entry["reactions"]["total_count"].as_u64().unwrap() + 10;
            entry["reactions"]["total_count"] = total.into();
        }
    }
    let gone = [10u64, 11];
    for n in gone {
        assert_eq!(first[&n].1, "open", "item {n} must be open to be closed");
    }
    issues.retain(|e| !gone.contains(&e["number"].as_u64().unwrap()));
    let host_reactions: BTreeMap<u64, u64> = issues
        .iter()
        .map(|e| {
            (
                e["number"].as_u64().unwrap(),
                e["reactions"]["total_count"].as_u64().unwrap(),
            )
        })
        .collect();
    host.set_scenario(scenario);

    // A normal run asks for what was updated since: it sees nothing.
    let out = run(dir.path(), &["collect", "--quiet"], &[]);
    assert!(out.status.success(), "{}", show(&out));
    assert_eq!(dataset(dir.path()), first);

    // A reconcile lists everything and compares.
    let out = run(dir.path(), &["collect", "--reconcile", "--json"], &[]);
    assert!(out.status.success(), "{}", show(&out));
    let after = dataset(dir.path());
    for (n, (reactions, state)) in &after {
        match host_reactions.get(n) {
            Some(on_host) => assert_eq!(reactions, on_host, "item {n}"),
            None => {
                assert!(gone.contains(n), "item {n}");
                assert_eq!(state, "closed", "item {n}");
                assert_eq!(*reactions, first[n].0, "item {n}");
            }
        }
    }
    assert_eq!(after.len(), 30, "the gone items stay in the data");

    // The trail records them as changes of the reconcile run.
    let store = signals_store_sqlite::Store::open(dir.path().join("signals.db")).unwrap();
    let key = store.repositories().unwrap()[0].key;
    let view = store.repository_view(key).unwrap().unwrap();
    let last = view.runs.last().unwrap().collected_at;
    let mut changed: BTreeMap<u64, String> = view
        .trail
        .iter()
        .filter(|e| e.at == last)
        .map(|e| {
            assert_eq!(e.kind.as_str(), "changed", "{e:?}");
            (
                e.item_id.rsplit(':').next().unwrap().parse().unwrap(),
                e.detail.clone(),
            )
        })
        .collect();
    for n in silent {
        assert!(changed.remove(&n).unwrap().contains("metrics"), "item {n}");
    }
    for n in gone {
        assert!(changed.remove(&n).unwrap().contains("state"), "item {n}");
    }
    assert!(changed.is_empty(), "{changed:?}");
    // Each gone item keeps its history: the open snapshot, then the closed.
    for n in gone {
        let id = format!("github:{REPO}:issue:{n}");
        let history = store.snapshot_history(key, &id).unwrap();
        assert_eq!(history.len(), 2, "{id}");
        assert_eq!(history[1].0, last);
    }

    // Health says when it happened; a second reconcile finds nothing new.
    let out = run(dir.path(), &["status", "--json"], &[]);
    let status: Value = serde_json::from_slice(&out.stdout).unwrap();
    let reconciled: Timestamp = status["repositories"][0]["health"]["lastReconcile"]
        .as_str()
        .unwrap()
        .parse()
        .unwrap();
    assert_eq!(reconciled, last);
    let out = run(dir.path(), &["collect", "--reconcile", "--json"], &[]);
    assert!(out.status.success(), "{}", show(&out));
    assert_eq!(dataset(dir.path()), after);
    let view = store.repository_view(key).unwrap().unwrap();
    assert_eq!(view.runs.last().unwrap().changed_count, 0);

    // `--reconcile` is for a one-shot round.
    let out = run(dir.path(), &["collect", "--reconcile", "--loop"], &[]);
    assert_eq!(out.status.code(), Some(1), "{}", show(&out));
    assert!(show(&out).contains("do not go together"), "{}", show(&out));
}
