//! What a collection did: each repository's and each owner's outcome,
//! the stops that concern every repository (a rate limit, a refused token,
//! an unreachable host), and the summary `signals collect` prints: its
//! one line, its failures and owner changes on stderr, its `--json`, and
//! its exit code.

use std::path::PathBuf;

use jiff::Timestamp;
use serde_json::json;
use signals_core::RepoName;

use crate::exit;

/// The outcome of one repository in a collection.
#[derive(Debug)]
pub enum RepoResult {
    /// Committed.
    Collected {
        /// `owner/name`.
        repo: String,
        /// Observed items.
        observed: u64,
        /// Events recorded (discovered and changed).
        changed: u64,
        /// Of those, items seen for the first time.
        discovered: u64,
        /// Comments and reviews stored on items neither the run listed
        /// nor the store holds: they count once their item is seen.
        comments_waiting: u64,
        /// The host's new name, after a redirect.
        renamed_to: Option<RepoName>,
        /// Found through an owner, whose next listing follows a rename.
        through_owner: bool,
    },
    /// Failed; nothing of it was committed.
    Failed {
        /// `owner/name`.
        repo: String,
        /// The error, with its causes.
        error: String,
    },
    /// Not attempted, because a rate limit stopped the collection.
    NotCollected {
        /// `owner/name`.
        repo: String,
    },
}

/// The outcome of one owner's listing in a collection.
#[derive(Debug)]
pub enum OwnerResult {
    /// Listed, and its repositories recorded.
    Listed {
        /// `group/owner`.
        owner: String,
        /// Its repositories tracked now.
        tracked: usize,
        /// Repositories tracked from now on (`owner/name`).
        new: Vec<String>,
        /// Repositories no longer tracked, and why (gone, archived, ...).
        left: Vec<(String, signals_core::owners::State)>,
        /// Repositories renamed within the owner and followed: the name
        /// before this listing, and the new one.
        renamed: Vec<(String, String)>,
        /// Every page answered 304.
        not_modified: bool,
        /// What the listing cost.
        stats: signals_core::RequestStats,
    },
    /// Another worker listed it within the interval: its repositories are
    /// taken from the store.
    ListedElsewhere {
        /// `group/owner`.
        owner: String,
    },
    /// The listing failed; the repositories of its last listing are
    /// collected.
    Failed {
        /// `group/owner`.
        owner: String,
        /// The error.
        error: String,
    },
    /// Not listed: its host was stopped.
    NotListed {
        /// `group/owner`.
        owner: String,
    },
}

/// How many items a collection found first and found changed.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq)]
pub struct NewAndChanged {
    /// Items seen for the first time.
    pub new: u64,
    /// Items seen before that changed.
    pub changed: u64,
}

/// What a collection did.
#[derive(Debug, Default)]
pub struct Summary {
    /// Per repository, in order.
    pub results: Vec<RepoResult>,
    /// Per owner of the selected groups, in order.
    pub owners: Vec<OwnerResult>,
    /// Requests sent.
    pub requests: u64,
    /// 304 answers.
    pub not_modified: u64,
    /// Body bytes received.
    pub bytes: u64,
    /// GraphQL requests and points (discussions), counted apart
    /// from `requests`: GitHub charges them to a budget of their own.
    pub graphql: signals_core::GraphqlCost,
    /// The rate limit after the last request: (remaining, limit, reset);
    /// the reset is `None` when the host did not say.
    pub rate_limit: Option<(u64, u64, Option<Timestamp>)>,
    /// When a rate limit stopped the collection: until when (the host's
    /// reset, or the client's pause when the host did not say).
    pub stopped_until: Option<Timestamp>,
    /// When a rate limit stopped the collection: whether the host said when
    /// it resets, and what to do (for a request with a token or without).
    pub rate_stop: Option<RateStop>,
    /// When a failure that concerns every repository stopped the
    /// collection (a refused token, an unreachable host).
    pub stopped: Option<Stop>,
    /// The store written to, shown in the summary so a run against the
    /// wrong store is noticed at once.
    pub store: PathBuf,
    /// The token variables that were set (and so used).
    pub token_env: Vec<String>,
    /// The token variables the configuration names.
    pub token_env_configured: Vec<String>,
}

