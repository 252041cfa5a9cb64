//! `signals serve` response times: `cargo bench -p signals --bench serve`.
//!
//! A store with one repository of 20,000 signals (generated through the
//! store API, as a collector would write it, plus a second run in which 200
//! items changed) is served by the release binary on loopback; each
//! endpoint is asked 7 times and the median and the slowest are printed.
//! Wall times on this machine, for scale; the bench checks the answers'
//! status only.

use std::io::{Read, Write};
use std::net::TcpStream;
use std::process::{Command, Stdio};
use std::time::{Duration, Instant};

use jiff::{SignedDuration, Timestamp};

#[path = "../tests/it/synth.rs"]
mod synth;

const ITEMS: usize = 20_000;
const REPS: usize = 7;

fn get(port: u16, target: &str) -> (u16, usize) {
    let mut s = TcpStream::connect(("127.0.0.1", port)).unwrap();
    write!(
        s,
        "GET {target} HTTP/1.1\r\nHost: x\r\nConnection: close\r\n\r\n"
    )
    .unwrap();
    let mut all = Vec::new();
    s.read_to_end(&mut all).unwrap();
    let head = String::from_utf8_lossy(&all[..all.len().min(64)]).to_string();
    (head.split(' ').nth(1).unwrap().parse().unwrap(), all.len())
}

fn main() {
    let dir = std::env::temp_dir().join(format!("signals-bench-serve-{}", std::process::id()));
    let _ = std::fs::remove_dir_all(&dir);
    std::fs::create_dir_all(&dir).unwrap();
    let t1: Timestamp = "2026-11-20T10:00:00Z".parse().unwrap();
    {
        let mut store = signals_store_sqlite::Store::open(dir.join("signals.db")).unwrap();
        let keys = synth::populate(&mut store, 1, ITEMS, 400, t1);
        synth::bump(
            &mut store,
            keys[0],
            0,
            200,
            400,
            t1,
            t1 + SignedDuration::from_hours(1),
        );
    }
    let port = std::net::TcpListener::bind("127.0.0.1:0")
        .unwrap()
        .local_addr()
        .unwrap()
        .port();
    let started = Instant::now();
    let mut child = Command::new(env!("CARGO_BIN_EXE_signals"))
        .current_dir(&dir)
        .args([
            "serve",
            "--store",
            "signals.db",
            "--port",
            &port.to_string(),
        ])
        // Its private site goes in the bench's folder.
        .env("TMPDIR", &dir)
        .stdout(Stdio::null())
        .stderr(std::fs::File::create(dir.join("serve.log")).unwrap())
        .spawn()
        .unwrap();
    // It listens at once; ready is when its pages are exported.
    while !std::fs::read_to_string(dir.join("serve.log"))
        .unwrap_or_default()
        .contains("the site is exported")
    {
        assert!(
            started.elapsed() < Duration::from_secs(600),
            "serve did not start"
        );
        std::thread::sleep(Duration::from_millis(20));
    }
    let ready = started.elapsed();
    println!("## `signals serve` on one repository of {ITEMS} signals\n");
    println!(
        "Start, including the first export of the site (history pages are rendered on demand): {:.1} s\n",
        ready.as_secs_f64()
    );
    println!("| request | median | slowest | bytes |");
    println!("|---|---:|---:|---:|");
    for target in [
        "/api/groups",
        "/api/repos/g/r0/signals",
        "/api/repos/g/r0/signals?page=40",
        "/api/repos/g/r0/signals?label=bug&state=open&kind=issue",
        "/api/repos/g/r0/signals?q=item+1999&sort=updated",
        "/api/repos/g/r0/trail",
        "/api/signals/github:o/r0:issue:7/history",
        "/g/r0/index.html",
        "/g/r0/history/issue-7.html",
        "/g/r0/history/issue-19999.html",
    ] {
        let mut times = Vec::new();
        let mut bytes = 0;
        for _ in 0..REPS {
            let t = Instant::now();
            let (status, n) = get(port, target);
            times.push(t.elapsed());
            assert_eq!(status, 200, "{target}");
            bytes = n;
        }
        times.sort();
        println!(
            "| `{target}` | {:.1} ms | {:.1} ms | {bytes} |",
            times[REPS / 2].as_secs_f64() * 1000.0,
            times[REPS - 1].as_secs_f64() * 1000.0
        );
    }
    // SIGTERM: the server removes its private site.
    // SAFETY: kill(2) on our own child's pid.
    unsafe { libc::kill(child.id() as libc::pid_t, libc::SIGTERM) };
    let _ = child.wait();
    let _ = std::fs::remove_dir_all(&dir);
}
