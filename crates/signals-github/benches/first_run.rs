//! The wall time of one repository's first collection as the repository
//! grows, in process, against the loopback test host (GitHub flavor):
//! `cargo bench -p signals-github --bench first_run`.
//!
//! A first run pages through every item (100 per page), so requests grow
//! linearly with the items; this prints whether the time does too (the
//! client keeps one item per key as pages arrive). Sizes:
//! `SIGNALS_FIRST_RUN_SIZES=1000,10000,50000` (default). The request count
//! must be the documented `4 + ceil(items / 100)`, or this program panics.

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
    println!("| items | requests | first run | per 1,000 items |");
    println!("|---:|---:|---:|---:|");
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
        let got = client
            .collect(
                &RepoName::parse("bench/signals").expect("name"),
                start - SignedDuration::from_hours(1),
                &mut MemoryCache::new(),
            )
            .expect("collect");
        let wall = began.elapsed();
        assert_eq!(got.collected.items.len(), items);
        let budget = 4 + items.div_ceil(100) as u64;
        assert_eq!(got.stats.requests, budget, "requests of {items} items");
        println!(
            "| {items} | {} | {:.2} s | {:.1} ms |",
            got.stats.requests,
            wall.as_secs_f64(),
            wall.as_secs_f64() * 1000.0 / (items as f64 / 1000.0)
        );
    }
}
