//! A host crate is its URLs, its `Protocol` and its wire types: a fourth
//! host, written here as nothing but those (a Gitea-style API whose JSON
//! is the shared REST v3 shapes, so it needs no wire type of its own),
//! collects a repository through the shared `HostClient` from a loopback
//! server (`signals_testhost`'s Forgejo flavor), with the same requests
//! the Forgejo crate sends.

use std::time::Duration;

use jiff::{SignedDuration, Timestamp};
use signals_core::model::{ItemDetail, ItemKind, RepoName};
use signals_http::wire::{Conventions, Kinds, ListedRepo, v3};
use signals_http::{
    Config, Error, Headers, Host, HostClient, ItemList, MemoryCache, Protocol, RateLimit,
    RateLimitHeaders, Refusal,
};
use signals_testhost::{Fault, TestHost, synthetic_forgejo};

/// The whole of the fourth host: its dialect…
#[derive(Debug, Clone, Default)]
struct Fourth;

const RATE_LIMIT: RateLimitHeaders = RateLimitHeaders {
    limit: "x-ratelimit-limit",
    remaining: "x-ratelimit-remaining",
    reset: "x-ratelimit-reset",
    used: None,
    resource: None,
};

impl Protocol for Fourth {
    fn name(&self) -> &'static str {
        "Fourth"
    }
    fn request_headers(&self) -> &'static [(&'static str, &'static str)] {
        &[("Accept", "application/json")]
    }
    fn auth_header(&self, secret: &str) -> (&'static str, String) {
        ("Authorization", format!("token {secret}"))
    }
    fn rate_limit(&self, headers: &Headers<'_>) -> Option<RateLimit> {
        RATE_LIMIT.read(headers)
    }
    fn error_message(&self, body: &[u8]) -> String {
        signals_http::body_start(body)
    }
    fn refusal(&self, status: u16, _: &str, headers: &Headers<'_>, _: Option<u64>) -> Refusal {
        RATE_LIMIT.refusal_429(status, headers)
    }
}

/// …and its URLs.
impl Host for Fourth {
    const API_URL: &'static str = "https://fourth.example/api/v1";
    const PER_PAGE: u32 = 50;
    const CONVENTIONS: Conventions = Conventions {
        ghost: "Ghost",
        wip_prefixes: &["WIP:"],
    };
    const OWNER_KINDS: &'static str = "an organisation or a user";
    type Repo = v3::Repository;
    type Release = v3::Release;
    type Milestone = v3::Milestone;
    type Item = v3::Issue;
    type Listed = ListedRepo;

    fn releases_url(&self, root: &str) -> String {
        format!("{root}/releases?limit=50")
    }
    fn milestones_url(&self, root: &str) -> String {
        format!("{root}/milestones?state=open&limit=50")
    }
    fn item_lists(&self, root: &str, since: &str) -> Vec<ItemList> {
        vec![ItemList {
            url: format!("{root}/issues?state=all&since={since}&limit=50"),
            kinds: Kinds::Both,
            disabled: None,
        }]
    }
    fn owner_urls(&self, base: &str, owner: &str) -> Vec<String> {
        vec![
            format!("{base}/orgs/{owner}/repos?limit=50"),
            format!("{base}/users/{owner}/repos?limit=50"),
        ]
    }
}

#[test]
fn a_fourth_host_is_its_urls_protocol_and_wire_types() {
    let start = Timestamp::now() - SignedDuration::from_hours(24 * 30);
    let host = TestHost::start(synthetic_forgejo("owner/repo", 120, start)).unwrap();
    let mut client = HostClient::<Fourth>::new(Config {
        base_url: host.api_url(),
        timeout: Duration::from_secs(5),
        ..Config::default()
    })
    .unwrap();
    let got = client
        .collect(
            &RepoName::parse("owner/repo").unwrap(),
            start,
            &mut MemoryCache::new(),
        )
        .unwrap();
    let items = &got.collected.items;
    assert_eq!(items.len(), 120);
    let pulls = items.iter().filter(|i| i.kind() == ItemKind::PullRequest);
    assert_eq!(pulls.count(), 40);
    assert!(
        items
            .iter()
            .any(|i| matches!(i.detail, ItemDetail::PullRequest { merged: true, .. }))
    );
    assert!(
        items
            .iter()
            .all(|i| !i.title.is_empty() && !i.url.is_empty())
    );
    assert!(!got.collected.releases.is_empty());
    let context = &got.collected.context;
    assert_eq!(context.repository.to_string(), "owner/repo");
    assert!(context.url.starts_with("https://forgejo.example/"));
    assert_eq!(got.renamed_to, None);
    // Repository, releases, milestones and 3 pages of 50: what the
    // Forgejo crate sends for the same repository.
    assert_eq!(got.stats.requests, 6);
    assert_eq!(host.request_count(), 6);
}

/// Found by the `collect` fuzz target (docs/fuzzing.md): a throttle whose
/// `Retry-After` ends past the year 9999 made the request loop panic
/// (adding the wait to now overflowed); it is a rate limit like any wait
/// longer than `max_wait`, until the latest instant there is.
#[test]
fn fuzz_retry_after_past_the_year_9999() {
    let host = TestHost::start(synthetic_forgejo("owner/repo", 1, Timestamp::now())).unwrap();
    for retry_after in [u64::MAX, 300_000_000_000] {
        host.inject(Fault::Secondary {
            status: 429,
            retry_after: Some(retry_after),
        });
        let mut client = HostClient::<Fourth>::new(Config {
            base_url: host.api_url(),
            timeout: Duration::from_secs(5),
            ..Config::default()
        })
        .unwrap();
        let repo = RepoName::parse("owner/repo").unwrap();
        match client.collect(&repo, Timestamp::now(), &mut MemoryCache::new()) {
            Err(Error::RateLimited { until, .. }) => assert_eq!(until, Some(Timestamp::MAX)),
            other => panic!("{other:?}"),
        }
    }
}
