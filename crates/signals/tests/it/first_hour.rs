//! A newcomer's first hour: each step a new user takes
//! from a fresh clone, checked so that none fails or misleads again.

use std::fs;
use std::path::{Path, PathBuf};

fn root() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("../..")
}

/// Every `.rs` file below `dir`, skipping build output and hidden folders.
fn rust_files(dir: &Path, out: &mut Vec<PathBuf>) {
    let Ok(entries) = fs::read_dir(dir) else {
        return;
    };
    for path in entries.flatten().map(|e| e.path()) {
        let name = path.file_name().and_then(|n| n.to_str()).unwrap_or("");
        if name.starts_with('.') || name == "target" {
            continue;
        }
        if path.is_dir() {
            rust_files(&path, out);
        } else if name.ends_with(".rs") {
            out.push(path);
        }
    }
}

/// The `eprintln!` calls of `text` that write a skip notice: the test
/// harness captures `eprintln!`, so such a notice never shows when the
/// test passes. Returns the 1-based line of each.
fn skip_notices_by_eprintln(text: &str) -> Vec<usize> {
    let mut found = Vec::new();
    let macro_call = format!("{}!(", "eprintln");
    for (at, _) in text.match_indices(&macro_call) {
        let call = &text[at..];
        let end = call.find(");").unwrap_or(call.len());
        let call = call[..end].to_lowercase();
        if call.contains("skip") || call.contains("not installed") || call.contains("not found") {
            found.push(text[..at].lines().count().max(1));
        }
    }
    found
}

#[test]
fn issue_30_skip_notices_are_written_to_stderr_not_through_eprintln() {
    let mut files = Vec::new();
    for dir in ["crates", "fuzz"] {
        rust_files(&root().join(dir), &mut files);
    }
    assert!(files.len() > 50, "{} files", files.len());
    let mut offenders = Vec::new();
    for path in files {
        let text = fs::read_to_string(&path).unwrap();
        for line in skip_notices_by_eprintln(&text) {
            offenders.push(format!("{}:{line}", path.display()));
        }
    }
    assert!(
        offenders.is_empty(),
        "skip notices through eprintln! (captured by the test harness; write them with \
         `writeln!(std::io::stderr(), ...)`): {offenders:#?}"
    );
    // The scanner sees a notice, and only a notice (the macro's name is
    // built here, so this file is not one of its finds).
    let call = format!("{}!(", "eprintln");
    assert_eq!(
        skip_notices_by_eprintln(&format!(
            "x\n    {call}\n  \"skipping: no PostgreSQL\"\n);\n"
        )),
        vec![2]
    );
    assert!(skip_notices_by_eprintln(&format!("{call}\"{{kills}} kills\");")).is_empty());
}

/// A store where repository `o/r0` is tracked in two groups, `a` and `b`
/// (one run in each), as the demo tracks github3.py twice.
fn store_in_two_groups(dir: &Path) {
    use crate::synth;
    use signals_store::RunWrites;
    let mut store = signals_store_sqlite::Store::open(dir.join("signals.db")).unwrap();
    let at: jiff::Timestamp = "2026-11-20T10:00:00Z".parse().unwrap();
    for (id, name) in [("a", "Group A"), ("b", "Group B")] {
        let group = signals_core::Group {
            id: id.into(),
            name: name.into(),
        };
        let key = store.ensure_repository(&group, &synth::tracked(0)).unwrap();
        let items = (1..=3).map(|k| synth::item(0, k, 100, at)).collect();
        synth::commit(&mut store, key, 0, at, items);
        // Judged after its run, as a collection does.
        use signals_core::lifecycle::{Facts, Thresholds, judge, verdict::Record};
        use signals_store::LifecycleStore;
        let judged = judge(&Facts::default(), &Thresholds::default(), at);
        let record = Record::after(None, judged, at, Default::default(), None);
        store.record_lifecycle(key, at, &record, &[]).unwrap();
    }
}

