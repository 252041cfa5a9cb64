//! GitLab and Forgejo end to end, and token safety on every host: the real
//! `signals` against loopback hosts of each flavor (`signals-testhost`),
//! checking the documented request budgets (docs/performance.md), 304s
//! where the host sends validators, rate-limit stops, retries, missing
//! projects, decode errors, two runs with export and validation, and that
//! a token never reaches another server or any file.

use std::path::Path;

use jiff::{SignedDuration, Timestamp};
use serde_json::{Value, json};
use signals_core::EventKind;
use signals_store::suite::WholeReads;
use signals_store::{Reads, RepoView};
use signals_store_sqlite::Store;
use signals_testhost::{
    Fault, Flavor, Scenario, TestHost, synthetic, synthetic_forgejo, synthetic_gitlab,
};

use crate::support::{TempDir, read_json, run, show};

const GITLAB_PATH: &str = "grp/sub/proj";
const FORGEJO_REPO: &str = "owner/repo";

/// One flavor under test: its kind in `signals.toml`, its repository, its
/// synthetic data, and its documented budgets.
#[derive(Clone, Copy)]
struct Host {
    flavor: Flavor,
}

const GITLAB: Host = Host {
    flavor: Flavor::Gitlab,
};
const FORGEJO: Host = Host {
    flavor: Flavor::Forgejo,
};

impl Host {
    fn kind(self) -> &'static str {
        match self.flavor {
            Flavor::Github => "github",
            Flavor::Gitlab => "gitlab",
            Flavor::Forgejo => "forgejo",
        }
    }

    fn repo(self) -> &'static str {
        match self.flavor {
            Flavor::Gitlab => GITLAB_PATH,
            Flavor::Forgejo => FORGEJO_REPO,
            Flavor::Github => "o/n",
        }
    }

    fn name(self) -> &'static str {
        match self.flavor {
            Flavor::Gitlab => "GitLab",
            Flavor::Forgejo => "Forgejo",
            Flavor::Github => "GitHub",
        }
    }

    /// `items` entries updated `days_ago` days back (within the hours after).
    fn scenario(self, items: usize, days_ago: i64) -> Scenario {
        let start = Timestamp::now() - SignedDuration::from_hours(24 * days_ago);
        match self.flavor {
            Flavor::Gitlab => synthetic_gitlab(GITLAB_PATH, items, start),
            Flavor::Forgejo => synthetic_forgejo(FORGEJO_REPO, items, start),
            Flavor::Github => synthetic("o/n", items, start),
        }
    }

    /// The documented budget of a run that sees `items` synthetic entries
    /// changed (every third a pull or merge request): GitLab
    /// `3 + M + pages(issues) + pages(merge requests)` with one active
    /// milestone, plus the notes of at most 100 changed items; Forgejo
    /// `3 + pages(items / 50)`, plus a page of comments when an item
    /// changed; GitHub's two comment lists.
    fn budget(self, items: u64) -> u64 {
        match self.flavor {
            Flavor::Gitlab => {
                let mrs = items / 3;
                3 + 1
                    + (items - mrs).div_ceil(100).max(1)
                    + mrs.div_ceil(100).max(1)
                    + items.min(100)
            }
            Flavor::Forgejo => 3 + items.div_ceil(50).max(1) + u64::from(items > 0),
            Flavor::Github => 4 + items.div_ceil(100).max(1) + 2,
        }
    }

    /// The header that carries the token, and its value for `secret`.
    fn auth(self, secret: &str) -> (&'static str, String) {
        match self.flavor {
            Flavor::Gitlab => ("private-token", secret.to_string()),
            Flavor::Forgejo => ("authorization", format!("token {secret}")),
            Flavor::Github => ("authorization", format!("Bearer {secret}")),
        }
    }

    /// The path of the repository object on the test host.
    fn repo_path(self) -> String {
        match self.flavor {
            Flavor::Gitlab => "/api/v4/projects/grp%2Fsub%2Fproj".into(),
            Flavor::Forgejo => format!("/api/v1/repos/{FORGEJO_REPO}"),
            Flavor::Github => "/repos/o/n".into(),
        }
    }

    /// The path prefix of the issue list.
    fn issues_path(self) -> &'static str {
        match self.flavor {
            Flavor::Gitlab => "/api/v4/projects/4242/issues",
            Flavor::Forgejo => "/api/v1/repos/owner/repo/issues",
            Flavor::Github => "/repos/o/n/issues",
        }
    }
}

