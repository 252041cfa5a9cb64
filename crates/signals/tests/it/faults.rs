//! The binary under faults: each test starts a loopback host, injects what
//! GitHub or the network can do (5xx bursts, rate limits, cut and broken
//! bodies, missing and renamed repositories), runs the real `signals`, and
//! checks the exit code, the messages, the request counts on the host side,
//! and what the store kept. A failed run must leave no trace but a failure
//! note, and the next run must cover its window.
//!
//! The client's waits are not configurable from `signals.toml`, so the
//! faults used here carry short waits (`Retry-After: 1`, a reset one second
//! away) or waits so long that the client gives up without sleeping.

use std::path::Path;
use std::time::{Duration, Instant};

use jiff::{SignedDuration, Timestamp};
use serde_json::{Value, json};
use signals_core::EventKind;
use signals_store::suite::WholeReads;
use signals_store::{Reads, RepoView};
use signals_store_sqlite::Store;
use signals_testhost::{Fault, RecordedRequest, Scenario, TestHost, synthetic};

use crate::support::{TempDir, config, run, show};

/// The recorded demo data: github3.py (11 pull requests, 1 release, open
/// milestones) and betamax (150 issues and pull requests, two pages).
const INSTANT1: &str = include_str!("../../demo/instant1.json");
const GITHUB3: &str = "sigmavirus24/github3.py";
const BETAMAX: &str = "betamaxpy/betamax";

fn recorded() -> Scenario {
    Scenario::parse(INSTANT1.as_bytes()).expect("the bundled demo data parses")
}

/// A synthetic repository whose items were all updated `days_ago` days back
/// (and within the following hours), so an incremental run's window holds
/// none of them.
fn old_synthetic(full_name: &str, items: usize, days_ago: i64) -> Scenario {
    synthetic(
        full_name,
        items,
        Timestamp::now() - SignedDuration::from_hours(24 * days_ago),
    )
}

fn merge(mut a: Scenario, b: Scenario) -> Scenario {
    a.repos.extend(b.repos);
    a.renamed.extend(b.renamed);
    a
}

/// A folder with a `signals.toml` that tracks `repos` on `host`. `host_extra`
/// goes into the `[host]` table.
fn setup(name: &str, host: &TestHost, repos: &[&str], host_extra: &str) -> TempDir {
    let dir = TempDir::new(name);
    let text = config(host.base_url(), repos, "").replace(
        "[host]\n",
        &format!(
            "[host]\n{host_extra}{}",
            if host_extra.is_empty() { "" } else { "\n" }
        ),
    );
    std::fs::write(dir.path().join("signals.toml"), text).unwrap();
    dir
}

/// `signals collect --json`: the exit code and the parsed summary.
fn collect_json(dir: &Path, env: &[(&str, &str)]) -> (i32, Value, String) {
    let out = run(dir, &["collect", "--json"], env);
    let code = out.status.code().expect("exited");
    let summary: Value = serde_json::from_slice(&out.stdout)
        .unwrap_or_else(|e| panic!("collect --json prints JSON ({e}):\n{}", show(&out)));
    (
        code,
        summary,
        String::from_utf8_lossy(&out.stderr).into_owned(),
    )
}

fn status_json(dir: &Path) -> Value {
    let out = run(dir, &["status", "--json"], &[]);
    assert_eq!(out.status.code(), Some(0), "{}", show(&out));
    serde_json::from_slice(&out.stdout).unwrap()
}

/// The `status --json` entry of `repo` (`owner/name` as configured).
fn repo_status<'a>(status: &'a Value, repo: &str) -> &'a Value {
    status["repositories"]
        .as_array()
        .unwrap()
        .iter()
        .find(|r| r["repo"] == repo)
        .unwrap_or_else(|| panic!("{repo} in {status:#}"))
}

/// The `collect --json` entry of `repo`.
fn summary_of<'a>(summary: &'a Value, repo: &str) -> &'a Value {
    summary["repositories"]
        .as_array()
        .unwrap()
        .iter()
        .find(|r| r["repo"] == repo)
        .unwrap_or_else(|| panic!("{repo} in {summary:#}"))
}

/// Everything the store publishes about `repo` (`None`: never collected).
fn view(dir: &Path, repo: &str) -> Option<RepoView> {
    let store = Store::open(dir.join("signals.db")).unwrap();
    let summary = store
        .repositories()
        .unwrap()
        .into_iter()
        .find(|s| s.repo.repo.to_string() == repo)?;
    store.repository_view(summary.key).unwrap()
}

