//! End to end: two `collect` runs against a loopback host serving recorded
//! GitHub responses, then `export`, then `validate`; asserts the signals, the
//! runs, the trail and the change markers.

use signals_store::Reads;
use signals_store::suite::WholeReads;
use std::collections::BTreeSet;

use jiff::{SignedDuration, Timestamp};
use serde_json::{Value, json};
use signals_testhost::{Scenario, TestHost};

use crate::support::{TempDir, config, read_json, run, show};

/// The recorded responses bundled for the demo (see demo/SOURCES.md).
const RECORDED: &str = include_str!("../../demo/instant1.json");

/// Every recorded file the demo serves from (demo/SOURCES.md): GitHub's,
/// gitlab.com's and gitea.com's.
const DEMO_RECORDED: [&str; 11] = [
    RECORDED,
    include_str!("../../demo/gitlab/project.json"),
    include_str!("../../demo/gitlab/issues.json"),
    include_str!("../../demo/gitlab/merge_request_2.json"),
    include_str!("../../demo/gitlab/milestones.json"),
    include_str!("../../demo/gitlab/releases.json"),
    include_str!("../../demo/gitea/repo.json"),
    include_str!("../../demo/gitea/issues.json"),
    include_str!("../../demo/gitea/pulls.json"),
    include_str!("../../demo/gitea/milestones.json"),
    include_str!("../../demo/gitea/releases.json"),
];

/// Every string value in a JSON document.
fn strings_of(v: &Value, out: &mut BTreeSet<String>) {
    match v {
        Value::String(s) => {
            out.insert(s.clone());
        }
        Value::Array(a) => a.iter().for_each(|v| strings_of(v, out)),
        Value::Object(o) => o.values().for_each(|v| strings_of(v, out)),
        _ => {}
    }
}

const BETAMAX: &str = "betamaxpy/betamax";
const GITHUB3: &str = "sigmavirus24/github3.py";

fn ts(at: Timestamp) -> String {
    format!("{:.0}", Timestamp::from_second(at.as_second()).unwrap())
}

/// Applies changes "a few minutes ago", as a second instant of the host.
fn second_instant(recorded: &Value, now: Timestamp) -> Value {
    let recent = ts(now - SignedDuration::from_mins(10));
    let newer = ts(now - SignedDuration::from_mins(5));
    let mut data = recorded.clone();
    let issues = data["repos"][BETAMAX]["issues"].as_array_mut().unwrap();
    // #150 gets a comment.
    let i150 = issues.iter_mut().find(|i| i["number"] == 150).unwrap();
    i150["comments"] = json!(i150["comments"].as_u64().unwrap() + 1);
    i150["updated_at"] = json!(recent);
    // The first open issue is closed.
    let open = issues
        .iter_mut()
        .find(|i| i["state"] == "open" && i.get("pull_request").is_none())
        .unwrap();
    open["state"] = json!("closed");
    open["updated_at"] = json!(recent);
    // A new issue.
    let mut new = issues.iter().find(|i| i["number"] == 150).unwrap().clone();
    new["number"] = json!(151);
    new["id"] = json!(900_000_151u64);
    new["title"] = json!("A new issue");
    new["html_url"] = json!("https://github.com/betamaxpy/betamax/issues/151");
    new["created_at"] = json!(newer);
    new["updated_at"] = json!(newer);
    new["comments"] = json!(0);
    new.as_object_mut().unwrap().remove("pull_request");
    issues.push(new);
    // A github3.py pull request is merged.
    let prs = data["repos"][GITHUB3]["issues"].as_array_mut().unwrap();
    let pr = prs.iter_mut().find(|i| i["number"] == 1033).unwrap();
    pr["state"] = json!("closed");
    pr["updated_at"] = json!(recent);
    pr["closed_at"] = json!(recent);
    pr["pull_request"]["merged_at"] = json!(recent);
    data
}

