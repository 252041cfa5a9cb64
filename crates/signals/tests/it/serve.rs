//! `signals serve` against a running server on loopback: every endpoint,
//! paging, bad input, path traversal, hostile data escaped, and the pages.

use std::io::{Read, Write};
use std::net::TcpStream;
use std::process::{Child, Command, Stdio};
use std::time::{Duration, Instant};

use jiff::{SignedDuration, Timestamp};
use serde_json::Value;
use signals_core::ItemState;
use signals_store::RunWrites;
use signals_store_sqlite::Store;

use crate::support::{TempDir, signals_bin};
use crate::synth;

/// A running `signals serve`, stopped on drop.
pub(crate) struct Served {
    pub(crate) child: Child,
    pub(crate) port: u16,
}

impl Served {
    /// Sends SIGTERM and waits (up to 10 s) for the exit status.
    pub(crate) fn terminate(&mut self) -> Option<std::process::ExitStatus> {
        // SAFETY: kill(2) on our own child's pid.
        unsafe { libc::kill(self.child.id() as libc::pid_t, libc::SIGTERM) };
        let end = Instant::now() + Duration::from_secs(10);
        while Instant::now() < end {
            if let Ok(Some(status)) = self.child.try_wait() {
                return Some(status);
            }
            std::thread::sleep(Duration::from_millis(20));
        }
        None
    }
}

impl Drop for Served {
    fn drop(&mut self) {
        // SIGTERM first, so the server removes its private site.
        if self.terminate().is_none() {
            let _ = self.child.kill();
            let _ = self.child.wait();
        }
    }
}

pub(crate) fn free_port() -> u16 {
    std::net::TcpListener::bind("127.0.0.1:0")
        .unwrap()
        .local_addr()
        .unwrap()
        .port()
}

fn serve(dir: &std::path::Path) -> Served {
    serve_with(dir, &[], &[])
}

/// `signals serve` on `dir`'s store with more arguments and environment;
/// its standard error goes to `dir/serve.log`.
pub(crate) fn serve_with(dir: &std::path::Path, args: &[&str], env: &[(&str, &str)]) -> Served {
    let port = free_port();
    let log = std::fs::File::create(dir.join("serve.log")).unwrap();
    let child = Command::new(signals_bin())
        .current_dir(dir)
        .args(["serve", "--port", &port.to_string()])
        .args(if args.contains(&"--store") {
            &[][..]
        } else {
            &["--store", "signals.db"][..]
        })
        .args(args)
        .env_clear()
        .envs(env.iter().copied())
        // The private site goes under the test's folder, never /tmp.
        .env("TMPDIR", dir)
        .stdout(Stdio::null())
        .stderr(log)
        .spawn()
        .unwrap();
    let mut served = Served { child, port };
    // It listens at once; its pages are there once its log says so.
    let end = Instant::now() + Duration::from_secs(120);
    loop {
        let log = std::fs::read_to_string(dir.join("serve.log")).unwrap_or_default();
        if log.contains(EXPORTED) {
            return served;
        }
        if let Ok(Some(status)) = served.child.try_wait() {
            panic!("serve exited ({status}): {log}");
        }
        assert!(Instant::now() < end, "serve never exported its site: {log}");
        std::thread::sleep(Duration::from_millis(50));
    }
}

/// What `serve` logs once its private site is exported.
pub(crate) const EXPORTED: &str = "the site is exported";

/// Sends a raw request (the target exactly as given) and returns the status
/// and body.
pub(crate) fn raw(port: u16, method: &str, target: &str) -> (u16, Vec<u8>) {
    raw_with(port, method, target, "")
}

/// [`raw`] with more header lines (each ending in `\r\n`).
fn raw_with(port: u16, method: &str, target: &str, headers: &str) -> (u16, Vec<u8>) {
    let (head, body) = exchange(port, method, target, headers);
    (head.split(' ').nth(1).unwrap().parse().unwrap(), body)
}

