//! `signals collect` on a PostgreSQL store: a worker that leases
//! repositories instead of walking the configured list.
//!
//! Several workers, on one machine or many, run against one store. Each
//! claims the next due repository (`signals_store_pg::queue`), collects it
//! through the same pipeline as a single-machine run, and commits the run
//! together with the release of its lease. Without `--loop` a worker stops
//! when nothing is due that was not attempted since it started (one
//! round); with `--loop` it sleeps until the next repository is due, and
//! stops on SIGTERM or SIGINT after finishing its current repository.

use std::collections::HashMap;
use std::sync::atomic::{AtomicBool, Ordering};
use std::time::{Duration, Instant};

use anyhow::Context;
use jiff::{SignedDuration, Timestamp};
use signals_store::{RepoKey, RunWrites, StoreError};
use signals_store_pg::PgStore;

use super::Options;
use super::collection::{Collection, now_millis};
use super::owners::{Discovery, Found, ThroughOwner};
use super::run::{Target, Window};
use super::summary::{OwnerResult, RepoResult, Summary};
use crate::config::{Config, parse_duration};
use crate::hosts::HostEntry;

/// Set by SIGTERM or SIGINT: finish the current repository, then stop
/// (`signals serve` uses it too, to remove its private site on the way out).
pub(crate) static STOP: AtomicBool = AtomicBool::new(false);

extern "C" fn on_signal(_: libc::c_int) {
    STOP.store(true, Ordering::SeqCst);
}

pub(crate) fn install_signal_handlers() {
    let handler = on_signal as extern "C" fn(libc::c_int) as libc::sighandler_t;
    // SAFETY: the handler only stores to an atomic, which is
    // async-signal-safe.
    unsafe {
        libc::signal(libc::SIGTERM, handler);
        libc::signal(libc::SIGINT, handler);
    }
}

/// The longest a looping worker sleeps before it looks again (workers
/// started later, or repositories whose lease expired, may be due sooner
/// than the queue said).
const MAX_NAP: Duration = Duration::from_secs(30);

/// A worker's settings.
pub struct Worker {
    id: String,
    host: String,
    interval: Duration,
    lease: Duration,
    looping: bool,
    /// `--quiet`: only failures are reported.
    quiet: bool,
    /// A looping worker's alerts, delivered after each step
    /// (`crate::alerts`); `None` with `--no-notify` or no rules.
    alerts: Option<(Config, crate::alerts::Options)>,
}

impl Worker {
    /// The worker of this process: its id is `host:pid:start`.
    pub fn new(config: &Config, options: &Options) -> anyhow::Result<Worker> {
        let flag = |value: &Option<String>, name: &str, default: Duration| match value {
            None => Ok(default),
            Some(v) => parse_duration(v).map_err(|e| anyhow::anyhow!("--{name} {v:?}: {e}")),
        };
        let host = std::fs::read_to_string("/proc/sys/kernel/hostname")
            .ok()
            .or_else(|| std::env::var("HOSTNAME").ok())
            .map(|h| h.trim().to_string())
            .filter(|h| !h.is_empty())
            .unwrap_or_else(|| "localhost".into());
        let lease = flag(&options.lease, "lease", config.lease)?;
        if lease < Duration::from_secs(1) {
            anyhow::bail!("the lease must be at least 1s (it is {lease:?})");
        }
        Ok(Worker {
            id: format!(
                "{host}:{}:{}",
                std::process::id(),
                Timestamp::now().as_millisecond()
            ),
            host,
            interval: flag(&options.interval, "interval", config.interval)?,
            lease,
            looping: options.looping,
            quiet: options.quiet,
            alerts: (options.looping && options.notify && !config.notify.is_empty()).then(|| {
                let mut options = crate::alerts::Options::for_collect();
                options.wait = Duration::ZERO;
                (config.clone(), options)
            }),
        })
    }

