//! The figure for the page's filter: `cargo bench -p signals --bench
//! filter`, then the table goes into docs/performance.md. A repository of
//! 1,000 and one of 100,000 items (bodies of 1,000 bytes, as in `api`) is
//! generated through the store API (`tests/it/synth.rs`) and exported by
//! the release binary; the table gives what the script downloads at the
//! first filter action (`signals.json` and the first text part) and at the
//! first text query (every text part), uncompressed and gzipped.
//!
//! `SIGNALS_FILTER_BIG=100000` chooses the big size.

#[path = "support/index_bytes.rs"]
mod index_bytes;
#[path = "../tests/it/synth.rs"]
mod synth;
#[path = "support/timed.rs"]
mod timed;

use std::path::{Path, PathBuf};

use jiff::{SignedDuration, Timestamp};
use signals_store::RunWrites;
use signals_store_sqlite::Store;

const BODY: usize = 1000;

/// A store in `dir` with one repository of `items` items, committed in runs
/// of 10,000, then a run in which 2% gained a reaction.
fn store(dir: &Path, items: usize) {
    std::fs::remove_dir_all(dir).ok();
    std::fs::create_dir_all(dir).unwrap();
    let mut store = Store::open(dir.join("signals.db")).unwrap();
    let t1: Timestamp = "2026-11-20T10:00:00Z".parse().unwrap();
    let key = store
        .ensure_repository(&synth::group(), &synth::tracked(0))
        .unwrap();
    for (i, start) in (1..=items).step_by(10_000).enumerate() {
        let observed = (start..(start + 10_000).min(items + 1))
            .map(|k| synth::item(0, k, BODY, t1))
            .collect();
        synth::commit(
            &mut store,
            key,
            0,
            t1 + SignedDuration::from_secs(i as i64),
            observed,
        );
    }
    synth::bump(
        &mut store,
        key,
        0,
        items / 50,
        BODY,
        t1,
        t1 + SignedDuration::from_hours(2),
    );
}

/// Bytes of the files gzipped one by one (`gzip -c`, the default level),
/// as a server compressing each response would send them.
fn gzipped(dir: &Path, names: &[String]) -> u64 {
    names
        .iter()
        .map(|name| {
            let out = std::process::Command::new("gzip")
                .arg("-c")
                .arg(dir.join(name))
                .output()
                .expect("gzip runs");
            assert!(out.status.success());
            out.stdout.len() as u64
        })
        .sum()
}

fn main() {
    let big: usize = std::env::var("SIGNALS_FILTER_BIG")
        .ok()
        .map(|n| n.parse().expect("SIGNALS_FILTER_BIG: a number"))
        .unwrap_or(100_000);
    let base = PathBuf::from(env!("CARGO_TARGET_TMPDIR")).join("bench-filter");
    println!("## The page's filter index by repository size (bodies of {BODY} bytes)\n");
    println!(
        "| signals | export wall | peak RSS | `signals.json` | first filter action | gzipped | first text query (text parts) | gzipped |"
    );
    println!("|---:|---:|---:|---:|---:|---:|---:|---:|");
    for items in [1_000, big] {
        let dir = base.join(format!("one-{items}"));
        store(&dir, items);
        let t = timed::timed_export(&dir);
        assert!(t.said.starts_with("exported 1 "), "{}", t.said);
        let repo = dir.join("site/g/r0");
        let b = index_bytes::index_bytes(&repo);
        let core: serde_json::Value =
            serde_json::from_slice(&std::fs::read(repo.join("signals.json")).unwrap()).unwrap();
        let texts: Vec<String> = core["texts"]
            .as_array()
            .unwrap()
            .iter()
            .map(|t| t.as_str().unwrap().to_string())
            .collect();
        let mut first = vec!["signals.json".to_string()];
        first.extend(texts.first().cloned());
        let mut all = vec!["signals.json".to_string()];
        all.extend(texts.iter().cloned());
        let mb = |b: u64| b as f64 / 1e6;
        println!(
            "| {items} | {:.2} s | {:.1} MiB | {:.2} MB | {:.2} MB | {:.2} MB | {:.2} MB ({}) | {:.2} MB |",
            t.wall,
            t.rss_kib as f64 / 1024.0,
            mb(b.core),
            mb(b.first),
            mb(gzipped(&repo, &first)),
            mb(b.text_query),
            b.parts,
            mb(gzipped(&repo, &all)),
        );
        std::fs::remove_dir_all(&dir).ok();
    }
}
