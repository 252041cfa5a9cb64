//! The cost of trends: `cargo bench -p signals --bench trends`.
//!
//! One repository of 100,000 items (bodies of 1,000 bytes), generated
//! through the store API with a week of daily runs behind it (each
//! changing 10 more items) and a first export (not measured: a first export
//! writes every page), then one more run of 10 changes. Then:
//!
//! 1. the release `signals export` of that store under `/usr/bin/time`
//!    (wall time, peak RSS): the export with trends, as it ships;
//! 2. in this process, the part of that export that is trends: the two
//!    store reads trends add (the runs' context of 26 weeks, the growth of
//!    the items observed in 7 days) and the tally over the latest
//!    snapshots the export reads anyway (`signals_core::trends::build`),
//!    timed (median of 7) and with the bytes it allocates at its peak,
//!    counted by this benchmark's allocator;
//! 3. the size of `trends.json`.
//!
//! The export without trends is the first figure less the second: the
//! trends part runs inside the export, between reading the repository and
//! rendering it, and adds nothing else. `SIGNALS_TRENDS_ITEMS` sets the
//! size (a smaller one makes a quick check).

#[path = "../tests/it/synth.rs"]
mod synth;
#[path = "support/timed.rs"]
mod timed;

use std::alloc::{GlobalAlloc, Layout, System};
use std::path::Path;
use std::sync::atomic::{AtomicUsize, Ordering};
use std::time::{Duration, Instant};

use jiff::{SignedDuration, Timestamp};
use signals_core::trends::{RISING_WINDOW, build, first_week};
use signals_store::TrendReads;
use signals_store::suite::WholeReads;
use signals_store_sqlite::Store;
use timed::timed_export;

/// Counts the bytes allocated now and at the peak since the last reset.
struct Counting;

static NOW: AtomicUsize = AtomicUsize::new(0);
static PEAK: AtomicUsize = AtomicUsize::new(0);

// SAFETY: forwards to the system allocator; only counts.
unsafe impl GlobalAlloc for Counting {
    unsafe fn alloc(&self, layout: Layout) -> *mut u8 {
        let now = NOW.fetch_add(layout.size(), Ordering::Relaxed) + layout.size();
        PEAK.fetch_max(now, Ordering::Relaxed);
        // SAFETY: as the caller promised.
        unsafe { System.alloc(layout) }
    }
    unsafe fn dealloc(&self, ptr: *mut u8, layout: Layout) {
        NOW.fetch_sub(layout.size(), Ordering::Relaxed);
        // SAFETY: as the caller promised.
        unsafe { System.dealloc(ptr, layout) }
    }
}

#[global_allocator]
static ALLOCATOR: Counting = Counting;

const BODY: usize = 1000;

fn main() {
    let items: usize = std::env::var("SIGNALS_TRENDS_ITEMS")
        .ok()
        .map(|n| n.parse().expect("SIGNALS_TRENDS_ITEMS: a number"))
        .unwrap_or(100_000);
    let dir = Path::new(env!("CARGO_TARGET_TMPDIR")).join("bench-trends");
    std::fs::remove_dir_all(&dir).ok();
    std::fs::create_dir_all(&dir).unwrap();
    let first: Timestamp = "2026-11-17T10:00:00Z".parse().unwrap();
    let started = Instant::now();
    let mut store = Store::open(dir.join("signals.db")).unwrap();
    let key = synth::populate(&mut store, 1, items, BODY, first)[0];
    // A week of daily runs, each changing 10 more items; an export of it
    // all (not measured: a first export writes every page); then the run
    // of the benchmark, 10 changes, and the export that is measured.
    for day in 1..=7 {
        synth::bump(
            &mut store,
            key,
            0,
            10 * day,
            BODY,
            first,
            first + SignedDuration::from_hours(24 * day as i64),
        );
    }
    eprintln!(
        "generated {items} items and 8 runs in {:.1?}",
        started.elapsed()
    );
    let first_export = timed_export(&dir);
    eprintln!(
        "first export: {:.1} s: {}",
        first_export.wall, first_export.said
    );
    synth::bump(
        &mut store,
        key,
        0,
        10,
        BODY,
        first,
        first + SignedDuration::from_hours(24 * 8),
    );
    let export = timed_export(&dir);
    let trends_json = std::fs::metadata(dir.join("site/g/r0/trends.json"))
        .map(|m| m.len())
        .unwrap_or(0);

    // The trends part, in process: the view is what the export reads anyway.
    let view = store.repository_view(key).unwrap().unwrap();
    let instant = view.runs.last().unwrap().collected_at;
    let coverage = view.runs[0].since;
    let mut times = Vec::new();
    let mut peak = 0;
    let mut rising = 0;
    for _ in 0..7 {
        let base = NOW.load(Ordering::Relaxed);
        PEAK.store(base, Ordering::Relaxed);
        let t = Instant::now();
        let contexts = store.run_contexts(key, first_week(instant)).unwrap();
        let growth = store.growth_since(key, instant - RISING_WINDOW).unwrap();
        let trends = build(
            "o/r0".into(),
            instant,
            coverage,
            view.items.values(),
            // The weeks are timed here; contributors are counted from the
            // replies the export reads with each batch, not from items.
            &signals_core::trends::Contributors {
                weeks: Vec::new(),
                source: signals_core::lifecycle::contributors::ContributorsSource::History,
            },
            &contexts,
            growth,
        );
        times.push(t.elapsed());
        peak = peak.max(PEAK.load(Ordering::Relaxed) - base);
        rising = trends.rising.len();
    }
    times.sort();
    let median: Duration = times[times.len() / 2];

    println!("## Trends of one repository of {items} items after a run of 10 changes\n");
    println!("| what | figure |");
    println!("|---|---|");
    println!(
        "| `signals export` with trends (release, `/usr/bin/time`) | {:.2} s wall, {:.1} MiB peak RSS |",
        export.wall,
        export.rss_kib as f64 / 1024.0
    );
    println!(
        "| of it, trends (the two store reads and the tally), median of 7 | {:.1} ms ({:.1}% of the export) |",
        median.as_secs_f64() * 1e3,
        100.0 * median.as_secs_f64() / export.wall
    );
    println!(
        "| the export without trends (the difference) | {:.2} s |",
        export.wall - median.as_secs_f64()
    );
    println!(
        "| memory trends allocate at their peak (counted) | {:.1} KiB |",
        peak as f64 / 1024.0
    );
    println!("| `trends.json` | {trends_json} bytes ({rising} rising items) |");
    std::fs::remove_dir_all(&dir).ok();
}
