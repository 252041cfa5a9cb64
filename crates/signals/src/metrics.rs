//! The Prometheus text exposition of what the store knows:
//! per repository its last success, runs, failures, items and events; per
//! token (by fingerprint, never the token) its rate limit; per worker on
//! PostgreSQL its state and when it was last seen; and the HTTP totals.
//! `signals metrics` prints it (for node_exporter's textfile collector),
//! `signals serve` answers it at `/metrics`. Every label set is bounded by
//! the configuration (repositories, tokens, workers). docs/metrics.md
//! lists every metric.

use std::fmt::Write as _;
use std::time::Duration;

use jiff::Timestamp;
use signals_core::health::Health;
use signals_core::owners::State;
use signals_store::{OwnerStatus, RepoStatus, Status};
use signals_store_pg::QueueStatus;

use crate::store::Opened;

/// A per-repository metric: name, type, help, value.
type RepoMetric = (
    &'static str,
    &'static str,
    &'static str,
    fn(&signals_store::RepoStatus, &signals_core::health::Health) -> f64,
);

/// A per-token metric: name, help, value from the limit and when it was
/// seen.
type LimitMetric = (
    &'static str,
    &'static str,
    fn(&signals_core::RateLimit, Timestamp) -> f64,
);

/// One metric family being written: its samples follow its header.
struct Family<'a> {
    out: &'a mut String,
    name: &'static str,
}

impl Family<'_> {
    fn sample(&mut self, labels: &[(&str, &str)], value: f64) {
        let _ = write!(self.out, "{}", self.name);
        if !labels.is_empty() {
            self.out.push('{');
            for (i, (k, v)) in labels.iter().enumerate() {
                if i > 0 {
                    self.out.push(',');
                }
                let _ = write!(self.out, "{k}=\"{}\"", escape_label(v));
            }
            self.out.push('}');
        }
        let _ = writeln!(self.out, " {}", number(value));
    }
}

fn family<'a>(out: &'a mut String, name: &'static str, kind: &str, help: &str) -> Family<'a> {
    let _ = writeln!(out, "# HELP {name} {help}");
    let _ = writeln!(out, "# TYPE {name} {kind}");
    Family { out, name }
}

/// A label value as the text format wants it: backslash, double quote and
/// line feed escaped.
fn escape_label(v: &str) -> String {
    let mut s = String::with_capacity(v.len());
    for c in v.chars() {
        match c {
            '\\' => s.push_str("\\\\"),
            '"' => s.push_str("\\\""),
            '\n' => s.push_str("\\n"),
            c => s.push(c),
        }
    }
    s
}

/// Whole numbers without a fraction, others as Rust prints them.
fn number(v: f64) -> String {
    if v.fract() == 0.0 && v.abs() < 1e15 {
        format!("{}", v as i64)
    } else {
        format!("{v}")
    }
}

fn secs(t: Timestamp) -> f64 {
    t.as_millisecond() as f64 / 1000.0
}

/// The exposition of the store at `now` (the configuration's `clock`, else
/// the present) (`signals metrics`, and `serve`'s `/metrics`).
pub fn text(store: &Opened, interval: Duration, now: Timestamp) -> anyhow::Result<String> {
    let status = store.status()?;
    let owners = store.owners_status()?;
    let queue = match store {
        Opened::Postgres(pg) => Some(pg.queue_status(interval)?),
        Opened::Sqlite(_) => None,
    };
    Ok(render(&status, &owners, queue.as_ref(), interval, now))
}

/// The exposition for `status` (and, on PostgreSQL, `queue`), judged at
/// `now` against the collection `interval`.
pub fn render(
    status: &Status,
    owners: &[OwnerStatus],
    queue: Option<&QueueStatus>,
    interval: Duration,
    now: Timestamp,
) -> String {
    let mut out = String::new();
    let owned = crate::health::Owned::new(owners);
    let repos: Vec<_> = status
        .repositories
        .iter()
        .map(|r| Judged {
            labels: [
                ("group", r.summary.group.id.as_str()),
                ("repository", r.summary.repo.id.as_str()),
            ],
            status: r,
            health: crate::health::of(r, &owned, interval, now),
        })
        .collect();
    repository_families(&mut out, &repos);
    http_totals(&mut out, status, owners);
    rate_limit_families(&mut out, status);
    owner_families(&mut out, owners);
    if let Some(q) = queue {
        worker_families(&mut out, q);
    }
    out
}

