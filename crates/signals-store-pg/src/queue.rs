//! The work queue: leases on repositories, and the workers' reports.
//!
//! A worker claims a due repository with one statement: it picks the row
//! of the repository least recently attempted among those it may collect
//! that are due and not leased (in the order of the index `leases_due`) (`FOR UPDATE SKIP LOCKED`, so two workers
//! never pick the same row, and neither waits for the other), and sets its
//! lease (`worker`, `lease_until`). The run's commit releases the lease in
//! the same transaction ([`crate::PgStore`]'s `commit_run`), and refuses
//! to commit when the lease expired and another worker took the
//! repository. A worker that dies holds its lease until `lease_until`;
//! then the repository is free again and the next worker takes it.
//!
//! All times here are the server's (`now()`), so workers on machines whose
//! clocks differ still agree on what is due and what has expired.

use std::time::Duration;

use jiff::Timestamp;
use postgres::Transaction;
use signals_store::{RepoKey, Result, StoreError};

use crate::PgStore;

/// How a leased attempt ended, as its worker's counters record it.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) enum Outcome {
    /// A run was committed.
    Collected,
    /// A failure was recorded.
    Failed,
}

/// A lease held on a repository, for `signals status`.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Lease {
    /// `group/repo`.
    pub repo: String,
    /// The worker holding it.
    pub worker: String,
    /// When it expires (server time).
    pub until: Timestamp,
    /// True when it has expired: its worker died or is stuck, and another
    /// worker may take the repository.
    pub expired: bool,
}

/// A worker as it last reported, for `signals status`.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct WorkerStatus {
    /// `host:pid:start`.
    pub id: String,
    /// Its machine.
    pub host: String,
    /// Its process id there.
    pub pid: i64,
    /// When it started.
    pub started_at: Timestamp,
    /// When it last reported.
    pub seen_at: Timestamp,
    /// `collecting group/repo`, `idle`, or `stopped`.
    pub state: String,
    /// Runs it committed.
    pub collected: u64,
    /// Attempts of it that failed.
    pub failed: u64,
}

/// What the queue holds, for `signals status`.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct QueueStatus {
    /// Leases held (expired ones included), by repository.
    pub leases: Vec<Lease>,
    /// Workers, most recently seen first.
    pub workers: Vec<WorkerStatus>,
    /// Repositories due now at the given interval, not leased.
    pub due: u64,
}

fn ts(t: std::time::SystemTime) -> Timestamp {
    Timestamp::try_from(t).unwrap_or(Timestamp::UNIX_EPOCH)
}

impl PgStore {
    /// The server's clock, as RFC 3339 text (a round's start).
    pub fn server_now(&self) -> Result<String> {
        Ok(self
            .query_opt("reading the server's clock", "SELECT now()::text", &[])?
            .map(|r| r.get(0))
            .unwrap_or_default())
    }

    /// Registers this process as a worker (or reports it again).
    pub fn worker_report(&self, id: &str, host: &str, pid: u32, state: &str) -> Result<()> {
        self.execute(
            "reporting a worker",
            "INSERT INTO workers (id, host, pid, started_at, seen_at, state)
             VALUES ($1, $2, $3, now(), now(), $4)
             ON CONFLICT (id) DO UPDATE SET seen_at = now(), state = excluded.state",
            &[&id, &host, &i64::from(pid), &state],
        )?;
        Ok(())
    }