fn closed_issue_number(recorded: &Value) -> u64 {
    recorded["repos"][BETAMAX]["issues"]
        .as_array()
        .unwrap()
        .iter()
        .find(|i| i["state"] == "open" && i.get("pull_request").is_none())
        .unwrap()["number"]
        .as_u64()
        .unwrap()
}

#[test]
fn two_runs_export_and_validate() {
    let recorded: Value = serde_json::from_str(RECORDED).unwrap();
    let host = TestHost::start(Scenario::parse(RECORDED.as_bytes()).unwrap()).unwrap();
    let dir = TempDir::new("e2e");
    std::fs::write(
        dir.path().join("signals.toml"),
        config(host.base_url(), &[GITHUB3, BETAMAX], ""),
    )
    .unwrap();

    // Run 1: everything is discovered.
    let out = run(dir.path(), &["collect", "--json"], &[]);
    assert_eq!(out.status.code(), Some(0), "{}", show(&out));
    let summary: Value = serde_json::from_slice(&out.stdout).unwrap();
    // Per repository: repo, releases, advisories, milestones, then the
    // issue pages:
    // 150 betamax items fit in 2, and their 64 closed pull requests,
    // recorded in 2017 without `merged_at`, send one page of the closed
    // pulls list; betamax's recorded object has no `created_at`, so its
    // open pull requests are asked; 11 github3.py items in 1,
    // whose open pull requests are counted from the store; and each
    // repository's two comment lists and its commits per week (asked at
    // the day's first run).
    assert_eq!(
        summary["requests"],
        (4 + 2 + 1 + 1 + 2 + 1) + (4 + 1 + 2 + 1),
        "{summary}"
    );
    assert_eq!(summary["notModified"], 0);
    assert!(
        String::from_utf8_lossy(&out.stderr).contains("unauthenticated"),
        "{}",
        show(&out)
    );

    // Run 2: a comment, a closed issue, a new issue, a merged pull request.
    let now = Timestamp::now();
    let changed = second_instant(&recorded, now);
    host.set_scenario(Scenario::parse(&serde_json::to_vec(&changed).unwrap()).unwrap());
    host.clear_requests();
    let out = run(dir.path(), &["collect", "--json"], &[]);
    assert_eq!(out.status.code(), Some(0), "{}", show(&out));
    let summary: Value = serde_json::from_slice(&out.stdout).unwrap();
    // Per repository: repo, releases, advisories and milestones answer 304
    // (unchanged),
    // one issues page of recent items, and the two comment lists from the
    // window's day; github3.py's open pull requests are counted
    // from the store, betamax's asked.
    assert_eq!(summary["requests"], 15, "{summary}");
    assert_eq!(summary["notModified"], 8, "{summary}");
    assert_eq!(host.requests().len(), 15);
    for r in host.requests() {
        assert_eq!(
            r.header("accept"),
            Some("application/vnd.github+json"),
            "{}",
            r.path
        );
        assert!(r.header("x-github-api-version").is_some());
        assert!(
            r.header("user-agent")
                .is_some_and(|ua| ua.starts_with("repo-signals/"))
        );
        assert!(r.header("authorization").is_none());
    }

    let out = run(dir.path(), &["export"], &[]);
    assert_eq!(out.status.code(), Some(0), "{}", show(&out));
    let site = dir.path().join("site");
    let betamax_doc = site.join("g/betamax/dataset.json");
    let github3_doc = site.join("g/github3-py/dataset.json");
    let out = run(
        dir.path(),
        &[
            "validate",
            betamax_doc.to_str().unwrap(),
            github3_doc.to_str().unwrap(),
        ],
        &[],
    );
    assert_eq!(out.status.code(), Some(0), "{}", show(&out));

    // betamax: 150 recorded items + 1 new, but for the 64 closed pull
    // requests whose merge state nothing says: left out, not
    // reported as not merged.
    let doc = read_json(&betamax_doc);
    let d = &doc["dataset"];
    assert_eq!(doc["schemaVersion"], 3);
    assert_eq!(d["version"], 3);
    assert_eq!(d["repository"]["repo"], BETAMAX);
    let signals = d["signals"].as_array().unwrap();
    assert_eq!(signals.len(), 151 - 64);
    let ids: Vec<&str> = signals.iter().map(|s| s["id"].as_str().unwrap()).collect();
    let mut sorted = ids.clone();
    sorted.sort();
    assert_eq!(ids, sorted, "signals are ordered by id string");
    assert!(!ids.contains(&"github:betamaxpy/betamax:pull_request:50"));
    assert!(ids.contains(&"github:betamaxpy/betamax:issue:150"));
    let runs = d["runs"].as_array().unwrap();
    assert_eq!(runs.len(), 2);
    assert_eq!(
        (
            runs[0]["observedCount"].as_u64(),
            runs[0]["changedCount"].as_u64()
        ),
        (Some(86), Some(86))
    );
    assert_eq!(
        (
            runs[1]["observedCount"].as_u64(),
            runs[1]["changedCount"].as_u64()
        ),
        (Some(3), Some(3))
    );
    // The second run's window is exactly the 24 hours before it (the
    // previous run is more recent), whatever bound its request URL used.
    let at: Timestamp = runs[1]["collectedAt"].as_str().unwrap().parse().unwrap();
    let since: Timestamp = runs[1]["since"].as_str().unwrap().parse().unwrap();
    assert_eq!(at.duration_since(since), SignedDuration::from_hours(24));
    let issues_url = host
        .requests()
        .into_iter()
        .find(|r| r.path.contains("/repos/betamaxpy/betamax/issues"))
        .unwrap()
        .path;
    assert!(
        issues_url.contains("T00%3A00%3A00Z") || issues_url.contains("T00:00:00Z"),
        "{issues_url}"
    );
    assert_eq!(
        d["date"],
        now.to_zoned(jiff::tz::TimeZone::UTC).date().to_string()
    );
    let marked: BTreeSet<&str> = signals
        .iter()
        .filter(|s| s.get("change").is_some())
        .map(|s| s["id"].as_str().unwrap())
        .collect();
    let closed = format!(
        "github:betamaxpy/betamax:issue:{}",
        closed_issue_number(&recorded)
    );
    // The new issue #151 was discovered, not changed: no marker.
    assert_eq!(
        marked,
        BTreeSet::from(["github:betamaxpy/betamax:issue:150", closed.as_str()])
    );
    for s in signals.iter().filter(|s| s.get("change").is_some()) {
        assert_eq!(s["change"], "updated");
    }
    let s150 = signals
        .iter()
        .find(|s| s["id"] == "github:betamaxpy/betamax:issue:150")
        .unwrap();
    assert_eq!(s150["timestamp"], s150["updatedAt"]);
    assert_eq!(s150["metrics"]["comments"], 11);

    // github3.py: 11 pull requests and the 0.9.3 release.
    let doc = read_json(&github3_doc);
    let d = &doc["dataset"];
    let signals = d["signals"].as_array().unwrap();
    assert_eq!(signals.len(), 12);
    let pr = signals
        .iter()
        .find(|s| s["id"] == "github:sigmavirus24/github3.py:pull_request:1033")
        .unwrap();
    assert_eq!(
        (&pr["state"], &pr["merged"], &pr["change"]),
        (&json!("closed"), &json!(true), &json!("updated"))
    );
    let release = signals.iter().find(|s| s["kind"] == "release").unwrap();
    assert_eq!(
        release["id"],
        "github:sigmavirus24/github3.py:release:0.9.3"
    );
    assert_eq!(release["updatedAt"], release["publishedAt"]);
    assert_eq!(d["news"]["latestRelease"]["tag"], "0.9.3");
    assert_eq!(d["news"]["upcoming"].as_array().unwrap().len(), 6);
    assert_eq!(d["context"]["stars"], 1064);

    // The trail, from the store: discovered events of run 1, then the
    // changes of run 2 with their field names in the fixed order.
    let store = signals_store_sqlite::Store::open(dir.path().join("signals.db")).unwrap();
    let key = store
        .repositories()
        .unwrap()
        .into_iter()
        .find(|r| r.repo.repo.to_string() == BETAMAX)
        .unwrap()
        .key;
    let view = store.repository_view(key).unwrap().unwrap();
    assert_eq!(view.event_count, 89);
    assert_eq!(view.trail.len(), 89);
    let details: Vec<(&str, &str, &str)> = view.trail[86..]
        .iter()
        .map(|e| (e.item_id.as_str(), e.kind.as_str(), e.detail.as_str()))
        .collect();
    let mut want = vec![
        (
            "github:betamaxpy/betamax:issue:150",
            "changed",
            "metrics, updatedAt",
        ),
        (closed.as_str(), "changed", "state, updatedAt"),
        (
            "github:betamaxpy/betamax:issue:151",
            "discovered",
            "initial snapshot",
        ),
    ];
    want.sort();
    assert_eq!(details, want);
    assert!(
        view.trail[..86]
            .iter()
            .all(|e| e.detail == "initial snapshot")
    );

    // The page shows the header line the spec describes.
    let page = std::fs::read_to_string(site.join("g/betamax/index.html")).unwrap();
    assert!(
        page.contains("87 signals · 89 observation events"),
        "header line missing"
    );
    assert!(page.contains("50 shown"));

    // status lists both repositories with their last run.
    let out = run(dir.path(), &["status"], &[]);
    assert_eq!(out.status.code(), Some(0), "{}", show(&out));
    let text = String::from_utf8_lossy(&out.stdout);
    assert!(
        text.contains("g/betamax") && text.contains("g/github3-py"),
        "{text}"
    );
}

