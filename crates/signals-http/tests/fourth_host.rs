//! A host crate is its URLs, its `Protocol` and its wire types: a fourth
//! host, written here as nothing but those (a Gitea-style API whose JSON
//! is the shared REST v3 shapes, so it needs no wire type of its own),
//! collects a repository through the shared `HostClient` from a loopback
//! server (`signals_testhost`'s Forgejo flavor), with the same requests
//! the Forgejo crate sends.

use std::collections::HashMap;
use std::sync::atomic::{AtomicUsize, Ordering};
use std::sync::{Arc, Mutex};
use std::time::Duration;

use jiff::{SignedDuration, Timestamp};
use signals_core::model::{
    DiscussionHead, Discussions, DiscussionsOff, ItemDetail, ItemKind, RepoName,
};
use signals_http::wire::{Conventions, Kinds, ListedRepo, v3};
use signals_http::{
    Config, DiscussionsBefore, Error, Headers, Host, HostClient, ItemList, MemoryCache, Protocol,
    RateLimit, RateLimitHeaders, Refusal,
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
    /// Heads without a server: every repository's newest discussion is
    /// [`OLD`]; each call is counted.
    fn discussion_heads(
        &self,
        _: &mut signals_http::Client,
        repos: &[RepoName],
        _: &mut dyn signals_http::ResponseCache,
    ) -> Result<HashMap<String, DiscussionHead>, Error> {
        HEADS_ASKED.fetch_add(1, Ordering::SeqCst);
        Ok(repos
            .iter()
            .map(|r| {
                (
                    r.to_string().to_lowercase(),
                    DiscussionHead::Enabled(Some(old())),
                )
            })
            .collect())
    }
}

/// Heads queries the fourth host answered.
static HEADS_ASKED: AtomicUsize = AtomicUsize::new(0);

fn old() -> Timestamp {
    "2026-01-01T00:00:00Z".parse().unwrap()
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

/// The round's heads are asked a hundred repositories at a
/// time, when a run may skip its discussions, and used only while fresh
/// (the watermark's margin); the last repository of a round asks its own.
#[test]
fn discussion_heads_are_asked_for_the_round_and_used_while_fresh() {
    let now = Arc::new(Mutex::new(old() + SignedDuration::from_hours(2)));
    let clock = {
        let now = now.clone();
        Arc::new(move || *now.lock().unwrap())
    };
    let mut client = HostClient::<Fourth>::new(Config {
        base_url: "http://127.0.0.1:9/api/v1".into(),
        clock,
        ..Config::default()
    })
    .unwrap();
    let names: Vec<RepoName> = ["o/a", "o/B", "o/c"]
        .iter()
        .map(|n| RepoName::parse(n).unwrap())
        .collect();
    let cache = &mut MemoryCache::new();
    let watermark = old() + SignedDuration::from_hours(1);
    let asked = || HEADS_ASKED.load(Ordering::SeqCst);
    let not_skipped = Discussions::Off(DiscussionsOff::Unsupported);
    client.plan_discussion_heads(&names);
    let before = asked();
    // One query for the three; nothing changed since the watermark.
    for name in &names[..2] {
        let got = client
            .discussions(name, watermark, DiscussionsBefore::Read, cache)
            .unwrap();
        assert_eq!(got, Discussions::Unchanged);
    }
    assert_eq!(asked(), before + 1);
    // A run that may not skip (its previous run did not read them) asks.
    let got = client.discussions(&names[2], watermark, DiscussionsBefore::Unknown, cache);
    assert_eq!(got.unwrap(), not_skipped);
    // A head changed after the watermark: asked.
    let got = client.discussions(&names[2], old(), DiscussionsBefore::Read, cache);
    assert_eq!(got.unwrap(), not_skipped);
    assert_eq!(asked(), before + 1);
    // Eleven minutes on, the heads are stale: asked again for the round's
    // chunk, which its last repository shares with those before it.
    *now.lock().unwrap() += SignedDuration::from_mins(11);
    let got = client.discussions(&names[2], watermark, DiscussionsBefore::Read, cache);
    assert_eq!(got.unwrap(), Discussions::Unchanged);
    assert_eq!(asked(), before + 2);
    let got = client.discussions(&names[1], watermark, DiscussionsBefore::Read, cache);
    assert_eq!(got.unwrap(), Discussions::Unchanged);
    assert_eq!(asked(), before + 2);
    // Not in the round: asked as before.
    let other = RepoName::parse("x/y").unwrap();
    let got = client.discussions(&other, watermark, DiscussionsBefore::Read, cache);
    assert_eq!(got.unwrap(), not_skipped);
    assert_eq!(asked(), before + 2);
}
