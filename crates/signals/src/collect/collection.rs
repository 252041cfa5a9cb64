//! A collection: the repositories of one `signals collect`, each collected
//! once, the outcome of each, and the summary with its exit code. Both
//! ways of collecting share it: the single-machine loop here
//! ([`collect_all`], also the demo's) and the PostgreSQL worker
//! (`worker.rs`); `cmd/collect.rs` chooses between them.

use std::path::PathBuf;

use anyhow::Context;
use indicatif::{ProgressBar, ProgressStyle};
use jiff::Timestamp;
use serde_json::json;
use signals_core::{Group, RepoName, TrackedRepo};
use signals_store::Backend;

use super::pipeline::{RunError, Window, collect_one};
use crate::hosts::HostEntry;

/// Now, rounded to milliseconds so that stored and published instants agree.
pub fn now_millis() -> Timestamp {
    Timestamp::from_millisecond(Timestamp::now().as_millisecond())
        .unwrap_or_else(|_| Timestamp::now())
}

/// A repository to collect: its group, itself, its host (an index into
/// the configured hosts), and for one found through an owner, the name to
/// ask the host for: the one the owner's last listing gave, which differs
/// from `repo.repo` (the name its signal ids keep) once the owner renamed
/// it. `None`: a configured repository, asked under its configured name.
pub type Target<'a> = (&'a Group, &'a TrackedRepo, usize, Option<&'a RepoName>);

/// Keeps the rate limits the clients saw, for `signals status`. A failure
/// here loses nothing collected, so it is only reported. With several
/// hosts each limit is kept under `<host name>:<fingerprint>`, since two
/// hosts' anonymous limits (or one token used on two hosts) are different
/// limits; a single host keeps the plain fingerprint, as before.
pub fn save_rate_limits(hosts: &[HostEntry], store: &dyn Backend) {
    let seen_at = Timestamp::now();
    for (i, host) in hosts.iter().enumerate() {
        save_host_rate_limits(host, store, seen_at, &rate_prefix(hosts, i));
    }
}

fn save_host_rate_limits(host: &HostEntry, store: &dyn Backend, seen_at: Timestamp, prefix: &str) {
    let fingerprints = &host.fingerprints;
    for (env, limit) in host.client.http_ref().rate_limits() {
        let (Some(limit), Some((_, fp))) = (limit, fingerprints.iter().find(|(e, _)| *e == env))
        else {
            continue;
        };
        let key = format!("{prefix}{fp}");
        if let Err(e) = store.rate_limit_put(&key, &limit, seen_at) {
            eprintln!("warning: could not keep the rate limit in the store: {e}");
        }
    }
}

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

/// The outcome of one owner's listing in a collection (issue 20).
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

/// What a collection did.
#[derive(Debug, Default)]
pub struct Summary {
    /// Per repository, in order.
    pub results: Vec<RepoResult>,
    /// Per owner of the selected groups, in order (issue 20).
    pub owners: Vec<OwnerResult>,
    /// Requests sent.
    pub requests: u64,
    /// 304 answers.
    pub not_modified: u64,
    /// Body bytes received.
    pub bytes: u64,
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
    pub fn new_and_changed(&self) -> (u64, u64) {
        self.results.iter().fold((0, 0), |(n, c), r| match r {
            RepoResult::Collected {
                changed,
                discovered,
                ..
            } => (n + discovered, c + changed.saturating_sub(*discovered)),
            _ => (n, c),
        })
    }

    /// The one-line summary: what changed first, then what it cost.
    pub fn line(&self) -> String {
        let collected = self.count(|r| matches!(r, RepoResult::Collected { .. }));
        let failed = self.count(|r| matches!(r, RepoResult::Failed { .. }));
        let skipped = self.count(|r| matches!(r, RepoResult::NotCollected { .. }));
        let (new, changed) = self.new_and_changed();
        let mut line = format!(
            "{new} new, {changed} changed in {collected} of {} repositories, {failed} failed",
            self.results.len()
        );
        if skipped > 0 {
            line.push_str(&format!(", {skipped} not collected"));
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
                Stop::Unauthorized { .. } => crate::exit::UNAUTHORIZED,
                Stop::Unreachable { .. } => crate::exit::UNREACHABLE,
            }
        } else if self.stopped_until.is_some() {
            crate::exit::RATE_LIMITED
        } else if self.count(|r| matches!(r, RepoResult::Failed { .. })) > 0
            || self
                .owners
                .iter()
                .any(|o| matches!(o, OwnerResult::Failed { .. }))
        {
            crate::exit::PARTIAL
        } else {
            crate::exit::OK
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
                    renamed_to,
                    through_owner: _,
                } => json!({
                    "repo": repo, "status": "collected", "observedCount": observed,
                    "changedCount": changed, "newCount": discovered,
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
            "rateLimit": self.rate_limit.map(|(remaining, limit, reset)| json!({
                "remaining": remaining, "limit": limit,
                "reset": reset.map(signals_core::dataset::fmt_seconds),
            })),
            "stoppedUntil": self.stopped_until.map(signals_core::dataset::fmt_seconds),
            "stopped": self.stop_message(),
            "newCount": self.new_and_changed().0,
            "changedCount": self.new_and_changed().1,
            "store": self.store.display().to_string(),
            "exitCode": self.exit_code(),
        })
    }
}

