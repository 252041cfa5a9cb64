//! Whole organisations and groups, with the real binary
//! against the loopback test host: a group's `orgs` are listed at each
//! run with conditional requests, new repositories are tracked from then
//! on, archived ones and forks are left out unless included, `exclude`
//! is honoured, and a repository the owner no longer lists is marked gone
//! in `signals status` with its history kept, while one renamed within its
//! owner is followed through the host's id. GitHub organisations (and a
//! user), a GitLab group with a subgroup, a Forgejo organisation (and a
//! user).

use std::path::Path;

use jiff::{SignedDuration, Timestamp};
use serde_json::{Value, json};
use signals_testhost::{Scenario, TestHost, synthetic, synthetic_forgejo, synthetic_gitlab};

use crate::support::{TempDir, read_json, run, show};

/// A folder with a `signals.toml` whose group `g` lists `orgs` on one host
/// of `kind`, with `extra` group keys.
fn setup(name: &str, kind: &str, api_url: &str, orgs: &[&str], extra: &str) -> TempDir {
    let dir = TempDir::new(name);
    let orgs: Vec<String> = orgs.iter().map(|o| format!("{o:?}")).collect();
    let text = format!(
        r#"store = "signals.db"
out = "site"
backfill_days = 60

[host]
kind = "{kind}"
api_url = "{api_url}"
max_retries = 2
timeout_secs = 5

[[groups]]
id = "g"
name = "Group"
orgs = [{}]
{extra}
"#,
        orgs.join(", ")
    );
    std::fs::write(dir.path().join("signals.toml"), text).unwrap();
    dir
}

/// `signals collect --json`: the summary, after checking the exit code.
fn collect(dir: &Path, code: i32) -> Value {
    let out = run(dir, &["collect", "--json"], &[]);
    assert_eq!(out.status.code(), Some(code), "{}", show(&out));
    serde_json::from_slice(&out.stdout).unwrap()
}

/// `signals status --json`.
fn status(dir: &Path) -> Value {
    let out = run(dir, &["status", "--json"], &[]);
    assert!(out.status.success(), "{}", show(&out));
    serde_json::from_slice(&out.stdout).unwrap()
}

/// The collected repositories of a summary, sorted.
fn collected(summary: &Value) -> Vec<String> {
    let mut v: Vec<String> = summary["repositories"]
        .as_array()
        .unwrap()
        .iter()
        .map(|r| {
            assert_eq!(r["status"], "collected", "{r}");
            r["repo"].as_str().unwrap().to_string()
        })
        .collect();
    v.sort();
    v
}

/// Per repository of `status --json`: (id, runs, owner state).
fn states(status: &Value) -> Vec<(String, u64, String)> {
    status["repositories"]
        .as_array()
        .unwrap()
        .iter()
        .map(|r| {
            (
                r["repository"].as_str().unwrap().to_string(),
                r["runs"].as_u64().unwrap(),
                r["owner"]["state"].as_str().unwrap_or("-").to_string(),
            )
        })
        .collect()
}

fn github_repo(scenario: &mut Scenario, full_name: &str, id: u64, start: Timestamp) {
    let mut one = synthetic(full_name, 3, start);
    let data = one.repos.get_mut(full_name).unwrap();
    data.repo["id"] = json!(id);
    data.repo["created_at"] = json!(start.to_string());
    data.repo["fork"] = json!(false);
    data.repo["private"] = json!(false);
    scenario.repos.extend(one.repos);
}

