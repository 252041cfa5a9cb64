//! References across a group, end to end. Three
//! repositories of one group on the test host name each other's items in
//! both forms (`owner/name#n`, URLs), their own repository (`#n`), the
//! item itself, an item of a repository of another group and an item in
//! inline code; the API, the dataset, the cards, the history page and the
//! group page show exactly the links within the group, and the links cost
//! no request.

use jiff::Timestamp;
use serde_json::{Value, json};
use signals_testhost::{Scenario, TestHost, synthetic};

use crate::serve::{get, raw, serve_with};
use crate::support::{TempDir, read_json, run, show};

const A1: &str = "github:o/a:issue:1";
const A2: &str = "github:o/a:issue:2";
const B1: &str = "github:o/b:issue:1";
const C1: &str = "github:o/c:issue:1";

/// Repositories o/a, o/b, o/c (group `g`) and o/d (group `h`), three
/// items each (#1 and #2 issues, #3 a pull request); with `linked`, the
/// #1 of each names others.
fn scenario(linked: bool) -> Scenario {
    let start: Timestamp = "2026-11-01T00:00:00Z".parse().unwrap();
    let mut all = Scenario::default();
    for name in ["o/a", "o/b", "o/c", "o/d"] {
        all.repos.extend(synthetic(name, 3, start).repos);
    }
    if linked {
        let bodies = [
            (
                "o/a",
                "Same crash as o/b#1 and https://github.com/o/c/issues/1; see #2, this \
                 very #1, o/d#1 of another group, o/zz#5 untracked and `o/b#2` in code.",
            ),
            ("o/b", "Upstream: https://github.com/O/A/issues/1"),
            ("o/c", "Also o/a#1."),
            ("o/d", "o/a#1, from another group."),
        ];
        for (repo, body) in bodies {
            let issues = &mut all.repos.get_mut(repo).unwrap().issues;
            issues.iter_mut().find(|i| i["number"] == 1).unwrap()["body"] = json!(body);
        }
    }
    all
}

fn configure(dir: &std::path::Path, host: &TestHost) {
    let mut text = format!(
        "store = \"signals.db\"\nout = \"site\"\nbackfill_days = 36500\n\n[host]\n\
         api_url = \"{}\"\nmax_retries = 2\ntimeout_secs = 5\n",
        host.base_url()
    );
    for (group, repos) in [("g", &["o/a", "o/b", "o/c"][..]), ("h", &["o/d"][..])] {
        text.push_str(&format!(
            "\n[[groups]]\nid = \"{group}\"\nname = \"{group}\"\n"
        ));
        for r in repos {
            text.push_str(&format!("\n[[groups.repos]]\nrepo = \"{r}\"\n"));
        }
    }
    std::fs::write(dir.join("signals.toml"), text).unwrap();
}

/// Collects once; the requests the run made.
fn collect(dir: &std::path::Path) -> u64 {
    let out = run(dir, &["collect", "--json"], &[]);
    assert_eq!(out.status.code(), Some(0), "{}", show(&out));
    let summary: Value = serde_json::from_slice(&out.stdout).unwrap();
    summary["requests"].as_u64().unwrap()
}

fn signal<'a>(doc: &'a Value, id: &str) -> &'a Value {
    doc["dataset"]["signals"]
        .as_array()
        .unwrap()
        .iter()
        .find(|s| s["id"] == id)
        .unwrap_or_else(|| panic!("no {id}"))
}

