//! `signals status`: each repository's last run, its counts and requests,
//! its last failure, and the rate limits last seen.

use std::io::Write;
use std::path::Path;

use serde_json::json;
use signals_core::dataset::fmt_collected;

/// Prints the status table (or JSON).
pub fn run(store_path: &Path, as_json: bool) -> anyhow::Result<u8> {
    let store = super::open_existing_store(store_path)?;
    let status = store.status()?;
    let mut out = std::io::stdout().lock();
    if as_json {
        let repos: Vec<_> = status
            .repositories
            .iter()
            .map(|r| {
                json!({
                    "group": r.summary.group.id,
                    "repository": r.summary.repo.id,
                    "repo": r.summary.repo.repo.to_string(),
                    "hostName": r.summary.host_name.as_ref().map(|n| n.to_string()),
                    "missing": r.summary.missing,
                    "runs": r.summary.run_count,
                    "lastRun": r.last_run.as_ref().map(|l| json!({
                        "collectedAt": fmt_collected(l.record.collected_at),
                        "since": fmt_collected(l.record.since),
                        "observedCount": l.record.observed_count,
                        "changedCount": l.record.changed_count,
                        "requests": l.stats.requests,
                        "notModified": l.stats.not_modified,
                        "bytesReceived": l.stats.bytes_received,
                        "retries": l.stats.retries,
                    })),
                    "lastFailure": r.last_failure.as_ref().map(|f| json!({
                        "at": fmt_collected(f.at), "kind": f.kind, "message": f.message,
                    })),
                })
            })
            .collect();
        let limits: Vec<_> = status
            .rate_limits
            .iter()
            .map(|(fp, l, seen)| {
                json!({"token": fp, "limit": l.limit, "remaining": l.remaining,
                "reset": fmt_collected(l.reset), "seenAt": fmt_collected(*seen)})
            })
            .collect();
        serde_json::to_writer_pretty(
            &mut out,
            &json!({"repositories": repos, "rateLimits": limits}),
        )?;
        writeln!(out)?;
        return Ok(crate::exit::OK);
    }
    writeln!(
        out,
        "{:<40} {:>4} {:<24} {:>8} {:>8} {:>8} {:>6}  last failure",
        "repository", "runs", "last run", "observed", "changed", "requests", "304s"
    )?;
    for r in &status.repositories {
        let name = format!("{}/{}", r.summary.group.id, r.summary.repo.id);
        let (at, observed, changed, requests, not_modified) = match &r.last_run {
            Some(l) => (
                fmt_collected(l.record.collected_at),
                l.record.observed_count.to_string(),
                l.record.changed_count.to_string(),
                l.stats.requests.to_string(),
                l.stats.not_modified.to_string(),
            ),
            None => (
                "never".into(),
                "-".into(),
                "-".into(),
                "-".into(),
                "-".into(),
            ),
        };
        let failure = match &r.last_failure {
            Some(f)
                if r.last_run
                    .as_ref()
                    .is_none_or(|l| f.at > l.record.collected_at) =>
            {
                format!("{} {}: {}", fmt_collected(f.at), f.kind, f.message)
            }
            _ => String::new(),
        };
        writeln!(
            out,
            "{name:<40} {:>4} {at:<24} {observed:>8} {changed:>8} {requests:>8} {not_modified:>6}  {failure}",
            r.summary.run_count
        )?;
        if let Some(new) = &r.summary.host_name {
            writeln!(
                out,
                "  renamed on the host to {new}: update `repo` in signals.toml"
            )?;
        }
    }
    for (fp, l, seen) in &status.rate_limits {
        writeln!(
            out,
            "rate limit (token {fp}): {} of {} left, resets {} (seen {})",
            l.remaining,
            l.limit,
            fmt_collected(l.reset),
            fmt_collected(*seen)
        )?;
    }
    if status.repositories.is_empty() {
        writeln!(
            out,
            "the store has no repositories yet: run `signals collect`"
        )?;
    }
    Ok(crate::exit::OK)
}