/// A rate limit that stopped a host's collection.
#[derive(Debug, Clone)]
pub struct RateStop {
    /// The host said when its limit resets.
    pub reset_known: bool,
    /// The host client's message: the reset, and what to do.
    pub message: String,
}

/// A failure that concerns every repository, so the collection stops at
/// once instead of failing each repository the same way (slowly, when the
/// host does not answer).
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Stop {
    /// The host answered 401: the token is wrong, expired or revoked (or
    /// the host wants one and none was set).
    Unauthorized {
        /// The request refused.
        url: String,
        /// The host's message.
        message: String,
    },
    /// No answer from the host after the retries (connection refused, DNS
    /// failure, timeouts).
    Unreachable {
        /// The request that got no answer.
        url: String,
        /// What failed.
        message: String,
    },
}

impl Stop {
    /// The stop a host error calls for, if any.
    pub fn of(e: &signals_http::Error) -> Option<Stop> {
        match e {
            signals_http::Error::Http {
                status: 401,
                url,
                message,
                ..
            } => Some(Stop::Unauthorized {
                url: url.clone(),
                message: message.clone(),
            }),
            signals_http::Error::Transport { url, message, .. } => Some(Stop::Unreachable {
                url: url.clone(),
                message: message.clone(),
            }),
            _ => None,
        }
    }
}

impl Summary {
    fn count(&self, f: impl Fn(&RepoResult) -> bool) -> usize {
        self.results.iter().filter(|r| f(r)).count()
    }

    /// Items first seen and items changed, over the collected repositories.
    pub fn new_and_changed(&self) -> NewAndChanged {
        let mut counts = NewAndChanged::default();
        for r in &self.results {
            if let RepoResult::Collected {
                changed,
                discovered,
                ..
            } = r
            {
                counts.new += discovered;
                counts.changed += changed.saturating_sub(*discovered);
            }
        }
        counts
    }

    /// The one-line summary: what changed first, then what it cost.
    pub fn line(&self) -> String {
        let collected = self.count(|r| matches!(r, RepoResult::Collected { .. }));
        let failed = self.count(|r| matches!(r, RepoResult::Failed { .. }));
        let skipped = self.count(|r| matches!(r, RepoResult::NotCollected { .. }));
        let NewAndChanged { new, changed } = self.new_and_changed();
        let mut line = format!(
            "{new} new, {changed} changed in {collected} of {} repositories, {failed} failed",
            self.results.len()
        );
        if skipped > 0 {
            line.push_str(&format!(", {skipped} not collected"));
        }
        let waiting: u64 = self
            .results
            .iter()
            .map(|r| match r {
                RepoResult::Collected {
                    comments_waiting, ..
                } => *comments_waiting,
                _ => 0,
            })
            .sum();
        if waiting > 0 {
            line.push_str(&format!(
                "; {waiting} comments kept for items not collected yet (they count once their item is)"
            ));
        }
        if !self.owners.is_empty() {
            let (mut listed, mut new, mut left, mut failed) = (0, 0, 0, 0);
            for o in &self.owners {
                match o {
                    OwnerResult::Listed {
                        new: n, left: l, ..
                    } => {
                        listed += 1;
                        new += n.len();
                        left += l.len();
                    }
                    OwnerResult::Failed { .. } => failed += 1,
                    _ => {}
                }
            }
            line.push_str(&format!(
                "; {listed} of {} owners listed, {new} repositories new, {left} no longer tracked",
                self.owners.len()
            ));
            if failed > 0 {
                line.push_str(&format!(", {failed} listings failed"));
            }
        }
        line.push_str(&format!(
            "; {} requests, {} answered 304, {} KiB",
            self.requests,
            self.not_modified,
            self.bytes.div_ceil(1024)
        ));
        if self.graphql.requests > 0 {
            line.push_str(&format!(
                "; {} GraphQL requests, {} points",
                self.graphql.requests, self.graphql.points
            ));
        }
        if let Some((remaining, limit, reset)) = self.rate_limit {
            line.push_str(&format!(
                "; rate limit {remaining}/{limit} left, {}",
                match reset {
                    Some(at) => format!("resets {}", signals_core::dataset::fmt_seconds(at)),
                    None => "reset unknown".into(),
                }
            ));
        }
        match (self.stopped_until, &self.rate_stop) {
            (Some(_), Some(stop)) if !stop.reset_known => {
                line.push_str("; stopped on a rate limit, reset unknown: run again later")
            }
            (Some(until), _) => line.push_str(&format!(
                "; stopped on a rate limit until {}: run again then",
                signals_core::dataset::fmt_seconds(until)
            )),
            (None, _) => {}
        }
        match &self.stopped {
            Some(Stop::Unauthorized { .. }) => line.push_str("; stopped: the token was refused"),
            Some(Stop::Unreachable { .. }) => line.push_str("; stopped: the host is unreachable"),
            None => {}
        }
        line.push_str(&format!("; store {}", self.store.display()));
        line
    }