/// Requests the host received for `repo` (its own path or below it).
fn requests_for(host: &TestHost, repo: &str) -> Vec<RecordedRequest> {
    let root = format!("/repos/{repo}");
    host.requests()
        .into_iter()
        .filter(|r| {
            let path = r.path.split('?').next().unwrap_or_default();
            path == root || path.starts_with(&format!("{root}/"))
        })
        .collect()
}

/// The request budget of a repository run that returns `items` issues and
/// pull requests: repository, releases, advisories, milestones, the issue
/// pages, and
/// the two comment lists (no pull request of these recordings
/// changed within the comments' reach, so no GraphQL query), and the
/// commits per week of its lifecycle (asked at a repository's first run
/// of the UTC day, as every run here is). The open
/// pull requests are counted from the store: every first run
/// here reaches back to its repository's creation.
fn budget(items: u64) -> u64 {
    later_budget(items) + 1
}

/// The budget of a later run on the same UTC day: the commits per week
/// are not asked again (`signals_core::lifecycle::verdict::ask_commits`).
fn later_budget(items: u64) -> u64 {
    4 + items.div_ceil(100).max(1) + 2
}

/// The recorded betamax run: its 150 entries, plus one page of the closed
/// pulls list for the 64 closed pull requests recorded (2017) without
/// `merged_at`, which nothing settles and which are left out;
/// and the count of open pull requests, asked as the recorded object has
/// no `created_at`.
fn betamax_budget() -> u64 {
    budget(150) + 1 + 1
}

/// The items a recorded betamax run keeps: 150 less those 64.
const BETAMAX_ITEMS: usize = 150 - 64;

#[test]
fn a_5xx_burst_is_retried_and_the_run_committed() {
    let host = TestHost::start(old_synthetic("o/n", 150, 30)).unwrap();
    host.inject_for("/repos/o/n/issues", Fault::Status(502));
    host.inject_for("/repos/o/n/issues", Fault::Status(503));
    let dir = setup("5xx", &host, &["o/n"], "");

    let (code, summary, stderr) = collect_json(dir.path(), &[]);
    assert_eq!(code, 0, "{summary:#}\n{stderr}");
    assert_eq!(host.pending_faults(), 0);
    // 150 items: two issue pages, plus the two answers that were retried.
    let sent = host.requests();
    assert_eq!(sent.len() as u64, budget(150) + 2);
    assert_eq!(
        sent.iter()
            .filter(|r| r.status == Some(502) || r.status == Some(503))
            .count(),
        2
    );
    assert_eq!(summary["requests"], budget(150) + 2);
    // 150 items and the one release published in the window.
    assert_eq!(summary_of(&summary, "o/n")["observedCount"], 151);

    let status = status_json(dir.path());
    let last = &repo_status(&status, "o/n")["lastRun"];
    assert_eq!(last["retries"], 2, "{status:#}");
    assert_eq!(last["requests"], budget(150) + 2);
    assert_eq!(view(dir.path(), "o/n").unwrap().items.len(), 151);
}

#[test]
fn a_primary_limit_with_a_short_reset_is_waited_out() {
    let host = TestHost::start(recorded()).unwrap();
    host.inject_for(
        &format!("/repos/{GITHUB3}/milestones"),
        Fault::PrimaryLimit { reset_in_secs: 1 },
    );
    let dir = setup("primary", &host, &[GITHUB3], "");

    let started = Instant::now();
    let (code, summary, stderr) = collect_json(dir.path(), &[("GITHUB_TOKEN", "tok")]);
    let took = started.elapsed();
    assert_eq!(code, 0, "{summary:#}\n{stderr}");
    // The client waits until the reset (plus a second of margin), not less.
    assert!(took >= Duration::from_secs(1), "no wait: {took:?}");
    assert_eq!(summary["requests"], budget(11) + 1);
    assert_eq!(host.requests().len() as u64, budget(11) + 1);
    let limited: Vec<_> = host
        .requests()
        .into_iter()
        .filter(|r| r.status == Some(403))
        .collect();
    assert_eq!(limited.len(), 1);
    assert!(limited[0].path.contains("/milestones"));

    let status = status_json(dir.path());
    let repo = repo_status(&status, GITHUB3);
    assert_eq!(repo["runs"], 1);
    assert_eq!(repo["lastRun"]["retries"], 1);
    assert!(repo["lastFailure"].is_null(), "{status:#}");
}

