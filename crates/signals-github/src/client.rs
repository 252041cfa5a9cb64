//! The blocking HTTP client: one request at a time (GitHub asks integrators
//! to send requests serially per token), with conditional requests, rate
//! limit waits, retries and redirects handled here and nowhere else.
//!
//! Every wait goes through [`Config::sleeper`] and every "now" through
//! [`Config::clock`], so tests can run rate-limit scenarios without sleeping.

use std::collections::HashMap;
use std::fmt;
use std::sync::Arc;
use std::time::{Duration, Instant};

use jiff::Timestamp;
use signals_core::model::{Collected, ItemSnapshot, RepoName};

use crate::Error;
use crate::cache::{CachedResponse, ResponseCache, token_fingerprint};
use crate::wire::{self, Issue, Release, Repo, WireMilestone};

/// Page size asked of every list endpoint (GitHub's maximum).
pub const PER_PAGE: u32 = 100;

/// Hops of 301/302/307 followed for one request before giving up.
const MAX_REDIRECTS: u32 = 3;

/// A guard against a `Link` header that never ends.
const MAX_PAGES: usize = 10_000;

/// A GitHub token and the name of the environment variable it came from.
/// `Debug` shows only the variable name; the secret never leaves this type
/// except as the `Authorization` header.
#[derive(Clone)]
pub struct Token {
    env: String,
    secret: String,
}

impl Token {
    /// A token read by the caller from the environment variable `env`.
    pub fn new(env: impl Into<String>, secret: impl Into<String>) -> Token {
        Token {
            env: env.into(),
            secret: secret.into(),
        }
    }

    /// The environment variable name, for messages and logs.
    pub fn env(&self) -> &str {
        &self.env
    }

    /// The fingerprint under which cache entries for this token are kept.
    pub fn fingerprint(&self) -> String {
        token_fingerprint(Some(&self.secret))
    }
}

impl fmt::Debug for Token {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_struct("Token")
            .field("env", &self.env)
            .field("secret", &"<redacted>")
            .finish()
    }
}

/// How the client waits; replaced in tests by one that records.
pub type Sleeper = Arc<dyn Fn(Duration) + Send + Sync>;
/// What time it is; replaced in tests.
pub type Clock = Arc<dyn Fn() -> Timestamp + Send + Sync>;

/// Client settings. `Config::default()` talks to github.com anonymously.
#[derive(Clone)]
pub struct Config {
    /// API root: `https://api.github.com`, or `https://HOST/api/v3` for
    /// GitHub Enterprise. A trailing slash is allowed.
    pub base_url: String,
    /// The `User-Agent` header (GitHub rejects requests without one).
    pub user_agent: String,
    /// Tokens to spread requests over; empty for anonymous access (60
    /// requests per hour).
    pub tokens: Vec<Token>,
    /// Connect timeout, and timeout for each of the answer's head and body.
    pub timeout: Duration,
    /// Retries of one request after a 5xx, a timeout, a connection error,
    /// a cut body or a secondary rate limit.
    pub max_retries: u32,
    /// First backoff after a 5xx or transport error; doubled on each retry,
    /// plus up to 50% random jitter.
    pub retry_base: Duration,
    /// Shortest wait after a secondary rate limit without `Retry-After`;
    /// doubled on repeats.
    pub secondary_min_wait: Duration,
    /// Longest wait the client accepts; a longer one is returned as
    /// [`Error::RateLimited`] without waiting.
    pub max_wait: Duration,
    /// Performs waits (default: `std::thread::sleep`).
    pub sleeper: Sleeper,
    /// The current time (default: `Timestamp::now`).
    pub clock: Clock,
}

impl Default for Config {
    fn default() -> Config {
        Config {
            base_url: "https://api.github.com".into(),
            user_agent: concat!("repo-signals/", env!("CARGO_PKG_VERSION")).into(),
            tokens: vec![],
            timeout: Duration::from_secs(30),
            max_retries: 4,
            retry_base: Duration::from_secs(1),
            secondary_min_wait: Duration::from_secs(60),
            max_wait: Duration::from_secs(15 * 60),
            sleeper: Arc::new(std::thread::sleep),
            clock: Arc::new(Timestamp::now),
        }
    }
}

