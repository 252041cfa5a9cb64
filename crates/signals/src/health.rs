//! A repository's health from what `status` reads (glue between the
//! store's counts and `signals_core::health`), for `status`, `metrics`,
//! the pages and the API.

use jiff::{SignedDuration, Timestamp};
use signals_core::health::{Health, LastError, assess};
use signals_store::RepoStatus;

/// Judges `repo` at `now` against the collection `interval`.
pub fn of(repo: &RepoStatus, interval: std::time::Duration, now: Timestamp) -> Health {
    let interval = SignedDuration::try_from(interval).unwrap_or(SignedDuration::MAX);
    assess(
        repo.last_run.as_ref().map(|r| r.record.collected_at),
        repo.totals.failures_since_success,
        repo.last_failure.as_ref().map(|f| LastError {
            at: f.at,
            kind: f.kind.clone(),
            message: f.message.clone(),
        }),
        repo.last_reconcile,
        interval,
        now,
    )
}
