//! The figures for text search: `cargo bench -p signals --bench
//! search`, then the tables go into docs/performance.md.
//!
//! A repository of 10,000 and one of 100,000 items (`SIGNALS_SEARCH_BIG`
//! chooses the big size) is generated through the store API: titles of
//! 6-10 words and bodies of 80-150 words drawn from a Zipf distribution
//! over 20,000 words (as natural text is), 10% of bodies saying "out of
//! memory", 1% naming `CUDA_VISIBLE_DEVICES`. Each is indexed as
//! `signals collect` does (after each run of 10,000 items), then served by
//! the release binary on loopback, on SQLite and on PostgreSQL (the same
//! items committed the same way through its store, when the server's
//! programs are installed).
//!
//! 1. p50 and p99 of 200 first-page requests per query: the most common
//!    word, a rare word, two words, a phrase, a one-letter word, a prefix.
//! 2. Throughput of the most common word with 1 client and with 8.
//! 3. Beside them, on the same texts: a plain FTS5 table (`unicode61`,
//!    bm25 with the title weighted 3, the first 50 and the count), queried
//!    in process; and Datasette's `_search=` over the same table, when
//!    `datasette` is on the PATH (`pip install datasette`).
//! 4. The index's size per item, and the indexing time.
//!
//! Each server is measured once its first export of the site's pages has
//! ended (they answer 503 until then), so no export runs beside it.
//!
//! `SIGNALS_SEARCH_SERVE=<store>` measures 1, 2 and 4 (size: SQLite
//! only) on a store an earlier run left, with `SIGNALS_SEARCH_FTS=1` 3 as
//! well, without generating a store (see `serve_only`).
//! `SIGNALS_SEARCH_GENERATE=<store>` makes such a store: the big size's
//! items, committed and indexed in runs as above, into a new SQLite file
//! or an empty PostgreSQL database.

#[path = "support/client.rs"]
mod client;
#[path = "../tests/it/synth.rs"]
mod synth;

use std::net::TcpStream;
use std::path::{Path, PathBuf};
use std::process::{Child, Command, Stdio};
use std::time::{Duration, Instant};

use client::{Client, throughput};

use jiff::{SignedDuration, Timestamp};
use signals_core::ItemSnapshot;
use signals_store::{Reads, RunWrites, SearchIndex};
use signals_store_sqlite::Store;

const VOCABULARY: usize = 20_000;

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

fn serve(dir: &Path, store: &str) -> (Served, u16) {
    let port = free_port();
    let mut child = Command::new(env!("CARGO_BIN_EXE_signals"))
        .current_dir(dir)
        .args(["serve", "--store", store, "--port", &port.to_string()])
        .env("TMPDIR", dir)
        .stdout(Stdio::null())
        .stderr(std::fs::File::create(dir.join("serve.log")).unwrap())
        .spawn()
        .unwrap();
    wait_for(port, &mut child, "serve");
    // `serve` answers the API at once and exports the site's pages in the
    // background (pages answer 503 until then): measuring before the
    // export ends measures a server with a core taken by it.
    let started = Instant::now();
    while Client::connect(port).get("/").0 == 503 {
        assert!(
            started.elapsed() < Duration::from_secs(1800),
            "serve's first export did not end"
        );
        std::thread::sleep(Duration::from_millis(500));
    }
    (Served(child), port)
}

/// The `n`th word of the vocabulary: syllables, so words look like words
/// and share prefixes as real ones do.
fn word(mut n: usize) -> String {
    const SYLLABLES: [&str; 24] = [
        "ka", "lo", "mi", "ne", "ru", "ta", "so", "vi", "de", "po", "gu", "fa", "ri", "mo", "sa",
        "te", "bo", "ni", "la", "ze", "ko", "pu", "he", "ja",
    ];
    let mut out = String::new();
    loop {
        out.push_str(SYLLABLES[n % 24]);
        n /= 24;
        if n == 0 {
            break;
        }
    }
    out
}

/// Zipf: word ranks with probability ∝ 1/rank.
struct Zipf {
    cumulative: Vec<f64>,
    rng: fastrand::Rng,
}

impl Zipf {
    fn new(seed: u64) -> Zipf {
        let mut total = 0.0;
        let cumulative = (1..=VOCABULARY)
            .map(|r| {
                total += 1.0 / r as f64;
                total
            })
            .collect();
        Zipf {
            cumulative,
            rng: fastrand::Rng::with_seed(seed),
        }
    }