    /// What stopped the collection and what to do, naming the token
    /// variable or the URL.
    pub fn stop_message(&self) -> Option<String> {
        let Some(stopped) = self.stopped.as_ref() else {
            return self.rate_stop.as_ref().map(|r| r.message.clone());
        };
        Some(match stopped {
            Stop::Unauthorized { url, message } => {
                let which = match self.token_env.as_slice() {
                    [] => format!(
                        "no token was set, and the host wants one: set {}",
                        self.token_env_configured.join(" or ")
                    ),
                    [one] => format!("check or renew the token in {one}"),
                    many => format!(
                        "one of the tokens in {} is wrong or expired: check each",
                        many.join(", ")
                    ),
                };
                format!(
                    "the host refused the token (401 {message}) for {url}: {which}; nothing more was collected"
                )
            }
            Stop::Unreachable { url, message } => format!(
                "no answer from the host at {url} ({message}) after the retries: check the network and the host's `api_url`; the host's other repositories were not tried"
            ),
        })
    }

    /// Prints the repositories the owners' listings added or took away, on
    /// stderr (not with `--quiet`: they are news, not failures).
    pub fn print_owner_changes(&self) {
        for o in &self.owners {
            if let OwnerResult::Listed {
                owner,
                new,
                left,
                renamed,
                ..
            } = o
            {
                for name in new {
                    eprintln!("new: {name} (listed by {owner}) is tracked from now on");
                }
                for (from, to) in renamed {
                    eprintln!(
                        "renamed: {from} is now {to} (listed by {owner}); followed under the same id, its history goes on"
                    );
                }
                for (name, state) in left {
                    eprintln!(
                        "{}: {name} (listed by {owner}) is no longer collected; its history is kept",
                        state.as_str()
                    );
                }
            }
        }
    }

    /// Prints each failure (of a repository or an owner's listing) and
    /// rename on stderr.
    pub fn print_failures(&self) {
        for o in &self.owners {
            if let OwnerResult::Failed { owner, error } = o {
                eprintln!(
                    "failed: listing {owner}: {error}; the repositories of its last listing were collected"
                );
            }
        }
        for r in &self.results {
            match r {
                RepoResult::Failed { repo, error } => eprintln!("failed: {repo}: {error}"),
                RepoResult::Collected {
                    repo,
                    renamed_to: Some(new),
                    through_owner: false,
                    ..
                } => eprintln!(
                    "renamed: {repo} is now {new} on the host; collected it, but update `repo` in the configuration"
                ),
                // Renamed since its owner's listing: the next listing
                // follows it; nothing to change in the configuration.
                RepoResult::Collected {
                    repo,
                    renamed_to: Some(new),
                    through_owner: true,
                    ..
                } => eprintln!(
                    "renamed: {repo} is now {new} on the host; collected it, and its owner's next listing follows it"
                ),
                _ => {}
            }
        }
    }

