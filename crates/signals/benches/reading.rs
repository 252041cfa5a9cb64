//! The reading side at scale: `cargo bench -p signals --bench reading`,
//! figures for docs/performance/reading.md. Stores are generated through the
//! store API (`tests/it/synth.rs`), each item with as many stored
//! comments as its count says (0 to 12), so first responses are computed
//! from real replies.
//!
//! 1. `signals export` of one repository of 2,000 items and of one of
//!    20,000: wall time and peak RSS of the release binary under
//!    `/usr/bin/time`, and the ratio of the two peaks (the export keeps a
//!    few compact arrays per item, so it stays near 1).
//! 2. The signals list of `signals serve` side by side with Datasette on
//!    the same 30,000 signals: the filtered list (`state=open&label=bug`,
//!    newest first) and page 20 of the closed items, asked by 4 clients
//!    on keep-alive connections: requests per second and the p50 of a
//!    request. Datasette (`datasette` on the PATH, `pip install
//!    datasette`) serves a table of the same items, one row each, labels
//!    as a JSON array (`labels__arraycontains=bug`), indexed on `state`
//!    and `updated_at`; page 20 is reached by its `_next` token, as its
//!    keyset pages are.
//!
//! `SIGNALS_READING_EXPORT=2000,20000` and `SIGNALS_READING_LIST=30000`
//! choose the sizes (an empty value skips the table);
//! `SIGNALS_READING_SECS=10` how long each load runs;
//! `SIGNALS_READING_KEEP=1` keeps the stores (under
//! `target/tmp/bench-reading`) for a closer look, and the list's next
//! run reads the one it kept rather than building it again.

// The keep-alive client; its `throughput` (for `api` and `search`) is not
// used here, where each request's time is kept too.
#[allow(dead_code)]
#[path = "support/client.rs"]
mod client;
#[path = "../tests/it/synth.rs"]
mod synth;
#[path = "support/timed.rs"]
mod timed;

use std::net::TcpStream;
use std::path::{Path, PathBuf};
use std::process::{Child, Command, Stdio};
use std::time::{Duration, Instant};

use client::Client;
use jiff::{SignedDuration, Timestamp};
use signals_core::{Comment, CommentKind, ItemSnapshot, Source};
use signals_store::{CommentStore, RunWrites};
use signals_store_sqlite::Store;

const BODY: usize = 1000;
const CLIENTS: usize = 4;

fn sizes(name: &str, default: &str) -> Vec<usize> {
    std::env::var(name)
        .unwrap_or_else(|_| default.into())
        .split(',')
        .filter(|n| !n.trim().is_empty())
        .map(|n| n.trim().parse().expect("a list of numbers"))
        .collect()
}

fn at() -> Timestamp {
    "2026-11-20T10:00:00Z".parse().unwrap()
}

/// The items of the bench's repository, `1..=items`.
fn items(count: usize) -> impl Iterator<Item = ItemSnapshot> {
    (1..=count).map(|k| synth::item(0, k, BODY, at()))
}

/// Item `item`'s comments: as many as its count, an hour apart from its
/// creation, by other accounts than its author.
fn comments_of(k: usize, item: &ItemSnapshot) -> Vec<(String, Comment)> {
    let id = item.id(Source::Github);
    (0..item.metrics.comments as usize)
        .map(|c| {
            let written = item.created_at + SignedDuration::from_hours(1 + c as i64);
            let comment = Comment {
                kind: CommentKind::Comment,
                host_id: format!("{k}-{c}"),
                item_kind: item.kind(),
                item_key: item.key.clone(),
                author: format!("user{}", (k + c + 1) % 50),
                association: Some("MEMBER".into()),
                bot: false,
                state: None,
                created_at: written,
                updated_at: written,
                body: format!("Comment {c} on item {k}: seen it here too."),
            };
            (id.clone(), comment)
        })
        .collect()
}

/// A store in `dir` with one repository (`g/r0`) of `count` items, in
/// runs of 10,000 a second apart, and their comments.
fn store(dir: &Path, count: usize) {
    std::fs::remove_dir_all(dir).ok();
    std::fs::create_dir_all(dir).unwrap();
    let mut store = Store::open(dir.join("signals.db")).unwrap();
    let key = store
        .ensure_repository(&synth::group(), &synth::tracked(0))
        .unwrap();
    let all: Vec<ItemSnapshot> = items(count).collect();
    for (i, run) in all.chunks(10_000).enumerate() {
        let stamp = at() + SignedDuration::from_secs(i as i64);
        synth::commit(&mut store, key, 0, stamp, run.to_vec());
    }
    let mut comments = Vec::new();
    for (k, item) in all.iter().enumerate() {
        comments.extend(comments_of(k + 1, item));
        if comments.len() >= 5_000 {
            store.store_comments(key, &comments).unwrap();
            comments.clear();
        }
    }
    store.store_comments(key, &comments).unwrap();
}