/// [`raw_with`], returning the answer's head (status line and headers)
/// and its body, dechunked.
pub(crate) fn exchange(port: u16, method: &str, target: &str, headers: &str) -> (String, Vec<u8>) {
    let mut s = TcpStream::connect(("127.0.0.1", port)).unwrap();
    write!(
        s,
        "{method} {target} HTTP/1.1\r\nHost: 127.0.0.1\r\n{headers}Connection: close\r\n\r\n"
    )
    .unwrap();
    let mut all = Vec::new();
    s.read_to_end(&mut all).unwrap();
    let split = all.windows(4).position(|w| w == b"\r\n\r\n").unwrap();
    let head = String::from_utf8_lossy(&all[..split]).to_string();
    let mut body = all[split + 4..].to_vec();
    if head
        .to_ascii_lowercase()
        .contains("transfer-encoding: chunked")
    {
        body = dechunk(&body);
    }
    (head, body)
}

fn dechunk(mut b: &[u8]) -> Vec<u8> {
    let mut out = Vec::new();
    loop {
        let line_end = b.windows(2).position(|w| w == b"\r\n").unwrap();
        let n =
            usize::from_str_radix(std::str::from_utf8(&b[..line_end]).unwrap().trim(), 16).unwrap();
        if n == 0 {
            return out;
        }
        out.extend_from_slice(&b[line_end + 2..line_end + 2 + n]);
        b = &b[line_end + 2 + n + 2..];
    }
}

pub(crate) fn get(port: u16, target: &str) -> (u16, Value) {
    let (status, body) = raw(port, "GET", target);
    let value = serde_json::from_slice(&body).unwrap_or_else(|e| {
        panic!(
            "{target}: not JSON ({e}): {}",
            String::from_utf8_lossy(&body)
        )
    });
    (status, value)
}

const HOSTILE: &str = "</script><script>alert(1)</script><img src=x onerror=alert(2)>";

/// A store of two repositories: `r0` with 120 items (two runs: items 1..=5
/// gained a reaction, item 7 closed), `r1` with a hostile title, label and
/// body.
fn store(dir: &std::path::Path) {
    let mut store = Store::open(dir.join("signals.db")).unwrap();
    let t1: Timestamp = "2026-11-20T10:00:00Z".parse().unwrap();
    let t2 = t1 + SignedDuration::from_hours(1);
    let keys = synth::populate(&mut store, 1, 120, 200, t1);
    synth::bump(&mut store, keys[0], 0, 5, 200, t1, t2);
    let mut closed = synth::item(0, 7, 200, t1);
    closed.state = ItemState::Closed;
    closed.updated_at = t2 + SignedDuration::from_hours(1);
    synth::commit(
        &mut store,
        keys[0],
        0,
        t2 + SignedDuration::from_hours(1),
        vec![closed],
    );
    let k1 = store
        .ensure_repository(&synth::group(), &synth::tracked(1))
        .unwrap();
    let mut bad = synth::item(1, 1, 50, t1);
    bad.title = HOSTILE.into();
    bad.labels = vec![HOSTILE.into()];
    bad.text = HOSTILE.into();
    let release = |tag: &str| {
        let mut r = synth::item(1, 2, 50, t1);
        r.key = tag.to_string();
        r.title = format!("Release {tag}");
        r.state = ItemState::Closed;
        r.detail = signals_core::ItemDetail::Release {
            prerelease: false,
            published_at: t1,
        };
        r
    };
    synth::commit(
        &mut store,
        k1,
        1,
        t1,
        vec![bad, release(LONG_TAG), release("V1.0/RC")],
    );
}

/// A tag whose history file name is cut (and ended with a hash).
const LONG_TAG: &str = "發布版本發布版本發布版本發布版本發布版本發布版本發布版本";

