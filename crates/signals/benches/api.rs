//! The figures for `signals serve`: `cargo bench -p signals --bench
//! api`, then the tables go into docs/performance.md. Stores are generated
//! through the store API (`tests/it/synth.rs`), never over HTTP, and
//! served by the release binary on loopback; clients are plain threads on
//! keep-alive connections.
//!
//! 1. A filtered list (`state`, `label`, `sort`) and a text search (`q`),
//!    p50 and p99 of 200 requests each, on a repository of 1,000 items and
//!    on one of 100,000.
//! 2. Throughput of that filtered list at 100,000 items with 1 client and
//!    with 8, for 5 s each.
//! 3. A request while 500 idle connections are open.
//! 4. `serve`'s RSS serving 100 repositories of 1,000 items plus one of
//!    100,000, after the first request and every 2,500 requests up to
//!    10,000 (a mix of lists, searches, trails and histories).
//! 5. `signals export` of the 1,000-item and the 100,000-item repository
//!    (wall time and peak RSS under `/usr/bin/time`), and what the page's
//!    filter downloads from what it writes at the first filter action
//!    (`signals.json` and its first text part; `benches/filter.rs` says
//!    more).
//!
//! `SIGNALS_API_BIG=100000` chooses the big size (a smaller one makes a
//! quick check); `SIGNALS_API_ONLY=export` measures the export alone
//! (table 5), and then `SIGNALS_API_KEEP=1` keeps its stores (under
//! `target/release/tmp/bench-api`) for a closer look.

#[path = "support/client.rs"]
mod client;
#[path = "support/index_bytes.rs"]
mod index_bytes;
#[path = "../tests/it/synth.rs"]
mod synth;
#[path = "support/timed.rs"]
mod timed;

use std::net::TcpStream;
use std::path::{Path, PathBuf};
use std::process::{Child, Command, Stdio};
use std::time::{Duration, Instant};

use client::{Client, throughput};
use jiff::{SignedDuration, Timestamp};
use signals_store::RunWrites;
use signals_store_sqlite::Store;

const BODY: usize = 1000;

struct Served {
    child: Child,
    port: u16,
}

impl Drop for Served {
    fn drop(&mut self) {
        // SAFETY: kill(2) on our own child's pid.
        unsafe { libc::kill(self.child.id() as libc::pid_t, libc::SIGTERM) };
        let _ = self.child.wait();
    }
}

fn serve(dir: &Path) -> (Served, Duration) {
    let port = std::net::TcpListener::bind("127.0.0.1:0")
        .unwrap()
        .local_addr()
        .unwrap()
        .port();
    let started = Instant::now();
    let log = dir.join("serve.log");
    let mut child = Command::new(env!("CARGO_BIN_EXE_signals"))
        .current_dir(dir)
        .args([
            "serve",
            "--store",
            "signals.db",
            "--port",
            &port.to_string(),
        ])
        .env("TMPDIR", dir)
        .stdout(Stdio::null())
        .stderr(std::fs::File::create(&log).unwrap())
        .spawn()
        .unwrap();
    while TcpStream::connect(("127.0.0.1", port)).is_err() {
        if let Ok(Some(status)) = child.try_wait() {
            panic!(
                "serve stopped ({status}): {}",
                std::fs::read_to_string(&log).unwrap_or_default()
            );
        }
        assert!(
            started.elapsed() < Duration::from_secs(1800),
            "serve did not start"
        );
        std::thread::sleep(Duration::from_millis(50));
    }
    // It listens at once; ready is when its pages are exported.
    while !std::fs::read_to_string(&log)
        .unwrap_or_default()
        .contains("the site is exported")
    {
        if let Ok(Some(status)) = child.try_wait() {
            panic!(
                "serve stopped ({status}): {}",
                std::fs::read_to_string(&log).unwrap_or_default()
            );
        }
        std::thread::sleep(Duration::from_millis(50));
    }
    (Served { child, port }, started.elapsed())
}

