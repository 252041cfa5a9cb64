//! A client's settings: the base URL, the tokens, timeouts, retry and wait
//! limits, and the two seams tests replace: how to wait ([`Sleeper`]) and
//! what time it is ([`Clock`]), so rate-limit scenarios run without
//! sleeping.

use std::fmt;
use std::sync::Arc;
use std::time::Duration;

use jiff::Timestamp;

use crate::Token;

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
    /// [`Error::RateLimited`](crate::Error::RateLimited) without waiting.
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
