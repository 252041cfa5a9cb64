//! Issue 28's figures for the static site's search: `cargo bench -p
//! signals --bench site_search` (the table goes into docs/performance.md).
//! A repository of 10,000 and one of 100,000 generated items (a Zipf
//! vocabulary of 50,000 words, titles of 3 to 12 words, bodies of 10 to
//! 200: `tests/it/wordy.rs`) is indexed, exported, served by a loopback
//! static server that logs each file it sends, and opened in headless
//! Chromium with `?q=<word>` for the most common word and a rare one, each
//! in a fresh profile (nothing cached). The table gives the index's size
//! per signal, the bytes the page fetched of the index and of result text,
//! and the time to the first results: the wall time of a cold headless
//! Chromium run of `?q=<word>` until the page is idle (browser start,
//! page load, the index's fetches, the search, the results in the DOM),
//! beside that of the same page without a query, best of 3 each.
//!
//! `SIGNALS_SEARCH_BIG=100000` chooses the big size. Needs Chromium.

#[path = "../tests/it/synth.rs"]
mod synth;
#[path = "../tests/it/wordy.rs"]
mod wordy;

use std::io::{BufRead, BufReader, Write};
use std::net::{TcpListener, TcpStream};
use std::path::{Path, PathBuf};
use std::process::Command;
use std::sync::{Arc, Mutex};

use jiff::{SignedDuration, Timestamp};
use signals_store::RunWrites;
use signals_store_sqlite::Store;

const VOCAB: usize = 50_000;

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
            .map(|k| wordy::wordy(k, VOCAB, t1))
            .collect();
        let at = t1 + SignedDuration::from_secs(i as i64);
        synth::commit(&mut store, key, 0, at, observed);
    }
    signals_store::search::catch_up(&mut store, key).unwrap();
}

/// The requests a static server answered: each path with the bytes of its
/// body.
type Fetched = Arc<Mutex<Vec<(String, u64)>>>;

/// A static server on loopback: every file under `root`, each request
/// logged with the bytes of its body.
fn serve(root: PathBuf) -> (String, Fetched) {
    let listener = TcpListener::bind("127.0.0.1:0").unwrap();
    let url = format!("http://{}", listener.local_addr().unwrap());
    let log = Arc::new(Mutex::new(Vec::new()));
    let log2 = log.clone();
    std::thread::spawn(move || {
        for conn in listener.incoming().flatten() {
            let (root, log) = (root.clone(), log2.clone());
            std::thread::spawn(move || answer(&root, conn, &log));
        }
    });
    (url, log)
}

fn answer(root: &Path, mut conn: TcpStream, log: &Mutex<Vec<(String, u64)>>) {
    let mut reader = BufReader::new(conn.try_clone().unwrap());
    loop {
        let mut line = String::new();
        if reader.read_line(&mut line).unwrap_or(0) == 0 {
            return;
        }
        let path = line.split(' ').nth(1).unwrap_or("/").to_string();
        loop {
            let mut h = String::new();
            if reader.read_line(&mut h).unwrap_or(0) == 0 || h == "\r\n" {
                break;
            }
        }
        let rel = path.split('?').next().unwrap().trim_start_matches('/');
        let file = root.join(rel);
        let body = if rel.split('/').any(|s| s == "..") {
            None
        } else {
            std::fs::read(&file).ok()
        };
        let (status, body) = match body {
            Some(b) => ("200 OK", b),
            None => ("404 Not Found", Vec::new()),
        };
        let kind = match file.extension().and_then(|e| e.to_str()) {
            Some("html") => "text/html; charset=utf-8",
            Some("js") => "text/javascript",
            Some("css") => "text/css",
            Some("json") => "application/json",
            _ => "application/octet-stream",
        };
        log.lock().unwrap().push((path.clone(), body.len() as u64));
        let head = format!(
            "HTTP/1.1 {status}\r\nContent-Type: {kind}\r\nContent-Length: {}\r\n\r\n",
            body.len()
        );
        if conn.write_all(head.as_bytes()).is_err() || conn.write_all(&body).is_err() {
            return;
        }
    }
}

