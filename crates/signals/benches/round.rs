//! 2,000 repositories on one PostgreSQL store:
//! `cargo bench -p signals --bench round`.
//!
//! The loopback test host serves 2,000 synthetic repositories of 20 items
//! each and answers every request 100 ms late. One round (`signals collect
//! --interval 1h`) is collected into a fresh database of a throwaway
//! cluster by 1 worker, then by 4 (one token each, started together); the
//! wall time is until the last exits. The bench panics when a repository is
//! not collected exactly once. Then:
//!
//! 1. The speed-up of 4 workers over 1 (target: at least 3.2).
//! 2. The statements of the 4-worker round, from `pg_stat_statements`
//!    (the cluster loads it; the counters are reset before each round):
//!    calls per repository, mean time, shared blocks per call, against the
//!    same round over a tenth of the repositories (200), so a statement
//!    whose cost grows with the number of repositories shows.
//! 3. `signals status`, `GET /metrics` and `GET /api/groups` of `signals
//!    serve` over the 4-worker store: median and slowest of 7 (target: at
//!    most 200 ms).
//!
//! `SIGNALS_ROUND_REPOS=2000` (the default) chooses the size; a smaller one
//! makes a quick check, and the comparison round is a tenth of it.
//!
//! `SIGNALS_ROUND_ONLY=four` leaves the 1-worker round out (and so the
//! speed-up): the 4-worker round, its statements and the reading side.
//!
//! `SIGNALS_ROUND_ONLY=reading` measures the reading side alone (table 3),
//! on a store generated through the store API (`tests/it/synth.rs`, no
//! HTTP): the repositories × 20 items, each with `SIGNALS_ROUND_RUNS` runs
//! (default 10; the later ones change 2 items), in SQLite, then copied
//! into PostgreSQL by `signals migrate`; both are measured.
//! `SIGNALS_ROUND_SERVE=<folder>` measures the store of the `signals.toml`
//! in that folder, as an earlier run left it (a PostgreSQL one is vacuumed
//! first). `SIGNALS_ROUND_KEEP=1` keeps the generated SQLite store.

#[path = "../tests/it/statements.rs"]
mod statements;
#[path = "../tests/it/synth.rs"]
mod synth;

use std::io::{Read, Write};
use std::net::TcpStream;
use std::path::{Path, PathBuf};
use std::process::{Command, Stdio};
use std::time::{Duration, Instant};

use jiff::Timestamp;
use signals_testhost::{TestHost, synthetic_many};
use statements::Statement;

const ITEMS: usize = 20;
const LATENCY: Duration = Duration::from_millis(100);
const REPS: usize = 7;

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
    failed: usize,
    url: String,
    dir: PathBuf,
    statements: Vec<Statement>,
}

