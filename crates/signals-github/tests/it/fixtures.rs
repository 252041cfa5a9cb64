//! Recorded GitHub bodies (tests/data, see SOURCES.md) served by the test
//! host and decoded by the client into domain types.

use serde_json::{Value, json};
use signals_core::model::{ItemDetail, ItemKind, ItemState};
use signals_github::MemoryCache;
use signals_testhost::{RepoData, Scenario, TestHost};

use crate::{client, name, ts};

fn data(file: &str) -> Value {
    let path = format!("{}/tests/data/{file}", env!("CARGO_MANIFEST_DIR"));
    serde_json::from_slice(&std::fs::read(path).unwrap()).unwrap()
}

fn list(file: &str) -> Vec<Value> {
    data(file).as_array().unwrap().clone()
}

#[test]
fn github3_repo_milestones_release_and_betamax_issues() {
    let mut issues = list("issues.betamaxpy_betamax.state_all.page1.json");
    issues.extend(list("issues.betamaxpy_betamax.state_all.page2.json"));
    let mut scenario = Scenario::default();
    scenario.repos.insert(
        "sigmavirus24/github3.py".into(),
        RepoData {
            repo: data("repo.sigmavirus24_github3.py.json"),
            releases: vec![data("releases_latest.sigmavirus24_github3.py.json")],
            milestones: list("milestones.sigmavirus24_github3.py.json"),
            issues,
            // Recorded a second after the repository: its 11 open pulls.
            pulls: list("pulls.sigmavirus24_github3.py.json"),
            ..RepoData::default()
        },
    );
    let host = TestHost::start(scenario).unwrap();
    let (mut c, _) = client(&host, &[]);
    let got = c
        .collect(
            &name("sigmavirus24/github3.py"),
            ts("2010-01-01T00:00:00Z"),
            &mut MemoryCache::new(),
        )
        .unwrap();
    // repo + open pulls count + releases + advisories (the recording has
    // none: a 404, which is none) + milestones + 2 issue pages (150
    // entries, from 2017: no `merged_at`) + 1 page of closed pulls, which
    // has none of the 64 closed betamax pull requests.
    assert_eq!(got.stats.requests, 8);
    assert_eq!(got.renamed_to, None);

    let ctx = &got.collected.context;
    assert_eq!(ctx.repository, name("sigmavirus24/github3.py"));
    assert_eq!(ctx.url, "https://github.com/sigmavirus24/github3.py");
    // `open_issues_count` 80 counts the 11 open pull requests too.
    assert_eq!(
        (ctx.stars, ctx.forks, ctx.open_issues),
        (1064, 387, 80 - 11)
    );
    assert_eq!(ctx.license, None, "NOASSERTION is no SPDX id");
    assert_eq!(ctx.language, "Python");
    assert_eq!(ctx.default_branch, "main");
    assert_eq!(ctx.homepage, "https://github3.readthedocs.io");
    assert_eq!(&ctx.topics[..3], ["github", "github-api", "python"]);
    assert!(!ctx.archived);

    let ms = &got.collected.milestones;
    assert_eq!(ms.len(), 6);
    assert_eq!(
        (ms[1].title.as_str(), ms[1].open_issues, ms[1].closed_issues),
        ("1.0", 9, 24)
    );
    assert_eq!(ms[3].due_on, Some(ts("2015-01-06T08:00:00Z")));

    let rel = &got.collected.releases;
    assert_eq!(rel.len(), 1);
    assert_eq!(
        (rel[0].key.as_str(), rel[0].title.as_str()),
        ("0.9.3", "0.9.3")
    );
    assert_eq!(rel[0].updated_at, ts("2014-11-29T02:40:20Z"));
    assert_eq!(rel[0].created_at, ts("2014-11-05T02:15:32Z"));
    assert_eq!(rel[0].author, "sigmavirus24");
    assert_eq!(rel[0].state, ItemState::Closed);
    assert_eq!(
        rel[0].detail,
        ItemDetail::Release {
            prerelease: false,
            published_at: ts("2014-11-29T02:40:20Z")
        }
    );

    // The 64 closed pull requests whose merge state nothing settled are
    // left out, never reported as not merged; the 3 open ones stay.
    let items = &got.collected.items;
    assert_eq!(items.len(), 150 - 64);
    assert_eq!(
        items
            .iter()
            .filter(|i| i.kind() == ItemKind::PullRequest)
            .count(),
        3
    );
    // sort=updated&direction=asc
    assert!(items.windows(2).all(|w| w[0].updated_at <= w[1].updated_at));
    let i150 = items.iter().find(|i| i.key == "150").unwrap();
    assert_eq!(i150.author, "facetoe");
    assert_eq!(i150.state, ItemState::Closed);
    assert_eq!(i150.metrics.comments, 10);
    assert_eq!(i150.metrics.reactions, 0, "2017 answers have no reactions");
    assert_eq!(i150.updated_at, ts("2017-12-20T08:29:30Z"));
    assert_eq!(i150.detail, ItemDetail::issue());
    assert!(i150.url.ends_with("/betamax/issues/150"));
    assert!(items.iter().all(|i| i.key != "50"), "closed, merge unknown");
    assert!(items.iter().any(|i| !i.labels.is_empty()));
}

