//! Workers on one PostgreSQL store: `cargo bench -p signals --bench workers`.
//!
//! The loopback test host serves 200 synthetic repositories and answers
//! every request 100 ms late (a distant host). Each configuration collects
//! one round (`signals collect --interval 0s`, every repository once) into a
//! fresh database of a throwaway cluster, with N worker processes started
//! together; the wall time of the round is the time until the last exits.
//!
//! 1. One token per worker, N = 1, 2, 4: the speed-up (target: 4 workers at
//!    least 3.2 times one), on two kinds of repositories: texts shared
//!    across them as in real ones (`synthetic_shared`: 40 items each, the
//!    same bot and maintainer authors everywhere, bodies from one pool of
//!    8, each repository in its own order), and texts of their own (the
//!    first figure, kept for comparison: `synthetic`, 5 items). For each,
//!    the "deadlock detected" lines the server logged during the rounds
//!    and the workers that exited with an error (targets: 0 and 0).
//! 2. Four workers sharing one token whose budget is small (the host's
//!    window shortened so it resets during the run): the requests per
//!    second the host saw against the budget's rate, and the number of
//!    requests refused for an exhausted budget (must be 0: the workers wait
//!    for the reset together instead of hitting the limit).
//!
//! It panics when a round leaves a repository uncollected or collected
//! twice, or when the shared token's budget is exceeded.

use std::time::{Duration, Instant};

use jiff::Timestamp;
use signals_testhost::{Scenario, TestHost, synthetic, synthetic_shared};

const REPOS: usize = 200;
const LATENCY: Duration = Duration::from_millis(100);

/// Repositories with texts of their own.
fn disjoint() -> (Scenario, Vec<String>) {
    let start: Timestamp = "2026-10-01T00:00:00Z".parse().unwrap();
    let mut all = Scenario::default();
    let mut names = Vec::new();
    for i in 0..REPOS {
        let name = format!("bench/r{i:03}");
        all.repos.extend(synthetic(&name, 5, start).repos);
        names.push(name);
    }
    (all, names)
}

/// Repositories sharing authors and bodies, as real ones of a theme do.
fn shared() -> (Scenario, Vec<String>) {
    let start: Timestamp = "2026-10-01T00:00:00Z".parse().unwrap();
    let synthetic = synthetic_shared("bench", REPOS, 40, 8, start);
    (synthetic.scenario, synthetic.names)
}

fn config(store: &str, api_url: &str, repos: &[String]) -> String {
    let mut text = format!(
        "store = \"{store}\"\nout = \"site\"\nbackfill_days = 36500\n\n[host]\napi_url = \"{api_url}\"\ntoken_env = \"GITHUB_TOKEN\"\nmax_retries = 2\ntimeout_secs = 30\nmax_rate_limit_wait_secs = 600\n\n[[groups]]\nid = \"g\"\nname = \"Group\"\n"
    );
    for r in repos {
        text.push_str(&format!("\n[[groups.repos]]\nrepo = \"{r}\"\n"));
    }
    text
}

struct Round {
    wall: Duration,
    requests: usize,
    refused: usize,
    /// Workers that exited with an error.
    failed: usize,
}

