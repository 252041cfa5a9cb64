//! The request budget of `signals collect`, measured on the real binary
//! against the loopback test host: `cargo bench -p signals --bench requests`.
//!
//! Not a timing benchmark in the statistical sense: the figures that matter
//! are counts (requests, 304 answers, bytes), read from the binary's
//! `collect --json` and counted again on the host side; they must agree and
//! stay within `4 + max(1, ceil(items / 100)) + 2` (the comment lists) per
//! repository and run, plus 1 for the commits per week at the day's first
//! run (the open pull requests are counted from the store,
//! which holds the repository's whole history), or
//! this program panics. Wall times (median of a few repetitions, process
//! start included) are printed for scale only.
//!
//! The scenario: one synthetic repository of 300 issues and pull requests,
//! all updated 30 days ago. Run 1 is a first run with backfill (every item);
//! then 20 items change and 10 are created, and run 2 sees only those 30;
//! run 3 follows with nothing changed.

use std::path::{Path, PathBuf};
use std::process::Command;
use std::time::{Duration, Instant};

use jiff::{SignedDuration, Timestamp};
use serde_json::Value;
use signals_testhost::{Scenario, TestHost, synthetic};

const REPO: &str = "bench/signals";
/// Repetitions of each sequence; the median wall time is printed.
const REPS: usize = 5;

fn main() {
    // `cargo bench` passes `--bench`; a filter argument, if any, is ignored.
    let small = sequence(300, 20, 10, REPS);
    print_table(
        "300 items: first run, then 20 changed and 10 new, then nothing changed",
        &small,
    );
    let large = sequence(2000, 100, 50, 3);
    print_table(
        "2,000 items: first run, then 100 changed and 50 new, then nothing changed",
        &large,
    );
}

/// One measured command.
#[derive(Debug, Clone, PartialEq)]
struct Row {
    label: &'static str,
    /// Issue and pull-request entries in the run's window (the host's data).
    items: u64,
    /// Of which pull requests.
    pulls: u64,
    /// `observedCount`: items plus releases published in the window.
    observed: u64,
    requests: u64,
    host_requests: u64,
    not_modified: u64,
    host_not_modified: u64,
    bytes: u64,
    host_bytes: u64,
    wall: Vec<Duration>,
}

impl Row {
    /// Repository, releases, advisories, milestones, the issue pages, plus the two
    /// comment lists (no comments here, no token, so no
    /// GraphQL); no open pull request count (the store keeps it); and the
    /// commits per week of the lifecycle, asked at most once a UTC day:
    /// by the first run (the three runs follow each other within
    /// seconds).
    fn budget(&self) -> u64 {
        let commits = u64::from(self.label.starts_with("1:"));
        4 + self.items.div_ceil(100).max(1) + 2 + commits
    }

    /// Perceval's cost for the same items, from the figure quoted in the
    /// project's issue: about 3 requests per issue and 5 per pull request.
    /// An estimate from that figure, not a measurement.
    fn perceval_estimate(&self) -> u64 {
        (self.items - self.pulls) * 3 + self.pulls * 5
    }

    fn median(&self) -> Duration {
        let mut w = self.wall.clone();
        w.sort();
        w[w.len() / 2]
    }
}