#[test]
fn secondary_limits_403_and_429_honor_retry_after() {
    let host = TestHost::start(recorded()).unwrap();
    host.inject_for(
        &format!("/repos/{BETAMAX}/releases"),
        Fault::Secondary {
            status: 403,
            retry_after: Some(1),
        },
    );
    host.inject_for(
        &format!("/repos/{BETAMAX}/issues"),
        Fault::Secondary {
            status: 429,
            retry_after: Some(1),
        },
    );
    let dir = setup("secondary", &host, &[BETAMAX], "");

    let started = Instant::now();
    let (code, summary, stderr) = collect_json(dir.path(), &[]);
    let took = started.elapsed();
    assert_eq!(code, 0, "{summary:#}\n{stderr}");
    assert!(took >= Duration::from_secs(2), "two waits of 1 s: {took:?}");
    let sent = host.requests();
    assert_eq!(
        sent.iter().map(|r| r.status.unwrap()).collect::<Vec<_>>(),
        [
            200, 403, 200, 200, 200, 429, 200, 200, 200, 200, 200, 200, 200
        ],
        "{:#?}",
        sent.iter().map(|r| &r.path).collect::<Vec<_>>()
    );
    assert_eq!(summary["requests"], betamax_budget() + 2);
    let status = status_json(dir.path());
    assert_eq!(repo_status(&status, BETAMAX)["lastRun"]["retries"], 2);
    assert_eq!(
        view(dir.path(), BETAMAX).unwrap().items.len(),
        BETAMAX_ITEMS
    );
}

#[test]
fn a_rate_limit_longer_than_the_maximum_stops_with_exit_4() {
    // Twice: once for the text summary, once for `--json`, each on a fresh
    // store; the host keeps serving the same data.
    let host = TestHost::start(recorded()).unwrap();
    let limit_second = || {
        host.inject_for(
            &format!("/repos/{BETAMAX}"),
            Fault::PrimaryLimit {
                reset_in_secs: 3600,
            },
        )
    };

    limit_second();
    let dir = setup(
        "ratelimit-text",
        &host,
        &[GITHUB3, BETAMAX],
        "max_rate_limit_wait_secs = 60",
    );
    let started = Instant::now();
    let out = run(dir.path(), &["collect"], &[("GITHUB_TOKEN", "tok")]);
    assert!(
        started.elapsed() < Duration::from_secs(30),
        "gave up without waiting for the reset"
    );
    assert_eq!(out.status.code(), Some(4), "{}", show(&out));
    let stdout = String::from_utf8_lossy(&out.stdout);
    assert!(
        stdout.contains("in 1 of 2 repositories, 0 failed, 1 not collected"),
        "{}",
        show(&out)
    );
    assert!(
        stdout.contains("stopped on a rate limit until"),
        "{}",
        show(&out)
    );

    limit_second();
    host.clear_requests();
    let dir = setup(
        "ratelimit-json",
        &host,
        &[GITHUB3, BETAMAX],
        "max_rate_limit_wait_secs = 60",
    );
    let (code, summary, stderr) = collect_json(dir.path(), &[("GITHUB_TOKEN", "tok")]);
    assert_eq!(code, 4, "{summary:#}\n{stderr}");
    assert_eq!(summary["exitCode"], 4);
    let first = summary_of(&summary, GITHUB3);
    assert_eq!(first["status"], "collected");
    assert_eq!(summary_of(&summary, BETAMAX)["status"], "not_collected");
    let until: Timestamp = summary["stoppedUntil"].as_str().unwrap().parse().unwrap();
    assert!(
        until > Timestamp::now() + SignedDuration::from_mins(50),
        "{until}"
    );
    // The limited repository was asked for once: no retry against a spent
    // budget, no wait.
    assert_eq!(requests_for(&host, BETAMAX).len(), 1);
    // The summary counts the requests of the stopped repository too.
    assert_eq!(summary["requests"], host.requests().len() as u64);

    // The first repository's run is whole: one run, every observed item
    // discovered and stored.
    let github3 = view(dir.path(), GITHUB3).unwrap();
    assert_eq!(github3.runs.len(), 1);
    assert_eq!(
        Some(github3.runs[0].observed_count),
        first["observedCount"].as_u64()
    );
    assert_eq!(github3.items.len() as u64, github3.runs[0].observed_count);
    assert_eq!(github3.event_count, github3.runs[0].observed_count);
    assert!(
        github3
            .trail
            .iter()
            .all(|e| e.kind == EventKind::Discovered)
    );
    // Nothing of the second but its failure note.
    assert!(view(dir.path(), BETAMAX).is_none());
    let status = status_json(dir.path());
    let betamax = repo_status(&status, BETAMAX);
    assert_eq!(betamax["runs"], 0);
    assert!(betamax["lastRun"].is_null());
    assert_eq!(betamax["lastFailure"]["kind"], "rate_limited", "{status:#}");
}