/// A folder with a `signals.toml` naming one host `h` of `kind` and the
/// repository `repo` in group `g`.
fn setup(name: &str, host: Host, api_url: &str, repo: &str) -> TempDir {
    let dir = TempDir::new(name);
    let text = format!(
        r#"store = "signals.db"
out = "site"
backfill_days = 60

[[hosts]]
name = "h"
kind = "{}"
api_url = "{api_url}"
token_env = "HOST_TOKEN"
max_retries = 2
timeout_secs = 5
max_rate_limit_wait_secs = 30

[[groups]]
id = "g"
name = "Group"
repos = ["{repo}"]
"#,
        host.kind()
    );
    std::fs::write(dir.path().join("signals.toml"), text).unwrap();
    dir
}

/// `signals collect --json`: the exit code, the summary and stderr.
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

fn view(dir: &Path) -> RepoView {
    let store = Store::open(dir.join("signals.db")).unwrap();
    let summary = store.repositories().unwrap().into_iter().next().unwrap();
    store.repository_view(summary.key).unwrap().unwrap()
}

fn budget_then_incremental(host: Host) {
    let th = TestHost::start(host.scenario(300, 30)).unwrap();
    let dir = setup("budget", host, &th.api_url(), host.repo());

    let (code, summary, stderr) = collect_json(dir.path(), &[]);
    assert_eq!(code, 0, "{summary:#}\n{stderr}");
    let first = host.budget(300);
    assert_eq!(summary["requests"], first, "{summary:#}");
    assert_eq!(th.requests().len() as u64, first);
    assert_eq!(summary["notModified"], 0);
    // Items, plus the releases published in the backfill (Forgejo's draft
    // is none).
    let releases = if host.flavor == Flavor::Gitlab { 2 } else { 1 };
    assert_eq!(view(dir.path()).items.len(), 300 + releases);

    // Incremental: the window holds no item; one page per list.
    for run_no in 2..=3 {
        th.clear_requests();
        let (code, summary, stderr) = collect_json(dir.path(), &[]);
        assert_eq!(code, 0, "{summary:#}\n{stderr}");
        let budget = host.budget(0);
        assert_eq!(summary["requests"], budget, "run {run_no}: {summary:#}");
        assert_eq!(th.requests().len() as u64, budget);
        let not_modified = summary["notModified"].as_u64().unwrap();
        match host.flavor {
            // Repository, releases, milestones, milestone counts answer 304
            // on run 2; run 3 asks the same lists again: all 304.
            Flavor::Gitlab => assert_eq!(not_modified, if run_no == 2 { 4 } else { budget }),
            // Forgejo sends no validators, so nothing is ever asked
            // conditionally, and nothing answers 304.
            _ => {
                assert_eq!(not_modified, 0);
                assert!(
                    th.requests()
                        .iter()
                        .all(|r| r.header("if-none-match").is_none()
                            && r.header("if-modified-since").is_none())
                );
            }
        }
    }
}

#[test]
fn gitlab_first_run_costs_its_budget_and_incremental_runs_use_304s() {
    budget_then_incremental(GITLAB);
}

#[test]
fn forgejo_first_run_costs_its_budget_and_incremental_runs_cost_one_page_each() {
    budget_then_incremental(FORGEJO);
}