/// Runs the three-run sequence `reps` times (fresh store and host each
/// time), checks that the counts are the same every time, and returns the
/// rows with every wall time, plus the export.
fn sequence(items: usize, changed: usize, new: usize, reps: usize) -> (Vec<Row>, Vec<Duration>) {
    let mut rows: Option<Vec<Row>> = None;
    let mut export_times = vec![];
    for rep in 0..reps {
        let (got, export) = once(items, changed, new, rep);
        export_times.push(export);
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
    (rows.expect("at least one repetition"), export_times)
}

fn once(items: usize, changed: usize, new: usize, rep: usize) -> (Vec<Row>, Duration) {
    let now = Timestamp::now();
    let start = now - SignedDuration::from_hours(24 * 30);
    let mut scenario = synthetic(REPO, items, start);
    let host = TestHost::start(scenario.clone()).expect("the test host starts");
    let dir = workdir(&format!("{items}-{rep}"));
    std::fs::write(
        dir.join("signals.toml"),
        format!(
            "store = \"signals.db\"\nout = \"site\"\nbackfill_days = 60\n\n[host]\napi_url = \"{}\"\n\n[[groups]]\nid = \"bench\"\nname = \"Bench\"\n\n[[groups.repos]]\nrepo = \"{REPO}\"\n",
            host.base_url()
        ),
    )
    .unwrap();

    let mut rows = vec![measure(&dir, &host, &scenario, "1: first run (backfill)")];

    // Changes between the runs: `changed` items spread over the list get a
    // comment and a new title, `new` items are opened; the repository's open
    // issue count follows, so its object changes too.
    let recent = |mins: i64| fmt(now - SignedDuration::from_mins(mins));
    let more = synthetic(REPO, items + new, start);
    let data = scenario.repos.get_mut(REPO).unwrap();
    let step = items / changed;
    for i in 0..changed {
        let entry = &mut data.issues[i * step + step / 2];
        entry["updated_at"] = Value::from(recent(10));
        entry["comments"] = Value::from(entry["comments"].as_u64().unwrap() + 1);
        entry["title"] = Value::from(format!("{} (edited)", entry["title"].as_str().unwrap()));
    }
    for mut entry in more.repos[REPO].issues[items..].iter().cloned() {
        entry["created_at"] = Value::from(recent(5));
        entry["updated_at"] = Value::from(recent(5));
        data.issues.push(entry);
    }
    data.repo["open_issues_count"] = Value::from((items + new) as u64);
    host.set_scenario(scenario.clone());
    rows.push(measure(
        &dir,
        &host,
        &scenario,
        "2: after changes and new items",
    ));
    rows.push(measure(&dir, &host, &scenario, "3: nothing changed"));

    let started = Instant::now();
    let out = signals(&dir, &["export"]);
    let export = started.elapsed();
    assert!(out.status.success(), "export failed: {out:?}");
    std::fs::remove_dir_all(&dir).ok();
    (rows, export)
}

/// One `collect --json`, with the host's own count of the same run.
fn measure(dir: &Path, host: &TestHost, scenario: &Scenario, label: &'static str) -> Row {
    host.clear_requests();
    let started = Instant::now();
    let out = signals(dir, &["collect", "--json"]);
    let wall = started.elapsed();
    assert!(out.status.success(), "collect failed: {out:?}");
    let summary: Value = serde_json::from_slice(&out.stdout).expect("collect --json prints JSON");

    let sent = host.requests();
    let host_requests = sent.len() as u64;
    let host_not_modified = sent.iter().filter(|r| r.status == Some(304)).count() as u64;
    let host_bytes: u64 = sent.iter().map(|r| r.body.len() as u64).sum();

    // The window the run used, from the store, and the host's items in it.
    let status = signals(dir, &["status", "--json"]);
    let status: Value = serde_json::from_slice(&status.stdout).expect("status --json");
    let since: Timestamp = status["repositories"][0]["lastRun"]["since"]
        .as_str()
        .and_then(|s| s.parse().ok())
        .expect("the run's since");
    let in_window: Vec<&Value> = scenario.repos[REPO]
        .issues
        .iter()
        .filter(|i| {
            i["updated_at"]
                .as_str()
                .and_then(|s| s.parse::<Timestamp>().ok())
                .is_some_and(|u| u >= since)
        })
        .collect();

    let n = |v: &Value| v.as_u64().expect("a count");
    let row = Row {
        label,
        items: in_window.len() as u64,
        pulls: in_window
            .iter()
            .filter(|i| i.get("pull_request").is_some())
            .count() as u64,
        observed: n(&summary["repositories"][0]["observedCount"]),
        requests: n(&summary["requests"]),
        host_requests,
        not_modified: n(&summary["notModified"]),
        host_not_modified,
        bytes: n(&summary["bytesReceived"]),
        host_bytes,
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
    assert!(
        row.requests <= row.budget(),
        "{label}: over budget: {row:?}"
    );
    row
}

fn print_table(title: &str, (rows, export): &(Vec<Row>, Vec<Duration>)) {
    println!("\n{title}\n");
    println!(
        "| run | items in window (PRs) | observed | requests (binary / host) | 304 answers | rate limit spent | bytes received | budget 4+max(1,⌈items/100⌉)+2 (+1 the day's first) | Perceval estimate* | wall time (median of {}) |",
        rows[0].wall.len()
    );
    println!("|---|---|---|---|---|---|---|---|---|---|");
    for r in rows {
        println!(
            "| {} | {} ({}) | {} | {} / {} | {} | {} | {} | {} | ~{} | {} |",
            r.label,
            r.items,
            r.pulls,
            r.observed,
            r.requests,
            r.host_requests,
            r.not_modified,
            // GitHub charges every answer but a 304.
            r.host_requests - r.host_not_modified,
            r.bytes,
            r.budget(),
            r.perceval_estimate(),
            ms(r.median()),
        );
    }
    let mut export = export.clone();
    export.sort();
    println!(
        "\n`signals export` of the repository after run 3: {} (median of {}).",
        ms(export[export.len() / 2]),
        export.len()
    );
    println!(
        "* Perceval estimate: not measured; computed from the figure quoted in the issue \
         (about 3 requests per issue and 5 per pull request) for the same items."
    );
}

fn ms(d: Duration) -> String {
    format!("{} ms", d.as_millis())
}

fn fmt(ts: Timestamp) -> String {
    ts.strftime("%Y-%m-%dT%H:%M:%SZ").to_string()
}

/// Runs the `signals` under test in `dir`, with no token and no
/// `SIGNALS_*` variable from the caller's environment.
fn signals(dir: &Path, args: &[&str]) -> std::process::Output {
    let mut cmd = Command::new(env!("CARGO_BIN_EXE_signals"));
    cmd.current_dir(dir).args(args);
    for (k, _) in std::env::vars() {
        if k.starts_with("SIGNALS_") || k.starts_with("GITHUB_") {
            cmd.env_remove(k);
        }
    }
    cmd.output().expect("the signals binary runs")
}

fn workdir(name: &str) -> PathBuf {
    let dir = PathBuf::from(env!("CARGO_TARGET_TMPDIR"))
        .join(format!("bench-requests-{name}-{}", std::process::id()));
    std::fs::remove_dir_all(&dir).ok();
    std::fs::create_dir_all(&dir).unwrap();
    dir
}
