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
    // Repository, releases, advisories, milestones, open pull requests,
    // and three pages of items.
    assert_eq!(got.stats.requests, 5 + 3);
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
            "/repos/o/n/releases?per_page=100",
            "/repos/o/n/security-advisories?sort=updated&direction=desc&per_page=100",
            "/repos/o/n/milestones?state=open&per_page=100",
            "/repos/o/n/issues?state=all&sort=updated&direction=asc&since=2025-01-01T00:00:00Z&per_page=100",
        ]
    );
    assert!(paths[5].ends_with("&page=2") && paths[6].ends_with("&page=3"));
    // After the lists, which tell whether a kept count is still good.
    assert_eq!(paths[7], "/repos/o/n/pulls?state=open&per_page=1");
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
    assert_eq!((rl.limit, rl.remaining), (5000, 4992));
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
    assert_eq!(got.stats.requests, 6);
    let got = c
        .collect(
            &name("o/n"),
            ts("2030-01-01T00:00:00Z"),
            &mut MemoryCache::new(),
        )
        .unwrap();
    assert!(got.collected.items.is_empty());
    assert_eq!(got.stats.requests, 6);
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
    // Seven answers (the advisories' among them), and the count of open
    // pull requests kept with the digest of the lists, under a fragment no
    // request sends.
    assert_eq!(cache.len(), 8);
    let kept: Vec<&str> = cache
        .entries()
        .filter(|(_, _, r)| r.etag.is_none() && r.last_modified.is_none())
        .map(|(u, _, _)| u)
        .collect();
    assert_eq!(
        kept,
        [format!(
            "{}/repos/o/n/pulls?state=open&per_page=1#signals-derived",
            host.base_url()
        )]
    );
    let remaining = c.rate_limit().unwrap().remaining;
    let second = c.collect(&name("o/n"), since, &mut cache).unwrap();
    assert_eq!(second.collected, first.collected);
    // The lists answered as before, so no pull request changed state: the
    // count of open pull requests kept with them is used, unasked.
    assert_eq!(second.stats.requests, 7);
    assert_eq!(second.stats.not_modified, 7);
    assert_eq!(
        c.rate_limit().unwrap().remaining,
        remaining,
        "a quiet run costs no rate limit"
    );
    for r in &host.requests()[8..] {
        assert!(r.status == Some(304) && r.header("if-none-match").is_some());
        assert!(!r.path.contains("/pulls?"), "{}", r.path);
    }

    // Data changes: the changed answers come back in full.
    let mut changed = scenario(251);
    changed.repos.get_mut("o/n").unwrap().repo["stargazers_count"] = 99.into();
    host.set_scenario(changed);
    let third = c.collect(&name("o/n"), since, &mut cache).unwrap();
    assert_eq!(third.collected.context.stars, 99);
    assert_eq!(third.collected.items.len(), 251);
    // Releases, advisories, milestones and the first two issue pages are
    // unchanged; a 304 page keeps its cached `next` link, so the third
    // page is reached.
    assert_eq!(third.stats.not_modified, 5);
    assert_eq!(third.stats.requests, 8);
}

/// Open issues and open pull requests of a scenario's repository `o/n`.
fn open_counts(s: &signals_testhost::Scenario) -> (u64, u64) {
    let issues = &s.repos["o/n"].issues;
    let open = |pull: bool| {
        issues
            .iter()
            .filter(|i| i["state"] == "open" && i.get("pull_request").is_some() == pull)
            .count() as u64
    };
    (open(false), open(true))
}

/// A scenario's repository `o/n` with its first open pull request closed at
/// `at`, and `open_issues_count` (issues and pull requests, as GitHub
/// counts) following.
fn close_a_pull(s: &mut signals_testhost::Scenario, at: &str) -> u64 {
    let data = s.repos.get_mut("o/n").unwrap();
    let pull = data
        .issues
        .iter_mut()
        .find(|i| i["state"] == "open" && i.get("pull_request").is_some())
        .unwrap();
    pull["state"] = "closed".into();
    pull["closed_at"] = at.into();
    pull["updated_at"] = at.into();
    let number = pull["number"].as_u64().unwrap();
    let (issues, pulls) = open_counts(s);
    s.repos.get_mut("o/n").unwrap().repo["open_issues_count"] = (issues + pulls).into();
    number
}

