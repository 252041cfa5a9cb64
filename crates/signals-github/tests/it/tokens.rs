//! Several tokens: each request uses the one with the most budget left, and
//! no token leaks into Debug output, errors or the cache.

use signals_github::{Error, MemoryCache};
use signals_testhost::Fault;

use crate::{client, name, synthetic_host, ts};

fn auth(host: &signals_testhost::TestHost) -> Vec<String> {
    host.requests()
        .iter()
        .map(|r| r.header("authorization").unwrap_or("").to_string())
        .collect()
}

#[test]
fn requests_go_to_the_token_with_most_budget() {
    let host = synthetic_host(1);
    let (mut c, _) = client(&host, &[("TOKEN_A", "a"), ("TOKEN_B", "b")]);
    assert!(c.is_authenticated());
    c.collect(
        &name("o/n"),
        ts("2020-01-01T00:00:00Z"),
        &mut MemoryCache::new(),
    )
    .unwrap();
    // a: unknown beats nothing; b: unknown (full) beats a's 4999; then the
    // tie goes to the first, and so on.
    assert_eq!(
        auth(&host),
        [
            "Bearer a", "Bearer b", "Bearer a", "Bearer b", "Bearer a", "Bearer b"
        ]
    );
    let limits = c.rate_limits();
    assert_eq!(limits[0].0.as_deref(), Some("TOKEN_A"));
    assert_eq!(limits[0].1.as_ref().unwrap().remaining, 4997);
    assert_eq!(limits[1].1.as_ref().unwrap().remaining, 4997);
}

#[test]
fn a_spent_token_is_skipped_without_waiting() {
    let host = synthetic_host(1);
    host.inject(Fault::PrimaryLimit {
        reset_in_secs: 3600,
    });
    let (mut c, sleeps) = client(&host, &[("TOKEN_A", "a"), ("TOKEN_B", "b")]);
    let got = c
        .collect(
            &name("o/n"),
            ts("2020-01-01T00:00:00Z"),
            &mut MemoryCache::new(),
        )
        .unwrap();
    assert!(sleeps.all().is_empty());
    assert_eq!(got.stats.retries, 1);
    assert_eq!(
        auth(&host),
        [
            "Bearer a", "Bearer b", "Bearer b", "Bearer b", "Bearer b", "Bearer b", "Bearer b"
        ]
    );
    assert_eq!(c.rate_limits()[0].1.as_ref().unwrap().remaining, 0);
}

#[test]
fn the_token_never_leaks() {
    const SECRET: &str = "ghp_VerySecretTokenValue123";
    let host = synthetic_host(1);
    let (mut c, _) = client(&host, &[("GH_TOKEN", SECRET)]);
    let mut cache = MemoryCache::new();
    c.collect(&name("o/n"), ts("2020-01-01T00:00:00Z"), &mut cache)
        .unwrap();
    assert!(!cache.is_empty());
    for (url, fingerprint, response) in cache.entries() {
        assert!(!url.contains(SECRET) && !fingerprint.contains(SECRET));
        assert!(!String::from_utf8_lossy(&response.body).contains(SECRET));
        assert_eq!(fingerprint, signals_github::token_fingerprint(Some(SECRET)));
    }
    let mut errors: Vec<Error> = vec![
        c.collect(&name("o/missing"), ts("2020-01-01T00:00:00Z"), &mut cache)
            .unwrap_err(),
    ];
    host.inject(Fault::Status(401));
    errors.push(
        c.collect(&name("o/n"), ts("2020-01-01T00:00:00Z"), &mut cache)
            .unwrap_err(),
    );
    host.inject(Fault::PrimaryLimit {
        reset_in_secs: 3600,
    });
    errors.push(
        c.collect(&name("o/n"), ts("2020-01-01T00:00:00Z"), &mut cache)
            .unwrap_err(),
    );
    for e in &errors {
        let text = format!("{e} {e:?}");
        assert!(!text.contains(SECRET), "{text}");
    }
    assert!(!format!("{c:?} {:?}", c.config()).contains(SECRET));
    // It was sent, though.
    assert_eq!(
        host.requests()[0].header("authorization"),
        Some(&*format!("Bearer {SECRET}"))
    );
}