impl fmt::Debug for Config {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_struct("Config")
            .field("base_url", &self.base_url)
            .field("user_agent", &self.user_agent)
            .field("tokens", &self.tokens)
            .field("timeout", &self.timeout)
            .field("max_retries", &self.max_retries)
            .field("retry_base", &self.retry_base)
            .field("secondary_min_wait", &self.secondary_min_wait)
            .field("max_wait", &self.max_wait)
            .finish_non_exhaustive()
    }
}

/// The last `x-ratelimit-*` headers seen for one token.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct RateLimit {
    /// Requests allowed per window.
    pub limit: u64,
    /// Requests left in the window.
    pub remaining: u64,
    /// When the window resets.
    pub reset: Timestamp,
    /// Requests used in the window, when sent.
    pub used: Option<u64>,
    /// The limit's resource (`core`), when sent.
    pub resource: Option<String>,
}

/// Counters of one [`Client::collect`] call (a core type, so the store
/// records them as they are).
pub use signals_core::RequestStats;

/// One line of the request log. Never holds a token, only its variable
/// name.
#[derive(Debug, Clone)]
pub struct RequestLog {
    /// `GET`.
    pub method: &'static str,
    /// The URL requested.
    pub url: String,
    /// The status, `None` when no answer came.
    pub status: Option<u16>,
    /// Body bytes received.
    pub bytes: u64,
    /// True for a 304 answered from the cache.
    pub from_cache: bool,
    /// Time from sending to the end of the body.
    pub elapsed: Duration,
    /// Environment variable of the token used; `None` when anonymous.
    pub token_env: Option<String>,
}

/// A request log callback.
pub type Logger = Box<dyn FnMut(&RequestLog) + Send>;

/// What one [`Client::collect`] produced.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Collection {
    /// Context, releases, milestones and items, in domain types.
    pub collected: Collected,
    /// The new name when GitHub redirected the repository (it was renamed
    /// or transferred); requests after the first used it.
    pub renamed_to: Option<RepoName>,
    /// Request counters of this collection.
    pub stats: RequestStats,
}

/// An answer with its body, after redirects and cache.
struct Fetched {
    url: String,
    body: Vec<u8>,
    link_next: Option<String>,
    redirected: bool,
    /// Answered 304: the body and `link_next` are the cached ones.
    not_modified: bool,
}

/// Why one attempt failed, and whether to try again.
enum Attempt {
    Done(Fetched),
    Redirect(String),
    Retry {
        error: Error,
        wait: Duration,
    },
    /// A primary rate limit: the token's budget is spent until `until`.
    Primary {
        until: Timestamp,
    },
    Fail(Error),
}

/// A blocking GitHub REST client.
pub struct Client {
    config: Config,
    agent: ureq::Agent,
    base: String,
    limits: HashMap<usize, RateLimit>,
    logger: Option<Logger>,
    stats: RequestStats,
    secondary_hits: u32,
}

impl fmt::Debug for Client {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_struct("Client")
            .field("config", &self.config)
            .field("limits", &self.limits)
            .finish_non_exhaustive()
    }
}

impl Client {
    /// Builds a client; fails when the base URL is not http(s).
    pub fn new(config: Config) -> Result<Client, Error> {
        let base = config.base_url.trim_end_matches('/').to_string();
        if !(base.starts_with("https://") || base.starts_with("http://")) {
            return Err(Error::Config(format!(
                "base URL {:?} must start with https:// (or http://)",
                config.base_url
            )));
        }
        let agent = ureq::Agent::config_builder()
            .http_status_as_error(false)
            // Redirects are followed by hand, to notice renames.
            .max_redirects(0)
            .timeout_connect(Some(config.timeout))
            .timeout_recv_response(Some(config.timeout))
            .timeout_recv_body(Some(config.timeout))
            .build()
            .new_agent();
        Ok(Client {
            config,
            agent,
            base,
            limits: HashMap::new(),
            logger: None,
            stats: RequestStats::default(),
            secondary_hits: 0,
        })
    }

