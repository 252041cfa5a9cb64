//! Issue 7's scale figures, over synthetic stores generated through the
//! store API (no HTTP): `cargo bench -p signals --bench scale`. Prints a
//! table per question (see docs/performance.md):
//!
//! 1. `signals export` (the real release binary) of 100 and then 1,000
//!    repositories of 1,000 items: wall time and peak RSS (the child's
//!    `ru_maxrss`, from `wait4`);
//! 2. the export after one repository got a new run: wall time, peak RSS,
//!    repositories rendered and files written;
//! 3. the local cost of a run that observed 10 changed items, in a
//!    repository of 1,000 and one of 100,000 items;
//! 4. store bytes per item after a first run, and bytes added by a run in
//!    which 1,000 items changed only their reaction counts.
//!
//! `SCALE_REPOS` (default 1000) and `SCALE_ITEMS` (default 1000) shrink
//! the export stores for a quick look; the figures in the docs use the
//! defaults.

#[path = "../tests/it/synth.rs"]
mod synth;

use std::io::Read;
use std::path::{Path, PathBuf};
use std::process::{Command, Stdio};
use std::time::{Duration, Instant};

use jiff::{SignedDuration, Timestamp};
use signals_store::{RepoKey, Store};

/// Body length of synthetic items, in bytes: a typical issue body.
const BODY: usize = 1000;

fn main() {
    let repos: usize = env_or("SCALE_REPOS", 1000);
    let items: usize = env_or("SCALE_ITEMS", 1000);
    let dir = PathBuf::from(env!("CARGO_TARGET_TMPDIR"))
        .join(format!("bench-scale-{}", std::process::id()));
    std::fs::remove_dir_all(&dir).ok();
    std::fs::create_dir_all(&dir).unwrap();
    let first: Timestamp = "2026-11-20T10:00:00Z".parse().unwrap();

    storage(&dir, first);
    local_run_time(&dir, first);
    export(&dir, first, repos, items);

    std::fs::remove_dir_all(&dir).ok();
}

/// Question 1 and 2.
fn export(dir: &Path, first: Timestamp, repos: usize, items: usize) {
    let db = dir.join("export.db");
    let mut store = Store::open(&db).unwrap();
    let small = (repos / 10).max(1);
    let mut keys = Vec::new();
    println!("\n`signals export` (release binary), synthetic store, bodies of {BODY} bytes\n");
    println!("| export | wall time | peak RSS | repositories rendered | files written |");
    println!("|---|---|---|---|---|");
    for (count, fresh_out) in [(small, "site-small"), (repos, "site")] {
        let started = Instant::now();
        while keys.len() < count {
            let n = keys.len();
            let key = store
                .ensure_repository(&synth::group(), &synth::tracked(n))
                .unwrap();
            let observed = (1..=items)
                .map(|k| synth::item(n, k, BODY, first))
                .collect();
            synth::commit(&mut store, key, n, first, observed);
            keys.push(key);
        }
        eprintln!(
            "generated {count} repositories of {items} items in {:.1?}",
            started.elapsed()
        );
        let m = measure_export(dir, &db, fresh_out);
        row(
            &format!("{count} repositories × {items} items, first export"),
            &m,
        );
    }
    // One repository gets a run observing 10 changed items; export again
    // into the same folder, without --all.
    synth::bump(
        &mut store,
        keys[0],
        0,
        10,
        BODY,
        first,
        first + SignedDuration::from_hours(1),
    );
    let m = measure_export(dir, &db, "site");
    row(
        &format!("{repos} repositories, after one repository's new run"),
        &m,
    );
    let m = measure_export(dir, &db, "site");
    row(&format!("{repos} repositories, nothing new"), &m);
}

/// One row of the export table, printed as soon as it is measured.
fn row(label: &str, m: &Measured) {
    println!(
        "| {label} | {} | {:.1} MiB | {} | {} |",
        ms(m.wall),
        m.max_rss_kib as f64 / 1024.0,
        m.rendered,
        m.files
    );
}

struct Measured {
    wall: Duration,
    max_rss_kib: i64,
    rendered: String,
    files: String,
}

/// Runs `signals export` and reads its peak RSS from `wait4`.
#[allow(clippy::zombie_processes)] // reaped by `wait4` below, not `wait`
fn measure_export(dir: &Path, db: &Path, out: &str) -> Measured {
    let started = Instant::now();
    let mut child = Command::new(env!("CARGO_BIN_EXE_signals"))
        .current_dir(dir)
        .args(["export", "--store"])
        .arg(db)
        .args(["--out", out])
        .env_remove("SIGNALS_CONFIG")
        .stdout(Stdio::piped())
        .stderr(Stdio::inherit())
        .spawn()
        .expect("the signals binary starts");
    let mut status = 0;
    // SAFETY: an all-zero rusage is a valid value for wait4 to overwrite.
    let mut usage: libc::rusage = unsafe { std::mem::zeroed() };
    // SAFETY: the pid is our child's, not yet reaped; both pointers are valid.
    let pid = unsafe { libc::wait4(child.id() as libc::pid_t, &mut status, 0, &mut usage) };
    let wall = started.elapsed();
    assert_eq!(pid, child.id() as libc::pid_t, "wait4 failed");
    assert!(
        libc::WIFEXITED(status) && libc::WEXITSTATUS(status) == 0,
        "export failed"
    );
    let mut stdout = String::new();
    child
        .stdout
        .take()
        .unwrap()
        .read_to_string(&mut stdout)
        .unwrap();
    // "exported N repositories (M files) to ..." or "nothing changed ...".
    let (rendered, files) = match stdout.strip_prefix("exported ") {
        Some(rest) => {
            let mut words = rest.split_whitespace();
            let n = words.next().unwrap_or("?").to_string();
            let f = words
                .nth(1)
                .unwrap_or("?")
                .trim_start_matches('(')
                .to_string();
            (n, f)
        }
        None => ("0".into(), "0".into()),
    };
    Measured {
        wall,
        max_rss_kib: usage.ru_maxrss,
        rendered,
        files,
    }
}

