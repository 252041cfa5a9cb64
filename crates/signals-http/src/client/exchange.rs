//! One attempt at a request, and what its answer amounts to: an
//! [`Attempt`] the request loop ([`Client::get`]) acts on.
//!
//! An attempt holds the token's lock for one exchange, so that processes
//! sharing the state send serially on one token and know the budget they
//! spent. The exchange reads the answer's head once, then takes the one
//! branch that fits it: from the cache (304), a redirect, a success (kept
//! in the cache when it has validators), or a refusal (a rate limit, or an
//! error answer worth retrying or not).

use std::time::{Duration, Instant};

use jiff::Timestamp;

use super::{Client, Fetched, RequestLog};
use crate::cache::{CachedResponse, ResponseCache, token_fingerprint};
use crate::links::{link_rel, retry_after_secs};
use crate::token::same_origin;
use crate::{Error, Headers, RateLimit, Refusal, Token};

/// The largest body read from one answer.
const MAX_BODY: u64 = 256 << 20;

/// Why one attempt failed, and whether to try again.
pub(super) enum Attempt {
    Done(Fetched),
    Redirect(String),
    Retry {
        error: Error,
        wait: Duration,
    },
    /// A primary rate limit: the token's budget is spent until `until`
    /// (the host's reset when `known`, else the shortest pause).
    Primary {
        until: Timestamp,
        known: bool,
    },
    /// Another process sharing the state spent the token's budget: nothing
    /// was sent; wait for the reset or take another token.
    Spent,
    Fail(Error),
}

/// Whether a GET goes through the cache: conditionally (its validators
/// sent, a 200 with validators kept), or not at all.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(super) enum Caching {
    Conditional,
    Off,
}

/// One request as its exchange sees it, besides what goes on the wire.
struct Asked<'a> {
    url: &'a str,
    /// The token's index (0 when anonymous), under which its rate limit
    /// is kept.
    idx: usize,
    /// The cached answer the request named in its validators, if any.
    cached: Option<CachedResponse>,
    /// Keep a 200 with validators in the cache (not for an uncached GET).
    keep: bool,
    /// The fingerprint of the token sent (or of none), the cache's key.
    fingerprint: &'a str,
}

/// What an answer's head says, read once, before its body.
struct Head {
    status: u16,
    /// The rate limit its headers report, when they do.
    seen_limit: Option<RateLimit>,
    /// `Retry-After`, in seconds from now.
    retry_after: Option<u64>,
    etag: Option<String>,
    last_modified: Option<String>,
    /// The next page, as the host's [`Protocol`](crate::Protocol) reads it.
    next: Option<String>,
    /// The `Link` header's `rel="last"`.
    last: Option<String>,
    location: Option<String>,
}

type Request = ureq::RequestBuilder<ureq::typestate::WithoutBody>;

impl Client {
    /// One HTTP exchange, under the token's lock, logged and counted.
    pub(super) fn attempt(
        &mut self,
        url: &str,
        cache: &mut dyn ResponseCache,
        caching: Caching,
    ) -> Attempt {
        let (idx, token) = self.pick_token();
        // The token goes only to the base URL's origin: a `Link` or
        // `Location` pointing elsewhere is fetched anonymously.
        let token = token.filter(|_| same_origin(&self.base, url)).cloned();
        let fingerprint = token_fingerprint(token.as_ref().map(Token::secret));
        // Requests on one token stay serial across the processes that share
        // the state; under that lock, the budget they spent is known.
        cache.lock_token(&fingerprint);
        if let Some(shared) = cache.shared_limit(&fingerprint)
            && shared.remaining == 0
            && shared.reset.is_some_and(|r| r > (self.config.clock)())
        {
            cache.unlock_token(&fingerprint);
            self.limits.insert(idx, shared);
            return Attempt::Spent;
        }
        let cached = if caching == Caching::Conditional {
            cache.get(url, &fingerprint)
        } else {
            None
        };
        let req = self.request(url, token.as_ref(), cached.as_ref());
        let started = Instant::now();
        self.stats.requests += 1;
        let mut log = RequestLog {
            method: "GET",
            url: url.to_string(),
            status: None,
            bytes: 0,
            from_cache: false,
            elapsed: Duration::ZERO,
            token_env: token.as_ref().map(|t| t.env().to_string()),
        };
        let before = self.limits.get(&idx).cloned();
        let asked = Asked {
            url,
            idx,
            cached,
            keep: caching == Caching::Conditional,
            fingerprint: &fingerprint,
        };
        let result = self.exchange(req, asked, cache, &mut log);
        if let Some(seen) = self.limits.get(&idx)
            && before.as_ref() != Some(seen)
        {
            cache.share_limit(&fingerprint, seen);
        }
        cache.unlock_token(&fingerprint);
        log.elapsed = started.elapsed();
        self.stats.bytes_received += log.bytes;
        if let Some(logger) = &mut self.logger {
            logger(&log);
        }
        result
    }