    fn rank(&mut self) -> usize {
        let last = *self.cumulative.last().unwrap();
        let x = self.rng.f64() * last;
        self.cumulative.partition_point(|&c| c < x)
    }

    fn words(&mut self, n: usize) -> String {
        (0..n)
            .map(|_| word(self.rank()))
            .collect::<Vec<_>>()
            .join(" ")
    }
}

fn items(count: usize, at: Timestamp) -> impl Iterator<Item = ItemSnapshot> {
    let mut zipf = Zipf::new(28);
    (1..=count).map(move |k| {
        let mut item = synth::item(0, k, 16, at);
        let title_len = 6 + zipf.rng.usize(0..5);
        item.title = zipf.words(title_len);
        let body_len = 80 + zipf.rng.usize(0..71);
        let mut body = zipf.words(body_len);
        if k % 10 == 0 {
            body.push_str(" and then it ran out of memory");
        }
        if k % 100 == 0 {
            body.push_str(" with CUDA_VISIBLE_DEVICES=1 set");
        }
        item.text = body;
        item
    })
}

/// A store of one repository of `count` items in `dir` ([`commit_runs`]);
/// returns the whole time.
fn build(dir: &Path, count: usize) -> Duration {
    std::fs::remove_dir_all(dir).ok();
    std::fs::create_dir_all(dir).unwrap();
    let mut store = Store::open(dir.join("signals.db")).unwrap();
    commit_runs(&mut store, count)
}

/// Commits `count` generated items to `store`'s repository `g/r0` in runs
/// of 10,000 items, each indexed after its commit as `collect` does (on
/// PostgreSQL as its workers do: each run rewrites the blocks it
/// touches); returns the whole time.
fn commit_runs<S: Reads + RunWrites + SearchIndex>(store: &mut S, count: usize) -> Duration {
    let t1: Timestamp = "2026-11-20T10:00:00Z".parse().unwrap();
    let key = store
        .ensure_repository(&synth::group(), &synth::tracked(0))
        .unwrap();
    let started = Instant::now();
    let mut all = items(count, t1).peekable();
    let mut run = 0;
    while all.peek().is_some() {
        let batch: Vec<ItemSnapshot> = all.by_ref().take(10_000).collect();
        // synth::commit indexes what it committed, as `collect` does.
        synth::commit(store, key, 0, t1 + SignedDuration::from_secs(run), batch);
        run += 1;
    }
    started.elapsed()
}

/// Rebuilds the word index of the store in `dir` from nothing and times
/// it: the cost of indexing `count` items once.
fn reindex(dir: &Path) -> Duration {
    let db = dir.join("signals.db");
    let conn = rusqlite::Connection::open(&db).unwrap();
    conn.execute_batch(
        "DELETE FROM search_postings; DELETE FROM search_docs; DELETE FROM search_state;",
    )
    .unwrap();
    drop(conn);
    let mut store = Store::open(&db).unwrap();
    let key = store.repositories().unwrap()[0].key;
    let started = Instant::now();
    signals_store::search::catch_up(&mut store, key).unwrap();
    started.elapsed()
}

fn index_bytes(dir: &Path) -> (u64, u64) {
    index_bytes_of(&dir.join("signals.db"))
}

fn index_bytes_of(db: &Path) -> (u64, u64) {
    let conn = rusqlite::Connection::open(db).unwrap();
    let postings: i64 = conn
        .query_row(
            "SELECT sum(length(data)) + sum(length(positions)) + sum(length(term)) FROM search_postings",
            [],
            |r| r.get(0),
        )
        .unwrap();
    let docs: i64 = conn
        .query_row(
            "SELECT sum(length(terms)) + count(*) * 16 FROM search_docs",
            [],
            |r| r.get(0),
        )
        .unwrap();
    (postings as u64, docs as u64)
}

fn percent(q: &str) -> String {
    q.bytes()
        .map(|b| match b {
            b'A'..=b'Z' | b'a'..=b'z' | b'0'..=b'9' | b'*' | b'_' | b'.' | b'-' => {
                (b as char).to_string()
            }
            _ => format!("%{b:02X}"),
        })
        .collect()
}

fn queries() -> Vec<(&'static str, String)> {
    vec![
        ("most common word", word(0)),
        ("rare word", word(15_000)),
        ("two words", format!("{} {}", word(0), word(40))),
        (
            "three words",
            format!("{} {} {}", word(0), word(40), word(30)),
        ),
        ("phrase", "\"out of memory\"".to_string()),
        ("one letter", "a".to_string()),
        ("prefix", format!("{}*", &word(30)[..3])),
        ("identifier", "CUDA_VISIBLE_DEVICES".to_string()),
    ]
}