#[test]
fn an_organisation_with_three_repositories_then_one_added_one_archived_one_removed() {
    let start = Timestamp::now() - SignedDuration::from_hours(72);
    let mut scenario = Scenario::default();
    scenario.orgs.insert("org".into());
    for (i, name) in ["org/a", "org/b", "org/c", "org/fork", "org/old", "org/skip"]
        .iter()
        .enumerate()
    {
        github_repo(&mut scenario, name, 100 + i as u64, start);
    }
    scenario.repos.get_mut("org/fork").unwrap().repo["fork"] = json!(true);
    scenario.repos.get_mut("org/old").unwrap().repo["archived"] = json!(true);
    let host = TestHost::start(scenario.clone()).unwrap();
    let dir = setup(
        "orgs-github",
        "github",
        &host.api_url(),
        &["org"],
        "exclude = [\"org/skip\"]",
    );

    // Run 1: the three repositories are found and collected; the fork, the
    // archived one and the excluded one are left out.
    let first = collect(dir.path(), 0);
    assert_eq!(collected(&first), vec!["org/a", "org/b", "org/c"]);
    let owner = &first["owners"][0];
    assert_eq!(owner["status"], "listed", "{first}");
    assert_eq!(owner["new"], json!(["org/a", "org/b", "org/c"]));
    assert_eq!(owner["notModified"], false);
    assert!(
        host.requests()
            .iter()
            .any(|r| r.path.starts_with("/orgs/org/repos?type=public&")),
        "the organisation's public repositories are listed"
    );

    // Run 2, nothing changed: the listing answers 304, and is counted.
    host.clear_requests();
    let second = collect(dir.path(), 0);
    assert_eq!(collected(&second), vec!["org/a", "org/b", "org/c"]);
    let owner = &second["owners"][0];
    assert_eq!(
        (owner["notModified"].clone(), owner["new"].clone()),
        (json!(true), json!([]))
    );
    let listing: Vec<_> = host
        .requests()
        .into_iter()
        .filter(|r| r.path.starts_with("/orgs/"))
        .collect();
    assert_eq!(listing.len(), 1, "one list per owner per run");
    assert_eq!(listing[0].status, Some(304));
    assert_eq!(owner["requests"], 1);
    assert_eq!(owner["answered304"], 1);
    assert!(second["notModified"].as_u64().unwrap() >= 1);

    // On the host: a fourth repository, one archived, one removed.
    github_repo(
        &mut scenario,
        "org/d",
        200,
        start + SignedDuration::from_hours(1),
    );
    scenario.repos.get_mut("org/b").unwrap().repo["archived"] = json!(true);
    scenario.repos.remove("org/c");
    host.set_scenario(scenario);
    host.clear_requests();
    let out = run(dir.path(), &["collect", "--json"], &[]);
    assert!(out.status.success(), "{}", show(&out));
    let third: Value = serde_json::from_slice(&out.stdout).unwrap();
    assert_eq!(collected(&third), vec!["org/a", "org/d"]);
    let owner = &third["owners"][0];
    assert_eq!(owner["new"], json!(["org/d"]));
    assert_eq!(
        owner["left"],
        json!([{"repo": "org/b", "state": "archived"}, {"repo": "org/c", "state": "gone"}])
    );
    assert!(
        !host
            .requests()
            .iter()
            .any(|r| r.path.starts_with("/repos/org/c") || r.path.starts_with("/repos/org/b")),
        "repositories no longer tracked are not asked for"
    );

    // `status`: the gone and the archived repositories, with their history.
    let st = status(dir.path());
    assert_eq!(
        states(&st),
        vec![
            ("a".to_string(), 3, "tracked".to_string()),
            ("b".to_string(), 2, "archived".to_string()),
            ("c".to_string(), 2, "gone".to_string()),
            ("d".to_string(), 1, "tracked".to_string()),
        ]
    );
    let c = &st["repositories"][2];
    assert_eq!(c["owner"]["gone"], true);
    assert_eq!(c["owner"]["owner"], "org");
    let o = &st["owners"][0];
    assert_eq!(
        (o["owner"].clone(), o["listings"].clone()),
        (json!("org"), json!(3))
    );
    assert_eq!(o["totals"]["requests"], 3);
    assert_eq!(o["totals"]["notModified"], 1);
    let text = run(dir.path(), &["status"], &[]);
    let text = String::from_utf8_lossy(&text.stdout);
    assert!(
        text.contains("gone: no longer listed by its owner since"),
        "{text}"
    );
    assert!(
        text.contains("owner org of group g on github: 2 tracked, 1 gone, 1 archived or left out"),
        "{text}"
    );

    // `repos list` shows them under their owner, not as left behind.
    let out = run(dir.path(), &["repos", "list"], &[]);
    assert!(out.status.success(), "{}", show(&out));
    let list = String::from_utf8_lossy(&out.stdout);
    assert!(list.contains("every repository of org (orgs):"), "{list}");
    let c_line = list
        .lines()
        .find(|l| l.contains("org/c"))
        .unwrap_or_default();
    assert!(c_line.trim_end().ends_with("gone"), "{list}");
    assert!(!list.contains("in the store only"), "{list}");

    // The metrics count the owner's repositories by state.
    let out = run(dir.path(), &["metrics"], &[]);
    assert!(out.status.success(), "{}", show(&out));
    let metrics = String::from_utf8_lossy(&out.stdout).into_owned();
    for (state, n) in [("tracked", 2), ("gone", 1), ("archived", 1), ("fork", 0)] {
        let line = format!(
            "signals_owner_repositories{{group=\"g\",host=\"github\",owner=\"org\",state=\"{state}\"}} {n}\n"
        );
        assert!(metrics.contains(&line), "{line} in\n{metrics}");
    }
    for (repo, n) in [("a", 0), ("b", 1), ("c", 1), ("d", 0)] {
        let line =
            format!("signals_repository_left_out{{group=\"g\",repository=\"{repo}\"}} {n}\n");
        assert!(metrics.contains(&line), "{line} in\n{metrics}");
    }
    if let Some(checked) = crate::health::promtool(&metrics) {
        assert!(checked.status.success(), "{}", show(&checked));
    }

    // The history is kept: the export still publishes the gone repository.
    let out = run(dir.path(), &["export", "--quiet"], &[]);
    assert!(out.status.success(), "{}", show(&out));
    let doc = read_json(&dir.path().join("site/g/c/dataset.json"));
    assert_eq!(doc["dataset"]["runs"].as_array().unwrap().len(), 2);

    // Back on the host: tracked again under the same id. (Each keeps its
    // host id, as on a real host: a host id under another name would be
    // that repository renamed.)
    let mut back = Scenario::default();
    back.orgs.insert("org".into());
    for (name, id) in [("org/a", 100), ("org/c", 102), ("org/d", 200)] {
        github_repo(&mut back, name, id, start);
    }
    host.set_scenario(back);
    let out = run(dir.path(), &["collect"], &[]);
    assert!(out.status.success(), "{}", show(&out));
    let line = String::from_utf8_lossy(&out.stdout);
    assert!(
        line.contains("in 3 of 3 repositories")
            && line.contains("1 of 1 owners listed, 1 repositories new, 0 no longer tracked"),
        "{line}"
    );
    let stderr = String::from_utf8_lossy(&out.stderr);
    assert!(
        stderr.contains("new: org/c (listed by g/org) is tracked from now on"),
        "{stderr}"
    );
    // With `--quiet`, a cron run that only found news prints nothing.
    let out = run(dir.path(), &["collect", "--quiet"], &[]);
    assert!(out.status.success(), "{}", show(&out));
    assert!(
        out.stdout.is_empty() && out.stderr.is_empty(),
        "{}",
        show(&out)
    );
    assert_eq!(
        states(&status(dir.path()))[2],
        ("c".to_string(), 4, "tracked".to_string())
    );
}