/// Table 1: the export's wall time and peak RSS by repository size.
fn export_table(base: &Path, counts: &[usize]) {
    println!("## `signals export` of one repository, comments included\n");
    println!("| items | wall | peak RSS | what it said |");
    println!("|---:|---:|---:|---|");
    let mut peaks = Vec::new();
    for &count in counts {
        let dir = base.join(format!("export-{count}"));
        store(&dir, count);
        let t = timed::timed_export(&dir);
        println!(
            "| {count} | {:.2} s | {:.1} MiB | {} |",
            t.wall,
            t.rss_kib as f64 / 1024.0,
            t.said
        );
        peaks.push((count, t.rss_kib as f64));
        if std::env::var_os("SIGNALS_READING_KEEP").is_none() {
            std::fs::remove_dir_all(&dir).ok();
        }
    }
    if let (Some(small), Some(big)) = (peaks.first(), peaks.last())
        && peaks.len() > 1
    {
        println!(
            "\nPeak RSS at {} items / at {} = {:.2}×\n",
            big.0,
            small.0,
            big.1 / small.1
        );
    }
}

/// A server the bench started, stopped (SIGTERM) on drop.
struct Served(Child);

impl Drop for Served {
    fn drop(&mut self) {
        // SAFETY: kill(2) on our own child's pid.
        unsafe { libc::kill(self.0.id() as libc::pid_t, libc::SIGTERM) };
        let _ = self.0.wait();
    }
}

fn free_port() -> u16 {
    std::net::TcpListener::bind("127.0.0.1:0")
        .unwrap()
        .local_addr()
        .unwrap()
        .port()
}

fn wait_for(port: u16, child: &mut Child, what: &str) {
    let started = Instant::now();
    while TcpStream::connect(("127.0.0.1", port)).is_err() {
        if let Ok(Some(status)) = child.try_wait() {
            panic!("{what} stopped ({status})");
        }
        assert!(
            started.elapsed() < Duration::from_secs(600),
            "{what} did not start"
        );
        std::thread::sleep(Duration::from_millis(50));
    }
}

/// `signals serve` on `dir`'s store; the API answers at once.
fn serve(dir: &Path) -> (Served, u16) {
    let port = free_port();
    let mut child = Command::new(env!("CARGO_BIN_EXE_signals"))
        .current_dir(dir)
        .args([
            "serve",
            "--store",
            "signals.db",
            "--port",
            &port.to_string(),
        ])
        .env("TMPDIR", dir)
        .stdout(Stdio::null())
        .stderr(std::fs::File::create(dir.join("serve.log")).unwrap())
        .spawn()
        .unwrap();
    wait_for(port, &mut child, "serve");
    (Served(child), port)
}

/// The same items as one table Datasette serves (`reading.db`).
fn datasette_db(dir: &Path, count: usize) -> PathBuf {
    let path = dir.join("reading.db");
    std::fs::remove_file(&path).ok();
    let mut conn = rusqlite::Connection::open(&path).unwrap();
    conn.execute_batch(
        "CREATE TABLE signals (id TEXT PRIMARY KEY, title TEXT, state TEXT, labels TEXT,
                               author TEXT, updated_at TEXT, reactions INTEGER, comments INTEGER);
         CREATE INDEX signals_state ON signals (state);
         CREATE INDEX signals_updated ON signals (updated_at);",
    )
    .unwrap();
    let tx = conn.transaction().unwrap();
    for item in items(count) {
        tx.execute(
            "INSERT INTO signals VALUES (?1, ?2, ?3, ?4, ?5, ?6, ?7, ?8)",
            rusqlite::params![
                item.id(Source::Github),
                item.title,
                item.state.as_str(),
                serde_json::to_string(&item.labels).unwrap(),
                item.author,
                item.updated_at.to_string(),
                item.metrics.reactions as i64,
                item.metrics.comments as i64,
            ],
        )
        .unwrap();
    }
    tx.commit().unwrap();
    path
}

/// `clients` threads asking `target` on their own keep-alive connections
/// for `time`: requests per second and the p50 of a request, in ms.
fn load(port: u16, target: &str, time: Duration) -> (f64, f64) {
    let end = Instant::now() + time;
    let handles: Vec<_> = (0..CLIENTS)
        .map(|_| {
            let target = target.to_string();
            std::thread::spawn(move || {
                let mut client = Client::connect(port);
                let mut times = Vec::new();
                while Instant::now() < end {
                    let t = Instant::now();
                    let (status, _) = client.get(&target);
                    assert_eq!(status, 200, "{target}");
                    times.push(t.elapsed().as_secs_f64() * 1000.0);
                }
                times
            })
        })
        .collect();
    let mut times: Vec<f64> = handles
        .into_iter()
        .flat_map(|h| h.join().unwrap())
        .collect();
    times.sort_by(f64::total_cmp);
    let p50 = times.get(times.len() / 2).copied().unwrap_or(f64::NAN);
    (times.len() as f64 / time.as_secs_f64(), p50)
}

