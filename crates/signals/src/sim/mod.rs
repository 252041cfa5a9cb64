//! A deterministic simulation of a code host, and collection proven
//! against it. A seed draws a world (one or two repositories, a year of
//! history, then activity between runs: items opened, edited, relabelled,
//! closed, reopened, merged, deleted or transferred; comments and their
//! edits, reviews, pending ones and ones with no state, review comments;
//! discussions; references; bots and `ignore_users`), a configuration (the
//! default one in four) and what goes wrong at each run (events in the
//! second of a run's instant or at its edge, the host's clock off by up to
//! 2 s, replica lag, data moving between two pages, 5xx, dropped and cut
//! connections, rate limits with their reset, kills). The runs go through
//! the collector in process against a `signals_testhost::TestHost`, and
//! after each the store is compared with a model of what the host showed
//! (`check.rs`, `model.rs`); docs/decisions.md, "The simulated host", names
//! the limits that allow a difference.
//!
//! - `history.rs` draws the world, `world.rs` folds it into what the host shows
//!   at an instant; `setup.rs` draws the configuration and faults;
//! - `drive.rs` runs a trial; `check.rs`, `trail.rs`, `references.rs` and
//!   `model.rs` judge it;
//! - this file: the seeds the suite runs, shrinking, and the report.
//!
//! `SIGNALS_SIM_SEEDS=N` runs N seeds from 0 (default [`DEFAULT_SEEDS`];
//! from `SIGNALS_SIM_FIRST_SEED` when set),
//! `SIGNALS_SIM_SEED=S` one seed, `SIGNALS_SIM_SIZE=realistic` the larger
//! world of the benchmark, `SIGNALS_SIM_THREADS=T` T seeds at once,
//! `SIGNALS_SIM_SHRINK=0` failures as found (`tools/sim` runs 10,000).

mod check;
mod drive;
mod history;
mod model;
mod references;
mod rng;
mod setup;
mod trail;
mod world;

use std::time::{Duration, Instant};

use drive::{Failure, trial};
use history::{Drawn, Size, draw};
use model::Tally;
use setup::Setup;

/// Seeds the suite runs by default: about two minutes of a debug build
/// on a two-core machine. A count, not a time, so a run is the same
/// everywhere.
pub(crate) const DEFAULT_SEEDS: u64 = 60;

/// The suite's world: two repositories, a year of history, six runs.
const SUITE: Size = Size {
    repos: 2,
    items: 40,
    runs: 6,
};

/// The benchmark's realistic world: two repositories with a few hundred
/// items each over a year, six runs.
const REALISTIC: Size = Size {
    repos: 2,
    items: 150,
    runs: 6,
};

/// The most trials shrinking spends on one failure.
const SHRINK_TRIALS: usize = 120;

/// A failure, shrunk: its seed and the smallest run sequence and events
/// found that still fail the same way.
struct Found {
    seed: u64,
    setup: Setup,
    failure: Failure,
    drawn: Drawn,
}

impl Found {
    fn report(&self) -> String {
        let d = &self.drawn;
        let events: usize = d.world.repos.iter().map(|r| r.events.len()).sum();
        let mut text = format!(
            "seed {seed} failed at run {run} of {repo}: {kind}\n  configuration: {setup:?}\n  \
             shrunk to {runs} runs at {instants:?} (ms) and {events} events, host clock {skew:+} ms\n",
            seed = self.seed,
            run = self.failure.run,
            repo = self.failure.repo,
            kind = self.failure.kind(),
            setup = self.setup,
            runs = d.runs.len(),
            instants = d.runs,
            skew = d.world.skew_ms,
        );
        for difference in self.failure.differences.iter().take(8) {
            text.push_str(&format!("  - {difference}\n"));
        }
        if events <= 40 {
            for repo in &d.world.repos {
                for e in &repo.events {
                    text.push_str(&format!(
                        "    {} at {} ms (+{} ms lag): {:?}\n",
                        repo.name, e.at_ms, e.lag_ms, e.change
                    ));
                }
            }
        }
        text.push_str(&format!(
            "  rerun: SIGNALS_SIM_SEED={} cargo test -p signals sim::\n",
            self.seed
        ));
        text
    }
}

/// Runs `seed` at `size`; its failure, shrunk, if it fails.
fn run_seed(seed: u64, size: Size, tally: &mut Tally) -> Option<Found> {
    let drawn = draw(seed, size);
    let setup = Setup::draw(seed);
    let failure = trial(seed, &drawn, &setup, drawn.runs.len(), tally)?;
    Some(shrink(seed, setup, drawn, failure))
}