fn faults(host: Host) {
    // 5xx: retried, then committed, the retries counted.
    let th = TestHost::start(host.scenario(120, 30)).unwrap();
    th.inject_for(&host.repo_path(), Fault::Status(502));
    th.inject_for(host.issues_path(), Fault::Status(503));
    let dir = setup("faults-5xx", host, &th.api_url(), host.repo());
    let (code, summary, stderr) = collect_json(dir.path(), &[]);
    assert_eq!(code, 0, "{summary:#}\n{stderr}");
    assert_eq!(summary["requests"], host.budget(120) + 2, "{summary:#}");
    assert_eq!(th.pending_faults(), 0);

    // A rate limit whose reset is an hour away: exit 4, nothing committed.
    let th = TestHost::start(host.scenario(120, 30)).unwrap();
    th.set_rate_limit(2);
    let dir = setup("faults-limit", host, &th.api_url(), host.repo());
    let (code, summary, stderr) = collect_json(dir.path(), &[]);
    assert_eq!(code, 4, "{summary:#}\n{stderr}");
    assert_eq!(summary["repositories"][0]["status"], "not_collected");
    assert!(summary["stoppedUntil"].is_string(), "{summary:#}");
    assert!(
        Store::open(dir.path().join("signals.db"))
            .unwrap()
            .repositories()
            .unwrap()
            .iter()
            .all(|r| r.run_count == 0)
    );
    // The limit was seen, not waited out. GitLab's `RateLimit-Remaining: 0`
    // on the second answer stops the client before a third request;
    // Forgejo sends no budget, so the third request meets the 429.
    let expected = if host.flavor == Flavor::Gitlab { 2 } else { 3 };
    assert_eq!(th.requests().len(), expected);

    // A missing project: exit 3, recorded for `status`.
    let th = TestHost::start(host.scenario(10, 30)).unwrap();
    let missing = match host.flavor {
        Flavor::Gitlab => "grp/sub/gone",
        _ => "owner/gone",
    };
    let dir = setup("faults-missing", host, &th.api_url(), missing);
    let (code, summary, _) = collect_json(dir.path(), &[]);
    assert_eq!(code, 3, "{summary:#}");
    let error = summary["repositories"][0]["error"].as_str().unwrap();
    assert!(
        error.contains(&format!(
            "repository {missing} was not found on {} (404)",
            host.name()
        )),
        "{error}"
    );
    let out = run(dir.path(), &["status", "--json"], &[]);
    let status: Value = serde_json::from_slice(&out.stdout).unwrap();
    assert_eq!(status["repositories"][0]["missing"], true, "{status:#}");
    assert_eq!(
        status["repositories"][0]["lastFailure"]["kind"],
        "not_found"
    );

    // An entry the client cannot decode: the error names URL and path.
    let mut scenario = host.scenario(1, 30);
    let data = scenario.repos.values_mut().next().unwrap();
    let (field, path) = match host.flavor {
        Flavor::Gitlab => ("iid", "[0].iid"),
        _ => ("number", "[0].number"),
    };
    data.issues[0][field] = json!("seven");
    let th = TestHost::start(scenario).unwrap();
    let dir = setup("faults-decode", host, &th.api_url(), host.repo());
    let (code, summary, _) = collect_json(dir.path(), &[]);
    assert_eq!(code, 3, "{summary:#}");
    let error = summary["repositories"][0]["error"].as_str().unwrap();
    assert!(error.contains(&format!("at `{path}`")), "{error}");
    assert!(
        error.contains(&format!("{}{}?", th.base_url(), host.issues_path())),
        "{error}"
    );
}

#[test]
fn gitlab_faults_5xx_rate_limit_missing_and_bad_json() {
    faults(GITLAB);
}

#[test]
fn forgejo_faults_5xx_rate_limit_missing_and_bad_json() {
    faults(FORGEJO);
}

