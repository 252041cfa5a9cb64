//! POST of a JSON body, for GitHub's GraphQL API: one request
//! at a time on a token, like every GET, with 5xx answers and cut
//! connections retried, and the host's refusals read by its [`Protocol`].
//!
//! A POST is never conditional (GraphQL has no 304) and never cached. Its
//! budget is not the REST one: GitHub counts GraphQL in points, apart from
//! REST requests. So what it spends is counted apart too
//! ([`Client::graphql_cost`]), and the budget it last reported is kept
//! apart ([`Client::graphql_spent`]); neither touches
//! [`Client::stats`] or [`Client::rate_limit`], so adding GraphQL changes
//! no REST count.

use std::time::{Duration, Instant};

use jiff::Timestamp;
use signals_core::GraphqlCost;

use super::{Client, RequestLog, wait_until};
use crate::cache::{ResponseCache, token_fingerprint};
use crate::links::retry_after_secs;
use crate::token::same_origin;
use crate::{Error, Headers, Refusal};

/// An answer to a POST.
#[derive(Debug, Clone)]
pub struct Posted {
    /// The URL posted to.
    pub url: String,
    /// The body, as received.
    pub body: Vec<u8>,
    /// The rate limit its headers report, as the host's protocol reads
    /// them (GitHub's `x-ratelimit-*`, resource `graphql`); not kept as
    /// the REST budget.
    pub limit: Option<crate::RateLimit>,
}

/// What one POST attempt came to.
enum Sent {
    Done(Posted),
    Retry { error: Error, wait: Duration },
    Fail(Error),
}

impl Client {
    /// POSTs `body` (JSON) to `url` with the token, retrying 5xx answers,
    /// cut connections and short limits; waits first when the GraphQL
    /// budget is known to be spent ([`Client::graphql_spent`]). Fails with
    /// [`Error::Config`] without a token, or when `url` is on another
    /// origin than the base URL (the token never leaves it).
    pub fn post_json(
        &mut self,
        url: &str,
        body: &[u8],
        cache: &mut dyn ResponseCache,
    ) -> Result<Posted, Error> {
        let host = self.protocol.name();
        let mut attempt = 0;
        loop {
            self.wait_for_graphql(url)?;
            match self.send_post(url, body, cache)? {
                Sent::Done(posted) => return Ok(posted),
                Sent::Fail(e) => return Err(e),
                Sent::Retry { error, wait } => {
                    attempt += 1;
                    if attempt > self.config.max_retries {
                        return Err(error);
                    }
                    if wait > self.config.max_wait {
                        return Err(Error::RateLimited {
                            host,
                            until: Some((self.config.clock)() + wait),
                            wait,
                            url: url.to_string(),
                            token: self.token_env(),
                        });
                    }
                    self.graphql.retries += 1;
                    (self.config.sleeper)(wait);
                }
            }
        }
    }

    /// What GraphQL cost since the last [`Client::reset_stats`].
    pub fn graphql_cost(&self) -> GraphqlCost {
        self.graphql.cost
    }

    /// Counts points an answer's `rateLimit.cost` charged.
    pub fn add_graphql_points(&mut self, points: u64) {
        self.graphql.cost.points += points;
    }

    /// Notes the GraphQL budget an answer reported for the token in use:
    /// `remaining` points until `reset`. With nothing remaining, the next
    /// POST waits for the reset, or fails with [`Error::RateLimited`] when
    /// that is further than `max_wait`. A reset the host did not give
    /// counts as a minute away.
    pub fn graphql_spent(&mut self, remaining: u64, reset: Option<Timestamp>) {
        let idx = self.pick_token().0;
        let reset = reset.unwrap_or_else(|| (self.config.clock)() + Duration::from_secs(60));
        self.graphql.budgets.insert(idx, (remaining, reset));
    }

    /// Waits while the token's GraphQL budget is known to be spent.
    fn wait_for_graphql(&mut self, url: &str) -> Result<(), Error> {
        let idx = self.pick_token().0;
        let now = (self.config.clock)();
        let Some(&(remaining, reset)) = self.graphql.budgets.get(&idx) else {
            return Ok(());
        };
        if remaining > 0 || reset <= now {
            return Ok(());
        }
        let wait = wait_until(now, reset);
        if wait > self.config.max_wait {
            return Err(Error::RateLimited {
                host: self.protocol.name(),
                until: Some(reset),
                wait,
                url: url.to_string(),
                token: self.token_env(),
            });
        }
        (self.config.sleeper)(wait);
        self.graphql.budgets.remove(&idx);
        Ok(())
    }

