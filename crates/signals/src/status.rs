//! The status of a store, as `signals status` shows it: each
//! repository's last run, its counts and requests, its health and last
//! failure, the owners' listings, the rate limits last seen, the alerts'
//! outbox, and on PostgreSQL the workers and their leases. [`Report`]
//! reads it all at once, then writes it as a table or as JSON. With the
//! configuration (`advice.rs`), every repository not collected is listed,
//! those no run reached included, each with why and the setting to check.

use std::io::Write;
use std::time::Duration;

use jiff::Timestamp;
use serde_json::{Value, json};
use signals_core::DiscussionsOff;
use signals_core::dataset::fmt_collected;
use signals_core::owners::{Known, State};
use signals_store::{OwnerStatus, RepoStatus, RuleOutbox, Status};
use signals_store_pg::QueueStatus;

use crate::config::Config;
use crate::health::Owned;
use crate::store::Opened;

mod advice;

use advice::{NotTried, Setup};

/// A repository its owner renamed, as `status --json` gives it: the name
/// its signal ids keep, the host's name now, since when; `null` if not.
fn renamed_json(k: &Known) -> Value {
    match (&k.tracked_as, k.renamed_at) {
        (Some(from), Some(at)) => json!({
            "from": from.to_string(), "to": k.full_name.to_string(), "since": fmt_collected(at),
        }),
        _ => Value::Null,
    }
}

/// A repository its owner renamed, as `status` and `repos list` say it.
pub fn renamed_line(k: &Known, owner: &str) -> Option<String> {
    let (from, at) = (k.tracked_as.as_ref()?, k.renamed_at?);
    Some(format!(
        "renamed on the host from {from} to {} since {} (listed by {owner}); followed under the same id, its history goes on",
        k.full_name,
        fmt_collected(at)
    ))
}

/// `3600s` as `1h`, `90s` as `1m 30s`.
fn humantime(d: Duration) -> String {
    jiff::SignedDuration::try_from(d)
        .map(|d| format!("{d:#}"))
        .unwrap_or_else(|_| format!("{d:?}"))
}

/// What the store says of itself, read at one instant.
pub struct Report {
    status: Status,
    alerts: Vec<RuleOutbox>,
    owners: Vec<OwnerStatus>,
    /// On PostgreSQL: the workers, the leases and how many are due.
    queue: Option<QueueStatus>,
    /// Why the latest run of a repository read no discussions.
    discussions: Vec<(signals_store::RepoKey, DiscussionsOff)>,
    /// The collection interval, against which health is judged.
    interval: Duration,
    now: Timestamp,
    /// The configuration's hosts and repositories, for what to check.
    setup: Setup,
    /// The configured repositories no run has reached.
    not_tried: Vec<NotTried>,
}

impl Report {
    /// Reads the status of `store`; on a PostgreSQL store, also the
    /// workers and their leases, and how many repositories are due at
    /// the configuration's `interval`; health is judged at its `now` (its
    /// `clock`, else the present).
    pub fn read(store: &Opened, config: &Config) -> anyhow::Result<Report> {
        let (interval, now) = (config.interval, config.now());
        let setup = Setup::of(config);
        let status = store.status()?;
        let not_tried = setup.not_tried(&status.repositories);
        let alerts = store.outbox_status()?;
        let owners = store.owners_status()?;
        let discussions = store.discussions_off()?;
        let queue = match store {
            Opened::Postgres(pg) => Some(pg.queue_status(interval)?),
            Opened::Sqlite(_) => None,
        };
        Ok(Report {
            status,
            alerts,
            owners,
            discussions,
            queue,
            interval,
            now,
            setup,
            not_tried,
        })
    }

    /// `signals status --json`.
    pub fn to_json(&self) -> Value {
        // The owner through which a repository was found, and its state there.
        let owned = Owned::new(&self.owners);
        let repos: Vec<_> = self
            .status
            .repositories
            .iter()
            .map(|r| self.repository_json(r, &owned))
            .collect();
        let limits: Vec<_> = self
            .status
            .rate_limits
            .iter()
            .map(|(fp, l, seen)| {
                json!({"token": fp, "limit": l.limit, "remaining": l.remaining,
                "reset": l.reset.map(fmt_collected), "seenAt": fmt_collected(*seen)})
            })
            .collect();
        let owners: Vec<_> = self.owners.iter().map(owner_json).collect();
        let not_tried: Vec<_> = self
            .not_tried
            .iter()
            .map(|n| {
                json!({"group": n.group, "repository": n.repo.id, "repo": n.repo.repo.to_string(),
                       "host": n.host, "reason": n.reason, "check": n.check})
            })
            .collect();
        let mut doc = json!({"repositories": repos, "notTried": not_tried, "owners": owners,
                             "rateLimits": limits,
                             "alerts": crate::alerts::status_json(&self.alerts)});
        if let Some(q) = &self.queue {
            add_queue_json(&mut doc, q);
        }
        doc
    }