/// The shortest run sequence and fewest events that fail as `failure`
/// did: the runs after the failing one are dropped, then each earlier run
/// if the failure stays, then chunks of events, halving.
fn shrink(seed: u64, setup: Setup, mut drawn: Drawn, mut failure: Failure) -> Found {
    let kind = failure.kind();
    let mut budget = SHRINK_TRIALS;
    drawn.runs.truncate(failure.run + 1);
    let attempt = |candidate: &Drawn, budget: &mut usize| -> Option<Failure> {
        *budget = budget.checked_sub(1)?;
        let mut tally = Tally::new();
        trial(seed, candidate, &setup, candidate.runs.len(), &mut tally)
            .filter(|f| f.kind() == kind)
    };
    let mut i = 0;
    while i + 1 < drawn.runs.len() && budget > 0 {
        let mut candidate = drawn.clone();
        candidate.runs.remove(i);
        match attempt(&candidate, &mut budget) {
            Some(f) => (drawn, failure) = (candidate, f),
            None => i += 1,
        }
    }
    for r in 0..drawn.world.repos.len() {
        let mut chunk = drawn.world.repos[r].events.len() / 2;
        while chunk > 0 && budget > 0 {
            let mut start = 0;
            while start < drawn.world.repos[r].events.len() && budget > 0 {
                let mut candidate = drawn.clone();
                let events = &mut candidate.world.repos[r].events;
                let end = (start + chunk).min(events.len());
                events.drain(start..end);
                match attempt(&candidate, &mut budget) {
                    Some(f) => (drawn, failure) = (candidate, f),
                    None => start += chunk,
                }
            }
            chunk /= 2;
        }
    }
    Found {
        seed,
        setup,
        failure,
        drawn,
    }
}

fn env_u64(name: &str) -> Option<u64> {
    let value = std::env::var(name).ok()?;
    Some(value.trim().parse().unwrap_or_else(|_| {
        panic!("{name}={value:?} is not a number of seeds; set a whole number")
    }))
}

/// What a batch of seeds did.
struct Batch {
    seeds: u64,
    failures: Vec<Found>,
    elapsed: Duration,
    /// How often each documented limit excused a difference.
    tally: Tally,
}

/// How a batch runs its seeds.
#[derive(Debug, Clone, Copy)]
struct Plan {
    size: Size,
    /// Seeds run at once, each on its own thread (its own host and
    /// store): the outcome of a seed does not depend on it.
    threads: usize,
    /// Shrink each failure (the suite does; a long benchmark may not).
    shrink: bool,
}

/// Runs `seed`; its failure, shrunk when `plan.shrink`.
fn one(seed: u64, plan: Plan, tally: &mut Tally) -> Option<Found> {
    if plan.shrink {
        return run_seed(seed, plan.size, tally);
    }
    let drawn = draw(seed, plan.size);
    let setup = Setup::draw(seed);
    let failure = trial(seed, &drawn, &setup, drawn.runs.len(), tally)?;
    Some(Found {
        seed,
        setup,
        failure,
        drawn,
    })
}

