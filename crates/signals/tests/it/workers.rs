//! Several workers on one PostgreSQL store, with the real binary
//! against a loopback test host and a real throwaway PostgreSQL cluster:
//! each repository collected exactly once per round, data equal to a
//! single SQLite run over the same host data, workers killed at random
//! moments, requests serial per token, and `signals migrate`.
//!
//! Without PostgreSQL installed these tests skip with a notice (CI sets
//! SIGNALS_REQUIRE_POSTGRES=1, so there they run).

use std::collections::BTreeMap;
use std::process::{Child, Command, Stdio};
use std::time::{Duration, Instant};

use jiff::Timestamp;
use signals_store::Backend;
use signals_store::suite::WholeReads;
use signals_testhost::{Scenario, TestHost, synthetic};

use crate::support::{TempDir, run, show, signals_bin};

/// `o/r00` .. `o/rNN`, five items each, all in one scenario.
pub(crate) fn scenario(repos: usize) -> (Scenario, Vec<String>) {
    let start: Timestamp = "2026-10-01T00:00:00Z".parse().unwrap();
    let mut all = Scenario::default();
    let mut names = Vec::new();
    for i in 0..repos {
        let name = format!("o/r{i:02}");
        let one = synthetic(&name, 5, start);
        all.repos.extend(one.repos);
        names.push(name);
    }
    (all, names)
}

/// A configuration for `repos` on `api_url`, with `store`.
pub(crate) fn config(store: &str, api_url: &str, repos: &[String]) -> String {
    let mut text = format!(
        "store = \"{store}\"\nout = \"site\"\nbackfill_days = 36500\n\n[host]\napi_url = \"{api_url}\"\ntoken_env = \"GITHUB_TOKEN\"\nmax_retries = 2\ntimeout_secs = 10\n\n[[groups]]\nid = \"g\"\nname = \"Group\"\n"
    );
    for r in repos {
        text.push_str(&format!("\n[[groups.repos]]\nrepo = \"{r}\"\n"));
    }
    text
}

/// Starts `signals collect --loop` in `dir` with a token.
pub(crate) fn worker(dir: &std::path::Path, token: &str, lease: &str) -> Child {
    Command::new(signals_bin())
        .current_dir(dir)
        .args(["collect", "--loop", "--lease", lease, "--quiet"])
        .env_clear()
        .env("PATH", std::env::var_os("PATH").unwrap_or_default())
        .env("GITHUB_TOKEN", token)
        .stdout(Stdio::null())
        .stderr(Stdio::piped())
        .spawn()
        .expect("the signals binary starts")
}

/// Stops a worker with SIGTERM, checks it stops cleanly, and returns what
/// it logged.
pub(crate) fn stop(child: Child) -> String {
    // SAFETY: kill with a live child's pid.
    unsafe { libc::kill(child.id() as i32, libc::SIGTERM) };
    let out = child.wait_with_output().unwrap();
    let log = String::from_utf8_lossy(&out.stderr).into_owned();
    assert!(
        out.status.success(),
        "a worker did not stop cleanly on SIGTERM: {:?}\n{log}",
        out.status,
    );
    log
}

/// Runs per repository in the store (by `group/repo`); empty before the
/// first worker has created the schema.
pub(crate) fn runs_per_repo(url: &str) -> BTreeMap<String, i64> {
    // Nothing while the server restarts.
    let Ok(mut c) = postgres::Client::connect(url, postgres::NoTls) else {
        return BTreeMap::new();
    };
    c.query(
        "SELECT r.group_id || '/' || r.repo_id, count(u.id)
         FROM repositories r LEFT JOIN runs u ON u.repo = r.key GROUP BY 1",
        &[],
    )
    .map(|rows| rows.iter().map(|r| (r.get(0), r.get(1))).collect())
    .unwrap_or_default()
}

/// Waits until every one of `n` repositories has a run (or fails after a
/// generous limit, naming what was missing).
pub(crate) fn wait_for_round(url: &str, n: usize) {
    let end = Instant::now() + Duration::from_secs(240);
    loop {
        let runs = runs_per_repo(url);
        if runs.len() == n && runs.values().all(|c| *c >= 1) {
            return;
        }
        assert!(Instant::now() < end, "the round did not finish: {runs:?}");
        std::thread::sleep(Duration::from_millis(200));
    }
}

/// What two stores must agree on, per repository: the latest snapshots and
/// the trail without its instants (the runs happened at other times).
pub(crate) type Observed = BTreeMap<String, (String, Vec<(String, String, String)>)>;

pub(crate) fn observed(store: &dyn Backend) -> Observed {
    store
        .repositories()
        .unwrap()
        .into_iter()
        .map(|s| {
            let view = store.repository_view(s.key).unwrap().unwrap();
            let items = serde_json::to_string(&format!("{:?}", view.items)).unwrap();
            let trail = view
                .trail
                .iter()
                .map(|e| {
                    (
                        e.item_id.clone(),
                        e.kind.as_str().to_string(),
                        e.detail.clone(),
                    )
                })
                .collect();
            (format!("{}/{}", s.group.id, s.repo.id), (items, trail))
        })
        .collect()
}

