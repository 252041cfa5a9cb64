//! The blocking request loop every host client shares: one request at a time
//! (GitHub asks integrators to send requests serially per token, and the
//! other hosts are served the same courtesy), with conditional requests,
//! rate-limit waits, retries and redirects handled here and nowhere else.
//!
//! What differs between hosts (the `Accept` header, how the token is sent,
//! the rate-limit headers, the error body, how a refusal reads) comes from
//! the host crate through [`Protocol`]; this module knows no host's JSON.
//!
//! Every wait goes through [`Config::sleeper`] and every "now" through
//! [`Config::clock`], so tests can run rate-limit scenarios without sleeping.

use std::collections::HashMap;
use std::fmt;
use std::sync::Arc;
use std::time::{Duration, Instant};

use jiff::Timestamp;
use signals_core::RequestStats;
use signals_core::model::RepoName;

use crate::Error;
use crate::cache::{CachedResponse, ResponseCache, token_fingerprint};

/// Hops of 301/302/307/308 followed for one request before giving up.
const MAX_REDIRECTS: u32 = 3;

/// A guard against pagination that never ends.
pub const MAX_PAGES: usize = 10_000;

/// A token and the name of the environment variable it came from. `Debug`
/// shows only the variable name; the secret never leaves this type except
/// through [`Protocol::auth_header`], and only towards the base URL's origin.
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

/// Client settings. `Config::default()` has no base URL: the host crate or
/// the caller sets one.
#[derive(Clone)]
pub struct Config {
    /// API root (`https://api.github.com`, `https://gitlab.com/api/v4`,
    /// `https://codeberg.org/api/v1`). A trailing slash is allowed.
    pub base_url: String,
    /// The `User-Agent` header (GitHub rejects requests without one).
    pub user_agent: String,
    /// Tokens to spread requests over; empty for anonymous access.
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
            base_url: String::new(),
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

pub use signals_core::RateLimit;

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
    /// Environment variable of the token used; `None` when anonymous (or
    /// when the URL is on another origin, which never gets the token).
    pub token_env: Option<String>,
}

/// A request log callback.
pub type Logger = Box<dyn FnMut(&RequestLog) + Send>;

/// The response headers of one answer, as the host crate reads them.
pub struct Headers<'a>(pub(crate) &'a ureq::http::HeaderMap);

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
    /// say, for [`Config::secondary_min_wait`]).
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

/// An answer with its body, after redirects and cache.
#[derive(Debug, Clone)]
pub struct Fetched {
    /// The URL that finally answered (after redirects).
    pub url: String,
    /// The body (from the cache on a 304).
    pub body: Vec<u8>,
    /// The next page's URL, as [`Protocol::next_page`] read it.
    pub next: Option<String>,
    /// True when at least one redirect was followed.
    pub redirected: bool,
    /// Answered 304: the body and `next` are the cached ones.
    pub not_modified: bool,
    /// The `Link` header's `rel="last"` target, when the answer had one
    /// (never on a 304: the cache keeps only `next`).
    pub last: Option<String>,
}

/// Why one attempt failed, and whether to try again.
enum Attempt {
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

/// The blocking HTTP client of one host.
pub struct Client {
    config: Config,
    protocol: Box<dyn Protocol>,
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
            .field("host", &self.protocol.name())
            .field("config", &self.config)
            .field("limits", &self.limits)
            .finish_non_exhaustive()
    }
}

impl Client {
    /// Builds a client whose base URL is `default_base` when the
    /// configuration leaves it empty (a host kind's public instance).
    pub fn with_default_base(
        mut config: Config,
        default_base: &str,
        protocol: Box<dyn Protocol>,
    ) -> Result<Client, Error> {
        if config.base_url.is_empty() {
            config.base_url = default_base.into();
        }
        Client::new(config, protocol)
    }

    /// Builds a client; fails when the base URL is not http(s).
    pub fn new(config: Config, protocol: Box<dyn Protocol>) -> Result<Client, Error> {
        let base = config.base_url.trim_end_matches('/').to_string();
        if !(base.starts_with("https://") || base.starts_with("http://")) {
            return Err(Error::Config {
                host: protocol.name(),
                message: format!(
                    "base URL {:?} must start with https:// (or http://)",
                    config.base_url
                ),
            });
        }
        let agent = ureq::Agent::config_builder()
            .http_status_as_error(false)
            // Redirects are followed by hand, to notice renames and to keep
            // the token on the base URL's origin.
            .max_redirects(0)
            .timeout_connect(Some(config.timeout))
            .timeout_recv_response(Some(config.timeout))
            .timeout_recv_body(Some(config.timeout))
            .build()
            .new_agent();
        Ok(Client {
            config,
            protocol,
            agent,
            base,
            limits: HashMap::new(),
            logger: None,
            stats: RequestStats::default(),
            secondary_hits: 0,
        })
    }