    /// The GET of `url` with the host's headers, the token's auth header
    /// and the validators of the cached answer.
    fn request(
        &self,
        url: &str,
        token: Option<&Token>,
        cached: Option<&CachedResponse>,
    ) -> Request {
        let mut req = self
            .agent
            .get(url)
            .header("User-Agent", &self.config.user_agent);
        for (name, value) in self.protocol.request_headers() {
            req = req.header(*name, *value);
        }
        if let Some(t) = token {
            let (name, value) = self.protocol.auth_header(t.secret());
            req = req.header(name, &value);
        }
        if let Some(c) = cached {
            if let Some(etag) = &c.etag {
                req = req.header("If-None-Match", etag);
            }
            if let Some(lm) = &c.last_modified {
                req = req.header("If-Modified-Since", lm);
            }
        }
        req
    }

    /// Sends `req` and reads its answer into what the loop does next.
    fn exchange(
        &mut self,
        req: Request,
        asked: Asked<'_>,
        cache: &mut dyn ResponseCache,
        log: &mut RequestLog,
    ) -> Attempt {
        let mut resp = match req.call() {
            Ok(r) => r,
            Err(e) => return self.transport_failure(asked.url, e),
        };
        let status = resp.status().as_u16();
        log.status = Some(status);
        let head = self.read_head(asked.url, asked.idx, status, &Headers(resp.headers()));
        match status {
            304 => return self.not_modified(asked.url, asked.cached, log),
            301 | 302 | 307 | 308 => return self.redirect(asked.url, status, head.location),
            _ => {}
        }
        let body = match resp.body_mut().with_config().limit(MAX_BODY).read_to_vec() {
            Ok(b) => b,
            Err(e) => {
                let error = Error::Body {
                    url: asked.url.to_string(),
                    message: e.to_string(),
                };
                return self.retry(error);
            }
        };
        log.bytes = body.len() as u64;
        if status == 200 {
            return Attempt::Done(self.answered(&asked, head, body, cache));
        }
        self.refused(&asked, head, &body, &Headers(resp.headers()))
    }

    /// No answer came: a timeout or a cut connection is retried, a request
    /// that could not be made is not.
    fn transport_failure(&self, url: &str, e: ureq::Error) -> Attempt {
        let timed_out = matches!(e, ureq::Error::Timeout(_));
        let error = Error::Transport {
            url: url.to_string(),
            message: e.to_string(),
            timed_out,
        };
        match e {
            ureq::Error::BadUri(_) | ureq::Error::Http(_) => Attempt::Fail(error),
            _ => self.retry(error),
        }
    }

    /// Reads what the loop needs from an answer's headers, and keeps the
    /// rate limit they report for token `idx`.
    fn read_head(&mut self, url: &str, idx: usize, status: u16, headers: &Headers<'_>) -> Head {
        let head = Head {
            status,
            seen_limit: self.protocol.rate_limit(headers),
            retry_after: headers
                .get("retry-after")
                .and_then(|v| retry_after_secs(v, (self.config.clock)())),
            etag: headers.get("etag").map(str::to_string),
            last_modified: headers.get("last-modified").map(str::to_string),
            next: self.protocol.next_page(url, headers),
            last: headers.get("link").and_then(|l| link_rel(l, "last")),
            location: headers.get("location").map(str::to_string),
        };
        if let Some(limit) = head.seen_limit.clone() {
            self.limits.insert(idx, limit);
        }
        head
    }

    /// A 304: the cached answer stands, with its body and next page.
    fn not_modified(
        &mut self,
        url: &str,
        cached: Option<CachedResponse>,
        log: &mut RequestLog,
    ) -> Attempt {
        let Some(cached) = cached else {
            return Attempt::Fail(Error::Http {
                host: self.protocol.name(),
                url: url.to_string(),
                status: 304,
                message: "304 Not Modified without a cached answer".into(),
            });
        };
        self.stats.not_modified += 1;
        log.from_cache = true;
        Attempt::Done(Fetched {
            url: url.to_string(),
            body: cached.body,
            next: cached.link_next,
            redirected: false,
            not_modified: true,
            last: None,
        })
    }