#[test]
fn issue_26_references_link_items_within_a_group() {
    let host = TestHost::start(scenario(true)).unwrap();
    let dir = TempDir::new("refs");
    configure(dir.path(), &host);
    let linked_requests = collect(dir.path());

    // The same repositories with no reference cost the same requests.
    let plain_host = TestHost::start(scenario(false)).unwrap();
    let plain = TempDir::new("refs-plain");
    configure(plain.path(), &plain_host);
    assert_eq!(collect(plain.path()), linked_requests);
    assert_eq!(host.request_count(), plain_host.request_count());

    let out = run(dir.path(), &["export"], &[]);
    assert_eq!(out.status.code(), Some(0), "{}", show(&out));
    let site = dir.path().join("site");
    let docs: Vec<_> = ["g/a", "g/b", "g/c", "h/d"]
        .iter()
        .map(|r| site.join(r).join("dataset.json"))
        .collect();
    let mut args = vec!["validate"];
    args.extend(docs.iter().map(|p| p.to_str().unwrap()));
    let out = run(dir.path(), &args, &[]);
    assert_eq!(out.status.code(), Some(0), "{}", show(&out));

    // The dataset: within the group only, never itself, not from code.
    let a = read_json(&docs[0]);
    assert_eq!(signal(&a, A1)["references"], json!([A2, B1, C1]));
    assert_eq!(signal(&a, A1)["referencedBy"], json!([B1, C1]));
    assert_eq!(signal(&a, A2)["referencedBy"], json!([A1]));
    assert!(signal(&a, "github:o/a:issue:2").get("references").is_none());
    assert!(
        signal(&a, "github:o/a:pull_request:3")
            .get("referencedBy")
            .is_none()
    );
    let b = read_json(&docs[1]);
    assert_eq!(signal(&b, B1)["references"], json!([A1]));
    assert_eq!(signal(&b, B1)["referencedBy"], json!([A1]));
    assert!(
        signal(&b, "github:o/b:issue:2")
            .get("referencedBy")
            .is_none()
    );
    let d = read_json(&docs[3]);
    assert!(signal(&d, "github:o/d:issue:1").get("references").is_none());

    // The cards, the history page and the group page.
    let page = std::fs::read_to_string(site.join("g/a/index.html")).unwrap();
    assert!(
        page.contains("referenced from 2 other repositories in this group"),
        "{page}"
    );
    assert!(page.contains("referenced from 1 other item in this repository"));
    let history = std::fs::read_to_string(site.join("g/a/history/issue-1.html")).unwrap();
    assert!(history.contains("References in the group"), "{history}");
    assert!(
        history.contains("href=\"../../b/history/issue-1.html\""),
        "{history}"
    );
    assert!(
        history.contains("href=\"issue-2.html\"")
            || history.contains("../../a/history/issue-2.html")
    );
    let group = std::fs::read_to_string(site.join("g/index.html")).unwrap();
    assert!(
        group.contains(&format!("data-shared-id=\"{A1}\"")),
        "{group}"
    );
    assert_eq!(group.matches("data-shared-id=").count(), 1, "{group}");
    let other = std::fs::read_to_string(site.join("h/index.html")).unwrap();
    assert!(!other.contains("data-shared-id="));

    // The API.
    let served = serve_with(dir.path(), &[], &[]);
    let (status, list) = get(served.port, "/api/repos/g/a/signals");
    assert_eq!(status, 200, "{list}");
    let s = list["signals"]
        .as_array()
        .unwrap()
        .iter()
        .find(|s| s["id"] == A1)
        .unwrap();
    assert_eq!(s["references"], json!([A2, B1, C1]));
    assert_eq!(s["referencedBy"], json!([B1, C1]));
    let (status, h) = get(served.port, &format!("/api/signals/{C1}/history"));
    assert_eq!(status, 200, "{h}");
    assert_eq!(h["references"], json!([A1]));
    assert_eq!(h["referencedBy"], json!([A1]));
    let (status, h) = get(served.port, "/api/signals/github:o/c:issue:2/history");
    assert_eq!(status, 200, "{h}");
    assert_eq!(
        (&h["references"], &h["referencedBy"]),
        (&json!([]), &json!([]))
    );
    let (status, html) = raw(served.port, "GET", "/g/a/history/issue-1.html");
    assert_eq!(status, 200);
    assert!(String::from_utf8_lossy(&html).contains("referenced from 2 other repositories"));
}