#[test]
fn issue_30_a_history_names_the_group_it_was_reached_from_or_none() {
    let dir = crate::support::TempDir::new("first-hour-history");
    store_in_two_groups(dir.path());
    let served = crate::serve::serve_with(dir.path(), &[], &[]);
    let p = served.port;
    for group in ["a", "b"] {
        let (status, list) = crate::serve::get(p, &format!("/api/repos/{group}/r0/signals"));
        assert_eq!(status, 200, "{list}");
        let (status, trail) = crate::serve::get(p, &format!("/api/repos/{group}/r0/trail"));
        assert_eq!(status, 200, "{trail}");
        // The trail's first event with a history: a lifecycle event has
        // none (docs/api.md).
        let event = trail["events"]
            .as_array()
            .unwrap()
            .iter()
            .find(|e| !e["history"].is_null())
            .unwrap();
        for link in [&list["signals"][0]["history"], &event["history"]] {
            let (status, history) = crate::serve::get(p, link.as_str().unwrap());
            assert_eq!(status, 200, "{link}: {history}");
            assert_eq!(history["group"], group, "{link}: {history}");
            assert_eq!(history["repo"], "r0", "{history}");
        }
        // The history page under a group's folder names that group.
        let (status, page) =
            crate::serve::raw(p, "GET", &format!("/{group}/r0/history/issue-1.html"));
        assert_eq!(status, 200);
        let page = String::from_utf8_lossy(&page);
        let (mine, other) = if group == "a" {
            ("Group A", "Group B")
        } else {
            ("Group B", "Group A")
        };
        assert!(page.contains(mine) && !page.contains(other), "{page}");
    }
    // Reached from no group: it names none, and lists the groups that
    // hold the repository.
    let (status, history) = crate::serve::get(p, "/api/signals/github:o/r0:issue:1/history");
    assert_eq!(status, 200, "{history}");
    assert!(history["group"].is_null(), "{history}");
    assert_eq!(
        history["groups"].as_array().map(Vec::len),
        Some(2),
        "{history}"
    );
}

#[test]
fn issue_30_the_api_has_a_front_door_and_a_missing_page_is_html() {
    let dir = crate::support::TempDir::new("first-hour-front");
    store_in_two_groups(dir.path());
    let served = crate::serve::serve_with(dir.path(), &[], &[]);
    let p = served.port;
    for root in ["/api/", "/api"] {
        let (status, index) = crate::serve::get(p, root);
        assert_eq!(status, 200, "{root}: {index}");
        let endpoints = index["endpoints"].as_array().unwrap();
        assert_eq!(endpoints.len(), 8, "{index}");
        // Every endpoint it lists answers.
        for e in endpoints {
            let path = e["path"]
                .as_str()
                .unwrap()
                .replace("{group}", "b")
                .replace("{repo}", "r0")
                .replace("{id}", "github:o/r0:issue:1");
            let (status, body) = crate::serve::raw(p, "GET", &path);
            assert_eq!(status, 200, "{path}: {}", String::from_utf8_lossy(&body));
        }
    }
    // A missing page is an HTML page; a missing API path stays JSON.
    for missing in [
        "/nope.html",
        "/b/zz/index.html",
        "/b/r0/history/issue-99.html",
    ] {
        let (status, body) = crate::serve::raw(p, "GET", missing);
        assert_eq!(status, 404, "{missing}");
        let body = String::from_utf8_lossy(&body);
        assert!(body.starts_with("<!DOCTYPE html>"), "{missing}: {body}");
        assert!(
            body.contains("Page not found") && body.contains("href=\"/api/\""),
            "{body}"
        );
    }
    let (status, body) = crate::serve::get(p, "/api/nothing");
    assert_eq!(status, 404);
    assert!(body["error"].is_string(), "{body}");
}

#[test]
fn issue_30_notify_dry_run_says_when_there_are_no_rules() {
    let dir = crate::support::TempDir::new("first-hour-notify");
    store_in_two_groups(dir.path());
    std::fs::write(dir.path().join("signals.toml"), "store = \"signals.db\"\n").unwrap();
    let out = crate::support::run(dir.path(), &["notify", "--dry-run"], &[]);
    assert_eq!(out.status.code(), Some(0), "{}", crate::support::show(&out));
    let text = String::from_utf8_lossy(&out.stdout);
    assert!(
        text.contains("no [[notify]] rules"),
        "{}",
        crate::support::show(&out)
    );
}

/// The years (first, last) of the signals' `updatedAt` in the demo's
/// datasets under `site`.
fn dataset_years(site: &Path) -> (i16, i16) {
    let mut years = Vec::new();
    for group in fs::read_dir(site).unwrap().flatten() {
        for repo in fs::read_dir(group.path()).into_iter().flatten().flatten() {
            let doc = repo.path().join("dataset.json");
            if !doc.exists() {
                continue;
            }
            let d = crate::support::read_json(&doc);
            for s in d["dataset"]["signals"].as_array().unwrap() {
                let at: jiff::Timestamp = s["updatedAt"].as_str().unwrap().parse().unwrap();
                years.push(at.to_zoned(jiff::tz::TimeZone::UTC).year());
            }
        }
    }
    (*years.iter().min().unwrap(), *years.iter().max().unwrap())
}