    fn repository_json(&self, r: &RepoStatus, owned: &Owned<'_>) -> Value {
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
                "check": self.setup.check(&f.kind, &f.message, &r.summary.group.id, &r.summary.repo),
            })),
            "health": crate::health::of(r, owned, self.interval, self.now),
            "owner": owned.get(&r.summary.group.id, &r.summary.repo.id).map(|l| json!({
                "owner": l.owner.owner, "host": l.owner.host, "state": l.row.state.as_str(),
                "gone": l.row.state == State::Gone,
                "since": fmt_collected(l.row.since), "firstSeen": fmt_collected(l.row.first_seen),
                "repo": l.row.full_name.to_string(),
                "renamed": renamed_json(l.row),
            })),
            "discussionsOff": self.discussions_off(r).map(DiscussionsOff::as_str),
            "totals": {
                "items": r.totals.items,
                "events": r.totals.events,
                "failures": r.totals.failures,
                "requests": r.totals.requests.requests,
                "notModified": r.totals.requests.not_modified,
                "bytesReceived": r.totals.requests.bytes_received,
                "retries": r.totals.requests.retries,
            },
        })
    }

    /// `signals status`: the table of repositories, then the owners, the
    /// rate limits, the workers and the alerts.
    pub fn write_text(&self, out: &mut dyn Write) -> std::io::Result<()> {
        writeln!(
            out,
            "{:<40} {:<8} {:>4} {:<24} {:>8} {:>8} {:>8} {:>6}  last failure",
            "repository", "health", "runs", "last run", "observed", "changed", "requests", "304s"
        )?;
        let owned = Owned::new(&self.owners);
        for r in &self.status.repositories {
            self.write_repository(out, r, &owned)?;
        }
        for n in &self.not_tried {
            let name = format!("{}/{}", n.group, n.repo.id);
            writeln!(
                out,
                "{name:<40} {:<8} {:>4} {:<24} {:>8} {:>8} {:>8} {:>6}",
                "never", 0, "never", "-", "-", "-", "-"
            )?;
            writeln!(
                out,
                "  never collected ({}), not tried: {}; check {}",
                n.repo.repo, n.reason, n.check
            )?;
        }
        let failed = self.not_collected();
        if failed > 0 {
            writeln!(
                out,
                "{failed} of {} repositories not collected: see the line below each",
                self.status.repositories.len() + self.not_tried.len()
            )?;
        }
        self.write_discussions(out)?;
        for o in &self.owners {
            write_owner(out, o)?;
        }
        for (fp, l, seen) in &self.status.rate_limits {
            // What a run was told, not a live reading of anyone's budget.
            writeln!(
                out,
                "rate limit of token {fp}{}, as the host last told a run at {}: {} of {} left, {}",
                if fp.ends_with(":anonymous") {
                    " (no token: the host's budget for the address the run came from)"
                } else {
                    ""
                },
                fmt_collected(*seen),
                l.remaining,
                l.limit,
                match l.reset {
                    Some(at) => format!("resets {}", fmt_collected(at)),
                    None => "reset unknown".to_string(),
                },
            )?;
        }
        if let Some(q) = &self.queue {
            write_queue(out, q, self.interval)?;
        }
        crate::alerts::print_status(out, &self.alerts)?;
        if self.status.repositories.is_empty() && self.not_tried.is_empty() {
            writeln!(
                out,
                "the store has no repositories yet: run `signals collect`"
            )?;
        }
        Ok(())
    }

    /// Why `r`'s latest run read no discussions, if it did not.
    fn discussions_off(&self, r: &RepoStatus) -> Option<DiscussionsOff> {
        self.discussions
            .iter()
            .find(|(k, _)| *k == r.summary.key)
            .map(|(_, off)| *off)
    }

    /// Once per reason, the repositories whose discussions were not read
    /// (hosts without discussions are not named: nothing is missed).
    fn write_discussions(&self, out: &mut dyn Write) -> std::io::Result<()> {
        for reason in [
            DiscussionsOff::NoToken,
            DiscussionsOff::Disabled,
            DiscussionsOff::NotFound,
            DiscussionsOff::Configured,
        ] {
            let names: Vec<String> = self
                .status
                .repositories
                .iter()
                .filter(|r| self.discussions_off(r) == Some(reason))
                .map(|r| format!("{}/{}", r.summary.group.id, r.summary.repo.id))
                .collect();
            if !names.is_empty() {
                writeln!(out, "{}: {}", reason.note(), names.join(", "))?;
            }
        }
        Ok(())
    }

    /// A repository's line, then what is wrong with it or became of it.
    fn write_repository(
        &self,
        out: &mut dyn Write,
        r: &RepoStatus,
        owned: &Owned<'_>,
    ) -> std::io::Result<()> {
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
        let health = crate::health::of(r, owned, self.interval, self.now);
        writeln!(
            out,
            "{name:<40} {:<8} {:>4} {at:<24} {observed:>8} {changed:>8} {requests:>8} {not_modified:>6}  {failure}",
            health_word(&health),
            r.summary.run_count
        )?;
        self.write_health(out, r, owned)?;
        let owned = owned.get(&r.summary.group.id, &r.summary.repo.id);
        if let Some(l) = owned
            && let Some(line) = renamed_line(l.row, &l.owner.owner)
        {
            writeln!(out, "  {line}")?;
        }
        if let Some(new) = &r.summary.host_name {
            if owned.is_some() {
                // Renamed since the owner's last listing: the next one
                // follows it.
                writeln!(
                    out,
                    "  renamed on the host to {new}; its owner's next listing follows it"
                )?;
            } else {
                writeln!(
                    out,
                    "  renamed on the host to {new}: update `repo` in signals.toml"
                )?;
            }
        }
        Ok(())
    }

    /// A repository's health, when it is stale, failing or left out.
    fn write_health(
        &self,
        out: &mut dyn Write,
        r: &RepoStatus,
        owned: &Owned<'_>,
    ) -> std::io::Result<()> {
        let health = crate::health::of(r, owned, self.interval, self.now);
        let check = r
            .last_failure
            .as_ref()
            .filter(|_| health.failures_in_row > 0)
            .map(|f| {
                format!(
                    "; check {}",
                    self.setup
                        .check(&f.kind, &f.message, &r.summary.group.id, &r.summary.repo)
                )
            })
            .unwrap_or_default();
        // A repository no longer collected (its owner no longer lists it)
        // is neither stale nor failing; the line below says why.
        match health.last_success_age_secs {
            _ if health.left_out.is_some() => {}
            None if health.failures_in_row > 0 => writeln!(
                out,
                "  never collected: {}{check}",
                match health.failures_in_row {
                    1 => "its one attempt failed".to_string(),
                    n => format!("its {n} attempts failed"),
                }
            )?,
            Some(age) if health.stale || health.failures_in_row > 0 => writeln!(
                out,
                "  {}: {} failed in a row; last success {}{check}",
                health.state.as_str(),
                health.failures_in_row,
                signals_core::health::ago(age),
            )?,
            _ => {}
        }
        if let Some(left) = &health.left_out {
            writeln!(
                out,
                "  {}: {} since {} (listed by {}); no longer collected, history kept",
                left.reason.as_str(),
                match left.reason {
                    State::Gone => "no longer listed by its owner",
                    State::Archived => "archived on the host",
                    State::Fork => "a fork, which the group leaves out",
                    _ => "left out by the group's `exclude` or `repos`",
                },
                fmt_collected(left.since),
                left.owner
            )?;
        }
        Ok(())
    }
}

