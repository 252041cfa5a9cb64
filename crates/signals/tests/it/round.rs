//! A round of many repositories on PostgreSQL: four
//! one-shot workers collect every repository exactly once, and what
//! PostgreSQL ran for it, counted by `pg_stat_statements`, grows no faster
//! than the number of repositories: each statement is called a fixed
//! number of times per repository, plus a fixed number per worker.
//!
//! Two things depend on how the workers interleave rather than on the
//! repositories, so they are counted apart before the rounds are
//! compared:
//! - registration: each worker registers every repository of its
//!   configuration, and writes (one transaction) only where no other
//!   worker did first;
//! - the related items' catch-up after each run: it reads the whole
//!   group, and when another worker's catch-up of the group committed
//!   since, it reads and computes again (an attempt that rolls back). Its
//!   attempts are bounded per run, not by the timing.
//!
//! CI runs it at 100 repositories (50 then 100); `SIGNALS_ROUND_REPOS`
//! sets another size. The full size, 2,000 repositories with 100 ms per
//! request, is the benchmark's (`cargo bench -p signals --bench round`).

use std::collections::BTreeMap;
use std::process::{Command, Stdio};

use jiff::Timestamp;
use signals_testhost::{TestHost, synthetic_many};

use crate::statements::{self, Statement};
use crate::support::{TempDir, signals_bin};
use crate::workers::config;

/// Calls a statement may make beyond its share per repository: a fixed
/// number per worker (opening the store, reporting it, the claim that
/// finds nothing), and the odd retry of a conflict.
const SLACK: i64 = 12;

const WORKERS: i64 = 4;

/// The attempts a run's catch-up of related items makes at most: the
/// engine's bound (`ATTEMPTS` in `crates/signals/src/related.rs`).
const CATCH_UP_ATTEMPTS: i64 = 5;

/// The statements that register a configured repository
/// (`ensure_repository`): each worker runs them for every repository of
/// its configuration, and the run once more for its own, so they are
/// called at most `WORKERS + 1` times per repository (the writes fewer,
/// depending on how the workers' starts interleave).
const REGISTRATION: [&str; 5] = [
    "SELECT r.key FROM repositories r JOIN groups g",
    "INSERT INTO groups",
    "UPDATE groups SET name",
    "INSERT INTO repositories",
    "INSERT INTO leases (repo)",
];

/// Called once per registration transaction (one per worker that found
/// the repository unregistered): how many there were.
const REGISTERED: &str = "INSERT INTO leases (repo)";

/// Called once per catch-up attempt that reached its write (it takes the
/// group's lock, then writes or rolls back): how many there were.
const ATTEMPTED: &str = "SELECT pg_advisory_xact_lock(hashtext($2), hashtext($1))";

/// A statement called some times per registration transaction and per
/// catch-up attempt, besides its calls that grow with the repositories.
struct Timed {
    /// The statement's text starts so (on one line).
    starts: &'static str,
    per_registration: i64,
    per_attempt: i64,
}

const TIMED: [Timed; 11] = [
    Timed {
        starts: "COMMIT",
        per_registration: 1,
        per_attempt: 0,
    },
    // Every attempt's transaction starts; one that finds the group moved
    // rolls back, one that writes commits with the run's own.
    Timed {
        starts: "START TRANSACTION",
        per_registration: 1,
        per_attempt: 1,
    },
    Timed {
        starts: "ROLLBACK",
        per_registration: 0,
        per_attempt: 1,
    },
    Timed {
        starts: ATTEMPTED,
        per_registration: 0,
        per_attempt: 1,
    },
    // The group's positions, read before and checked at the write.
    Timed {
        starts: "SELECT g.key, coalesce(s.through",
        per_registration: 0,
        per_attempt: 1,
    },
    Timed {
        starts: "SELECT count(*) FROM unnest($1::bigint[], $2::bigint[]) AS e (repo, through)",
        per_registration: 0,
        per_attempt: 1,
    },
    // The pending items (a page, then the empty one), their snapshots,
    // their stored profiles and the named lists' profiles.
    Timed {
        starts: "SELECT i.repo, i.item_id, i.latest, m.snapshot",
        per_registration: 0,
        per_attempt: 2,
    },
    Timed {
        starts: "SELECT i.item_id, i.item_key, h.text, b.text",
        per_registration: 0,
        per_attempt: 1,
    },
    Timed {
        starts: "SELECT p.repo, p.item_id, p.open, t.profile",
        per_registration: 0,
        per_attempt: 2,
    },
    // The group's vectors, and the lists naming the changed items.
    Timed {
        starts: "SELECT p.repo, p.item_id, p.open, p.vector FROM repositories g",
        per_registration: 0,
        per_attempt: 1,
    },
    Timed {
        starts: "SELECT l.repo, l.item_id FROM unnest",
        per_registration: 0,
        per_attempt: 1,
    },
];

fn registers(s: &Statement) -> bool {
    REGISTRATION.iter().any(|r| s.query.contains(r))
}

fn one_line(query: &str) -> String {
    query.split_whitespace().collect::<Vec<_>>().join(" ")
}

/// The registration transactions and catch-up attempts of a round.
struct Interleaving {
    registered: i64,
    attempted: i64,
}

impl Interleaving {
    fn of(round: &[Statement]) -> Self {
        let calls = |text: &str| -> i64 {
            round
                .iter()
                .filter(|s| one_line(&s.query) == text)
                .map(|s| s.calls)
                .sum()
        };
        Self {
            registered: calls(REGISTERED),
            attempted: calls(ATTEMPTED),
        }
    }