fn rss_kib(pid: u32) -> u64 {
    std::fs::read_to_string(format!("/proc/{pid}/status"))
        .unwrap()
        .lines()
        .find_map(|l| l.strip_prefix("VmRSS:"))
        .and_then(|v| v.trim().trim_end_matches("kB").trim().parse().ok())
        .unwrap()
}

/// A store in `dir` of `repos` repositories of `items` items, plus, when
/// `big` is not 0, repository number `repos` with `big` items; every
/// repository with a second run in which 2% of its items gained a
/// reaction.
fn store(dir: &Path, repos: usize, items: usize, big: usize) {
    std::fs::remove_dir_all(dir).ok();
    std::fs::create_dir_all(dir).unwrap();
    let mut store = Store::open(dir.join("signals.db")).unwrap();
    let t1: Timestamp = "2026-11-20T10:00:00Z".parse().unwrap();
    let t2 = t1 + SignedDuration::from_hours(1);
    let keys = synth::populate(&mut store, repos, items, BODY, t1);
    for (n, key) in keys.into_iter().enumerate() {
        synth::bump(&mut store, key, n, items / 50, BODY, t1, t2);
    }
    if big > 0 {
        let key = store
            .ensure_repository(&synth::group(), &synth::tracked(repos))
            .unwrap();
        // In runs of 10,000 items, a second apart.
        for (i, start) in (1..=big).step_by(10_000).enumerate() {
            let observed = (start..(start + 10_000).min(big + 1))
                .map(|k| synth::item(repos, k, BODY, t1))
                .collect();
            synth::commit(
                &mut store,
                key,
                repos,
                t1 + SignedDuration::from_secs(i as i64),
                observed,
            );
        }
        synth::bump(
            &mut store,
            key,
            repos,
            big / 50,
            BODY,
            t1,
            t2 + SignedDuration::from_hours(1),
        );
    }
}

/// Table 5: `signals export` of the 1,000-item and the `big` repository
/// (stores made already, in `base/one-<items>`).
fn export_table(base: &Path, big: usize) {
    println!("## `signals export` by repository size\n");
    println!("| items | wall | peak RSS | first filter action | `dataset.json` |");
    println!("|---:|---:|---:|---:|---:|");
    let mut peaks = Vec::new();
    for items in [1_000, big] {
        let dir = base.join(format!("one-{items}"));
        let t = timed::timed_export(&dir);
        assert!(t.said.starts_with("exported 1 "), "{}", t.said);
        let size = |name: &str| {
            std::fs::metadata(dir.join("site/g/r0").join(name))
                .map(|m| m.len())
                .unwrap_or(0) as f64
                / 1e6
        };
        let index = index_bytes::index_bytes(&dir.join("site/g/r0")).first;
        println!(
            "| {items} | {:.2} s | {:.1} MiB | {:.1} MB | {:.1} MB |",
            t.wall,
            t.rss_kib as f64 / 1024.0,
            index as f64 / 1e6,
            size("dataset.json"),
        );
        peaks.push(t.rss_kib as f64);
    }
    println!(
        "\nPeak RSS at {big} items / at 1000 = {:.2}×\n",
        peaks[1] / peaks[0]
    );
}

/// p50 and p99 of `n` requests of `target`, in milliseconds.
fn latency(port: u16, target: &str, n: usize) -> (f64, f64, usize) {
    let mut client = Client::connect(port);
    let (status, body) = client.get(target);
    let bytes = body.len();
    assert_eq!(status, 200, "{target}");
    let mut times: Vec<f64> = (0..n)
        .map(|_| {
            let t = Instant::now();
            let (status, _) = client.get(target);
            assert_eq!(status, 200, "{target}");
            t.elapsed().as_secs_f64() * 1000.0
        })
        .collect();
    times.sort_by(f64::total_cmp);
    (times[n / 2], times[n * 99 / 100], bytes)
}