#[test]
fn the_api_answers_every_endpoint_pages_and_filters() {
    let dir = TempDir::new("serve-api");
    store(dir.path());
    let s = serve(dir.path());
    let p = s.port;

    let (status, groups) = get(p, "/api/groups");
    assert_eq!(status, 200);
    let repos = groups["groups"][0]["repositories"].as_array().unwrap();
    assert_eq!(repos.len(), 2);
    assert_eq!(repos[0]["id"], "r0");
    assert_eq!(repos[0]["runs"], 3);
    // Health: the store's runs are old, so with the default
    // hourly interval the data is stale; nothing failed.
    let health = &repos[0]["health"];
    let instant = |v: &Value| v.as_str().unwrap().parse::<jiff::Timestamp>().unwrap();
    assert_eq!(
        instant(&health["lastSuccess"]),
        instant(&repos[0]["lastCollectedAt"]),
        "{health}"
    );
    assert_eq!(health["failuresInRow"], 0, "{health}");
    assert_eq!(health["lastError"], Value::Null, "{health}");
    assert_eq!(health["intervalSecs"], 3600, "{health}");
    let expected_stale = health["lastSuccessAgeSecs"].as_i64().unwrap() > 3 * 3600;
    assert_eq!(health["stale"], expected_stale, "{health}");
    assert_eq!(
        health["state"],
        if expected_stale { "stale" } else { "ok" },
        "{health}"
    );
    // Prometheus metrics, the text `signals metrics` prints.
    let (status, metrics) = raw(p, "GET", "/metrics");
    assert_eq!(status, 200);
    let metrics = String::from_utf8(metrics).unwrap();
    assert!(
        metrics.contains("\nsignals_repository_runs_total{group=\"g\",repository=\"r0\"} 3\n"),
        "{metrics}"
    );
    assert!(
        metrics.contains("\nsignals_repository_items{group=\"g\",repository=\"r0\"} 120\n"),
        "{metrics}"
    );

    let (status, page1) = get(p, "/api/repos/g/r0/signals");
    assert_eq!(status, 200);
    assert_eq!(page1["total"], 120);
    assert_eq!(page1["pages"], 3);
    assert_eq!(page1["signals"].as_array().unwrap().len(), 50);
    let scores: Vec<u64> = page1["signals"]
        .as_array()
        .unwrap()
        .iter()
        .map(|s| s["importance"].as_u64().unwrap())
        .collect();
    assert!(
        scores.windows(2).all(|w| w[0] >= w[1]),
        "sorted by importance"
    );
    let (_, page3) = get(p, "/api/repos/g/r0/signals?page=3");
    assert_eq!(page3["signals"].as_array().unwrap().len(), 20);

    // Filters: the same set the items' own fields give.
    let (_, bugs) = get(p, "/api/repos/g/r0/signals?label=bug&state=open&kind=issue");
    let expected = (1..=120)
        .filter(|k| k % 4 == 0 && k % 5 != 0 && k % 3 != 0)
        .count();
    assert_eq!(bugs["total"], expected as u64);
    assert!(bugs["signals"].as_array().unwrap().iter().all(|s| {
        s["labels"].as_array().unwrap().contains(&"bug".into())
            && s["state"] == "open"
            && s["kind"] == "issue"
    }));
    let (_, found) = get(p, "/api/repos/g/r0/signals?q=Synthetic+item+77%3A");
    assert_eq!(found["total"], 1);
    assert_eq!(found["signals"][0]["key"], "77");
    let (_, updated) = get(p, "/api/repos/g/r0/signals?sort=updated");
    assert_eq!(updated["signals"][0]["key"], "7", "the latest update first");
    assert_eq!(updated["signals"][0]["changedInLatest"], true);

    let (status, trail) = get(p, "/api/repos/g/r0/trail");
    assert_eq!(status, 200);
    assert_eq!(trail["total"], 126);
    assert_eq!(trail["events"][0]["itemId"], "github:o/r0:issue:7");
    assert_eq!(trail["events"][0]["detail"], "state, updatedAt");
    let (_, trail2) = get(p, "/api/repos/g/r0/trail?page=2");
    assert_eq!(trail2["events"].as_array().unwrap().len(), 26);

    // Trends: the document export writes, made by the same function.
    assert_eq!(repos[0]["trends"], "/api/repos/g/r0/trends");
    let (status, trends) = get(p, "/api/repos/g/r0/trends");
    assert_eq!(status, 200, "{trends}");
    let (status, file) = get(p, "/g/r0/trends.json");
    assert_eq!(status, 200);
    assert_eq!(trends, file);
    assert_eq!(trends["weeks"].as_array().unwrap().len(), 26);
    let (status, _) = get(p, "/api/repos/g/r0/trends?page=2");
    assert_eq!(status, 400);

    let history_url = trail["events"][0]["history"].as_str().unwrap().to_string();
    let (status, history) = get(p, &history_url);
    assert_eq!(status, 200, "{history}");
    let observations = history["observations"].as_array().unwrap();
    assert_eq!(observations.len(), 2);
    assert_eq!(observations[0]["kind"], "discovered");
    assert_eq!(observations[1]["kind"], "changed");
    assert!(
        observations[1]["summary"]
            .as_array()
            .unwrap()
            .contains(&"state open → closed".into()),
        "{history}"
    );
    let (status, reacted) = get(p, "/api/signals/github:o/r0:issue:2/history");
    assert_eq!(status, 200);
    assert!(
        reacted["observations"][1]["changes"]
            .as_array()
            .unwrap()
            .iter()
            .any(|c| c["field"] == "reactions" && c["old"] == 2 && c["new"] == 3)
    );

    // The pages are the export's, with history pages for every item.
    let (status, index) = raw(p, "GET", "/");
    assert_eq!(status, 200);
    assert!(String::from_utf8_lossy(&index).contains("Repo Signals"));
    let (status, repo) = raw(p, "GET", "/g/r0/");
    assert_eq!(status, 200);
    let repo = String::from_utf8_lossy(&repo).to_string();
    assert!(
        repo.contains("href=\"history/issue-7.html\""),
        "cards link their history"
    );
    let (status, page) = raw(p, "GET", "/g/r0/history/issue-7.html");
    assert_eq!(status, 200);
    let page = String::from_utf8_lossy(&page).to_string();
    assert!(page.contains("state open → closed"), "{page}");
    let (status, head) = raw(p, "HEAD", "/api/groups");
    assert_eq!((status, head.len()), (200, 0));
    // A HEAD answer says the length a GET's body has.
    let (_, body) = raw(p, "GET", "/api/groups");
    assert_eq!(head_length(p, "/api/groups"), Some(body.len()));
}

