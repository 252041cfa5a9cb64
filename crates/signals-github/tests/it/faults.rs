//! Each fault of the test host, and how the client survives or reports it.

use std::time::Duration;

use signals_github::{Client, Error, MemoryCache};
use signals_testhost::{Fault, TestHost};

use crate::{client, config, name, synthetic_host, ts};

const ISSUES: &str = "/repos/o/n/issues";

fn collect(c: &mut Client) -> Result<signals_github::Collection, Error> {
    c.collect(
        &name("o/n"),
        ts("2020-01-01T00:00:00Z"),
        &mut MemoryCache::new(),
    )
}

#[test]
fn a_burst_of_5xx_is_retried_with_growing_backoff() {
    let host = synthetic_host(150);
    for code in [502, 503, 500] {
        host.inject_for(ISSUES, Fault::Status(code));
    }
    let (mut c, sleeps) = client(&host, &[]);
    let got = collect(&mut c).unwrap();
    assert_eq!(got.collected.items.len(), 150);
    assert_eq!(got.stats.retries, 3);
    assert_eq!(got.stats.requests, 5 + 2 + 3);
    let s = sleeps.all();
    assert_eq!(s.len(), 3);
    // base 10 ms doubled each time, plus at most 50% jitter
    for (i, d) in s.iter().enumerate() {
        let base = Duration::from_millis(10 << i);
        assert!(*d >= base && *d <= base.mul_f64(1.5), "{i}: {d:?}");
    }
}

#[test]
fn persistent_5xx_gives_up_after_max_retries() {
    let host = synthetic_host(1);
    for _ in 0..10 {
        host.inject(Fault::Status(502));
    }
    let (mut config, _) = config(&host, &[]);
    config.max_retries = 2;
    let mut c = Client::new(config).unwrap();
    match collect(&mut c) {
        Err(Error::Http {
            status: 502, url, ..
        }) => assert!(url.ends_with("/repos/o/n")),
        other => panic!("{other:?}"),
    }
    assert_eq!(host.requests().len(), 3);
}

#[test]
fn primary_limit_403_waits_until_reset_then_retries() {
    let host = synthetic_host(1);
    host.inject_for(
        "/repos/o/n/releases",
        Fault::PrimaryLimit { reset_in_secs: 5 },
    );
    let (mut c, sleeps) = client(&host, &[("T", "tok")]);
    let got = collect(&mut c).unwrap();
    assert_eq!(got.stats.requests, 7);
    assert_eq!(got.stats.retries, 1);
    let s = sleeps.all();
    assert_eq!(s.len(), 1);
    assert!(
        s[0] >= Duration::from_secs(5) && s[0] <= Duration::from_secs(7),
        "{s:?}"
    );
}

#[test]
fn secondary_limits_honor_retry_after_or_back_off_from_the_minimum() {
    let host = synthetic_host(1);
    host.inject_for(
        ISSUES,
        Fault::Secondary {
            status: 403,
            retry_after: Some(7),
        },
    );
    host.inject_for(
        ISSUES,
        Fault::Secondary {
            status: 429,
            retry_after: None,
        },
    );
    host.inject_for(
        ISSUES,
        Fault::Secondary {
            status: 403,
            retry_after: None,
        },
    );
    let (mut c, sleeps) = client(&host, &[]);
    let got = collect(&mut c).unwrap();
    assert_eq!(got.stats.retries, 3);
    assert_eq!(got.stats.requests, 6 + 3);
    // Retry-After 7 s, then the 2 s minimum doubled on the repeat.
    assert_eq!(
        sleeps.all(),
        [
            Duration::from_secs(7),
            Duration::from_secs(4),
            Duration::from_secs(8)
        ]
    );
}

#[test]
fn a_wait_longer_than_max_wait_is_an_error_without_sleeping() {
    let host = synthetic_host(1);
    host.inject(Fault::PrimaryLimit {
        reset_in_secs: 3600,
    });
    let (mut c, sleeps) = client(&host, &[]);
    match collect(&mut c) {
        Err(Error::RateLimited { until, wait, .. }) => {
            assert!(wait > Duration::from_secs(15 * 60));
            assert!(until.is_some_and(|u| u > jiff::Timestamp::now()));
        }
        other => panic!("{other:?}"),
    }
    assert!(sleeps.all().is_empty());
    assert_eq!(host.requests().len(), 1);

    // A spent budget seen in the headers stops before the next request.
    let host = synthetic_host(1);
    host.set_rate_limit(2);
    let (mut c, sleeps) = client(&host, &[]);
    assert!(matches!(collect(&mut c), Err(Error::RateLimited { .. })));
    assert!(sleeps.all().is_empty());
    assert_eq!(
        host.requests().len(),
        2,
        "no request was sent with a spent budget"
    );
    assert_eq!(c.rate_limit().unwrap().remaining, 0);

    // A long Retry-After too.
    let host = synthetic_host(1);
    host.inject(Fault::Secondary {
        status: 429,
        retry_after: Some(3600),
    });
    let (mut c, sleeps) = client(&host, &[]);
    assert!(matches!(collect(&mut c), Err(Error::RateLimited { .. })));
    assert!(sleeps.all().is_empty());
}