#[test]
fn a_second_run_with_nothing_new_records_no_event_and_is_all_304() {
    let host = TestHost::start(Scenario::parse(RECORDED.as_bytes()).unwrap()).unwrap();
    let dir = TempDir::new("e2e-quiet");
    std::fs::write(
        dir.path().join("signals.toml"),
        config(host.base_url(), &[GITHUB3], ""),
    )
    .unwrap();
    let first = run(dir.path(), &["collect", "--json"], &[]);
    assert_eq!(first.status.code(), Some(0), "{}", show(&first));
    let second = run(dir.path(), &["collect", "--json"], &[]);
    assert_eq!(second.status.code(), Some(0), "{}", show(&second));
    let summary: Value = serde_json::from_slice(&second.stdout).unwrap();
    assert_eq!(summary["repositories"][0]["changedCount"], 0, "{summary}");
    assert_eq!(summary["repositories"][0]["observedCount"], 0, "{summary}");
    // A third run on the same day sends the same URLs and all are 304: the
    // lists answered as before, so the count of open pull requests kept
    // with them stands, unasked. Nothing is spent of the rate limit.
    let third = run(dir.path(), &["collect", "--json"], &[]);
    let summary: Value = serde_json::from_slice(&third.stdout).unwrap();
    assert_eq!(
        (
            summary["requests"].as_u64(),
            summary["notModified"].as_u64()
        ),
        (Some(7), Some(7)),
        "{summary}"
    );
    assert_eq!(summary["bytesReceived"], 0, "{summary}");
}