/// The `Content-Length` of a HEAD answer.
fn head_length(port: u16, target: &str) -> Option<usize> {
    let mut s = TcpStream::connect(("127.0.0.1", port)).unwrap();
    write!(
        s,
        "HEAD {target} HTTP/1.1\r\nHost: 127.0.0.1\r\nConnection: close\r\n\r\n"
    )
    .unwrap();
    let mut all = String::new();
    s.read_to_string(&mut all).unwrap();
    all.lines()
        .find_map(|l| {
            l.to_ascii_lowercase()
                .strip_prefix("content-length:")
                .map(|v| v.trim().to_string())
        })
        .and_then(|v| v.parse().ok())
}

/// History pages are rendered on demand from the store, by the
/// export's own function (the same bytes `signals export` writes), for any
/// item, cut file names included; the private site holds none of them, and
/// goes when the server stops on SIGTERM.
#[test]
fn history_pages_are_rendered_on_demand_and_the_private_site_goes_on_sigterm() {
    let dir = TempDir::new("serve-history");
    store(dir.path());
    let mut s = serve(dir.path());
    let p = s.port;
    let private = dir.path().join(format!("signals-serve-{}", s.child.id()));
    assert!(private.is_dir(), "the private site is in TMPDIR");
    let repos = private.join(".site.signals/repos/g");
    for repo in ["r0", "r1"] {
        let history = repos.join(repo).join("history");
        assert_eq!(
            std::fs::read_dir(&history).unwrap().count(),
            0,
            "serve writes no history pages"
        );
    }

    let out = crate::support::run(
        dir.path(),
        &["export", "--store", "signals.db", "--out", "site"],
        &[],
    );
    assert!(out.status.success(), "{}", crate::support::show(&out));
    for (repo, id) in [
        ("r0", "github:o/r0:issue:7".to_string()),
        ("r0", "github:o/r0:pull_request:3".to_string()),
        ("r1", "github:o/r1:issue:1".to_string()),
        ("r1", format!("github:o/r1:release:{LONG_TAG}")),
        ("r1", "github:o/r1:release:V1.0/RC".to_string()),
    ] {
        let file = signals_site::history_file(&id);
        let (status, served) = raw(p, "GET", &format!("/g/{repo}/history/{file}"));
        assert_eq!(status, 200, "{id}: {}", String::from_utf8_lossy(&served));
        let written = std::fs::read(
            dir.path()
                .join("site/g")
                .join(repo)
                .join("history")
                .join(&file),
        )
        .unwrap();
        assert_eq!(served, written, "{id}: served and exported pages differ");
    }
    assert!(signals_site::history_file(&format!("github:o/r1:release:{LONG_TAG}")).len() < 200);
    for target in [
        "/g/r0/history/issue-99999.html",
        "/g/r0/history/nonsense.html",
        "/g/r0/history/issue-7_zz.html",
        "/g/zz/history/issue-1.html",
        "/g/r0/history/%2e%2e.html",
    ] {
        let (status, _) = raw(p, "GET", target);
        assert_eq!(status, 404, "{target}");
    }

    let status = s.terminate().expect("serve stops on SIGTERM");
    assert!(status.success(), "{status:?}");
    assert!(!private.exists(), "the private site is removed on SIGTERM");
}

