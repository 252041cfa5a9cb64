//! A round of many repositories on PostgreSQL: four
//! one-shot workers collect every repository exactly once, and what
//! PostgreSQL ran for it, counted by `pg_stat_statements`, grows no faster
//! than the number of repositories: each statement is called a fixed
//! number of times per repository, plus a fixed number per worker.
//!
//! Registration depends on how the workers interleave rather than on
//! the repositories: each worker registers every repository of its
//! configuration, and writes (one transaction) only where no other worker
//! did first. Its transactions are counted apart before the rounds are
//! compared. The related items' catch-up after each run does not: it
//! waits for another catch-up of the group in progress, so it computes
//! and writes once per run however the runs interleave.
//!
//! CI runs it at 100 repositories (50 then 100); `SIGNALS_ROUND_REPOS`
//! sets another size. The full size, 2,000 repositories with 100 ms per
//! request, is the benchmark's (`cargo bench -p signals --bench round`).

use std::collections::BTreeMap;
use std::process::{Command, Stdio};

use jiff::Timestamp;
use signals_testhost::{TestHost, synthetic_many};

use crate::statements::{self, Statement, one_line};
use crate::support::{TempDir, signals_bin};
use crate::workers::config;

/// Calls a statement may make beyond its share per repository: a fixed
/// number per worker (opening the store, reporting it, the claim that
/// finds nothing), and the odd retry of a conflict.
const SLACK: i64 = 12;

const WORKERS: i64 = 4;

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
/// the repository unregistered).
const REGISTERED: &str = "INSERT INTO leases (repo)";

/// Called once per computation of a catch-up that has something to write
/// (it reads the group's vectors).
const COMPUTED: &str = "SELECT p.repo, p.item_id, p.open, p.vector FROM repositories g";

/// Called once per write of a catch-up: its check that the group's
/// positions are those it computed at.
const WRITTEN: &str =
    "SELECT count(*) FROM unnest($1::bigint[], $2::bigint[]) AS e (repo, through)";

/// The transaction statements, called once more per registration
/// transaction.
const TRANSACTION: [&str; 2] = ["COMMIT", "START TRANSACTION"];

fn registers(s: &Statement) -> bool {
    REGISTRATION.iter().any(|r| s.query.contains(r))
}

/// Calls of the statements whose text starts with `text`.
fn calls_of(round: &[Statement], text: &str) -> i64 {
    round
        .iter()
        .filter(|s| one_line(&s.query).starts_with(text))
        .map(|s| s.calls)
        .sum()
}

/// The calls of `s` in `round` that grow with the repositories: a
/// transaction statement's without the registration transactions.
fn grown(round: &[Statement], s: &Statement) -> i64 {
    if TRANSACTION.contains(&one_line(&s.query).as_str()) {
        s.calls - calls_of(round, REGISTERED)
    } else {
        s.calls
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
    // bounded by the workers instead, and taken out of the transactions'
    // statements.
    let before: BTreeMap<&str, &Statement> = small.iter().map(|s| (s.query.as_str(), s)).collect();
    let mut more = Vec::new();
    for s in &big {
        let was = before.get(s.query.as_str()).map_or(0, |w| grown(&small, w));
        let is = grown(&big, s);
        let bound = if registers(s) {
            (WORKERS + 1) * n as i64 + SLACK
        } else {
            (was as f64 * n as f64 / half as f64).ceil() as i64 + SLACK
        };
        if is > bound {
            more.push(format!(
                "{is} calls at {n} repositories, {was} at {half}: {}",
                statements::short(&s.query, 120)
            ));
        }
    }
    assert!(
        more.is_empty(),
        "statements called more often per repository in the larger round \
         ({} registrations at {n}, {} at {half}, taken out):\n{}",
        calls_of(&big, REGISTERED),
        calls_of(&small, REGISTERED),
        more.join("\n")
    );
    // Each run's catch-up computes once and writes once, however the
    // workers' catch-ups of the one group interleave (the slack: the odd
    // write retried after a conflict).
    let (computed, written) = (calls_of(&big, COMPUTED), calls_of(&big, WRITTEN));
    eprintln!("catch-ups of {n} runs: {computed} computations, {written} writes");
    let once = n as i64 + SLACK;
    assert!(
        computed <= once && written <= once,
        "catch-ups of {n} runs: {computed} computations, {written} writes"
    );
    // And the whole, registration apart: statements per repository do not
    // rise with the size.
    let total = |all: &[Statement]| {
        all.iter()
            .filter(|s| !registers(s))
            .map(|s| grown(all, s))
            .sum::<i64>()
    };
    let (per_small, per_big) = (
        total(&small) as f64 / half as f64,
        total(&big) as f64 / n as f64,
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
