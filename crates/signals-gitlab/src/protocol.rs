//! GitLab's HTTP dialect: the token header, the `RateLimit-*` headers,
//! error bodies, and `X-Next-Page` where a proxy dropped `Link`.

use signals_http::{Headers, Protocol, RateLimit, RateLimitHeaders, Refusal};

use crate::{Auth, GitLab, HOST};

/// GitLab's rate-limit headers.
const RATE_LIMIT: RateLimitHeaders = RateLimitHeaders {
    limit: "ratelimit-limit",
    remaining: "ratelimit-remaining",
    reset: "ratelimit-reset",
    used: Some("ratelimit-observed"),
    resource: Some("ratelimit-name"),
};

impl Protocol for GitLab {
    fn name(&self) -> &'static str {
        HOST
    }

    fn request_headers(&self) -> &'static [(&'static str, &'static str)] {
        &[("Accept", "application/json")]
    }

    fn auth_header(&self, secret: &str) -> (&'static str, String) {
        match self.auth {
            Auth::PrivateToken => ("PRIVATE-TOKEN", secret.to_string()),
            Auth::Bearer => ("Authorization", format!("Bearer {secret}")),
        }
    }

    fn rate_limit(&self, headers: &Headers<'_>) -> Option<RateLimit> {
        RATE_LIMIT.read(headers)
    }

    /// `{"message": "404 Project Not Found"}`, `{"message": {field: [...]}}`
    /// or OAuth's `{"error": ..., "error_description": ...}`.
    fn error_message(&self, body: &[u8]) -> String {
        let Ok(value) = serde_json::from_slice::<serde_json::Value>(body) else {
            return signals_http::body_start(body);
        };
        match (&value["message"], &value["error"]) {
            (serde_json::Value::String(m), _) => m.clone(),
            (serde_json::Value::Null, serde_json::Value::String(e)) => {
                match value["error_description"].as_str() {
                    Some(d) => format!("{e}: {d}"),
                    None => e.clone(),
                }
            }
            (serde_json::Value::Null, _) => signals_http::body_start(body),
            (m, _) => m.to_string(),
        }
    }

    /// GitLab refuses with 429. With `RateLimit-Remaining: 0` the window's
    /// budget is spent until `RateLimit-Reset`; otherwise (a throttle
    /// without the headers) `Retry-After` is waited out.
    fn refusal(
        &self,
        status: u16,
        _message: &str,
        headers: &Headers<'_>,
        _retry_after: Option<u64>,
    ) -> Refusal {
        RATE_LIMIT.refusal_429(status, headers)
    }

    /// `Link` `rel="next"`, else `X-Next-Page` (empty on the last page).
    fn next_page(&self, url: &str, headers: &Headers<'_>) -> Option<String> {
        if let Some(next) = headers.get("link").and_then(signals_http::link_next) {
            return Some(next);
        }
        let page = headers.get_u64("x-next-page")?;
        Some(with_page(url, page))
    }
}

/// `url` with its `page` query parameter set to `page`.
fn with_page(url: &str, page: u64) -> String {
    let (path, query) = url.split_once('?').unwrap_or((url, ""));
    let mut parts: Vec<String> = query
        .split('&')
        .filter(|p| !p.is_empty() && !p.starts_with("page="))
        .map(str::to_string)
        .collect();
    parts.push(format!("page={page}"));
    format!("{path}?{}", parts.join("&"))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn next_page_falls_back_to_x_next_page() {
        assert_eq!(
            with_page("http://h/api/v4/projects/1/issues?per_page=100&page=2", 3),
            "http://h/api/v4/projects/1/issues?per_page=100&page=3"
        );
        assert_eq!(with_page("http://h/x", 2), "http://h/x?page=2");
    }

    #[test]
    fn error_bodies() {
        let g = GitLab {
            auth: Auth::PrivateToken,
        };
        assert_eq!(
            g.error_message(br#"{"message":"404 Project Not Found"}"#),
            "404 Project Not Found"
        );
        assert_eq!(
            g.error_message(
                br#"{"error":"invalid_token","error_description":"Token was revoked."}"#
            ),
            "invalid_token: Token was revoked."
        );
        assert_eq!(
            g.error_message(br#"{"message":{"title":["is too long"]}}"#),
            r#"{"title":["is too long"]}"#
        );
        assert_eq!(g.error_message(b"Retry later"), "Retry later");
        assert_eq!(g.auth_header("s"), ("PRIVATE-TOKEN", "s".to_string()));
        let b = GitLab { auth: Auth::Bearer };
        assert_eq!(
            b.auth_header("s"),
            ("Authorization", "Bearer s".to_string())
        );
    }
}