    /// A redirect, followed by hand (see [`Client::new`]).
    fn redirect(&self, url: &str, status: u16, location: Option<String>) -> Attempt {
        match location {
            Some(loc) => Attempt::Redirect(self.absolute(&loc)),
            None => Attempt::Fail(Error::Redirect {
                url: url.to_string(),
                message: format!("{status} without a Location header"),
            }),
        }
    }

    /// A 200: the answer, kept in the cache when it carries validators
    /// and the request keeps answers.
    fn answered(
        &self,
        asked: &Asked<'_>,
        head: Head,
        body: Vec<u8>,
        cache: &mut dyn ResponseCache,
    ) -> Fetched {
        if asked.keep && (head.etag.is_some() || head.last_modified.is_some()) {
            cache.put(
                asked.url,
                asked.fingerprint,
                CachedResponse {
                    etag: head.etag,
                    last_modified: head.last_modified,
                    link_next: head.next.clone(),
                    body: body.clone(),
                },
            );
        }
        Fetched {
            url: asked.url.to_string(),
            body,
            next: head.next,
            redirected: false,
            not_modified: false,
            last: head.last,
        }
    }

    /// An error answer: a rate limit as the host's protocol reads it, else
    /// an HTTP error, retried when the server failed (5xx).
    fn refused(
        &mut self,
        asked: &Asked<'_>,
        head: Head,
        body: &[u8],
        headers: &Headers<'_>,
    ) -> Attempt {
        let message = self.protocol.error_message(body);
        let refusal = self
            .protocol
            .refusal(head.status, &message, headers, head.retry_after);
        let now = (self.config.clock)();
        match refusal {
            Refusal::Secondary => self.secondary_limit(asked.url, head.retry_after, now),
            Refusal::Primary { reset } => {
                self.primary_limit(asked.idx, reset, head.seen_limit, now)
            }
            Refusal::NotALimit => {
                let http = Error::Http {
                    host: self.protocol.name(),
                    url: asked.url.to_string(),
                    status: head.status,
                    message,
                };
                if head.status >= 500 {
                    self.retry(http)
                } else {
                    Attempt::Fail(http)
                }
            }
        }
    }

    /// A short-term limit: wait `Retry-After`, else a pause that doubles
    /// on each repeat, and try again.
    fn secondary_limit(&mut self, url: &str, retry_after: Option<u64>, now: Timestamp) -> Attempt {
        self.secondary_hits += 1;
        let wait = match retry_after {
            Some(secs) => Duration::from_secs(secs),
            None => self
                .config
                .secondary_min_wait
                .saturating_mul(1 << (self.secondary_hits - 1).min(16)),
        };
        Attempt::Retry {
            error: Error::RateLimited {
                host: self.protocol.name(),
                // A host's `Retry-After` may reach past the year 9999.
                until: Some(now.checked_add(wait).unwrap_or(Timestamp::MAX)),
                wait,
                url: url.to_string(),
                token: self.token_env(),
            },
            wait,
        }
    }

    /// The token's budget is spent: recorded as such for token `idx`, until
    /// the host's reset or, when it gave none, the shortest pause.
    fn primary_limit(
        &mut self,
        idx: usize,
        reset: Option<Timestamp>,
        seen_limit: Option<RateLimit>,
        now: Timestamp,
    ) -> Attempt {
        // What is known is kept (the limit, from this answer or an
        // earlier one); a reset the host did not give stays unknown,
        // and the shortest pause is waited before asking again.
        let reset = reset.filter(|r| *r > now);
        let until = reset.unwrap_or(now + self.config.secondary_min_wait);
        let (limit, resource) = match (&seen_limit, self.limits.get(&idx)) {
            (Some(l), _) | (None, Some(l)) => (l.limit, l.resource.clone()),
            (None, None) => (0, None),
        };
        self.limits.insert(
            idx,
            RateLimit {
                limit,
                remaining: 0,
                reset,
                used: Some(limit),
                resource,
            },
        );
        Attempt::Primary {
            until,
            known: reset.is_some(),
        }
    }

    /// Try again after the backoff.
    fn retry(&self, error: Error) -> Attempt {
        Attempt::Retry {
            error,
            wait: self.backoff(),
        }
    }

    /// Exponential backoff with jitter for the next retry.
    fn backoff(&self) -> Duration {
        let n = self.stats.retries.min(16) as u32;
        let base = self.config.retry_base.saturating_mul(1 << n);
        base + base.mul_f64(fastrand::f64() * 0.5)
    }
}