/// Runs `seeds` by `plan`; the failures in the order of their seeds.
fn batch(seeds: &[u64], plan: Plan) -> Batch {
    let start = Instant::now();
    let threads = plan.threads.clamp(1, seeds.len().max(1));
    let results: Vec<(Vec<Found>, Tally)> = std::thread::scope(|scope| {
        let handles: Vec<_> = (0..threads)
            .map(|t| {
                scope.spawn(move || {
                    let mut tally = Tally::new();
                    let failures: Vec<Found> = seeds
                        .iter()
                        .skip(t)
                        .step_by(threads)
                        .filter_map(|&seed| one(seed, plan, &mut tally))
                        .collect();
                    (failures, tally)
                })
            })
            .collect();
        handles
            .into_iter()
            .map(|h| h.join().expect("a simulation thread panicked"))
            .collect()
    });
    let mut failures = vec![];
    let mut tally = Tally::new();
    for (found, counts) in results {
        failures.extend(found);
        for (limit, n) in counts {
            *tally.entry(limit).or_default() += n;
        }
    }
    failures.sort_by_key(|f| f.seed);
    Batch {
        seeds: seeds.len() as u64,
        failures,
        elapsed: start.elapsed(),
        tally,
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// Fails with every failing seed's report.
    fn assert_passes(batch: &Batch) {
        let reports: Vec<String> = batch.failures.iter().map(Found::report).collect();
        assert!(
            reports.is_empty(),
            "{} of {} seeds failed:\n{}",
            reports.len(),
            batch.seeds,
            reports.join("\n")
        );
    }

    /// The suite's seeds (`SIGNALS_SIM_SEEDS`, or one `SIGNALS_SIM_SEED`;
    /// `SIGNALS_SIM_THREADS` at once, `SIGNALS_SIM_SHRINK=0` to report
    /// failures unshrunk), with a table of what ran on stdout
    /// (`--nocapture`).
    #[test]
    fn seeds_find_no_difference_between_the_store_and_the_host() {
        let size = match std::env::var("SIGNALS_SIM_SIZE").as_deref() {
            Ok("realistic") => REALISTIC,
            _ => SUITE,
        };
        let plan = Plan {
            size,
            threads: env_u64("SIGNALS_SIM_THREADS").unwrap_or(1) as usize,
            shrink: std::env::var("SIGNALS_SIM_SHRINK").as_deref() != Ok("0"),
        };
        let seeds: Vec<u64> = match env_u64("SIGNALS_SIM_SEED") {
            Some(seed) => vec![seed],
            None => {
                let first = env_u64("SIGNALS_SIM_FIRST_SEED").unwrap_or(0);
                let count = env_u64("SIGNALS_SIM_SEEDS").unwrap_or(DEFAULT_SEEDS);
                (first..first + count).collect()
            }
        };
        let batch = batch(&seeds, plan);
        let secs = batch.elapsed.as_secs_f64();
        println!(
            "| seeds run | failures | seeds per second | ms per seed | world |\n\
             |---|---|---|---|---|\n\
             | {} | {} | {:.2} | {:.0} | {} repositories, {} items each, {} runs |",
            batch.seeds,
            batch.failures.len(),
            batch.seeds as f64 / secs.max(1e-9),
            secs * 1000.0 / batch.seeds.max(1) as f64,
            size.repos,
            size.items,
            size.runs,
        );
        println!(
            "differences excused by the documented limits: {:?}",
            batch.tally
        );
        assert_passes(&batch);
    }

    /// Runs `seed` at the suite's size and fails with its report.
    fn assert_seed_passes(seed: u64) {
        let plan = Plan {
            size: SUITE,
            threads: 1,
            shrink: true,
        };
        assert_passes(&batch(&[seed], plan));
    }

    /// A comment of the comments' 90 days on an item the first run's one
    /// day did not list (the default configuration) refused the run.
    #[test]
    fn a_comment_on_an_item_the_first_run_did_not_list_does_not_fail_it() {
        assert_seed_passes(1);
    }

    /// A comment stamped in the second of the previous run's instant, and
    /// written after it, was dropped by the next run's `since`.
    #[test]
    fn a_reply_in_the_second_of_the_previous_run_is_read() {
        assert_seed_passes(8);
    }

    /// A review of a pull request changed in the second of the previous
    /// run's instant was never asked for: a later reply stood in as the
    /// first response.
    #[test]
    fn a_review_of_a_pull_request_changed_in_the_previous_runs_second_is_read() {
        assert_seed_passes(37);
    }

    /// An edit of a comment in the second of the previous run's instant
    /// was lost, and a later reply stood in as the first response.
    #[test]
    fn a_comment_edited_in_the_previous_runs_second_is_read() {
        assert_seed_passes(17);
    }

    /// A reply shown after its item was listed (replica lag, a list read
    /// while the host moved on) was counted against the item's older
    /// count of comments: a later reply stood in as the first response.
    #[test]
    fn a_reply_newer_than_its_items_snapshot_is_not_taken_for_the_first() {
        assert_seed_passes(13);
    }

    /// The same with the item's author's reply: "none yet", though an
    /// older reply never read answered it.
    #[test]
    fn an_authors_reply_newer_than_its_items_snapshot_does_not_make_it_unanswered() {
        assert_seed_passes(28);
    }

    /// An item deleted while the run paged took its comments off the
    /// host's lists: the model asked for them (a model error, kept).
    #[test]
    fn the_replies_of_an_item_deleted_during_the_run_are_not_required() {
        assert_seed_passes(2692);
    }

    /// An item a slow host clock stamped before the first run's instant,
    /// visible only after it, fell before the next run's window, days
    /// later.
    #[test]
    fn an_item_stamped_before_the_previous_run_by_a_slow_clock_is_read() {
        assert_seed_passes(7);
    }

    #[test]
    fn a_seed_draws_the_same_world_and_configuration() {
        let (a, b) = (draw(42, SUITE), draw(42, SUITE));
        assert_eq!(a.runs, b.runs);
        assert_eq!(format!("{:?}", a.world), format!("{:?}", b.world));
        assert_eq!(Setup::draw(42), Setup::draw(42));
        let defaults = (0..400)
            .filter(|s| {
                Setup::draw(*s).tokens == 1
                    && Setup::draw(*s).backfill_days.is_none()
                    && Setup::draw(*s).reconcile.is_none()
                    && Setup::draw(*s).window_hours.is_none()
                    && Setup::draw(*s).comments_backfill_days.is_none()
                    && Setup::draw(*s).discussions.is_none()
                    && !Setup::draw(*s).ignore_users
            })
            .count();
        assert!(
            (80..160).contains(&defaults),
            "{defaults} default configurations in 400"
        );
    }
}
