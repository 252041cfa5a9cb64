//! The scale figures: `cargo bench -p signals --bench scale`, then the
//! table goes into docs/performance.md. Stores are generated through the
//! store API (`tests/it/synth.rs`), never over HTTP.
//!
//! 1. Export: stores of 100 and 1,000 repositories × 1,000 items; the
//!    release `signals export` is run under `/usr/bin/time` for its wall time
//!    and peak RSS; then one repository gets a new run and the export runs
//!    again (it renders that repository and the index only).
//! 2. Run cost apart from HTTP: a run observing 10 changed items in a
//!    repository of 100,000 items and in one of 1,000. What is timed is what
//!    `collect/pipeline.rs` does once the host answered: read the observed items'
//!    previous snapshots, account, commit. Median of 15 runs each.
//! 3. Storage: store bytes per item after a first run, and the bytes a run
//!    adds when 1,000 items changed only their reaction counts, against the
//!    size of their bodies.
//!
//! 4. First collections: the release `signals collect` of one
//!    repository of 3,000, 30,000 and 100,000 items from the loopback test
//!    host, under `/usr/bin/time` for its wall time and peak RSS.
//!
//! `SIGNALS_SCALE_REPOS=100,1000`, `SIGNALS_SCALE_BIG=100000` and
//! `SIGNALS_SCALE_FIRST=3000,30000,100000` choose the sizes (smaller ones
//! make a quick check); `SIGNALS_SCALE_TABLES=export,run,storage,first`
//! which tables are made (all by default).

#[path = "support/first_runs.rs"]
mod first_runs;
#[path = "../tests/it/synth.rs"]
mod synth;
#[path = "support/timed.rs"]
mod timed;

use std::path::{Path, PathBuf};
use std::time::Instant;

use jiff::{SignedDuration, Timestamp};
use signals_core::Source;
use signals_core::run::account;
use signals_store::{Reads, RunWrites};
use signals_store_sqlite::Store;
use timed::{Timed, timed_export};

const ITEMS: usize = 1000;
const BODY: usize = 1000;

fn main() {
    let repos: Vec<usize> = std::env::var("SIGNALS_SCALE_REPOS")
        .unwrap_or_else(|_| "100,1000".into())
        .split(',')
        .map(|n| n.trim().parse().expect("SIGNALS_SCALE_REPOS: numbers"))
        .collect();
    let big: usize = std::env::var("SIGNALS_SCALE_BIG")
        .ok()
        .map(|n| n.parse().expect("SIGNALS_SCALE_BIG: a number"))
        .unwrap_or(100_000);
    let base = PathBuf::from(env!("CARGO_TARGET_TMPDIR")).join("bench-scale");
    std::fs::create_dir_all(&base).unwrap();
    let first: Timestamp = "2026-11-20T10:00:00Z".parse().unwrap();
    let first_sizes: Vec<usize> = std::env::var("SIGNALS_SCALE_FIRST")
        .unwrap_or_else(|_| "3000,30000,100000".into())
        .split(',')
        .map(|n| n.trim().parse().expect("SIGNALS_SCALE_FIRST: numbers"))
        .collect();
    let tables =
        std::env::var("SIGNALS_SCALE_TABLES").unwrap_or_else(|_| "export,run,storage,first".into());
    let wanted = |t: &str| tables.split(',').any(|w| w.trim() == t);
    if wanted("export") {
        export_table(&base, &repos, first);
    }
    if wanted("run") {
        run_cost_table(&base, big, first);
    }
    if wanted("storage") {
        storage_table(&base, first);
    }
    if wanted("first") {
        first_runs::first_runs_table(&base, &first_sizes);
    }
}

/// Table 1: a full export of `repos` repositories, then after one new run,
/// then with nothing changed.
fn export_table(base: &Path, repos: &[usize], first: Timestamp) {
    println!("## Export ({ITEMS} items per repository, bodies of {BODY} bytes)\n");
    println!(
        "| repositories | export | wall | peak RSS | repositories rendered | files written | of them item histories |"
    );
    println!("|---|---|---|---|---|---|---|");
    for &n in repos {
        let dir = base.join(format!("export-{n}"));
        std::fs::remove_dir_all(&dir).ok();
        std::fs::create_dir_all(&dir).unwrap();
        let started = Instant::now();
        let mut store = Store::open(dir.join("signals.db")).unwrap();
        let keys = synth::populate(&mut store, n, ITEMS, BODY, first);
        eprintln!("generated {n} repositories in {:.1?}", started.elapsed());
        let full = timed_export(&dir);
        row(n, "full", &full);
        synth::bump(
            &mut store,
            keys[n / 2],
            n / 2,
            10,
            BODY,
            first,
            first + SignedDuration::from_hours(1),
        );
        drop(store);
        let one = timed_export(&dir);
        row(n, "after one new run", &one);
        let same = timed_export(&dir);
        row(n, "nothing changed", &same);
        // The generated site is large; keep the disk for the next size.
        std::fs::remove_dir_all(&dir).ok();
    }
}