    /// Installs a callback called after every HTTP request.
    pub fn set_logger(&mut self, logger: Logger) {
        self.logger = Some(logger);
    }

    /// True when at least one token is configured.
    pub fn is_authenticated(&self) -> bool {
        !self.config.tokens.is_empty()
    }

    /// The configuration.
    pub fn config(&self) -> &Config {
        &self.config
    }

    /// The counters of the latest [`Client::collect`] call, also when it
    /// failed: a failed collection spends requests too.
    pub fn last_stats(&self) -> RequestStats {
        self.stats
    }

    /// The last rate limit seen for the token the next request would use
    /// (or for anonymous access); `None` before any answer.
    pub fn rate_limit(&self) -> Option<RateLimit> {
        self.limits.get(&self.pick_token().0).cloned()
    }

    /// The last rate limit seen per token, with its environment variable
    /// name (`None` for anonymous).
    pub fn rate_limits(&self) -> Vec<(Option<String>, Option<RateLimit>)> {
        if self.config.tokens.is_empty() {
            return vec![(None, self.limits.get(&0).cloned())];
        }
        self.config
            .tokens
            .iter()
            .enumerate()
            .map(|(i, t)| (Some(t.env.clone()), self.limits.get(&i).cloned()))
            .collect()
    }

    /// Collects one repository: the repository, the first page of releases
    /// (`per_page=100`: a project's hundred newest releases are enough for
    /// news), the open milestones (first page of 100), and every issue and
    /// pull request updated at or after `since` (all pages).
    ///
    /// That is `3 + max(1, ceil(items / 100))` requests when nothing fails,
    /// and no per-item request. When GitHub redirects the repository, the
    /// rest is asked of the new name, reported in
    /// [`Collection::renamed_to`]. Releases are listed newest first; items
    /// are in GitHub's `updated` ascending order, one per key (the last
    /// seen wins, should an item move between pages while paging).
    pub fn collect(
        &mut self,
        repo: &RepoName,
        since: Timestamp,
        cache: &mut dyn ResponseCache,
    ) -> Result<Collection, Error> {
        self.stats = RequestStats::default();
        let url = format!("{}/repos/{repo}", self.base);
        let fetched = self.get(&url, cache).map_err(|e| match e {
            Error::Http { status: 404, .. } => Error::NotFound { repo: repo.clone() },
            e => e,
        })?;
        let wire_repo: Repo = wire::decode(&fetched.url, &fetched.body)?;
        let renamed_to = if fetched.redirected
            && !wire_repo
                .full_name()
                .eq_ignore_ascii_case(&repo.to_string())
        {
            Some(
                RepoName::parse(wire_repo.full_name()).map_err(|e| Error::Decode {
                    url: fetched.url.clone(),
                    path: "full_name".into(),
                    message: e.to_string(),
                })?,
            )
        } else {
            None
        };
        let context = wire_repo.into_context(renamed_to.as_ref().unwrap_or(repo));
        let name = renamed_to.clone().unwrap_or_else(|| repo.clone());
        let root = format!("{}/repos/{name}", self.base);

        let url = format!("{root}/releases?per_page={PER_PAGE}");
        let fetched = self.get(&url, cache)?;
        let releases: Vec<ItemSnapshot> =
            wire::decode::<Vec<Release>>(&fetched.url, &fetched.body)?
                .into_iter()
                .filter_map(|r| r.into_snapshot(&name))
                .collect();

        let url = format!("{root}/milestones?state=open&per_page={PER_PAGE}");
        let fetched = self.get(&url, cache)?;
        let milestones = wire::decode::<Vec<WireMilestone>>(&fetched.url, &fetched.body)?
            .into_iter()
            .map(WireMilestone::into_milestone)
            .collect();

        let since = since.strftime("%Y-%m-%dT%H:%M:%SZ");
        let first = format!(
            "{root}/issues?state=all&sort=updated&direction=asc&since={since}&per_page={PER_PAGE}"
        );
        let mut next = Some(first.clone());
        let mut items: Vec<ItemSnapshot> = vec![];
        let mut pages = 0;
        while let Some(url) = next.take() {
            pages += 1;
            if pages > MAX_PAGES {
                return Err(Error::Http {
                    url,
                    status: 200,
                    message: format!("more than {MAX_PAGES} pages of issues; stopping"),
                });
            }
            let fetched = match self.get(&url, cache) {
                // GitHub answers 410 Gone when issues are disabled.
                Err(Error::Http { status: 410, .. }) => break,
                r => r?,
            };
            let page = wire::decode::<Vec<Issue>>(&fetched.url, &fetched.body)?;
            let full = page.len() == PER_PAGE as usize;
            for issue in page {
                let item = issue.into_snapshot(&name);
                items.retain(|i| i.key != item.key);
                items.push(item);
            }
            next = fetched.link_next;
            // A 304 keeps the cached `Link`: when that page was the last one
            // and full, items added since (at the end, ascending by update)
            // are on a page the cached answer does not announce, and an
            // unchanged full page would hide them run after run. Ask for
            // the next page by number then; an empty answer ends the list.
            if next.is_none() && full && fetched.not_modified {
                next = Some(format!("{first}&page={}", pages + 1));
            }
        }
        Ok(Collection {
            collected: Collected {
                context,
                releases,
                milestones,
                items,
            },
            renamed_to,
            stats: self.stats,
        })
    }