#[test]
fn a_cut_or_broken_body_keeps_the_store_and_the_next_run_covers_the_window() {
    let host = TestHost::start(recorded()).unwrap();
    let dir = setup("bodies", &host, &[GITHUB3, BETAMAX], "");
    let (code, first, stderr) = collect_json(dir.path(), &[]);
    assert_eq!(code, 0, "{first:#}\n{stderr}");
    let before = [
        view(dir.path(), GITHUB3).unwrap(),
        view(dir.path(), BETAMAX).unwrap(),
    ];

    // An update between the runs, which the failed run would have seen.
    let mut scenario = recorded();
    let entry = &mut scenario.repos.get_mut(BETAMAX).unwrap().issues[0];
    let number = entry["number"].as_u64().unwrap();
    let recent = Timestamp::now() - SignedDuration::from_mins(5);
    entry["updated_at"] = Value::from(recent.strftime("%Y-%m-%dT%H:%M:%SZ").to_string());
    entry["title"] = Value::from("Edited between the runs");
    host.set_scenario(scenario);

    // betamax: every attempt at the issue list is cut mid-body (the first
    // try and both retries); github3.py: the releases are not JSON.
    for _ in 0..3 {
        host.inject_for(&format!("/repos/{BETAMAX}/issues"), Fault::Truncate);
    }
    host.inject_for(&format!("/repos/{GITHUB3}/releases"), Fault::Malformed);
    host.clear_requests();
    let out = run(dir.path(), &["collect"], &[]);
    assert_eq!(out.status.code(), Some(3), "{}", show(&out));
    assert_eq!(host.pending_faults(), 0);
    let stderr = String::from_utf8_lossy(&out.stderr);
    assert!(
        stderr.contains(&format!(
            "failed: {BETAMAX}: could not read the whole answer"
        )),
        "{}",
        show(&out)
    );
    assert!(
        stderr.contains(&format!("failed: {GITHUB3}: unexpected JSON from")),
        "{}",
        show(&out)
    );
    assert!(
        String::from_utf8_lossy(&out.stdout).contains("in 0 of 2 repositories, 2 failed"),
        "{}",
        show(&out)
    );
    // The store is exactly as the first run left it, but for the failure
    // notes.
    let after = [
        view(dir.path(), GITHUB3).unwrap(),
        view(dir.path(), BETAMAX).unwrap(),
    ];
    for (mut before, mut after) in before.into_iter().zip(after) {
        assert!(before.summary.last_error.is_none());
        assert!(after.summary.last_error.is_some());
        before.summary.last_error = None;
        after.summary.last_error = None;
        assert!(before == after, "{} changed", before.summary.repo.repo);
    }
    let status = status_json(dir.path());
    assert_eq!(
        repo_status(&status, BETAMAX)["lastFailure"]["kind"],
        "decode"
    );
    assert_eq!(
        repo_status(&status, GITHUB3)["lastFailure"]["kind"],
        "decode"
    );

    // The third run, without faults, starts where the last committed run
    // did, so the update made during the failed run is recorded.
    let (code, third, stderr) = collect_json(dir.path(), &[]);
    assert_eq!(code, 0, "{third:#}\n{stderr}");
    let betamax = view(dir.path(), BETAMAX).unwrap();
    assert_eq!(betamax.runs.len(), 2);
    let (run1, run3) = (&betamax.runs[0], &betamax.runs[1]);
    assert!(run3.since <= run1.collected_at, "{run3:?} after {run1:?}");
    let changed: Vec<_> = betamax
        .trail
        .iter()
        .filter(|e| e.at == run3.collected_at)
        .collect();
    assert_eq!(changed.len(), 1, "{changed:#?}");
    assert_eq!(changed[0].kind, EventKind::Changed);
    assert!(changed[0].item_id.ends_with(&format!(":{number}")));
    assert!(changed[0].detail.contains("title"), "{:?}", changed[0]);
    assert_eq!(changed[0].title, "Edited between the runs");
    assert_eq!(view(dir.path(), GITHUB3).unwrap().runs.len(), 2);
}

