//! The request budget of `signals collect` on GitLab and Forgejo, measured
//! on the real binary against the loopback test host's GitLab and Forgejo
//! flavors: `cargo bench -p signals --bench hosts`.
//!
//! Like `benches/requests.rs` (GitHub), the figures are counts read from
//! `collect --json` and counted again on the host side; they must agree and
//! stay within each host's documented budget (docs/hosts.md), or this
//! program panics:
//!
//! - GitLab: `3 + M + max(1, ⌈issues / 100⌉) + max(1, ⌈merge requests / 100⌉)`
//!   with `M` active milestones (one here);
//! - Forgejo: `3 + max(1, ⌈items / 50⌉)`.
//!
//! The scenario: 300 synthetic entries (every third a pull or merge
//! request), all updated 30 days ago; run 1 is a first run with backfill;
//! then 20 entries change and 10 issues are opened, and run 2 sees those;
//! run 3 follows with nothing changed.

use std::path::{Path, PathBuf};
use std::process::Command;
use std::time::{Duration, Instant};

use jiff::{SignedDuration, Timestamp};
use serde_json::Value;
use signals_testhost::{Flavor, Scenario, TestHost, synthetic_forgejo, synthetic_gitlab};

const GITLAB_PATH: &str = "bench/group/signals";
const FORGEJO_REPO: &str = "bench/signals";
const REPS: usize = 3;

fn main() {
    for flavor in [Flavor::Gitlab, Flavor::Forgejo] {
        let rows = sequence(flavor, 300, 20, 10);
        print_table(flavor, &rows);
    }
}

#[derive(Debug, Clone, PartialEq)]
struct Row {
    label: &'static str,
    /// Issues and pull/merge requests in the run's window.
    items: u64,
    /// Of which pull or merge requests.
    pulls: u64,
    requests: u64,
    host_requests: u64,
    not_modified: u64,
    host_not_modified: u64,
    bytes: u64,
    host_bytes: u64,
    budget: u64,
    wall: Vec<Duration>,
}

fn budget(flavor: Flavor, items: u64, pulls: u64) -> u64 {
    match flavor {
        // GitLab has no project-wide notes list: the notes of each item
        // in the window, at most 100 a run (docs/hosts.md).
        Flavor::Gitlab => {
            3 + 1
                + (items - pulls).div_ceil(100).max(1)
                + pulls.div_ceil(100).max(1)
                + items.min(100)
        }
        // Forgejo's comments: one repository-wide list, asked when some
        // item changed (the synthetic items have no comments: one page).
        _ => 3 + items.div_ceil(50).max(1) + u64::from(items > 0),
    }
}