    /// Index of the token to use (0 when anonymous) and its secret: the
    /// one with the most remaining budget last seen, unknown counting as
    /// full; among exhausted ones, the one that resets first.
    fn pick_token(&self) -> (usize, Option<&Token>) {
        if self.config.tokens.is_empty() {
            return (0, None);
        }
        let now = (self.config.clock)();
        let score = |i: usize| match self.limits.get(&i) {
            None => (u64::MAX, 0),
            Some(l) if l.reset <= now => (u64::MAX, 0),
            Some(l) => (l.remaining, -l.reset.as_second()),
        };
        let best = (0..self.config.tokens.len())
            .max_by(|&a, &b| score(a).cmp(&score(b)).then(b.cmp(&a)))
            .unwrap_or(0);
        (best, self.config.tokens.get(best))
    }

    /// GETs `url` with the cache, rate limits, retries and redirects.
    fn get(&mut self, url: &str, cache: &mut dyn ResponseCache) -> Result<Fetched, Error> {
        let mut url = url.to_string();
        let mut redirects = 0;
        let mut attempt = 0;
        loop {
            self.wait_for_budget(&url)?;
            match self.attempt(&url, cache) {
                Attempt::Done(mut f) => {
                    self.secondary_hits = 0;
                    f.redirected = redirects > 0;
                    return Ok(f);
                }
                Attempt::Redirect(location) => {
                    redirects += 1;
                    if redirects > MAX_REDIRECTS {
                        return Err(Error::Redirect {
                            url,
                            message: format!("more than {MAX_REDIRECTS} redirects"),
                        });
                    }
                    url = location;
                }
                Attempt::Retry { error, wait } => {
                    attempt += 1;
                    if attempt > self.config.max_retries {
                        return Err(error);
                    }
                    if wait > self.config.max_wait {
                        let until = (self.config.clock)() + wait;
                        return Err(Error::RateLimited { until, wait, url });
                    }
                    self.stats.retries += 1;
                    (self.config.sleeper)(wait);
                }
                Attempt::Primary { until } => {
                    attempt += 1;
                    if attempt > self.config.max_retries {
                        let wait = wait_until((self.config.clock)(), until);
                        return Err(Error::RateLimited { until, wait, url });
                    }
                    // The next turn of the loop waits for the reset, or
                    // switches to a token with budget left.
                    self.stats.retries += 1;
                }
                Attempt::Fail(e) => return Err(e),
            }
        }
    }