/// One round by `workers` workers (a token each) into a new database `db`.
fn round(
    cluster: &signals_testpg::Cluster,
    host: &TestHost,
    repos: &[String],
    db: &str,
    workers: usize,
) -> Round {
    let url = cluster.create_database(db).unwrap();
    let dir = std::env::temp_dir().join(format!("signals-bench-round-{db}-{}", std::process::id()));
    let _ = std::fs::remove_dir_all(&dir);
    std::fs::create_dir_all(&dir).unwrap();
    std::fs::write(
        dir.join("signals.toml"),
        config(&url, &host.api_url(), repos),
    )
    .unwrap();
    // The schema first, so the workers' clocks start on equal terms.
    drop(signals_store_pg::PgStore::open(&url).unwrap());
    statements::reset(&url);
    host.clear_requests();
    let before = host.request_count();
    let started = Instant::now();
    let children: Vec<_> = (0..workers)
        .map(|i| {
            Command::new(env!("CARGO_BIN_EXE_signals"))
                .current_dir(&dir)
                .args(["collect", "--quiet", "--interval", "1h"])
                .env_clear()
                .env("GITHUB_TOKEN", format!("token-{i}"))
                .stdout(Stdio::null())
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
    let statements = statements::read(&url);
    statements::assert_each_once(&url, repos.len());
    Round {
        wall,
        requests: host.request_count() - before,
        failed,
        url,
        dir,
        statements,
    }
}

/// Median and slowest of `REPS` calls of `f`, in milliseconds.
fn timed(mut f: impl FnMut()) -> (f64, f64) {
    let mut all: Vec<f64> = (0..REPS)
        .map(|_| {
            let t = Instant::now();
            f();
            t.elapsed().as_secs_f64() * 1000.0
        })
        .collect();
    all.sort_by(f64::total_cmp);
    (all[REPS / 2], all[REPS - 1])
}

fn get(port: u16, target: &str) -> (u16, usize) {
    let mut s = TcpStream::connect(("127.0.0.1", port)).unwrap();
    write!(
        s,
        "GET {target} HTTP/1.1\r\nHost: x\r\nConnection: close\r\n\r\n"
    )
    .unwrap();
    let mut all = Vec::new();
    s.read_to_end(&mut all).unwrap();
    let head = String::from_utf8_lossy(&all[..all.len().min(64)]).to_string();
    (head.split(' ').nth(1).unwrap().parse().unwrap(), all.len())
}

/// The reading side over a collected store: `signals status` (the whole
/// process), then `/metrics` and `/api/groups` of `signals serve`.
fn reading_table(dir: &Path, url: &str, repos: usize) {
    // As autovacuum would have by then: the visibility map set, statistics
    // taken (counts read the indexes alone).
    if url.starts_with("postgres://") {
        postgres::Client::connect(url, postgres::NoTls)
            .unwrap()
            .batch_execute("VACUUM ANALYZE")
            .unwrap();
    }
    println!(
        "\n## The reading side at {repos} repositories, {url} (median and slowest of {REPS})\n"
    );
    println!("| what | median | slowest | answer |");
    println!("|---|---:|---:|---:|");
    let mut bytes = 0;
    let (med, max) = timed(|| {
        let out = Command::new(env!("CARGO_BIN_EXE_signals"))
            .current_dir(dir)
            .args(["status"])
            .output()
            .unwrap();
        assert!(out.status.success(), "{out:?}");
        bytes = out.stdout.len();
    });
    println!("| `signals status` (the process) | {med:.0} ms | {max:.0} ms | {bytes} B |");
    let port = std::net::TcpListener::bind("127.0.0.1:0")
        .unwrap()
        .local_addr()
        .unwrap()
        .port();
    let mut child = Command::new(env!("CARGO_BIN_EXE_signals"))
        .current_dir(dir)
        .args(["serve", "--store", url, "--port", &port.to_string()])
        .env("TMPDIR", dir)
        .stdout(Stdio::null())
        .stderr(std::fs::File::create(dir.join("serve.log")).unwrap())
        .spawn()
        .unwrap();
    // `serve` listens at once, its private site exported in the
    // background: the answers are timed while that export runs, as a
    // monitor's first scrapes would be.
    let started = Instant::now();
    while TcpStream::connect(("127.0.0.1", port)).is_err() {
        assert!(
            started.elapsed() < Duration::from_secs(60),
            "serve did not listen within a minute"
        );
        std::thread::sleep(Duration::from_millis(20));
    }
    let first = Instant::now();
    assert_eq!(get(port, "/metrics").0, 200);
    eprintln!(
        "serve answered /metrics {:.1} s after it started, in {:.0} ms, its site being exported",
        started.elapsed().as_secs_f64(),
        first.elapsed().as_secs_f64() * 1000.0
    );
    // The answers are timed once that export is done: it takes the two
    // cores meanwhile.
    while !std::fs::read_to_string(dir.join("serve.log"))
        .unwrap_or_default()
        .contains("the site is exported")
    {
        assert!(
            started.elapsed() < Duration::from_secs(4 * 3600),
            "serve did not export its site within 4 hours"
        );
        std::thread::sleep(Duration::from_millis(200));
    }
    eprintln!(
        "serve exported its site in {:.0} s",
        started.elapsed().as_secs_f64()
    );
    for target in ["/metrics", "/api/groups"] {
        let mut size = 0;
        let (med, max) = timed(|| {
            let (status, len) = get(port, target);
            assert_eq!(status, 200, "{target}");
            size = len;
        });
        println!("| `GET {target}` | {med:.0} ms | {max:.0} ms | {size} B |");
    }
    // SAFETY: kill with a live child's pid.
    unsafe { libc::kill(child.id() as i32, libc::SIGTERM) };
    let _ = child.wait();
}

/// The `store` line of the `signals.toml` in `dir`.
fn store_of(dir: &Path) -> String {
    let text = std::fs::read_to_string(dir.join("signals.toml")).unwrap();
    let line = text
        .lines()
        .find_map(|l| l.strip_prefix("store = \""))
        .expect("a store line");
    line.trim_end_matches('"').to_string()
}

/// Table 3 alone, on a store generated through the store API: in SQLite,
/// then copied into PostgreSQL.
fn reading_only(repos: usize) {
    let runs: usize = std::env::var("SIGNALS_ROUND_RUNS")
        .ok()
        .map(|n| n.parse().expect("SIGNALS_ROUND_RUNS: a number"))
        .unwrap_or(10);
    let dir = std::env::temp_dir().join(format!("signals-bench-reading-{}", std::process::id()));
    let _ = std::fs::remove_dir_all(&dir);
    std::fs::create_dir_all(&dir).unwrap();
    let t1: Timestamp = "2026-11-01T00:00:00Z".parse().unwrap();
    let started = Instant::now();
    let mut store = signals_store_sqlite::Store::open(dir.join("signals.db")).unwrap();
    let keys = synth::populate(&mut store, repos, ITEMS, 200, t1);
    for run in 1..runs {
        let at = t1 + jiff::SignedDuration::from_hours(run as i64);
        for (n, key) in keys.iter().enumerate() {
            synth::bump(&mut store, *key, n, 2, 200, t1, at);
        }
    }
    drop(store);
    eprintln!(
        "generated {repos} repositories × {ITEMS} items, {runs} runs each, in {:.0} s",
        started.elapsed().as_secs_f64()
    );
    let names: Vec<String> = (0..repos).map(|n| format!("o/r{n}")).collect();
    let write_config = |store: &str| {
        let mut text = config(store, "http://127.0.0.1:9/api/v3", &[]);
        for (n, name) in names.iter().enumerate() {
            text.push_str(&format!(
                "\n[[groups.repos]]\nid = \"r{n}\"\nrepo = \"{name}\"\nname = \"Repository {n}\"\n"
            ));
        }
        std::fs::write(dir.join("signals.toml"), text).unwrap();
    };
    write_config("signals.db");
    reading_table(&dir, "signals.db", repos);
    let options = signals_testpg::Options {
        stat_statements: true,
    };
    let Some(cluster) = signals_testpg::Cluster::start_with(&options).unwrap() else {
        eprintln!("PostgreSQL's server binaries are missing: SQLite only");
        return;
    };
    let url = cluster.create_database("reading").unwrap();
    let out = Command::new(env!("CARGO_BIN_EXE_signals"))
        .current_dir(&dir)
        .args(["migrate", "--from", "signals.db", "--to", &url])
        .output()
        .unwrap();
    assert!(out.status.success(), "{out:?}");
    write_config(&url);
    reading_table(&dir, &url, repos);
    if std::env::var_os("SIGNALS_ROUND_KEEP").is_some() {
        eprintln!("kept {} (its signals.db)", dir.display());
    } else {
        let _ = std::fs::remove_dir_all(&dir);
    }
}

fn main() {
    let repos: usize = std::env::var("SIGNALS_ROUND_REPOS")
        .ok()
        .map(|n| n.parse().expect("SIGNALS_ROUND_REPOS: a number"))
        .unwrap_or(2000);
    if let Ok(dir) = std::env::var("SIGNALS_ROUND_SERVE") {
        let dir = PathBuf::from(dir);
        let store = store_of(&dir);
        reading_table(&dir, &store, repos);
        return;
    }
    if std::env::var("SIGNALS_ROUND_ONLY").as_deref() == Ok("reading") {
        reading_only(repos);
        return;
    }
    let small = (repos / 10).max(10);
    let options = signals_testpg::Options {
        stat_statements: true,
    };
    let Some(cluster) = signals_testpg::Cluster::start_with(&options).unwrap() else {
        eprintln!("the round benchmark needs PostgreSQL's server binaries");
        return;
    };
    let start: Timestamp = "2026-10-01T00:00:00Z".parse().unwrap();
    let signals_testhost::Synthetic { scenario, names } =
        synthetic_many("bench", repos, ITEMS, start);
    let host = TestHost::start(scenario).unwrap();
    host.set_latency(LATENCY);
    // A round is 7 requests a repository, 14,000 at 2,000: more than
    // GitHub's 5,000 an hour for one token (the test host's default). The
    // rounds compare how fast workers collect, so the budget is raised;
    // one worker with one real token could not make this round in an
    // hour at all (docs/performance.md).
    host.set_rate_limit(1_000_000);

    let four = round(&cluster, &host, &names, "four", 4);
    eprintln!("4 workers: {:.1} s", four.wall.as_secs_f64());
    let cmp = round(&cluster, &host, &names[..small], "small", 4);
    statements::table(&four.statements, repos, &cmp.statements, small);
    reading_table(&four.dir, &four.url, repos);
    // `SIGNALS_ROUND_ONLY=four`: the 4-worker round alone, without the
    // 1-worker one (most of the bench's time) or the speed-up.
    let one = (std::env::var("SIGNALS_ROUND_ONLY").as_deref() != Ok("four"))
        .then(|| round(&cluster, &host, &names, "one", 1));
    println!(
        "\n## A round of {repos} repositories × {ITEMS} items on PostgreSQL, {LATENCY:?} per request, one token per worker\n"
    );
    println!(
        "| workers | wall time of a round | requests | repositories per minute | speed-up | workers failed |"
    );
    println!("|---:|---:|---:|---:|---:|---:|");
    let rows = one.iter().map(|r| (1, r)).chain([(4, &four)]);
    for (n, r) in rows {
        let speed_up = one.as_ref().map_or("–".to_string(), |one| {
            format!("{:.2}×", one.wall.as_secs_f64() / r.wall.as_secs_f64())
        });
        println!(
            "| {n} | {:.1} s | {} | {:.0} | {speed_up} | {} |",
            r.wall.as_secs_f64(),
            r.requests,
            repos as f64 * 60.0 / r.wall.as_secs_f64(),
            r.failed
        );
    }
    for r in one.into_iter().chain([four, cmp]) {
        let _ = std::fs::remove_dir_all(&r.dir);
    }
}