#[test]
fn issue_30_the_demo_is_fresh_at_its_own_clock_and_says_how_to_go_on() {
    use crate::support::{run, show};
    let dir = crate::support::TempDir::new("first-hour-demo");
    let out = run(dir.path(), &["demo"], &[]);
    assert_eq!(out.status.code(), Some(0), "{}", show(&out));
    let text = String::from_utf8_lossy(&out.stdout);
    // It says plainly that its data are recordings, and of which years.
    let (first, last) = dataset_years(&dir.path().join("signals-demo/site"));
    assert_eq!((first, last), (2013, 2021));
    assert!(
        text.contains("recordings, not live")
            && text.contains(&format!("last updated {first} to {last}")),
        "{text}"
    );
    // The commands it prints run from a clone (the test's binary is
    // target/debug/signals), and say how to install.
    let config = "signals-demo/signals.toml";
    for command in [
        format!("cargo run -- --config {config} serve"),
        format!("cargo run -- --config {config} status"),
        "cargo install --path crates/signals".to_string(),
    ] {
        assert!(text.contains(&command), "{command:?} in {text}");
    }

    // `status` through its configuration: every repository fresh, and no
    // rate limit that reads as the user's own budget.
    let status = run(dir.path(), &["--config", config, "status"], &[]);
    assert_eq!(status.status.code(), Some(0), "{}", show(&status));
    let status_text = String::from_utf8_lossy(&status.stdout);
    assert!(!status_text.contains("stale"), "{status_text}");
    assert!(!status_text.contains("rate limit"), "{status_text}");
    let json = run(dir.path(), &["--config", config, "status", "--json"], &[]);
    let json: serde_json::Value = serde_json::from_slice(&json.stdout).unwrap();
    let repos = json["repositories"].as_array().unwrap();
    assert_eq!(repos.len(), 5, "{json:#}");
    for r in repos {
        assert_eq!(r["health"]["stale"], false, "{r:#}");
    }
    // Without the demo's clock the same store is years old: the clock is
    // what makes it fresh.
    let now = run(
        dir.path(),
        &["status", "--store", "signals-demo/signals.db"],
        &[],
    );
    assert!(
        String::from_utf8_lossy(&now.stdout).contains("stale"),
        "{}",
        show(&now)
    );

    // `serve` through it: fresh in the API and on every page.
    let served = crate::serve::serve_with(
        dir.path(),
        &["--config", config, "--store", "signals-demo/signals.db"],
        &[],
    );
    let (status, groups) = crate::serve::get(served.port, "/api/groups");
    assert_eq!(status, 200, "{groups}");
    let health: Vec<&serde_json::Value> = groups
        .as_array()
        .or_else(|| groups["groups"].as_array())
        .unwrap()
        .iter()
        .flat_map(|g| g["repositories"].as_array().unwrap())
        .map(|r| &r["health"])
        .collect();
    assert_eq!(health.len(), 5, "{groups:#}");
    assert!(health.iter().all(|h| h["stale"] == false), "{groups:#}");
    for page in [
        "/",
        "/python-github-tooling/index.html",
        "/python-github-tooling/betamax/index.html",
    ] {
        let (status, body) = crate::serve::raw(served.port, "GET", page);
        assert_eq!(status, 200, "{page}");
        assert!(
            !String::from_utf8_lossy(&body).contains("Stale data"),
            "{page}"
        );
    }
}

#[test]
fn issue_30_collect_refuses_a_configuration_with_a_clock() {
    let dir = crate::support::TempDir::new("first-hour-clock");
    fs::write(
        dir.path().join("signals.toml"),
        "clock = \"2021-11-02T00:00:00Z\"\n",
    )
    .unwrap();
    let out = crate::support::run(dir.path(), &["collect"], &[]);
    assert_eq!(out.status.code(), Some(1), "{}", crate::support::show(&out));
    let stderr = String::from_utf8_lossy(&out.stderr);
    assert!(stderr.contains("remove `clock`"), "{stderr}");
    // The demo's configuration lists no groups: removing `clock` alone
    // would not make it collect, and the refusal says so.
    assert!(stderr.contains("it lists no groups either"), "{stderr}");
    fs::write(dir.path().join("signals.toml"), "clock = \"yesterday\"\n").unwrap();
    let out = crate::support::run(dir.path(), &["status"], &[]);
    assert_eq!(out.status.code(), Some(1), "{}", crate::support::show(&out));
    assert!(
        String::from_utf8_lossy(&out.stderr).contains("signals.toml:1: clock = \"yesterday\""),
        "{}",
        crate::support::show(&out)
    );
}

#[test]
fn issue_30_a_configuration_with_several_problems_is_told_them_all_in_file_order() {
    let dir = crate::support::TempDir::new("first-hour-config");
    fs::write(
        dir.path().join("signals.toml"),
        "window_hours = 3\n\n[[groups]]\nid = \"Bad Id\"\nname = \"A\"\n\n[host]\ntokn = \"x\"\n",
    )
    .unwrap();
    let out = crate::support::run(dir.path(), &["status"], &[]);
    assert_eq!(out.status.code(), Some(1), "{}", crate::support::show(&out));
    let stderr = String::from_utf8_lossy(&out.stderr);
    let at = |needle: &str| {
        stderr
            .find(needle)
            .unwrap_or_else(|| panic!("{needle:?} in {stderr}"))
    };
    assert!(at("signals.toml:1: window_hours") < at("signals.toml:4: group id"));
    assert!(at("signals.toml:4: group id") < at("signals.toml:8: "));
    assert!(stderr.contains("(3 problems in signals.toml)"), "{stderr}");
}

