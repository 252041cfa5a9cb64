//! Everyday use from cron: a configuration in another folder,
//! failures that concern every repository (a refused token, an unreachable
//! host) stopping the run at once, `--quiet`, the short configuration form
//! and pasted URLs, `signals repos` keeping or purging history, and host
//! values that must never make export write a document `validate` rejects.

use std::net::TcpListener;
use std::path::Path;
use std::time::{Duration, Instant};

use jiff::{SignedDuration, Timestamp};
use serde_json::{Value, json};
use signals_store::Reads;
use signals_store_sqlite::Store;
use signals_testhost::{Fault, Scenario, TestHost};

use crate::support::{TempDir, config, read_json, run, show};

const INSTANT1: &str = include_str!("../../demo/instant1.json");
const GITHUB3: &str = "sigmavirus24/github3.py";
const BETAMAX: &str = "betamaxpy/betamax";

fn recorded() -> Scenario {
    Scenario::parse(INSTANT1.as_bytes()).expect("the bundled demo data parses")
}

fn stdout(out: &std::process::Output) -> String {
    String::from_utf8_lossy(&out.stdout).into_owned()
}

fn stderr(out: &std::process::Output) -> String {
    String::from_utf8_lossy(&out.stderr).into_owned()
}

/// Runs of each repository in the store, by `owner/name`.
fn stored_runs(store: &Path) -> Vec<(String, u64)> {
    let store = Store::open(store).unwrap();
    store
        .repositories()
        .unwrap()
        .into_iter()
        .map(|s| (s.repo.repo.to_string(), s.run_count))
        .collect()
}

#[test]
fn config_in_another_folder_keeps_one_store() {
    let host = TestHost::start(recorded()).unwrap();
    let dir = TempDir::new("elsewhere");
    let conf = dir.path().join("srv").join("signals");
    std::fs::create_dir_all(&conf).unwrap();
    std::fs::write(
        conf.join("signals.toml"),
        config(host.base_url(), &[GITHUB3], ""),
    )
    .unwrap();
    let cwd = dir.path().join("cron-home");
    std::fs::create_dir_all(&cwd).unwrap();
    let conf_file = conf.join("signals.toml");
    let conf_arg = conf_file.to_str().unwrap();

    for _ in 0..2 {
        let out = run(&cwd, &["--config", conf_arg, "collect"], &[]);
        assert_eq!(out.status.code(), Some(0), "{}", show(&out));
        // The summary names the store it wrote to.
        assert!(
            stdout(&out).contains(&format!("store {}", conf.join("signals.db").display())),
            "{}",
            show(&out)
        );
    }
    assert!(conf.join("signals.db").exists());
    assert!(
        !cwd.join("signals.db").exists(),
        "no store in the working folder"
    );
    assert_eq!(
        stored_runs(&conf.join("signals.db")),
        vec![(GITHUB3.to_string(), 2)]
    );

    let out = run(&cwd, &["--config", conf_arg, "export"], &[]);
    assert_eq!(out.status.code(), Some(0), "{}", show(&out));
    assert!(conf.join("site/g/github3-py/dataset.json").exists());
    assert!(!cwd.join("site").exists());
}

#[test]
fn a_refused_token_stops_at_once_naming_the_variable() {
    let host = TestHost::start(recorded()).unwrap();
    let dir = TempDir::new("401");
    std::fs::write(
        dir.path().join("signals.toml"),
        config(host.base_url(), &[GITHUB3, BETAMAX, "a/missing"], ""),
    )
    .unwrap();
    host.inject(Fault::Status(401));
    let out = run(
        dir.path(),
        &["collect"],
        &[("GITHUB_TOKEN", "ghp_bad_token_value")],
    );
    assert_eq!(out.status.code(), Some(5), "{}", show(&out));
    let err = stderr(&out);
    assert!(err.contains("GITHUB_TOKEN"), "{err}");
    assert!(err.contains("401"), "{err}");
    assert!(!err.contains("ghp_bad_token_value"), "{err}");
    // Said once, not once per repository (the status with its reason, so a
    // port number holding "401" does not count).
    assert_eq!(err.matches("401 Unauthorized").count(), 1, "{err}");
    assert!(stdout(&out).contains("3 not collected"), "{}", show(&out));
    // One request in all: the first repository's first.
    assert_eq!(host.requests().len(), 1);
}