#[test]
fn a_github_user_archived_and_forks_included_and_an_unknown_owner_fails_alone() {
    let start = Timestamp::now() - SignedDuration::from_hours(72);
    let mut scenario = Scenario::default();
    github_repo(&mut scenario, "someone/tool", 1, start);
    github_repo(&mut scenario, "someone/fork", 2, start);
    scenario.repos.get_mut("someone/fork").unwrap().repo["fork"] = json!(true);
    scenario.repos.get_mut("someone/tool").unwrap().repo["archived"] = json!(true);
    let host = TestHost::start(scenario).unwrap();
    let dir = setup(
        "orgs-user",
        "github",
        &host.api_url(),
        &["someone", "nobody"],
        "include_archived = true\ninclude_forks = true",
    );
    // The unknown owner fails its listing (exit 3); the other is collected.
    let summary = collect(dir.path(), 3);
    assert_eq!(collected(&summary), vec!["someone/fork", "someone/tool"]);
    assert_eq!(summary["owners"][1]["status"], "failed");
    let error = summary["owners"][1]["error"].as_str().unwrap();
    assert!(
        error.contains("\"nobody\" was not found on GitHub"),
        "{error}"
    );
    let paths: Vec<String> = host.requests().into_iter().map(|r| r.path).collect();
    assert!(paths.iter().any(|p| p.starts_with("/orgs/someone/repos")));
    assert!(
        paths
            .iter()
            .any(|p| p.starts_with("/users/someone/repos?type=owner"))
    );
    let st = status(dir.path());
    let failure = &st["owners"][0]["lastFailure"]["message"];
    assert!(failure.as_str().unwrap().contains("nobody"), "{st}");
}

#[test]
fn a_gitlab_group_with_a_subgroup() {
    let start = Timestamp::now() - SignedDuration::from_hours(72);
    let mut scenario = Scenario {
        flavor: signals_testhost::Flavor::Gitlab,
        ..Scenario::default()
    };
    for (i, path) in [
        "grp/top",
        "grp/sub/deep",
        "grp/sub/forked",
        "grp/old",
        "elsewhere/x",
    ]
    .iter()
    .enumerate()
    {
        let mut one = synthetic_gitlab(path, 3, start);
        let data = one.repos.get_mut(*path).unwrap();
        data.repo["id"] = json!(5000 + i as u64);
        data.repo["visibility"] = json!("public");
        scenario.repos.extend(one.repos);
    }
    scenario.repos.get_mut("grp/sub/forked").unwrap().repo["forked_from_project"] =
        json!({"id": 1, "path_with_namespace": "upstream/forked"});
    scenario.repos.get_mut("grp/old").unwrap().repo["archived"] = json!(true);
    scenario.orgs.insert("grp".into());
    scenario.orgs.insert("grp/sub".into());
    let host = TestHost::start(scenario).unwrap();
    let dir = setup("orgs-gitlab", "gitlab", &host.api_url(), &["grp"], "");
    let first = collect(dir.path(), 0);
    assert_eq!(collected(&first), vec!["grp/sub/deep", "grp/top"]);
    let listing: Vec<_> = host
        .requests()
        .into_iter()
        .filter(|r| r.path.starts_with("/api/v4/groups/"))
        .collect();
    assert_eq!(listing.len(), 1);
    assert!(
        listing[0].path.contains("include_subgroups=true"),
        "{}",
        listing[0].path
    );
    // Ids: the project's name; the nested one keeps its own.
    let ids: Vec<String> = states(&status(dir.path()))
        .into_iter()
        .map(|s| s.0)
        .collect();
    assert_eq!(ids, vec!["deep", "top"]);
    // Unchanged: GitLab answers the listing 304 too.
    host.clear_requests();
    let second = collect(dir.path(), 0);
    assert_eq!(second["owners"][0]["notModified"], true, "{second}");
}

#[test]
fn a_forgejo_organisation_and_a_user() {
    let start = Timestamp::now() - SignedDuration::from_hours(72);
    let mut scenario = Scenario {
        flavor: signals_testhost::Flavor::Forgejo,
        ..Scenario::default()
    };
    for (i, name) in ["forg/app", "forg/secret", "forg/mirror", "person/lib"]
        .iter()
        .enumerate()
    {
        let mut one = synthetic_forgejo(name, 3, start);
        let data = one.repos.get_mut(*name).unwrap();
        data.repo["id"] = json!(900 + i as u64);
        data.repo["private"] = json!(false);
        data.repo["fork"] = json!(false);
        scenario.repos.extend(one.repos);
    }
    scenario.repos.get_mut("forg/secret").unwrap().repo["private"] = json!(true);
    scenario.repos.get_mut("forg/mirror").unwrap().repo["fork"] = json!(true);
    scenario.orgs.insert("forg".into());
    let host = TestHost::start(scenario).unwrap();
    let dir = setup(
        "orgs-forgejo",
        "forgejo",
        &host.api_url(),
        &["forg", "person"],
        "",
    );
    let first = collect(dir.path(), 0);
    assert_eq!(collected(&first), vec!["forg/app", "person/lib"]);
    let paths: Vec<String> = host.requests().into_iter().map(|r| r.path).collect();
    for want in [
        "/api/v1/orgs/forg/repos?limit=50",
        "/api/v1/orgs/person/repos?limit=50",
        "/api/v1/users/person/repos?limit=50",
    ] {
        assert!(paths.iter().any(|p| p == want), "{want} in {paths:?}");
    }
    // Forgejo sends no validators: the listing is a full answer each run.
    let second = collect(dir.path(), 0);
    assert_eq!(second["owners"][0]["notModified"], false);
    assert_eq!(collected(&second), vec!["forg/app", "person/lib"]);
}

