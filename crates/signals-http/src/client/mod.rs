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
//!
//! Here: the client, its token choice and the loop over attempts
//! ([`Client::get`]). One attempt and the reading of its answer are in
//! `exchange`; the paging loop every host shares in `pages`; values a host
//! derives from answers, kept beside them in the cache, in `derived`.

mod derived;
mod exchange;
mod pages;
mod post;

use std::collections::HashMap;
use std::fmt;
use std::time::Duration;

use jiff::Timestamp;
use signals_core::RequestStats;

use crate::cache::ResponseCache;
use crate::token::origin;
use crate::{Config, Error, Protocol, RateLimit, Token};
use exchange::{Attempt, Caching};
pub use post::Posted;

/// Hops of 301/302/307/308 followed for one request before giving up.
const MAX_REDIRECTS: u32 = 3;

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
    graphql: post::GraphqlState,
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
            graphql: post::GraphqlState::default(),
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
        self.graphql.reset();
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
            .map(|(i, t)| (Some(t.env().to_string()), self.limits.get(&i).cloned()))
            .collect()
    }

    /// The environment variable of the token the next request would carry
    /// (`None` when anonymous), for what a rate-limit stop advises.
    fn token_env(&self) -> Option<String> {
        self.pick_token().1.map(|t| t.env().to_string())
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

    /// GETs `url` with the cache, rate limits, retries and redirects.
    pub fn get(&mut self, url: &str, cache: &mut dyn ResponseCache) -> Result<Fetched, Error> {
        self.get_with(url, cache, Caching::Conditional)
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
        self.get_with(url, cache, Caching::Off)
    }

    fn get_with(
        &mut self,
        url: &str,
        cache: &mut dyn ResponseCache,
        caching: Caching,
    ) -> Result<Fetched, Error> {
        let host = self.protocol.name();
        let mut url = url.to_string();
        let mut redirects = 0;
        let mut attempt = 0;
        loop {
            self.wait_for_budget(&url)?;
            match self.attempt(&url, cache, caching) {
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
                        let until = (self.config.clock)()
                            .checked_add(wait)
                            .unwrap_or(Timestamp::MAX);
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

/// The wait from `now` until `until`, plus a second of margin for clock
/// skew.
fn wait_until(now: Timestamp, until: Timestamp) -> Duration {
    let secs = (until.as_second() - now.as_second()).max(0) as u64;
    Duration::from_secs(secs + 1)
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::{Headers, Refusal, body_start};

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