fn two_runs_export_validate(host: Host) {
    let th = TestHost::start(host.scenario(40, 30)).unwrap();
    let dir = setup("e2e", host, &th.api_url(), host.repo());
    let (code, summary, stderr) = collect_json(dir.path(), &[]);
    assert_eq!(code, 0, "{summary:#}\n{stderr}");

    // Between the runs: item 2 (an issue) gets a new title, item 3 (a pull
    // or merge request) a comment, and one issue is opened.
    let now = Timestamp::now().strftime("%Y-%m-%dT%H:%M:%SZ").to_string();
    let mut scenario = host.scenario(40, 30);
    let data = scenario.repos.values_mut().next().unwrap();
    let comments = match host.flavor {
        Flavor::Gitlab => "user_notes_count",
        _ => "comments",
    };
    data.issues[1]["title"] = json!("Renamed between the runs");
    data.issues[1]["updated_at"] = json!(now);
    let pr = match host.flavor {
        Flavor::Gitlab => &mut data.merge_requests[0],
        _ => &mut data.issues[2],
    };
    pr[comments] = json!(99);
    pr["updated_at"] = json!(now);
    let mut fresh = data.issues[0].clone();
    let key = match host.flavor {
        Flavor::Gitlab => "iid",
        _ => "number",
    };
    fresh[key] = json!(500);
    fresh["title"] = json!("Opened between the runs");
    fresh["created_at"] = json!(now);
    fresh["updated_at"] = json!(now);
    data.issues.push(fresh);
    th.set_scenario(scenario);

    let (code, summary, stderr) = collect_json(dir.path(), &[]);
    assert_eq!(code, 0, "{summary:#}\n{stderr}");
    assert_eq!(summary["newCount"], 1, "{summary:#}");
    assert_eq!(summary["changedCount"], 2, "{summary:#}");

    let out = run(dir.path(), &["export"], &[]);
    assert_eq!(out.status.code(), Some(0), "{}", show(&out));
    let id = host.repo().rsplit('/').next().unwrap();
    let doc_path = dir.path().join("site/g").join(id).join("dataset.json");
    let out = run(dir.path(), &["validate", doc_path.to_str().unwrap()], &[]);
    assert_eq!(out.status.code(), Some(0), "{}", show(&out));

    let doc = read_json(&doc_path);
    let signals = doc["dataset"]["signals"].as_array().unwrap();
    let source = host.kind();
    let prefix = format!("{source}:{}:", host.repo());
    assert!(signals.iter().all(|s| s["source"] == source
        && s["project"] == host.repo()
        && s["id"].as_str().unwrap().starts_with(&prefix)));
    let changed: Vec<&str> = signals
        .iter()
        .filter(|s| s["change"] == "updated")
        .map(|s| s["id"].as_str().unwrap())
        .collect();
    let (issue_2, pr_1) = match host.flavor {
        // GitLab numbers issues and merge requests apart: item 2 is issue
        // 2, item 3 merge request 1.
        Flavor::Gitlab => (
            format!("{prefix}issue:2"),
            format!("{prefix}pull_request:1"),
        ),
        _ => (
            format!("{prefix}issue:2"),
            format!("{prefix}pull_request:3"),
        ),
    };
    let mut want = vec![issue_2.as_str(), pr_1.as_str()];
    want.sort();
    assert_eq!(changed, want);
    let fresh_id = format!("{prefix}issue:500");
    let fresh = signals.iter().find(|s| s["id"] == fresh_id).unwrap();
    assert!(
        fresh.get("change").is_none(),
        "a new signal has no change marker"
    );

    let view = view(dir.path());
    let changes: Vec<(&str, &str)> = view
        .trail
        .iter()
        .filter(|e| e.kind == EventKind::Changed)
        .map(|e| (e.item_id.as_str(), e.detail.as_str()))
        .collect();
    // Events of one run are ordered by item id (`issue` before
    // `pull_request`).
    assert_eq!(
        changes,
        vec![
            (issue_2.as_str(), "title, updatedAt"),
            (pr_1.as_str(), "metrics, updatedAt"),
        ]
    );
    let page =
        std::fs::read_to_string(dir.path().join("site/g").join(id).join("index.html")).unwrap();
    assert!(page.contains("Renamed between the runs"));
}

#[test]
fn gitlab_two_runs_export_and_validate() {
    two_runs_export_validate(GITLAB);
}

#[test]
fn forgejo_two_runs_export_and_validate() {
    two_runs_export_validate(FORGEJO);
}

fn files_under(dir: &Path) -> Vec<std::path::PathBuf> {
    let mut out = vec![];
    for entry in std::fs::read_dir(dir).unwrap().flatten() {
        let p = entry.path();
        if p.is_dir() {
            out.extend(files_under(&p));
        } else {
            out.push(p);
        }
    }
    out
}

