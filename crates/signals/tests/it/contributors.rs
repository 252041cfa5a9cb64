//! New and returning contributors end to end: a test host repository
//! whose issues, pull requests and comments come from people spread over
//! twenty weeks (a bot and an ignored account among them), collected by
//! the real binary from its creation and exported; every week of
//! `trends.json` equals a recount made here from the host's data alone.
//! And a maintainer who only merged, as GitHub's `mergedBy` or GitLab's
//! `merge_user` tells, is an active maintainer of the verdict while the
//! merge is in its last 90 days.

use std::collections::BTreeMap;

use jiff::{SignedDuration, Timestamp};
use serde_json::{Value, json};
use signals_testhost::{Flavor, Scenario, TestHost, synthetic, synthetic_gitlab};

use crate::support::{TempDir, count_comments, read_json, run, show};

const DAY: i64 = 24 * 3600;

fn fmt(t: Timestamp) -> String {
    t.strftime("%Y-%m-%dT%H:%M:%SZ").to_string()
}

/// Who wrote what and when, as the host shows it: (login, is a bot, at).
fn contributions(data: &signals_testhost::RepoData) -> Vec<(String, bool, Timestamp)> {
    let mut out = Vec::new();
    for entry in data.issues.iter().chain(&data.comments) {
        let login = entry["user"]["login"].as_str().unwrap().to_string();
        let bot = entry["user"]["type"] == "Bot";
        let at: Timestamp = entry["created_at"].as_str().unwrap().parse().unwrap();
        out.push((login, bot, at));
    }
    out
}

#[test]
fn new_and_returning_contributors_equal_a_recount_of_the_hosts_data() {
    let now = Timestamp::now();
    let start = now - SignedDuration::from_secs(20 * 7 * DAY);
    let mut scenario = synthetic("o/n", 40, start);
    let data = scenario.repos.get_mut("o/n").unwrap();
    data.repo["created_at"] = json!(fmt(start - SignedDuration::from_secs(DAY)));
    let people = [
        "alice",
        "bob",
        "carol",
        "dave",
        "renovate[bot]",
        "ignored-one",
    ];
    for (i, issue) in data.issues.iter_mut().enumerate() {
        let at = start + SignedDuration::from_secs(i as i64 * 3 * DAY);
        issue["created_at"] = json!(fmt(at));
        issue["updated_at"] = json!(fmt(at));
        issue["closed_at"] = Value::Null;
        issue["state"] = json!("open");
        issue["user"] = json!({ "login": people[i % people.len()], "type": "User" });
        if let Some(pr) = issue.get_mut("pull_request") {
            pr["merged_at"] = Value::Null;
        }
    }
    let mut comments = Vec::new();
    for i in 0..70u64 {
        let number = i % 40 + 1;
        let opened = start + SignedDuration::from_secs((number as i64 - 1) * 3 * DAY);
        let at = (opened + SignedDuration::from_secs((i as i64 % 9) * DAY + 3600))
            .min(now - SignedDuration::from_secs(3600));
        let login = [
            "erin",
            "alice",
            "dependabot[bot]",
            "frank",
            "ignored-one",
            "bob",
        ][i as usize % 6];
        let kind = if login.ends_with("[bot]") {
            "Bot"
        } else {
            "User"
        };
        // The web URL tells a pull request's comment from an issue's.
        let path = if (number - 1) % 3 == 2 {
            "pull"
        } else {
            "issues"
        };
        comments.push(json!({
            "id": 50_000 + i,
            "html_url": format!("https://github.com/o/n/{path}/{number}#issuecomment-{}", 50_000 + i),
            "issue_url": format!("https://api.github.com/repos/o/n/issues/{number}"),
            "user": { "login": login, "type": kind },
            "author_association": "NONE",
            "created_at": fmt(at), "updated_at": fmt(at),
            "body": format!("comment {i}"),
        }));
    }
    data.comments = comments;
    count_comments(&mut scenario);
    let host = TestHost::start(scenario.clone()).unwrap();
    let dir = TempDir::new("contributors");
    std::fs::write(
        dir.path().join("signals.toml"),
        format!(
            "store = \"signals.db\"\nout = \"site\"\nbackfill_days = 36500\ncomments_backfill_days = 3650\n\n[host]\napi_url = \"{}\"\n\n[[groups]]\nid = \"g\"\nname = \"G\"\nignore_users = [\"Ignored-One\"]\nrepos = [\"o/n\"]\n",
            host.base_url()
        ),
    )
    .unwrap();
    for args in [&["collect"][..], &["export"]] {
        let out = run(dir.path(), args, &[]);
        assert_eq!(out.status.code(), Some(0), "{}", show(&out));
    }
    let trends = read_json(&dir.path().join("site/g/n/trends.json"));
    let schema: Value =
        serde_json::from_str(include_str!("../../../../schemas/trends-v1.schema.json")).unwrap();
    assert!(
        jsonschema::draft202012::new(&schema)
            .unwrap()
            .is_valid(&trends)
    );

    // The recount: people (no bot, not ignored) by their contributions.
    let mut by_person: BTreeMap<String, Vec<Timestamp>> = BTreeMap::new();
    for (login, bot, at) in contributions(&scenario.repos["o/n"]) {
        if bot || login.ends_with("[bot]") || login.eq_ignore_ascii_case("ignored-one") {
            continue;
        }
        by_person.entry(login).or_default().push(at);
    }
    let weeks = trends["weeks"].as_array().unwrap();
    let mut seen_new = 0;
    for week in weeks {
        let from: Timestamp = format!("{}T00:00:00Z", week["start"].as_str().unwrap())
            .parse()
            .unwrap();
        let to = from + SignedDuration::from_secs(7 * DAY);
        let mut new = 0;
        let mut returning = 0;
        for times in by_person.values() {
            let first = *times.iter().min().unwrap();
            let here = times.iter().any(|t| *t >= from && *t < to);
            if first >= from && first < to {
                new += 1;
            } else if here {
                returning += 1;
            }
        }
        assert_eq!(week["newContributors"], new, "week {week}");
        let here: Vec<(&String, Vec<&Timestamp>)> = by_person
            .iter()
            .map(|(p, t)| (p, t.iter().filter(|t| **t >= from && **t < to).collect()))
            .collect();
        assert_eq!(
            week["returningContributors"], returning,
            "week {week}: {here:?}"
        );
        assert_eq!(week["contributorsSource"], "history");
        seen_new += new;
    }
    // Every person is new in one of the weeks: the history reaches back.
    assert_eq!(seen_new, by_person.len());
    assert!(by_person.len() >= 5, "{by_person:?}");
}