fn main() {
    let big: usize = std::env::var("SIGNALS_API_BIG")
        .ok()
        .map(|n| n.parse().expect("SIGNALS_API_BIG: a number"))
        .unwrap_or(100_000);
    let base = PathBuf::from(env!("CARGO_TARGET_TMPDIR")).join("bench-api");
    let filtered = "signals?state=open&label=bug&sort=updated";
    std::fs::remove_dir_all(&base).ok();
    let search = "signals?q=item+999";

    if std::env::var("SIGNALS_API_ONLY").is_ok_and(|v| v == "export") {
        for items in [1_000, big] {
            store(&base.join(format!("one-{items}")), 0, 0, items);
        }
        export_table(&base, big);
        if std::env::var_os("SIGNALS_API_KEEP").is_none() {
            std::fs::remove_dir_all(&base).ok();
        }
        return;
    }

    println!("## The API by repository size (bodies of {BODY} bytes)\n");
    println!("| request | items | p50 | p99 | bytes |");
    println!("|---|---:|---:|---:|---:|");
    let mut p50s = Vec::new();
    for items in [1_000, big] {
        let dir = base.join(format!("one-{items}"));
        store(&dir, 0, 0, items);
        let (s, _) = serve(&dir);
        for (name, q) in [("filtered list", filtered), ("text search", search)] {
            let target = format!("/api/repos/g/r0/{q}");
            let (p50, p99, bytes) = latency(s.port, &target, 200);
            p50s.push((name, items, p50));
            println!("| {name} `{q}` | {items} | {p50:.2} ms | {p99:.2} ms | {bytes} |");
        }
        if items == big {
            let target = format!("/api/repos/g/r0/{filtered}");
            let one = throughput(s.port, &target, 1, Duration::from_secs(5));
            let eight = throughput(s.port, &target, 8, Duration::from_secs(5));
            println!(
                "\nThroughput of the filtered list at {items} items: 1 client {one:.0} requests/s, \
                 8 clients {eight:.0} requests/s ({:.2}×)\n",
                eight / one
            );
            let idle: Vec<TcpStream> = (0..500)
                .map(|_| TcpStream::connect(("127.0.0.1", s.port)).unwrap())
                .collect();
            let t = Instant::now();
            let (status, _) = Client::connect(s.port).get(&target);
            assert_eq!(status, 200);
            println!(
                "A request while {} idle connections are open: answered in {:.1} ms\n",
                idle.len(),
                t.elapsed().as_secs_f64() * 1000.0
            );
        }
    }
    export_table(&base, big);
    for name in ["filtered list", "text search"] {
        let at: Vec<f64> = p50s.iter().filter(|p| p.0 == name).map(|p| p.2).collect();
        println!(
            "{name}: p50 at {big} items / p50 at 1000 = {:.2}×",
            at[1] / at[0]
        );
    }

    println!("\n## `serve`'s RSS: 100 repositories × 1,000 items plus one of {big}\n");
    let dir = base.join("mixed");
    store(&dir, 100, 1_000, big);
    let (s, ready) = serve(&dir);
    println!(
        "Ready (first export of the private site included) in {:.1} s\n",
        ready.as_secs_f64()
    );
    println!("| requests | RSS |");
    println!("|---:|---:|");
    let pid = s.child.id();
    println!("| 0 | {} MiB |", rss_kib(pid) / 1024);
    let mut client = Client::connect(s.port);
    for n in 1..=10_000usize {
        let repo = if n % 4 == 0 { 100 } else { n % 100 };
        let target = match n % 5 {
            0 => format!("/api/repos/g/r{repo}/signals?page={}", 1 + n % 20),
            1 => format!("/api/repos/g/r{repo}/{filtered}"),
            2 => format!("/api/repos/g/r{repo}/signals?q=item+{}", n % 997),
            3 => format!("/api/repos/g/r{repo}/trail?page={}", 1 + n % 7),
            _ => format!(
                "/api/signals/github:o/r{repo}:issue:{}/history",
                1 + n % 997
            ),
        };
        let (status, _) = client.get(&target);
        assert!(status == 200 || status == 404, "{target}: {status}");
        if n == 1 || n % 2_500 == 0 {
            println!("| {n} | {} MiB |", rss_kib(pid) / 1024);
        }
    }
    drop(s);
    std::fs::remove_dir_all(&base).ok();
}