#[test]
fn bad_requests_are_json_errors_and_nothing_leaves_the_site() {
    let dir = TempDir::new("serve-bad");
    store(dir.path());
    std::fs::write(dir.path().join("secret.txt"), "do not serve").unwrap();
    let s = serve(dir.path());
    let p = s.port;
    let long_q = format!("/api/repos/g/r0/signals?q={}", "x".repeat(300));
    for (target, status) in [
        ("/api/repos/g/nope/signals", 404),
        ("/api/repos/nope/r0/trail", 404),
        ("/api/repos/g/r0/signals?page=0", 400),
        ("/api/repos/g/r0/signals?page=4", 400),
        ("/api/repos/g/r0/signals?page=-1", 400),
        ("/api/repos/g/r0/signals?page=99999999999999999999", 400),
        ("/api/repos/g/r0/signals?kind=commit", 400),
        ("/api/repos/g/r0/signals?state=sleeping", 400),
        ("/api/repos/g/r0/signals?sort=stars", 400),
        ("/api/repos/g/r0/signals?unknown=1", 400),
        (long_q.as_str(), 400),
        ("/api/repos/g/r0/trail?page=x", 400),
        ("/api/signals/not-an-id/history", 400),
        ("/api/signals/github:o/zz:issue:1/history", 404),
        ("/api/signals/github:o/r0:issue:99999/history", 404),
        ("/api/repos/../../etc", 404),
        ("/api/repos/%2e%2e/%2e%2e/etc/signals", 404),
        ("/api/nothing", 404),
        ("/api/repos/g/r0/signals?q=%ff", 400),
        ("/api/%00", 400),
    ] {
        let (got, body) = get(p, target);
        assert_eq!(got, status, "{target}: {body}");
        assert!(body["error"].is_string(), "{target}: {body}");
    }
    for target in [
        "/../secret.txt",
        "/%2e%2e/secret.txt",
        "/g/../../secret.txt",
        "/g/r0/..%2f..%2f..%2fsecret.txt",
        "/%2e%2e%2f%2e%2e%2fsecret.txt",
        "/..%5csecret.txt",
    ] {
        let (status, body) = raw(p, "GET", target);
        assert!(status == 400 || status == 404, "{target}: {status}");
        assert!(
            !String::from_utf8_lossy(&body).contains("do not serve"),
            "{target} left the site"
        );
    }
    let (status, _) = raw(p, "POST", "/api/groups");
    assert_eq!(status, 405);
    // Still answering after all that.
    assert_eq!(get(p, "/api/groups").0, 200);
}