#[test]
fn workers_on_postgresql_list_an_owner_once_and_collect_what_it_lists() {
    let Some(cluster) = crate::workers::cluster() else {
        return;
    };
    let url = cluster.create_database("orgs").unwrap();
    let (mut scenario, repos) = crate::workers::scenario(8);
    scenario.orgs.insert("o".into());
    let host = TestHost::start(scenario).unwrap();
    host.set_latency(std::time::Duration::from_millis(5));
    let dir = TempDir::new("orgs-workers");
    let mut text = crate::workers::config(&url, &host.api_url(), &[]);
    text.push_str("orgs = [\"o\"]\n");
    std::fs::write(dir.path().join("signals.toml"), text).unwrap();
    let workers: Vec<_> = (0..3)
        .map(|i| crate::workers::worker(dir.path(), &format!("token-{i}"), "1m"))
        .collect();
    crate::workers::wait_for_round(&url, repos.len());
    std::thread::sleep(std::time::Duration::from_millis(500));
    for w in workers {
        crate::workers::stop(w);
    }
    let runs = crate::workers::runs_per_repo(&url);
    assert_eq!(runs.len(), repos.len());
    assert!(runs.values().all(|c| *c == 1), "{runs:?}");
    // One worker listed the owner; the others took its repositories from
    // the store (the claim lasts the interval, an hour here).
    let listings = host
        .requests()
        .into_iter()
        .filter(|r| r.path.starts_with("/orgs/o/repos"))
        .count();
    assert_eq!(listings, 1);
    let st = status(dir.path());
    assert_eq!(st["owners"][0]["listings"], 1, "{st}");
    assert_eq!(
        st["owners"][0]["repositories"].as_array().unwrap().len(),
        repos.len()
    );
}

#[test]
fn a_large_organisation_costs_its_pages_and_a_new_repository_one_more() {
    // 200 repositories: two full pages of 100, oldest first.
    let start = Timestamp::now() - SignedDuration::from_hours(72);
    let mut scenario = Scenario::default();
    scenario.orgs.insert("big".into());
    for i in 0..200u64 {
        let at = start + SignedDuration::from_mins(i as i64);
        github_repo(&mut scenario, &format!("big/r{i:03}"), 10_000 + i, at);
    }
    let host = TestHost::start(scenario.clone()).unwrap();
    let dir = setup("orgs-big", "github", &host.api_url(), &["big"], "");
    // `--repo`: one repository is collected, the owner is listed whole.
    let listing = |summary: &Value| {
        let o = &summary["owners"][0];
        (
            o["requests"].as_u64().unwrap(),
            o["answered304"].as_u64().unwrap(),
            o["new"].as_array().unwrap().len(),
        )
    };
    let once = || {
        let out = run(
            dir.path(),
            &["collect", "--json", "--repo", "big/r000"],
            &[],
        );
        assert!(out.status.success(), "{}", show(&out));
        serde_json::from_slice::<Value>(&out.stdout).unwrap()
    };
    // First listing: both pages in full.
    assert_eq!(listing(&once()), (2, 0, 200));
    // Unchanged: both pages 304; the last is full, so the next page is
    // asked by number (empty, 200 the first time, 304 after).
    assert_eq!(listing(&once()), (3, 2, 0));
    assert_eq!(listing(&once()), (3, 3, 0));
    // A new repository lands on the third page: the two before stay 304.
    github_repo(
        &mut scenario,
        "big/new",
        20_000,
        start + SignedDuration::from_hours(24),
    );
    host.set_scenario(scenario);
    assert_eq!(listing(&once()), (3, 2, 1));
    let st = status(dir.path());
    let tracked = st["owners"][0]["repositories"]
        .as_array()
        .unwrap()
        .iter()
        .filter(|r| r["state"] == "tracked")
        .count();
    assert_eq!(tracked, 201);
}

/// The part of the group page `site/g/index.html` about repository `id`:
/// its block under "Releases and publicly indicated next".
fn group_block(group_page: &str, id: &str) -> String {
    let start = group_page
        .find(&format!("<h3><a href=\"{id}/index.html\">"))
        .unwrap_or_else(|| panic!("no block of {id} in\n{group_page}"));
    let rest = &group_page[start..];
    let end = rest.find("<div class=\"release\">").unwrap_or(rest.len());
    rest[..end].to_string()
}

