//! Collection, the engine of `signals collect`: the repositories selected
//! (configured, and found through their owners), one run each through the
//! same pipeline, then what every collection keeps (the rate limits seen,
//! a pruned HTTP cache) and the alerts its runs committed.
//!
//! - `collection.rs`: a collection in progress and the single-machine loop
//!   (also the demo's);
//! - `pipeline.rs`: one run of one repository, host to store, as a
//!   recipe: `run.rs` holds its plain types, `held.rs` and `staged.rs`
//!   its two ways, `ask/`, `comments.rs`, `observe.rs`, `open_pulls.rs`
//!   and `waiting.rs` its steps, `tail.rs` its end;
//! - `worker.rs`: the loop of a worker on PostgreSQL, which leases
//!   repositories instead of walking the list;
//! - `owners.rs`: the owners' listings, before the repositories;
//! - `summary.rs`: what a collection did, its output and its exit code.
//!
//! [`run`] chooses how to collect: on SQLite one collection at a time
//! (a lock file), on PostgreSQL a worker.

mod ask;
mod collection;
mod comments;
mod echo;
mod held;
mod lifecycle;
mod observe;
mod open_pulls;
mod owners;
mod pipeline;
mod run;
mod staged;
#[cfg(test)]
mod staged_tests;
mod summary;
mod tail;
mod waiting;
mod worker;

use std::path::{Path, PathBuf};

use anyhow::{Context, bail};
use jiff::{SignedDuration, Timestamp};
use signals_core::RepoName;
use signals_store::{Backend, HttpState};

pub use collection::{Progress, collect_all, save_rate_limits};
/// One run of one repository, for the simulation (`src/sim`).
#[cfg(test)]
pub(crate) use pipeline::collect_one;
pub use run::{Reconcile, Target, Window};
#[cfg(test)]
pub(crate) use run::{Run, RunOutcome};
pub use summary::Summary;

use collection::{Collection, collect_with, now_millis};
use owners::Discovery;

use crate::config::Config;
use crate::hosts::{self, HostEntry, Requests};
use crate::store::Opened;

/// What `signals collect` was asked to do.
#[derive(Debug, Clone, Default)]
pub struct Options {
    /// `--group`: only this group's repositories and owners.
    pub group: Option<String>,
    /// `--repo`: only this repository (`owner/name`).
    pub repo: Option<String>,
    /// `--loop`: a worker that goes on until SIGTERM (PostgreSQL only).
    pub looping: bool,
    /// `--reconcile`: every repository's run lists all its items.
    pub reconcile: bool,
    /// `--quiet`: no notes.
    pub quiet: bool,
    /// A progress bar or none (a bar on a terminal, without `--json` or
    /// `--quiet`).
    pub progress: Progress,
    /// `--verbose`: each request is logged.
    pub requests: Requests,
    /// Deliver the alerts of the runs once collected (not `--no-notify`).
    pub notify: bool,
    /// `--interval` of a worker, as given (the worker parses it).
    pub interval: Option<String>,
    /// `--lease` of a worker, as given (the worker parses it).
    pub lease: Option<String>,
}

/// What a collection did, and the delivery of its alerts when it made one
/// (`None`: not asked, or a looping worker, which delivers after each
/// step).
pub struct Outcome {
    /// The collection's summary.
    pub summary: Summary,
    /// The alerts delivered after the runs, or why they were not.
    pub alerts: Option<anyhow::Result<crate::alerts::Report>>,
}

/// Collects the repositories `options` select, each once (or, looping,
/// each when due), and delivers their alerts.
pub fn run(config: &Config, options: &Options) -> anyhow::Result<Outcome> {
    let repo_filter = options.repo.as_deref().map(RepoName::parse).transpose()?;
    let targets = config.select(options.group.as_deref(), repo_filter.as_ref());
    let discovery = Discovery::of(config, options.group.as_deref(), repo_filter.as_ref());
    if targets.is_empty() && !discovery.any() && options.group.is_none() && options.repo.is_none() {
        bail!(
            "the configuration's groups track no repository and no owner: add a repository with \
             `signals repos add OWNER/NAME --group ID`, or list repositories in a group's `repos` \
             or owners in its `orgs`"
        );
    }
    if targets.is_empty() && !discovery.any() {
        bail!(
            "no repository matches{}{}: check --group and --repo against the groups in the configuration",
            options
                .group
                .as_deref()
                .map(|g| format!(" group {g:?}"))
                .unwrap_or_default(),
            options
                .repo
                .as_deref()
                .map(|r| format!(" repository {r:?}"))
                .unwrap_or_default(),
        );
    }
    let mut hosts = config
        .hosts
        .iter()
        .map(|h| hosts::build(h, |k| std::env::var(k).ok(), options.requests))
        .collect::<anyhow::Result<Vec<HostEntry>>>()?;
    let targets: Vec<Target> = targets
        .into_iter()
        .map(|(group, repo)| Target {
            group,
            repo,
            host: config.host_of(group, repo),
            through_owner: None,
        })
        .collect();
    if !options.quiet {
        note_anonymous_hosts(&hosts, &targets, &discovery);
    }
    if options.reconcile && options.looping {
        bail!(
            "`--reconcile` and `--loop` do not go together: a worker reconciles each repository \
             every `reconcile_days` on its own; run `signals collect --reconcile` once instead"
        );
    }
    let discussions_off = discussions_off(config);
    let reconcile = Reconcile {
        days: config.reconcile_days,
        force: options.reconcile,
    };
    let window = Window::of(config, reconcile, &discussions_off);
    let mut opened = crate::store::open(&config.store, crate::store::IfMissing::Create)?;
    let (mut summary, store): (Summary, &dyn Backend) = match &mut opened {
        Opened::Sqlite(store) => {
            if options.looping {
                bail!(
                    "`collect --loop` needs a PostgreSQL store (store = \"postgres://...\"); \
                     on a SQLite store, run `signals collect` from cron or a systemd timer"
                );
            }
            let _lock = lock_store(&config.store)?;
            let summary = collect_here(
                &mut hosts,
                store,
                &targets,
                &discovery,
                window,
                options.progress,
            )?;
            (summary, &*store)
        }
        Opened::Postgres(store) => {
            let worker = worker::Worker::new(config, options)?;
            let summary = worker.run(&mut hosts, store, &targets, &discovery, window)?;
            (summary, &**store)
        }
    };
    describe_store_and_tokens(&mut summary, config, &hosts);
    save_rate_limits(&hosts, store);
    prune_cache(store);
    // Alerts of the runs just committed (a looping worker delivers them
    // after each step instead).
    let alerts = (options.notify && !options.looping && !config.notify.is_empty()).then(|| {
        let alerts = crate::alerts::Options {
            quiet: options.quiet,
            ..crate::alerts::Options::for_collect()
        };
        crate::alerts::deliver(config, &mut *opened, &alerts)
    });
    Ok(Outcome { summary, alerts })
}