#[test]
fn a_missing_repository_fails_alone_and_status_shows_it() {
    let host = TestHost::start(recorded()).unwrap();
    let dir = setup("missing", &host, &[GITHUB3, "gone/away", BETAMAX], "");

    let out = run(dir.path(), &["collect"], &[]);
    assert_eq!(out.status.code(), Some(3), "{}", show(&out));
    let stderr = String::from_utf8_lossy(&out.stderr);
    assert!(
        stderr.contains("failed: gone/away: repository gone/away was not found on GitHub (404)"),
        "{}",
        show(&out)
    );
    let stdout = String::from_utf8_lossy(&out.stdout);
    assert!(
        stdout.contains("in 2 of 3 repositories, 1 failed"),
        "{}",
        show(&out)
    );
    // A 404 is final: asked once, not retried.
    assert_eq!(requests_for(&host, "gone/away").len(), 1);
    // The summary counts every request the host received, the failed
    // repository's included.
    let total = host.requests().len();
    assert!(
        stdout.contains(&format!("; {total} requests,")),
        "host saw {total}: {}",
        show(&out)
    );
    assert_eq!(total as u64, budget(11) + 1 + betamax_budget());

    assert_eq!(view(dir.path(), GITHUB3).unwrap().runs.len(), 1);
    assert_eq!(
        view(dir.path(), BETAMAX).unwrap().items.len(),
        BETAMAX_ITEMS
    );
    assert!(view(dir.path(), "gone/away").is_none());

    let out = run(dir.path(), &["status"], &[]);
    assert_eq!(out.status.code(), Some(0), "{}", show(&out));
    let table = String::from_utf8_lossy(&out.stdout);
    let line = table
        .lines()
        .find(|l| l.starts_with("g/away "))
        .unwrap_or_else(|| panic!("{table}"));
    assert!(line.contains("never"), "{line}");
    assert!(
        line.contains("not_found: repository gone/away was not found"),
        "{line}"
    );
    let status = status_json(dir.path());
    let gone = repo_status(&status, "gone/away");
    assert_eq!(gone["missing"], true);
    assert_eq!(gone["lastFailure"]["kind"], "not_found");
}

#[test]
fn a_renamed_repository_is_followed_and_reported() {
    let mut scenario = recorded();
    scenario
        .renamed
        .insert("sigmavirus24/github4.py".into(), GITHUB3.into());
    let host = TestHost::start(scenario).unwrap();
    let dir = setup("renamed", &host, &["sigmavirus24/github4.py"], "");

    let out = run(dir.path(), &["collect"], &[]);
    assert_eq!(out.status.code(), Some(0), "{}", show(&out));
    assert!(
        String::from_utf8_lossy(&out.stderr).contains(
            "renamed: sigmavirus24/github4.py is now sigmavirus24/github3.py on the host"
        ),
        "{}",
        show(&out)
    );
    // One 301 for the old name, the repository by id, then the rest under
    // the new name: the budget plus the redirect hop.
    let paths: Vec<_> = host
        .requests()
        .into_iter()
        .map(|r| (r.status, r.path))
        .collect();
    assert_eq!(paths.len() as u64, budget(11) + 1, "{paths:#?}");
    assert_eq!(
        paths[0],
        (Some(301), "/repos/sigmavirus24/github4.py".into())
    );
    assert!(paths[1].1.starts_with("/repositories/"), "{paths:#?}");
    assert!(
        paths[2..]
            .iter()
            .all(|(s, p)| *s == Some(200) && p.starts_with(&format!("/repos/{GITHUB3}/"))),
        "{paths:#?}"
    );

    let renamed = view(dir.path(), "sigmavirus24/github4.py").unwrap();
    assert_eq!(renamed.runs.len(), 1);
    assert_eq!(
        renamed
            .summary
            .host_name
            .as_ref()
            .map(|n| n.to_string())
            .as_deref(),
        Some(GITHUB3)
    );
    // Signals keep the configured name, so ids stay stable
    // (docs/decisions.md), and the published dataset is valid.
    assert!(
        renamed
            .items
            .keys()
            .all(|id| id.contains(":sigmavirus24/github4.py:")),
        "{:?}",
        renamed.items.keys().collect::<Vec<_>>()
    );
    let out = run(dir.path(), &["export"], &[]);
    assert_eq!(out.status.code(), Some(0), "{}", show(&out));
    let dataset = dir.path().join("site/g/github4-py/dataset.json");
    let out = run(dir.path(), &["validate", dataset.to_str().unwrap()], &[]);
    assert_eq!(out.status.code(), Some(0), "{}", show(&out));

    let out = run(dir.path(), &["status"], &[]);
    let table = String::from_utf8_lossy(&out.stdout);
    assert!(
        table.contains("renamed on the host to sigmavirus24/github3.py"),
        "{table}"
    );
    let (code, summary, _) = collect_json(dir.path(), &[]);
    assert_eq!(code, 0);
    assert_eq!(
        summary_of(&summary, "sigmavirus24/github4.py")["renamedTo"],
        GITHUB3
    );
}

