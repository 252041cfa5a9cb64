//! A whole collection, or an owner's listing, against a host whose every
//! answer is fuzzed: `HostClient::collect` and `list_owner` of GitHub,
//! GitLab and Forgejo, over HTTP to a loopback server ([`crate::loopback`]).
//!
//! This is how the parsers only a host's own steps reach are fuzzed
//! (GitHub's pulls entry and its count of open pull requests from the
//! `rel="last"` page, GitLab's `issues_statistics`), and how every parser
//! meets what the request loop does with it: pages followed by `Link` or
//! `X-Next-Page`, redirects, rate-limit waits and refusals, 304s answered
//! from the cache.
//!
//! The input: one byte naming the host and the operation (`g` GitHub's
//! collection, `G` its owner listing; `l`/`L` GitLab; `f`/`F` Forgejo),
//! then the answers in order, separated by a line `===`. An answer is
//! written as text, as [`crate::headers::parse`] reads it (status line,
//! headers, empty line, body); the harness frames it as HTTP/1.1 with its
//! own `Content-Length` and `Connection: close`, and points URLs to other
//! hosts at the loopback's other origin.
//!
//! Time is simulated: waits advance the clock without sleeping. Each
//! operation runs twice with the same cache, so the second meets the
//! conditional requests and the kept values of the first.

use std::collections::HashSet;
use std::sync::{Arc, Mutex};
use std::time::Duration;

use jiff::Timestamp;
use signals_core::RepoName;
use signals_http::{Config, Host, HostClient, MemoryCache, Token};

use crate::answers::{check_milestone, check_snapshot};
use crate::headers::{find, parse};
use crate::loopback::{SECRET, Server, localize};

/// The line between two answers.
pub const SEPARATOR: &[u8] = b"\n===\n";

/// Runs one fuzzed collection or listing.
pub fn run(data: &[u8]) {
    let Some((&op, script)) = data.split_first() else {
        return;
    };
    let (host, list) = match op {
        b'g' => (0, false),
        b'G' => (0, true),
        b'l' => (1, false),
        b'L' => (1, true),
        b'f' => (2, false),
        b'F' => (2, true),
        b => (b % 3, b & 0x80 != 0),
    };
    let server = Server::http();
    server.load(split(script).map(|a| frame(a, server)));
    match host {
        0 => operate::<signals_github::GitHub>(server, list),
        1 => operate::<signals_gitlab::GitLab>(server, list),
        _ => operate::<signals_forgejo::Forgejo>(server, list),
    }
    assert!(
        !server.leaked(),
        "the token was sent to another origin than the host's"
    );
}

/// The answers of a script.
fn split(mut script: &[u8]) -> impl Iterator<Item = &[u8]> {
    std::iter::from_fn(move || {
        if script.is_empty() {
            return None;
        }
        let (answer, rest) = match find(script, SEPARATOR) {
            Some(i) => (&script[..i], &script[i + SEPARATOR.len()..]),
            None => (script, &b""[..]),
        };
        script = rest;
        Some(answer)
    })
}

/// An answer written as text, framed as HTTP/1.1.
fn frame(text: &[u8], server: &Server) -> Vec<u8> {
    let answer = parse(text);
    let mut out = format!("HTTP/1.1 {} Fuzzed\r\n", answer.status).into_bytes();
    for (name, value) in &answer.headers {
        if matches!(
            name.as_str(),
            "content-length" | "transfer-encoding" | "connection"
        ) {
            continue;
        }
        let value = String::from_utf8_lossy(value.as_bytes());
        let value = localize(&value, server.home(), server.elsewhere());
        out.extend_from_slice(format!("{name}: {value}\r\n").as_bytes());
    }
    out.extend_from_slice(
        format!(
            "content-length: {}\r\nconnection: close\r\n\r\n",
            answer.body.len()
        )
        .as_bytes(),
    );
    out.extend_from_slice(&answer.body);
    out
}

/// A client of `H` on the loopback host, with a token and simulated time.
fn client<H: Host + Default>(server: &Server) -> HostClient<H> {
    let now = Arc::new(Mutex::new(
        "2024-06-01T12:00:00Z"
            .parse::<Timestamp>()
            .expect("an instant"),
    ));
    let clock = Arc::clone(&now);
    let config = Config {
        base_url: format!("{}/api/v1", server.home()),
        tokens: vec![Token::new("FUZZ_TOKEN", SECRET)],
        timeout: Duration::from_secs(5),
        max_retries: 2,
        retry_base: Duration::from_millis(10),
        sleeper: Arc::new(move |d| {
            let mut now = now.lock().expect("clock");
            *now = now.checked_add(d).unwrap_or(Timestamp::MAX);
        }),
        clock: Arc::new(move || *clock.lock().expect("clock")),
        ..Config::default()
    };
    HostClient::new(config).expect("a loopback base URL is valid")
}

/// Collects (or lists) twice with one cache, and checks what came out.
fn operate<H: Host + Default>(server: &Server, list: bool) {
    let mut client = client::<H>(server);
    let mut cache = MemoryCache::new();
    let repo = RepoName::parse("owner/name").expect("a valid name");
    let since: Timestamp = "2024-01-01T00:00:00Z".parse().expect("an instant");
    for _ in 0..2 {
        if list {
            let _ = client.list_owner("owner", &mut cache);
            continue;
        }
        let Ok(collection) = client.collect(&repo, since, &mut cache) else {
            continue;
        };
        let collected = &collection.collected;
        let mut seen = HashSet::new();
        for item in &collected.items {
            check_snapshot(item);
            assert!(
                seen.insert((item.kind(), item.key.clone())),
                "two items of one kind and key: {:?} {}",
                item.kind(),
                item.key
            );
        }
        collected.releases.iter().for_each(check_snapshot);
        collected.milestones.iter().for_each(check_milestone);
    }
}
