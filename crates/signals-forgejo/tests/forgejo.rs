//! The one integration test binary of signals-forgejo: the real client
//! against a loopback `signals_testhost` Forgejo flavor. Nothing here
//! touches the internet. (Budgets, faults and token safety end to end are
//! in the binary's `tests/it/hosts.rs`.)

use std::time::Duration;

use jiff::{SignedDuration, Timestamp};
use signals_core::model::{ItemDetail, ItemKind, RepoName};
use signals_forgejo::{Client, Config, MemoryCache, Token};
use signals_testhost::{TestHost, synthetic_forgejo};

const REPO: &str = "owner/repo";

fn start() -> Timestamp {
    Timestamp::now() - SignedDuration::from_hours(24 * 30)
}

fn client(host: &TestHost, tokens: &[(&str, &str)]) -> Client {
    Client::new(Config {
        base_url: host.api_url(),
        tokens: tokens.iter().map(|(e, t)| Token::new(*e, *t)).collect(),
        timeout: Duration::from_secs(5),
        retry_base: Duration::from_millis(10),
        ..Config::default()
    })
    .unwrap()
}

fn name(s: &str) -> RepoName {
    RepoName::parse(s).unwrap()
}

#[test]
fn one_list_in_pages_of_50_holds_issues_and_pulls() {
    let host = TestHost::start(synthetic_forgejo(REPO, 120, start())).unwrap();
    let mut c = client(&host, &[("FORGEJO_TOKEN", "fj-secret")]);
    let got = c
        .collect(&name(REPO), start(), &mut MemoryCache::new())
        .unwrap();
    let items = &got.collected.items;
    assert_eq!(items.len(), 120);
    assert_eq!(
        items
            .iter()
            .filter(|i| i.kind() == ItemKind::PullRequest)
            .count(),
        40
    );
    assert!(
        items
            .iter()
            .any(|i| matches!(i.detail, ItemDetail::PullRequest { merged: true, .. }))
    );
    // repository, releases, milestones, 3 pages of 50.
    assert_eq!(got.stats.requests, 6);
    let issue_requests: Vec<_> = host
        .requests()
        .into_iter()
        .filter(|r| r.path.contains("/issues?"))
        .collect();
    assert_eq!(issue_requests.len(), 3);
    assert!(
        issue_requests
            .iter()
            .all(|r| r.path.contains("limit=50") && !r.path.contains("type="))
    );
    assert!(
        host.requests()
            .iter()
            .all(|r| r.header("authorization") == Some("token fj-secret"))
    );
    // Drafts are no releases; milestones carry the API's counts.
    assert_eq!(got.collected.releases.len(), 1);
    assert_eq!(got.collected.milestones.len(), 1);
    assert_eq!(
        got.collected.milestones[0].url,
        "https://forgejo.example/owner/repo/milestone/7002"
    );
    assert_eq!(
        got.collected.context.license.as_deref(),
        Some("GPL-3.0-or-later")
    );
    // No validators, so nothing is cached and nothing can be a 304.
    let mut cache = MemoryCache::new();
    c.collect(&name(REPO), start(), &mut cache).unwrap();
    assert!(cache.is_empty());
}

#[test]
fn a_renamed_repository_follows_the_redirect() {
    let mut scenario = synthetic_forgejo(REPO, 3, start());
    scenario
        .renamed
        .insert("owner/old-name".into(), REPO.into());
    let host = TestHost::start(scenario).unwrap();
    let mut c = client(&host, &[]);
    let got = c
        .collect(&name("owner/old-name"), start(), &mut MemoryCache::new())
        .unwrap();
    assert_eq!(got.renamed_to, Some(name(REPO)));
    assert_eq!(got.collected.items.len(), 3);
    let statuses: Vec<Option<u16>> = host.requests().iter().map(|r| r.status).collect();
    assert_eq!(statuses[0], Some(307));
}