#[test]
fn an_unreachable_host_stops_after_the_first_repositorys_retries() {
    // A port that was just free: connections are refused.
    let url = {
        let l = TcpListener::bind("127.0.0.1:0").unwrap();
        format!("http://{}", l.local_addr().unwrap())
    };
    let repos: Vec<String> = (0..20).map(|i| format!("o/r{i}")).collect();
    let repos: Vec<&str> = repos.iter().map(String::as_str).collect();
    let dir = TempDir::new("unreachable");
    // max_retries = 2 (support::config): 1 s + 2 s of backoff, with up to
    // 50% jitter, so one repository takes at most 4.5 s; twenty would take
    // a minute and more without the stop.
    std::fs::write(dir.path().join("signals.toml"), config(&url, &repos, "")).unwrap();
    let started = Instant::now();
    let out = run(dir.path(), &["collect"], &[]);
    let took = started.elapsed();
    assert_eq!(out.status.code(), Some(6), "{}", show(&out));
    assert!(took < Duration::from_secs(15), "took {took:?}");
    let err = stderr(&out);
    assert!(err.contains(&url), "{err}");
    assert!(err.contains("api_url"), "{err}");
    assert!(stdout(&out).contains("20 not collected"), "{}", show(&out));
}

#[test]
fn quiet_prints_only_when_something_failed() {
    let host = TestHost::start(recorded()).unwrap();
    let dir = TempDir::new("quiet");
    std::fs::write(
        dir.path().join("signals.toml"),
        config(host.base_url(), &[GITHUB3], ""),
    )
    .unwrap();
    let out = run(dir.path(), &["collect", "--quiet"], &[]);
    assert_eq!(out.status.code(), Some(0), "{}", show(&out));
    assert_eq!(stdout(&out), "", "{}", show(&out));
    assert_eq!(stderr(&out), "", "{}", show(&out));
    let out = run(dir.path(), &["export", "--quiet"], &[]);
    assert_eq!(out.status.code(), Some(0), "{}", show(&out));
    assert_eq!(stdout(&out), "", "{}", show(&out));

    // Without --quiet the line says what changed.
    let out = run(dir.path(), &["collect"], &[]);
    assert!(
        stdout(&out).starts_with("0 new, 0 changed in 1 of 1 repositories"),
        "{}",
        show(&out)
    );

    // A failure is reported, on both streams.
    std::fs::write(
        dir.path().join("signals.toml"),
        config(host.base_url(), &[GITHUB3, "a/missing"], ""),
    )
    .unwrap();
    let out = run(dir.path(), &["collect", "-q"], &[]);
    assert_eq!(out.status.code(), Some(3), "{}", show(&out));
    assert!(stdout(&out).contains("1 failed"), "{}", show(&out));
    assert!(stderr(&out).contains("a/missing"), "{}", show(&out));
}

#[test]
fn first_run_counts_new_items() {
    let host = TestHost::start(recorded()).unwrap();
    let dir = TempDir::new("counts");
    std::fs::write(
        dir.path().join("signals.toml"),
        config(host.base_url(), &[GITHUB3, BETAMAX], ""),
    )
    .unwrap();
    let out = run(dir.path(), &["collect", "--json"], &[]);
    assert_eq!(out.status.code(), Some(0), "{}", show(&out));
    let summary: Value = serde_json::from_slice(&out.stdout).unwrap();
    let per_repo: u64 = summary["repositories"]
        .as_array()
        .unwrap()
        .iter()
        .map(|r| r["newCount"].as_u64().unwrap())
        .sum();
    // 11 + 1 github3.py signals, betamax's 150 but its 64 closed pull
    // requests of unknown merge state.
    assert!(per_repo > 90, "{summary:#}");
    assert_eq!(summary["newCount"], per_repo);
    assert_eq!(summary["changedCount"], 0);
}

#[test]
fn short_form_and_pasted_urls_collect() {
    let host = TestHost::start(recorded()).unwrap();
    let dir = TempDir::new("short");
    let text = format!(
        "backfill_days = 36500\n[host]\napi_url = \"{}\"\n\n[[groups]]\nid = \"g\"\nname = \"G\"\nrepos = [\"https://github.com/{GITHUB3}/issues?q=x\", \"{BETAMAX}\"]\n",
        host.base_url()
    );
    std::fs::write(dir.path().join("signals.toml"), text).unwrap();
    let out = run(dir.path(), &["collect"], &[]);
    assert_eq!(out.status.code(), Some(0), "{}", show(&out));
    let out = run(dir.path(), &["export"], &[]);
    assert_eq!(out.status.code(), Some(0), "{}", show(&out));
    let doc = read_json(&dir.path().join("site/g/github3-py/dataset.json"));
    assert_eq!(doc["dataset"]["repository"]["repo"], GITHUB3);
    assert_eq!(doc["dataset"]["repository"]["name"], "github3.py");
    assert!(dir.path().join("site/g/betamax/dataset.json").exists());
}