/// One round by `tokens.len()` workers into database `db`.
fn round(
    cluster: &signals_testpg::Cluster,
    host: &TestHost,
    repos: &[String],
    db: &str,
    tokens: &[&str],
) -> Round {
    let url = cluster.create_database(db).unwrap();
    let dir =
        std::env::temp_dir().join(format!("signals-bench-workers-{db}-{}", std::process::id()));
    let _ = std::fs::remove_dir_all(&dir);
    std::fs::create_dir_all(&dir).unwrap();
    std::fs::write(
        dir.join("signals.toml"),
        config(&url, &host.api_url(), repos),
    )
    .unwrap();
    // The schema first, so the workers' clocks start on equal terms.
    drop(signals_store_pg::PgStore::open(&url).unwrap());
    host.clear_requests();
    let before = host.request_count();
    let started = Instant::now();
    let children: Vec<_> = tokens
        .iter()
        .map(|t| {
            std::process::Command::new(env!("CARGO_BIN_EXE_signals"))
                .current_dir(&dir)
                .args(["collect", "--quiet", "--interval", "0s"])
                .env_clear()
                .env("GITHUB_TOKEN", t)
                .stdout(std::process::Stdio::null())
                .spawn()
                .unwrap()
        })
        .collect();
    let mut failed = 0;
    for mut c in children {
        let status = c.wait().unwrap();
        if !status.success() {
            eprintln!("a worker failed: {status}");
            failed += 1;
        }
    }
    let wall = started.elapsed();
    let mut c = postgres::Client::connect(&url, postgres::NoTls).unwrap();
    let counts: Vec<i64> = c
        .query(
            "SELECT count(u.id) FROM repositories r LEFT JOIN runs u ON u.repo = r.key GROUP BY r.key",
            &[],
        )
        .unwrap()
        .iter()
        .map(|r| r.get(0))
        .collect();
    assert_eq!(counts.len(), repos.len());
    assert!(
        counts.iter().all(|n| *n == 1),
        "a repository was not collected exactly once"
    );
    let refused = host
        .requests()
        .iter()
        .filter(|r| r.status == Some(403) || r.status == Some(429))
        .count();
    let _ = std::fs::remove_dir_all(&dir);
    Round {
        wall,
        requests: host.request_count() - before,
        refused,
        failed,
    }
}

fn main() {
    let Some(cluster) = signals_testpg::Cluster::start().unwrap() else {
        eprintln!("the workers benchmark needs PostgreSQL's server binaries");
        return;
    };
    let mut last = None;
    for (prefix, kind, (scenario, repos)) in [
        (
            "shared",
            "texts shared across repositories (40 items each)",
            shared(),
        ),
        ("own", "texts of their own (5 items each)", disjoint()),
    ] {
        let host = TestHost::start(scenario).unwrap();
        host.set_latency(LATENCY);
        println!(
            "## Workers on PostgreSQL: {REPOS} repositories, {kind}, {LATENCY:?} per request, one token per worker\n"
        );
        println!(
            "| workers | wall time of a round | requests | rounds per hour | speed-up | deadlocks logged | workers failed |"
        );
        println!("|---:|---:|---:|---:|---:|---:|---:|");
        let mut one = None;
        for n in [1usize, 2, 4] {
            let tokens: Vec<String> = (0..n).map(|i| format!("token-{i}")).collect();
            let refs: Vec<&str> = tokens.iter().map(String::as_str).collect();
            let deadlocks_before = cluster.log().matches("deadlock detected").count();
            let db = format!("{prefix}{n}");
            let r = round(&cluster, &host, &repos, &db, &refs);
            let deadlocks = cluster.log().matches("deadlock detected").count() - deadlocks_before;
            let base = *one.get_or_insert(r.wall);
            println!(
                "| {n} | {:.1} s | {} | {:.0} | {:.2}× | {deadlocks} | {} |",
                r.wall.as_secs_f64(),
                r.requests,
                3600.0 / r.wall.as_secs_f64(),
                base.as_secs_f64() / r.wall.as_secs_f64(),
                r.failed
            );
        }
        println!();
        last = Some((host, repos));
    }
    let (host, repos) = last.expect("two scenarios ran");

    // Four workers, one token, a budget of 100 requests per 10-second
    // window: 10 requests a second, where four free workers would send
    // about 40.
    let (budget, window) = (100u64, Duration::from_secs(10));
    host.set_rate_limit(budget);
    host.set_rate_window(window);
    let r = round(&cluster, &host, &repos, "onetoken4", &["one-token"; 4]);
    let rate = r.requests as f64 / r.wall.as_secs_f64();
    println!("\n## Four workers sharing one token: budget {budget} requests per {window:?}\n");
    println!(
        "| workers | wall time | requests | requests per second | budget per second | refused by the host |"
    );
    println!("|---:|---:|---:|---:|---:|---:|");
    println!(
        "| 4 | {:.1} s | {} | {:.1} | {:.1} | {} |",
        r.wall.as_secs_f64(),
        r.requests,
        rate,
        budget as f64 / window.as_secs_f64(),
        r.refused
    );
    assert_eq!(r.refused, 0, "the shared token's budget was exceeded");
    assert_eq!(r.failed, 0, "a worker sharing the token failed");
}