#[test]
fn bad_config_names_file_line_and_key() {
    let dir = TempDir::new("e2e-config");
    std::fs::write(
        dir.path().join("signals.toml"),
        "store = \"x.db\"\n[host]\napi_urll = \"https://x\"\n",
    )
    .unwrap();
    let out = run(dir.path(), &["collect"], &[]);
    assert_eq!(out.status.code(), Some(1), "{}", show(&out));
    let err = String::from_utf8_lossy(&out.stderr);
    assert!(
        err.contains("signals.toml:3") && err.contains("api_urll"),
        "{err}"
    );
}

#[test]
fn init_writes_a_config_that_parses() {
    let dir = TempDir::new("e2e-init");
    let out = run(dir.path(), &["init"], &[]);
    assert_eq!(out.status.code(), Some(0), "{}", show(&out));
    // Refuses to overwrite.
    let out = run(dir.path(), &["init"], &[]);
    assert_eq!(out.status.code(), Some(1), "{}", show(&out));
    // `status` on a fresh config explains there is no store yet.
    let out = run(dir.path(), &["status"], &[]);
    assert_eq!(out.status.code(), Some(1));
    assert!(
        String::from_utf8_lossy(&out.stderr).contains("signals collect"),
        "{}",
        show(&out)
    );
}

