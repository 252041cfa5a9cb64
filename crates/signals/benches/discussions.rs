//! Issue 26: what GitHub Discussions cost a collection, measured on the
//! real binary against the loopback test host:
//! `cargo bench -p signals --bench discussions`.
//!
//! One repository of 300 issues and pull requests and 1,000 discussions,
//! all updated 30 days ago, collected with a token: run 1 is a first run
//! with backfill (every discussion), then 100 discussions change and run
//! 2 sees those, then run 3 follows with nothing changed. For each run:
//! REST requests (which discussions must not change), GraphQL requests
//! and points as `collect --json` counts them and as the host counts
//! them (they must agree, or this program panics), discussions observed,
//! and the median wall time of three repetitions (process start
//! included, for scale only).

use std::path::{Path, PathBuf};
use std::process::Command;
use std::time::{Duration, Instant};

use jiff::{SignedDuration, Timestamp};
use serde_json::Value;
use signals_testhost::{Scenario, TestHost, discussion, synthetic, synthetic_discussions};

const REPO: &str = "bench/talk";
const DISCUSSIONS: u64 = 1000;
const CHANGED: u64 = 100;
const REPS: usize = 3;

#[derive(Debug, Clone, PartialEq)]
struct Row {
    label: &'static str,
    rest: u64,
    graphql_requests: u64,
    graphql_points: u64,
    changed: u64,
    wall: Vec<Duration>,
}

fn main() {
    let mut rows: Option<Vec<Row>> = None;
    for rep in 0..REPS {
        let got = once(rep);
        match &mut rows {
            None => rows = Some(got),
            Some(rows) => {
                for (row, new) in rows.iter_mut().zip(got) {
                    let mut same = new.clone();
                    same.wall = row.wall.clone();
                    assert_eq!(*row, same, "counts differ between repetitions");
                    row.wall.extend(new.wall);
                }
            }
        }
    }
    println!(
        "300 items and {DISCUSSIONS} discussions: first run, then {CHANGED} discussions changed, then nothing changed"
    );
    println!(
        "| run | REST requests | GraphQL requests | GraphQL points | changed | wall (median of {REPS}) |"
    );
    println!("|---|---:|---:|---:|---:|---:|");
    for r in rows.expect("a repetition") {
        let mut w = r.wall.clone();
        w.sort();
        println!(
            "| {} | {} | {} | {} | {} | {:.2} s |",
            r.label,
            r.rest,
            r.graphql_requests,
            r.graphql_points,
            r.changed,
            w[w.len() / 2].as_secs_f64()
        );
    }
}

fn scenario(discussions: Vec<Value>, start: Timestamp) -> Scenario {
    let mut s = synthetic(REPO, 300, start);
    let data = s.repos.get_mut(REPO).expect("the synthetic repository");
    data.repo["has_discussions"] = true.into();
    data.discussions = Some(discussions);
    s
}

fn once(rep: usize) -> Vec<Row> {
    let now = Timestamp::now();
    let start = now - SignedDuration::from_hours(24 * 30);
    let mut all = synthetic_discussions(REPO, DISCUSSIONS, start);
    let host = TestHost::start(scenario(all.clone(), start)).expect("the test host starts");
    let dir = workdir(rep);
    std::fs::write(
        dir.join("signals.toml"),
        format!(
            "store = \"signals.db\"\nout = \"site\"\nbackfill_days = 60\n\n[host]\napi_url = \"{}\"\n\n[[groups]]\nid = \"bench\"\nname = \"Bench\"\n\n[[groups.repos]]\nrepo = \"{REPO}\"\n",
            host.base_url()
        ),
    )
    .unwrap();
    let mut rows = vec![measure(&dir, &host, "1: first run (backfill)")];
    // Every tenth discussion changes (a comment, and an answer on Q&A).
    let step = (DISCUSSIONS / CHANGED) as usize;
    for (i, d) in all.iter_mut().enumerate().filter(|(i, _)| i % step == 0) {
        let n = i as u64 + 1;
        let category = d["category"]["name"]
            .as_str()
            .unwrap_or("Ideas")
            .to_string();
        let comments = d["comments"]["totalCount"].as_u64().unwrap_or(0);
        *d = discussion(REPO, n, now - SignedDuration::from_mins(5), &category);
        d["comments"]["totalCount"] = (comments + 1).into();
    }
    host.set_scenario(scenario(all, start));
    rows.push(measure(&dir, &host, "2: after 100 changed"));
    rows.push(measure(&dir, &host, "3: nothing changed"));
    std::fs::remove_dir_all(&dir).ok();
    rows
}

fn measure(dir: &Path, host: &TestHost, label: &'static str) -> Row {
    host.clear_requests();
    let started = Instant::now();
    let out = signals(dir, &["collect", "--json"]);
    let wall = started.elapsed();
    assert!(out.status.success(), "collect failed: {out:?}");
    let summary: Value = serde_json::from_slice(&out.stdout).expect("collect --json prints JSON");
    let sent = host.requests();
    let n = |v: &Value| v.as_u64().expect("a count");
    let posts: Vec<_> = sent.iter().filter(|r| r.method == "POST").collect();
    let points: u64 = posts
        .iter()
        .filter_map(|r| serde_json::from_slice::<Value>(&r.body).ok())
        .filter_map(|b| b["data"]["rateLimit"]["cost"].as_u64())
        .sum();
    let row = Row {
        label,
        rest: n(&summary["requests"]),
        graphql_requests: n(&summary["graphqlRequests"]),
        graphql_points: n(&summary["graphqlPoints"]),
        changed: n(&summary["changedCount"]),
        wall: vec![wall],
    };
    assert_eq!(
        row.rest,
        (sent.len() - posts.len()) as u64,
        "REST counts agree"
    );
    assert_eq!(
        row.graphql_requests,
        posts.len() as u64,
        "GraphQL counts agree"
    );
    assert_eq!(row.graphql_points, points, "points agree");
    row
}

fn workdir(rep: usize) -> PathBuf {
    let dir = PathBuf::from(env!("CARGO_TARGET_TMPDIR"))
        .join(format!("bench-discussions-{rep}-{}", std::process::id()));
    std::fs::remove_dir_all(&dir).ok();
    std::fs::create_dir_all(&dir).unwrap();
    dir
}

/// Runs the `signals` under test in `dir` with a token, and no
/// `SIGNALS_*` or `GITHUB_*` variable from the caller's environment.
fn signals(dir: &Path, args: &[&str]) -> std::process::Output {
    let mut cmd = Command::new(env!("CARGO_BIN_EXE_signals"));
    cmd.current_dir(dir).args(args);
    for (k, _) in std::env::vars() {
        if k.starts_with("SIGNALS_") || k.starts_with("GITHUB_") {
            cmd.env_remove(k);
        }
    }
    cmd.env("GITHUB_TOKEN", "bench-token");
    cmd.output().expect("the signals binary runs")
}