fn row(who: &str, what: &str, port: u16, target: &str, time: Duration) {
    // One request first: what a cold index or cache costs is not measured.
    let (status, body) = Client::connect(port).get(target);
    assert_eq!(
        status,
        200,
        "{target}: {}",
        String::from_utf8_lossy(&body[..body.len().min(200)])
    );
    let (rate, p50) = load(port, target, time);
    println!(
        "| {who} | {what} | {rate:.0} | {p50:.2} ms | {} |",
        body.len()
    );
}

/// Datasette's `_next` token of page `page` of `target`.
fn datasette_page(port: u16, target: &str, page: usize) -> String {
    let mut client = Client::connect(port);
    let mut next: Option<String> = None;
    for _ in 1..page {
        let asked = match &next {
            Some(token) => format!("{target}&_next={token}"),
            None => target.to_string(),
        };
        let (status, body) = client.get(&asked);
        assert_eq!(status, 200, "{asked}");
        let value: serde_json::Value = serde_json::from_slice(&body).unwrap();
        next = value["next"].as_str().map(percent);
    }
    match next {
        Some(token) => format!("{target}&_next={token}"),
        None => target.to_string(),
    }
}

fn percent(text: &str) -> String {
    text.bytes()
        .map(|b| match b {
            b'A'..=b'Z' | b'a'..=b'z' | b'0'..=b'9' | b'-' | b'_' | b'.' | b'~' => {
                (b as char).to_string()
            }
            _ => format!("%{b:02X}"),
        })
        .collect()
}

/// Table 2: the list side by side with Datasette.
fn list_table(base: &Path, count: usize, time: Duration) {
    let dir = base.join(format!("list-{count}"));
    let keep = std::env::var_os("SIGNALS_READING_KEEP").is_some();
    if !(keep && dir.join("signals.db").exists()) {
        store(&dir, count);
    }
    println!(
        "## The signals list at {count} signals, {CLIENTS} clients on keep-alive connections, {} s each\n",
        time.as_secs()
    );
    println!("| server | request | requests/s | p50 | bytes |");
    println!("|---|---|---:|---:|---:|");
    let (served, port) = serve(&dir);
    let api = "/api/repos/g/r0/signals";
    row(
        "signals serve",
        "filtered list",
        port,
        &format!("{api}?state=open&label=bug&sort=updated"),
        time,
    );
    row(
        "signals serve",
        "page 20 of the closed items",
        port,
        &format!("{api}?state=closed&sort=updated&page=20"),
        time,
    );
    drop(served);
    if Command::new("datasette").arg("--version").output().is_err() {
        println!("| Datasette | not installed (`pip install datasette`) | | | |");
        return;
    }
    let db = datasette_db(&dir, count);
    let port = free_port();
    let mut child = Command::new("datasette")
        .args(["serve", "--port", &port.to_string()])
        .arg(&db)
        .current_dir(&dir)
        .stdout(Stdio::null())
        .stderr(Stdio::null())
        .spawn()
        .unwrap();
    wait_for(port, &mut child, "datasette");
    let _datasette = Served(child);
    let table = "/reading/signals.json?_size=50&_sort_desc=updated_at";
    row(
        "Datasette",
        "filtered list",
        port,
        &format!("{table}&state=open&labels__arraycontains=bug"),
        time,
    );
    let closed = datasette_page(port, &format!("{table}&state=closed"), 20);
    row(
        "Datasette",
        "page 20 of the closed items",
        port,
        &closed,
        time,
    );
    if !keep {
        std::fs::remove_dir_all(&dir).ok();
    }
}

fn main() {
    let base = PathBuf::from(env!("CARGO_TARGET_TMPDIR")).join("bench-reading");
    std::fs::create_dir_all(&base).unwrap();
    let secs: u64 = std::env::var("SIGNALS_READING_SECS")
        .ok()
        .map(|s| s.parse().expect("SIGNALS_READING_SECS: seconds"))
        .unwrap_or(10);
    let exports = sizes("SIGNALS_READING_EXPORT", "2000,20000");
    if !exports.is_empty() {
        export_table(&base, &exports);
    }
    for count in sizes("SIGNALS_READING_LIST", "30000") {
        list_table(&base, count, Duration::from_secs(secs));
    }
}