/// Question 3: the store work of a run that observed 10 changed items
/// (read their previous snapshots, account, commit), in repositories of
/// 1,000 and 100,000 items. HTTP is not involved: the observed items are
/// handed to the same calls the pipeline makes once the host answered.
fn local_run_time(dir: &Path, first: Timestamp) {
    println!("\nlocal time of a run observing 10 changed items (median of 9)\n");
    println!("| repository | first run (all items) | run with 10 changed items |");
    println!("|---|---|---|");
    let mut medians = Vec::new();
    for size in [1_000usize, 100_000] {
        let db = dir.join(format!("local-{size}.db"));
        let mut store = Store::open(&db).unwrap();
        let key = store
            .ensure_repository(&synth::group(), &synth::tracked(0))
            .unwrap();
        let started = Instant::now();
        let observed = (1..=size).map(|k| synth::item(0, k, BODY, first)).collect();
        synth::commit(&mut store, key, 0, first, observed);
        let first_run = started.elapsed();
        let mut times = Vec::new();
        for r in 1..=9u64 {
            let at = first + SignedDuration::from_hours(r as i64);
            // Ten items spread over the repository, each one reaction more.
            let observed: Vec<_> = (0..10)
                .map(|i| {
                    let k = 1 + i * (size / 10);
                    let mut item = synth::item(0, k, BODY, first);
                    item.metrics.reactions += r;
                    item.updated_at = at;
                    item
                })
                .collect();
            let started = Instant::now();
            run_once(&mut store, key, at, observed);
            times.push(started.elapsed());
        }
        times.sort();
        let median = times[times.len() / 2];
        medians.push(median);
        println!(
            "| {size} items | {} | {} |",
            ms(first_run),
            format_args!("{:.2} ms", median.as_secs_f64() * 1000.0)
        );
    }
    println!(
        "\n100,000-item run / 1,000-item run: {:.2}×",
        medians[1].as_secs_f64() / medians[0].as_secs_f64()
    );
}

/// What the pipeline does after the host answered: previous snapshots of
/// the observed items only (`latest_snapshots_for`), `account`, one
/// `commit_run`. That is `synth::commit`, timed as a whole.
fn run_once(
    store: &mut Store,
    key: RepoKey,
    at: Timestamp,
    observed: Vec<signals_core::ItemSnapshot>,
) {
    synth::commit(store, key, 0, at, observed);
}

/// Question 4.
fn storage(dir: &Path, first: Timestamp) {
    let db = dir.join("storage.db");
    let size = 1000;
    let key = {
        let mut store = Store::open(&db).unwrap();
        let key = store
            .ensure_repository(&synth::group(), &synth::tracked(0))
            .unwrap();
        let observed = (1..=size).map(|k| synth::item(0, k, BODY, first)).collect();
        synth::commit(&mut store, key, 0, first, observed);
        key
    }; // closed: the WAL is checkpointed into the file
    let after_first = file_bytes(&db);
    {
        let mut store = Store::open(&db).unwrap();
        let at = first + SignedDuration::from_hours(1);
        let observed = (1..=size)
            .map(|k| {
                let mut item = synth::item(0, k, BODY, first);
                item.metrics.reactions += 1;
                item.updated_at = at;
                item
            })
            .collect();
        synth::commit(&mut store, key, 0, at, observed);
    }
    let after_second = file_bytes(&db);
    let per_item = after_first as f64 / size as f64;
    let added = (after_second - after_first) as f64 / size as f64;
    println!("\nstore size, one repository of {size} items with bodies of {BODY} bytes\n");
    println!("| measure | bytes |");
    println!("|---|---|");
    println!("| store after the first run | {after_first} |");
    println!("| per item after the first run | {per_item:.0} |");
    println!(
        "| added by a run in which all {size} items changed only reactions | {} |",
        after_second - after_first
    );
    println!(
        "| added per changed item | {added:.0} ({:.1}% of the body) |",
        added * 100.0 / BODY as f64
    );
}

/// The store file plus its WAL.
fn file_bytes(db: &Path) -> u64 {
    let wal = db.with_extension("db-wal");
    [db.to_path_buf(), wal]
        .iter()
        .filter_map(|f| std::fs::metadata(f).ok())
        .map(|m| m.len())
        .sum()
}

fn ms(d: Duration) -> String {
    format!("{} ms", d.as_millis())
}

fn env_or(name: &str, default: usize) -> usize {
    std::env::var(name)
        .ok()
        .and_then(|v| v.parse().ok())
        .unwrap_or(default)
}