    /// Waits when the chosen token's budget is known to be spent.
    fn wait_for_budget(&mut self, url: &str) -> Result<(), Error> {
        let (idx, _) = self.pick_token();
        let now = (self.config.clock)();
        let Some(limit) = self.limits.get(&idx) else {
            return Ok(());
        };
        if limit.remaining > 0 || limit.reset <= now {
            return Ok(());
        }
        let until = limit.reset;
        let wait = wait_until(now, until);
        if wait > self.config.max_wait {
            return Err(Error::RateLimited {
                until,
                wait,
                url: url.to_string(),
            });
        }
        (self.config.sleeper)(wait);
        // The window has reset: the budget is unknown (full) again.
        self.limits.remove(&idx);
        Ok(())
    }

    /// One HTTP exchange.
    fn attempt(&mut self, url: &str, cache: &mut dyn ResponseCache) -> Attempt {
        let (idx, token) = self.pick_token();
        let token = token.cloned();
        let fingerprint = token_fingerprint(token.as_ref().map(|t| t.secret.as_str()));
        let cached = cache.get(url, &fingerprint);
        let mut req = self
            .agent
            .get(url)
            .header("User-Agent", &self.config.user_agent)
            .header("Accept", "application/vnd.github+json")
            .header("X-GitHub-Api-Version", "2022-11-28");
        if let Some(t) = &token {
            req = req.header("Authorization", &format!("Bearer {}", t.secret));
        }
        if let Some(c) = &cached {
            if let Some(etag) = &c.etag {
                req = req.header("If-None-Match", etag);
            }
            if let Some(lm) = &c.last_modified {
                req = req.header("If-Modified-Since", lm);
            }
        }
        let started = Instant::now();
        self.stats.requests += 1;
        let mut log = RequestLog {
            method: "GET",
            url: url.to_string(),
            status: None,
            bytes: 0,
            from_cache: false,
            elapsed: Duration::ZERO,
            token_env: token.as_ref().map(|t| t.env.clone()),
        };
        let result = self.exchange(req, url, idx, cached, &fingerprint, cache, &mut log);
        log.elapsed = started.elapsed();
        self.stats.bytes_received += log.bytes;
        if let Some(logger) = &mut self.logger {
            logger(&log);
        }
        result
    }