#[test]
fn validate_reports_pointers_and_fails() {
    let dir = TempDir::new("e2e-validate");
    let bad = dir.path().join("bad.json");
    std::fs::write(&bad, r#"{"schemaVersion": 3, "dataset": {"version": 3}}"#).unwrap();
    let out = run(dir.path(), &["validate", bad.to_str().unwrap()], &[]);
    assert_eq!(out.status.code(), Some(1), "{}", show(&out));
    assert!(
        String::from_utf8_lossy(&out.stdout).contains("/dataset"),
        "{}",
        show(&out)
    );
}

#[test]
fn demo_runs_offline_and_its_datasets_validate() {
    let dir = TempDir::new("e2e-demo");
    let out = run(dir.path(), &["demo", "--out", "demo"], &[]);
    assert_eq!(out.status.code(), Some(0), "{}", show(&out));
    let text = String::from_utf8_lossy(&out.stdout);
    assert!(text.contains("index.html"), "{text}");
    let docs: Vec<_> = [
        "demo/site/python-github-tooling/github3-py/dataset.json",
        "demo/site/python-github-tooling/betamax/dataset.json",
        "demo/site/one-theme-three-hosts/github3-py/dataset.json",
        "demo/site/one-theme-three-hosts/test-repo-gitlab/dataset.json",
        "demo/site/one-theme-three-hosts/test-repo-gitea/dataset.json",
    ]
    .iter()
    .map(|p| dir.path().join(p))
    .collect();
    let args: Vec<&str> = std::iter::once("validate")
        .chain(docs.iter().map(|p| p.to_str().unwrap()))
        .collect();
    let out = run(dir.path(), &args, &[]);
    assert_eq!(out.status.code(), Some(0), "{}", show(&out));
    let d = read_json(&docs[1]);
    let kinds: BTreeSet<&str> = d["dataset"]["signals"]
        .as_array()
        .unwrap()
        .iter()
        .filter_map(|s| s.get("change").and_then(Value::as_str))
        .collect();
    assert_eq!(kinds, BTreeSet::from(["updated"]));
    // One group, three hosts: each dataset's signals carry their host's
    // source and ids, two of them changed in the second run, and the page
    // names the host on every card.
    for (doc, source, project) in [
        (&docs[2], "github", "sigmavirus24/github3.py"),
        (&docs[3], "gitlab", "gitea/test_repo"),
        (&docs[4], "forgejo", "gitea/test_repo"),
    ] {
        let d = read_json(doc);
        let signals = d["dataset"]["signals"].as_array().unwrap();
        assert!(!signals.is_empty());
        let prefix = format!("{source}:{project}:");
        assert!(signals.iter().all(|s| s["source"] == source
            && s["project"] == project
            && s["id"].as_str().unwrap().starts_with(&prefix)));
        if source != "github" {
            let changed = signals.iter().filter(|s| s["change"] == "updated").count();
            assert_eq!(changed, 2, "{source}");
        }
        let page = std::fs::read_to_string(doc.with_file_name("index.html")).unwrap();
        let host = match source {
            "github" => "GitHub",
            "gitlab" => "GitLab",
            _ => "Forgejo",
        };
        assert!(page.contains(&format!("<span class=\"host\">{host}</span>")));
    }
    // No signal of the demo is invented. Each title is a string
    // of a recorded file shipped with the demo, and the GitLab and Gitea
    // repositories show what gitlab.com and gitea.com answered.
    let mut recorded = BTreeSet::new();
    for text in DEMO_RECORDED {
        strings_of(&serde_json::from_str(text).unwrap(), &mut recorded);
    }
    let mut titles = 0;
    for doc in &docs {
        for s in read_json(doc)["dataset"]["signals"].as_array().unwrap() {
            let title = s["title"].as_str().unwrap();
            assert!(recorded.contains(title), "{title:?} is in no recorded file");
            titles += 1;
        }
    }
    assert!(titles > 100, "{titles}");
    let gitea = read_json(&docs[4]);
    let gitea_titles: BTreeSet<&str> = gitea["dataset"]["signals"]
        .as_array()
        .unwrap()
        .iter()
        .map(|s| s["title"].as_str().unwrap())
        .collect();
    assert!(gitea_titles.contains("Dont Touch") && gitea_titles.contains("Idears"));
    let page = std::fs::read_to_string(
        dir.path()
            .join("demo/site/one-theme-three-hosts/index.html"),
    )
    .unwrap();
    assert!(
        !page.contains("Synthetic"),
        "the first group shows recorded data only"
    );
    // Running it again starts afresh and succeeds.
    let again = run(dir.path(), &["demo", "--out", "demo"], &[]);
    assert_eq!(again.status.code(), Some(0), "{}", show(&again));
}

#[test]
fn configured_letter_case_is_kept_in_ids_and_the_dataset_validates() {
    let host = TestHost::start(Scenario::parse(RECORDED.as_bytes()).unwrap()).unwrap();
    let dir = TempDir::new("e2e-case");
    std::fs::write(
        dir.path().join("signals.toml"),
        config(host.base_url(), &["SigmaVirus24/GitHub3.py"], ""),
    )
    .unwrap();
    let out = run(dir.path(), &["collect"], &[]);
    assert_eq!(out.status.code(), Some(0), "{}", show(&out));
    let out = run(dir.path(), &["export"], &[]);
    assert_eq!(out.status.code(), Some(0), "{}", show(&out));
    let doc = dir.path().join("site/g/github3-py/dataset.json");
    let out = run(dir.path(), &["validate", doc.to_str().unwrap()], &[]);
    assert_eq!(out.status.code(), Some(0), "{}", show(&out));
    let d = read_json(&doc);
    assert!(
        d["dataset"]["signals"][0]["id"]
            .as_str()
            .unwrap()
            .starts_with("github:SigmaVirus24/GitHub3.py:")
    );
}

#[test]
fn an_overlapping_collect_is_refused_and_changes_nothing() {
    let host = TestHost::start(Scenario::parse(RECORDED.as_bytes()).unwrap()).unwrap();
    let dir = TempDir::new("e2e-lock");
    std::fs::write(
        dir.path().join("signals.toml"),
        config(host.base_url(), &[GITHUB3], ""),
    )
    .unwrap();
    // Another collect holds the store's lock.
    let lock = std::fs::File::create(dir.path().join("signals.db.lock")).unwrap();
    lock.lock().unwrap();
    let out = run(dir.path(), &["collect"], &[]);
    assert_eq!(out.status.code(), Some(1), "{}", show(&out));
    assert!(
        String::from_utf8_lossy(&out.stderr).contains("another `signals collect` is running"),
        "{}",
        show(&out)
    );
    assert!(host.requests().is_empty());
    drop(lock);
    let out = run(dir.path(), &["collect"], &[]);
    assert_eq!(out.status.code(), Some(0), "{}", show(&out));
}