/// Across hosts: a GitHub issue, a GitLab project in a subgroup and a
/// Forgejo repository of one group name each other by URL; a GitLab text
/// names its own merge request as `!1`.
#[test]
fn issue_26_references_link_items_across_hosts() {
    use signals_testhost::{synthetic_forgejo, synthetic_gitlab};
    let start: Timestamp = "2026-11-01T00:00:00Z".parse().unwrap();
    let set_body = |s: &mut Scenario, repo: &str, key: &str, n: u64, body: &str| {
        let data = s.repos.get_mut(repo).unwrap();
        let list = if key == "merge_requests" {
            &mut data.merge_requests
        } else {
            &mut data.issues
        };
        let number = if key == "number" { "number" } else { "iid" };
        let item = list.iter_mut().find(|i| i[number] == n).unwrap();
        item[if key == "number" {
            "body"
        } else {
            "description"
        }] = json!(body);
    };
    let mut github = synthetic("o/a", 3, start);
    set_body(
        &mut github,
        "o/a",
        "number",
        1,
        "See https://gitlab.example/grp/sub/proj/-/merge_requests/1 and \
         https://forgejo.example/o/f/pulls/3.",
    );
    let mut gitlab = synthetic_gitlab("grp/sub/proj", 3, start);
    set_body(
        &mut gitlab,
        "grp/sub/proj",
        "iid",
        1,
        "Upstream: https://github.com/o/a/issues/1; fixed by !1.",
    );
    let mut forgejo = synthetic_forgejo("o/f", 3, start);
    set_body(
        &mut forgejo,
        "o/f",
        "number",
        1,
        "Also https://github.com/o/a/issues/1",
    );
    let (gh, gl, fj) = (
        TestHost::start(github).unwrap(),
        TestHost::start(gitlab).unwrap(),
        TestHost::start(forgejo).unwrap(),
    );
    let dir = TempDir::new("refs-hosts");
    let mut text = "store = \"signals.db\"\nout = \"site\"\nbackfill_days = 36500\n".to_string();
    for (name, kind, host) in [
        ("hub", "github", &gh),
        ("lab", "gitlab", &gl),
        ("berg", "forgejo", &fj),
    ] {
        text.push_str(&format!(
            "\n[[hosts]]\nname = \"{name}\"\nkind = \"{kind}\"\napi_url = \"{}\"\nmax_retries = 0\ntimeout_secs = 5\n",
            host.api_url()
        ));
    }
    text.push_str(
        "\n[[groups]]\nid = \"g\"\nname = \"G\"\nrepos = [\n  { repo = \"o/a\", host = \"hub\" },\n  \
         { repo = \"grp/sub/proj\", host = \"lab\" },\n  { repo = \"o/f\", host = \"berg\" },\n]\n",
    );
    std::fs::write(dir.path().join("signals.toml"), text).unwrap();
    collect(dir.path());
    let out = run(dir.path(), &["export"], &[]);
    assert_eq!(out.status.code(), Some(0), "{}", show(&out));
    let site = dir.path().join("site/g");
    let mut ids = std::collections::BTreeMap::new();
    for repo in std::fs::read_dir(&site).unwrap() {
        let path = repo.unwrap().path().join("dataset.json");
        if !path.exists() {
            continue;
        }
        let out = run(dir.path(), &["validate", path.to_str().unwrap()], &[]);
        assert_eq!(out.status.code(), Some(0), "{}", show(&out));
        let doc = read_json(&path);
        for s in doc["dataset"]["signals"].as_array().unwrap() {
            ids.insert(
                s["id"].as_str().unwrap().to_string(),
                (s["references"].clone(), s["referencedBy"].clone()),
            );
        }
    }
    let find = |prefix: &str, suffix: &str| -> String {
        ids.keys()
            .find(|id| id.starts_with(prefix) && id.ends_with(suffix))
            .unwrap_or_else(|| panic!("no {prefix}…{suffix} in {ids:?}"))
            .clone()
    };
    let a1 = find("github", ":o/a:issue:1");
    let mr1 = find("gitlab", ":grp/sub/proj:pull_request:1");
    let gl1 = find("gitlab", ":grp/sub/proj:issue:1");
    let f1 = find("forgejo", ":o/f:issue:1");
    let f3 = find("forgejo", ":o/f:pull_request:3");
    assert_eq!(ids[&a1].0, json!([f3, mr1]), "{ids:?}");
    assert_eq!(ids[&a1].1, json!([f1, gl1]), "{ids:?}");
    assert_eq!(ids[&gl1].0, json!([a1, mr1]), "{ids:?}");
    assert_eq!(ids[&mr1].1, json!([a1, gl1]), "{ids:?}");
    let group = std::fs::read_to_string(site.join("index.html")).unwrap();
    assert!(
        group.contains(&format!("data-shared-id=\"{a1}\"")),
        "{group}"
    );
}