    #[allow(clippy::too_many_arguments)]
    fn exchange(
        &mut self,
        req: ureq::RequestBuilder<ureq::typestate::WithoutBody>,
        url: &str,
        idx: usize,
        cached: Option<CachedResponse>,
        fingerprint: &str,
        cache: &mut dyn ResponseCache,
        log: &mut RequestLog,
    ) -> Attempt {
        let mut resp = match req.call() {
            Ok(r) => r,
            Err(e) => {
                let timed_out = matches!(e, ureq::Error::Timeout(_));
                let error = Error::Transport {
                    url: url.to_string(),
                    message: e.to_string(),
                    timed_out,
                };
                return match e {
                    ureq::Error::BadUri(_) | ureq::Error::Http(_) => Attempt::Fail(error),
                    _ => Attempt::Retry {
                        error,
                        wait: self.backoff(),
                    },
                };
            }
        };
        let status = resp.status().as_u16();
        log.status = Some(status);
        let header = |name: &str| {
            resp.headers()
                .get(name)
                .and_then(|v| v.to_str().ok())
                .map(str::to_string)
        };
        let resource = header("x-ratelimit-resource");
        let remaining = header("x-ratelimit-remaining").and_then(|v| v.parse::<u64>().ok());
        let reset = header("x-ratelimit-reset")
            .and_then(|v| v.parse::<i64>().ok())
            .and_then(|s| Timestamp::from_second(s).ok());
        if let (Some(limit), Some(remaining), Some(reset)) = (
            header("x-ratelimit-limit").and_then(|v| v.parse::<u64>().ok()),
            remaining,
            reset,
        ) {
            self.limits.insert(
                idx,
                RateLimit {
                    limit,
                    remaining,
                    reset,
                    used: header("x-ratelimit-used").and_then(|v| v.parse().ok()),
                    resource: resource.clone(),
                },
            );
        }
        let retry_after =
            header("retry-after").and_then(|v| retry_after_secs(&v, (self.config.clock)()));
        let etag = header("etag");
        let last_modified = header("last-modified");
        let link_next = header("link").and_then(|l| link_next(&l));
        let location = header("location");

        if status == 304 {
            let Some(cached) = cached else {
                return Attempt::Fail(Error::Http {
                    url: url.to_string(),
                    status,
                    message: "304 Not Modified without a cached answer".into(),
                });
            };
            self.stats.not_modified += 1;
            log.from_cache = true;
            return Attempt::Done(Fetched {
                url: url.to_string(),
                body: cached.body,
                link_next: cached.link_next,
                redirected: false,
                not_modified: true,
            });
        }
        if matches!(status, 301 | 302 | 307 | 308) {
            return match location {
                Some(loc) => Attempt::Redirect(self.absolute(&loc)),
                None => Attempt::Fail(Error::Redirect {
                    url: url.to_string(),
                    message: format!("{status} without a Location header"),
                }),
            };
        }
        let body = match resp.body_mut().with_config().limit(256 << 20).read_to_vec() {
            Ok(b) => b,
            Err(e) => {
                return Attempt::Retry {
                    error: Error::Body {
                        url: url.to_string(),
                        message: e.to_string(),
                    },
                    wait: self.backoff(),
                };
            }
        };
        log.bytes = body.len() as u64;
        if status == 200 {
            if etag.is_some() || last_modified.is_some() {
                cache.put(
                    url,
                    fingerprint,
                    CachedResponse {
                        etag,
                        last_modified,
                        link_next: link_next.clone(),
                        body: body.clone(),
                    },
                );
            }
            return Attempt::Done(Fetched {
                url: url.to_string(),
                body,
                link_next,
                redirected: false,
                not_modified: false,
            });
        }
        let message = github_message(&body);
        let http = Error::Http {
            url: url.to_string(),
            status,
            message: message.clone(),
        };
        if status == 403 || status == 429 {
            let lower = message.to_ascii_lowercase();
            let secondary = lower.contains("secondary rate limit") || lower.contains("abuse");
            let primary =
                !secondary && (remaining == Some(0) || lower.contains("rate limit exceeded"));
            let now = (self.config.clock)();
            if secondary || (retry_after.is_some() && !primary) {
                self.secondary_hits += 1;
                let wait = match retry_after {
                    Some(secs) => Duration::from_secs(secs),
                    None => self
                        .config
                        .secondary_min_wait
                        .saturating_mul(1 << (self.secondary_hits - 1).min(16)),
                };
                return Attempt::Retry {
                    error: Error::RateLimited {
                        until: now + wait,
                        wait,
                        url: url.to_string(),
                    },
                    wait,
                };
            }
            if primary {
                let until = reset
                    .filter(|r| *r > now)
                    .unwrap_or(now + self.config.secondary_min_wait);
                let limit = self.limits.get(&idx).map_or(0, |l| l.limit);
                self.limits.insert(
                    idx,
                    RateLimit {
                        limit,
                        remaining: 0,
                        reset: until,
                        used: Some(limit),
                        resource,
                    },
                );
                return Attempt::Primary { until };
            }
        }
        if status >= 500 {
            return Attempt::Retry {
                error: http,
                wait: self.backoff(),
            };
        }
        Attempt::Fail(http)
    }

    /// Exponential backoff with jitter for the next retry.
    fn backoff(&self) -> Duration {
        let n = self.stats.retries.min(16) as u32;
        let base = self.config.retry_base.saturating_mul(1 << n);
        base + base.mul_f64(fastrand::f64() * 0.5)
    }

    /// Resolves a `Location` that may be relative to the base URL's host.
    fn absolute(&self, location: &str) -> String {
        if location.starts_with("http://") || location.starts_with("https://") {
            return location.to_string();
        }
        // scheme://host
        let host_end = self
            .base
            .find("://")
            .and_then(|i| self.base[i + 3..].find('/').map(|j| i + 3 + j))
            .unwrap_or(self.base.len());
        format!(
            "{}/{}",
            &self.base[..host_end],
            location.trim_start_matches('/')
        )
    }
}