/// p50 and p99 in ms of `n` requests, and the answer's total.
fn latency(port: u16, target: &str, n: usize) -> (f64, f64, u64) {
    let mut client = Client::connect(port);
    let (status, body) = client.get(target);
    assert_eq!(status, 200, "{target}: {}", String::from_utf8_lossy(&body));
    let total = serde_json::from_slice::<serde_json::Value>(&body).unwrap()["total"]
        .as_u64()
        .unwrap_or(0);
    let mut times: Vec<f64> = (0..n)
        .map(|_| {
            let t = Instant::now();
            assert_eq!(client.get(target).0, 200);
            t.elapsed().as_secs_f64() * 1000.0
        })
        .collect();
    times.sort_by(f64::total_cmp);
    (times[n / 2], times[n * 99 / 100], total)
}

fn api_rows(label: &str, port: u16, count: usize) {
    for (what, q) in queries() {
        let target = format!("/api/repos/g/r0/signals?q={}", percent(&q));
        let (p50, p99, total) = latency(port, &target, 200);
        println!("| {label} | {count} | {what} (`{q}`) | {total} | {p50:.2} ms | {p99:.2} ms |");
    }
}

/// The same texts in a plain FTS5 table (`fts.db`, with a `signals` table
/// and its `signals_fts`, as sqlite-utils makes them for Datasette). The
/// content table is named in double quotes: Datasette finds a table's
/// FTS table by `content="signals"` (or `[signals]`) in its SQL, and with
/// single quotes it did not, so `_search=` filtered nothing.
fn fts5(dir: &Path, count: usize) -> PathBuf {
    let path = dir.join("fts.db");
    std::fs::remove_file(&path).ok();
    let mut conn = rusqlite::Connection::open(&path).unwrap();
    conn.execute_batch(
        "CREATE TABLE signals (id INTEGER PRIMARY KEY, title TEXT, body TEXT);
         CREATE VIRTUAL TABLE signals_fts USING fts5(title, body, content=\"signals\", content_rowid='id');",
    )
    .unwrap();
    let tx = conn.transaction().unwrap();
    let t1: Timestamp = "2026-11-20T10:00:00Z".parse().unwrap();
    for (k, item) in items(count, t1).enumerate() {
        tx.execute(
            "INSERT INTO signals (id, title, body) VALUES (?1, ?2, ?3)",
            rusqlite::params![k as i64 + 1, item.title, item.text],
        )
        .unwrap();
    }
    tx.execute_batch("INSERT INTO signals_fts (signals_fts) VALUES ('rebuild');")
        .unwrap();
    tx.commit().unwrap();
    path
}

/// FTS5's own syntax for the same query, as close as it goes.
fn fts5_query(what: &str, q: &str) -> String {
    match what {
        "phrase" => "\"out of memory\"".to_string(),
        "identifier" => "\"CUDA_VISIBLE_DEVICES\"".to_string(),
        _ => q.to_string(),
    }
}

fn fts5_rows(path: &Path, count: usize) {
    let conn = rusqlite::Connection::open(path).unwrap();
    for (what, q) in queries() {
        let fts_q = fts5_query(what, &q);
        let mut times = Vec::new();
        let mut total = 0i64;
        for _ in 0..50 {
            let t = Instant::now();
            let mut stmt = conn
                .prepare_cached(
                    "SELECT rowid FROM signals_fts WHERE signals_fts MATCH ?1
                     ORDER BY bm25(signals_fts, 3.0, 1.0) LIMIT 50",
                )
                .unwrap();
            let rows: Vec<i64> = stmt
                .query_map([&fts_q], |r| r.get(0))
                .unwrap()
                .map(Result::unwrap)
                .collect();
            total = conn
                .query_row(
                    "SELECT count(*) FROM signals_fts WHERE signals_fts MATCH ?1",
                    [&fts_q],
                    |r| r.get(0),
                )
                .unwrap();
            assert!(rows.len() as i64 <= total);
            times.push(t.elapsed().as_secs_f64() * 1000.0);
        }
        times.sort_by(f64::total_cmp);
        println!(
            "| FTS5 in process | {count} | {what} (`{fts_q}`) | {total} | {:.2} ms | {:.2} ms |",
            times[25], times[49]
        );
    }
}

fn datasette_rows(dir: &Path, path: &Path, count: usize) {
    if Command::new("datasette").arg("--version").output().is_err() {
        println!("| Datasette | {count} | not installed (`pip install datasette`) | | | |");
        return;
    }
    let port = free_port();
    let mut child = Command::new("datasette")
        .args(["serve", "--port", &port.to_string()])
        .arg(path)
        .current_dir(dir)
        .stdout(Stdio::null())
        .stderr(Stdio::null())
        .spawn()
        .unwrap();
    wait_for(port, &mut child, "datasette");
    let served = Served(child);
    for (what, q) in queries() {
        // The same FTS5 syntax as in process (`_searchmode=raw`: a
        // phrase, a prefix), ordered by relevance (Datasette's default
        // with `_search`).
        let fts_q = fts5_query(what, &q);
        let target = format!(
            "/{}/signals.json?_search={}&_searchmode=raw&_size=50&_shape=objects",
            path.file_stem().and_then(|s| s.to_str()).unwrap_or("fts"),
            percent(&fts_q)
        );
        let mut client = Client::connect(port);
        let (status, body) = client.get(&target);
        if status != 200 {
            println!(
                "| Datasette | {count} | {what} | status {status}: {} | | |",
                String::from_utf8_lossy(&body)
                    .chars()
                    .take(80)
                    .collect::<String>()
            );
            continue;
        }
        let total = serde_json::from_slice::<serde_json::Value>(&body).unwrap()
            ["filtered_table_rows_count"]
            .as_u64()
            .unwrap_or(0);
        let mut times: Vec<f64> = (0..50)
            .map(|_| {
                let t = Instant::now();
                assert_eq!(client.get(&target).0, 200);
                t.elapsed().as_secs_f64() * 1000.0
            })
            .collect();
        times.sort_by(f64::total_cmp);
        println!(
            "| Datasette `_search=` | {count} | {what} (`{fts_q}`) | {total} | {:.2} ms | {:.2} ms |",
            times[25], times[49]
        );
    }
    drop(served);
}

/// `SIGNALS_SEARCH_SERVE=<store>` (a SQLite file by its absolute path, or
/// a `postgres://` address, holding the bench's repository `g/r0`, from
/// `SIGNALS_SEARCH_GENERATE`, an earlier run, or a `signals migrate` of
/// one): only the API rows and the throughput, served from that store,
/// with no store generated. This measures the served code alone, again
/// and again, on one store.
fn serve_only(store: &str) {
    let dir = PathBuf::from(env!("CARGO_TARGET_TMPDIR")).join("bench-search-serve");
    std::fs::create_dir_all(&dir).unwrap();
    let (served, port) = serve(&dir, store);
    let label = if store.starts_with("postgres") {
        "PostgreSQL"
    } else {
        "SQLite"
    };
    let mut client = Client::connect(port);
    let (_, body) = client.get("/api/repos/g/r0/signals");
    let count = serde_json::from_slice::<serde_json::Value>(&body).unwrap()["total"]
        .as_u64()
        .unwrap_or(0) as usize;
    println!("| store | items | query | total | p50 | p99 |");
    println!("|---|---:|---|---:|---:|---:|");
    api_rows(label, port, count);
    let target = format!("/api/repos/g/r0/signals?q={}", word(0));
    let one = throughput(port, &target, 1, Duration::from_secs(3));
    let eight = throughput(port, &target, 8, Duration::from_secs(3));
    println!(
        "| {label} | {count} | most common word, 1 client → 8 | {one:.0} → {eight:.0} requests/s ({:.2}×) | | |",
        eight / one
    );
    drop(served);
    if label == "SQLite" {
        let (postings, docs) = index_bytes_of(Path::new(store));
        println!(
            "\n| items | posting blocks + terms | documents | per item |\n|---:|---:|---:|---:|\n| {count} | {:.1} MB | {:.1} MB | {:.0} bytes |",
            postings as f64 / 1e6,
            docs as f64 / 1e6,
            (postings + docs) as f64 / count.max(1) as f64
        );
    }
    // `SIGNALS_SEARCH_FTS=1`: the same generated texts (as many items as
    // the store serves) in an FTS5 table beside it, in process and through
    // Datasette.
    if std::env::var_os("SIGNALS_SEARCH_FTS").is_some() {
        let fts = fts5(&dir, count);
        println!();
        println!("| store | items | query | total | p50 | p99 |");
        println!("|---|---:|---|---:|---:|---:|");
        fts5_rows(&fts, count);
        datasette_rows(&dir, &fts, count);
    }
}

fn main() {
    if let Ok(store) = std::env::var("SIGNALS_SEARCH_SERVE") {
        serve_only(&store);
        return;
    }
    let big: usize = std::env::var("SIGNALS_SEARCH_BIG")
        .ok()
        .and_then(|v| v.parse().ok())
        .unwrap_or(100_000);
    // `SIGNALS_SEARCH_GENERATE=<store>`: the big size's store only, into a
    // new SQLite file (its absolute path) or an empty PostgreSQL database,
    // kept for `SIGNALS_SEARCH_SERVE`; nothing measured.
    if let Ok(store) = std::env::var("SIGNALS_SEARCH_GENERATE") {
        let took = if store.starts_with("postgres") {
            commit_runs(&mut signals_store_pg::PgStore::open(&store).unwrap(), big)
        } else {
            commit_runs(&mut Store::open(&store).unwrap(), big)
        };
        println!("{big} items generated and indexed into {store} in {took:.1?}");
        return;
    }
    let base = PathBuf::from(env!("CARGO_TARGET_TMPDIR")).join("bench-search");
    let cluster = signals_testpg::Cluster::start().ok().flatten();
    let mut sizes = Vec::new();
    println!("## Text search, first page (50), 200 requests each\n");
    println!("| store | items | query | total | p50 | p99 |");
    println!("|---|---:|---|---:|---:|---:|");
    // `SIGNALS_SEARCH_BIG=10000` measures the one size once.
    let counts: &[usize] = if big == 10_000 {
        &[10_000]
    } else {
        &[10_000, big]
    };
    for &count in counts {
        let dir = base.join(format!("items-{count}"));
        let built = build(&dir, count);
        let indexing = reindex(&dir);
        sizes.push((count, index_bytes(&dir), indexing, built));
        let (served, port) = serve(&dir, "signals.db");
        api_rows("SQLite", port, count);
        let one = throughput(
            port,
            &format!("/api/repos/g/r0/signals?q={}", word(0)),
            1,
            Duration::from_secs(3),
        );
        let eight = throughput(
            port,
            &format!("/api/repos/g/r0/signals?q={}", word(0)),
            8,
            Duration::from_secs(3),
        );
        println!(
            "| SQLite | {count} | most common word, 1 client → 8 | {one:.0} → {eight:.0} requests/s ({:.2}×) | | |",
            eight / one
        );
        drop(served);
        if let Some(cluster) = &cluster {
            let url = cluster.create_database(&format!("search{count}")).unwrap();
            // The same items committed the same way, through the
            // PostgreSQL store (a `signals migrate` of 100,000 items, with
            // its verification, took most of an hour).
            commit_runs(&mut signals_store_pg::PgStore::open(&url).unwrap(), count);
            let (served, port) = serve(&dir, &url);
            api_rows("PostgreSQL", port, count);
            let one = throughput(
                port,
                &format!("/api/repos/g/r0/signals?q={}", word(0)),
                1,
                Duration::from_secs(3),
            );
            let eight = throughput(
                port,
                &format!("/api/repos/g/r0/signals?q={}", word(0)),
                8,
                Duration::from_secs(3),
            );
            println!(
                "| PostgreSQL | {count} | most common word, 1 client → 8 | {one:.0} → {eight:.0} requests/s ({:.2}×) | | |",
                eight / one
            );
            drop(served);
        } else {
            println!(
                "| PostgreSQL | {count} | not measured: no PostgreSQL server programs | | | |"
            );
        }
        let fts = fts5(&dir, count);
        fts5_rows(&fts, count);
        datasette_rows(&dir, &fts, count);
    }
    println!("\n## The word index's size and build time (SQLite)\n");
    println!(
        "| items | posting blocks + terms | documents | per item | indexing from nothing | store built and indexed |"
    );
    println!("|---:|---:|---:|---:|---:|---:|");
    for (count, (postings, docs), indexing, built) in sizes {
        println!(
            "| {count} | {:.1} MB | {:.1} MB | {:.0} bytes | {:.1} s | {:.1} s |",
            postings as f64 / 1e6,
            docs as f64 / 1e6,
            (postings + docs) as f64 / count as f64,
            indexing.as_secs_f64(),
            built.as_secs_f64()
        );
    }
}