#[test]
fn collect_without_groups_says_so_and_how_to_add_one() {
    use crate::support::{run, show};
    let dir = crate::support::TempDir::new("first-hour-no-groups");
    // The demo's configuration once `clock` is removed, as its refusal
    // tells: a store, and no groups.
    fs::write(dir.path().join("signals.toml"), "store = \"signals.db\"\n").unwrap();
    let out = run(dir.path(), &["collect"], &[]);
    assert_eq!(out.status.code(), Some(1), "{}", show(&out));
    let stderr = String::from_utf8_lossy(&out.stderr);
    assert!(
        stderr.contains("signals.toml has no groups")
            && stderr.contains("signals repos add OWNER/NAME --group ID --group-name NAME")
            && !stderr.contains("--repo"),
        "{stderr}"
    );
    // Through --config, the command it suggests names the file.
    let out = run(dir.path(), &["--config", "./signals.toml", "collect"], &[]);
    let stderr = String::from_utf8_lossy(&out.stderr);
    assert!(
        stderr.contains("signals --config ./signals.toml repos add"),
        "{stderr}"
    );
    // Groups that track nothing are told apart from a selection that
    // matches nothing.
    fs::write(
        dir.path().join("signals.toml"),
        "[[groups]]\nid = \"g\"\nname = \"G\"\n",
    )
    .unwrap();
    let out = run(dir.path(), &["collect"], &[]);
    let stderr = String::from_utf8_lossy(&out.stderr);
    assert!(
        stderr.contains("track no repository and no owner") && !stderr.contains("--repo"),
        "{stderr}"
    );
    let out = run(dir.path(), &["collect", "--group", "nope"], &[]);
    let stderr = String::from_utf8_lossy(&out.stderr);
    assert!(stderr.contains("check --group and --repo"), "{stderr}");
}

#[test]
fn status_after_a_stopped_collect_lists_every_repository_not_collected() {
    use crate::support::{run, show};
    let dir = crate::support::TempDir::new("first-hour-status-failed");
    // Nothing listens on the host's port: the first repository fails, and
    // the collect stops before the three others.
    let port = crate::serve::free_port();
    fs::write(
        dir.path().join("signals.toml"),
        format!(
            "[host]\napi_url = \"http://127.0.0.1:{port}\"\nmax_retries = 0\n\n\
             [[groups]]\nid = \"g\"\nname = \"G\"\nrepos = [\"o/a\", \"o/b\", \"o/c\", \"o/d\"]\n"
        ),
    )
    .unwrap();
    let out = run(dir.path(), &["collect"], &[]);
    assert_eq!(out.status.code(), Some(6), "{}", show(&out));
    assert!(
        String::from_utf8_lossy(&out.stdout).contains("4 not collected"),
        "{}",
        show(&out)
    );
    let out = run(dir.path(), &["status"], &[]);
    assert_eq!(out.status.code(), Some(0), "{}", show(&out));
    let text = String::from_utf8_lossy(&out.stdout);
    let api_url = format!("api_url = \"http://127.0.0.1:{port}\" of host \"github\"");
    for repo in ["a", "b", "c", "d"] {
        let row = text
            .lines()
            .position(|l| l.starts_with(&format!("g/{repo} ")))
            .unwrap_or_else(|| panic!("g/{repo} in {text}"));
        let row_text = text.lines().nth(row).unwrap();
        assert!(row_text.contains(" never "), "{text}");
        let note = text.lines().nth(row + 1).unwrap();
        assert!(
            note.starts_with("  never collected") && note.contains(&api_url),
            "{note}\n{text}"
        );
        if repo != "a" {
            assert!(
                note.contains("not tried") && note.contains("when g/a failed (transport)"),
                "{note}"
            );
        }
    }
    assert!(text.contains("4 of 4 repositories not collected"), "{text}");
    // Nothing says "stale" of what was never collected, nor "base URL"
    // (`base_url` is the site's address).
    assert!(
        !text.contains("stale") && !text.contains("base URL"),
        "{text}"
    );
    let json = run(dir.path(), &["status", "--json"], &[]);
    let json: serde_json::Value = serde_json::from_slice(&json.stdout).unwrap();
    assert_eq!(
        json["notTried"].as_array().map(Vec::len),
        Some(3),
        "{json:#}"
    );
    assert_eq!(
        json["repositories"][0]["lastFailure"]["check"],
        format!("the network, and {api_url}"),
        "{json:#}"
    );
}