/// The same host data collected once by one process into SQLite.
pub(crate) fn reference(host: &TestHost, repos: &[String]) -> Observed {
    let dir = TempDir::new("workers-ref");
    std::fs::write(
        dir.path().join("signals.toml"),
        config("signals.db", &host.api_url(), repos),
    )
    .unwrap();
    let out = run(
        dir.path(),
        &["collect", "--quiet"],
        &[("GITHUB_TOKEN", "ref")],
    );
    assert!(out.status.success(), "{}", show(&out));
    let store = signals_store_sqlite::Store::open(dir.path().join("signals.db")).unwrap();
    observed(&store)
}

pub(crate) fn cluster() -> Option<signals_testpg::Cluster> {
    signals_testpg::Cluster::start().unwrap_or_else(|e| panic!("{e}"))
}

#[test]
fn four_looping_workers_collect_each_repository_once_and_equal_one_sqlite_run() {
    let Some(cluster) = cluster() else { return };
    let url = cluster.create_database("four").unwrap();
    let (scenario, repos) = scenario(40);
    let host = TestHost::start(scenario).unwrap();
    host.set_latency(Duration::from_millis(5));
    let dir = TempDir::new("workers-four");
    std::fs::write(
        dir.path().join("signals.toml"),
        config(&url, &host.api_url(), &repos),
    )
    .unwrap();
    let workers: Vec<Child> = (0..4)
        .map(|i| worker(dir.path(), &format!("token-{i}"), "1m"))
        .collect();
    wait_for_round(&url, 40);
    // The round is over: give a worker that would collect twice the time
    // to do it, then stop them all.
    std::thread::sleep(Duration::from_millis(500));
    for w in workers {
        stop(w);
    }
    let runs = runs_per_repo(&url);
    assert_eq!(runs.len(), 40);
    assert!(runs.values().all(|c| *c == 1), "{runs:?}");

    // Status shows the four workers, stopped, and no lease left.
    let out = run(dir.path(), &["status", "--json"], &[]);
    assert!(out.status.success(), "{}", show(&out));
    let status: serde_json::Value = serde_json::from_slice(&out.stdout).unwrap();
    assert_eq!(status["workers"].as_array().unwrap().len(), 4, "{status}");
    assert!(
        status["workers"]
            .as_array()
            .unwrap()
            .iter()
            .all(|w| w["state"] == "stopped")
    );
    let collected: u64 = status["workers"]
        .as_array()
        .unwrap()
        .iter()
        .map(|w| w["collected"].as_u64().unwrap())
        .sum();
    assert_eq!(collected, 40);
    assert_eq!(status["leases"].as_array().unwrap().len(), 0);

    let pg = signals_store_pg::PgStore::open(&url).unwrap();
    assert_eq!(observed(&pg), reference(&host, &repos));
}

#[test]
fn workers_killed_at_random_moments_lose_nothing_and_duplicate_nothing() {
    let Some(cluster) = cluster() else { return };
    let url = cluster.create_database("kills").unwrap();
    let (scenario, repos) = scenario(40);
    let host = TestHost::start(scenario).unwrap();
    // Slow answers, so a kill often lands inside a run, holding a lease.
    host.set_latency(Duration::from_millis(40));
    let dir = TempDir::new("workers-kill");
    std::fs::write(
        dir.path().join("signals.toml"),
        config(&url, &host.api_url(), &repos),
    )
    .unwrap();
    let survivor = worker(dir.path(), "token-a", "2s");
    let mut rng = fastrand::Rng::with_seed(8);
    let mut kills = 0;
    let mut held = 0;
    while kills < 12 {
        let victim = worker(dir.path(), "token-b", "2s");
        std::thread::sleep(Duration::from_millis(rng.u64(150..900)));
        // Before the first worker has created the schema there is no
        // `leases` table: then no lease is held either.
        let leased: i64 = {
            let mut c = postgres::Client::connect(&url, postgres::NoTls).unwrap();
            c.query_one(
                "SELECT count(*) FROM leases WHERE worker LIKE $1 AND lease_until > now()",
                &[&format!("%:{}:%", victim.id())],
            )
            .map(|r| r.get(0))
            .unwrap_or(0)
        };
        held += usize::from(leased > 0);
        let mut victim = victim;
        victim.kill().unwrap(); // SIGKILL
        victim.wait().unwrap();
        kills += 1;
    }
    assert!(held >= 3, "only {held} of the kills hit a held lease");
    wait_for_round(&url, 40);
    std::thread::sleep(Duration::from_millis(500));
    stop(survivor);
    let runs = runs_per_repo(&url);
    assert!(runs.values().all(|c| *c == 1), "{runs:?}");
    // No partial run: every run's events are its changedCount, and no item
    // has two events in one run (a unique key) nor two `discovered` events.
    let mut c = postgres::Client::connect(&url, postgres::NoTls).unwrap();
    let bad: i64 = c
        .query_one(
            "SELECT count(*) FROM runs u
             WHERE u.changed_count <> (SELECT count(*) FROM events e WHERE e.run = u.id)",
            &[],
        )
        .unwrap()
        .get(0);
    assert_eq!(bad, 0);
    let twice: i64 = c
        .query_one(
            "SELECT count(*) FROM (SELECT e.item FROM events e
             WHERE e.kind = 0 GROUP BY e.item HAVING count(*) > 1) d",
            &[],
        )
        .unwrap()
        .get(0);
    assert_eq!(twice, 0);
    let pg = signals_store_pg::PgStore::open(&url).unwrap();
    assert_eq!(observed(&pg), reference(&host, &repos));
}