/// Every file under `dir`, recursively.
fn files_under(dir: &Path) -> Vec<std::path::PathBuf> {
    let mut out = vec![];
    for entry in std::fs::read_dir(dir).unwrap() {
        let path = entry.unwrap().path();
        if path.is_dir() {
            out.extend(files_under(&path));
        } else {
            out.push(path);
        }
    }
    out
}

fn contains(haystack: &[u8], needle: &[u8]) -> bool {
    haystack.windows(needle.len()).any(|w| w == needle)
}

#[test]
fn the_token_is_never_written_or_printed() {
    const SECRET: &str = "ghp_testsecret0123456789abcdefABCDEF";
    let host = TestHost::start(recorded()).unwrap();
    // A fault and a missing repository too, so the error paths print.
    host.inject_for(&format!("/repos/{BETAMAX}/issues"), Fault::Status(502));
    let dir = setup("token", &host, &[GITHUB3, BETAMAX, "gone/away"], "");
    let env = [("GITHUB_TOKEN", SECRET)];

    let mut outputs = vec![];
    for args in [
        &["collect"][..],
        &["collect", "--verbose", "--json"],
        &["export"],
        &["status"],
        &["status", "--json"],
    ] {
        let out = run(dir.path(), args, &env);
        assert!(
            matches!(out.status.code(), Some(0 | 3)),
            "{args:?}: {}",
            show(&out)
        );
        outputs.push((args, out));
    }
    // The token was used: every request carried it.
    let sent = host.requests();
    assert!(!sent.is_empty());
    let bearer = format!("Bearer {SECRET}");
    assert!(
        sent.iter()
            .all(|r| r.header("authorization") == Some(bearer.as_str()))
    );

    for (args, out) in &outputs {
        assert!(
            !contains(&out.stdout, SECRET.as_bytes()),
            "{args:?}: {}",
            show(out)
        );
        assert!(
            !contains(&out.stderr, SECRET.as_bytes()),
            "{args:?}: {}",
            show(out)
        );
    }
    // The verbose log names the variable instead.
    assert!(String::from_utf8_lossy(&outputs[1].1.stderr).contains("[token GITHUB_TOKEN]"));

    let files = files_under(dir.path());
    assert!(files.iter().any(|f| f.ends_with("signals.db")));
    assert!(
        files.iter().any(|f| f.ends_with("dataset.json")),
        "{files:#?}"
    );
    for file in files {
        let bytes = std::fs::read(&file).unwrap();
        assert!(
            !contains(&bytes, SECRET.as_bytes()),
            "token in {}",
            file.display()
        );
        // Nor a recognizable part of it.
        assert!(
            !contains(&bytes, b"testsecret"),
            "token part in {}",
            file.display()
        );
    }
}