impl Report {
    /// How many repositories, of the store and of the configuration, their
    /// latest attempt did not collect (a failure after their last run, or
    /// no attempt at all); those left out on purpose do not count.
    fn not_collected(&self) -> usize {
        let owned = Owned::new(&self.owners);
        let failed = self
            .status
            .repositories
            .iter()
            .filter(|r| {
                let h = crate::health::of(r, &owned, self.interval, self.now);
                h.left_out.is_none() && h.failures_in_row > 0
            })
            .count();
        failed + self.not_tried.len()
    }
}

/// A repository's health in a word, for the table: `never` when no run of
/// it succeeded yet, the reason (`gone`, `archived`, ...) when its owner's
/// listing left it out.
fn health_word(h: &signals_core::health::Health) -> &'static str {
    match (&h.left_out, h.last_success) {
        (Some(left), _) => left.reason.as_str(),
        (None, None) => "never",
        (None, Some(_)) => h.state.as_str(),
    }
}

/// An owner's listings, as `status --json` gives them.
fn owner_json(o: &OwnerStatus) -> Value {
    json!({
        "group": o.group_id, "owner": o.owner, "host": o.host,
        "listedAt": o.listed_at.map(fmt_collected),
        "listings": o.listings,
        "lastListing": {"requests": o.last.requests, "notModified": o.last.not_modified},
        "totals": {"requests": o.totals.requests, "notModified": o.totals.not_modified,
                   "bytesReceived": o.totals.bytes_received},
        "lastFailure": o.failure.as_ref().map(|(at, m)| json!({"at": fmt_collected(*at), "message": m})),
        "repositories": o.repos.iter().map(|k| json!({
            "repo": k.full_name.to_string(), "repository": k.repo_id,
            "state": k.state.as_str(), "since": fmt_collected(k.since),
            "firstSeen": fmt_collected(k.first_seen),
            "hostId": k.host_id,
            "renamed": renamed_json(k),
        })).collect::<Vec<_>>(),
    })
}