fn token_safety(host: Host) {
    const SECRET: &str = "tok-Sup3rSecret-value";
    // Two pages, the second announced on another server.
    let items = 160;
    let th = TestHost::start(host.scenario(items, 30)).unwrap();
    let other = TestHost::start(host.scenario(items, 30)).unwrap();
    th.set_link_base(other.base_url());
    let dir = setup("tokens", host, &th.api_url(), host.repo());
    let out = run(
        dir.path(),
        &["collect", "--verbose"],
        &[("HOST_TOKEN", SECRET)],
    );
    assert_eq!(out.status.code(), Some(0), "{}", show(&out));

    // The host got the token in its header on every request.
    let (name, value) = host.auth(SECRET);
    assert!(!th.requests().is_empty());
    assert!(
        th.requests()
            .iter()
            .all(|r| r.header(name) == Some(value.as_str())),
        "{:?}",
        th.requests()
    );
    // The other server was asked for the next page, without any token.
    let asked = other.requests();
    assert!(!asked.is_empty(), "the Link was followed");
    for r in &asked {
        assert!(
            r.header("authorization").is_none() && r.header("private-token").is_none(),
            "token sent to another server: {r:?}"
        );
    }
    // Nowhere in what was printed or written.
    let out2 = run(dir.path(), &["export"], &[("HOST_TOKEN", SECRET)]);
    assert_eq!(out2.status.code(), Some(0), "{}", show(&out2));
    for o in [&out, &out2] {
        for stream in [&o.stdout, &o.stderr] {
            assert!(!String::from_utf8_lossy(stream).contains(SECRET));
        }
    }
    for f in files_under(dir.path()) {
        let bytes = std::fs::read(&f).unwrap();
        assert!(
            !bytes.windows(SECRET.len()).any(|w| w == SECRET.as_bytes()),
            "token in {}",
            f.display()
        );
    }
}

#[test]
fn github_token_never_leaves_its_host() {
    token_safety(Host {
        flavor: Flavor::Github,
    });
}

#[test]
fn gitlab_token_never_leaves_its_host() {
    token_safety(GITLAB);
}

#[test]
fn forgejo_token_never_leaves_its_host() {
    token_safety(FORGEJO);
}

#[test]
fn several_hosts_in_one_configuration_and_a_stop_concerns_only_its_host() {
    let gitlab = TestHost::start(GITLAB.scenario(20, 30)).unwrap();
    let forgejo = TestHost::start(FORGEJO.scenario(20, 30)).unwrap();
    // A port nobody listens on: the third host does not answer.
    let dead = {
        let l = std::net::TcpListener::bind("127.0.0.1:0").unwrap();
        format!("http://{}/api/v1", l.local_addr().unwrap())
    };
    let dir = TempDir::new("several-hosts");
    let text = format!(
        r#"store = "signals.db"
out = "site"
backfill_days = 60

[[hosts]]
name = "lab"
kind = "gitlab"
api_url = "{}"
max_retries = 0
timeout_secs = 5

[[hosts]]
name = "dead"
kind = "forgejo"
api_url = "{dead}"
max_retries = 0
timeout_secs = 5

[[hosts]]
name = "berg"
kind = "forgejo"
api_url = "{}"
max_retries = 0
timeout_secs = 5

[[groups]]
id = "g"
name = "Group"
repos = [
  "{GITLAB_PATH}",
  {{ repo = "owner/unreachable", host = "dead" }},
  {{ repo = "owner/unreachable-too", host = "dead" }},
  {{ repo = "{FORGEJO_REPO}", host = "berg" }},
]
"#,
        gitlab.api_url(),
        forgejo.api_url()
    );
    std::fs::write(dir.path().join("signals.toml"), text).unwrap();
    let (code, summary, stderr) = collect_json(dir.path(), &[]);
    // The unreachable host stops its own repositories (exit 6, and its
    // second repository is not even tried); the others are collected.
    assert_eq!(code, 6, "{summary:#}\n{stderr}");
    let status: Vec<(&str, &str)> = summary["repositories"]
        .as_array()
        .unwrap()
        .iter()
        .map(|r| (r["repo"].as_str().unwrap(), r["status"].as_str().unwrap()))
        .collect();
    assert_eq!(
        status,
        vec![
            (GITLAB_PATH, "collected"),
            ("owner/unreachable", "not_collected"),
            ("owner/unreachable-too", "not_collected"),
            (FORGEJO_REPO, "collected"),
        ]
    );
    assert_eq!(gitlab.requests().len() as u64, GITLAB.budget(20));
    assert_eq!(forgejo.requests().len() as u64, FORGEJO.budget(20));
    // Rate limits are kept per host when there are several.
    let out = run(dir.path(), &["status", "--json"], &[]);
    let status: Value = serde_json::from_slice(&out.stdout).unwrap();
    let tokens: Vec<&str> = status["rateLimits"]
        .as_array()
        .unwrap_or_else(|| panic!("{status:#}"))
        .iter()
        .map(|l| l["token"].as_str().unwrap())
        .collect();
    assert_eq!(tokens, vec!["lab:anonymous"]);
    // Both collected repositories export and validate, each with its source.
    let out = run(dir.path(), &["export"], &[]);
    assert_eq!(out.status.code(), Some(0), "{}", show(&out));
    // `berg` is the second Forgejo host (after `dead`): its source carries
    // its name.
    for (id, source) in [("proj", "gitlab"), ("repo", "forgejo-berg")] {
        let doc = dir.path().join("site/g").join(id).join("dataset.json");
        let out = run(dir.path(), &["validate", doc.to_str().unwrap()], &[]);
        assert_eq!(out.status.code(), Some(0), "{}", show(&out));
        assert_eq!(read_json(&doc)["dataset"]["signals"][0]["source"], source);
    }
}