/// A repository as its metrics see it.
struct Judged<'a> {
    /// Its labels: group and repository.
    labels: [(&'static str, &'a str); 2],
    status: &'a RepoStatus,
    health: Health,
}

/// Per repository: its last success and reconcile, whether it is left
/// out, its runs, failures, staleness, items and events.
fn repository_families(out: &mut String, repos: &[Judged<'_>]) {
    let mut f = family(
        out,
        "signals_repository_last_success_timestamp_seconds",
        "gauge",
        "Unix time of the repository's latest successful run (absent before the first).",
    );
    for j in repos {
        if let Some(t) = j.health.last_success {
            f.sample(&j.labels, secs(t));
        }
    }
    let mut f = family(
        out,
        "signals_repository_last_reconcile_timestamp_seconds",
        "gauge",
        "Unix time of the repository's latest reconcile, a run that listed every item (absent before the first).",
    );
    for j in repos {
        if let Some(t) = j.health.last_reconcile {
            f.sample(&j.labels, secs(t));
        }
    }
    // A repository its owner no longer lists (or that the group's filter
    // now leaves out) is no longer collected on purpose: its health says
    // so (`left_out`), and it is never counted stale.
    let mut f = family(
        out,
        "signals_repository_left_out",
        "gauge",
        "1 when the repository was found through an owner (orgs) that no longer lists it, or the group's filter now leaves it out, so it is no longer collected; else 0.",
    );
    for j in repos {
        f.sample(&j.labels, f64::from(u8::from(j.health.left_out.is_some())));
    }
    let per_repo: [RepoMetric; 6] = [
        (
            "signals_repository_runs_total",
            "counter",
            "Successful runs of the repository.",
            |r, _| r.summary.run_count as f64,
        ),
        (
            "signals_repository_failures_total",
            "counter",
            "Failed collection attempts of the repository.",
            |r, _| r.totals.failures as f64,
        ),
        (
            "signals_repository_failures_in_row",
            "gauge",
            "Failed attempts since the repository's latest successful run.",
            |r, _| r.totals.failures_since_success as f64,
        ),
        (
            "signals_repository_stale",
            "gauge",
            "1 when no run of the repository succeeded for more than 3 collection intervals (or none ever did after a failure), else 0; always 0 for a repository left out (signals_repository_left_out), which is not collected on purpose.",
            |_, h| f64::from(u8::from(h.stale)),
        ),
        (
            "signals_repository_items",
            "gauge",
            "Issues, pull requests and releases of the repository in the store.",
            |r, _| r.totals.items as f64,
        ),
        (
            "signals_repository_events_total",
            "counter",
            "Observation events (discovered, changed) recorded for the repository.",
            |r, _| r.totals.events as f64,
        ),
    ];
    for (name, kind, help, value) in per_repo {
        let mut f = family(out, name, kind, help);
        for j in repos {
            f.sample(&j.labels, value(j.status, &j.health));
        }
    }
}

/// The HTTP totals of every run and owner listing in the store.
fn http_totals(out: &mut String, status: &Status, owners: &[OwnerStatus]) {
    // Owner listings count with the runs: same requests, same
    // HTTP layer.
    let total = |pick: fn(&signals_core::RequestStats) -> u64| -> f64 {
        status
            .repositories
            .iter()
            .map(|r| pick(&r.totals.requests) as f64)
            .chain(owners.iter().map(|o| pick(&o.totals) as f64))
            .sum()
    };
    let totals: [(&'static str, &str, f64); 4] = [
        (
            "signals_http_requests_total",
            "Requests sent to code hosts by the runs and owner listings in the store.",
            total(|s| s.requests),
        ),
        (
            "signals_http_not_modified_total",
            "Of those, answered 304 Not Modified.",
            total(|s| s.not_modified),
        ),
        (
            "signals_http_received_bytes_total",
            "Bytes of response bodies received by those runs.",
            total(|s| s.bytes_received),
        ),
        (
            "signals_http_retries_total",
            "Requests the HTTP layer retried (5xx, timeouts, resets) in those runs.",
            total(|s| s.retries),
        ),
    ];
    for (name, help, value) in totals {
        family(out, name, "counter", help).sample(&[], value);
    }
}

/// Per token (its fingerprint): its rate limit as last seen.
fn rate_limit_families(out: &mut String, status: &Status) {
    let limits: [LimitMetric; 4] = [
        (
            "signals_rate_limit_remaining",
            "Requests left in the token's rate-limit window, as last seen.",
            |l, _| l.remaining as f64,
        ),
        (
            "signals_rate_limit_limit",
            "Requests allowed per window for the token, as last seen.",
            |l, _| l.limit as f64,
        ),
        (
            "signals_rate_limit_reset_timestamp_seconds",
            "Unix time at which the token's window resets, as last seen (NaN when the host did not say).",
            |l, _| l.reset.map_or(f64::NAN, secs),
        ),
        (
            "signals_rate_limit_seen_timestamp_seconds",
            "Unix time at which the token's rate limit was last seen.",
            |_, seen| secs(seen),
        ),
    ];
    for (name, help, value) in limits {
        let mut f = family(out, name, "gauge", help);
        for (token, limit, seen) in &status.rate_limits {
            f.sample(&[("token", token)], value(limit, *seen));
        }
    }
}

/// Per owner: its last listing, and its repositories by state.
fn owner_families(out: &mut String, owners: &[OwnerStatus]) {
    let mut f = family(
        out,
        "signals_owner_last_listing_timestamp_seconds",
        "gauge",
        "Unix time of the owner's latest successful listing (absent before the first).",
    );
    for o in owners {
        if let Some(at) = o.listed_at {
            let labels = [
                ("group", o.group_id.as_str()),
                ("host", o.host.as_str()),
                ("owner", o.owner.as_str()),
            ];
            f.sample(&labels, secs(at));
        }
    }
    let mut f = family(
        out,
        "signals_owner_repositories",
        "gauge",
        "Repositories found through the owner, by state (tracked, gone, archived, fork, excluded).",
    );
    for o in owners {
        for state in [
            State::Tracked,
            State::Gone,
            State::Archived,
            State::Fork,
            State::Excluded,
        ] {
            let n = o.repos.iter().filter(|k| k.state == state).count();
            let labels = [
                ("group", o.group_id.as_str()),
                ("host", o.host.as_str()),
                ("owner", o.owner.as_str()),
                ("state", state.as_str()),
            ];
            f.sample(&labels, n as f64);
        }
    }
}

/// On PostgreSQL: per worker, when it last reported and its state; the
/// repositories due.
fn worker_families(out: &mut String, q: &QueueStatus) {
    let mut f = family(
        out,
        "signals_worker_last_seen_timestamp_seconds",
        "gauge",
        "Unix time at which the worker last reported (PostgreSQL stores).",
    );
    for w in &q.workers {
        f.sample(&[("worker", &w.id)], secs(w.seen_at));
    }
    let mut f = family(
        out,
        "signals_worker_state",
        "gauge",
        "1 for the worker's state (collecting, idle or stopped) as it last reported.",
    );
    for w in &q.workers {
        let state = w.state.split_whitespace().next().unwrap_or("unknown");
        f.sample(&[("worker", &w.id), ("state", state)], 1.0);
    }
    family(
        out,
        "signals_repositories_due",
        "gauge",
        "Repositories due for collection now and not leased (PostgreSQL stores).",
    )
    .sample(&[], q.due as f64);
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn label_values_are_escaped_and_numbers_plain() {
        assert_eq!(escape_label("a\"b\\c\nd"), "a\\\"b\\\\c\\nd");
        assert_eq!(number(3.0), "3");
        assert_eq!(number(1.5), "1.5");
        assert_eq!(number(1_764_000_000.25), "1764000000.25");
    }

    #[test]
    fn an_empty_store_gives_headers_and_zero_totals() {
        let status = Status {
            repositories: vec![],
            rate_limits: vec![],
        };
        let text = render(
            &status,
            &[],
            None,
            Duration::from_secs(3600),
            Timestamp::UNIX_EPOCH,
        );
        assert!(text.contains("# TYPE signals_repository_runs_total counter\n"));
        assert!(text.contains("\nsignals_http_requests_total 0\n"));
        assert!(!text.contains("signals_worker_state"));
    }
}