/// Collects each target once, in order, each at `now()`, from its host. A
/// rate limit that needs a longer wait than allowed stops that host, and so
/// do a refused token (401) and a host that does not answer (after the
/// client's retries): that host's remaining targets are reported as not
/// collected, while other hosts go on. Other host errors fail only their
/// repository.
/// A store error fails only its repository (exit code 3 at the end).
pub fn collect_all(
    hosts: &mut [HostEntry],
    store: &mut dyn Backend,
    targets: &[Target<'_>],
    now: &mut dyn FnMut() -> Timestamp,
    window: Window,
    progress: bool,
) -> anyhow::Result<Summary> {
    let run = Collection::new(hosts.len());
    collect_with(run, hosts, store, targets, now, window, progress)
}

/// [`collect_all`], going on with a collection already begun (the owners'
/// listings of `crate::owners`).
pub fn collect_with(
    mut run: Collection,
    hosts: &mut [HostEntry],
    store: &mut dyn Backend,
    targets: &[Target<'_>],
    now: &mut dyn FnMut() -> Timestamp,
    window: Window,
    progress: bool,
) -> anyhow::Result<Summary> {
    let bar = progress_bar(progress, targets.len() as u64);
    for &target in targets {
        bar.set_message(target.3.unwrap_or(&target.1.repo).to_string());
        run.one(hosts, store, target, now(), window)
            .inspect_err(|_| bar.finish_and_clear())?;
        bar.inc(1);
    }
    bar.finish_and_clear();
    Ok(run.finish(hosts))
}

fn progress_bar(progress: bool, len: u64) -> ProgressBar {
    if !progress {
        return ProgressBar::hidden();
    }
    let bar = ProgressBar::new(len);
    bar.set_style(
        ProgressStyle::with_template("{bar:30} {pos}/{len} {wide_msg}")
            .unwrap_or_else(|_| ProgressStyle::default_bar()),
    );
    bar
}

/// A collection in progress: the summary so far, and the hosts stopped.
pub struct Collection {
    /// What it did so far.
    pub summary: Summary,
    /// Hosts a rate limit, a refused token or no answer stopped.
    stopped_hosts: Vec<bool>,
    last_host: Option<usize>,
}

impl Collection {
    /// A collection over `hosts` hosts.
    pub fn new(hosts: usize) -> Collection {
        Collection {
            summary: Summary::default(),
            stopped_hosts: vec![false; hosts],
            last_host: None,
        }
    }

    /// True when this host is stopped.
    pub fn is_stopped(&self, host: usize) -> bool {
        self.stopped_hosts[host]
    }

    /// Records an owner's listing (`crate::owners`), its requests counted
    /// with the repositories'.
    pub fn record_owner(&mut self, result: OwnerResult) {
        if let OwnerResult::Listed { stats, .. } = &result {
            self.count(stats);
        }
        self.summary.owners.push(result);
    }

    fn count(&mut self, stats: &signals_core::RequestStats) {
        self.summary.requests += stats.requests;
        self.summary.not_modified += stats.not_modified;
        self.summary.bytes += stats.bytes_received;
    }

    /// Records a failed listing of an owner of `host`: a rate limit, a
    /// refused token or an unreachable host stops the host, as for a
    /// repository; another error fails the listing alone.
    pub fn owner_failed(
        &mut self,
        host: usize,
        owner: String,
        e: signals_http::Error,
        stats: signals_core::RequestStats,
    ) {
        self.count(&stats);
        self.last_host = Some(host);
        if let signals_http::Error::RateLimited { until, wait, .. } = &e {
            self.stopped_hosts[host] = true;
            let until_at = until.unwrap_or_else(|| Timestamp::now() + *wait);
            self.summary.stopped_until = self.summary.stopped_until.max(Some(until_at));
            self.summary.rate_stop = Some(RateStop {
                reset_known: until.is_some(),
                message: e.to_string(),
            });
        } else if let Some(stop) = Stop::of(&e) {
            self.stopped_hosts[host] = true;
            self.summary.stopped = Some(stop);
        }
        self.summary.owners.push(OwnerResult::Failed {
            owner,
            error: e.to_string(),
        });
    }

    /// Lets the hosts for which `resume` says so go on (a looping worker,
    /// once a rate limit has reset).
    pub fn resume(&mut self, resume: impl Fn(usize) -> bool) {
        for (h, stopped) in self.stopped_hosts.iter_mut().enumerate() {
            if *stopped && resume(h) {
                *stopped = false;
            }
        }
    }

    /// Collects one target at `at` and records the outcome. A store error
    /// that is this repository's own is recorded as its failure; only a
    /// lost store connection and a lease taken over by another worker are
    /// returned (the worker waits for the store and collects the
    /// repository again, or leaves it to the other worker).
    pub fn one(
        &mut self,
        hosts: &mut [HostEntry],
        store: &mut dyn Backend,
        (group, repo, host, ask): Target<'_>,
        at: Timestamp,
        window: Window,
    ) -> anyhow::Result<()> {
        // Shown under the name the host knows it by.
        let name = ask.unwrap_or(&repo.repo).to_string();
        let summary = &mut self.summary;
        if self.stopped_hosts[host] {
            summary
                .results
                .push(RepoResult::NotCollected { repo: name });
            return Ok(());
        }
        let prefix = rate_prefix(hosts, host);
        let client = &mut hosts[host].client;
        self.last_host = Some(host);
        let result = collect_one(client, store, (group, repo, ask), at, window, &prefix);
        // Count what every attempt cost, failed ones included.
        let stats = match &result {
            Ok(outcome) => outcome.stats,
            Err(_) => client.http_ref().stats(),
        };
        summary.requests += stats.requests;
        summary.not_modified += stats.not_modified;
        summary.bytes += stats.bytes_received;
        match result {
            Ok(outcome) => {
                summary.results.push(RepoResult::Collected {
                    repo: name,
                    observed: outcome.run.observed_count,
                    changed: outcome.run.changed_count,
                    discovered: outcome.discovered,
                    renamed_to: outcome.renamed_to,
                    through_owner: ask.is_some(),
                });
            }
            Err(RunError::Host(
                e @ signals_http::Error::RateLimited {
                    until: reset, wait, ..
                },
            )) => {
                self.stopped_hosts[host] = true;
                let until = reset.unwrap_or_else(|| Timestamp::now() + wait);
                summary.stopped_until = summary.stopped_until.max(Some(until));
                summary.rate_stop = Some(RateStop {
                    reset_known: reset.is_some(),
                    message: e.to_string(),
                });
                summary
                    .results
                    .push(RepoResult::NotCollected { repo: name });
            }
            Err(RunError::Host(e)) if Stop::of(&e).is_some() => {
                // Every other repository of the host would fail the same way.
                self.stopped_hosts[host] = true;
                summary.stopped = Stop::of(&e);
                summary
                    .results
                    .push(RepoResult::NotCollected { repo: name });
            }
            Err(RunError::Host(e)) => {
                summary.results.push(RepoResult::Failed {
                    repo: name,
                    error: e.to_string(),
                });
            }
            // This repository's failure; the others go on.
            Err(RunError::Store(e)) if super::pipeline::is_repository_failure(&e) => {
                summary.results.push(RepoResult::Failed {
                    repo: name,
                    error: format!(
                        "{:#}",
                        anyhow::Error::from(e)
                            .context("the store failed, nothing of this run was kept")
                    ),
                });
            }
            Err(RunError::Store(e)) => {
                return Err(e).with_context(|| {
                    format!(
                        "the store failed while collecting {name}; nothing of that run was kept"
                    )
                });
            }
        }
        Ok(())
    }

    /// The summary, with the last rate limit seen.
    pub fn finish(mut self, hosts: &[HostEntry]) -> Summary {
        self.summary.rate_limit = self
            .last_host
            .and_then(|h| hosts[h].client.http_ref().rate_limit())
            .map(|l| (l.remaining, l.limit, l.reset));
        self.summary
    }
}

/// The prefix of a host's rate-limit keys in the store: `<host name>:`
/// when several hosts are configured (two hosts' anonymous limits, or one
/// token used on two hosts, are different limits), else nothing.
pub fn rate_prefix(hosts: &[HostEntry], host: usize) -> String {
    if hosts.len() > 1 {
        format!("{}:", hosts[host].config.name)
    } else {
        String::new()
    }
}