    /// Collects due repositories among `targets` until none is due (or,
    /// looping, until a signal).
    pub fn run(
        &self,
        hosts: &mut [HostEntry],
        store: &mut PgStore,
        targets: &[Target<'_>],
        discovery: &Discovery<'_>,
        window: Window,
    ) -> anyhow::Result<Summary> {
        install_signal_handlers();
        let mut by_key: HashMap<RepoKey, Found> = HashMap::new();
        // Each worker registers from its own place in the list (its
        // process id, spread: workers started together have ids in a
        // row): workers started together then mostly find the
        // repositories another one registered, instead of inserting the
        // same ones in step and waiting on each other's row locks.
        let spread = u64::from(std::process::id()).wrapping_mul(0x9E37_79B9_7F4A_7C15) >> 32;
        let from = (spread % targets.len().max(1) as u64) as usize;
        for target in targets[from..].iter().chain(&targets[..from]) {
            let key = store.ensure_repository(target.group, target.repo)?;
            let found = Found {
                group: target.group.clone(),
                repo: target.repo.clone(),
                host: target.host,
                ask: target.ask().clone(),
            };
            by_key.insert(key, found);
        }
        // Workers not seen for a week are gone from the list.
        store.forget_workers(Duration::from_secs(7 * 24 * 3600))?;
        store.worker_report(&self.id, &self.host, std::process::id(), "idle")?;
        let round_start = if self.looping {
            None
        } else {
            Some(store.server_now()?)
        };
        let mut round = Round {
            by_key,
            found: HashMap::new(),
            listed: None,
            collection: Collection::new(hosts.len()),
            paused: HashMap::new(),
            round_start,
        };
        if discovery.any() {
            self.discover(hosts, store, &mut round, discovery)?;
            if self.looping {
                for o in round.collection.summary.owners.drain(..) {
                    if let Some(line) = owner_line(&o, self.quiet) {
                        eprintln!("{line}");
                    }
                }
            }
        }
        // Errors outside one repository's run (claiming, reporting) that
        // are not a lost connection: a looping worker waits and tries
        // again, longer each time in a row.
        let mut backoff = Duration::from_secs(1);
        let result = loop {
            if STOP.load(Ordering::SeqCst) {
                break Ok(());
            }
            let step = self.step(hosts, store, &mut round, discovery, window);
            log_notices(store);
            if let Some((config, options)) = &self.alerts
                && let Err(e) = crate::alerts::deliver(config, store, options)
            {
                eprintln!(
                    "warning: alerts were not delivered: {e:#}; trying again after the next step"
                );
            }
            match step {
                Ok(true) => backoff = Duration::from_secs(1),
                Ok(false) => break Ok(()),
                Err(e) if is_connection(&e) => {
                    eprintln!("warning: {e:#}; waiting for the store");
                    if let Err(e) = self.wait_for_store(store) {
                        break Err(e);
                    }
                    log_notices(store);
                }
                Err(e) if self.looping => {
                    eprintln!("warning: {e:#}; trying again in {} s", backoff.as_secs());
                    nap(backoff);
                    backoff = (backoff * 2).min(MAX_NAP);
                }
                Err(e) => break Err(e),
            }
        };
        let stopped = store.abandon().and_then(|()| {
            store.worker_report(&self.id, &self.host, std::process::id(), "stopped")
        });
        result?;
        stopped.context("cannot report the worker as stopped")?;
        Ok(round.collection.finish(hosts))
    }

    /// Claims and collects one repository. `Ok(false)` when the round is
    /// over (nothing due that this round did not attempt, without
    /// `--loop`). A store error of the repository's own run is its failure
    /// (recorded, and the worker goes on); the errors returned are a lost
    /// connection (the lease stays noted, and is given back once the store
    /// is back, so the repository is collected again in this round) and
    /// store errors outside a run.
    fn step(
        &self,
        hosts: &mut [HostEntry],
        store: &mut PgStore,
        round: &mut Round,
        discovery: &Discovery<'_>,
        window: Window,
    ) -> anyhow::Result<bool> {
        // A lease left by an attempt the store's connection broke under.
        store.abandon()?;
        // A looping worker looks at its owners again every interval, or
        // sooner (the claim in the store keeps the listing to one worker
        // per interval; the others read what it found, so a worker that
        // lost the claim to a listing still in progress picks its
        // repositories up within `MAX_NAP`).
        if self.looping
            && discovery.any()
            && round
                .listed
                .is_none_or(|at| at.elapsed() >= self.interval.min(MAX_NAP))
        {
            self.discover(hosts, store, round, discovery)?;
            // A long-lived worker reports each listing and keeps none.
            for o in round.collection.summary.owners.drain(..) {
                if let Some(line) = owner_line(&o, self.quiet) {
                    eprintln!("{line}");
                }
            }
        }
        let Round {
            by_key,
            found,
            listed: _,
            collection,
            paused,
            round_start,
        } = round;
        paused.retain(|_, until| *until > Instant::now());
        if self.looping {
            collection.resume(|h| !paused.contains_key(&h));
        }
        let keys: Vec<RepoKey> = by_key
            .iter()
            .chain(found.iter())
            .filter(|(_, t)| !collection.is_stopped(t.host))
            .map(|(k, _)| *k)
            .collect();
        if keys.is_empty() && !self.looping {
            return Ok(false);
        }
        let claimed = store.claim(
            &self.id,
            &keys,
            self.interval,
            round_start.as_deref(),
            self.lease,
        )?;
        let Some(key) = claimed else {
            if !self.looping {
                return Ok(false);
            }
            store.worker_report(&self.id, &self.host, std::process::id(), "idle")?;
            let next = store.next_due_in(&keys, self.interval)?.unwrap_or(MAX_NAP);
            nap(next.clamp(Duration::from_millis(200), MAX_NAP));
            return Ok(true);
        };
        let through_owner = match by_key.contains_key(&key) {
            true => ThroughOwner::No,
            false => ThroughOwner::Yes,
        };
        let Some(found) = by_key.get(&key).or_else(|| found.get(&key)) else {
            // Not ours (a race with a rediscovery): give it back.
            store.abandon()?;
            return Ok(true);
        };
        let target = found.target(through_owner);
        let name = format!("{}/{}", target.group.id, target.repo.id);
        store.worker_report(
            &self.id,
            &self.host,
            std::process::id(),
            &format!("collecting {name}"),
        )?;
        let before = collection.summary.results.len();
        match collection.one(hosts, store, target, now_millis(), window) {
            Ok(()) => {}
            Err(e) if is_lease_lost(&e) => {
                // It stalled past its lease and another worker has the
                // repository: nothing was written; go on with the next.
                eprintln!("warning: {e:#}");
            }
            Err(e) => return Err(e),
        }
        // A lease still held is given back: the run was not committed (a
        // stopped host).
        store.abandon()?;
        if let Some(until) = collection.summary.stopped_until
            && collection.is_stopped(target.host)
        {
            let wait = Duration::try_from(until - Timestamp::now()).unwrap_or_default();
            paused.insert(target.host, Instant::now() + wait);
        }
        if self.looping {
            // A long-lived worker reports each repository and keeps only
            // totals, so its memory does not grow with its runs.
            for r in collection.summary.results.drain(before..) {
                if !self.quiet || matches!(r, RepoResult::Failed { .. }) {
                    println!("{}", line(&name, &r));
                }
            }
        }
        Ok(true)
    }

    /// Lists the owners due (claimed in the store, so one worker lists
    /// each per interval) and takes the repositories found through them
    /// as the store holds them now.
    fn discover(
        &self,
        hosts: &mut [HostEntry],
        store: &mut PgStore,
        round: &mut Round,
        discovery: &Discovery<'_>,
    ) -> anyhow::Result<()> {
        let every = SignedDuration::try_from(self.interval).unwrap_or(SignedDuration::MAX);
        let found = discovery.run(hosts, store, &mut round.collection, every, now_millis())?;
        round.found.clear();
        for one in found {
            let key = store.ensure_repository(&one.group, &one.repo)?;
            if !round.by_key.contains_key(&key) {
                round.found.insert(key, one);
            }
        }
        round.listed = Some(Instant::now());
        Ok(())
    }

    /// Waits for a lost store to come back, trying every few seconds: a
    /// looping worker for as long as it takes (or until SIGTERM), a
    /// one-shot round for [`ONE_SHOT_PATIENCE`].
    fn wait_for_store(&self, store: &PgStore) -> anyhow::Result<()> {
        let started = Instant::now();
        let mut said = Instant::now();
        loop {
            if STOP.load(Ordering::SeqCst) {
                return Ok(());
            }
            match store.reconnect(Duration::from_secs(5)) {
                Ok(()) => return Ok(()),
                Err(e) if !self.looping && started.elapsed() >= ONE_SHOT_PATIENCE => {
                    return Err(e).with_context(|| {
                        format!(
                            "the store did not come back within {} s",
                            ONE_SHOT_PATIENCE.as_secs()
                        )
                    });
                }
                Err(e) => {
                    if said.elapsed() >= Duration::from_secs(60) {
                        eprintln!(
                            "warning: still waiting for the store after {} s: {e}",
                            started.elapsed().as_secs()
                        );
                        said = Instant::now();
                    }
                }
            }
        }
    }
}

/// Where a worker is in its round.
struct Round {
    /// The configured repositories it may collect, by store key.
    by_key: HashMap<RepoKey, Found>,
    /// The repositories found through owners it may collect, by store key.
    found: HashMap<RepoKey, Found>,
    /// When it last looked at its owners.
    listed: Option<Instant>,
    /// What it collected so far.
    collection: Collection,
    /// Hosts stopped by a rate limit, until when (a looping worker tries
    /// them again then).
    paused: HashMap<usize, Instant>,
    /// The server's time at the start of a one-shot round.
    round_start: Option<String>,
}

/// How long a one-shot round (`collect` without `--loop`) waits for a lost
/// store before it gives up.
const ONE_SHOT_PATIENCE: Duration = Duration::from_secs(300);

fn store_error(e: &anyhow::Error) -> Option<&StoreError> {
    e.chain().find_map(|c| c.downcast_ref::<StoreError>())
}

fn is_connection(e: &anyhow::Error) -> bool {
    store_error(e).is_some_and(StoreError::is_connection)
}

fn is_lease_lost(e: &anyhow::Error) -> bool {
    matches!(store_error(e), Some(StoreError::LeaseLost { .. }))
}

/// Prints what the store did on its own (a connection restored, a conflict
/// retried), one line each.
fn log_notices(store: &PgStore) {
    for notice in store.take_notices() {
        eprintln!("note: {notice}");
    }
}

/// Sleeps `d`, waking early on a signal.
fn nap(d: Duration) {
    let end = Instant::now() + d;
    while !STOP.load(Ordering::SeqCst) && Instant::now() < end {
        std::thread::sleep(Duration::from_millis(100).min(end - Instant::now()));
    }
}

/// What a looping worker logs of an owner's listing: failures always,
/// repositories new or no longer tracked unless quiet.
fn owner_line(o: &OwnerResult, quiet: bool) -> Option<String> {
    match o {
        OwnerResult::Failed { owner, error } => Some(format!("failed listing {owner}: {error}")),
        OwnerResult::Listed {
            owner,
            new,
            left,
            renamed,
            ..
        } if !quiet && (!new.is_empty() || !left.is_empty() || !renamed.is_empty()) => {
            let mut line = format!(
                "listed {owner}: {} new ({}), {} no longer tracked ({})",
                new.len(),
                new.join(", "),
                left.len(),
                left.iter()
                    .map(|(n, s)| format!("{n}: {}", s.as_str()))
                    .collect::<Vec<_>>()
                    .join(", ")
            );
            if !renamed.is_empty() {
                let pairs: Vec<String> =
                    renamed.iter().map(|(f, t)| format!("{f} → {t}")).collect();
                line.push_str(&format!(
                    ", {} renamed ({})",
                    renamed.len(),
                    pairs.join(", ")
                ));
            }
            Some(line)
        }
        _ => None,
    }
}

fn line(name: &str, r: &RepoResult) -> String {
    match r {
        RepoResult::Collected {
            observed,
            changed,
            discovered,
            comments_waiting,
            ..
        } => {
            let mut line = format!(
                "collected {name}: {observed} observed, {discovered} new, {} changed",
                changed - discovered
            );
            if *comments_waiting > 0 {
                line.push_str(&format!(
                    ", {comments_waiting} comments kept for items not collected yet"
                ));
            }
            line
        }
        RepoResult::Failed { error, .. } => format!("failed {name}: {error}"),
        RepoResult::NotCollected { .. } => format!("not collected {name}: its host is stopped"),
    }
}