/// A repository its owner no longer lists (gone) or that the group's filter
/// now leaves out (archived) is said to be so, with since when, on its page,
/// on the group page, on the index, in `/api/groups` and in `status`, and
/// never called stale, however long after its last run; its history stays
/// readable; its pages are re-rendered once when it leaves, then kept.
#[test]
fn a_repository_its_owner_no_longer_lists_shows_gone_on_the_pages_and_the_api_not_stale() {
    let start = Timestamp::now() - SignedDuration::from_hours(72);
    let mut scenario = Scenario::default();
    scenario.orgs.insert("org".into());
    for (i, name) in ["org/a", "org/b", "org/c"].iter().enumerate() {
        github_repo(&mut scenario, name, 300 + i as u64, start);
    }
    let host = TestHost::start(scenario.clone()).unwrap();
    let dir = setup("orgs-gone-pages", "github", &host.api_url(), &["org"], "");
    // The same configuration judged against a one-second interval, so that
    // three intervals pass in the test's time.
    let text = std::fs::read_to_string(dir.path().join("signals.toml")).unwrap();
    std::fs::write(
        dir.path().join("fast.toml"),
        format!("interval = \"1s\"\n{text}"),
    )
    .unwrap();
    let export = |config: &str| -> String {
        let out = run(dir.path(), &["--config", config, "export"], &[]);
        assert!(out.status.success(), "{}", show(&out));
        String::from_utf8_lossy(&out.stdout).into_owned()
    };
    let page = |path: &str| std::fs::read_to_string(dir.path().join("site").join(path)).unwrap();

    assert_eq!(
        collected(&collect(dir.path(), 0)),
        vec!["org/a", "org/b", "org/c"]
    );
    assert!(export("signals.toml").contains("exported 3 repositories"));

    // On the host: `org/c` is removed, `org/b` archived.
    scenario.repos.remove("org/c");
    scenario.repos.get_mut("org/b").unwrap().repo["archived"] = json!(true);
    host.set_scenario(scenario);
    assert_eq!(collected(&collect(dir.path(), 0)), vec!["org/a"]);
    let st = status(dir.path());
    let since = |id: &str| {
        st["repositories"]
            .as_array()
            .unwrap()
            .iter()
            .find(|r| r["repository"] == id)
            .unwrap()["owner"]["since"]
            .as_str()
            .unwrap()
            .to_string()
    };
    let (c_since, b_since) = (since("c"), since("b"));
    let c_runs = read_json(&dir.path().join("site/g/c/dataset.json"))["dataset"]["runs"].clone();

    // b and c have no new run, but what their pages say changed: the
    // export renders them again (their data key holds it), with `a`.
    let said = export("signals.toml");
    assert!(said.contains("exported 3 repositories"), "{said}");
    assert!(page("g/c/index.html").contains("<strong>Gone:</strong>"));

    // More than three intervals after their last run: `a` (collected, not
    // since) is stale; `c` and `b` are gone and archived, never stale.
    std::thread::sleep(std::time::Duration::from_millis(3200));
    let said = export("fast.toml");
    assert!(said.contains("exported 3 repositories"), "{said}");
    let human = |at: &str| {
        at.parse::<Timestamp>()
            .unwrap()
            .strftime("%Y-%m-%d %H:%M UTC")
            .to_string()
    };
    let c_page = page("g/c/index.html");
    let gone = format!(
        "<strong>Gone:</strong> no longer listed by its owner org (deleted, made private, \
         transferred or renamed) since <time datetime=\"{}\">{}</time>; no longer collected, \
         its history is kept.",
        c_since
            .parse::<Timestamp>()
            .unwrap()
            .strftime("%Y-%m-%dT%H:%M:%SZ"),
        human(&c_since)
    );
    assert!(c_page.contains(&gone), "{gone} in\n{c_page}");
    assert!(!c_page.contains("Stale data"), "{c_page}");
    let b_page = page("g/b/index.html");
    assert!(
        b_page.contains("<strong>No longer collected:</strong> archived on the host since")
            && b_page.contains(&format!(
                "{}</time>; the group leaves archived repositories of org out \
                 (`include_archived`), so it is no longer collected, its history is kept.",
                human(&b_since)
            )),
        "{b_page}"
    );
    assert!(!b_page.contains("Stale data"), "{b_page}");
    assert!(page("g/a/index.html").contains("<strong>Stale data:</strong>"));
    // The group page, under each repository's news.
    let group = page("g/index.html");
    assert!(
        group_block(&group, "c")
            .contains("<strong>Gone:</strong> no longer listed by its owner org"),
        "{group}"
    );
    assert!(!group_block(&group, "c").contains("Stale"), "{group}");
    assert!(
        group_block(&group, "b").contains("archived on the host since"),
        "{group}"
    );
    assert!(group_block(&group, "a").contains("Stale data:"), "{group}");
    // The index flags each with why.
    let index = page("index.html");
    assert!(
        index.contains(
            "<span class=\"badge health-left-out\" title=\"Gone: no longer listed by its owner org"
        ) && index.contains(">gone</span>")
            && index.contains(">archived</span>")
            && index.contains(">stale</span>"),
        "{index}"
    );
    assert_eq!(index.matches(">stale</span>").count(), 1, "{index}");
    // Its history stays: the same runs, its item histories written.
    let c_doc = read_json(&dir.path().join("site/g/c/dataset.json"));
    assert_eq!(c_doc["dataset"]["runs"], c_runs);
    assert!(
        std::fs::read_dir(dir.path().join("site/g/c/history"))
            .unwrap()
            .count()
            > 0
    );

    // Nothing changes while they are not collected: the next export keeps
    // every repository as it was.
    let said = export("fast.toml");
    assert!(
        said.contains("nothing changed since the last export"),
        "{said}"
    );

    // `status` and the metrics judge the same way.
    let out = run(
        dir.path(),
        &["--config", "fast.toml", "status", "--json"],
        &[],
    );
    assert!(out.status.success(), "{}", show(&out));
    let fast: Value = serde_json::from_slice(&out.stdout).unwrap();
    let health: Vec<(String, String, Value)> = fast["repositories"]
        .as_array()
        .unwrap()
        .iter()
        .map(|r| {
            (
                r["repository"].as_str().unwrap().to_string(),
                r["health"]["state"].as_str().unwrap().to_string(),
                r["health"]["stale"].clone(),
            )
        })
        .collect();
    assert_eq!(
        health,
        vec![
            ("a".into(), "stale".into(), json!(true)),
            ("b".into(), "left_out".into(), json!(false)),
            ("c".into(), "left_out".into(), json!(false)),
        ]
    );
    let out = run(dir.path(), &["--config", "fast.toml", "status"], &[]);
    let text = String::from_utf8_lossy(&out.stdout);
    assert_eq!(text.matches("stale: ").count(), 1, "{text}");
    let out = run(dir.path(), &["--config", "fast.toml", "metrics"], &[]);
    let metrics = String::from_utf8_lossy(&out.stdout);
    for (repo, stale, left) in [("a", 1, 0), ("b", 0, 1), ("c", 0, 1)] {
        for (name, n) in [
            ("signals_repository_stale", stale),
            ("signals_repository_left_out", left),
        ] {
            let line = format!("{name}{{group=\"g\",repository=\"{repo}\"}} {n}\n");
            assert!(metrics.contains(&line), "{line} in\n{metrics}");
        }
    }

    // The API of `signals serve`, judged against the same interval.
    let served = crate::serve::serve_with(dir.path(), &["--config", "fast.toml"], &[]);
    let (code, groups) = crate::serve::get(served.port, "/api/groups");
    assert_eq!(code, 200, "{groups}");
    let repos = groups["groups"][0]["repositories"].as_array().unwrap();
    let api = |id: &str| &repos.iter().find(|r| r["id"] == id).unwrap()["health"];
    assert_eq!(api("a")["state"], "stale", "{groups}");
    for (id, reason, since) in [("c", "gone", &c_since), ("b", "archived", &b_since)] {
        let h = api(id);
        assert_eq!(h["state"], "left_out", "{h}");
        assert_eq!(h["stale"], false, "{h}");
        assert_eq!(
            h["leftOut"],
            json!({"reason": reason, "since": since, "owner": "org", "host": "github"}),
            "{h}"
        );
        assert!(h["lastSuccess"].is_string(), "{h}");
    }
    // Its served page says gone, and its signals and their histories
    // still answer.
    let (code, html) = crate::serve::raw(served.port, "GET", "/g/c/index.html");
    assert_eq!(code, 200);
    let html = String::from_utf8(html).unwrap();
    assert!(
        html.contains(&gone) && !html.contains("Stale data"),
        "{html}"
    );
    let (code, signals) = crate::serve::get(served.port, "/api/repos/g/c/signals");
    assert_eq!(code, 200, "{signals}");
    assert!(signals["total"].as_u64().unwrap() > 0, "{signals}");
    let history = signals["signals"][0]["history"].as_str().unwrap();
    let (code, body) = crate::serve::get(served.port, history);
    assert_eq!(code, 200, "{body}");
}

