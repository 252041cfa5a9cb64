//! The one error type of every host client. Each variant is something a
//! caller can act on: skip a missing repository, stop the run until a rate
//! limit resets, stop the whole run on a refused token or an unreachable
//! host, report a bad answer. Messages name the host, the URL or repository
//! and say what to do; they never contain a token.
//!
//! `host` fields carry the host's display name (`GitHub`, `GitLab`,
//! `Forgejo`) so the messages read as before the layer was shared.

use std::time::Duration;

use jiff::Timestamp;
use signals_core::model::RepoName;

/// What went wrong talking to a code host.
#[derive(Debug, thiserror::Error)]
pub enum Error {
    /// The repository does not exist, or the token cannot see it.
    #[error(
        "repository {repo} was not found on {host} (404): check the name in the \
         configuration, or whether the token may read a private repository"
    )]
    NotFound {
        /// The host's display name.
        host: &'static str,
        /// The repository asked for.
        repo: RepoName,
    },
    /// The owner (organisation, user or GitLab group) whose repositories
    /// were to be listed does not exist, or the token cannot see it.
    #[error(
        "owner {owner:?} was not found on {host} (404) as {kinds}: check `orgs` in the \
         configuration, and the group's host"
    )]
    OwnerNotFound {
        /// The host's display name.
        host: &'static str,
        /// The owner asked for.
        owner: String,
        /// What it was looked up as (`an organisation or a user`).
        kinds: &'static str,
    },
    /// A rate limit needs a longer wait than the configured `max_wait`, or
    /// refused every retry; no longer wait was done. Stop and run again
    /// after `until` (or later, when the host did not say).
    #[error("{}", rate_limited(host, until, wait, url, token))]
    RateLimited {
        /// The host's display name.
        host: &'static str,
        /// When requests may resume; `None` when the host did not say
        /// ("reset unknown").
        until: Option<Timestamp>,
        /// How long the wait would have been (for an unknown reset: the
        /// pause the client would have waited before asking again).
        wait: Duration,
        /// The request that hit the limit.
        url: String,
        /// The environment variable of the token the request carried;
        /// `None` when it was sent without one. The advice differs: a
        /// token raises the limit, another token shares the load.
        token: Option<String>,
    },
    /// The host answered with an unexpected status (a 4xx other than 404 on
    /// the repository, or a 5xx that persisted through the retries). A 401
    /// is [`Error::is_unauthorized`].
    #[error("{host} answered {status} for {url}: {message}")]
    Http {
        /// The host's display name.
        host: &'static str,
        /// The URL requested.
        url: String,
        /// The HTTP status.
        status: u16,
        /// The host's error message, or the start of the body.
        message: String,
    },
    /// The body is not the JSON expected.
    #[error(
        "unexpected JSON from {url} at `{path}`: {message}; the answer may be \
         truncated or {host}'s format changed (run again, or report it)"
    )]
    Decode {
        /// The host's display name.
        host: &'static str,
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
    /// the retries. This is [`Error::is_unreachable`].
    #[error(
        "no answer from {url}: {message}; check the network and the host's `api_url`, \
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
    #[error("invalid {host} client configuration: {message}")]
    Config {
        /// The host's display name.
        host: &'static str,
        /// What is wrong.
        message: String,
    },
}

/// The message of [`Error::RateLimited`]: what is known of the reset, and
/// what to do for the case at hand.
fn rate_limited(
    host: &str,
    until: &Option<Timestamp>,
    wait: &Duration,
    url: &str,
    token: &Option<String>,
) -> String {
    let when = match until {
        Some(at) => format!(
            "requests may resume at {at} (in {}s, more than max_wait)",
            wait.as_secs()
        ),
        None => format!("{host} did not say when it resets (reset unknown)"),
    };
    let advice = match token {
        None => "no token was sent: set one (the host's `token_env`) for a higher \
                 limit, or run again later"
            .to_string(),
        Some(env) => format!(
            "the token in {env} has spent its budget: run again later, or list \
             another token in the host's `token_env` to share the load"
        ),
    };
    format!("{host} rate limit reached on {url}: {when}; {advice}")
}

impl Error {
    /// True when the host refused the credentials (401): every later
    /// request with the same token fails the same way, so a caller may stop
    /// the whole run.
    pub fn is_unauthorized(&self) -> bool {
        matches!(self, Error::Http { status: 401, .. })
    }

    /// True when the host could not be reached at all (connection refused,
    /// DNS, timeout) after the retries: the other repositories of the same
    /// host will fail the same way.
    pub fn is_unreachable(&self) -> bool {
        matches!(self, Error::Transport { .. })
    }
}

/// Decodes `body` (fetched from `url` on `host`) as `T`, naming the failing
/// JSON path. Never panics on bad input. A lone surrogate escape (valid
/// JSON, no valid text) is first replaced by U+FFFD, so one odd character
/// cannot make a repository uncollectable on any host.
pub fn decode<T: serde::de::DeserializeOwned>(
    host: &'static str,
    url: &str,
    body: &[u8],
) -> Result<T, Error> {
    let body = signals_core::hostile::repair_surrogates(body);
    let de = &mut serde_json::Deserializer::from_slice(&body);
    serde_path_to_error::deserialize(de).map_err(|e| Error::Decode {
        host,
        url: url.to_string(),
        path: e.path().to_string(),
        message: e.inner().to_string(),
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn unauthorized_and_unreachable_are_told_apart() {
        let unauthorized = Error::Http {
            host: "GitLab",
            url: "https://gitlab.example/api/v4/projects/a%2Fb".into(),
            status: 401,
            message: "401 Unauthorized".into(),
        };
        let unreachable = Error::Transport {
            url: "https://gitlab.example/api/v4/projects/a%2Fb".into(),
            message: "connection refused".into(),
            timed_out: false,
        };
        assert!(unauthorized.is_unauthorized() && !unauthorized.is_unreachable());
        assert!(unreachable.is_unreachable() && !unreachable.is_unauthorized());
        let forbidden = Error::Http {
            host: "GitLab",
            url: "u".into(),
            status: 403,
            message: "m".into(),
        };
        assert!(!forbidden.is_unauthorized());
    }

    #[test]
    fn decode_names_the_path() {
        let e = decode::<Vec<std::collections::HashMap<String, u64>>>(
            "Forgejo",
            "http://h/x",
            br#"[{"a":1},{"a":"x"}]"#,
        )
        .unwrap_err();
        match &e {
            Error::Decode { path, url, .. } => {
                assert_eq!(path, "[1].a");
                assert_eq!(url, "http://h/x");
            }
            e => panic!("{e:?}"),
        }
        assert!(e.to_string().contains("Forgejo's format changed"));
    }
}
