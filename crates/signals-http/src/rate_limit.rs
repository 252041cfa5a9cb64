//! Reading a host's rate-limit headers: the hosts name them differently
//! (`x-ratelimit-*` on GitHub and behind Forgejo's proxies,
//! `ratelimit-*` on GitLab) but read them alike.

use jiff::Timestamp;

use crate::{Headers, RateLimit, Refusal};

/// The names of the headers a host reports its rate limit in (lowercase).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct RateLimitHeaders {
    /// Requests allowed per window.
    pub limit: &'static str,
    /// Requests left in the window.
    pub remaining: &'static str,
    /// When the window resets, in epoch seconds.
    pub reset: &'static str,
    /// Requests used in the window, when the host sends it.
    pub used: Option<&'static str>,
    /// The limit's name, when the host sends it.
    pub resource: Option<&'static str>,
}

impl RateLimitHeaders {
    /// The limit in `headers`; `None` unless both the limit and what is
    /// left of it are there.
    pub fn read(&self, headers: &Headers<'_>) -> Option<RateLimit> {
        Some(RateLimit {
            limit: headers.get_u64(self.limit)?,
            remaining: headers.get_u64(self.remaining)?,
            reset: self.reset(headers),
            used: self.used.and_then(|name| headers.get_u64(name)),
            resource: self
                .resource
                .and_then(|name| headers.get(name))
                .map(str::to_string),
        })
    }

    /// When the window resets, as `headers` say.
    pub fn reset(&self, headers: &Headers<'_>) -> Option<Timestamp> {
        headers.get_epoch(self.reset)
    }

    /// `headers` say nothing is left of the window's budget.
    pub fn spent(&self, headers: &Headers<'_>) -> bool {
        headers.get_u64(self.remaining) == Some(0)
    }

    /// The refusal of a host that limits only with `429`: a spent budget
    /// waits until the reset, any other 429 (a throttle) is short-term.
    pub fn refusal_429(&self, status: u16, headers: &Headers<'_>) -> Refusal {
        if status != 429 {
            Refusal::NotALimit
        } else if self.spent(headers) {
            Refusal::Primary {
                reset: self.reset(headers),
            }
        } else {
            Refusal::Secondary
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use ureq::http::HeaderMap;

    const NAMES: RateLimitHeaders = RateLimitHeaders {
        limit: "x-ratelimit-limit",
        remaining: "x-ratelimit-remaining",
        reset: "x-ratelimit-reset",
        used: Some("x-ratelimit-used"),
        resource: None,
    };

    fn header_map(pairs: &[(&'static str, &str)]) -> HeaderMap {
        let mut map = HeaderMap::new();
        for (name, value) in pairs {
            map.insert(*name, value.parse().unwrap());
        }
        map
    }

    #[test]
    fn reads_the_named_headers_and_only_those() {
        let map = header_map(&[
            ("X-RateLimit-Limit", "5000"),
            ("x-ratelimit-remaining", " 12 "),
            ("x-ratelimit-reset", "1700000000"),
            ("x-ratelimit-used", "4988"),
            ("x-ratelimit-resource", "core"),
        ]);
        let limit = NAMES.read(&Headers(&map)).unwrap();
        assert_eq!(limit.limit, 5000);
        assert_eq!(limit.remaining, 12);
        assert_eq!(
            limit.reset,
            Some(Timestamp::from_second(1_700_000_000).unwrap())
        );
        assert_eq!(limit.used, Some(4988));
        assert_eq!(limit.resource, None, "resource is not named, so not read");
    }

    #[test]
    fn no_limit_without_limit_and_remaining() {
        let map = header_map(&[("x-ratelimit-limit", "60"), ("x-ratelimit-reset", "1")]);
        assert_eq!(NAMES.read(&Headers(&map)), None);
        let map = header_map(&[
            ("x-ratelimit-limit", "sixty"),
            ("x-ratelimit-remaining", "1"),
        ]);
        assert_eq!(NAMES.read(&Headers(&map)), None);
    }

    #[test]
    fn a_429_waits_for_the_reset_only_when_the_budget_is_spent() {
        let spent = header_map(&[("x-ratelimit-remaining", "0"), ("x-ratelimit-reset", "60")]);
        let throttled = header_map(&[("x-ratelimit-remaining", "3")]);
        assert_eq!(
            NAMES.refusal_429(429, &Headers(&spent)),
            Refusal::Primary {
                reset: Some(Timestamp::from_second(60).unwrap())
            }
        );
        assert_eq!(
            NAMES.refusal_429(429, &Headers(&throttled)),
            Refusal::Secondary
        );
        assert_eq!(NAMES.refusal_429(403, &Headers(&spent)), Refusal::NotALimit);
    }
}
