//! Forgejo's and Gitea's HTTP dialect: the `token` header, error bodies,
//! and the rate limits a proxy in front of them may send.

use signals_http::{Headers, Protocol, RateLimit, RateLimitHeaders, Refusal};

use crate::{Forgejo, HOST};

/// Forgejo has no rate-limit headers of its own; a limiting proxy in
/// front of it may send the common `X-RateLimit-*` trio (only those
/// three are read).
const RATE_LIMIT: RateLimitHeaders = RateLimitHeaders {
    limit: "x-ratelimit-limit",
    remaining: "x-ratelimit-remaining",
    reset: "x-ratelimit-reset",
    used: None,
    resource: None,
};

impl Protocol for Forgejo {
    fn name(&self) -> &'static str {
        HOST
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

    /// `{"message": "...", "url": "..."}` (`APIError`), else the start of
    /// the body.
    fn error_message(&self, body: &[u8]) -> String {
        #[derive(serde::Deserialize)]
        struct Message {
            message: String,
        }
        match serde_json::from_slice::<Message>(body) {
            Ok(m) if !m.message.is_empty() => m.message,
            _ => signals_http::body_start(body),
        }
    }

    fn refusal(
        &self,
        status: u16,
        _message: &str,
        headers: &Headers<'_>,
        _retry_after: Option<u64>,
    ) -> Refusal {
        RATE_LIMIT.refusal_429(status, headers)
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::{API_URL, Client, Config};

    #[test]
    fn error_bodies_and_default_base() {
        assert_eq!(
            Forgejo.error_message(
                br#"{"errors":[],"message":"The target couldn't be found.","url":"https://codeberg.org/api/swagger"}"#
            ),
            "The target couldn't be found."
        );
        assert_eq!(
            Forgejo.error_message(b"<html>502</html>"),
            "<html>502</html>"
        );
        let c = Client::new(Config::default()).unwrap();
        assert_eq!(c.http_ref().base(), API_URL);
        assert_eq!(Forgejo.auth_header("s").1, "token s");
    }
}