/// Renames `from` to `to` on the test host: the repository object moves
/// and says its new name, and the old name redirects (GitHub, Forgejo) or
/// is still found (GitLab), as hosts do. Its numeric id stays.
fn rename_on_host(scenario: &mut Scenario, from: &str, to: &str) {
    let mut data = scenario.repos.remove(from).unwrap();
    let name = to.rsplit('/').next().unwrap();
    let repo = &mut data.repo;
    if repo.get("path_with_namespace").is_some() {
        repo["path_with_namespace"] = json!(to);
        repo["path"] = json!(name);
        repo["name_with_namespace"] = json!(to.replace('/', " / "));
        repo["web_url"] = json!(format!("https://gitlab.example/{to}"));
    } else {
        repo["full_name"] = json!(to);
        repo["name"] = json!(name);
        repo["html_url"] = json!(format!("https://github.com/{to}"));
    }
    scenario.repos.insert(to.into(), data);
    scenario.renamed.insert(from.into(), to.into());
}

/// What a rename test looks at on one host kind.
struct RenameCase {
    name: &'static str,
    kind: &'static str,
    /// The owner and its three repositories; the second is renamed.
    owner: &'static str,
    repos: [&'static str; 3],
    renamed_to: &'static str,
    /// Where the owner's listing is asked (a path prefix).
    listing: &'static str,
    /// A request for the repository under a name, as this host's paths say.
    asks_for: fn(&str, &str) -> bool,
    /// The renaming run with `--json` (its summary), else as text (its
    /// line and messages).
    json: bool,
}

fn github_asks_for(path: &str, name: &str) -> bool {
    let p = format!("/repos/{name}");
    path == p || path.starts_with(&format!("{p}/")) || path.starts_with(&format!("{p}?"))
}

fn gitlab_asks_for(path: &str, name: &str) -> bool {
    let p = format!("/api/v4/projects/{}", name.replace('/', "%2F"));
    path == p || path.starts_with(&format!("{p}/")) || path.starts_with(&format!("{p}?"))
}

/// An owner lists three repositories, the host renames one, and
/// the next listing follows it through the host's id: the same repository
/// id, its history going on (its earlier runs, no item discovered again,
/// the same signal ids), no `gone` repository, a listing of the same cost,
/// and the repository asked for (and reported) under its new name only.
fn an_owner_renames_a_repository_and_the_next_listing_follows_it(
    case: RenameCase,
    scenario: Scenario,
) {
    let mut scenario = scenario;
    let host = TestHost::start(scenario.clone()).unwrap();
    let dir = setup(case.name, case.kind, &host.api_url(), &[case.owner], "");
    let [a, b, c] = case.repos;
    let (b_id, new) = (b.rsplit('/').next().unwrap(), case.renamed_to);
    let listing_requests = |host: &TestHost| {
        host.requests()
            .into_iter()
            .filter(|r| r.path.starts_with(case.listing))
            .count()
    };

    let first = collect(dir.path(), 0);
    assert_eq!(collected(&first), vec![a, b, c]);
    let first_listing = (
        first["owners"][0]["requests"].clone(),
        listing_requests(&host),
    );
    let found_first = first["newCount"].as_u64().unwrap();
    assert!(found_first > 0, "{first}");

    rename_on_host(&mut scenario, b, new);
    // And one of its issues edited since: seen again, it must be a change,
    // not a discovery (its id keeps the first name).
    let issue = &mut scenario.repos.get_mut(new).unwrap().issues[0];
    issue["title"] = json!("Edited after the rename");
    issue["updated_at"] = json!(Timestamp::now().strftime("%Y-%m-%dT%H:%M:%SZ").to_string());
    host.set_scenario(scenario.clone());
    host.clear_requests();
    let mut want = vec![a.to_string(), new.to_string(), c.to_string()];
    want.sort();
    if case.json {
        let second = collect(dir.path(), 0);
        assert_eq!(collected(&second), want);
        let owner = &second["owners"][0];
        assert_eq!(owner["new"], json!([]), "{second}");
        assert_eq!(owner["left"], json!([]), "{second}");
        assert_eq!(
            owner["renamed"],
            json!([{"from": b, "to": new}]),
            "{second}"
        );
        // The listing costs what it cost before: the ids came with it.
        assert_eq!(
            (owner["requests"].clone(), listing_requests(&host)),
            first_listing,
            "{second}"
        );
        // Nothing discovered again: its items keep their ids.
        assert_eq!(
            (second["newCount"].clone(), second["changedCount"].clone()),
            (json!(0), json!(1)),
            "{second}"
        );
        let renamed = second["repositories"]
            .as_array()
            .unwrap()
            .iter()
            .find(|r| r["repo"] == new)
            .unwrap();
        assert_eq!(renamed["renamedTo"], Value::Null, "{renamed}");
    } else {
        let out = run(dir.path(), &["collect"], &[]);
        assert!(out.status.success(), "{}", show(&out));
        let line = String::from_utf8_lossy(&out.stdout);
        assert!(
            line.contains("0 new, 1 changed in 3 of 3 repositories, 0 failed")
                && line.contains("1 of 1 owners listed, 0 repositories new, 0 no longer tracked"),
            "{line}"
        );
        assert_eq!(listing_requests(&host), first_listing.1);
        let stderr = String::from_utf8_lossy(&out.stderr);
        assert!(
            stderr.contains(&format!(
                "renamed: {b} is now {new} (listed by g/{}); followed under the same id",
                case.owner
            )),
            "{stderr}"
        );
        assert!(!stderr.contains("update `repo`"), "{stderr}");
    }
    // Asked for under its new name only: no redirect followed, and the old
    // name (which a new repository could take) never asked.
    let paths: Vec<String> = host.requests().into_iter().map(|r| r.path).collect();
    assert!(paths.iter().any(|p| (case.asks_for)(p, new)), "{paths:?}");
    assert!(!paths.iter().any(|p| (case.asks_for)(p, b)), "{paths:?}");

    // `status`: the same id with both runs, nothing gone, and the rename.
    let st = status(dir.path());
    let mut ids: Vec<String> = case
        .repos
        .iter()
        .map(|r| r.rsplit('/').next().unwrap().to_string())
        .collect();
    ids.sort();
    assert_eq!(
        states(&st),
        ids.iter()
            .map(|id| (id.clone(), 2, "tracked".to_string()))
            .collect::<Vec<_>>()
    );
    let row = st["repositories"]
        .as_array()
        .unwrap()
        .iter()
        .find(|r| r["repository"] == b_id)
        .unwrap();
    assert_eq!(row["repo"], b, "its ids keep the first name: {row}");
    assert_eq!(
        row["hostName"],
        Value::Null,
        "no redirect was followed: {row}"
    );
    assert_eq!(row["owner"]["repo"], new);
    assert_eq!(row["owner"]["renamed"]["from"], b);
    assert_eq!(row["owner"]["renamed"]["to"], new);
    let text = run(dir.path(), &["status"], &[]);
    let text = String::from_utf8_lossy(&text.stdout);
    assert!(
        text.contains(&format!("renamed on the host from {b} to {new} since")),
        "{text}"
    );
    assert!(!text.contains("update `repo`"), "{text}");
    let list = run(dir.path(), &["repos", "list"], &[]);
    let list = String::from_utf8_lossy(&list.stdout);
    assert!(
        list.contains(&format!("renamed on the host from {b} to {new} since")),
        "{list}"
    );

    // A third run: quiet, nothing new, still under the new name.
    let third = collect(dir.path(), 0);
    assert_eq!(collected(&third), want);
    assert_eq!(third["owners"][0]["renamed"], json!([]));
    assert_eq!(third["newCount"], 0, "{third}");

    // The export: one history of three runs, signal ids under the first
    // name, the host's name now where the host's name is shown.
    let out = run(dir.path(), &["export", "--quiet"], &[]);
    assert!(out.status.success(), "{}", show(&out));
    let doc = read_json(&dir.path().join(format!("site/g/{b_id}/dataset.json")));
    assert_eq!(doc["dataset"]["runs"].as_array().unwrap().len(), 3);
    assert_eq!(doc["dataset"]["context"]["repository"], new);
    let signals = doc["dataset"]["signals"].as_array().unwrap();
    assert!(!signals.is_empty());
    let prefix = format!("{}:{b}:", case.kind);
    assert!(
        signals
            .iter()
            .all(|s| s["id"].as_str().unwrap().starts_with(&prefix)),
        "{prefix}"
    );
    assert!(
        !dir.path()
            .join(format!("site/g/{}", new.rsplit('/').next().unwrap()))
            .exists()
    );
    let dataset = format!("site/g/{b_id}/dataset.json");
    let out = run(dir.path(), &["validate", &dataset], &[]);
    assert!(out.status.success(), "{}", show(&out));
    // The page links to the host under the host's name now.
    let page =
        std::fs::read_to_string(dir.path().join(format!("site/g/{b_id}/index.html"))).unwrap();
    let link = page
        .lines()
        .find(|l| l.contains("class=\"repo-link\""))
        .unwrap_or_default();
    assert!(link.contains(&format!("{new}</a>")), "{link}");
}

#[test]
fn a_github_organisation_renames_a_repository_and_the_next_listing_follows_it() {
    let start = Timestamp::now() - SignedDuration::from_hours(72);
    let mut scenario = Scenario::default();
    scenario.orgs.insert("org".into());
    for (i, name) in ["org/a", "org/b", "org/c"].iter().enumerate() {
        github_repo(&mut scenario, name, 700 + i as u64, start);
    }
    an_owner_renames_a_repository_and_the_next_listing_follows_it(
        RenameCase {
            name: "orgs-rename-github",
            kind: "github",
            owner: "org",
            repos: ["org/a", "org/b", "org/c"],
            renamed_to: "org/bee",
            listing: "/orgs/",
            asks_for: github_asks_for,
            json: false,
        },
        scenario,
    );
}

#[test]
fn a_gitlab_group_renames_a_project_and_the_next_listing_follows_it() {
    let start = Timestamp::now() - SignedDuration::from_hours(72);
    let mut scenario = Scenario {
        flavor: signals_testhost::Flavor::Gitlab,
        ..Scenario::default()
    };
    for (i, path) in ["grp/top", "grp/mid", "grp/sub/low"].iter().enumerate() {
        let mut one = synthetic_gitlab(path, 3, start);
        let data = one.repos.get_mut(*path).unwrap();
        data.repo["id"] = json!(7000 + i as u64);
        data.repo["visibility"] = json!("public");
        scenario.repos.extend(one.repos);
    }
    scenario.orgs.insert("grp".into());
    scenario.orgs.insert("grp/sub".into());
    an_owner_renames_a_repository_and_the_next_listing_follows_it(
        RenameCase {
            name: "orgs-rename-gitlab",
            kind: "gitlab",
            owner: "grp",
            repos: ["grp/mid", "grp/sub/low", "grp/top"],
            renamed_to: "grp/sub/lower",
            listing: "/api/v4/groups/",
            asks_for: gitlab_asks_for,
            json: true,
        },
        scenario,
    );
}

/// The same on PostgreSQL, where a worker's round collects what the
/// store's listing holds: the renamed repository is asked under its new
/// name, under its old id and signal ids.
#[test]
fn a_worker_on_postgresql_follows_a_rename_too() {
    let Some(cluster) = crate::workers::cluster() else {
        return;
    };
    let url = cluster.create_database("orgs_rename").unwrap();
    let start = Timestamp::now() - SignedDuration::from_hours(72);
    let mut scenario = Scenario::default();
    scenario.orgs.insert("org".into());
    for (i, name) in ["org/a", "org/b"].iter().enumerate() {
        github_repo(&mut scenario, name, 800 + i as u64, start);
    }
    let host = TestHost::start(scenario.clone()).unwrap();
    let dir = setup("orgs-rename-pg", "github", &host.api_url(), &["org"], "");
    // Every round lists the owner and collects every repository.
    let round = || {
        let out = run(
            dir.path(),
            &["collect", "--json", "--store", &url, "--interval", "0s"],
            &[],
        );
        assert!(out.status.success(), "{}", show(&out));
        serde_json::from_slice::<Value>(&out.stdout).unwrap()
    };
    assert_eq!(collected(&round()), vec!["org/a", "org/b"]);

    rename_on_host(&mut scenario, "org/b", "org/bee");
    let issue = &mut scenario.repos.get_mut("org/bee").unwrap().issues[0];
    issue["title"] = json!("Edited after the rename");
    issue["updated_at"] = json!(Timestamp::now().strftime("%Y-%m-%dT%H:%M:%SZ").to_string());
    host.set_scenario(scenario);
    host.clear_requests();
    let second = round();
    assert_eq!(collected(&second), vec!["org/a", "org/bee"], "{second}");
    assert_eq!(
        second["owners"][0]["renamed"],
        json!([{"from": "org/b", "to": "org/bee"}])
    );
    assert_eq!(
        (second["newCount"].clone(), second["changedCount"].clone()),
        (json!(0), json!(1)),
        "{second}"
    );
    let paths: Vec<String> = host.requests().into_iter().map(|r| r.path).collect();
    assert!(
        !paths.iter().any(|p| github_asks_for(p, "org/b")),
        "{paths:?}"
    );
    let runs = crate::workers::runs_per_repo(&url);
    assert_eq!(runs.len(), 2, "{runs:?}");
    assert!(runs.values().all(|c| *c == 2), "{runs:?}");
    let out = run(dir.path(), &["status", "--json", "--store", &url], &[]);
    assert!(out.status.success(), "{}", show(&out));
    let st: Value = serde_json::from_slice(&out.stdout).unwrap();
    let b = st["repositories"]
        .as_array()
        .unwrap()
        .iter()
        .find(|r| r["repository"] == "b")
        .unwrap();
    assert_eq!(
        (
            b["repo"].clone(),
            b["owner"]["repo"].clone(),
            b["owner"]["state"].clone()
        ),
        (json!("org/b"), json!("org/bee"), json!("tracked"))
    );
}
