//! Storage growth of the store, measured on the real binary against the
//! loopback test host: `cargo bench -p signals --bench storage` (sizes are
//! byte counts and do not depend on the build profile, so
//! `--profile dev` gives the same table without a release build).
//!
//! The scenario: one synthetic repository of 1,000 issues and pull requests.
//! Run 1 is a first run with backfill (every item is stored). Then 24
//! hourly-like runs follow, each after 10 items got a comment (so each
//! records 10 `changed` events and 10 new snapshots), and finally 3 runs with
//! nothing changed. After each run the store file (and its WAL, if any) is
//! measured; the table prints the growth per run. The HTTP cache lives in
//! the same file and is counted.

use std::path::{Path, PathBuf};
use std::process::Command;

use jiff::{SignedDuration, Timestamp};
use serde_json::Value;
use signals_testhost::{TestHost, synthetic};

const REPO: &str = "bench/store";
const ITEMS: usize = 1000;
const BUSY_RUNS: usize = 24;
const CHANGED: usize = 10;
const IDLE_RUNS: usize = 3;

fn main() {
    let now = Timestamp::now();
    let start = now - SignedDuration::from_hours(24 * 30);
    let mut scenario = synthetic(REPO, ITEMS, start);
    let host = TestHost::start(scenario.clone()).expect("the test host starts");
    let dir = PathBuf::from(env!("CARGO_TARGET_TMPDIR"))
        .join(format!("bench-storage-{}", std::process::id()));
    std::fs::remove_dir_all(&dir).ok();
    std::fs::create_dir_all(&dir).unwrap();
    std::fs::write(
        dir.join("signals.toml"),
        format!(
            "backfill_days = 60\n\n[host]\napi_url = \"{}\"\n\n[[groups]]\nid = \"bench\"\nname = \"Bench\"\nrepos = [\"{REPO}\"]\n",
            host.base_url()
        ),
    )
    .unwrap();

    let mut rows: Vec<(String, u64, u64)> = Vec::new();
    let mut run = |label: String, want: u64| {
        let out = signals(&dir, &["collect", "--json"]);
        assert!(out.status.success(), "collect failed: {out:?}");
        let summary: Value = serde_json::from_slice(&out.stdout).unwrap();
        let changed = summary["repositories"][0]["changedCount"].as_u64().unwrap();
        // Every change must be seen (a full last page answered 304 once
        // hid new items).
        assert_eq!(changed, want, "{label}: {summary}");
        rows.push((label, changed, store_bytes(&dir)));
    };
    run("1: first run (backfill)".into(), ITEMS as u64 + 1);
    for r in 0..BUSY_RUNS {
        let data = scenario.repos.get_mut(REPO).unwrap();
        let stamp = fmt(Timestamp::now());
        for i in 0..CHANGED {
            let entry = &mut data.issues[(r * CHANGED + i * 97) % ITEMS];
            entry["updated_at"] = Value::from(stamp.clone());
            entry["comments"] = Value::from(entry["comments"].as_u64().unwrap() + 1);
        }
        host.set_scenario(scenario.clone());
        run(
            format!("{}: {CHANGED} items commented", r + 2),
            CHANGED as u64,
        );
    }
    for r in 0..IDLE_RUNS {
        run(format!("{}: nothing changed", BUSY_RUNS + 2 + r), 0);
    }

    println!("\none repository of {ITEMS} items; store size after each run\n");
    println!("| run | events recorded | store (KiB) | growth (bytes) |");
    println!("|---|---|---|---|");
    let mut previous = 0;
    for (label, changed, bytes) in &rows {
        println!(
            "| {label} | {changed} | {} | {} |",
            bytes.div_ceil(1024),
            if previous == 0 {
                "-".to_string()
            } else {
                (*bytes as i64 - previous as i64).to_string()
            }
        );
        previous = *bytes;
    }
    let first = rows[0].2;
    let busy_end = rows[BUSY_RUNS].2;
    let idle_end = rows[BUSY_RUNS + IDLE_RUNS].2;
    println!(
        "\nfirst run: {} bytes per item; busy runs: {} bytes per run ({} per changed item); idle runs: {} bytes per run",
        first / ITEMS as u64,
        (busy_end - first) / BUSY_RUNS as u64,
        (busy_end - first) / (BUSY_RUNS * CHANGED) as u64,
        (idle_end - busy_end) / IDLE_RUNS as u64,
    );
    std::fs::remove_dir_all(&dir).ok();
}

/// The store file plus its WAL (SQLite checkpoints the WAL into the file when
/// the last connection closes, so after a run it is usually gone).
fn store_bytes(dir: &Path) -> u64 {
    ["signals.db", "signals.db-wal"]
        .iter()
        .filter_map(|f| std::fs::metadata(dir.join(f)).ok())
        .map(|m| m.len())
        .sum()
}

fn fmt(ts: Timestamp) -> String {
    ts.strftime("%Y-%m-%dT%H:%M:%SZ").to_string()
}

/// Runs the `signals` under test in `dir`, with no token and no
/// `SIGNALS_*` variable from the caller's environment.
fn signals(dir: &Path, args: &[&str]) -> std::process::Output {
    let mut cmd = Command::new(env!("CARGO_BIN_EXE_signals"));
    cmd.current_dir(dir).args(args);
    for (k, _) in std::env::vars() {
        if k.starts_with("SIGNALS_") || k.starts_with("GITHUB_") {
            cmd.env_remove(k);
        }
    }
    cmd.output().expect("the signals binary runs")
}