/// A pull (merge) request the host says `by` merged `days` days ago,
/// its entry last updated `hours` ago.
struct Merged {
    number: u64,
    by: &'static str,
    days: i64,
    hours: i64,
}

/// What the merge tests' hosts tell: #1 merged 10 days ago by `merger`;
/// #2 merged 120 days ago by `old-merger` (a label came since). Both
/// updated in the last day, which a first run reads with the defaults.
const MERGED: [Merged; 2] = [
    Merged {
        number: 1,
        by: "merger",
        days: 10,
        hours: 2,
    },
    Merged {
        number: 2,
        by: "old-merger",
        days: 120,
        hours: 3,
    },
];

/// A host of `flavor` whose history, a year long, is longer than every
/// default window, where the pull requests of [`MERGED`] were merged, and
/// a third merger must not count: on GitHub `ancient`, who merged #9 a
/// year ago (its entry not updated since); on GitLab `setter`, who set an
/// open merge request, updated an hour ago, to merge when its pipeline
/// succeeds.
fn merges_scenario(flavor: Flavor) -> Scenario {
    let start = Timestamp::now() - SignedDuration::from_secs(365 * DAY);
    let now = Timestamp::now();
    let ago = |secs: i64| json!(fmt(now - SignedDuration::from_secs(secs)));
    match flavor {
        Flavor::Gitlab => {
            let mut scenario = synthetic_gitlab("o/n", 12, start);
            let data = scenario.repos.get_mut("o/n").unwrap();
            for (m, field) in MERGED.iter().zip(["merge_user", "merged_by"]) {
                let entry = &mut data.merge_requests[m.number as usize - 1];
                assert_eq!(entry["iid"], m.number);
                entry["state"] = json!("merged");
                entry["merged_at"] = ago(m.days * DAY);
                entry["closed_at"] = Value::Null;
                entry["updated_at"] = ago(m.hours * 3600);
                entry[field] = json!({ "id": 7, "username": m.by, "state": "active" });
            }
            let open = data
                .merge_requests
                .iter_mut()
                .find(|e| e["state"] == "opened")
                .unwrap();
            open["merge_user"] = json!({ "username": "setter" });
            open["updated_at"] = ago(3600);
            scenario
        }
        _ => {
            let mut scenario = synthetic("o/n", 12, start);
            let data = scenario.repos.get_mut("o/n").unwrap();
            // Every third entry is a pull request: #3, #6, #9, ...
            let pull = |m: &Merged| m.number * 3;
            for m in &MERGED {
                let entry = data
                    .issues
                    .iter_mut()
                    .find(|i| i["number"] == pull(m))
                    .unwrap();
                assert!(entry.get("pull_request").is_some(), "{entry}");
                entry["state"] = json!("closed");
                entry["closed_at"] = ago(m.days * DAY);
                entry["pull_request"]["merged_at"] = ago(m.days * DAY);
                entry["updated_at"] = ago(m.hours * 3600);
            }
            data.pulls = data.pull_objects();
            let named = MERGED.iter().map(|m| (pull(m), m.by));
            for (number, login) in named.chain([(9, "ancient")]) {
                let pull = data
                    .pulls
                    .iter_mut()
                    .find(|p| p["number"] == number)
                    .unwrap();
                pull["merged_by"] = json!({ "login": login, "type": "User" });
            }
            scenario
        }
    }
}