    /// The calls of `s` that grow with the repositories: those that
    /// follow the interleaving taken out.
    fn grown(&self, s: &Statement) -> i64 {
        let line = one_line(&s.query);
        TIMED
            .iter()
            .find(|t| line.starts_with(t.starts))
            .map_or(s.calls, |t| {
                s.calls - t.per_registration * self.registered - t.per_attempt * self.attempted
            })
    }
}

/// One round of `repos` by four workers into a new database `db`.
fn round(
    cluster: &signals_testpg::Cluster,
    host: &TestHost,
    repos: &[String],
    db: &str,
) -> Vec<Statement> {
    let url = cluster.create_database(db).unwrap();
    let dir = TempDir::new(&format!("round-{db}"));
    std::fs::write(
        dir.path().join("signals.toml"),
        config(&url, &host.api_url(), repos),
    )
    .unwrap();
    // The schema first: its statements are not the round's.
    drop(signals_store_pg::PgStore::open(&url).unwrap());
    statements::reset(&url);
    let workers: Vec<_> = (0..4)
        .map(|i| {
            Command::new(signals_bin())
                .current_dir(dir.path())
                // An hour, as a schedule would: every repository is new,
                // so due once. With `0s`, a worker that starts after
                // another committed a repository finds it due again (its
                // round began later), which is what `0s` asks for.
                .args(["collect", "--quiet", "--interval", "1h"])
                .env_clear()
                .env("PATH", std::env::var_os("PATH").unwrap_or_default())
                .env("GITHUB_TOKEN", format!("token-{i}"))
                .stdout(Stdio::null())
                .stderr(Stdio::piped())
                .spawn()
                .expect("the signals binary starts")
        })
        .collect();
    for w in workers {
        let out = w.wait_with_output().unwrap();
        assert!(
            out.status.success(),
            "a worker failed: {:?}\n{}",
            out.status,
            String::from_utf8_lossy(&out.stderr)
        );
    }
    let seen = statements::read(&url);
    statements::assert_each_once(&url, repos.len());
    seen
}

#[test]
fn a_round_of_many_repositories_collects_each_once_in_statements_per_repository() {
    let options = signals_testpg::Options {
        stat_statements: true,
    };
    let Some(cluster) =
        signals_testpg::Cluster::start_with(&options).unwrap_or_else(|e| panic!("{e}"))
    else {
        return;
    };
    let n: usize = std::env::var("SIGNALS_ROUND_REPOS")
        .ok()
        .and_then(|v| v.parse().ok())
        .unwrap_or(100)
        .max(20);
    let half = n / 2;
    let start: Timestamp = "2026-10-01T00:00:00Z".parse().unwrap();
    let signals_testhost::Synthetic { scenario, names } = synthetic_many("o", n, 20, start);
    let host = TestHost::start(scenario).unwrap();

    let small = round(&cluster, &host, &names[..half], "half");
    let big = round(&cluster, &host, &names, "full");

    // Each statement of the larger round is called at most its calls per
    // repository in the smaller one times the repositories, plus a fixed
    // slack: none grows faster than the repositories. Registration is
    // bounded by the workers instead, and what follows the interleaving
    // is taken out first.
    let (was_timed, is_timed) = (Interleaving::of(&small), Interleaving::of(&big));
    assert!(
        is_timed.attempted <= CATCH_UP_ATTEMPTS * n as i64,
        "{} catch-up attempts for {n} runs",
        is_timed.attempted
    );
    let before: BTreeMap<&str, &Statement> = small.iter().map(|s| (s.query.as_str(), s)).collect();
    let mut grown = Vec::new();
    for s in &big {
        let was = before
            .get(s.query.as_str())
            .map_or(0, |w| was_timed.grown(w));
        let is = is_timed.grown(s);
        let bound = if registers(s) {
            (WORKERS + 1) * n as i64 + SLACK
        } else {
            (was as f64 * n as f64 / half as f64).ceil() as i64 + SLACK
        };
        if is > bound {
            grown.push(format!(
                "{is} calls at {n} repositories, {was} at {half}: {}",
                statements::short(&s.query, 120)
            ));
        }
    }
    assert!(
        grown.is_empty(),
        "statements called more often per repository in the larger round \
         ({} registrations and {} catch-up attempts at {n}, {} and {} at {half}, taken out):\n{}",
        is_timed.registered,
        is_timed.attempted,
        was_timed.registered,
        was_timed.attempted,
        grown.join("\n")
    );
    // And the whole, registration apart: statements per repository do not
    // rise with the size.
    let total = |all: &[Statement], timed: &Interleaving| {
        all.iter()
            .filter(|s| !registers(s))
            .map(|s| timed.grown(s))
            .sum::<i64>()
    };
    let (per_small, per_big) = (
        total(&small, &was_timed) as f64 / half as f64,
        total(&big, &is_timed) as f64 / n as f64,
    );
    assert!(
        per_big <= per_small + SLACK as f64 / half as f64,
        "{per_big:.2} statements per repository at {n}, {per_small:.2} at {half}"
    );
    // The round's claim is among them, once per repository and once more
    // per worker (the claim that finds nothing due).
    let claims: i64 = big
        .iter()
        .filter(|s| s.query.contains("UPDATE leases l SET worker"))
        .map(|s| s.calls)
        .sum();
    assert!(
        (n as i64..=n as i64 + SLACK).contains(&claims),
        "{claims} claims for {n} repositories"
    );
}
