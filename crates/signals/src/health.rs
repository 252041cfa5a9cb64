//! A repository's health from what `status` reads (glue between the
//! store's counts and `signals_core::health`), for `status`, `metrics`,
//! the pages and the API.
//!
//! It is also the one place that says whether a repository was found
//! through an owner (`orgs`) and left out by its listing: every caller
//! judges with [`of`] and reads `left_out` from its answer, so `status`,
//! the metrics, the pages and the API cannot disagree about it.

use jiff::{SignedDuration, Timestamp};
use signals_core::health::{Health, LastError, LeftOut, assess};
use signals_core::owners::{Known, State};
use signals_store::{OwnerStatus, RepoStatus};

/// The owner through which repository `repo` of `group` was found, and its
/// row in that owner's listing; `None` for a repository configured in
/// `repos` only. Ids are unique within a group across its owners (a new
/// one is never given an id in use), so there is at most one.
pub fn through_owner<'a>(
    owners: &'a [OwnerStatus],
    group: &str,
    repo: &str,
) -> Option<(&'a OwnerStatus, &'a Known)> {
    owners.iter().find_map(|o| {
        (o.group_id == group)
            .then(|| o.repos.iter().find(|k| k.repo_id == repo))
            .flatten()
            .map(|k| (o, k))
    })
}

/// Judges `repo` at `now` against the collection `interval`; `owners` is
/// what the store holds of the owners' listings (`owners_status`), from
/// which a repository they left out is judged left out, not stale.
pub fn of(
    repo: &RepoStatus,
    owners: &[OwnerStatus],
    interval: std::time::Duration,
    now: Timestamp,
) -> Health {
    let interval = SignedDuration::try_from(interval).unwrap_or(SignedDuration::MAX);
    let left_out = through_owner(owners, &repo.summary.group.id, &repo.summary.repo.id)
        .filter(|(_, k)| k.state != State::Tracked)
        .map(|(o, k)| LeftOut {
            reason: k.state,
            since: k.since,
            owner: o.owner.clone(),
            host: o.host.clone(),
        });
    assess(
        repo.last_run.as_ref().map(|r| r.record.collected_at),
        repo.totals.failures_since_success,
        repo.last_failure.as_ref().map(|f| LastError {
            at: f.at,
            kind: f.kind.clone(),
            message: f.message.clone(),
        }),
        repo.last_reconcile,
        left_out,
        interval,
        now,
    )
}