#[test]
fn repos_remove_keeps_history_unless_purged() {
    let host = TestHost::start(recorded()).unwrap();
    let dir = TempDir::new("repos");
    std::fs::write(
        dir.path().join("signals.toml"),
        config(host.base_url(), &[GITHUB3], ""),
    )
    .unwrap();
    // Added from a pasted URL of the configured host, to the only group.
    let out = run(
        dir.path(),
        &["repos", "add", &format!("{}/{BETAMAX}", host.base_url())],
        &[],
    );
    assert_eq!(out.status.code(), Some(0), "{}", show(&out));
    let out = run(dir.path(), &["collect"], &[]);
    assert_eq!(out.status.code(), Some(0), "{}", show(&out));
    let store = dir.path().join("signals.db");
    assert_eq!(stored_runs(&store).len(), 2);

    let out = run(dir.path(), &["repos", "remove", BETAMAX], &[]);
    assert_eq!(out.status.code(), Some(0), "{}", show(&out));
    let text = std::fs::read_to_string(dir.path().join("signals.toml")).unwrap();
    assert!(!text.contains(BETAMAX), "{text}");
    assert!(text.contains(GITHUB3), "{text}");
    let out = run(dir.path(), &["collect"], &[]);
    assert_eq!(out.status.code(), Some(0), "{}", show(&out));
    assert!(
        stdout(&out).contains("in 1 of 1 repositories"),
        "{}",
        show(&out)
    );
    // Its history is still there, and still published.
    let runs = stored_runs(&store);
    assert!(runs.contains(&(BETAMAX.to_string(), 1)), "{runs:?}");
    assert!(runs.contains(&(GITHUB3.to_string(), 2)), "{runs:?}");
    let out = run(dir.path(), &["repos", "list"], &[]);
    assert!(stdout(&out).contains("in the store only"), "{}", show(&out));
    assert!(stdout(&out).contains(BETAMAX), "{}", show(&out));

    // Removing what is not tracked says so.
    let out = run(dir.path(), &["repos", "remove", BETAMAX], &[]);
    assert_eq!(out.status.code(), Some(1), "{}", show(&out));

    // --purge deletes the history, from the store beside the config file
    // even when run from another folder.
    let elsewhere = dir.path().join("elsewhere");
    std::fs::create_dir_all(&elsewhere).unwrap();
    let conf = dir.path().join("signals.toml");
    let out = run(
        &elsewhere,
        &[
            "--config",
            conf.to_str().unwrap(),
            "repos",
            "remove",
            GITHUB3,
            "--purge",
        ],
        &[],
    );
    assert_eq!(out.status.code(), Some(0), "{}", show(&out));
    let runs = stored_runs(&store);
    assert_eq!(runs, vec![(BETAMAX.to_string(), 1)]);
}