    /// The exit code: OK, PARTIAL (some failed), RATE_LIMITED,
    /// UNAUTHORIZED or UNREACHABLE.
    pub fn exit_code(&self) -> u8 {
        if let Some(stop) = &self.stopped {
            match stop {
                Stop::Unauthorized { .. } => exit::UNAUTHORIZED,
                Stop::Unreachable { .. } => exit::UNREACHABLE,
            }
        } else if self.stopped_until.is_some() {
            exit::RATE_LIMITED
        } else if self.count(|r| matches!(r, RepoResult::Failed { .. })) > 0
            || self
                .owners
                .iter()
                .any(|o| matches!(o, OwnerResult::Failed { .. }))
        {
            exit::PARTIAL
        } else {
            exit::OK
        }
    }

    /// The machine-readable summary of `--json`.
    pub fn to_json(&self) -> serde_json::Value {
        let repos: Vec<_> = self
            .results
            .iter()
            .map(|r| match r {
                RepoResult::Collected {
                    repo,
                    observed,
                    changed,
                    discovered,
                    comments_waiting,
                    renamed_to,
                    through_owner: _,
                } => json!({
                    "repo": repo, "status": "collected", "observedCount": observed,
                    "changedCount": changed, "newCount": discovered,
                    "commentsWaiting": comments_waiting,
                    "renamedTo": renamed_to.as_ref().map(|n| n.to_string()),
                }),
                RepoResult::Failed { repo, error } => {
                    json!({"repo": repo, "status": "failed", "error": error})
                }
                RepoResult::NotCollected { repo } => {
                    json!({"repo": repo, "status": "not_collected"})
                }
            })
            .collect();
        let owners: Vec<_> = self
            .owners
            .iter()
            .map(|o| match o {
                OwnerResult::Listed {
                    owner,
                    tracked,
                    new,
                    left,
                    renamed,
                    not_modified,
                    stats,
                } => json!({
                    "owner": owner, "status": "listed", "tracked": tracked, "new": new,
                    "renamed": renamed.iter().map(|(f, t)| json!({"from": f, "to": t})).collect::<Vec<_>>(),
                    "left": left.iter().map(|(n, s)| json!({"repo": n, "state": s.as_str()})).collect::<Vec<_>>(),
                    "notModified": not_modified, "requests": stats.requests,
                    "answered304": stats.not_modified, "bytesReceived": stats.bytes_received,
                }),
                OwnerResult::ListedElsewhere { owner } => {
                    json!({"owner": owner, "status": "listed_elsewhere"})
                }
                OwnerResult::Failed { owner, error } => {
                    json!({"owner": owner, "status": "failed", "error": error})
                }
                OwnerResult::NotListed { owner } => {
                    json!({"owner": owner, "status": "not_listed"})
                }
            })
            .collect();
        json!({
            "repositories": repos,
            "owners": owners,
            "requests": self.requests,
            "notModified": self.not_modified,
            "bytesReceived": self.bytes,
            "graphqlRequests": self.graphql.requests,
            "graphqlPoints": self.graphql.points,
            "rateLimit": self.rate_limit.map(|(remaining, limit, reset)| json!({
                "remaining": remaining, "limit": limit,
                "reset": reset.map(signals_core::dataset::fmt_seconds),
            })),
            "stoppedUntil": self.stopped_until.map(signals_core::dataset::fmt_seconds),
            "stopped": self.stop_message(),
            "newCount": self.new_and_changed().new,
            "changedCount": self.new_and_changed().changed,
            "store": self.store.display().to_string(),
            "exitCode": self.exit_code(),
        })
    }
}