#[test]
fn hostile_titles_labels_and_bodies_stay_inert() {
    let dir = TempDir::new("serve-hostile");
    store(dir.path());
    let s = serve(dir.path());
    let p = s.port;
    for target in [
        "/api/repos/g/r1/signals",
        "/api/repos/g/r1/trail",
        "/api/signals/github:o/r1:issue:1/history",
    ] {
        let (status, body) = raw(p, "GET", target);
        assert_eq!(status, 200, "{target}");
        let text = String::from_utf8_lossy(&body);
        assert!(
            !text.contains('<') && !text.contains('>'),
            "{target}: {text}"
        );
        let value: Value = serde_json::from_slice(&body).unwrap();
        assert!(
            value.to_string().contains("<script>"),
            "the data itself is kept"
        );
    }
    let (_, page) = raw(p, "GET", "/g/r1/history/issue-1.html");
    let page = String::from_utf8_lossy(&page);
    assert!(!page.contains("<script>alert"), "{page}");
    assert!(!page.contains("<img src=x"), "{page}");
    let (_, repo) = raw(p, "GET", "/g/r1/index.html");
    assert!(!String::from_utf8_lossy(&repo).contains("<img src=x"));
}

/// Whether the server closed `stream` (end of file or a reset), waiting up
/// to a minute; `false` if it is still open then.
fn closed_by_server(stream: &mut TcpStream) -> bool {
    stream
        .set_read_timeout(Some(Duration::from_secs(60)))
        .unwrap();
    let mut rest = Vec::new();
    match stream.read_to_end(&mut rest) {
        Ok(_) => true,
        Err(e) => !matches!(
            e.kind(),
            std::io::ErrorKind::WouldBlock | std::io::ErrorKind::TimedOut
        ),
    }
}

/// A client that sends half a request line and waits, and 500
/// idle connections, keep no one else from being served; the stalled head
/// is closed after `--timeout`, a keep-alive connection answers several
/// requests, and SIGTERM stops the server with the idle connections open.
#[test]
fn a_stalled_request_head_and_500_idle_connections_do_not_starve_others() {
    let dir = TempDir::new("serve-stalled");
    store(dir.path());
    let mut s = serve_with(dir.path(), &["--timeout", "1"], &[]);
    let p = s.port;

    let mut half = TcpStream::connect(("127.0.0.1", p)).unwrap();
    half.write_all(b"GET /api/gro").unwrap();
    assert_eq!(get(p, "/api/groups").0, 200);

    let idle: Vec<TcpStream> = (0..500)
        .map(|_| TcpStream::connect(("127.0.0.1", p)).unwrap())
        .collect();
    let (status, page) = get(p, "/api/repos/g/r0/signals?state=open");
    assert_eq!(status, 200, "{page}");
    assert_eq!(raw(p, "GET", "/g/r0/index.html").0, 200);

    // Keep-alive: two requests, one connection.
    let mut kept = TcpStream::connect(("127.0.0.1", p)).unwrap();
    kept.write_all(
        b"GET /api/groups HTTP/1.1\r\nHost: x\r\n\r\nGET /api/groups HTTP/1.1\r\nHost: x\r\nConnection: close\r\n\r\n",
    )
    .unwrap();
    let mut both = String::new();
    kept.read_to_string(&mut both).unwrap();
    assert_eq!(both.matches("HTTP/1.1 200 OK").count(), 2, "{both}");

    assert!(
        closed_by_server(&mut half),
        "a half request line is closed after the timeout"
    );
    let status = s.terminate().expect("serve stops on SIGTERM");
    assert!(status.success(), "{status:?}");
    drop(idle);
}

/// A client that reads its answers one byte a second (200
/// answers asked for at once, far more than the socket buffers hold)
/// keeps no one else from being served meanwhile.
#[test]
fn a_client_reading_one_byte_a_second_does_not_starve_others() {
    let dir = TempDir::new("serve-slow-reader");
    store(dir.path());
    let s = serve(dir.path());
    let p = s.port;
    let mut slow = TcpStream::connect(("127.0.0.1", p)).unwrap();
    let one = "GET /api/repos/g/r0/signals HTTP/1.1\r\nHost: x\r\n\r\n";
    slow.write_all(one.repeat(200).as_bytes()).unwrap();
    let mut byte = [0u8; 1];
    let mut read = Vec::new();
    for _ in 0..4 {
        slow.read_exact(&mut byte).unwrap();
        read.push(byte[0]);
        let (status, page) = get(p, "/api/repos/g/r0/signals?page=2");
        assert_eq!(status, 200, "{page}");
        assert_eq!(raw(p, "GET", "/g/r0/index.html").0, 200);
        std::thread::sleep(Duration::from_secs(1));
    }
    assert_eq!(read, b"HTTP");
}