/// One collection on this machine (SQLite): every owner listed, then
/// every target collected in order.
fn collect_here(
    hosts: &mut [HostEntry],
    store: &mut dyn Backend,
    targets: &[Target],
    discovery: &Discovery<'_>,
    window: Window,
    progress: Progress,
) -> anyhow::Result<Summary> {
    let mut run = Collection::new(hosts.len());
    let found = discovery.run(hosts, store, &mut run, SignedDuration::ZERO, now_millis())?;
    let mut targets = targets.to_vec();
    targets.extend(found.iter().map(|f| f.target(owners::ThroughOwner::Yes)));
    collect_with(
        run,
        hosts,
        store,
        &targets,
        &mut now_millis,
        window,
        progress,
    )
}

/// Says which hosts that have something to collect are asked without a
/// token, and what that means on each.
fn note_anonymous_hosts(hosts: &[HostEntry], targets: &[Target], discovery: &Discovery<'_>) {
    for (i, host) in hosts.iter().enumerate() {
        let used = targets.iter().any(|t| t.host == i)
            || discovery
                .groups
                .iter()
                .any(|g| g.owners.iter().any(|o| o.host == i));
        if used && !host.client.http_ref().is_authenticated() {
            eprintln!(
                "note: no token in {} for host {:?}: collecting unauthenticated, {}",
                host.config.token_env.join(", "),
                host.config.name,
                hosts::anonymous_note(host.config.source)
            );
        }
    }
}

/// Fills in what the summary says of the store and the tokens: the store
/// written to (an address without its password), the token variables
/// set, and those the configuration names.
fn describe_store_and_tokens(summary: &mut Summary, config: &Config, hosts: &[HostEntry]) {
    summary.store = if crate::store::is_postgres(&config.store) {
        PathBuf::from(crate::store::shown(&config.store))
    } else {
        std::path::absolute(&config.store).unwrap_or_else(|_| config.store.clone())
    };
    summary.token_env = hosts
        .iter()
        .flat_map(|h| h.fingerprints.iter().filter_map(|(e, _)| e.clone()))
        .collect();
    summary.token_env_configured = config
        .hosts
        .iter()
        .flat_map(|h| h.token_env.iter().cloned())
        .collect();
}

/// Takes the store's collection lock (`<store>.lock`), so that two
/// overlapping `collect` runs (a slow one and the next cron run) do not
/// collect the same repositories twice. The lock goes with the process.
fn lock_store(store: &Path) -> anyhow::Result<std::fs::File> {
    let mut name = store.as_os_str().to_owned();
    name.push(".lock");
    let path = PathBuf::from(name);
    let file = std::fs::OpenOptions::new()
        .create(true)
        .truncate(false)
        .write(true)
        .open(&path)
        .with_context(|| format!("cannot create the lock file {}", path.display()))?;
    match file.try_lock() {
        Ok(()) => Ok(file),
        Err(std::fs::TryLockError::WouldBlock) => bail!(
            "another `signals collect` is running on {} (it holds {}): let it finish, or stop it first",
            store.display(),
            path.display()
        ),
        Err(std::fs::TryLockError::Error(e)) => {
            Err(e).with_context(|| format!("cannot lock {}", path.display()))
        }
    }
}

/// How long a cached response may go unused before it is pruned.
pub const CACHE_KEEP: SignedDuration = SignedDuration::from_hours(7 * 24);

/// Drops cached responses unused for [`CACHE_KEEP`]; only reported on
/// failure, since the cache is an optimization.
fn prune_cache(store: &dyn HttpState) {
    let before = Timestamp::now()
        .saturating_sub(CACHE_KEEP)
        .unwrap_or(Timestamp::MIN);
    if let Err(e) = store.cache_prune(before) {
        eprintln!("warning: could not prune the HTTP cache: {e}");
    }
}

/// The ids of the groups whose discussions are not read (`discussions =
/// false`).
pub fn discussions_off(config: &Config) -> Vec<String> {
    config
        .groups
        .iter()
        .filter(|g| !g.discussions)
        .map(|g| g.group.id.clone())
        .collect()
}
