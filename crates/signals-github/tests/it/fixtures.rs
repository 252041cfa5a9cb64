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
    // repo + releases + milestones + 2 issue pages (150 entries).
    assert_eq!(got.stats.requests, 5);
    assert_eq!(got.renamed_to, None);

    let ctx = &got.collected.context;
    assert_eq!(ctx.repository, name("sigmavirus24/github3.py"));
    assert_eq!(ctx.url, "https://github.com/sigmavirus24/github3.py");
    assert_eq!((ctx.stars, ctx.forks, ctx.open_issues), (1064, 387, 80));
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

    let items = &got.collected.items;
    assert_eq!(items.len(), 150);
    assert_eq!(
        items
            .iter()
            .filter(|i| i.kind() == ItemKind::PullRequest)
            .count(),
        67
    );
    // sort=updated&direction=asc
    assert!(items.windows(2).all(|w| w[0].updated_at <= w[1].updated_at));
    let i150 = items.iter().find(|i| i.key == "150").unwrap();
    assert_eq!(i150.author, "facetoe");
    assert_eq!(i150.state, ItemState::Closed);
    assert_eq!(i150.metrics.comments, 10);
    assert_eq!(i150.metrics.reactions, 0, "2017 answers have no reactions");
    assert_eq!(i150.updated_at, ts("2017-12-20T08:29:30Z"));
    assert_eq!(i150.detail, ItemDetail::Issue);
    assert!(i150.url.ends_with("/betamax/issues/150"));
    let pr50 = items.iter().find(|i| i.key == "50").unwrap();
    assert_eq!(pr50.title, "Fix some docstrings.");
    assert_eq!(
        pr50.detail,
        ItemDetail::PullRequest {
            draft: false,
            merged: false,
            merged_at: None
        }
    );
    assert!(items.iter().any(|i| !i.labels.is_empty()));
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
