//! Runs a drawn world through the collector, in process: a test host
//! serving what the world shows at each run's instant, a SQLite store in a
//! scratch folder, and `collect_one` per repository and run,
//! with the run's faults queued on the host. After each repository's run
//! the store is checked against the model (`check.rs`).
//!
//! A kill is modelled as a run made to fail part way: a fault that
//! outlasts the client's retries falls on one request, so the run returns
//! an error there and commits nothing (a first run leaves its stage, as a
//! killed process does). A real process kill is `tests/it/first_kill.rs`.

use std::sync::Arc;
use std::time::Duration;

use jiff::Timestamp;
use signals_http::Token;
use signals_store::suite::WholeReads;
use signals_testhost::{Fault, TestHost};

use super::check::{self, Difference, RepoRun};
use super::history::Drawn;
use super::model::Tally;
use super::setup::{RETRIES, Reconciles, RunFaults, Setup};
use crate::collect::{self, Reconcile, Window};
use crate::config::Config;
use crate::hosts::HostClient;

/// The first difference a trial found: at which run, in which repository.
#[derive(Debug, Clone)]
pub(super) struct Failure {
    pub(super) run: usize,
    pub(super) repo: String,
    pub(super) differences: Vec<Difference>,
}

impl Failure {
    /// What kind of failure it is, to keep while shrinking.
    pub(super) fn kind(&self) -> String {
        self.differences
            .first()
            .map(Difference::kind)
            .unwrap_or_default()
    }
}

/// The time from one repository's run to the next one's in a round.
pub(super) const SPACING_MS: i64 = super::setup::MOVES_MS + 100;

/// The client the collector would build, but waiting for nothing: its
/// back-off and rate-limit waits return at once, so a seed runs in
/// milliseconds whatever its faults.
fn client(api_url: &str, tokens: usize) -> HostClient {
    let config = signals_http::Config {
        base_url: api_url.to_string(),
        tokens: (0..tokens)
            .map(|i| Token::new(format!("SIM_TOKEN_{i}"), format!("sim-token-{i}")))
            .collect(),
        timeout: Duration::from_secs(10),
        max_retries: RETRIES,
        retry_base: Duration::from_millis(1),
        secondary_min_wait: Duration::from_millis(1),
        sleeper: Arc::new(|_| {}),
        ..signals_http::Config::default()
    };
    Box::new(signals_github::Client::new(config).expect("the simulation's client"))
}

/// The window settings `collect` makes of `config`, as
/// `collect::run` does, with a reconcile forced when `force`.
fn window<'a>(config: &'a Config, off: &'a [String], force: bool) -> Window<'a> {
    let reconcile = Reconcile {
        days: config.reconcile_days,
        force,
    };
    Window::of(config, reconcile, off)
}

/// Runs the first `runs` runs of `drawn` on `setup`; the first
/// difference found, if any.
pub(super) fn trial(
    seed: u64,
    drawn: &Drawn,
    setup: &Setup,
    runs: usize,
    tally: &mut Tally,
) -> Option<Failure> {
    let world = &drawn.world;
    let names: Vec<String> = world.repos.iter().map(|r| r.name.clone()).collect();
    let host = TestHost::start(world.scenario(drawn.runs[0])).expect("a test host");
    let config = setup.config(&host.api_url(), &names);
    let off = collect::discussions_off(&config);
    let mut client = client(&host.api_url(), setup.tokens);
    // In memory: the same SQL as a file, without a disk's syncs.
    let mut store = signals_store_sqlite::Store::open_in_memory().expect("a store in memory");
    let mut history: Vec<Vec<RepoRun>> = vec![vec![]; names.len()];
    let keys: Vec<(String, signals_store::RepoKey)> = config
        .select(None, None)
        .into_iter()
        .map(|(group, repo)| {
            let key = signals_store::RunWrites::ensure_repository(&mut store, group, repo)
                .expect("the repository's key");
            (repo.repo.to_string(), key)
        })
        .collect();
    for (k, &at_ms) in drawn.runs.iter().take(runs).enumerate() {
        let faults = RunFaults::draw(seed, k, &names, setup);
        for (r, (group, repo)) in config.select(None, None).into_iter().enumerate() {
            let at_ms = at_ms + SPACING_MS * r as i64;
            host.clear_pending();
            host.set_scenario(world.scenario(at_ms));
            let moved = faults.moves.map(|(after, by)| {
                host.set_scenario_after(after, world.scenario(at_ms + by));
                by
            });
            queue(&host, &faults, r, &names[r]);
            let key = signals_store::RunWrites::ensure_repository(&mut store, group, repo)
                .expect("the repository's key");
            let before = store.latest_snapshots(key).expect("the store's snapshots");
            let collected_at = Timestamp::from_millisecond(at_ms).expect("a run's instant");
            let force = faults.reconcile && setup.reconcile == Some(Reconciles::Forced);
            let one = collect::Run {
                group,
                repo,
                ask: &repo.repo,
                collected_at,
                window: window(&config, &off, force),
                rate_prefix: "sim",
            };
            let result = collect::collect_one(&mut client, &mut store, one);
            let run = RepoRun {
                at_ms,
                moved_ms: moved.unwrap_or(0),
                killed: faults.kill.as_ref().is_some_and(|(kr, _)| *kr == r),
                result: result.map_err(|e| format!("{e:#}")),
            };
            history[r].push(run);
            let input = check::Input {
                world,
                repo: r,
                config: &config,
                group,
                tracked: repo,
                runs: &history[r],
                before: &before,
            };
            let mut differences = check::after_run(&store, key, &input, tally);
            if differences.is_empty() && history[r].last().is_some_and(|run| run.result.is_ok()) {
                differences = super::references::check(&store, &keys, r, tally);
            }
            if !differences.is_empty() {
                return Some(Failure {
                    run: k,
                    repo: names[r].clone(),
                    differences,
                });
            }
        }
    }
    None
}

/// Queues the run's faults that fall on repository `r`'s run: its own
/// paths', GraphQL's at the first repository, and its kill.
fn queue(host: &TestHost, faults: &RunFaults, r: usize, name: &str) {
    let own = format!("/repos/{name}");
    for (prefix, fault) in &faults.transient {
        let graphql = prefix == "/graphql";
        if (graphql && r == 0) || prefix.starts_with(&own) {
            host.inject_for(prefix, fault.clone());
        }
    }
    if let Some((kr, prefix)) = &faults.kill
        && *kr == r
    {
        for _ in 0..=RETRIES {
            host.inject_for(prefix, Fault::Status(503));
        }
    }
}