/// The open pull requests counted after the item lists are kept with what
/// the lists answered: a quiet run uses the count unasked (no rate limit
/// spent), and a run whose lists changed (a pull request closed) counts
/// again. `openIssues` is the open issues every time.
#[test]
fn the_open_pull_count_is_kept_while_the_lists_answer_the_same() {
    let mut s = scenario(40);
    let (issues, pulls) = open_counts(&s);
    s.repos.get_mut("o/n").unwrap().repo["open_issues_count"] = (issues + pulls).into();
    assert!(issues > 0 && pulls > 1, "{issues} {pulls}");
    let host = TestHost::start(s.clone()).unwrap();
    let (mut c, _) = client(&host, &[("T", "tok")]);
    let mut cache = MemoryCache::new();
    let since = ts("2024-12-31T00:00:00Z");
    let counts = |host: &TestHost, from: usize| {
        host.requests()[from..]
            .iter()
            .filter(|r| r.path.contains("/pulls?state=open&per_page=1"))
            .count()
    };

    let first = c.collect(&name("o/n"), since, &mut cache).unwrap();
    assert_eq!(first.collected.context.open_issues, issues);
    assert_eq!(counts(&host, 0), 1);

    let asked = host.requests().len();
    let remaining = c.rate_limit().unwrap().remaining;
    let quiet = c.collect(&name("o/n"), since, &mut cache).unwrap();
    assert_eq!(quiet.collected.context.open_issues, issues);
    assert_eq!(counts(&host, asked), 0, "a quiet run does not count again");
    assert_eq!(quiet.stats.requests, quiet.stats.not_modified);
    assert_eq!(c.rate_limit().unwrap().remaining, remaining);

    close_a_pull(&mut s, "2025-01-02T00:00:00Z");
    host.set_scenario(s.clone());
    let asked = host.requests().len();
    let changed = c.collect(&name("o/n"), since, &mut cache).unwrap();
    assert_eq!(counts(&host, asked), 1, "a changed list counts again");
    assert_eq!(changed.collected.context.open_issues, issues);
    assert_eq!(open_counts(&s), (issues, pulls - 1));

    // Quiet again: the new count is kept.
    let asked = host.requests().len();
    let again = c.collect(&name("o/n"), since, &mut cache).unwrap();
    assert_eq!(counts(&host, asked), 0);
    assert_eq!(again.collected.context.open_issues, issues);
}

/// A count kept after other lists is not used: a run that reads the lists
/// of another window (another day's `since`, a reconcile) counts again,
/// and so does every run of a repository whose issues list is turned off
/// (pull requests are not seen there).
#[test]
fn the_open_pull_count_is_not_kept_across_other_lists() {
    let s = scenario(40);
    let host = TestHost::start(s).unwrap();
    let (mut c, _) = client(&host, &[]);
    let mut cache = MemoryCache::new();
    let pulls_asked = |host: &TestHost| {
        host.requests()
            .iter()
            .filter(|r| r.path.contains("/pulls?state=open&per_page=1"))
            .count()
    };
    c.collect(&name("o/n"), ts("2024-12-31T00:00:00Z"), &mut cache)
        .unwrap();
    c.collect(&name("o/n"), ts("2025-01-01T00:00:00Z"), &mut cache)
        .unwrap();
    assert_eq!(pulls_asked(&host), 2, "another window, other lists");

    for run in 0..2 {
        host.inject_for("/repos/o/n/issues", signals_testhost::Fault::Status(410));
        let got = c
            .collect(&name("o/n"), ts("2025-01-01T00:00:00Z"), &mut cache)
            .unwrap();
        assert!(got.collected.items.is_empty());
        assert_eq!(pulls_asked(&host), 3 + run, "issues turned off: counted");
    }
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
    assert_eq!(got.stats.requests, 7);
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
    assert_eq!(lines.len(), 11);
    assert!(
        lines
            .iter()
            .all(|l| l.contains("MY_TOKEN") && !l.contains("sekrit"))
    );
    // The first collection counts the open pull requests last; the second
    // is all from the cache and keeps that count.
    assert!(lines[5].contains("/pulls?"), "{}", lines[5]);
    for l in &lines[6..] {
        assert!(l.contains("from_cache: true"), "{l}");
    }
    assert!(
        cache
            .get(&format!("{}/repos/o/n", host.base_url()), "sekrit-value")
            .is_none()
    );
}

/// A caller that counts the open pull requests itself is left
/// them owed: no count request, `openIssues` still holds them, and the
/// repository's creation is reported; asked for afterwards, the count is
/// the host's, in one request.
#[test]
fn the_open_pull_count_is_owed_to_a_caller_that_counts() {
    let mut s = scenario(40);
    let (issues, pulls) = open_counts(&s);
    let data = s.repos.get_mut("o/n").unwrap();
    data.repo["open_issues_count"] = (issues + pulls).into();
    data.repo["created_at"] = "2024-06-01T00:00:00Z".into();
    let host = TestHost::start(s).unwrap();
    let (mut c, _) = client(&host, &[("T", "tok")]);
    let mut cache = MemoryCache::new();
    let since = ts("2024-12-31T00:00:00Z");
    let owed = c
        .collect_with(
            &name("o/n"),
            since,
            signals_http::Asked {
                comments_since: None,
                count_pulls: true,
            },
            &mut cache,
        )
        .unwrap();
    let counted = |host: &TestHost| {
        host.requests()
            .iter()
            .filter(|r| r.path.contains("/pulls?state=open&per_page=1"))
            .count()
    };
    assert_eq!(counted(&host), 0);
    assert_eq!(owed.collected.context.open_issues, issues + pulls);
    assert_eq!(owed.created_at, Some(ts("2024-06-01T00:00:00Z")));
    let signals_github::OpenPulls::Owed(debt) = &owed.open_pulls else {
        panic!("not owed: {:?}", owed.open_pulls);
    };
    let before = host.requests().len();
    assert_eq!(c.ask_open_pulls(debt, &mut cache).unwrap(), pulls);
    assert_eq!((counted(&host), host.requests().len()), (1, before + 1));
    // Not counting: the count is asked along with the collection.
    let asked = c
        .collect_with(
            &name("o/n"),
            since,
            signals_http::Asked::default(),
            &mut cache,
        )
        .unwrap();
    assert_eq!(asked.open_pulls, signals_github::OpenPulls::Asked(pulls));
    assert_eq!(asked.collected.context.open_issues, issues);
}