/// Serves the recorded betamax issue pages with `pulls` (the repository
/// object made of recorded facts, as in the demo), collects them since
/// `since`, and gives the host (for its requests) and the collection.
fn collect_betamax(
    issues: Vec<Value>,
    pulls: Vec<Value>,
    since: &str,
) -> (TestHost, signals_github::Collection) {
    let mut scenario = Scenario::default();
    scenario.repos.insert(
        "betamaxpy/betamax".into(),
        RepoData {
            repo: json!({ "id": 11439734, "full_name": "betamaxpy/betamax",
                          "html_url": "https://github.com/betamaxpy/betamax" }),
            issues,
            pulls,
            ..RepoData::default()
        },
    );
    let host = TestHost::start(scenario).unwrap();
    let (mut c, _) = client(&host, &[]);
    let got = c
        .collect(
            &name("betamaxpy/betamax"),
            ts(since),
            &mut MemoryCache::new(),
        )
        .unwrap();
    (host, got)
}

/// Recorded pre-2022 issue pages (no `pull_request.merged_at`)
/// with a pulls list that settles them. The pulls list is not recorded:
/// it is made from the recorded entries (number, state, times), and which
/// of them were merged is chosen here (every pull request whose number is
/// even), so the test knows the answer; GitHub's pulls objects always
/// carry `merged_at`, `null` when not merged.
#[test]
fn issue_16_pre_2022_pull_requests_are_settled_by_the_pulls_list() {
    let mut issues = list("issues.betamaxpy_betamax.state_all.page1.json");
    issues.extend(list("issues.betamaxpy_betamax.state_all.page2.json"));
    assert!(
        issues
            .iter()
            .filter(|i| i.get("pull_request").is_some())
            .all(|i| i["pull_request"].get("merged_at").is_none()),
        "the recorded shape has no merged_at"
    );
    let pulls: Vec<Value> = issues
        .iter()
        .filter(|i| i.get("pull_request").is_some())
        .map(|i| {
            let number = i["number"].as_u64().unwrap();
            let merged = i["state"] == "closed" && number.is_multiple_of(2);
            json!({
                "number": number,
                "state": i["state"],
                "created_at": i["created_at"],
                "updated_at": i["updated_at"],
                "closed_at": i["closed_at"],
                "merged_at": if merged { i["closed_at"].clone() } else { Value::Null },
            })
        })
        .collect();
    let closed = pulls.iter().filter(|p| p["state"] == "closed").count();
    assert_eq!(closed, 64);
    let (host, got) = collect_betamax(issues, pulls, "2010-01-01T00:00:00Z");
    let items = &got.collected.items;
    assert_eq!(
        items.len(),
        150,
        "every pull request settled, none left out"
    );
    let mut merged = 0;
    for item in items {
        let ItemDetail::PullRequest {
            merged: m,
            merged_at,
            ..
        } = &item.detail
        else {
            continue;
        };
        let number: u64 = item.key.parse().unwrap();
        let expect = item.state == ItemState::Closed && number.is_multiple_of(2);
        assert_eq!(*m, expect, "#{number}");
        assert_eq!(merged_at.is_some(), expect, "#{number}");
        if expect {
            assert_eq!(*merged_at, item.closed_at, "#{number}");
            merged += 1;
        }
    }
    assert!(merged > 20, "{merged}");
    // The documented budget: 4 + ceil(150 / 100) for the lists, and at
    // most ceil(64 unknown / 100) + 1 pages of closed pulls; 64 fit in one.
    let pull_pages = host
        .requests()
        .iter()
        .filter(|r| r.path.contains("/pulls?state=closed"))
        .count();
    assert_eq!(pull_pages, 1);
    assert!(pull_pages <= 64usize.div_ceil(100) + 1);
    assert_eq!(got.stats.requests, 5 + 2 + 1);
}

