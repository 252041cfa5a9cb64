//! What a host crate tells the shared layer about its HTTP dialect
//! ([`Protocol`]): its headers, how a token is sent, its rate-limit
//! headers, its error bodies and how it refuses a request; and the
//! [`Headers`] of an answer, as a host crate reads them.

use jiff::Timestamp;

use crate::RateLimit;
use crate::links::link_next;

/// The response headers of one answer, as the host crate reads them.
pub struct Headers<'a>(pub &'a ureq::http::HeaderMap);

impl Headers<'_> {
    /// The value of header `name` (case-insensitive), when it is text.
    pub fn get(&self, name: &str) -> Option<&str> {
        self.0.get(name).and_then(|v| v.to_str().ok())
    }

    /// The value of header `name` as an unsigned integer.
    pub fn get_u64(&self, name: &str) -> Option<u64> {
        self.get(name).and_then(|v| v.trim().parse().ok())
    }

    /// The value of header `name` as an instant in Unix seconds (every
    /// host's rate-limit reset).
    pub fn get_epoch(&self, name: &str) -> Option<Timestamp> {
        self.get_u64(name)
            .and_then(|s| Timestamp::from_second(i64::try_from(s).ok()?).ok())
    }
}

/// How a host refuses a request for its rate limits.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Refusal {
    /// Not a rate limit: an ordinary error answer.
    NotALimit,
    /// The token's budget is spent until `reset` (or, when the host did not
    /// say, for [`Config::secondary_min_wait`](crate::Config::secondary_min_wait)).
    Primary {
        /// When the budget resets, as the host said.
        reset: Option<Timestamp>,
    },
    /// A short-term limit (GitHub's secondary limit, a 429): wait
    /// `Retry-After`, or an increasing pause, and try again.
    Secondary,
}

/// What a host crate tells the shared layer about its HTTP dialect. One
/// implementation per host crate.
pub trait Protocol: Send + Sync {
    /// The host's display name, for messages (`GitHub`).
    fn name(&self) -> &'static str;
    /// Headers sent with every request (`Accept`, API version).
    fn request_headers(&self) -> &'static [(&'static str, &'static str)];
    /// The header that carries `secret`: name and value.
    fn auth_header(&self, secret: &str) -> (&'static str, String);
    /// The rate limit an answer's headers report, when they give the limit
    /// and what remains; its reset is `None` when they do not give it.
    fn rate_limit(&self, headers: &Headers<'_>) -> Option<RateLimit>;
    /// The host's error message in an error body (else the start of it).
    fn error_message(&self, body: &[u8]) -> String;
    /// Whether an error answer is a rate limit, and which. `retry_after`
    /// is the `Retry-After` header in seconds, when sent.
    fn refusal(
        &self,
        status: u16,
        message: &str,
        headers: &Headers<'_>,
        retry_after: Option<u64>,
    ) -> Refusal;
    /// The next page's URL after an answer to `url`. Default: the `Link`
    /// header's `rel="next"`.
    fn next_page(&self, url: &str, headers: &Headers<'_>) -> Option<String> {
        let _ = url;
        headers.get("link").and_then(link_next)
    }
}

/// The start of a body that is not the JSON error a host documents.
pub fn body_start(body: &[u8]) -> String {
    String::from_utf8_lossy(&body[..body.len().min(200)]).into_owned()
}
