//! The one error type of the crate. Each variant is something a caller can
//! act on: skip a missing repository, stop the run until a rate limit
//! resets, report a bad answer. Messages name the URL or repository and
//! say what to do; they never contain a token.

use std::time::Duration;

use jiff::Timestamp;
use signals_core::model::RepoName;

/// What went wrong talking to GitHub.
#[derive(Debug, thiserror::Error)]
pub enum Error {
    /// The repository does not exist, or the token cannot see it.
    #[error(
        "repository {repo} was not found on GitHub (404): check the name in the \
         configuration, or whether the token may read a private repository"
    )]
    NotFound {
        /// The repository asked for.
        repo: RepoName,
    },
    /// A rate limit needs a longer wait than the configured `max_wait`; no
    /// wait was done. Stop and run again after `until`.
    #[error(
        "GitHub rate limit reached on {url}: requests may resume at {until} \
         (in {}s, more than max_wait); stop now and run again later, or add a token",
        wait.as_secs()
    )]
    RateLimited {
        /// When requests may resume.
        until: Timestamp,
        /// How long the wait would have been.
        wait: Duration,
        /// The request that hit the limit.
        url: String,
    },
    /// GitHub answered with an unexpected status (a 4xx other than 404 on
    /// the repository, or a 5xx that persisted through the retries).
    #[error("GitHub answered {status} for {url}: {message}")]
    Http {
        /// The URL requested.
        url: String,
        /// The HTTP status.
        status: u16,
        /// GitHub's `message`, or the start of the body.
        message: String,
    },
    /// The body is not the JSON expected.
    #[error(
        "unexpected JSON from {url} at `{path}`: {message}; the answer may be \
         truncated or GitHub's format changed (run again, or report it)"
    )]
    Decode {
        /// The URL requested.
        url: String,
        /// The JSON path that failed (`[3].user.login`); `.` for the root.
        path: String,
        /// What serde said.
        message: String,
    },
    /// The body could not be read completely (connection cut mid-body),
    /// even after the retries.
    #[error("could not read the whole answer from {url}: {message}; run again later")]
    Body {
        /// The URL requested.
        url: String,
        /// The I/O error.
        message: String,
    },
    /// No answer: connection refused or reset, DNS failure, timeout; after
    /// the retries.
    #[error(
        "no answer from {url}: {message}; check the network and the base URL, \
         then run again"
    )]
    Transport {
        /// The URL requested.
        url: String,
        /// What failed.
        message: String,
        /// True when the failure was a timeout.
        timed_out: bool,
    },
    /// A redirect without a usable `Location`, or too many of them.
    #[error("bad redirect from {url}: {message}")]
    Redirect {
        /// The URL requested.
        url: String,
        /// What was wrong.
        message: String,
    },
    /// The client configuration cannot work (bad base URL, bad header).
    #[error("invalid GitHub client configuration: {0}")]
    Config(String),
}
