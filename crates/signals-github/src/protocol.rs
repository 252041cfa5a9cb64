//! GitHub's HTTP dialect: request headers, the token header, the
//! `x-ratelimit-*` headers, primary and secondary limits, error bodies.

use signals_http::{Headers, Protocol, RateLimit, RateLimitHeaders, Refusal};

use crate::{GitHub, HOST};

/// GitHub's rate-limit headers.
const RATE_LIMIT: RateLimitHeaders = RateLimitHeaders {
    limit: "x-ratelimit-limit",
    remaining: "x-ratelimit-remaining",
    reset: "x-ratelimit-reset",
    used: Some("x-ratelimit-used"),
    resource: Some("x-ratelimit-resource"),
};

impl Protocol for GitHub {
    fn name(&self) -> &'static str {
        HOST
    }

    fn request_headers(&self) -> &'static [(&'static str, &'static str)] {
        &[
            ("Accept", "application/vnd.github+json"),
            ("X-GitHub-Api-Version", "2022-11-28"),
        ]
    }

    fn auth_header(&self, secret: &str) -> (&'static str, String) {
        ("Authorization", format!("Bearer {secret}"))
    }

    fn rate_limit(&self, headers: &Headers<'_>) -> Option<RateLimit> {
        RATE_LIMIT.read(headers)
    }

    fn error_message(&self, body: &[u8]) -> String {
        github_message(body)
    }

    /// GitHub refuses with 403 or 429. A secondary limit says so in its
    /// message (or only sends `Retry-After`); a primary one has
    /// `x-ratelimit-remaining: 0` or says "rate limit exceeded".
    fn refusal(
        &self,
        status: u16,
        message: &str,
        headers: &Headers<'_>,
        retry_after: Option<u64>,
    ) -> Refusal {
        if status != 403 && status != 429 {
            return Refusal::NotALimit;
        }
        let lower = message.to_ascii_lowercase();
        let secondary = lower.contains("secondary rate limit") || lower.contains("abuse");
        let primary =
            !secondary && (RATE_LIMIT.spent(headers) || lower.contains("rate limit exceeded"));
        if secondary || (retry_after.is_some() && !primary) {
            Refusal::Secondary
        } else if primary {
            Refusal::Primary {
                reset: RATE_LIMIT.reset(headers),
            }
        } else {
            Refusal::NotALimit
        }
    }
}

/// GitHub's `message` from an error body, else the start of the body.
fn github_message(body: &[u8]) -> String {
    #[derive(serde::Deserialize)]
    struct Message {
        message: String,
    }
    match serde_json::from_slice::<Message>(body) {
        Ok(m) => m.message,
        Err(_) => signals_http::body_start(body),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn recorded_error_bodies_give_githubs_message() {
        // Recorded by octokit.rb (2013) and github3.py (2017); see
        // tests/data/SOURCES.md.
        let not_found = include_bytes!("../tests/data/notfound_404.repo.json");
        assert_eq!(github_message(not_found), "Not Found");
        let moved = include_bytes!("../tests/data/redirect_301.repo_moved.json");
        assert_eq!(github_message(moved), "Moved Permanently");
        assert_eq!(
            github_message(b"<html>Bad gateway</html>"),
            "<html>Bad gateway</html>"
        );
        assert_eq!(github_message(&[b'x'; 500]).len(), 200);
    }
}
