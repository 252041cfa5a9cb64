//! `signals collect`: one run per selected repository, a progress bar on a
//! terminal, a one-line summary (or `--json`), and an exit code that says
//! whether everything, part, or nothing was collected.

mod collection;
mod owners;
mod pipeline;
mod worker;

use std::io::IsTerminal;
use std::path::{Path, PathBuf};

use anyhow::{Context, bail};
use jiff::{SignedDuration, Timestamp};
use signals_core::RepoName;
use signals_store::Backend;

use crate::cli::CollectArgs;
pub use collection::{collect_all, save_rate_limits};
pub use pipeline::{Alerts, Reconcile, Window};

use crate::config::Config;
use crate::hosts::{self, HostEntry};
use crate::store::Opened;
use collection::{Collection, Summary, Target, collect_with, now_millis};

/// Runs `signals collect`.
pub fn run(config: &Config, args: &CollectArgs, verbose: bool) -> anyhow::Result<u8> {
    let repo_filter = args.repo.as_deref().map(RepoName::parse).transpose()?;
    let targets = config.select(args.group.as_deref(), repo_filter.as_ref());
    let discovery = owners::Discovery::of(config, args.group.as_deref(), repo_filter.as_ref());
    if targets.is_empty() && !discovery.any() {
        bail!(
            "no repository matches{}{}: check --group and --repo against the groups in the configuration",
            args.group
                .as_deref()
                .map(|g| format!(" group {g:?}"))
                .unwrap_or_default(),
            args.repo
                .as_deref()
                .map(|r| format!(" repository {r:?}"))
                .unwrap_or_default(),
        );
    }
    let mut hosts = config
        .hosts
        .iter()
        .map(|h| hosts::build(h, |k| std::env::var(k).ok(), verbose))
        .collect::<anyhow::Result<Vec<HostEntry>>>()?;
    let targets: Vec<Target> = targets
        .into_iter()
        .map(|(group, repo)| (group, repo, config.host_of(group, repo), None))
        .collect();
    for (i, host) in hosts.iter().enumerate() {
        let used = targets.iter().any(|t| t.2 == i)
            || discovery
                .groups
                .iter()
                .any(|g| g.owners.iter().any(|o| o.host == i));
        if used && !host.client.http_ref().is_authenticated() && !args.quiet {
            eprintln!(
                "note: no token in {} for host {:?}: collecting unauthenticated, {}",
                host.config.token_env.join(", "),
                host.config.name,
                hosts::anonymous_note(host.config.source)
            );
        }
    }
    if args.reconcile && args.r#loop {
        bail!(
            "`--reconcile` and `--loop` do not go together: a worker reconciles each repository \
             every `reconcile_days` on its own; run `signals collect --reconcile` once instead"
        );
    }
    let window = Window {
        window: SignedDuration::from_hours(config.window_hours),
        backfill: config
            .backfill_days
            .map(|d| SignedDuration::from_hours(d * 24)),
        alerts: Alerts::of(config),
        reconcile: Reconcile {
            days: config.reconcile_days,
            force: args.reconcile,
        },
    };
    let progress = std::io::stderr().is_terminal() && !args.json && !args.quiet;
    let mut opened = crate::store::open(&config.store, true)?;
    let (mut summary, store): (Summary, &dyn Backend) = match &mut opened {
        Opened::Sqlite(store) => {
            if args.r#loop {
                bail!(
                    "`collect --loop` needs a PostgreSQL store (store = \"postgres://...\"); \
                     on a SQLite store, run `signals collect` from cron or a systemd timer"
                );
            }
            let _lock = lock_store(&config.store)?;
            // One collection at a time on SQLite: it lists every owner.
            let mut run = Collection::new(hosts.len());
            let found = discovery.run(
                &mut hosts,
                store,
                &mut run,
                SignedDuration::ZERO,
                now_millis(),
            )?;
            let mut targets = targets.clone();
            targets.extend(found.iter().map(|(g, r, h, ask)| (g, r, *h, Some(ask))));
            let summary = collect_with(
                run,
                &mut hosts,
                store,
                &targets,
                &mut now_millis,
                window,
                progress,
            )?;
            (summary, &*store)
        }
        Opened::Postgres(store) => {
            let worker = worker::Worker::new(config, args)?;
            let summary =
                worker.run(&mut hosts, store, &targets, &discovery, window, args.quiet)?;
            (summary, &**store)
        }
    };
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
    save_rate_limits(&hosts, store);
    prune_cache(store);
    // Alerts of the runs just committed (a looping worker delivers them
    // after each step instead).
    if !args.no_notify && !args.r#loop && !config.notify.is_empty() {
        let options = crate::alerts::Options::for_collect(args.quiet);
        match crate::alerts::deliver(config, &mut *opened, &options) {
            Ok(report) if !args.quiet && !args.json => eprintln!("{}", report.line()),
            Ok(_) => {}
            Err(e) => eprintln!("warning: alerts were not delivered: {e:#}; `signals notify` will"),
        }
    }
    if args.json {
        println!("{}", serde_json::to_string_pretty(&summary.to_json())?);
    } else {
        if !args.quiet {
            summary.print_owner_changes();
        }
        summary.print_failures();
        if let Some(stop) = summary.stop_message() {
            eprintln!("stopped: {stop}");
        }
        // `--quiet`: nothing on stdout unless something failed, so cron
        // mails only then (failures always go to stderr).
        if !args.quiet || summary.exit_code() != crate::exit::OK {
            println!("{}", summary.line());
        }
    }
    Ok(summary.exit_code())
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
fn prune_cache(store: &dyn Backend) {
    let before = Timestamp::now()
        .saturating_sub(CACHE_KEEP)
        .unwrap_or(Timestamp::MIN);
    if let Err(e) = store.cache_prune(before) {
        eprintln!("warning: could not prune the HTTP cache: {e}");
    }
}
