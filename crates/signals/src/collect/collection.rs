//! A collection: the repositories of one `signals collect`, each collected
//! once, and the outcome of each recorded in its [`Summary`]. Both ways of
//! collecting share it: the single-machine loop here ([`collect_all`],
//! also the demo's) and the PostgreSQL worker (`worker.rs`); `mod.rs`
//! chooses between them.

use anyhow::Context;
use indicatif::{ProgressBar, ProgressStyle};
use jiff::Timestamp;
use signals_store::{Backend, HttpState};

use super::pipeline::collect_one;
use super::run::{RunError, Target, Window, is_repository_failure};
use super::summary::{OwnerResult, RateStop, RepoResult, Stop, Summary};
use crate::hosts::HostEntry;

/// Now, rounded to milliseconds so that stored and published instants agree.
pub fn now_millis() -> Timestamp {
    Timestamp::from_millisecond(Timestamp::now().as_millisecond())
        .unwrap_or_else(|_| Timestamp::now())
}

/// Keeps the rate limits the clients saw, for `signals status`. A failure
/// here loses nothing collected, so it is only reported. With several
/// hosts each limit is kept under `<host name>:<fingerprint>`, since two
/// hosts' anonymous limits (or one token used on two hosts) are different
/// limits; a single host keeps the plain fingerprint, as before.
pub fn save_rate_limits(hosts: &[HostEntry], store: &dyn HttpState) {
    let seen_at = Timestamp::now();
    for (i, host) in hosts.iter().enumerate() {
        save_host_rate_limits(host, store, seen_at, &rate_prefix(hosts, i));
    }
}

fn save_host_rate_limits(
    host: &HostEntry,
    store: &dyn HttpState,
    seen_at: Timestamp,
    prefix: &str,
) {
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

/// Collects each target once, in order, each at `now()`, from its host. A
/// rate limit that needs a longer wait than allowed stops that host, and so
/// do a refused token (401) and a host that does not answer (after the
/// client's retries): that host's remaining targets are reported as not
/// collected, while other hosts go on. Other host errors fail only their
/// repository.
/// A store error fails only its repository (exit code 3 at the end),
/// except a full disk, which stops the collection at once (exit code 7):
/// the runs committed before stay, and every later one would fail alike.
pub fn collect_all(
    hosts: &mut [HostEntry],
    store: &mut dyn Backend,
    targets: &[Target<'_>],
    now: &mut dyn FnMut() -> Timestamp,
    window: Window,
    progress: Progress,
) -> anyhow::Result<Summary> {
    let run = Collection::new(hosts.len());
    collect_with(run, hosts, store, targets, now, window, progress)
}

/// [`collect_all`], going on with a collection already begun (the owners'
/// listings of `owners.rs`).
pub fn collect_with(
    mut run: Collection,
    hosts: &mut [HostEntry],
    store: &mut dyn Backend,
    targets: &[Target<'_>],
    now: &mut dyn FnMut() -> Timestamp,
    window: Window,
    progress: Progress,
) -> anyhow::Result<Summary> {
    super::ask::discussions::plan_heads(hosts, targets, window.discussions_off);
    let bar = progress_bar(progress, targets.len() as u64);
    for &target in targets {
        bar.set_message(target.ask().to_string());
        run.one(hosts, store, target, now(), window)
            .inspect_err(|_| bar.finish_and_clear())?;
        bar.inc(1);
    }
    bar.finish_and_clear();
    Ok(run.finish(hosts))
}

/// Whether a collection on this machine shows a progress bar.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq)]
pub enum Progress {
    /// A bar on stderr, one step a target.
    Bar,
    /// No bar (not a terminal, `--json`, `--quiet`, the demo).
    #[default]
    Hidden,
}

fn progress_bar(progress: Progress, len: u64) -> ProgressBar {
    if progress == Progress::Hidden {
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

    /// Records an owner's listing (`owners.rs`), its requests counted
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
    /// lost store connection, a lease taken over by another worker and a
    /// full disk are returned (the worker waits for the store and collects
    /// the repository again, or leaves it to the other worker; a full disk
    /// stops the collection).
    pub fn one(
        &mut self,
        hosts: &mut [HostEntry],
        store: &mut dyn Backend,
        target: Target<'_>,
        at: Timestamp,
        window: Window,
    ) -> anyhow::Result<()> {
        let host = target.host;
        // Shown under the name the host knows it by.
        let name = target.ask().to_string();
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
        let result = collect_one(client, store, target.run(at, window, &prefix));
        // Count what every attempt cost, failed ones included.
        let (stats, graphql) = match &result {
            Ok(outcome) => (outcome.stats, outcome.graphql),
            Err(_) => (client.http_ref().stats(), client.http_ref().graphql_cost()),
        };
        summary.graphql.requests += graphql.requests;
        summary.graphql.points += graphql.points;
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
                    comments_waiting: outcome.comments_waiting,
                    renamed_to: outcome.renamed_to,
                    through_owner: target.through_owner.is_some(),
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
            Err(RunError::Store(e)) if is_repository_failure(&e) => {
                summary.results.push(RepoResult::Failed {
                    repo: name,
                    error: format!(
                        "{:#}",
                        anyhow::Error::from(e)
                            .context("the store failed, nothing of this run was kept")
                    ),
                });
            }
            Err(RunError::Store(e)) if e.is_disk_full() => {
                let done = summary
                    .results
                    .iter()
                    .filter(|r| matches!(r, RepoResult::Collected { .. }))
                    .count();
                return Err(e).with_context(|| {
                    format!(
                        "collection stopped at {name}: the disk is full; nothing of that \
                         run was kept, and the runs of the {done} repositories collected \
                         before it are committed"
                    )
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