fn sequence(flavor: Flavor, items: usize, changed: usize, new: usize) -> Vec<Row> {
    let mut rows: Option<Vec<Row>> = None;
    for rep in 0..REPS {
        let got = once(flavor, items, changed, new, rep);
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
    rows.expect("at least one repetition")
}

fn scenario(flavor: Flavor, items: usize, start: Timestamp) -> Scenario {
    match flavor {
        Flavor::Gitlab => synthetic_gitlab(GITLAB_PATH, items, start),
        _ => synthetic_forgejo(FORGEJO_REPO, items, start),
    }
}

fn once(flavor: Flavor, items: usize, changed: usize, new: usize, rep: usize) -> Vec<Row> {
    let now = Timestamp::now();
    let start = now - SignedDuration::from_hours(24 * 30);
    let mut scenario = scenario(flavor, items, start);
    let host = TestHost::start(scenario.clone()).expect("the test host starts");
    let (kind, repo) = match flavor {
        Flavor::Gitlab => ("gitlab", GITLAB_PATH),
        _ => ("forgejo", FORGEJO_REPO),
    };
    let dir = workdir(&format!("{kind}-{rep}"));
    std::fs::write(
        dir.join("signals.toml"),
        format!(
            "store = \"signals.db\"\nout = \"site\"\nbackfill_days = 60\n\n[host]\nkind = \"{kind}\"\napi_url = \"{}\"\n\n[[groups]]\nid = \"bench\"\nname = \"Bench\"\nrepos = [\"{repo}\"]\n",
            host.api_url()
        ),
    )
    .unwrap();
    let mut rows = vec![measure(
        flavor,
        &dir,
        &host,
        &scenario,
        "1: first run (backfill)",
    )];

    let recent = |mins: i64| {
        (now - SignedDuration::from_mins(mins))
            .strftime("%Y-%m-%dT%H:%M:%SZ")
            .to_string()
    };
    let (key, comments) = match flavor {
        Flavor::Gitlab => ("iid", "user_notes_count"),
        _ => ("number", "comments"),
    };
    let data = scenario.repos.values_mut().next().unwrap();
    // Changes spread over the issues (and, on GitLab, the merge requests).
    let mut lists: Vec<&mut Vec<Value>> = vec![&mut data.issues];
    if flavor == Flavor::Gitlab {
        lists.push(&mut data.merge_requests);
    }
    let per_list = changed / lists.len();
    for list in lists {
        let step = list.len() / per_list;
        for i in 0..per_list {
            let entry = &mut list[i * step + step / 2];
            entry["updated_at"] = Value::from(recent(10));
            entry[comments] = Value::from(entry[comments].as_u64().unwrap_or(0) + 1);
            entry["title"] = Value::from(format!("{} (edited)", entry["title"].as_str().unwrap()));
        }
    }
    let template = data.issues[0].clone();
    for n in 0..new {
        let mut entry = template.clone();
        entry[key] = Value::from(10_000 + n as u64);
        entry["created_at"] = Value::from(recent(5));
        entry["updated_at"] = Value::from(recent(5));
        data.issues.push(entry);
    }
    host.set_scenario(scenario.clone());
    rows.push(measure(
        flavor,
        &dir,
        &host,
        &scenario,
        "2: after changes and new items",
    ));
    rows.push(measure(
        flavor,
        &dir,
        &host,
        &scenario,
        "3: nothing changed",
    ));
    std::fs::remove_dir_all(&dir).ok();
    rows
}

fn measure(
    flavor: Flavor,
    dir: &Path,
    host: &TestHost,
    scenario: &Scenario,
    label: &'static str,
) -> Row {
    host.clear_requests();
    let started = Instant::now();
    let out = signals(dir, &["collect", "--json"]);
    let wall = started.elapsed();
    assert!(out.status.success(), "collect failed: {out:?}");
    let summary: Value = serde_json::from_slice(&out.stdout).expect("collect --json prints JSON");
    let sent = host.requests();

    let status = signals(dir, &["status", "--json"]);
    let status: Value = serde_json::from_slice(&status.stdout).expect("status --json");
    let since: Timestamp = status["repositories"][0]["lastRun"]["since"]
        .as_str()
        .and_then(|s| s.parse().ok())
        .expect("the run's since");
    let data = scenario.repos.values().next().unwrap();
    let in_window = |i: &&Value| {
        i["updated_at"]
            .as_str()
            .and_then(|s| s.parse::<Timestamp>().ok())
            .is_some_and(|u| u >= since)
    };
    let (items, pulls) = match flavor {
        Flavor::Gitlab => {
            let mrs = data.merge_requests.iter().filter(in_window).count() as u64;
            (
                data.issues.iter().filter(in_window).count() as u64 + mrs,
                mrs,
            )
        }
        _ => {
            let all: Vec<&Value> = data.issues.iter().filter(in_window).collect();
            let pulls = all.iter().filter(|i| !i["pull_request"].is_null()).count() as u64;
            (all.len() as u64, pulls)
        }
    };
    let n = |v: &Value| v.as_u64().expect("a count");
    let row = Row {
        label,
        items,
        pulls,
        requests: n(&summary["requests"]),
        host_requests: sent.len() as u64,
        not_modified: n(&summary["notModified"]),
        host_not_modified: sent.iter().filter(|r| r.status == Some(304)).count() as u64,
        bytes: n(&summary["bytesReceived"]),
        host_bytes: sent.iter().map(|r| r.body.len() as u64).sum(),
        budget: budget(flavor, items, pulls),
        wall: vec![wall],
    };
    assert_eq!(
        row.requests, row.host_requests,
        "{label}: request counts disagree"
    );
    assert_eq!(
        row.not_modified, row.host_not_modified,
        "{label}: 304 counts disagree"
    );
    assert_eq!(row.bytes, row.host_bytes, "{label}: byte counts disagree");
    assert!(row.requests <= row.budget, "{label}: over budget: {row:?}");
    row
}

fn print_table(flavor: Flavor, rows: &[Row]) {
    let (name, formula) = match flavor {
        Flavor::Gitlab => ("GitLab", "3+M+⌈issues/100⌉+⌈MRs/100⌉+min(items,100), M=1"),
        _ => ("Forgejo", "3+max(1,⌈items/50⌉)+1 comments page"),
    };
    println!("\n{name}: 300 items, then 20 changed and 10 new, then nothing changed\n");
    println!(
        "| run | items in window (PRs/MRs) | requests (binary / host) | 304 answers | bytes received | budget {formula} | wall time (median of {}) |",
        rows[0].wall.len()
    );
    println!("|---|---|---|---|---|---|---|");
    for r in rows {
        let mut w = r.wall.clone();
        w.sort();
        println!(
            "| {} | {} ({}) | {} / {} | {} | {} | {} | {} ms |",
            r.label,
            r.items,
            r.pulls,
            r.requests,
            r.host_requests,
            r.not_modified,
            r.bytes,
            r.budget,
            w[w.len() / 2].as_millis()
        );
    }
}

fn workdir(name: &str) -> PathBuf {
    let dir = PathBuf::from(env!("CARGO_TARGET_TMPDIR"))
        .join(format!("bench-hosts-{name}-{}", std::process::id()));
    let _ = std::fs::remove_dir_all(&dir);
    std::fs::create_dir_all(&dir).unwrap();
    dir
}

fn signals(dir: &Path, args: &[&str]) -> std::process::Output {
    Command::new(env!("CARGO_BIN_EXE_signals"))
        .current_dir(dir)
        .args(args)
        .env_remove("GITLAB_TOKEN")
        .env_remove("FORGEJO_TOKEN")
        .output()
        .expect("the signals binary runs")
}
