//! Full collections against the synthetic host: request counts, headers,
//! pagination, conditional requests and renames.

use signals_core::model::ItemKind;
use signals_github::{Client, Config, MemoryCache, ResponseCache};
use signals_testhost::TestHost;

use crate::{client, name, scenario, synthetic_host, ts};

#[test]
fn paginates_250_items_in_3_pages_with_github_headers() {
    let host = synthetic_host(250);
    let (mut c, sleeps) = client(&host, &[("GITHUB_TOKEN", "tok-1")]);
    let since = ts("2025-01-01T00:00:00.750Z");
    let got = c
        .collect(&name("o/n"), since, &mut MemoryCache::new())
        .unwrap();
    assert_eq!(got.collected.items.len(), 250);
    assert_eq!(got.stats.requests, 4 + 3);
    assert_eq!((got.stats.not_modified, got.stats.retries), (0, 0));
    assert!(got.stats.bytes_received > 50_000);
    assert!(sleeps.all().is_empty());
    assert_eq!(
        got.collected.releases.len(),
        1,
        "the draft release is skipped"
    );
    assert_eq!(got.collected.milestones.len(), 1, "only open milestones");
    let keys: Vec<u64> = got
        .collected
        .items
        .iter()
        .map(|i| i.key.parse().unwrap())
        .collect();
    assert_eq!(keys, (1..=250).collect::<Vec<_>>());
    assert_eq!(
        got.collected
            .items
            .iter()
            .filter(|i| i.kind() == ItemKind::PullRequest)
            .count(),
        83
    );

    let reqs = host.requests();
    let paths: Vec<&str> = reqs.iter().map(|r| r.path.as_str()).collect();
    assert_eq!(
        paths[..5],
        [
            "/repos/o/n",
            "/repos/o/n/pulls?state=open&per_page=1",
            "/repos/o/n/releases?per_page=100",
            "/repos/o/n/milestones?state=open&per_page=100",
            "/repos/o/n/issues?state=all&sort=updated&direction=asc&since=2025-01-01T00:00:00Z&per_page=100",
        ]
    );
    assert!(paths[5].ends_with("&page=2") && paths[6].ends_with("&page=3"));
    for r in &reqs {
        assert_eq!(
            r.header("user-agent"),
            Some(concat!("repo-signals/", env!("CARGO_PKG_VERSION")))
        );
        assert_eq!(r.header("accept"), Some("application/vnd.github+json"));
        assert_eq!(r.header("x-github-api-version"), Some("2022-11-28"));
        assert_eq!(r.header("authorization"), Some("Bearer tok-1"));
    }
    let rl = c.rate_limit().unwrap();
    assert_eq!((rl.limit, rl.remaining), (5000, 4993));
    assert_eq!(rl.resource.as_deref(), Some("core"));
}

#[test]
fn since_filters_and_an_empty_window_still_asks_once() {
    let host = synthetic_host(250);
    let (mut c, _) = client(&host, &[]);
    assert!(!c.is_authenticated());
    // Item n is updated at (n-1) minutes + 30 s.
    let got = c
        .collect(
            &name("o/n"),
            ts("2025-01-01T04:00:30Z"),
            &mut MemoryCache::new(),
        )
        .unwrap();
    assert_eq!(got.collected.items.len(), 10);
    assert_eq!(got.stats.requests, 5);
    let got = c
        .collect(
            &name("o/n"),
            ts("2030-01-01T00:00:00Z"),
            &mut MemoryCache::new(),
        )
        .unwrap();
    assert!(got.collected.items.is_empty());
    assert_eq!(got.stats.requests, 5);
    assert!(
        host.requests()
            .iter()
            .all(|r| r.header("authorization").is_none())
    );
}

