//! The figures for the static site's search: `cargo bench -p
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
use std::time::Instant;

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
/// body and when it came.
type Fetched = Arc<Mutex<Vec<(String, u64, Instant)>>>;

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

fn answer(root: &Path, mut conn: TcpStream, log: &Mutex<Vec<(String, u64, Instant)>>) {
    conn.set_nodelay(true).ok();
    let mut reader = BufReader::new(conn.try_clone().unwrap());
    loop {
        let mut line = String::new();
        if reader.read_line(&mut line).unwrap_or(0) == 0 {
            return;
        }
        let path = line.split(' ').nth(1).unwrap_or("/").to_string();
        let came = Instant::now();
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
        log.lock()
            .unwrap()
            .push((path.clone(), body.len() as u64, came));
        let head = format!(
            "HTTP/1.1 {status}\r\nContent-Type: {kind}\r\nContent-Length: {}\r\n\r\n",
            body.len()
        );
        // One write, no Nagle delay: as a static server (nginx) sends, not
        // 40 ms of delayed acknowledgement per small file.
        let mut answer = head.into_bytes();
        answer.extend_from_slice(&body);
        if conn.write_all(&answer).is_err() {
            return;
        }
    }
}

/// The probe page the bench writes beside the site: it opens `page` in a
/// frame and, once the frame shows results (or its search status says it
/// cannot), or, for a page without a query, once the frame has loaded,
/// requests `/__done`. The server's clock gives the time from the page's
/// request to that one: the page's load, its fetches, the search and the
/// results in the DOM, without the browser's start.
const PROBE: &str = r#"<!doctype html><html><head><meta charset="utf-8"><title>probe</title></head>
<body><iframe id="f" style="width:1200px;height:900px"></iframe><script>
var f = document.getElementById('f'), page = decodeURIComponent(location.hash.slice(1)), sent = false;
function done() { if (!sent) { sent = true; fetch('/__done', { cache: 'no-store' }); } }
if (page.indexOf('?q=') < 0) f.addEventListener('load', done);
setInterval(function () {
  var d = f.contentDocument, r = d && d.querySelector('ol.filter-results:not([hidden]) > li'),
    st = d && d.querySelector('.filter-status');
  if (r || (st && /cannot|unavailable/.test(st.textContent))) done();
}, 2);
f.src = page;
</script></body></html>"#;

/// Opens `page` (a path of the site) through the probe in a fresh headless
/// Chromium; the time from the page's request to the probe's `/__done`,
/// and the page's status line. `None` for the time when the probe did not
/// report.
fn open(scratch: &Path, url: &str, page: &str, log: &Fetched) -> Option<f64> {
    let profile = scratch.join("profile");
    std::fs::remove_dir_all(&profile).ok();
    let from = log.lock().unwrap().len();
    Command::new("chromium")
        .args([
            "--headless",
            "--no-sandbox",
            "--disable-gpu",
            "--no-first-run",
            "--disable-background-networking",
            "--virtual-time-budget=10000",
            &format!("--user-data-dir={}", profile.display()),
            "--dump-dom",
            &format!("{url}/__probe.html#{}", page.replace('%', "%25")),
        ])
        .output()
        .expect("chromium runs");
    let sent = log.lock().unwrap()[from..].to_vec();
    let path = page.split('#').next().unwrap_or(page);
    let start = sent.iter().find(|(p, _, _)| p == path).map(|r| r.2);
    let end = sent.iter().find(|(p, _, _)| p == "/__done").map(|r| r.2);
    Some(end?.duration_since(start?).as_secs_f64() * 1000.0)
}

/// The page's status line after a plain headless run of `url`.
fn status_of(scratch: &Path, url: &str) -> String {
    let profile = scratch.join("profile");
    std::fs::remove_dir_all(&profile).ok();
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
    let dom = String::from_utf8_lossy(&out.stdout).to_string();
    dom.split("class=\"filter-status\"")
        .nth(1)
        .and_then(|r| r.split('>').nth(1))
        .and_then(|r| r.split('<').next())
        .unwrap_or("")
        .to_string()
}

fn size(dir: &Path, prefix: &str) -> u64 {
    std::fs::read_dir(dir)
        .unwrap()
        .flatten()
        .filter(|e| e.file_name().to_string_lossy().starts_with(prefix))
        .map(|e| e.metadata().unwrap().len())
        .sum()
}

/// Best of 3 probe runs of `page`, in ms (`None`: no run reported).
fn best(scratch: &Path, url: &str, page: &str, log: &Fetched) -> Option<f64> {
    (0..3)
        .filter_map(|_| open(scratch, url, page, log))
        .min_by(f64::total_cmp)
}

/// Exports the store in `dir` into `dir/site` (unless kept from a run
/// before) and writes the probe beside it.
fn export(dir: &Path, keep: bool, fill: impl FnOnce(&Path)) {
    if !(keep && dir.join("site/index.html").is_file()) {
        fill(dir);
        let out = Command::new(env!("CARGO_BIN_EXE_signals"))
            .args(["export", "--store", "signals.db", "--out", "site"])
            .current_dir(dir)
            .output()
            .unwrap();
        assert!(
            out.status.success(),
            "{}",
            String::from_utf8_lossy(&out.stderr)
        );
    }
    std::fs::write(dir.join("site/__probe.html"), PROBE).unwrap();
}