/// The wait from `now` until `until`, plus a second of margin for clock
/// skew.
fn wait_until(now: Timestamp, until: Timestamp) -> Duration {
    let secs = (until.as_second() - now.as_second()).max(0) as u64;
    Duration::from_secs(secs + 1)
}

/// GitHub's `message` from an error body, else the start of the body.
fn github_message(body: &[u8]) -> String {
    #[derive(serde::Deserialize)]
    struct Message {
        message: String,
    }
    match serde_json::from_slice::<Message>(body) {
        Ok(m) => m.message,
        Err(_) => String::from_utf8_lossy(&body[..body.len().min(200)]).into_owned(),
    }
}

/// The `rel="next"` target of a `Link` header.
pub(crate) fn link_next(header: &str) -> Option<String> {
    header.split(',').find_map(|part| {
        let (target, params) = part.split_once(';')?;
        let target = target.trim().strip_prefix('<')?.strip_suffix('>')?;
        params
            .split(';')
            .any(|p| {
                let p = p.trim();
                p == "rel=\"next\"" || p == "rel=next"
            })
            .then(|| target.to_string())
    })
}

/// Seconds to wait from a `Retry-After` value: delay-seconds, or an
/// HTTP-date (RFC 9110 allows both), counted from `now`.
fn retry_after_secs(value: &str, now: Timestamp) -> Option<u64> {
    let value = value.trim();
    if let Ok(secs) = value.parse::<u64>() {
        return Some(secs);
    }
    let at = jiff::fmt::rfc2822::parse(value).ok()?.timestamp();
    Some(at.duration_since(now).as_secs().max(0) as u64)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn retry_after_in_seconds_or_as_a_date() {
        let now: Timestamp = "2015-10-21T07:27:00Z".parse().unwrap();
        assert_eq!(retry_after_secs(" 120 ", now), Some(120));
        assert_eq!(
            retry_after_secs("Wed, 21 Oct 2015 07:28:00 GMT", now),
            Some(60)
        );
        // A date in the past means "now".
        assert_eq!(
            retry_after_secs("Wed, 21 Oct 2015 07:00:00 GMT", now),
            Some(0)
        );
        assert_eq!(retry_after_secs("soon", now), None);
    }

    #[test]
    fn link_header_next() {
        let h = "<https://api.github.com/repositories/1/issues?page=2>; rel=\"next\", \
                 <https://api.github.com/repositories/1/issues?page=5>; rel=\"last\"";
        assert_eq!(
            link_next(h).as_deref(),
            Some("https://api.github.com/repositories/1/issues?page=2")
        );
        assert_eq!(link_next("<https://x/?page=1>; rel=\"first\""), None);
        assert_eq!(link_next("garbage"), None);
    }

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

    #[test]
    fn token_debug_is_redacted() {
        let t = Token::new("GITHUB_TOKEN", "ghp_supersecret");
        let config = Config {
            tokens: vec![t.clone()],
            ..Config::default()
        };
        for text in [format!("{t:?}"), format!("{config:?}")] {
            assert!(!text.contains("supersecret"), "{text}");
            assert!(text.contains("GITHUB_TOKEN"), "{text}");
        }
        let client = Client::new(config).unwrap();
        assert!(!format!("{client:?}").contains("supersecret"));
    }

    #[test]
    fn base_url_joins_with_or_without_slash() {
        for base in ["https://ghe.example/api/v3", "https://ghe.example/api/v3/"] {
            let c = Client::new(Config {
                base_url: base.into(),
                ..Config::default()
            })
            .unwrap();
            assert_eq!(c.base, "https://ghe.example/api/v3");
            assert_eq!(
                c.absolute("/repositories/1"),
                "https://ghe.example/repositories/1"
            );
        }
        assert!(matches!(
            Client::new(Config {
                base_url: "api.github.com".into(),
                ..Config::default()
            }),
            Err(Error::Config(_))
        ));
    }
}