/// Table 2: the median local cost of a run observing 10 changed items in
/// a repository of `big` items and in one of [`ITEMS`].
fn run_cost_table(base: &Path, big: usize, first: Timestamp) {
    println!("\n## Local cost of a run observing 10 changed items\n");
    println!("| repository | median run (store + core) | per run, min–max |");
    println!("|---|---|---|");
    let mut medians = Vec::new();
    for (n, items) in [(0usize, big), (1, ITEMS)] {
        let dir = base.join(format!("run-{items}"));
        std::fs::remove_dir_all(&dir).ok();
        std::fs::create_dir_all(&dir).unwrap();
        let mut store = Store::open(dir.join("signals.db")).unwrap();
        let key = store
            .ensure_repository(&synth::group(), &synth::tracked(n))
            .unwrap();
        let observed = (1..=items)
            .map(|k| synth::item(n, k, BODY, first))
            .collect();
        synth::commit(&mut store, key, n, first, observed);
        let mut times = Vec::new();
        for r in 1..=15i64 {
            let at = first + SignedDuration::from_hours(r);
            // What the host would have answered: 10 items with one more reaction.
            let observed: Vec<_> = (1..=10)
                .map(|k| {
                    let mut i = synth::item(n, k * 7, BODY, first);
                    i.metrics.reactions += r as u64;
                    i.updated_at = at;
                    i
                })
                .collect();
            let started = Instant::now();
            let ids: Vec<String> = observed.iter().map(|i| i.id(Source::Github)).collect();
            let previous = store.latest_snapshots_for(key, &ids).unwrap();
            let delta = account(Source::Github, observed.clone(), &previous);
            assert_eq!(delta.changed_count(), 10);
            synth::commit(&mut store, key, n, at, observed);
            times.push(started.elapsed());
        }
        times.sort();
        let median = times[times.len() / 2];
        medians.push(median);
        println!(
            "| {items} items | {median:.2?} | {:.2?}–{:.2?} |",
            times[0],
            times[times.len() - 1]
        );
        drop(store);
        std::fs::remove_dir_all(&dir).ok();
    }
    println!(
        "\nratio, {big} items over {ITEMS}: {:.2}",
        medians[0].as_secs_f64() / medians[1].as_secs_f64()
    );
}

/// Table 3: store bytes per item after a first run, and what a run adds
/// when every item changed only its reactions.
fn storage_table(base: &Path, first: Timestamp) {
    println!("\n## Storage\n");
    let dir = base.join("storage");
    std::fs::remove_dir_all(&dir).ok();
    std::fs::create_dir_all(&dir).unwrap();
    let path = dir.join("signals.db");
    let mut store = Store::open(&path).unwrap();
    let key = synth::populate(&mut store, 1, ITEMS, BODY, first)[0];
    drop(store); // closing checkpoints the WAL into the file
    let after_first = std::fs::metadata(&path).unwrap().len();
    let mut store = Store::open(&path).unwrap();
    synth::bump(
        &mut store,
        key,
        0,
        ITEMS,
        BODY,
        first,
        first + SignedDuration::from_hours(1),
    );
    drop(store);
    let after_bump = std::fs::metadata(&path).unwrap().len();
    let added = (after_bump - after_first) as f64 / ITEMS as f64;
    println!("| what | bytes |");
    println!("|---|---|");
    println!(
        "| store per item after a first run ({ITEMS} items, bodies of {BODY} bytes) | {:.0} |",
        after_first as f64 / ITEMS as f64
    );
    println!(
        "| added per item by a run in which all {ITEMS} changed only their reactions | {added:.0} ({:.1}% of the body) |",
        100.0 * added / BODY as f64
    );
    std::fs::remove_dir_all(&dir).ok();
}

fn row(n: usize, what: &str, t: &Timed) {
    // "exported N repositories (F files, H of them item histories) to ..."
    // or "nothing changed ..."
    let (rendered, files, histories) = match t.said.strip_prefix("exported ") {
        Some(rest) => {
            let words: Vec<&str> = rest.split_whitespace().collect();
            let word = |i: usize| words.get(i).copied().unwrap_or("?");
            (
                word(0).to_string(),
                word(2).trim_start_matches('(').to_string(),
                word(4).to_string(),
            )
        }
        None => ("0".to_string(), "0".to_string(), "0".to_string()),
    };
    println!(
        "| {n} | {what} | {:.2} s | {:.1} MiB | {rendered} | {files} | {histories} |",
        t.wall,
        t.rss_kib as f64 / 1024.0
    );
}