#[test]
fn two_workers_on_one_token_never_have_two_requests_in_flight() {
    let Some(cluster) = cluster() else { return };
    let url = cluster.create_database("token").unwrap();
    let (scenario, repos) = scenario(12);
    let host = TestHost::start(scenario).unwrap();
    host.set_latency(Duration::from_millis(30));
    let dir = TempDir::new("workers-token");
    std::fs::write(
        dir.path().join("signals.toml"),
        config(&url, &host.api_url(), &repos),
    )
    .unwrap();
    let workers: Vec<Child> = (0..2)
        .map(|_| worker(dir.path(), "shared-token", "1m"))
        .collect();
    wait_for_round(&url, 12);
    for w in workers {
        stop(w);
    }
    let flights = host.max_in_flight();
    assert_eq!(flights.get("Bearer shared-token"), Some(&1), "{flights:?}");
    assert_eq!(host.overlaps(), 0);
    assert!(host.request_count() >= 12 * 3);
    // Both workers did work (the test would be empty otherwise).
    let out = run(dir.path(), &["status", "--json"], &[]);
    let status: serde_json::Value = serde_json::from_slice(&out.stdout).unwrap();
    let busy = status["workers"]
        .as_array()
        .unwrap()
        .iter()
        .filter(|w| w["collected"].as_u64().unwrap() > 0)
        .count();
    assert_eq!(busy, 2, "{status}");
}

#[test]
fn migrate_copies_a_sqlite_store_into_postgres_and_exports_the_same_site() {
    let Some(cluster) = cluster() else { return };
    let url = cluster.create_database("migrate").unwrap();
    let (scenario, repos) = scenario(3);
    let host = TestHost::start(scenario).unwrap();
    let dir = TempDir::new("workers-migrate");
    std::fs::write(
        dir.path().join("signals.toml"),
        config("signals.db", &host.api_url(), &repos),
    )
    .unwrap();
    let out = run(
        dir.path(),
        &["collect", "--quiet"],
        &[("GITHUB_TOKEN", "t")],
    );
    assert!(out.status.success(), "{}", show(&out));
    // A second run, so there is history to copy.
    let out = run(
        dir.path(),
        &["collect", "--quiet"],
        &[("GITHUB_TOKEN", "t")],
    );
    assert!(out.status.success(), "{}", show(&out));

    let out = run(
        dir.path(),
        &["migrate", "--from", "signals.db", "--to", &url],
        &[],
    );
    assert!(out.status.success(), "{}", show(&out));
    let text = String::from_utf8_lossy(&out.stdout);
    assert!(text.contains("verified:"), "{text}");

    // Exports from either store are the same, byte for byte.
    let a = run(dir.path(), &["export", "--out", "a"], &[]);
    assert!(a.status.success(), "{}", show(&a));
    let b = run(dir.path(), &["export", "--out", "b", "--store", &url], &[]);
    assert!(b.status.success(), "{}", show(&b));
    for repo in ["r00", "r01", "r02"] {
        let path = format!("g/{repo}/dataset.json");
        let x = std::fs::read(dir.path().join("a").join(&path)).unwrap();
        let y = std::fs::read(dir.path().join("b").join(&path)).unwrap();
        assert_eq!(x, y, "{path}");
    }
    // The PostgreSQL store goes on from there: a once-round collects each
    // repository (a lease each), and a second copy is refused.
    let out = run(
        dir.path(),
        &["collect", "--quiet", "--store", &url, "--interval", "0s"],
        &[("GITHUB_TOKEN", "t")],
    );
    assert!(out.status.success(), "{}", show(&out));
    assert!(runs_per_repo(&url).values().all(|c| *c == 3));
    let out = run(
        dir.path(),
        &["migrate", "--from", "signals.db", "--to", &url],
        &[],
    );
    assert!(!out.status.success());
    assert!(
        String::from_utf8_lossy(&out.stderr).contains("already holds data"),
        "{}",
        show(&out)
    );
}