/// `openIssues` is open issues, pull and merge requests not
/// counted, on every host; each scenario has open pull requests, and
/// GitHub's own `open_issues_count` counts them.
#[test]
fn issue_16_open_issues_means_open_issues_on_every_host() {
    const GITHUB: Host = Host {
        flavor: Flavor::Github,
    };
    for host in [GITHUB, GITLAB, FORGEJO] {
        let scenario = host.scenario(40, 2);
        let data = scenario.repos.values().next().unwrap();
        let is_open = |v: &Value| v["state"] == "open" || v["state"] == "opened";
        let is_pull = |v: &Value| !v["pull_request"].is_null();
        let open_issues = data
            .issues
            .iter()
            .filter(|i| is_open(i) && !is_pull(i))
            .count() as u64;
        let open_pulls = data
            .issues
            .iter()
            .filter(|i| is_open(i) && is_pull(i))
            .count()
            + data.merge_requests.iter().filter(|m| is_open(m)).count();
        assert!(open_issues > 0 && open_pulls > 0, "{}", host.name());
        if host.flavor == Flavor::Github {
            assert_eq!(
                data.repo["open_issues_count"],
                open_issues + open_pulls as u64,
                "GitHub counts both"
            );
        }
        let th = TestHost::start(scenario).unwrap();
        let dir = setup("open-issues", host, &th.api_url(), host.repo());
        let (code, summary, stderr) = collect_json(dir.path(), &[]);
        assert_eq!(code, 0, "{summary:#}\n{stderr}");
        assert_eq!(
            view(dir.path()).context.open_issues,
            open_issues,
            "{}",
            host.name()
        );
        let out = run(dir.path(), &["export"], &[]);
        assert_eq!(out.status.code(), Some(0), "{}", show(&out));
        let doc = files_under(&dir.path().join("site/g"))
            .into_iter()
            .find(|p| p.ends_with("dataset.json"))
            .map(|p| read_json(&p))
            .unwrap();
        assert_eq!(
            doc["dataset"]["context"]["openIssues"],
            open_issues,
            "{}",
            host.name()
        );
    }
}