    /// The host's display name.
    pub fn host_name(&self) -> &'static str {
        self.protocol.name()
    }

    /// The base URL without a trailing slash.
    pub fn base(&self) -> &str {
        &self.base
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

    /// The counters since the last [`Client::reset_stats`].
    pub fn stats(&self) -> RequestStats {
        self.stats
    }

    /// Starts new counters (at the start of one repository's collection).
    pub fn reset_stats(&mut self) {
        self.stats = RequestStats::default();
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

    /// The environment variable of the token the next request would carry
    /// (`None` when anonymous), for what a rate-limit stop advises.
    fn token_env(&self) -> Option<String> {
        self.pick_token().1.map(|t| t.env.clone())
    }

    /// Index of the token to use (0 when anonymous) and its secret: the
    /// one with the most remaining budget last seen, unknown counting as
    /// full; among exhausted ones, the one that resets first.
    fn pick_token(&self) -> (usize, Option<&Token>) {
        if self.config.tokens.is_empty() {
            return (0, None);
        }
        let now = (self.config.clock)();
        // A spent budget whose reset is unknown ranks below every other.
        let score = |i: usize| match self.limits.get(&i) {
            None => (u64::MAX, 0),
            Some(l) if l.reset.is_some_and(|r| r <= now) => (u64::MAX, 0),
            Some(l) => (l.remaining, l.reset.map_or(i64::MIN, |r| -r.as_second())),
        };
        let best = (0..self.config.tokens.len())
            .max_by(|&a, &b| score(a).cmp(&score(b)).then(b.cmp(&a)))
            .unwrap_or(0);
        (best, self.config.tokens.get(best))
    }

    /// A value a host crate derived from answers and kept with
    /// [`Client::keep`] under `key`, if the cache still has it.
    pub fn recall(&self, key: &str, cache: &dyn ResponseCache) -> Option<Vec<u8>> {
        cache
            .get(&derived_key(key), &self.derived_fingerprint())
            .map(|c| c.body)
    }

    /// Keeps a value a host crate derived from answers (not an answer of
    /// its own: it has no validators) in the cache under `key`, a URL the
    /// value belongs to. It is stored under the URL with a `#signals-derived`
    /// fragment, which no request sends, so it never stands in for an
    /// answer; and under the first token's fingerprint, whichever token
    /// the answers came with.
    pub fn keep(&self, key: &str, value: Vec<u8>, cache: &mut dyn ResponseCache) {
        let entry = CachedResponse {
            etag: None,
            last_modified: None,
            link_next: None,
            body: value,
        };
        cache.put(&derived_key(key), &self.derived_fingerprint(), entry);
    }

    fn derived_fingerprint(&self) -> String {
        token_fingerprint(self.config.tokens.first().map(|t| t.secret.as_str()))
    }

    /// GETs `url` with the cache, rate limits, retries and redirects.
    pub fn get(&mut self, url: &str, cache: &mut dyn ResponseCache) -> Result<Fetched, Error> {
        self.get_with(url, cache, true)
    }

    /// GETs every page of a list from `first`, handing each answer to
    /// `page`, which decodes it and says how many entries it held. Pages
    /// follow [`Fetched::next`]. A 304 keeps the cached pagination: when
    /// that page was the last one and full (`per_page` entries), entries
    /// added since (at the end of an ascending list) are on a page the
    /// cached answer does not announce, so the next page is asked by number
    /// (`&page=N` after `first`); an empty answer ends the list. A
    /// `disabled` status on the first page means the host has the list
    /// turned off (GitHub's 410, GitLab's 403): no entries, no error. More
    /// than [`MAX_PAGES`] pages is an error.
    pub fn get_pages(
        &mut self,
        first: &str,
        cache: &mut dyn ResponseCache,
        per_page: usize,
        disabled: Option<u16>,
        mut page: impl FnMut(&Fetched) -> Result<usize, Error>,
    ) -> Result<(), Error> {
        let mut next = Some(first.to_string());
        let mut pages = 0;
        while let Some(url) = next.take() {
            pages += 1;
            if pages > MAX_PAGES {
                return Err(Error::Http {
                    host: self.protocol.name(),
                    url,
                    status: 200,
                    message: format!("more than {MAX_PAGES} pages; stopping"),
                });
            }
            let fetched = match self.get(&url, cache) {
                Err(Error::Http { status, .. }) if pages == 1 && Some(status) == disabled => {
                    return Ok(());
                }
                r => r?,
            };
            let full = page(&fetched)? == per_page;
            next = fetched.next;
            if next.is_none() && full && fetched.not_modified {
                next = Some(format!("{first}&page={}", pages + 1));
            }
        }
        Ok(())
    }

    /// GETs a repository's own object at `url`; a 404 is
    /// [`Error::NotFound`] for `repo`.
    pub fn get_repository(
        &mut self,
        url: &str,
        repo: &RepoName,
        cache: &mut dyn ResponseCache,
    ) -> Result<Fetched, Error> {
        let host = self.protocol.name();
        self.get(url, cache).map_err(|e| match e {
            Error::Http { status: 404, .. } => Error::NotFound {
                host,
                repo: repo.clone(),
            },
            e => e,
        })
    }

    /// GETs `url` like [`Client::get`], but never conditionally and without
    /// keeping the answer: for an answer whose headers matter (a count in
    /// `Link`), which a 304 would not give again. The token's lock and
    /// shared rate limit are kept as for every request.
    pub fn get_uncached(
        &mut self,
        url: &str,
        cache: &mut dyn ResponseCache,
    ) -> Result<Fetched, Error> {
        self.get_with(url, cache, false)
    }

    fn get_with(
        &mut self,
        url: &str,
        cache: &mut dyn ResponseCache,
        conditional: bool,
    ) -> Result<Fetched, Error> {
        let host = self.protocol.name();
        let mut url = url.to_string();
        let mut redirects = 0;
        let mut attempt = 0;
        loop {
            self.wait_for_budget(&url)?;
            match self.attempt(&url, cache, conditional) {
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
                        return Err(Error::RateLimited {
                            host,
                            until: Some(until),
                            wait,
                            url,
                            token: self.token_env(),
                        });
                    }
                    self.stats.retries += 1;
                    (self.config.sleeper)(wait);
                }
                Attempt::Primary { until, known } => {
                    attempt += 1;
                    let wait = wait_until((self.config.clock)(), until);
                    if attempt > self.config.max_retries || (!known && wait > self.config.max_wait)
                    {
                        return Err(Error::RateLimited {
                            host,
                            until: known.then_some(until),
                            wait,
                            url,
                            token: self.token_env(),
                        });
                    }
                    self.stats.retries += 1;
                    // A known reset: the next turn of the loop waits for it,
                    // or switches to a token with budget left. An unknown
                    // one: wait the shortest pause here and ask again.
                    if !known {
                        (self.config.sleeper)(wait);
                    }
                }
                // Not an attempt: the next turn waits for the reset (the
                // shared limit is now this client's), or takes another token.
                Attempt::Spent => {}
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
        // A spent budget of unknown reset is not waited for here: the
        // refusal that said so paced the retry.
        let Some(until) = limit.reset else {
            return Ok(());
        };
        if limit.remaining > 0 || until <= now {
            return Ok(());
        }
        let wait = wait_until(now, until);
        if wait > self.config.max_wait {
            return Err(Error::RateLimited {
                host: self.protocol.name(),
                until: Some(until),
                wait,
                url: url.to_string(),
                token: self.token_env(),
            });
        }
        (self.config.sleeper)(wait);
        // The window has reset: the budget is unknown (full) again.
        self.limits.remove(&idx);
        Ok(())
    }

    /// One HTTP exchange.
    fn attempt(&mut self, url: &str, cache: &mut dyn ResponseCache, conditional: bool) -> Attempt {
        let (idx, token) = self.pick_token();
        // The token goes only to the base URL's origin: a `Link` or
        // `Location` pointing elsewhere is fetched anonymously.
        let token = token.filter(|_| same_origin(&self.base, url)).cloned();
        let fingerprint = token_fingerprint(token.as_ref().map(|t| t.secret.as_str()));
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
        let cached = if conditional {
            cache.get(url, &fingerprint)
        } else {
            None
        };
        let mut req = self
            .agent
            .get(url)
            .header("User-Agent", &self.config.user_agent);
        for (name, value) in self.protocol.request_headers() {
            req = req.header(*name, *value);
        }
        if let Some(t) = &token {
            let (name, value) = self.protocol.auth_header(&t.secret);
            req = req.header(name, &value);
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
        let before = self.limits.get(&idx).cloned();
        let result = self.exchange(
            req,
            url,
            idx,
            (cached, conditional),
            &fingerprint,
            cache,
            &mut log,
        );
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

    #[allow(clippy::too_many_arguments)]
    fn exchange(
        &mut self,
        req: ureq::RequestBuilder<ureq::typestate::WithoutBody>,
        url: &str,
        idx: usize,
        (cached, keep): (Option<CachedResponse>, bool),
        fingerprint: &str,
        cache: &mut dyn ResponseCache,
        log: &mut RequestLog,
    ) -> Attempt {
        let host = self.protocol.name();
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
        let headers = Headers(resp.headers());
        let seen_limit = self.protocol.rate_limit(&headers);
        let retry_after = headers
            .get("retry-after")
            .and_then(|v| retry_after_secs(v, (self.config.clock)()));
        let etag = headers.get("etag").map(str::to_string);
        let last_modified = headers.get("last-modified").map(str::to_string);
        let next = self.protocol.next_page(url, &headers);
        let last = headers.get("link").and_then(|l| link_rel(l, "last"));
        let location = headers.get("location").map(str::to_string);
        if let Some(limit) = seen_limit.clone() {
            self.limits.insert(idx, limit);
        }

        if status == 304 {
            let Some(cached) = cached else {
                return Attempt::Fail(Error::Http {
                    host,
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
                next: cached.link_next,
                redirected: false,
                not_modified: true,
                last: None,
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
            if keep && (etag.is_some() || last_modified.is_some()) {
                cache.put(
                    url,
                    fingerprint,
                    CachedResponse {
                        etag,
                        last_modified,
                        link_next: next.clone(),
                        body: body.clone(),
                    },
                );
            }
            return Attempt::Done(Fetched {
                url: url.to_string(),
                body,
                next,
                redirected: false,
                not_modified: false,
                last,
            });
        }
        let message = self.protocol.error_message(&body);
        let refusal =
            self.protocol
                .refusal(status, &message, &Headers(resp.headers()), retry_after);
        let now = (self.config.clock)();
        match refusal {
            Refusal::Secondary => {
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
                        host,
                        until: Some(now + wait),
                        wait,
                        url: url.to_string(),
                        token: self.token_env(),
                    },
                    wait,
                };
            }
            Refusal::Primary { reset } => {
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
                return Attempt::Primary {
                    until,
                    known: reset.is_some(),
                };
            }
            Refusal::NotALimit => {}
        }
        let http = Error::Http {
            host,
            url: url.to_string(),
            status,
            message,
        };
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
    pub fn absolute(&self, location: &str) -> String {
        if location.starts_with("http://") || location.starts_with("https://") {
            return location.to_string();
        }
        format!(
            "{}/{}",
            origin(&self.base).unwrap_or(&self.base),
            location.trim_start_matches('/')
        )
    }
}

/// `scheme://host[:port]` of an absolute URL.
fn origin(url: &str) -> Option<&str> {
    let start = url.find("://")? + 3;
    let end = url[start..]
        .find(['/', '?', '#'])
        .map_or(url.len(), |i| start + i);
    Some(&url[..end])
}

/// True when `url` is on the same scheme, host and port as `base`.
fn same_origin(base: &str, url: &str) -> bool {
    match (origin(base), origin(url)) {
        (Some(a), Some(b)) => a.eq_ignore_ascii_case(b),
        _ => false,
    }
}

/// The wait from `now` until `until`, plus a second of margin for clock
/// skew.
fn wait_until(now: Timestamp, until: Timestamp) -> Duration {
    let secs = (until.as_second() - now.as_second()).max(0) as u64;
    Duration::from_secs(secs + 1)
}

/// The `rel="next"` target of a `Link` header.
pub fn link_next(header: &str) -> Option<String> {
    link_rel(header, "next")
}

/// The target of relation `rel` (`next`, `last`) in a `Link` header.
pub fn link_rel(header: &str, rel: &str) -> Option<String> {
    let quoted = format!("rel=\"{rel}\"");
    let bare = format!("rel={rel}");
    header.split(',').find_map(|part| {
        let (target, params) = part.split_once(';')?;
        let target = target.trim().strip_prefix('<')?.strip_suffix('>')?;
        params
            .split(';')
            .any(|p| {
                let p = p.trim();
                p == quoted || p == bare
            })
            .then(|| target.to_string())
    })
}

/// Seconds to wait from a `Retry-After` value: delay-seconds, or an
/// HTTP-date (RFC 9110 allows both), counted from `now`.
pub fn retry_after_secs(value: &str, now: Timestamp) -> Option<u64> {
    let value = value.trim();
    if let Ok(secs) = value.parse::<u64>() {
        return Some(secs);
    }
    let at = jiff::fmt::rfc2822::parse(value).ok()?.timestamp();
    Some(at.duration_since(now).as_secs().max(0) as u64)
}

/// The start of a body that is not the JSON error a host documents.
pub fn body_start(body: &[u8]) -> String {
    String::from_utf8_lossy(&body[..body.len().min(200)]).into_owned()
}

/// Where [`Client::keep`] stores a value derived for `url`.
fn derived_key(url: &str) -> String {
    format!("{url}#signals-derived")
}

#[cfg(test)]
mod tests {
    use super::*;

    struct Plain;
    impl Protocol for Plain {
        fn name(&self) -> &'static str {
            "Plain"
        }
        fn request_headers(&self) -> &'static [(&'static str, &'static str)] {
            &[]
        }
        fn auth_header(&self, secret: &str) -> (&'static str, String) {
            ("Authorization", format!("Bearer {secret}"))
        }
        fn rate_limit(&self, _: &Headers<'_>) -> Option<RateLimit> {
            None
        }
        fn error_message(&self, body: &[u8]) -> String {
            body_start(body)
        }
        fn refusal(&self, _: u16, _: &str, _: &Headers<'_>, _: Option<u64>) -> Refusal {
            Refusal::NotALimit
        }
    }

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
    fn origins_compare_scheme_host_and_port() {
        let base = "https://gitlab.example/api/v4";
        assert!(same_origin(
            base,
            "https://gitlab.example/api/v4/projects?page=2"
        ));
        assert!(same_origin(base, "https://GITLAB.example/other"));
        assert!(!same_origin(base, "http://gitlab.example/api/v4"));
        assert!(!same_origin(base, "https://gitlab.example:8443/api/v4"));
        assert!(!same_origin(base, "https://gitlab.example.evil/api/v4"));
        assert!(!same_origin(
            base,
            "https://evil.example/?u=https://gitlab.example"
        ));
        assert_eq!(origin("http://127.0.0.1:80?x"), Some("http://127.0.0.1:80"));
    }

    #[test]
    fn token_debug_is_redacted() {
        let t = Token::new("GITLAB_TOKEN", "glpat-supersecret");
        let config = Config {
            base_url: "https://gitlab.example/api/v4".into(),
            tokens: vec![t.clone()],
            ..Config::default()
        };
        for text in [format!("{t:?}"), format!("{config:?}")] {
            assert!(!text.contains("supersecret"), "{text}");
            assert!(text.contains("GITLAB_TOKEN"), "{text}");
        }
        let client = Client::new(config, Box::new(Plain)).unwrap();
        assert!(!format!("{client:?}").contains("supersecret"));
    }

    #[test]
    fn base_url_joins_with_or_without_slash() {
        for base in ["https://ghe.example/api/v3", "https://ghe.example/api/v3/"] {
            let c = Client::new(
                Config {
                    base_url: base.into(),
                    ..Config::default()
                },
                Box::new(Plain),
            )
            .unwrap();
            assert_eq!(c.base(), "https://ghe.example/api/v3");
            assert_eq!(
                c.absolute("/repositories/1"),
                "https://ghe.example/repositories/1"
            );
        }
        let err = Client::new(
            Config {
                base_url: "api.github.com".into(),
                ..Config::default()
            },
            Box::new(Plain),
        )
        .unwrap_err();
        assert!(matches!(err, Error::Config { host: "Plain", .. }), "{err}");
    }
}