#[test]
fn each_repository_run_stays_within_its_request_budget() {
    // Sizes around the page boundaries.
    let sizes: [(&str, u64); 5] = [
        ("o/zero", 0),
        ("o/one", 1),
        ("o/hundred", 100),
        ("o/hundred-one", 101),
        ("o/many", 250),
    ];
    let scenario = sizes
        .iter()
        .map(|(name, n)| old_synthetic(name, *n as usize, 30))
        .fold(Scenario::default(), merge);
    let host = TestHost::start(scenario).unwrap();
    let names: Vec<&str> = sizes.iter().map(|(n, _)| *n).collect();
    let dir = setup("budget", &host, &names, "");

    // First run, with backfill: every item is returned.
    let (code, summary, stderr) = collect_json(dir.path(), &[]);
    assert_eq!(code, 0, "{summary:#}\n{stderr}");
    for (name, items) in sizes {
        let sent = requests_for(&host, name);
        assert_eq!(sent.len() as u64, budget(items), "{name}");
        assert!(sent.iter().all(|r| r.status == Some(200)), "{name}");
        assert_eq!(
            summary_of(&summary, name)["observedCount"],
            items + 1,
            "{name} (and its release)"
        );
    }
    let total: u64 = sizes.iter().map(|(_, n)| budget(*n)).sum();
    assert_eq!(summary["requests"], total);
    assert_eq!(host.requests().len() as u64, total);
    assert_eq!(summary["notModified"], 0);
    let bytes: usize = host.requests().iter().map(|r| r.body.len()).sum();
    assert_eq!(summary["bytesReceived"], bytes as u64);

    // Second run, nothing changed: the window (since yesterday) holds no
    // item, so one issue page each; the repository, releases, advisories
    // and milestones answer 304 from the cache.
    host.clear_requests();
    let (code, summary, stderr) = collect_json(dir.path(), &[]);
    assert_eq!(code, 0, "{summary:#}\n{stderr}");
    for (name, _) in sizes {
        let sent = requests_for(&host, name);
        assert_eq!(sent.len() as u64, later_budget(0), "{name}");
        assert_eq!(
            sent.iter().filter(|r| r.status == Some(304)).count(),
            4,
            "{name}"
        );
        assert_eq!(summary_of(&summary, name)["observedCount"], 0, "{name}");
    }
    assert_eq!(summary["requests"], later_budget(0) * sizes.len() as u64);
    assert_eq!(summary["notModified"], 4 * sizes.len() as u64);
    assert_eq!(
        host.requests().len() as u64,
        later_budget(0) * sizes.len() as u64
    );
}

/// GitHub's 2013-style refusal (limit and remaining 0, no
/// `x-ratelimit-reset`) stops the host with "reset unknown", `status`
/// shows `0 of 60 left, reset unknown` (not "0 of 0"), and the stop
/// message fits whether a token was sent.
#[test]
fn issue_16_a_rate_limit_without_a_reset_shows_reset_unknown() {
    for (env, advice, not) in [
        (
            &[][..],
            "no token was sent: set one",
            "has spent its budget",
        ),
        (
            &[("GITHUB_TOKEN", "tok")][..],
            "the token in GITHUB_TOKEN has spent its budget",
            "no token was sent",
        ),
    ] {
        let host = TestHost::start(recorded()).unwrap();
        host.set_rate_limit(60);
        host.inject(Fault::PrimaryLimitWithoutReset);
        let dir = setup(
            "ratelimit-no-reset",
            &host,
            &[GITHUB3, BETAMAX],
            "max_rate_limit_wait_secs = 30",
        );
        let out = run(dir.path(), &["collect"], env);
        assert_eq!(out.status.code(), Some(4), "{}", show(&out));
        let stdout = String::from_utf8_lossy(&out.stdout);
        let stderr = String::from_utf8_lossy(&out.stderr);
        assert!(
            stdout.contains("stopped on a rate limit, reset unknown: run again later"),
            "{}",
            show(&out)
        );
        assert!(stderr.contains("reset unknown"), "{}", show(&out));
        assert!(
            stderr.contains(advice) && !stderr.contains(not),
            "{}",
            show(&out)
        );
        // Asked once: the shortest pause (60 s) is longer than allowed.
        assert_eq!(host.requests().len(), 1);

        let out = run(dir.path(), &["status"], &[]);
        assert_eq!(out.status.code(), Some(0), "{}", show(&out));
        let text = String::from_utf8_lossy(&out.stdout);
        assert!(text.contains("0 of 60 left, reset unknown"), "{text}");
        assert!(!text.contains("0 of 0 left"), "{text}");
        let status = status_json(dir.path());
        let limits = status["rateLimits"].as_array().unwrap();
        assert_eq!(limits.len(), 1, "{status:#}");
        assert_eq!(
            (
                &limits[0]["limit"],
                &limits[0]["remaining"],
                &limits[0]["reset"]
            ),
            (&json!(60), &json!(0), &Value::Null)
        );
    }
}