/// Opens `url` in a fresh headless Chromium until the page is idle; the
/// wall time of the whole run and the page's status line.
fn open(scratch: &Path, url: &str) -> (f64, String) {
    let profile = scratch.join("profile");
    std::fs::remove_dir_all(&profile).ok();
    let start = std::time::Instant::now();
    let out = Command::new("chromium")
        .args([
            "--headless",
            "--no-sandbox",
            "--disable-gpu",
            "--no-first-run",
            "--disable-background-networking",
            "--virtual-time-budget=10000",
            &format!("--user-data-dir={}", profile.display()),
            "--dump-dom",
            url,
        ])
        .output()
        .expect("chromium runs");
    let wall = start.elapsed().as_secs_f64() * 1000.0;
    let dom = String::from_utf8_lossy(&out.stdout).to_string();
    let status = dom
        .split("class=\"filter-status\"")
        .nth(1)
        .and_then(|r| r.split('>').nth(1))
        .and_then(|r| r.split('<').next())
        .unwrap_or("")
        .to_string();
    (wall, status)
}

fn size(dir: &Path, prefix: &str) -> u64 {
    std::fs::read_dir(dir)
        .unwrap()
        .flatten()
        .filter(|e| e.file_name().to_string_lossy().starts_with(prefix))
        .map(|e| e.metadata().unwrap().len())
        .sum()
}

fn main() {
    let big: usize = std::env::var("SIGNALS_SEARCH_BIG")
        .ok()
        .map(|n| n.parse().expect("SIGNALS_SEARCH_BIG: a number"))
        .unwrap_or(100_000);
    let base = PathBuf::from(env!("CARGO_TARGET_TMPDIR")).join("bench-site-search");
    println!("## Search in the static site: a first query in headless Chromium\n");
    println!(
        "| signals | index per signal (words / positions / ranks+places / cards) | query | matches | index fetched | result text fetched | cold Chromium run to results shown |"
    );
    println!("|---:|---|---|---|---:|---:|---:|");
    for items in [10_000, big] {
        let dir = base.join(format!("one-{items}"));
        store(&dir, items);
        let out = Command::new(env!("CARGO_BIN_EXE_signals"))
            .args(["export", "--store", "signals.db", "--out", "site"])
            .current_dir(&dir)
            .output()
            .unwrap();
        assert!(
            out.status.success(),
            "{}",
            String::from_utf8_lossy(&out.stderr)
        );
        let repo = dir.join("site/g/r0");
        let s = repo.join("search");
        let per = |b: u64| b as f64 / items as f64;
        let sizes = format!(
            "{:.0} B / {:.0} B / {:.0} B / {:.0} B",
            per(size(&s, "w-")),
            per(size(&s, "p-")),
            per(size(&s, "r-") + size(&s, "o-")),
            per(size(&s, "t-"))
        );
        let (url, log) = serve(dir.join("site"));
        // The same page without a query: Chromium's start and the page's
        // own load, for comparison (best of 3 each).
        let best = |u: &str| {
            (0..3)
                .map(|_| open(&dir, u))
                .min_by(|a, b| a.0.total_cmp(&b.0))
                .unwrap()
        };
        let (plain, _) = best(&format!("{url}/g/r0/index.html"));
        for (q, what) in [
            (wordy::word(0), "most common"),
            (wordy::word(VOCAB / 3), "rare"),
        ] {
            let from = log.lock().unwrap().len();
            // The first run's bytes (a fresh profile every run: nothing
            // cached), the best of 3 runs' time.
            let (first, status) = open(&dir, &format!("{url}/g/r0/index.html?q={q}"));
            let sent: Vec<(String, u64)> = log.lock().unwrap()[from..].to_vec();
            let (again, _) = best(&format!("{url}/g/r0/index.html?q={q}"));
            let wall = first.min(again);
            let of = |f: &dyn Fn(&str) -> bool| -> u64 {
                sent.iter().filter(|(p, _)| f(p)).map(|(_, b)| b).sum()
            };
            let text = of(&|p| p.contains("/search/t-"));
            let index = of(&|p| p.contains("/search/") || p.ends_with("/search.json")) - text;
            assert!(
                !sent.iter().any(|(p, _)| p.ends_with("signals.json")),
                "a query alone reads no filter index"
            );
            println!(
                "| {items} | {sizes} | {what} (`{q}`) | {} | {:.0} KB | {:.0} KB | {} |",
                status.split(" signal").next().unwrap_or("?"),
                index as f64 / 1000.0,
                text as f64 / 1000.0,
                if status.contains("match") {
                    format!("{wall:.0} ms (page alone {plain:.0} ms)")
                } else {
                    format!("not shown ({status})")
                },
            );
        }
        std::fs::remove_dir_all(&dir).ok();
    }
}
