//! A loopback HTTP receiver for alert tests and the notify benchmark
//! (`benches/notify.rs` includes this file), and [`fill`], which commits
//! runs with their alert messages the way `collect` does.

#![allow(dead_code)] // each user takes what it needs

use std::collections::BTreeMap;
use std::sync::{Arc, Mutex};
use std::time::{Duration, Instant};

use jiff::{SignedDuration, Timestamp};
use signals_core::ItemSnapshot;
use signals_core::Source;
use signals_core::importance::Weights;
use signals_core::notify::{Outgoing, Rule, RuleRef, RunInput, messages};
use signals_core::run::account;
use signals_store::{Backend, RunCommit};

use crate::synth;

/// How a test receiver answers one request.
#[derive(Debug, Clone, Copy)]
pub enum Answer {
    /// 200.
    Ok,
    /// This status.
    Status(u16),
    /// 429 with `Retry-After` in seconds.
    RetryAfter(u64),
    /// Waits, then 200.
    Hang(Duration),
}

/// One request the receiver saw.
#[derive(Debug, Clone)]
pub struct Hit {
    pub at: Instant,
    pub path: String,
    pub delivery: String,
    pub signature: Option<String>,
    pub event: Option<String>,
    pub body: Vec<u8>,
}

/// A loopback HTTP/1.1 receiver on std's sockets: records every request
/// and answers by `script` (given the request and how many times its
/// delivery id came before), one thread per connection so a hang holds
/// up nothing else.
pub struct Receiver {
    stop: Arc<std::sync::atomic::AtomicBool>,
    hits: Arc<Mutex<Vec<Hit>>>,
    pub url: String,
}

type Script = Arc<dyn Fn(&Hit, usize) -> Answer + Send + Sync>;

impl Receiver {
    pub fn start(script: impl Fn(&Hit, usize) -> Answer + Send + Sync + 'static) -> Receiver {
        use std::sync::atomic::{AtomicBool, Ordering};
        let listener = std::net::TcpListener::bind("127.0.0.1:0").unwrap();
        let port = listener.local_addr().unwrap().port();
        let hits: Arc<Mutex<Vec<Hit>>> = Arc::default();
        let stop = Arc::new(AtomicBool::new(false));
        let script: Script = Arc::new(script);
        let (h, st) = (hits.clone(), stop.clone());
        std::thread::spawn(move || {
            for conn in listener.incoming() {
                if st.load(Ordering::SeqCst) {
                    break;
                }
                let Ok(conn) = conn else { continue };
                let (h, script) = (h.clone(), script.clone());
                std::thread::spawn(move || serve_one(conn, &h, &script));
            }
        });
        Receiver {
            stop,
            hits,
            url: format!("http://127.0.0.1:{port}"),
        }
    }

    pub fn hits(&self) -> Vec<Hit> {
        self.hits.lock().unwrap().clone()
    }

    /// Requests by delivery id, in arrival order.
    pub fn by_delivery(&self) -> BTreeMap<String, Vec<Hit>> {
        let mut out: BTreeMap<String, Vec<Hit>> = BTreeMap::new();
        for h in self.hits() {
            out.entry(h.delivery.clone()).or_default().push(h);
        }
        out
    }
}

/// Reads one request (headers, then `Content-Length` bytes), records it
/// and answers; the connection is then closed.
fn serve_one(mut conn: std::net::TcpStream, hits: &Mutex<Vec<Hit>>, script: &Script) {
    use std::io::{Read, Write};
    let mut buf = Vec::new();
    let mut chunk = [0u8; 8192];
    let head_end = loop {
        if let Some(i) = buf.windows(4).position(|w| w == b"\r\n\r\n") {
            break i;
        }
        match conn.read(&mut chunk) {
            Ok(0) | Err(_) => return,
            Ok(n) => buf.extend_from_slice(&chunk[..n]),
        }
    };
    let head = String::from_utf8_lossy(&buf[..head_end]).to_string();
    let mut lines = head.lines();
    let path = lines
        .next()
        .and_then(|l| l.split_whitespace().nth(1))
        .unwrap_or("")
        .to_string();
    let headers: Vec<(String, String)> = lines
        .filter_map(|l| l.split_once(':'))
        .map(|(k, v)| (k.trim().to_ascii_lowercase(), v.trim().to_string()))
        .collect();
    let header = |name: &str| {
        headers
            .iter()
            .find(|(k, _)| k == name)
            .map(|(_, v)| v.clone())
    };
    let length: usize = header("content-length")
        .and_then(|v| v.parse().ok())
        .unwrap_or(0);
    let mut body = buf[head_end + 4..].to_vec();
    while body.len() < length {
        match conn.read(&mut chunk) {
            Ok(0) | Err(_) => return,
            Ok(n) => body.extend_from_slice(&chunk[..n]),
        }
    }
    let hit = Hit {
        at: Instant::now(),
        path,
        delivery: header("x-signals-delivery").unwrap_or_default(),
        signature: header("x-signals-signature-256"),
        event: header("x-signals-event"),
        body,
    };
    let seen = {
        let mut all = hits.lock().unwrap();
        let n = all.iter().filter(|x| x.delivery == hit.delivery).count();
        all.push(hit.clone());
        n
    };
    let (status, extra) = match script(&hit, seen) {
        Answer::Ok => (200, String::new()),
        Answer::Status(code) => (code, String::new()),
        Answer::RetryAfter(secs) => (429, format!("Retry-After: {secs}\r\n")),
        Answer::Hang(d) => {
            std::thread::sleep(d);
            (200, String::new())
        }
    };
    let _ = write!(
        conn,
        "HTTP/1.1 {status} X\r\nContent-Length: 2\r\nConnection: close\r\n{extra}\r\nok"
    );
}