/// Hostile values in every field the client reads: URLs that are not
/// http(s), markup, control characters, empty strings, wrong-signed and
/// huge counts, years outside 0000..9999, a release without a tag.
fn hostile_scenario(now: Timestamp) -> Scenario {
    let at = |h: i64| {
        format!(
            "{:.0}",
            Timestamp::from_second((now - SignedDuration::from_hours(h)).as_second()).unwrap()
        )
    };
    let nasty = "</title><script>alert(1)</script>\u{0}\u{7}\u{202e}\"'&";
    let user = json!({ "login": "\"><svg onload=alert(1)>" });
    let issue = |number: u64, pr: bool| {
        let mut v = json!({
            "number": number,
            "title": nasty,
            "body": "[x](javascript:alert(1)) <img src=x onerror=alert(1)>\n- item",
            "html_url": "javascript:alert(document.domain)",
            "user": user,
            "labels": [{ "name": "<b>bug</b>" }, { "name": "" }, { "name": nasty }],
            "state": "open",
            "assignees": [{ "login": "javascript:alert(1)" }, { "login": "" }],
            "comments": -3,
            "created_at": "-001000-01-01T00:00:00Z",
            "updated_at": at(1),
            "reactions": { "total_count": -1 },
        });
        if pr {
            v["pull_request"] = json!({ "merged_at": "9999-12-31T23:59:59Z" });
            v["draft"] = Value::Null;
            v["html_url"] = json!(" https://github.com/x y");
        }
        v
    };
    let data = json!({
        "repos": { "evil/repo": {
            "repo": {
                "id": 666, "full_name": "../../etc passwd",
                "html_url": "javascript:alert(1)",
                "description": nasty, "homepage": "javascript:alert(document.domain)",
                "language": "\u{202e}", "topics": ["<b>", ""], "default_branch": "",
                "stargazers_count": -5, "forks_count": 1.5e300, "open_issues_count": null,
                "archived": true, "license": { "spdx_id": "<x>" }
            },
            "releases": [
                { "tag_name": "v1 <script>", "name": "\u{0}", "body": "- <b>x</b>\n- [y](javascript:1)",
                  "html_url": "data:text/html,x", "draft": false, "prerelease": false,
                  "created_at": "9999-12-31T23:59:59Z", "published_at": at(2),
                  "author": user, "reactions": { "total_count": -9 } },
                { "tag_name": "", "name": "no tag", "html_url": "https://x", "draft": false,
                  "prerelease": true, "created_at": at(3), "published_at": at(3) },
                { "tag_name": "v0", "html_url": "vbscript:x", "draft": false, "prerelease": false,
                  "created_at": "-000100-01-01T00:00:00Z", "published_at": "-000100-01-01T00:00:00Z" }
            ],
            "milestones": [
                { "title": nasty, "html_url": "javascript:x", "description": "\u{7}",
                  "open_issues": -1, "closed_issues": 1e20, "state": "open",
                  "due_on": "-000001-01-01T00:00:00Z", "updated_at": "9999-12-31T23:59:59Z" },
                { "title": null, "html_url": null, "description": null, "state": "open" }
            ],
            "issues": [issue(1, false), issue(2, true)]
        }}
    });
    serde_json::from_value(data).unwrap()
}

#[test]
fn hostile_host_values_still_export_valid_documents() {
    let host = TestHost::start(hostile_scenario(Timestamp::now())).unwrap();
    let dir = TempDir::new("hostile");
    std::fs::write(
        dir.path().join("signals.toml"),
        config(host.base_url(), &["evil/repo"], ""),
    )
    .unwrap();
    let out = run(dir.path(), &["collect"], &[]);
    assert_eq!(out.status.code(), Some(0), "{}", show(&out));
    let out = run(dir.path(), &["export"], &[]);
    assert_eq!(out.status.code(), Some(0), "{}", show(&out));
    let path = dir.path().join("site/g/repo/dataset.json");
    let out = run(dir.path(), &["validate", path.to_str().unwrap()], &[]);
    assert_eq!(out.status.code(), Some(0), "{}", show(&out));
    let doc = read_json(&path);
    let d = &doc["dataset"];
    assert_eq!(d["context"]["homepage"], "");
    assert_eq!(d["context"]["url"], "https://github.com/evil/repo");
    assert_eq!(d["context"]["repository"], "evil/repo");
    assert_eq!(d["context"]["stars"], 0);
    let signals = d["signals"].as_array().unwrap();
    assert_eq!(
        signals.len(),
        3,
        "two items and the tagged release: {signals:#?}"
    );
    for s in signals {
        assert!(s["url"].as_str().unwrap().starts_with("https://"), "{s:#}");
    }
    assert_eq!(d["news"]["upcoming"].as_array().unwrap().len(), 2);
    // The pages and the feed never link a javascript: URL nor carry the
    // markup unescaped (the JSON document holds the text as data).
    // The history pages too.
    let pages = std::fs::read_dir(dir.path().join("site/g/repo"))
        .unwrap()
        .chain(std::fs::read_dir(dir.path().join("site/g/repo/history")).unwrap());
    for entry in pages {
        let path = entry.unwrap().path();
        if path.extension().is_some_and(|e| e == "json") || path.is_dir() {
            continue;
        }
        let text = std::fs::read_to_string(&path).unwrap();
        for bad in [
            "href=\"javascript:",
            "href=\"data:",
            "href=\"vbscript:",
            "<script>alert",
        ] {
            assert!(!text.contains(bad), "{} holds {bad}", path.display());
        }
        // XML 1.0 (the feed) and HTML forbid C0 controls but tab and newlines.
        assert!(
            !text
                .chars()
                .any(|c| c.is_control() && !matches!(c, '\t' | '\n' | '\r')),
            "{} holds a control character",
            path.display()
        );
    }
}

