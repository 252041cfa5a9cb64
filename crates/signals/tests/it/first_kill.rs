//! A first collection killed at random moments: its
//! items go to the run's stage as the pages arrive, and the run commits
//! all or nothing, so each kill leaves no run and no item (only the HTTP
//! cache of the pages it read, and a stage no read sees), and the next
//! run completes it, with conditional requests for what the killed runs
//! read, into the same store a run never killed makes, leaving no stage.

use std::collections::BTreeMap;
use std::process::{Command, Stdio};
use std::time::Duration;

use jiff::{SignedDuration, Timestamp};
use serde_json::Value;
use signals_core::ItemSnapshot;
use signals_store::suite::WholeReads;
use signals_store::{Reads, RunStaging};
use signals_testhost::{TestHost, synthetic};

use crate::support::{TempDir, run, show, signals_bin};

const REPO: &str = "o/big";

fn setup(name: &str, host: &TestHost) -> TempDir {
    let dir = TempDir::new(name);
    std::fs::write(
        dir.path().join("signals.toml"),
        crate::support::config(&host.api_url(), &[REPO], ""),
    )
    .unwrap();
    dir
}

/// Runs, the latest snapshots of every item and the staged items, from
/// the store in `dir`.
fn stored(dir: &std::path::Path) -> (usize, BTreeMap<String, ItemSnapshot>, u64) {
    let store = signals_store_sqlite::Store::open(dir.join("signals.db")).unwrap();
    let Some(repo) = store.repositories().unwrap().first().cloned() else {
        return (0, BTreeMap::new(), 0);
    };
    let runs = store
        .repository_view(repo.key)
        .unwrap()
        .map_or(0, |v| v.runs.len());
    let staged = store.staged_count(repo.key).unwrap();
    (runs, store.latest_snapshots(repo.key).unwrap(), staged)
}

#[test]
fn a_first_collection_killed_at_random_moments_leaves_no_partial_run() {
    let start = Timestamp::now() - SignedDuration::from_hours(24 * 30);
    let host = TestHost::start(synthetic(REPO, 3000, start)).unwrap();
    // Slow answers (35 requests of at least 30 ms), so every kill lands
    // within the run.
    host.set_latency(Duration::from_millis(30));

    let dir = setup("first-kill", &host);
    let mut rng = fastrand::Rng::with_seed(27);
    let mut read_before_kill = 0;
    let mut most_staged = 0;
    for _ in 0..4 {
        let before = host.request_count();
        let mut child = Command::new(signals_bin())
            .current_dir(dir.path())
            .args(["collect", "--quiet"])
            .env_remove("GITHUB_TOKEN")
            .stdout(Stdio::null())
            .stderr(Stdio::null())
            .spawn()
            .unwrap();
        // A random moment of the run's progress, not of the clock (a
        // loaded machine made a clock's moment land before the first
        // page): once the host has answered a random number of its 35
        // requests, and a little into the next one.
        let answered = rng.usize(8..30);
        let waited = std::time::Instant::now();
        while host.request_count() - before < answered
            && child.try_wait().unwrap().is_none()
            && waited.elapsed() < Duration::from_secs(120)
        {
            std::thread::sleep(Duration::from_millis(2));
        }
        std::thread::sleep(Duration::from_millis(rng.u64(0..30)));
        let finished = child.try_wait().unwrap().is_some();
        assert!(
            !finished,
            "the run finished before its kill: make it slower"
        );
        child.kill().unwrap(); // SIGKILL
        child.wait().unwrap();
        read_before_kill = read_before_kill.max(host.request_count() - before);
        let (runs, items, staged) = stored(dir.path());
        assert_eq!((runs, items.len()), (0, 0), "a killed run left a trace");
        most_staged = most_staged.max(staged);
    }
    assert!(read_before_kill > 3, "no kill landed in the item pages");
    // The items went to the store as their pages arrived, not at the end.
    assert!(most_staged > 0, "no killed run had staged its items");

    // The next run completes it, reading again with conditional requests.
    let out = run(dir.path(), &["collect", "--json"], &[]);
    assert!(out.status.success(), "{}", show(&out));
    let summary: Value = serde_json::from_slice(&out.stdout).unwrap();
    assert!(
        summary["notModified"].as_u64().unwrap() > 0,
        "no conditional request answered 304: {summary}"
    );
    let (runs, killed, staged) = stored(dir.path());
    assert_eq!((runs, staged), (1, 0), "one run, and its stage is gone");

    // A run never killed, of the same host, makes the same store.
    let clean = setup("first-kill-clean", &host);
    let out = run(clean.path(), &["collect", "--quiet"], &[]);
    assert!(out.status.success(), "{}", show(&out));
    let (runs, never, staged) = stored(clean.path());
    assert_eq!((runs, staged), (1, 0));
    assert_eq!(killed.len(), 3000 + 1, "3,000 items and the release");
    assert_eq!(killed, never);
}
