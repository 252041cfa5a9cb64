//! The head of an answer, as every host's `Protocol` reads it: the rate
//! limit, whether a refusal is a rate limit and until when, `Retry-After`,
//! the next page (`Link`, GitLab's `X-Next-Page`), the `rel="last"` count
//! GitHub's open pull requests are read from, and the error body's
//! message.
//!
//! The input is an answer written as text: a status line (`429`), header
//! lines (`name: value`), an empty line, the body. Lines that are no valid
//! header are skipped, as no HTTP client would hand them over.

use jiff::Timestamp;
use signals_forgejo::Forgejo;
use signals_github::GitHub;
use signals_gitlab::GitLab;
use signals_http::{Headers, Protocol, link_rel, retry_after_secs};
use ureq::http::{HeaderMap, HeaderName, HeaderValue};

/// An answer's status, headers and body.
pub struct Answer {
    /// The status (200 when the first line is no status).
    pub status: u16,
    /// The headers that are valid HTTP.
    pub headers: HeaderMap,
    /// What follows the empty line.
    pub body: Vec<u8>,
}

/// Reads an answer written as text (see the module documentation).
pub fn parse(data: &[u8]) -> Answer {
    let (head, body) = match find(data, b"\n\n") {
        Some(i) => (&data[..i], &data[i + 2..]),
        None => (data, &b""[..]),
    };
    let mut lines = head.split(|&b| b == b'\n');
    let status = lines
        .next()
        .and_then(|l| std::str::from_utf8(l).ok())
        .and_then(|l| l.trim().parse::<u16>().ok())
        .filter(|s| (100..600).contains(s))
        .unwrap_or(200);
    let mut headers = HeaderMap::new();
    for line in lines {
        let Some(colon) = line.iter().position(|&b| b == b':') else {
            continue;
        };
        let value = line[colon + 1..]
            .strip_prefix(b" ")
            .unwrap_or(&line[colon + 1..]);
        if let (Ok(name), Ok(value)) = (
            HeaderName::from_bytes(&line[..colon]),
            HeaderValue::from_bytes(value),
        ) {
            headers.append(name, value);
        }
    }
    Answer {
        status,
        headers,
        body: body.to_vec(),
    }
}

/// The first position of `needle` in `hay`.
pub fn find(hay: &[u8], needle: &[u8]) -> Option<usize> {
    hay.windows(needle.len()).position(|w| w == needle)
}

/// Runs an answer through every host's reading of it.
pub fn read_answer(data: &[u8]) {
    let answer = parse(data);
    let headers = Headers(&answer.headers);
    let now: Timestamp = "2024-06-01T12:00:00Z".parse().expect("a valid instant");
    let retry_after = headers
        .get("retry-after")
        .and_then(|v| retry_after_secs(v, now));
    let _ = headers.get("link").and_then(|l| link_rel(l, "last"));
    let protocols: [&dyn Protocol; 3] = [&GitHub, &GitLab::default(), &Forgejo];
    let url = "https://example.org/api/v4/projects/1/issues?per_page=100&page=2";
    for protocol in protocols {
        let _ = protocol.rate_limit(&headers);
        let message = protocol.error_message(&answer.body);
        let _ = protocol.refusal(answer.status, &message, &headers, retry_after);
        let _ = protocol.next_page(url, &headers);
    }
}

/// A `Link` header's value: every relation the client reads, and a few
/// it does not. A target found is what stood between `<` and `>`.
pub fn link_value(data: &[u8]) {
    let Ok(value) = std::str::from_utf8(data) else {
        return;
    };
    for rel in ["next", "last", "first", "prev", ""] {
        if let Some(target) = link_rel(value, rel) {
            assert!(value.contains(&format!("<{target}>")));
        }
    }
    let _ = signals_http::link_next(value);
}