#[test]
fn second_collect_is_all_304_and_identical() {
    let host = synthetic_host(250);
    let (mut c, _) = client(&host, &[("T", "tok")]);
    let mut cache = MemoryCache::new();
    let since = ts("2024-12-31T00:00:00Z");
    let first = c.collect(&name("o/n"), since, &mut cache).unwrap();
    assert_eq!(cache.len(), 6);
    let remaining = c.rate_limit().unwrap().remaining;
    let second = c.collect(&name("o/n"), since, &mut cache).unwrap();
    assert_eq!(second.collected, first.collected);
    // Everything but the count of open pull requests, which is asked
    // unconditionally (its `Link` header is the count).
    assert_eq!(second.stats.requests, 7);
    assert_eq!(second.stats.not_modified, 6);
    assert_eq!(
        c.rate_limit().unwrap().remaining,
        remaining - 1,
        "304s are free; the count is not"
    );
    for r in &host.requests()[7..] {
        if r.path.contains("/pulls?") {
            assert_eq!(r.status, Some(200));
            assert!(r.header("if-none-match").is_none());
        } else {
            assert!(r.status == Some(304) && r.header("if-none-match").is_some());
        }
    }

    // Data changes: the changed answers come back in full.
    let mut changed = scenario(251);
    changed.repos.get_mut("o/n").unwrap().repo["stargazers_count"] = 99.into();
    host.set_scenario(changed);
    let third = c.collect(&name("o/n"), since, &mut cache).unwrap();
    assert_eq!(third.collected.context.stars, 99);
    assert_eq!(third.collected.items.len(), 251);
    // Releases, milestones and the first two issue pages are unchanged; a
    // 304 page keeps its cached `next` link, so the third page is reached.
    assert_eq!(third.stats.not_modified, 4);
    assert_eq!(third.stats.requests, 7);
}

#[test]
fn renamed_repository_follows_301_and_reports_new_name() {
    let mut s = scenario(5);
    s.renamed.insert("old/name".into(), "o/n".into());
    let host = TestHost::start(s).unwrap();
    let (mut c, _) = client(&host, &[]);
    let got = c
        .collect(
            &name("old/name"),
            ts("2020-01-01T00:00:00Z"),
            &mut MemoryCache::new(),
        )
        .unwrap();
    assert_eq!(got.renamed_to, Some(name("o/n")));
    assert_eq!(got.collected.context.repository, name("o/n"));
    assert_eq!(got.collected.items.len(), 5);
    assert!(got.collected.items.iter().all(|i| i.repo == name("o/n")));
    let paths: Vec<String> = host.requests().iter().map(|r| r.path.clone()).collect();
    assert_eq!(
        paths[..2],
        [
            "/repos/old/name".to_string(),
            "/repositories/424242".to_string()
        ]
    );
    assert!(paths[2..].iter().all(|p| p.starts_with("/repos/o/n/")));
    assert_eq!(got.stats.requests, 6);
}

#[test]
fn missing_repository_is_not_found() {
    let host = synthetic_host(1);
    let (mut c, _) = client(&host, &[]);
    let err = c
        .collect(
            &name("o/missing"),
            ts("2020-01-01T00:00:00Z"),
            &mut MemoryCache::new(),
        )
        .unwrap_err();
    assert!(
        matches!(&err, signals_github::Error::NotFound { repo, .. } if *repo == name("o/missing")),
        "{err:?}"
    );
    assert!(err.to_string().contains("o/missing"));
    assert_eq!(host.requests().len(), 1);
}

#[test]
fn base_url_with_trailing_slash() {
    let host = synthetic_host(1);
    let config = Config {
        base_url: format!("{}/", host.base_url()),
        ..crate::config(&host, &[]).0
    };
    let mut c = Client::new(config).unwrap();
    c.collect(
        &name("o/n"),
        ts("2020-01-01T00:00:00Z"),
        &mut MemoryCache::new(),
    )
    .unwrap();
    assert_eq!(host.requests()[0].path, "/repos/o/n");
}

#[test]
fn logger_sees_every_request_without_the_token() {
    let host = synthetic_host(1);
    let (mut c, _) = client(&host, &[("MY_TOKEN", "sekrit-value")]);
    let lines = std::sync::Arc::new(std::sync::Mutex::new(vec![]));
    let sink = lines.clone();
    c.set_logger(Box::new(move |l| {
        sink.lock().unwrap().push(format!("{l:?}"))
    }));
    let mut cache = MemoryCache::new();
    c.collect(&name("o/n"), ts("2020-01-01T00:00:00Z"), &mut cache)
        .unwrap();
    c.collect(&name("o/n"), ts("2020-01-01T00:00:00Z"), &mut cache)
        .unwrap();
    let lines = lines.lock().unwrap();
    assert_eq!(lines.len(), 10);
    assert!(
        lines
            .iter()
            .all(|l| l.contains("MY_TOKEN") && !l.contains("sekrit"))
    );
    // The second collection: all from the cache but the count of open
    // pull requests (the second request of each).
    for (i, l) in lines[5..].iter().enumerate() {
        assert_eq!(l.contains("from_cache: true"), i != 1, "{l}");
    }
    assert!(lines[6].contains("/pulls?"), "{}", lines[6]);
    assert!(
        cache
            .get(&format!("{}/repos/o/n", host.base_url()), "sekrit-value")
            .is_none()
    );
}