/// Regression: with exactly two full pages in the window, a
/// third run after a new item saw both pages answer 304 with the cached
/// `Link` (no next page), and the new item was missed run after run.
#[test]
fn issue_11_a_full_last_page_answered_304_does_not_hide_new_items() {
    let start = Timestamp::now() - SignedDuration::from_hours(10);
    let mut scenario = signals_testhost::synthetic("o/full", 200, start);
    let host = TestHost::start(scenario.clone()).unwrap();
    let dir = TempDir::new("fullpage");
    std::fs::write(
        dir.path().join("signals.toml"),
        config(host.base_url(), &["o/full"], ""),
    )
    .unwrap();
    let new_count = |dir: &Path| {
        let out = run(dir, &["collect", "--json"], &[]);
        assert_eq!(out.status.code(), Some(0), "{}", show(&out));
        let v: Value = serde_json::from_slice(&out.stdout).unwrap();
        (
            v["newCount"].as_u64().unwrap(),
            v["notModified"].as_u64().unwrap(),
        )
    };
    assert_eq!(new_count(dir.path()).0, 201, "200 items and a release");
    assert_eq!(new_count(dir.path()).0, 0);
    let more = signals_testhost::synthetic("o/full", 201, start);
    let mut extra = more.repos["o/full"].issues[200].clone();
    extra["updated_at"] = json!(format!(
        "{:.0}",
        Timestamp::from_second(Timestamp::now().as_second()).unwrap()
    ));
    scenario.repos.get_mut("o/full").unwrap().issues.push(extra);
    host.set_scenario(scenario);
    let (new, not_modified) = new_count(dir.path());
    assert_eq!(new, 1, "the new item on a third page is seen");
    assert!(not_modified >= 2, "the unchanged pages still answer 304");
}

#[test]
fn completions_and_man_page_come_from_the_command_line() {
    let dir = TempDir::new("completions");
    for shell in ["bash", "zsh", "fish"] {
        let out = run(dir.path(), &["completions", shell], &[]);
        assert_eq!(out.status.code(), Some(0), "{}", show(&out));
        let text = stdout(&out);
        for word in ["collect", "repos", "quiet", "purge"] {
            assert!(text.contains(word), "{shell} lacks {word}");
        }
    }
    let out = run(dir.path(), &["man"], &[]);
    assert_eq!(out.status.code(), Some(0), "{}", show(&out));
    let man = stdout(&out);
    assert!(man.contains(".TH signals 1"), "{man}");
    for word in [
        "EXIT STATUS",
        "SIGNALS REPOS REMOVE",
        "\\-\\-purge",
        "\\-\\-quiet",
    ] {
        assert!(man.contains(word), "the man page lacks {word}");
    }
}

#[test]
fn base_url_makes_feed_links_absolute() {
    let host = TestHost::start(recorded()).unwrap();
    let dir = TempDir::new("base-url");
    std::fs::write(
        dir.path().join("signals.toml"),
        config(
            host.base_url(),
            &[GITHUB3],
            "base_url = \"https://signals.example.org/s\"",
        ),
    )
    .unwrap();
    let out = run(dir.path(), &["collect", "-q"], &[]);
    assert_eq!(out.status.code(), Some(0), "{}", show(&out));
    let out = run(dir.path(), &["export", "-q"], &[]);
    assert_eq!(out.status.code(), Some(0), "{}", show(&out));
    let feed = std::fs::read_to_string(dir.path().join("site/g/github3-py/feed.atom")).unwrap();
    assert!(feed.contains(
        "<link rel=\"alternate\" type=\"text/html\" href=\"https://signals.example.org/s/g/github3-py/index.html\"/>"
    ), "{feed}");
    assert!(feed.contains(
        "<link rel=\"self\" type=\"application/atom+xml\" href=\"https://signals.example.org/s/g/github3-py/feed.atom\"/>"
    ));
    let site = std::fs::read_to_string(dir.path().join("site/feed.atom")).unwrap();
    assert!(
        site.contains("href=\"https://signals.example.org/s/feed.atom\""),
        "{site}"
    );
    assert!(site.matches("<entry>").count() > 5);
    // Pages keep relative links, so the folder can be served anywhere.
    let page = std::fs::read_to_string(dir.path().join("site/g/github3-py/index.html")).unwrap();
    assert!(!page.contains("signals.example.org"));
}