/// The workers, leases and due count of a PostgreSQL store, added to
/// `status --json`.
fn add_queue_json(doc: &mut Value, q: &QueueStatus) {
    doc["workers"] = q
        .workers
        .iter()
        .map(|w| {
            json!({"id": w.id, "host": w.host, "pid": w.pid,
            "startedAt": fmt_collected(w.started_at), "seenAt": fmt_collected(w.seen_at),
            "state": w.state, "collected": w.collected, "failed": w.failed})
        })
        .collect();
    doc["leases"] = q
        .leases
        .iter()
        .map(|l| {
            json!({"repository": l.repo, "worker": l.worker,
            "until": fmt_collected(l.until), "expired": l.expired})
        })
        .collect();
    doc["due"] = q.due.into();
}

/// An owner's line: its repositories by state, its last listing and its
/// last failure.
fn write_owner(out: &mut dyn Write, o: &OwnerStatus) -> std::io::Result<()> {
    let count = |s: State| o.repos.iter().filter(|k| k.state == s).count();
    writeln!(
        out,
        "owner {} of group {} on {}: {} tracked, {} gone, {} archived or left out; {}",
        o.owner,
        o.group_id,
        o.host,
        count(State::Tracked),
        count(State::Gone),
        o.repos.len() - count(State::Tracked) - count(State::Gone),
        match o.listed_at {
            Some(at) => format!(
                "listed {} ({} requests, {} answered 304)",
                fmt_collected(at),
                o.last.requests,
                o.last.not_modified
            ),
            None => "never listed".to_string(),
        }
    )?;
    if let Some((at, message)) = &o.failure {
        writeln!(
            out,
            "  last listing failed {}: {message}",
            fmt_collected(*at)
        )?;
    }
    Ok(())
}

/// The workers and leases of a PostgreSQL store.
fn write_queue(out: &mut dyn Write, q: &QueueStatus, interval: Duration) -> std::io::Result<()> {
    writeln!(
        out,
        "{} due now (interval {}); {} leased; {} workers",
        q.due,
        humantime(interval),
        q.leases.len(),
        q.workers.len()
    )?;
    for w in &q.workers {
        writeln!(
            out,
            "worker {}: {} ({} collected, {} failed; started {}, seen {})",
            w.id,
            w.state,
            w.collected,
            w.failed,
            fmt_collected(w.started_at),
            fmt_collected(w.seen_at)
        )?;
    }
    for l in &q.leases {
        writeln!(
            out,
            "lease {} held by {} until {}{}",
            l.repo,
            l.worker,
            fmt_collected(l.until),
            if l.expired {
                " (expired: its worker stopped; another worker will take it)"
            } else {
                ""
            }
        )?;
    }
    Ok(())
}