/// The index's size per signal of the search folder `s`.
fn sizes(s: &Path, items: usize) -> String {
    let per = |b: u64| b as f64 / items as f64;
    format!(
        "{:.0} B / {:.0} B / {:.0} B / {:.0} B",
        per(size(s, "w-")),
        per(size(s, "p-")),
        per(size(s, "r-") + size(s, "o-") + size(s, "q-")),
        per(size(s, "t-"))
    )
}

/// One table row per query of the page `page` (a path of the site
/// served at `url`): matches, bytes fetched, time to the first results.
fn rows(dir: &Path, url: &str, log: &Fetched, page: &str, label: &str) {
    let plain = best(dir, url, page, log);
    for (q, what) in [
        (wordy::word(0), "most common"),
        (wordy::word(VOCAB / 3), "rare"),
    ] {
        let page = format!("{page}?q={q}");
        let from = log.lock().unwrap().len();
        let status = status_of(dir, &format!("{url}{page}"));
        let sent: Vec<(String, u64)> = log.lock().unwrap()[from..]
            .iter()
            .map(|(p, b, _)| (p.clone(), *b))
            .collect();
        let shown = best(dir, url, &page, log);
        let of = |f: &dyn Fn(&str) -> bool| -> (u64, usize) {
            let hits: Vec<u64> = sent.iter().filter(|(p, _)| f(p)).map(|(_, b)| *b).collect();
            (hits.iter().sum(), hits.len())
        };
        let (text, texts) = of(&|p| p.contains("/search/t-"));
        let (all, files) = of(&|p| p.contains("/search/") || p.ends_with("/search.json"));
        assert!(
            !sent.iter().any(|(p, _)| p.ends_with("signals.json")),
            "a query alone reads no filter index"
        );
        let ms = |t: Option<f64>| t.map_or("not reported".into(), |t| format!("{t:.0} ms"));
        println!(
            "| {label} | {what} (`{q}`) | {} | {:.0} KB ({} files) | {:.0} KB ({texts}) | {} ({}) |",
            status.split(" signal").next().unwrap_or("?"),
            (all - text) as f64 / 1000.0,
            files - texts,
            text as f64 / 1000.0,
            if status.contains("match") {
                ms(shown)
            } else {
                format!("not shown ({status})")
            },
            ms(plain),
        );
    }
}

/// A store at `dir` with a group of `repos` repositories of `items`
/// generated signals each, indexed.
fn group_store(dir: &Path, repos: usize, items: usize) {
    std::fs::remove_dir_all(dir).ok();
    std::fs::create_dir_all(dir).unwrap();
    let mut store = Store::open(dir.join("signals.db")).unwrap();
    let t1: Timestamp = "2026-11-20T10:00:00Z".parse().unwrap();
    for n in 0..repos {
        let key = store
            .ensure_repository(&synth::group(), &synth::tracked(n))
            .unwrap();
        let observed = (1..=items)
            .map(|k| wordy::wordy_in(n, k, VOCAB, t1))
            .collect();
        synth::commit(&mut store, key, n, t1, observed);
        signals_store::search::catch_up(&mut store, key).unwrap();
    }
}

fn main() {
    let env = |name: &str, default: usize| -> usize {
        std::env::var(name)
            .ok()
            .map(|n| n.parse().unwrap_or_else(|_| panic!("{name}: a number")))
            .unwrap_or(default)
    };
    let big = env("SIGNALS_SEARCH_BIG", 100_000);
    // SIGNALS_SEARCH_GROUP repositories of SIGNALS_SEARCH_GROUP_ITEMS
    // signals each make the group page's row (0: none).
    let (repos, per_repo) = (
        env("SIGNALS_SEARCH_GROUP", 1000),
        env("SIGNALS_SEARCH_GROUP_ITEMS", 20),
    );
    // SIGNALS_SEARCH_KEEP=1 keeps each size's store and site, and uses
    // them again when present (to measure a changed script: copy it over
    // `site/filter.js`).
    let keep = std::env::var("SIGNALS_SEARCH_KEEP").as_deref() == Ok("1");
    let base = PathBuf::from(env!("CARGO_TARGET_TMPDIR")).join("bench-site-search");
    println!("## Search in the static site: a first query in headless Chromium\n");
    println!(
        "| page | signals | index per signal (words / positions / ranks+order / cards) | query | matches | index fetched | result text fetched (files) | first results shown (page alone) |"
    );
    println!("|---|---:|---|---|---|---:|---:|---:|");
    let sizes_one: Vec<usize> = if big == 0 { vec![] } else { vec![10_000, big] };
    for items in sizes_one {
        let dir = base.join(format!("one-{items}"));
        export(&dir, keep, |d| store(d, items));
        let (url, log) = serve(dir.join("site"));
        let label = format!(
            "repository | {items} | {}",
            sizes(&dir.join("site/g/r0/search"), items)
        );
        rows(&dir, &url, &log, "/g/r0/index.html", &label);
        if !keep {
            std::fs::remove_dir_all(&dir).ok();
        }
    }
    if repos > 0 {
        let dir = base.join(format!("group-{repos}x{per_repo}"));
        export(&dir, keep, |d| group_store(d, repos, per_repo));
        let (url, log) = serve(dir.join("site"));
        let label = format!(
            "group of {repos} repositories | {} | {} (group shards) / {} (group)",
            repos * per_repo,
            size(&dir.join("site/g/_search/search"), "w-") / (repos * per_repo) as u64,
            size(&dir.join("site/g/_search/search"), "p-") / (repos * per_repo) as u64,
        );
        rows(&dir, &url, &log, "/g/index.html", &label);
        if !keep {
            std::fs::remove_dir_all(&dir).ok();
        }
    }
}
