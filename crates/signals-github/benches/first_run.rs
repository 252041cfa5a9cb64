//! The wall time of one repository's first collection as the repository
//! grows, in process, against the loopback test host (GitHub flavor):
//! `cargo bench -p signals-github --bench first_run`.
//!
//! A first run pages through every item (100 per page), so requests grow
//! linearly with the items; this prints whether the client's time does
//! too (it keeps one item per key as pages arrive). The wall time includes
//! the test host, which filters and sorts the whole list for every page
//! (its cost grows with items × pages); the client's own CPU time is read
//! from `/proc/thread-self/stat` (Linux; 10 ms ticks), since the host
//! serves from other threads. Sizes:
//! `SIGNALS_FIRST_RUN_SIZES=1000,10000,50000` (default). The request count
//! must be the documented `5 + ceil(items / 100)`, or this program panics.

use std::time::{Duration, Instant};

use jiff::{SignedDuration, Timestamp};
use signals_core::model::RepoName;
use signals_github::{Client, Config, MemoryCache};
use signals_testhost::{TestHost, synthetic};

fn main() {
    let sizes: Vec<usize> = std::env::var("SIGNALS_FIRST_RUN_SIZES")
        .unwrap_or_else(|_| "1000,10000,50000".into())
        .split(',')
        .map(|n| n.trim().parse().expect("SIGNALS_FIRST_RUN_SIZES: numbers"))
        .collect();
    println!(
        "| items | requests | wall (client + test host) | client CPU | client CPU per 1,000 items |"
    );
    println!("|---:|---:|---:|---:|---:|");
    for items in sizes {
        let start = Timestamp::now() - SignedDuration::from_hours(24 * 30);
        let host = TestHost::start(synthetic("bench/signals", items, start)).expect("test host");
        let mut client = Client::new(Config {
            base_url: host.api_url(),
            timeout: Duration::from_secs(30),
            ..Config::default()
        })
        .expect("client");
        let began = Instant::now();
        let cpu_before = thread_cpu();
        let got = client
            .collect(
                &RepoName::parse("bench/signals").expect("name"),
                start - SignedDuration::from_hours(1),
                &mut MemoryCache::new(),
            )
            .expect("collect");
        let wall = began.elapsed();
        let cpu = thread_cpu()
            .zip(cpu_before)
            .map(|(after, before)| after - before);
        assert_eq!(got.collected.items.len(), items);
        let budget = 5 + items.div_ceil(100) as u64;
        assert_eq!(got.stats.requests, budget, "requests of {items} items");
        let (cpu, per_1000) = match cpu {
            Some(cpu) => (
                format!("{:.2} s", cpu.as_secs_f64()),
                format!("{:.1} ms", cpu.as_secs_f64() * 1e6 / items as f64),
            ),
            None => ("n/a".into(), "n/a".into()),
        };
        println!(
            "| {items} | {} | {:.2} s | {cpu} | {per_1000} |",
            got.stats.requests,
            wall.as_secs_f64(),
        );
    }
}

/// The calling thread's CPU time (user + system), from
/// `/proc/thread-self/stat` in clock ticks of 10 ms (`USER_HZ` is 100 on
/// Linux); `None` where there is no such file.
fn thread_cpu() -> Option<Duration> {
    let stat = std::fs::read_to_string("/proc/thread-self/stat").ok()?;
    // Fields after the command name, which may hold spaces: state is the
    // 3rd field, utime the 14th, stime the 15th.
    let rest = &stat[stat.rfind(')')? + 2..];
    let fields: Vec<&str> = rest.split_whitespace().collect();
    let ticks: u64 = fields.get(11)?.parse::<u64>().ok()? + fields.get(12)?.parse::<u64>().ok()?;
    Some(Duration::from_millis(ticks * 10))
}