/// Collects and exports `host` with the default configuration (a host of
/// `kind`, the store at `store`); the site's `verdict.json`, checked
/// against its schema, and the folder.
fn verdict_after_merges(host: &TestHost, kind: &str, store: &str) -> (Value, TempDir) {
    let dir = TempDir::new(&format!("merged-by-{kind}"));
    let interval = match store.starts_with("postgres") {
        true => "interval = \"0s\"\n",
        false => "",
    };
    std::fs::write(
        dir.path().join("signals.toml"),
        format!(
            "store = \"{store}\"\n{interval}out = \"site\"\n\n[host]\nkind = \"{kind}\"\napi_url = \"{}\"\n\n[[groups]]\nid = \"g\"\nname = \"G\"\nrepos = [\"o/n\"]\n",
            host.api_url()
        ),
    )
    .unwrap();
    for args in [&["collect"][..], &["export"]] {
        let out = run(dir.path(), args, &[("GITHUB_TOKEN", "tok")]);
        assert_eq!(out.status.code(), Some(0), "{}", show(&out));
    }
    let verdict = read_json(&dir.path().join("site/g/n/verdict.json"));
    let schema: Value =
        serde_json::from_str(include_str!("../../../../schemas/verdict-v1.schema.json")).unwrap();
    assert!(
        jsonschema::draft202012::new(&schema)
            .unwrap()
            .is_valid(&verdict)
    );
    // Only who merged lately: not who merged before the 90 days, nor who
    // is named of a pull request that is not merged.
    assert_eq!(
        verdict["contributors"]["activeMaintainers"],
        json!(["merger"]),
        "{verdict:#}"
    );
    // A merge is activity, not work: nobody spoke, so no dependency.
    assert_eq!(verdict["contributors"]["dependency"]["count"], 0);
    (verdict, dir)
}

#[test]
fn a_maintainer_who_only_merged_lately_is_active() {
    let host = TestHost::start(merges_scenario(Flavor::Github)).unwrap();
    verdict_after_merges(&host, "github", "signals.db");
    // The reviews query asked who merged: no request more.
    let asked: Vec<String> = host
        .requests()
        .iter()
        .filter(|r| r.path.contains("graphql"))
        .map(|r| r.path.clone())
        .collect();
    assert!(!asked.is_empty(), "the reviews were asked");
}

/// On GitLab, who merged comes with the merge requests list: the same
/// verdict, exported and served, and no request for a merge request alone.
fn a_gitlab_maintainer_who_only_merged_is_active(store: &str) {
    let host = TestHost::start(merges_scenario(Flavor::Gitlab)).unwrap();
    let (verdict, dir) = verdict_after_merges(&host, "gitlab", store);
    let one_merge_request = |path: &str| {
        path.rsplit_once("/merge_requests/")
            .is_some_and(|(_, iid)| iid.parse::<u64>().is_ok())
    };
    let paths: Vec<String> = host
        .requests()
        .into_iter()
        .map(|r| r.path.split('?').next().unwrap_or_default().to_string())
        .collect();
    assert!(
        paths.iter().any(|p| p.ends_with("/merge_requests")),
        "{paths:?}"
    );
    assert!(!paths.iter().any(|p| one_merge_request(p)), "{paths:?}");
    let served = crate::serve::serve_with(dir.path(), &["--store", store], &[]);
    let (status, api) = crate::serve::get(served.port, "/api/repos/g/n/verdict");
    assert_eq!(status, 200, "{api:#}");
    assert_eq!(
        api["contributors"]["activeMaintainers"],
        verdict["contributors"]["activeMaintainers"]
    );
}

#[test]
fn a_gitlab_maintainer_who_only_merged_lately_is_active() {
    a_gitlab_maintainer_who_only_merged_is_active("signals.db");
}

#[test]
fn a_gitlab_maintainer_who_only_merged_lately_is_active_on_postgresql() {
    let Some(cluster) = crate::workers::cluster() else {
        return;
    };
    let url = cluster.create_database("gitlab_merger").unwrap();
    a_gitlab_maintainer_who_only_merged_is_active(&url);
}