impl Drop for Receiver {
    fn drop(&mut self) {
        self.stop.store(true, std::sync::atomic::Ordering::SeqCst);
        // Wakes the accept loop so it sees `stop`.
        let _ = std::net::TcpStream::connect(self.url.trim_start_matches("http://"));
    }
}

/// Commits a run of synthetic repository `n` at `at` that observed
/// `observed`, with the messages `rules` call for, as the pipeline does.
/// Returns the messages committed.
pub fn commit_alerting(
    store: &mut dyn Backend,
    n: usize,
    at: Timestamp,
    observed: Vec<ItemSnapshot>,
    rules: &[RuleRef<'_>],
    link: Option<&str>,
) -> Vec<Outgoing> {
    let (group, repo) = (synth::group(), synth::tracked(n));
    let key = store.ensure_repository(&group, &repo).unwrap();
    let ids: Vec<String> = observed.iter().map(|i| i.id(Source::Github)).collect();
    let previous = store.latest_snapshots_for(key, &ids).unwrap();
    let delta = account(Source::Github, observed, &previous);
    let out = messages(
        rules,
        &RunInput {
            group: &group,
            repo: &repo,
            repo_url: &format!("https://github.com/{}", repo.repo),
            collected_at: at,
            first_run: false,
            events: &delta.events,
            snapshots: &delta.snapshots,
            weights: &Weights::default(),
            link,
        },
    );
    store
        .commit_run(
            key,
            &RunCommit {
                record: signals_core::RunRecord {
                    collected_at: at,
                    since: at - SignedDuration::from_hours(24),
                    observed_count: delta.observed_count,
                    changed_count: delta.changed_count(),
                },
                context: synth::context(n),
                news: Default::default(),
                snapshots: delta.snapshots,
                events: delta.events,
                references: vec![],
                stats: Default::default(),
                renamed_to: None,
                messages: out.clone(),
                reconciled: false,
                open_pulls: Default::default(),
                downloads: Vec::new(),
                gone: Vec::new(),
            },
        )
        .unwrap();
    out
}

/// Commits `runs` runs of each of `repos` synthetic repositories, each
/// discovering 3 new items, with the messages of `rules` (name, held).
/// Returns the delivery ids.
pub fn fill(
    store: &mut dyn Backend,
    repos: usize,
    runs: usize,
    rules: &[(&str, bool)],
) -> Vec<String> {
    let named: Vec<Rule> = rules.iter().map(|(n, _)| Rule::any(n)).collect();
    let refs: Vec<RuleRef<'_>> = named
        .iter()
        .zip(rules)
        .map(|(rule, (_, held))| RuleRef { rule, held: *held })
        .collect();
    let mut ids = Vec::new();
    // Runs of the last hours: a message is given up a day after its run.
    let start = Timestamp::now() - SignedDuration::from_hours(runs as i64 + 1);
    for n in 0..repos {
        for r in 0..runs {
            let at = start + SignedDuration::from_hours(r as i64);
            let observed: Vec<_> = (0..3).map(|k| synth::item(n, r * 3 + k, 64, at)).collect();
            let out = commit_alerting(store, n, at, observed, &refs, None);
            ids.extend(out.into_iter().map(|m| m.delivery));
        }
    }
    ids
}
