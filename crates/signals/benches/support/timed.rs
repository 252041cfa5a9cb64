//! A release `signals export` under `/usr/bin/time`, for the benchmarks
//! that report its wall time and peak RSS (`scale`, `trends`).

use std::path::Path;
use std::process::Command;

/// Wall time, peak RSS and the export's own line, from `/usr/bin/time`.
pub struct Timed {
    /// Seconds.
    pub wall: f64,
    /// Peak resident set size, KiB.
    pub rss_kib: u64,
    /// What the export printed.
    pub said: String,
}

/// Runs `signals export --store signals.db --out site` in `dir`.
pub fn timed_export(dir: &Path) -> Timed {
    let out = Command::new("/usr/bin/time")
        .current_dir(dir)
        .args(["-f", "%e %M", env!("CARGO_BIN_EXE_signals")])
        .args(["export", "--store", "signals.db", "--out", "site"])
        .output()
        .expect("/usr/bin/time runs (Debian package `time`)");
    assert!(out.status.success(), "export failed: {out:?}");
    let stderr = String::from_utf8_lossy(&out.stderr);
    let mut parts = stderr.lines().last().unwrap_or_default().split_whitespace();
    Timed {
        wall: parts
            .next()
            .and_then(|w| w.parse().ok())
            .unwrap_or(f64::NAN),
        rss_kib: parts.next().and_then(|m| m.parse().ok()).unwrap_or(0),
        said: String::from_utf8_lossy(&out.stdout).trim().to_string(),
    }
}
