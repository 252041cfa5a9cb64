//! The site figures: `cargo bench -p signals --bench sites`, then
//! the table goes into docs/performance.md. Stores of 100 and 1,000
//! repositories in one group (25 items each, opened over the last weeks so
//! their recent activity differs) are generated through the store API
//! (`tests/it/synth.rs`); the release `signals export` runs under
//! `/usr/bin/time`; then the sizes of what a reader opens are measured:
//! the group page, the index, the pages of the group's full list.
//!
//! `SIGNALS_SITES_REPOS=100,1000` chooses the sizes.

#[path = "../tests/it/synth.rs"]
mod synth;
#[path = "support/timed.rs"]
mod timed;

use std::path::{Path, PathBuf};
use std::time::Instant;

use jiff::{SignedDuration, Timestamp};
use signals_store::RunWrites;
use signals_store_sqlite::Store;
use timed::timed_export;

const ITEMS: usize = 25;
const BODY: usize = 400;

fn main() {
    let repos: Vec<usize> = std::env::var("SIGNALS_SITES_REPOS")
        .unwrap_or_else(|_| "100,1000".into())
        .split(',')
        .map(|n| n.trim().parse().expect("SIGNALS_SITES_REPOS: numbers"))
        .collect();
    let base = PathBuf::from(env!("CARGO_TARGET_TMPDIR")).join("bench-sites");
    std::fs::create_dir_all(&base).unwrap();
    let at: Timestamp = "2026-11-20T10:00:00Z".parse().unwrap();
    println!("## Sites for hundreds of repositories ({ITEMS} items per repository, one group)\n");
    println!(
        "| repositories | group page | index | full-list pages | largest list page | export wall | peak RSS |"
    );
    println!("|---|---|---|---|---|---|---|");
    for &n in &repos {
        let dir = base.join(format!("sites-{n}"));
        std::fs::remove_dir_all(&dir).ok();
        std::fs::create_dir_all(&dir).unwrap();
        let started = Instant::now();
        let mut store = Store::open(dir.join("signals.db")).unwrap();
        for r in 0..n {
            let key = store
                .ensure_repository(&synth::group(), &synth::tracked(r))
                .unwrap();
            // 1 to 25 items opened over the last 20 days.
            let items = 1 + (r * 7) % ITEMS;
            let observed = (1..=items)
                .map(|k| {
                    let mut i = synth::item(r, k, BODY, at);
                    i.created_at = at - SignedDuration::from_hours(24 * (k as i64 % 20));
                    i
                })
                .collect();
            synth::commit(&mut store, key, r, at, observed);
        }
        drop(store);
        eprintln!("generated {n} repositories in {:.1?}", started.elapsed());
        let timed = timed_export(&dir);
        eprintln!("{}", timed.said);
        let site = std::fs::canonicalize(dir.join("site")).unwrap();
        let kb = |p: &Path| std::fs::metadata(p).map_or(0.0, |m| m.len() as f64 / 1024.0);
        let mut pages = 0;
        let mut largest: f64 = 0.0;
        while site.join(format!("g/repos-{}.html", pages + 1)).is_file() {
            pages += 1;
            largest = largest.max(kb(&site.join(format!("g/repos-{pages}.html"))));
        }
        println!(
            "| {n} | {:.0} KB | {:.0} KB | {pages} | {largest:.0} KB | {:.2} s | {:.0} MB |",
            kb(&site.join("g/index.html")),
            kb(&site.join("index.html")),
            timed.wall,
            timed.rss_kib as f64 / 1024.0,
        );
        if std::env::var_os("SIGNALS_SITES_KEEP").is_none() {
            std::fs::remove_dir_all(&dir).ok();
        }
    }
}