/// Two hosts of one kind: github.com and a GitHub Enterprise server (two
/// loopback GitHub hosts) both holding `o/n`, tracked in one group. The
/// first host of the kind keeps today's ids (`github:o/n:...`); the second
/// writes its name (`github-ghe:o/n:...`). Both documents export and
/// validate, and what is keyed by id or by (source, repository) stays
/// apart: the store's items, the group page, the history pages and the
/// history API of `serve`.
#[test]
fn issue_16_two_github_hosts_with_the_same_owner_name_give_distinct_ids() {
    let start = Timestamp::now() - SignedDuration::from_hours(24 * 3);
    let dotcom = TestHost::start(synthetic("o/n", 6, start)).unwrap();
    let mut enterprise = synthetic("o/n", 9, start);
    enterprise.repos.values_mut().next().unwrap().issues[0]["title"] =
        json!("Seen on the enterprise server");
    let ghe = TestHost::start(enterprise).unwrap();
    let dir = TempDir::new("two-github-hosts");
    let text = format!(
        r#"store = "signals.db"
out = "site"
backfill_days = 60

[[hosts]]
name = "dotcom"
kind = "github"
api_url = "{}"
max_retries = 0

[[hosts]]
name = "ghe"
kind = "github"
api_url = "{}"
max_retries = 0

[[groups]]
id = "g"
name = "Group"
repos = [
  {{ repo = "o/n", id = "n" }},
  {{ repo = "o/n", id = "n-ghe", host = "ghe" }},
]
"#,
        dotcom.api_url(),
        ghe.api_url()
    );
    std::fs::write(dir.path().join("signals.toml"), text).unwrap();
    let (code, summary, stderr) = collect_json(dir.path(), &[]);
    assert_eq!(code, 0, "{summary:#}\n{stderr}");
    let out = run(dir.path(), &["export"], &[]);
    assert_eq!(out.status.code(), Some(0), "{}", show(&out));

    let mut all_ids = std::collections::BTreeSet::new();
    for (id, source, items) in [("n", "github", 6), ("n-ghe", "github-ghe", 9)] {
        let doc_path = dir.path().join("site/g").join(id).join("dataset.json");
        let out = run(dir.path(), &["validate", doc_path.to_str().unwrap()], &[]);
        assert_eq!(out.status.code(), Some(0), "{}", show(&out));
        let doc = read_json(&doc_path);
        let signals = doc["dataset"]["signals"].as_array().unwrap();
        // Closed pull requests without `merged_at` are left out; the
        // issues, the other pulls and two releases are signals.
        assert!(
            !signals.is_empty() && signals.len() <= items + 2,
            "{id}: {} signals",
            signals.len()
        );
        let prefix = format!("{source}:o/n:");
        for s in signals {
            assert_eq!(s["source"], source);
            assert_eq!(s["project"], "o/n");
            let sid = s["id"].as_str().unwrap();
            assert!(sid.starts_with(&prefix), "{sid}");
            assert!(all_ids.insert(sid.to_string()), "{sid} twice");
        }
        // Each repository's history pages are its own.
        assert!(
            dir.path()
                .join("site/g")
                .join(id)
                .join("history/issue-1.html")
                .exists()
        );
    }
    // The first host's ids are exactly those of a one-host configuration.
    assert!(all_ids.contains("github:o/n:issue:1"));
    assert!(all_ids.contains("github-ghe:o/n:issue:1"));
    // The store holds each repository's items under its own ids.
    let store = Store::open(dir.path().join("signals.db")).unwrap();
    for summary in store.repositories().unwrap() {
        let view = store.repository_view(summary.key).unwrap().unwrap();
        let want = if summary.repo.id == "n" {
            "github"
        } else {
            "github-ghe"
        };
        assert_eq!(summary.repo.source.as_str(), want);
        assert!(!view.items.is_empty());
        for (key, item) in &view.items {
            assert!(key.starts_with(&format!("{want}:o/n:")), "{key}");
            assert_eq!(*key, item.id(&summary.repo.source));
        }
    }
    drop(store);
    // The cards name the host they come from.
    let page = |id: &str| {
        std::fs::read_to_string(dir.path().join("site/g").join(id).join("index.html")).unwrap()
    };
    assert!(page("n-ghe").contains("on <span class=\"host\">GitHub (ghe)</span>"));
    assert!(!page("n").contains("GitHub (ghe)"));
    // The group page holds cards of both, each under its own id.
    let group = std::fs::read_to_string(dir.path().join("site/g/index.html")).unwrap();
    assert!(
        group.contains("github:o/n:") && group.contains("github-ghe:o/n:"),
        "{group}"
    );

    // `serve`'s history API finds each item on its own host.
    let served = crate::serve::serve_with(dir.path(), &[], &[]);
    for (id, title) in [
        ("github:o/n:issue:1", "Synthetic item 1"),
        ("github-ghe:o/n:issue:1", "Seen on the enterprise server"),
    ] {
        let (status, body) = crate::serve::get(served.port, &format!("/api/signals/{id}/history"));
        assert_eq!(status, 200, "{id}: {body:#}");
        assert_eq!(body["id"], id);
        assert_eq!(body["title"], title, "{body:#}");
    }
    let (status, body) = crate::serve::get(served.port, "/api/repos/g/n-ghe/signals?q=enterprise");
    assert_eq!(status, 200, "{body:#}");
    assert_eq!(
        body["signals"][0]["id"], "github-ghe:o/n:issue:1",
        "{body:#}"
    );
}