/// The closed pulls list is read only as far back as the window: a page
/// reaching before `since` ends it, and what is still unknown then is
/// left out (here: 150 closed pull requests, pages of 100, the window
/// holding the newest 3; the pulls list is made as in the test above).
#[test]
fn issue_16_merge_settling_stops_at_the_window_and_the_budget() {
    let mut issues = list("issues.betamaxpy_betamax.state_all.page1.json");
    issues.extend(list("issues.betamaxpy_betamax.state_all.page2.json"));
    let mut pulls: Vec<Value> = issues
        .iter()
        .filter(|i| i.get("pull_request").is_some() && i["state"] == "closed")
        .map(|i| {
            json!({ "number": i["number"], "state": "closed",
                         "updated_at": i["updated_at"], "merged_at": i["closed_at"] })
        })
        .collect();
    // A closed pull request of the window that the pulls list does not
    // hold (made here from entry #50, renumbered): nothing settles it.
    let mut orphan = issues.iter().find(|i| i["number"] == 50).unwrap().clone();
    orphan["number"] = json!(99_999);
    orphan["updated_at"] = json!("2017-06-01T00:00:00Z");
    issues.push(orphan);
    // Older closed pull requests, not in the window, fill more pages.
    for n in 0..200u64 {
        pulls.push(json!({ "number": 100_000 + n, "state": "closed",
                           "updated_at": "2013-01-01T00:00:00Z", "merged_at": null }));
    }
    let (host, got) = collect_betamax(issues, pulls, "2017-01-01T00:00:00Z");
    let pull_pages = host
        .requests()
        .iter()
        .filter(|r| r.path.contains("/pulls?state=closed"))
        .count();
    assert_eq!(pull_pages, 1, "the first page already reaches before since");
    assert!(
        got.collected.items.iter().all(|i| i.key != "99999"),
        "unsettled: left out"
    );
    assert!(got.collected.items.iter().any(|i| i.key == "150"));
    for item in &got.collected.items {
        if let ItemDetail::PullRequest { merged, .. } = item.detail {
            assert!(merged || item.state == ItemState::Open, "{}", item.key);
        }
    }
}

#[test]
fn octokit_and_sferik_issue_pages() {
    let mut scenario = Scenario::default();
    let mut issues = list("issues.octokit-fixture-org_paginate.per_page3.page1.json");
    issues.extend(list(
        "issues.octokit-fixture-org_paginate.per_page3.page5.json",
    ));
    let repo = |full: &str, id: u64| json!({ "id": id, "full_name": full, "html_url": format!("https://github.com/{full}") });
    scenario.repos.insert(
        "octokit-fixture-org/paginate".into(),
        RepoData {
            repo: repo("octokit-fixture-org/paginate", 1),
            issues,
            ..RepoData::default()
        },
    );
    scenario.repos.insert(
        "sferik/rails_admin".into(),
        RepoData {
            repo: data("repo.github_linguist.json"),
            issues: list("issues.sferik_rails_admin.page1.json"),
            ..RepoData::default()
        },
    );
    let host = TestHost::start(scenario).unwrap();
    let (mut c, _) = client(&host, &[]);
    let mut cache = MemoryCache::new();
    let got = c
        .collect(
            &name("octokit-fixture-org/paginate"),
            ts("2022-01-01T00:00:00Z"),
            &mut cache,
        )
        .unwrap();
    assert_eq!(got.collected.items.len(), 4);
    let i13 = got.collected.items.iter().find(|i| i.key == "13").unwrap();
    assert_eq!(
        (i13.title.as_str(), i13.author.as_str()),
        ("Test issue 13", "octokit-fixture-user-a")
    );
    assert_eq!(i13.state, ItemState::Open);
    assert_eq!(got.collected.context.description, "");

    // The linguist repo answer (2017, no `license` key) stands in for the
    // repository object; its name differs but no redirect happened.
    let got = c
        .collect(
            &name("sferik/rails_admin"),
            ts("2016-10-01T00:00:00Z"),
            &mut cache,
        )
        .unwrap();
    assert_eq!(got.renamed_to, None);
    assert_eq!(got.collected.context.repository, name("github/linguist"));
    assert_eq!(got.collected.context.license, None);
    let items = &got.collected.items;
    assert!(!items.is_empty() && items.len() <= 30);
    assert!(
        items
            .iter()
            .all(|i| i.updated_at >= ts("2016-10-01T00:00:00Z"))
    );
    let first = items.iter().find(|i| i.key == "2746").unwrap();
    assert_eq!(first.author, "nengine");
    assert_eq!(first.created_at, ts("2016-10-20T14:26:39Z"));
}