    /// Claims the next due repository among `keys` for `worker`, leasing it
    /// for `lease`. Due: never attempted, or last attempted more than
    /// `interval` ago and, when `round_start` is given, before it (so a
    /// round collects a repository at most once). `None` when nothing is
    /// due. The lease is remembered: the next commit or failure of that
    /// repository by this store releases it.
    ///
    /// Its cost does not grow with the repositories: it walks
    /// the index `leases_due` (migration 0014) from the least recently
    /// attempted due row and stops at the first free one among `keys`
    /// (which the server hashes once), skipping only the rows other
    /// workers hold; "due" bounds the walk, so a claim that finds nothing
    /// reads nothing.
    pub fn claim(
        &self,
        worker: &str,
        keys: &[RepoKey],
        interval: Duration,
        round_start: Option<&str>,
        lease: Duration,
    ) -> Result<Option<RepoKey>> {
        let keys: Vec<i64> = keys.iter().map(|k| k.raw()).collect();
        let row = self.query_opt(
            "claiming a repository",
            "WITH next AS (
                 SELECT repo FROM leases
                 WHERE coalesce(last_attempt, '-infinity'::timestamptz)
                         < least(now() - make_interval(secs => $3),
                                 coalesce($4::text::timestamptz, 'infinity'::timestamptz))
                   AND (lease_until IS NULL OR lease_until < now())
                   AND repo = ANY($2)
                 ORDER BY coalesce(last_attempt, '-infinity'::timestamptz), repo
                 LIMIT 1
                 FOR UPDATE SKIP LOCKED)
             UPDATE leases l SET worker = $1, lease_until = now() + make_interval(secs => $5)
             FROM next WHERE l.repo = next.repo
             RETURNING l.repo",
            &[
                &worker,
                &keys,
                &interval.as_secs_f64(),
                &round_start,
                &lease.as_secs_f64(),
            ],
        )?;
        let key = row.map(|r| RepoKey::from_raw(r.get(0)));
        *self.lease.borrow_mut() = key.map(|k| (k.raw(), worker.to_string(), lease.as_secs_f64()));
        Ok(key)
    }

    /// Gives up this process's lease without recording an attempt (a worker
    /// stopping in the middle of a repository): the repository is due again
    /// at once for the other workers.
    pub fn abandon(&self) -> Result<()> {
        let Some((repo, worker, _)) = self.lease.borrow().clone() else {
            return Ok(());
        };
        // Forgotten only once given back, so a worker whose connection
        // broke gives it back after reconnecting.
        self.execute(
            "giving up a lease",
            "UPDATE leases SET worker = NULL, lease_until = NULL WHERE repo = $1 AND worker = $2",
            &[&repo, &worker],
        )?;
        self.lease.borrow_mut().take();
        Ok(())
    }

    /// How long until the next of `keys` is due at `interval` (zero when one
    /// is due now or leased by a worker that may die); `None` when none
    /// will be (no keys).
    pub fn next_due_in(&self, keys: &[RepoKey], interval: Duration) -> Result<Option<Duration>> {
        let keys: Vec<i64> = keys.iter().map(|k| k.raw()).collect();
        let row = self.query_opt(
            "reading when the next repository is due",
            "SELECT extract(epoch FROM min(GREATEST(
                        COALESCE(last_attempt + make_interval(secs => $2), now()),
                        COALESCE(lease_until, now())) - now()))::float8
             FROM leases WHERE repo = ANY($1)",
            &[&keys, &interval.as_secs_f64()],
        )?;
        Ok(row
            .and_then(|r| r.get::<_, Option<f64>>(0))
            .map(|s| Duration::from_secs_f64(s.max(0.0))))
    }

    /// Leases, workers, and what is due, for `signals status`.
    pub fn queue_status(&self, interval: Duration) -> Result<QueueStatus> {
        let leases = self
            .query(
                "reading the leases",
                "SELECT r.group_id || '/' || r.repo_id, l.worker, l.lease_until,
                        l.lease_until < now()
                 FROM leases l JOIN repositories r ON r.key = l.repo
                 WHERE l.worker IS NOT NULL ORDER BY 1",
                &[],
            )?
            .iter()
            .map(|r| Lease {
                repo: r.get(0),
                worker: r.get(1),
                until: ts(r.get(2)),
                expired: r.get(3),
            })
            .collect();
        let workers = self
            .query(
                "reading the workers",
                "SELECT id, host, pid, started_at, seen_at, state, collected, failed
                 FROM workers ORDER BY seen_at DESC, id",
                &[],
            )?
            .iter()
            .map(|r| WorkerStatus {
                id: r.get(0),
                host: r.get(1),
                pid: r.get(2),
                started_at: ts(r.get(3)),
                seen_at: ts(r.get(4)),
                state: r.get(5),
                collected: r.get::<_, i64>(6).max(0) as u64,
                failed: r.get::<_, i64>(7).max(0) as u64,
            })
            .collect();
        let due: i64 = self
            .query_opt(
                "counting due repositories",
                "SELECT count(*) FROM leases
                 WHERE (lease_until IS NULL OR lease_until < now())
                   AND (last_attempt IS NULL
                        OR last_attempt < now() - make_interval(secs => $1))",
                &[&interval.as_secs_f64()],
            )?
            .map(|r| r.get(0))
            .unwrap_or(0);
        Ok(QueueStatus {
            leases,
            workers,
            due: due.max(0) as u64,
        })
    }

    /// Forgets workers not seen for `older_than` (stopped or dead), so the
    /// list stays that of the fleet.
    pub fn forget_workers(&self, older_than: Duration) -> Result<u64> {
        self.execute(
            "forgetting old workers",
            "DELETE FROM workers WHERE seen_at < now() - make_interval(secs => $1)",
            &[&older_than.as_secs_f64()],
        )
    }
}

impl PgStore {
    /// Releases this process's lease on `repo` inside `tx`, recording the
    /// attempt (counted as the worker's `outcome`); without a lease, only records the attempt. Fails with
    /// [`StoreError::LeaseLost`] when the lease is no longer this worker's.
    pub(crate) fn release_in(
        &self,
        tx: &mut Transaction<'_>,
        repo: RepoKey,
        outcome: Outcome,
    ) -> Result<()> {
        let err = self.err("releasing a lease");
        let lease = self.lease.borrow().clone();
        match lease {
            Some((leased, worker, _)) if leased == repo.raw() => {
                let n = tx
                    .execute(
                        "UPDATE leases SET worker = NULL, lease_until = NULL, last_attempt = now()
                         WHERE repo = $1 AND worker = $2 AND lease_until > now()",
                        &[&leased, &worker],
                    )
                    .map_err(&err)?;
                if n == 0 {
                    let name: Option<String> = tx
                        .query_opt(
                            "SELECT group_id || '/' || repo_id FROM repositories WHERE key = $1",
                            &[&leased],
                        )
                        .map_err(&err)?
                        .map(|r| r.get(0));
                    return Err(StoreError::LeaseLost {
                        store: self.shown.clone(),
                        repo: name.unwrap_or_else(|| repo.to_string()),
                    });
                }
                let column = match outcome {
                    Outcome::Collected => "collected",
                    Outcome::Failed => "failed",
                };
                tx.execute(
                    &format!("UPDATE workers SET {column} = {column} + 1 WHERE id = $1"),
                    &[&worker],
                )
                .map_err(&err)?;
            }
            _ => {
                tx.execute(
                    "INSERT INTO leases (repo, last_attempt) VALUES ($1, now())
                     ON CONFLICT (repo) DO UPDATE SET last_attempt = now()",
                    &[&repo.raw()],
                )
                .map_err(&err)?;
            }
        }
        Ok(())
    }
}