    /// One POST under the token's lock, logged and counted.
    fn send_post(
        &mut self,
        url: &str,
        body: &[u8],
        cache: &mut dyn ResponseCache,
    ) -> Result<Sent, Error> {
        let host = self.protocol.name();
        let token = match self.pick_token().1 {
            Some(t) if same_origin(&self.base, url) => t.clone(),
            _ => {
                return Err(Error::Config {
                    host,
                    message: format!("{url} needs a token on the base URL's origin"),
                });
            }
        };
        let fingerprint = token_fingerprint(Some(token.secret()));
        cache.lock_token(&fingerprint);
        let mut req = self
            .agent
            .post(url)
            .header("User-Agent", &self.config.user_agent)
            .header("Content-Type", "application/json");
        for (name, value) in self.protocol.request_headers() {
            req = req.header(*name, *value);
        }
        let (name, value) = self.protocol.auth_header(token.secret());
        req = req.header(name, &value);
        let started = Instant::now();
        self.graphql.cost.requests += 1;
        let mut log = RequestLog {
            method: "POST",
            url: url.to_string(),
            status: None,
            bytes: 0,
            from_cache: false,
            elapsed: Duration::ZERO,
            token_env: Some(token.env().to_string()),
        };
        let sent = self.read_post(url, req.send(body), &mut log);
        cache.unlock_token(&fingerprint);
        log.elapsed = started.elapsed();
        if let Some(logger) = &mut self.logger {
            logger(&log);
        }
        Ok(sent)
    }

    /// Reads a POST's answer: a 200's body, else a refusal or a failure.
    fn read_post(
        &mut self,
        url: &str,
        answer: Result<ureq::http::Response<ureq::Body>, ureq::Error>,
        log: &mut RequestLog,
    ) -> Sent {
        let mut resp = match answer {
            Ok(r) => r,
            Err(e) => {
                let timed_out = matches!(e, ureq::Error::Timeout(_));
                let error = Error::Transport {
                    url: url.to_string(),
                    message: e.to_string(),
                    timed_out,
                };
                return match e {
                    ureq::Error::BadUri(_) | ureq::Error::Http(_) => Sent::Fail(error),
                    _ => self.post_retry(error),
                };
            }
        };
        let status = resp.status().as_u16();
        log.status = Some(status);
        let body = match resp.body_mut().with_config().limit(64 << 20).read_to_vec() {
            Ok(b) => b,
            Err(e) => {
                let error = Error::Body {
                    url: url.to_string(),
                    message: e.to_string(),
                };
                return self.post_retry(error);
            }
        };
        log.bytes = body.len() as u64;
        let headers = Headers(resp.headers());
        if status == 200 {
            return Sent::Done(Posted {
                url: url.to_string(),
                body,
                limit: self.protocol.rate_limit(&headers),
            });
        }
        let now = (self.config.clock)();
        let retry_after = headers
            .get("retry-after")
            .and_then(|v| retry_after_secs(v, now));
        let message = self.protocol.error_message(&body);
        match self
            .protocol
            .refusal(status, &message, &headers, retry_after)
        {
            Refusal::Secondary => Sent::Retry {
                error: Error::Http {
                    host: self.protocol.name(),
                    url: url.to_string(),
                    status,
                    message,
                },
                wait: retry_after.map_or(self.config.secondary_min_wait, Duration::from_secs),
            },
            Refusal::Primary { reset } => {
                self.graphql_spent(0, reset);
                let wait = reset.map_or(Duration::ZERO, |r| wait_until(now, r));
                Sent::Retry {
                    error: Error::RateLimited {
                        host: self.protocol.name(),
                        until: reset,
                        wait,
                        url: url.to_string(),
                        token: self.token_env(),
                    },
                    wait: Duration::ZERO,
                }
            }
            Refusal::NotALimit => {
                let http = Error::Http {
                    host: self.protocol.name(),
                    url: url.to_string(),
                    status,
                    message,
                };
                if status >= 500 {
                    self.post_retry(http)
                } else {
                    Sent::Fail(http)
                }
            }
        }
    }

    fn post_retry(&self, error: Error) -> Sent {
        let n = self.graphql.retries.min(16) as u32;
        let base = self.config.retry_base.saturating_mul(1 << n);
        Sent::Retry {
            error,
            wait: base + base.mul_f64(fastrand::f64() * 0.5),
        }
    }
}

/// What the client keeps of GraphQL between requests: its cost since the
/// last reset, its retries, and the budget last reported per token (index
/// as in `pick_token`: points remaining, and when they reset).
#[derive(Debug, Default)]
pub(super) struct GraphqlState {
    cost: GraphqlCost,
    retries: u64,
    budgets: std::collections::HashMap<usize, (u64, Timestamp)>,
}

impl GraphqlState {
    /// Starts new counters; the budgets stay known.
    pub(super) fn reset(&mut self) {
        self.cost = GraphqlCost::default();
        self.retries = 0;
    }
}

impl Client {
    /// The error of a GraphQL budget still refused after the retries: run
    /// again after `until`.
    pub fn graphql_refused(&self, url: &str, until: Option<Timestamp>) -> Error {
        let now = (self.config.clock)();
        Error::RateLimited {
            host: self.protocol.name(),
            until,
            wait: until.map_or(self.config.secondary_min_wait, |u| wait_until(now, u)),
            url: url.to_string(),
            token: self.token_env(),
        }
    }
}