/// With `--token-env`, every path needs `Authorization: Bearer
/// <token>` (401 without it or with another), the token never reaches the
/// log, and a missing variable stops `serve` before it listens.
#[test]
fn the_read_token_is_required_accepted_and_never_logged() {
    const TOKEN: &str = "read-token-4f9a1c7e";
    let dir = TempDir::new("serve-token");
    store(dir.path());
    let mut s = serve_with(
        dir.path(),
        &["--token-env", "SIGNALS_READ_TOKEN"],
        &[("SIGNALS_READ_TOKEN", TOKEN)],
    );
    let p = s.port;
    for target in ["/api/groups", "/", "/g/r0/history/issue-7.html"] {
        let (status, body) = raw(p, "GET", target);
        assert_eq!(status, 401, "{target}");
        let body: Value = serde_json::from_slice(&body).unwrap();
        assert!(body["error"].as_str().unwrap().contains("Bearer"), "{body}");
        for wrong in ["Bearer read-token", "Bearer read-token-4f9a1c7e0", TOKEN] {
            let header = format!("Authorization: {wrong}\r\n");
            assert_eq!(raw_with(p, "GET", target, &header).0, 401, "{target}");
        }
        let header = format!("Authorization: Bearer {TOKEN}\r\n");
        let (status, body) = raw_with(p, "GET", target, &header);
        assert_eq!(status, 200, "{target}: {}", String::from_utf8_lossy(&body));
    }
    assert!(s.terminate().expect("serve stops").success());
    let log = std::fs::read_to_string(dir.path().join("serve.log")).unwrap();
    assert!(log.contains("a read token is required"), "{log}");
    assert!(!log.contains(TOKEN), "{log}");

    let port = free_port().to_string();
    let out = crate::support::run(
        dir.path(),
        &[
            "serve",
            "--store",
            "signals.db",
            "--port",
            &port,
            "--token-env",
            "SIGNALS_READ_TOKEN",
        ],
        &[],
    );
    assert!(!out.status.success());
    let err = String::from_utf8_lossy(&out.stderr);
    assert!(err.contains("SIGNALS_READ_TOKEN"), "{err}");
}

/// Answers are gzipped for a client that accepts it, and only
/// then; they decode to what an uncompressed request gets.
#[test]
fn answers_are_gzipped_when_the_client_accepts_it() {
    let dir = TempDir::new("serve-gzip");
    store(dir.path());
    let s = serve(dir.path());
    for target in [
        "/api/repos/g/r0/signals",
        "/g/r0/index.html",
        "/g/r0/dataset.json",
    ] {
        let (head, plain) = exchange(s.port, "GET", target, "");
        let lower = head.to_ascii_lowercase();
        assert!(lower.starts_with("http/1.1 200"), "{target}: {head}");
        assert!(!lower.contains("content-encoding"), "{target}: {head}");
        let (head, zipped) = exchange(s.port, "GET", target, "Accept-Encoding: gzip\r\n");
        let lower = head.to_ascii_lowercase();
        assert!(lower.contains("content-encoding: gzip"), "{target}: {head}");
        let mut out = Vec::new();
        flate2::read::GzDecoder::new(&zipped[..])
            .read_to_end(&mut out)
            .unwrap();
        assert_eq!(out, plain, "{target}");
        assert!(
            zipped.len() * 3 < plain.len(),
            "{target}: {} bytes gzipped of {}",
            zipped.len(),
            plain.len()
        );
    }
}

