//! Alerts: `cargo bench -p signals --bench notify`.
//!
//! 1. A run with 300 matching events across 3 rules (every item; issues;
//!    pull requests): the messages its commit carries (one per rule, 20
//!    signals listed, the rest counted), the time to account the run, make
//!    the messages and commit them with it, and the wall time of
//!    `signals notify` delivering them to a loopback receiver.
//! 2. 1,000 and 10,000 pending messages delivered by one `signals notify`
//!    (release build, under `/usr/bin/time`) to a loopback receiver that
//!    answers at once: wall time, messages per second, and peak RSS, which
//!    must stay flat (the outbox is read one message at a time).
//!
//! It panics when a message is not delivered exactly once.

#[path = "../tests/it/receiver.rs"]
mod receiver;
#[path = "../tests/it/synth.rs"]
mod synth;

use std::path::Path;
use std::process::Command;
use std::time::Instant;

use jiff::{SignedDuration, Timestamp};
use signals_core::notify::{Rule, RuleRef};
use signals_store::Backend;
use signals_store_sqlite::Store;

use receiver::{Answer, Receiver, commit_alerting, fill};

fn config(dir: &Path, rules: &[&str], url: &str) {
    let mut text = String::from(
        "store = \"signals.db\"\n\n[[groups]]\nid = \"g\"\nname = \"Synthetic\"\nrepos = [\"o/r0\"]\n",
    );
    for r in rules {
        text.push_str(&format!(
            "\n[[notify]]\nname = \"{r}\"\nkind = \"webhook\"\nurl = \"{url}/{r}\"\n"
        ));
    }
    std::fs::write(dir.join("signals.toml"), text).unwrap();
}

/// `signals notify --wait 0s` under `/usr/bin/time`: wall seconds, peak
/// RSS in KiB, and its report line.
fn timed_notify(dir: &Path) -> (f64, u64, String) {
    let out = Command::new("/usr/bin/time")
        .current_dir(dir)
        .args(["-f", "%e %M", env!("CARGO_BIN_EXE_signals")])
        .args(["notify", "--wait", "0s"])
        .output()
        .expect("/usr/bin/time runs (Debian package `time`)");
    assert!(out.status.success(), "notify failed: {out:?}");
    let stderr = String::from_utf8_lossy(&out.stderr);
    let mut parts = stderr.lines().last().unwrap_or_default().split_whitespace();
    (
        parts
            .next()
            .and_then(|w| w.parse().ok())
            .unwrap_or(f64::NAN),
        parts.next().and_then(|m| m.parse().ok()).unwrap_or(0),
        String::from_utf8_lossy(&out.stdout).trim().to_string(),
    )
}

fn tmp(name: &str) -> std::path::PathBuf {
    let dir = Path::new(env!("CARGO_TARGET_TMPDIR")).join(format!("bench-notify-{name}"));
    let _ = std::fs::remove_dir_all(&dir);
    std::fs::create_dir_all(&dir).unwrap();
    dir
}

fn three_hundred_events() {
    let rx = Receiver::start(|_, _| Answer::Ok);
    let dir = tmp("300");
    let mut store = Store::open(dir.join("signals.db")).unwrap();
    let at = Timestamp::now() - SignedDuration::from_mins(5);
    let observed: Vec<_> = (0..300).map(|k| synth::item(0, k, 400, at)).collect();
    let names = ["all", "issues", "pulls"];
    let mut rules: Vec<Rule> = names.iter().map(|n| Rule::any(n)).collect();
    rules[1].kinds = vec![signals_core::ItemKind::Issue];
    rules[2].kinds = vec![signals_core::ItemKind::PullRequest];
    for r in &mut rules {
        r.include_bots = true;
    }
    let refs: Vec<RuleRef<'_>> = rules
        .iter()
        .map(|rule| RuleRef { rule, held: false })
        .collect();
    // Making the messages and committing them with the run, as the
    // pipeline does.
    let started = Instant::now();
    let out = commit_alerting(
        &mut store,
        0,
        at,
        observed,
        &refs,
        Some("https://signals.example/g/r0/index.html"),
    );
    let events = 300;
    let listed: usize = out.iter().map(|m| m.payload.signals.len()).sum();
    let more: u64 = out.iter().map(|m| m.payload.more).sum();
    let n = out.len();
    let committed = started.elapsed();
    drop(store);
    config(&dir, &names, &rx.url);
    let (wall, _, said) = timed_notify(&dir);
    assert_eq!(rx.hits().len(), n, "{said}");
    println!(
        "| events | rules | messages | signals listed | counted in \"more\" | account + messages + commit | `signals notify` wall |"
    );
    println!("|---|---|---|---|---|---|---|");
    println!(
        "| {events} | 3 | {n} | {listed} | {more} | {:.0} ms | {wall:.2} s |",
        committed.as_secs_f64() * 1000.0
    );
    let _ = std::fs::remove_dir_all(&dir);
}

fn pending(count: usize) -> (f64, u64) {
    let rx = Receiver::start(|_, _| Answer::Ok);
    let dir = tmp(&count.to_string());
    {
        let mut store = Store::open(dir.join("signals.db")).unwrap();
        // 5 runs per repository, one message each.
        let ids = fill(
            &mut store as &mut dyn Backend,
            count / 5,
            5,
            &[("hook", false)],
        );
        assert_eq!(ids.len(), count);
    }
    config(&dir, &["hook"], &rx.url);
    let (wall, rss, said) = timed_notify(&dir);
    let by = rx.by_delivery();
    assert_eq!(by.len(), count, "{said}");
    assert!(
        by.values().all(|h| h.len() == 1),
        "a message was sent twice"
    );
    let _ = std::fs::remove_dir_all(&dir);
    (wall, rss)
}

fn main() {
    three_hundred_events();
    println!();
    println!("| pending messages | `signals notify` wall | messages per second | peak RSS |");
    println!("|---|---|---|---|");
    for count in [1_000, 10_000] {
        let (wall, rss) = pending(count);
        println!(
            "| {count} | {wall:.1} s | {:.0} | {:.1} MiB |",
            count as f64 / wall,
            rss as f64 / 1024.0
        );
    }
}
