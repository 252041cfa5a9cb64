//! The cost of a reconcile: `cargo bench -p signals --bench
//! reconcile`. The real binary against the loopback test host (GitHub)
//! serving one repository of 10,000 issues and pull requests, all updated
//! 30 days ago and collected once with backfill; then:
//!
//! 1. two reconciles with nothing changed on the host (the first lists
//!    every page afresh, the next is answered 304 from the cache);
//! 2. 100 items gain reactions without a new `updated_at` (as GitHub adds
//!    them): a normal run, which cannot see them, then a reconcile, which
//!    records them;
//!
//! Prints requests, 304s, bytes, events and wall time (median of the
//! repetitions) per row; the counts are checked against the host's and the
//! events against the scenario, or the program panics.

use std::path::{Path, PathBuf};
use std::process::Command;
use std::time::{Duration, Instant};

use jiff::{SignedDuration, Timestamp};
use serde_json::Value;
use signals_testhost::{TestHost, synthetic};

const REPO: &str = "bench/big";
const ITEMS: usize = 10_000;
const SILENT: usize = 100;
const REPS: usize = 3;

struct Row {
    label: &'static str,
    requests: u64,
    not_modified: u64,
    bytes: u64,
    events: u64,
    wall: Vec<Duration>,
}

fn main() {
    let mut rows: Vec<Row> = Vec::new();
    for rep in 0..REPS {
        for (i, got) in once(rep).into_iter().enumerate() {
            match rows.get_mut(i) {
                None => rows.push(got),
                Some(row) => {
                    assert_eq!(
                        (row.requests, row.not_modified, row.events),
                        (got.requests, got.not_modified, got.events),
                        "{}: counts differ between repetitions",
                        row.label
                    );
                    row.wall.extend(got.wall);
                }
            }
        }
    }
    println!(
        "\nA repository of {ITEMS} issues and pull requests (GitHub, 100 a page), {REPS} repetitions:\n"
    );
    println!("| run | requests | 304s | bytes | events | wall (median) |");
    println!("|---|---:|---:|---:|---:|---:|");
    for mut row in rows {
        row.wall.sort();
        let median = row.wall[row.wall.len() / 2];
        println!(
            "| {} | {} | {} | {} | {} | {:.2} s |",
            row.label,
            row.requests,
            row.not_modified,
            row.bytes,
            row.events,
            median.as_secs_f64()
        );
    }
}

fn once(rep: usize) -> Vec<Row> {
    let start = Timestamp::now() - SignedDuration::from_hours(24 * 30);
    let mut scenario = synthetic(REPO, ITEMS, start);
    let host = TestHost::start(scenario.clone()).expect("the test host starts");
    let dir = workdir(rep);
    std::fs::write(
        dir.join("signals.toml"),
        format!(
            "store = \"signals.db\"\nout = \"site\"\nbackfill_days = 60\n\n[host]\napi_url = \"{}\"\n\n[[groups]]\nid = \"bench\"\nname = \"Bench\"\nrepos = [\"{REPO}\"]\n",
            host.api_url()
        ),
    )
    .unwrap();
    let first = measure(&dir, &host, &["collect", "--json"], "first run (backfill)");
    assert_eq!(
        first.events,
        ITEMS as u64 + 1,
        "every item and the release discovered"
    );
    let pages = ITEMS.div_ceil(100) as u64;
    // The first reconcile lists every page afresh (its URLs, `since` the
    // epoch, differ from the first run's); the next finds them unchanged.
    let fresh = measure(
        &dir,
        &host,
        &["collect", "--reconcile", "--json"],
        "first reconcile, nothing changed",
    );
    assert_eq!(fresh.events, 0);
    assert!(fresh.requests > pages, "{} requests", fresh.requests);
    let quiet = measure(
        &dir,
        &host,
        &["collect", "--reconcile", "--json"],
        "next reconcile, nothing changed",
    );
    assert_eq!(quiet.events, 0);
    // The listing's pages answer 304 from the cache.
    assert!(quiet.not_modified >= pages, "{} 304s", quiet.not_modified);

    let issues = &mut scenario.repos.get_mut(REPO).unwrap().issues;
    let step = issues.len() / SILENT;
    for i in 0..SILENT {
        let entry = &mut issues[i * step];
        let total = entry["reactions"]["total_count"].as_u64().unwrap_or(0) + 5;
        entry["reactions"]["total_count"] = Value::from(total);
    }
    host.set_scenario(scenario);
    let normal = measure(
        &dir,
        &host,
        &["collect", "--json"],
        "normal run after 100 silent changes",
    );
    assert_eq!(normal.events, 0, "a normal run cannot see them");
    let found = measure(
        &dir,
        &host,
        &["collect", "--reconcile", "--json"],
        "reconcile after 100 silent changes",
    );
    assert_eq!(found.events, SILENT as u64);
    std::fs::remove_dir_all(&dir).ok();
    vec![fresh, quiet, normal, found]
}

fn measure(dir: &Path, host: &TestHost, args: &[&str], label: &'static str) -> Row {
    host.clear_requests();
    let started = Instant::now();
    let out = signals(dir, args);
    let wall = started.elapsed();
    assert!(out.status.success(), "{label}: {out:?}");
    let summary: Value = serde_json::from_slice(&out.stdout).expect("collect --json prints JSON");
    let n = |v: &Value| v.as_u64().unwrap_or_else(|| panic!("{label}: {summary}"));
    let requests = n(&summary["requests"]);
    let sent = host.requests();
    assert_eq!(
        requests,
        sent.len() as u64,
        "{label}: the host counted otherwise"
    );
    let not_modified = n(&summary["notModified"]);
    assert_eq!(
        not_modified,
        sent.iter().filter(|r| r.status == Some(304)).count() as u64,
        "{label}: 304s"
    );
    let status = signals(dir, &["status", "--json"]);
    let status: Value = serde_json::from_slice(&status.stdout).expect("status --json");
    let events = n(&status["repositories"][0]["lastRun"]["changedCount"]);
    Row {
        label,
        requests,
        not_modified,
        bytes: n(&summary["bytesReceived"]),
        events,
        wall: vec![wall],
    }
}

fn workdir(rep: usize) -> PathBuf {
    let dir = PathBuf::from(env!("CARGO_TARGET_TMPDIR"))
        .join(format!("bench-reconcile-{rep}-{}", std::process::id()));
    let _ = std::fs::remove_dir_all(&dir);
    std::fs::create_dir_all(&dir).unwrap();
    dir
}

fn signals(dir: &Path, args: &[&str]) -> std::process::Output {
    Command::new(env!("CARGO_BIN_EXE_signals"))
        .current_dir(dir)
        .args(args)
        .env_remove("GITHUB_TOKEN")
        .output()
        .expect("the signals binary runs")
}