/// `serve` listens before its private site is exported: the
/// API and `/metrics` answer from the first request; a page, and a
/// repository's trends (read from that export), answer 503 with
/// `Retry-After` and say why until the log says the export is done; then
/// 200. The log says when the export starts and when it is done, after
/// the line that says where it serves.
#[test]
fn serve_answers_the_api_at_once_and_pages_once_exported() {
    let dir = TempDir::new("serve-at-once");
    store(dir.path());
    let port = free_port();
    let log_path = dir.path().join("serve.log");
    let child = Command::new(signals_bin())
        .current_dir(dir.path())
        .args([
            "serve",
            "--port",
            &port.to_string(),
            "--store",
            "signals.db",
        ])
        .env_clear()
        .env("TMPDIR", dir.path())
        .stdout(Stdio::null())
        .stderr(std::fs::File::create(&log_path).unwrap())
        .spawn()
        .unwrap();
    let _served = Served { child, port };
    let log = || std::fs::read_to_string(&log_path).unwrap_or_default();
    let end = Instant::now() + Duration::from_secs(60);
    while TcpStream::connect(("127.0.0.1", port)).is_err() {
        assert!(Instant::now() < end, "serve did not listen: {}", log());
        std::thread::sleep(Duration::from_millis(10));
    }
    let mut waited = 0;
    loop {
        // The log is read before the answers: a page that answers 503
        // after it says "exported" would be a failure.
        let done = log().contains(EXPORTED);
        let (status, _) = get(port, "/api/groups");
        assert_eq!(status, 200, "{}", log());
        let (status, metrics) = raw(port, "GET", "/metrics");
        assert_eq!(status, 200, "{}", log());
        assert!(String::from_utf8_lossy(&metrics).contains("signals_"));
        for target in ["/", "/style.css", "/g/r0/index.html"] {
            let (head, body) = exchange(port, "GET", target, "");
            let status: u16 = head.split(' ').nth(1).unwrap().parse().unwrap();
            if status == 503 {
                assert!(!done, "{target}: 503 after the export: {}", log());
                assert!(head.contains("retry-after: 5"), "{head}");
                let body = String::from_utf8_lossy(&body);
                assert!(body.contains("being exported"), "{body}");
                waited += 1;
            } else {
                assert_eq!(status, 200, "{target}: {head}\n{}", log());
            }
        }
        let (head, body) = exchange(port, "GET", "/api/repos/g/r0/trends", "");
        if head.split(' ').nth(1) == Some("503") {
            assert!(!done && head.contains("retry-after: 5"), "{head}");
            let error: Value = serde_json::from_slice(&body).unwrap();
            assert!(error["error"].as_str().unwrap().contains("being exported"));
        } else {
            assert!(head.starts_with("HTTP/1.1 200"), "{head}");
        }
        if done {
            break;
        }
        assert!(Instant::now() < end, "never exported: {}", log());
        std::thread::sleep(Duration::from_millis(20));
    }
    let log = log();
    let serving = log.find("serving ").expect(&log);
    let exporting = log.find("exporting the site's pages").expect(&log);
    let exported = log.find(EXPORTED).expect(&log);
    assert!(serving < exporting && exporting < exported, "{log}");
    writeln!(
        std::io::stderr(),
        "{waited} page answers were 503 before the export was done"
    )
    .unwrap();
}

/// A `serve` stopped (SIGTERM) while its first export may still run stops
/// that export too: its private folder is removed and nothing writes it
/// again afterwards.
#[test]
fn serve_stopped_during_its_first_export_leaves_no_private_folder() {
    let dir = TempDir::new("serve-stop-early");
    store(dir.path());
    let port = free_port();
    let child = Command::new(signals_bin())
        .current_dir(dir.path())
        .args([
            "serve",
            "--port",
            &port.to_string(),
            "--store",
            "signals.db",
        ])
        .env_clear()
        .env("TMPDIR", dir.path())
        .stdout(Stdio::null())
        .stderr(Stdio::null())
        .spawn()
        .unwrap();
    let mut served = Served { child, port };
    let private = dir
        .path()
        .join(format!("signals-serve-{}", served.child.id()));
    let end = Instant::now() + Duration::from_secs(60);
    while TcpStream::connect(("127.0.0.1", port)).is_err() {
        assert!(Instant::now() < end, "serve did not listen");
        std::thread::sleep(Duration::from_millis(10));
    }
    let status = served.terminate().expect("serve stopped on SIGTERM");
    assert!(status.success(), "{status}");
    // An export left running would write the folder again.
    std::thread::sleep(Duration::from_secs(3));
    assert!(!private.exists(), "{} is back", private.display());
}