#[test]
fn a_timeout_is_retried() {
    let host = synthetic_host(1);
    host.inject_for(
        "/repos/o/n/milestones",
        Fault::Delay(Duration::from_millis(1500)),
    );
    let (mut config, _) = config(&host, &[]);
    config.timeout = Duration::from_millis(300);
    let mut c = Client::new(config).unwrap();
    let got = collect(&mut c).unwrap();
    assert_eq!((got.stats.requests, got.stats.retries), (7, 1));

    for _ in 0..3 {
        host.inject(Fault::Delay(Duration::from_millis(1500)));
    }
    let (mut config, _) = crate::config(&host, &[]);
    config.timeout = Duration::from_millis(300);
    config.max_retries = 2;
    let mut c = Client::new(config).unwrap();
    match collect(&mut c) {
        Err(Error::Transport {
            timed_out: true, ..
        }) => {}
        other => panic!("{other:?}"),
    }
}

#[test]
fn a_reset_connection_is_retried() {
    let host = synthetic_host(1);
    host.inject_for(ISSUES, Fault::Reset);
    let (mut c, _) = client(&host, &[]);
    let got = collect(&mut c).unwrap();
    assert_eq!((got.stats.requests, got.stats.retries), (7, 1));
}

#[test]
fn a_truncated_body_is_retried_then_reported() {
    let host = synthetic_host(120);
    host.inject_for(ISSUES, Fault::Truncate);
    let (mut c, _) = client(&host, &[]);
    let got = collect(&mut c).unwrap();
    assert_eq!(got.collected.items.len(), 120);
    assert_eq!(got.stats.retries, 1);

    for _ in 0..5 {
        host.inject_for(ISSUES, Fault::Truncate);
    }
    match collect(&mut c) {
        Err(Error::Body { url, .. }) => assert!(url.contains("/issues?")),
        other => panic!("{other:?}"),
    }
}

#[test]
fn malformed_json_is_a_decode_error_naming_the_url() {
    let host = synthetic_host(1);
    host.inject_for("/repos/o/n/releases", Fault::Malformed);
    let (mut c, _) = client(&host, &[]);
    match collect(&mut c) {
        Err(e @ Error::Decode { .. }) => {
            let text = e.to_string();
            assert!(text.contains("/repos/o/n/releases?per_page=100"), "{text}");
        }
        other => panic!("{other:?}"),
    }
    assert_eq!(host.requests().len(), 2, "no retry of a malformed 200");
}

#[test]
fn wrong_types_are_a_decode_error_with_the_json_path() {
    let mut s = crate::scenario(3);
    s.repos.get_mut("o/n").unwrap().issues[1]["comments"] = "many".into();
    let host = TestHost::start(s).unwrap();
    let (mut c, _) = client(&host, &[]);
    match collect(&mut c) {
        Err(Error::Decode { path, .. }) => assert_eq!(path, "[1].comments"),
        other => panic!("{other:?}"),
    }
}

#[test]
fn other_4xx_carries_githubs_message() {
    let host = synthetic_host(1);
    host.inject_for("/repos/o/n/milestones", Fault::Status(422));
    let (mut c, _) = client(&host, &[]);
    match collect(&mut c) {
        Err(Error::Http {
            status: 422,
            message,
            ..
        }) => assert_eq!(message, "Unprocessable Entity"),
        other => panic!("{other:?}"),
    }
    // Repository, releases, advisories, milestones.
    assert_eq!(host.requests().len(), 4);
}

/// A refusal without `x-ratelimit-reset` (the shape GitHub sent
/// in 2013 to an anonymous client: limit 60, remaining 0, no reset) keeps
/// what it says, never makes up a reset, waits the shortest pause before
/// asking again, and, refused on every retry, stops with advice for the
/// case at hand.
#[test]
fn issue_16_a_refusal_without_a_reset_keeps_what_it_says() {
    // Refused once: the shortest pause (2 s here, plus the second of
    // margin), then the collection goes on.
    let host = synthetic_host(1);
    host.set_rate_limit(60);
    host.inject_for("/repos/o/n/releases", Fault::PrimaryLimitWithoutReset);
    let (mut c, sleeps) = client(&host, &[]);
    let got = collect(&mut c).unwrap();
    assert_eq!(got.stats.retries, 1);
    assert_eq!(sleeps.all(), [Duration::from_secs(3)]);

    for (tokens, advice, not) in [
        (&[][..], "no token was sent: set one", "the token in"),
        (
            &[("GITHUB_TOKEN", "t")][..],
            "the token in GITHUB_TOKEN has spent its budget",
            "no token was sent",
        ),
    ] {
        let host = synthetic_host(1);
        host.set_rate_limit(60);
        for _ in 0..10 {
            host.inject(Fault::PrimaryLimitWithoutReset);
        }
        let (mut c, _) = client(&host, tokens);
        let err = collect(&mut c).unwrap_err();
        assert!(
            matches!(&err, Error::RateLimited { until: None, .. }),
            "{err:?}"
        );
        let text = err.to_string();
        assert!(text.contains("reset unknown"), "{text}");
        assert!(text.contains(advice) && !text.contains(not), "{text}");
        let limit = c.rate_limit().unwrap();
        assert_eq!((limit.limit, limit.remaining, limit.reset), (60, 0, None));
        let sent = host.requests();
        assert!(
            sent.iter()
                .all(|r| r.status == Some(403) && r.header("if-none-match").is_none())
        );
    }
}
