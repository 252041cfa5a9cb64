//! The configuration a seed draws, and the faults of each of its runs.
//! The default configuration (only a host, a token and a group) is one
//! draw in four, since that is what a new user runs.

use std::path::Path;

use signals_testhost::Fault;

use super::rng::Rng;
use crate::config::Config;

/// The settings a seed draws; `None`: the key is left out of the file, so
/// its documented default applies.
#[derive(Debug, Clone, PartialEq, Eq)]
pub(super) struct Setup {
    pub(super) backfill_days: Option<i64>,
    pub(super) comments_backfill_days: Option<u32>,
    pub(super) window_hours: Option<i64>,
    /// `reconcile_days = 0` and a reconcile forced at some runs, as
    /// `collect --reconcile` does; `None`: the key's default.
    pub(super) reconcile: Option<Reconciles>,
    /// `discussions` of the group; `None`: the default (on).
    pub(super) discussions: Option<bool>,
    pub(super) tokens: usize,
    /// `ignore_users` of the group (the human `triage-helper`).
    pub(super) ignore_users: bool,
}

/// How reconciles happen in a drawn configuration.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(super) enum Reconciles {
    /// Never (`reconcile_days = 0`).
    Off,
    /// Forced at about one run in three (`collect --reconcile`).
    Forced,
}

impl Setup {
    /// The configuration of `seed`.
    pub(super) fn draw(seed: u64) -> Setup {
        let mut rng = Rng::new(seed, 2);
        if rng.one_in(4) {
            return Setup {
                backfill_days: None,
                comments_backfill_days: None,
                window_hours: None,
                reconcile: None,
                discussions: None,
                tokens: 1,
                ignore_users: false,
            };
        }
        Setup {
            backfill_days: *rng.pick(&[None, Some(1), Some(7), Some(30), Some(400)]),
            comments_backfill_days: *rng.pick(&[None, Some(1), Some(7), Some(30), Some(400)]),
            window_hours: *rng.pick(&[None, Some(24), Some(36), Some(48)]),
            reconcile: *rng.pick(&[None, Some(Reconciles::Off), Some(Reconciles::Forced)]),
            discussions: *rng.pick(&[None, Some(true), Some(false)]),
            tokens: rng.range(1, 3) as usize,
            ignore_users: rng.one_in(2),
        }
    }

    /// The configuration file's text for `repos` on the host at `api_url`.
    pub(super) fn toml(&self, api_url: &str, repos: &[String]) -> String {
        let mut text = String::from("store = \"signals.db\"\n");
        if let Some(d) = self.backfill_days {
            text.push_str(&format!("backfill_days = {d}\n"));
        }
        if let Some(d) = self.comments_backfill_days {
            text.push_str(&format!("comments_backfill_days = {d}\n"));
        }
        if let Some(h) = self.window_hours {
            text.push_str(&format!("window_hours = {h}\n"));
        }
        if self.reconcile.is_some() {
            text.push_str("reconcile_days = 0\n");
        }
        let tokens: Vec<String> = (0..self.tokens)
            .map(|i| format!("\"SIM_TOKEN_{i}\""))
            .collect();
        text.push_str(&format!(
            "\n[host]\napi_url = \"{api_url}\"\ntoken_env = [{}]\n\n[[groups]]\nid = \"g\"\nname = \"Group\"\n",
            tokens.join(", ")
        ));
        if self.ignore_users {
            text.push_str("ignore_users = [\"triage-helper\"]\n");
        }
        if let Some(on) = self.discussions {
            text.push_str(&format!("discussions = {on}\n"));
        }
        for repo in repos {
            text.push_str(&format!("\n[[groups.repos]]\nrepo = \"{repo}\"\n"));
        }
        text
    }

    /// The parsed configuration.
    pub(super) fn config(&self, api_url: &str, repos: &[String]) -> Config {
        let text = self.toml(api_url, repos);
        Config::parse(&text, Path::new("<simulation>")).unwrap_or_else(|e| {
            panic!("the simulation's configuration does not parse: {e:#}\n{text}")
        })
    }
}

/// What goes wrong during one run, drawn per run so that shrinking the
/// world's events leaves it as it was.
#[derive(Debug, Clone, Default)]
pub(super) struct RunFaults {
    /// Faults the client survives (each within its retries), by the path
    /// prefix of the request they fall on.
    pub(super) transient: Vec<(String, Fault)>,
    /// A fault that outlasts the retries at the first request under this
    /// prefix of this repository (by index): the run fails part way, as a
    /// collector killed there would.
    pub(super) kill: Option<(usize, String)>,
    /// The host's data moves on by this many ms after this many requests
    /// of the run.
    pub(super) moves: Option<(usize, i64)>,
    /// A forced reconcile.
    pub(super) reconcile: bool,
}

/// The longest a run's data moves on while it pages: less than the time
/// between two repositories' runs of a round (`drive::SPACING_MS`), so a
/// run ends before the next starts.
pub(super) const MOVES_MS: i64 = 3_000;

/// The client's retries in the simulation: a kill queues one more failure
/// than this.
pub(super) const RETRIES: u32 = 2;

impl RunFaults {
    /// The faults of run `run` of `seed` over `repos`.
    pub(super) fn draw(seed: u64, run: usize, repos: &[String], setup: &Setup) -> RunFaults {
        let mut rng = Rng::new(seed, 100 + run as u64);
        let repo = |rng: &mut Rng| rng.below(repos.len() as u64) as usize;
        let prefix = |rng: &mut Rng, r: usize| {
            let tail = *rng.pick(&["", "/issues", "/issues/comments", "/pulls/comments"]);
            match rng.one_in(5) {
                true => "/graphql".to_string(),
                false => format!("/repos/{}{tail}", repos[r]),
            }
        };
        let mut faults = RunFaults::default();
        for _ in 0..rng.below(4) {
            let r = repo(&mut rng);
            let fault = match rng.below(7) {
                0 => Fault::Status(502),
                1 => Fault::Status(503),
                2 => Fault::Reset,
                3 => Fault::Truncate,
                4 => Fault::PrimaryLimit {
                    reset_in_secs: rng.range(1, 30) as u64,
                },
                5 => Fault::Secondary {
                    status: 403,
                    retry_after: Some(rng.range(1, 5) as u64),
                },
                _ => Fault::GraphqlRateLimited {
                    reset_in_secs: rng.range(1, 30) as u64,
                },
            };
            let at = match fault {
                Fault::GraphqlRateLimited { .. } => "/graphql".to_string(),
                _ => prefix(&mut rng, r),
            };
            // One fault per path a run: stacked on one request, faults
            // would outlast its retries, which is a kill's part.
            if faults.transient.iter().all(|(p, _)| *p != at) {
                faults.transient.push((at, fault));
            }
        }
        if rng.one_in(6) {
            let r = repo(&mut rng);
            faults.kill = Some((r, prefix(&mut rng, r)));
        }
        if rng.one_in(3) {
            faults.moves = Some((rng.range(1, 6) as usize, rng.range(200, MOVES_MS)));
        }
        faults.reconcile = run > 0 && setup.reconcile == Some(Reconciles::Forced) && rng.one_in(3);
        faults
    }
}
