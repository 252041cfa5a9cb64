//! A repository's health from what `status` reads (glue between the
//! store's counts and `signals_core::health`), for `status`, `metrics`,
//! the pages and the API.
//!
//! It is also the one place that says whether a repository was found
//! through an owner (`orgs`) and left out by its listing: every caller
//! judges with [`of`] and reads `left_out` from its answer, so `status`,
//! the metrics, the pages and the API cannot disagree about it.

use std::collections::HashMap;

use jiff::{SignedDuration, Timestamp};
use signals_core::health::{Health, LastError, LeftOut, assess};
use signals_core::owners::{Known, State};
use signals_store::{OwnerStatus, RepoStatus};

/// The repositories found through owners (`orgs`), by group and
/// repository id, each with its owner and its row in that owner's
/// listing. Built once from what the store holds (`owners_status`), so
/// judging every repository costs a lookup each, not a scan of every
/// owner's rows.
pub struct Owned<'a>(HashMap<(&'a str, &'a str), Listing<'a>>);

/// A repository found through an owner: the owner, and the repository's
/// row in that owner's listing.
#[derive(Debug, Clone, Copy)]
pub struct Listing<'a> {
    /// The owner whose listing holds the repository.
    pub owner: &'a OwnerStatus,
    /// The repository's row in it.
    pub row: &'a Known,
}

impl<'a> Owned<'a> {
    /// Indexes the owners' rows. Ids are unique within a group across its
    /// owners (a new one is never given an id in use), so each key names
    /// at most one row.
    pub fn new(owners: &'a [OwnerStatus]) -> Owned<'a> {
        Owned(
            owners
                .iter()
                .flat_map(|o| {
                    o.repos.iter().map(move |k| {
                        let key = (o.group_id.as_str(), k.repo_id.as_str());
                        (key, Listing { owner: o, row: k })
                    })
                })
                .collect(),
        )
    }

    /// The owner through which repository `repo` of `group` was found,
    /// and its row; `None` for a repository configured in `repos` only.
    pub fn get(&self, group: &str, repo: &str) -> Option<Listing<'a>> {
        self.0.get(&(group, repo)).copied()
    }
}

/// Judges `repo` at `now` against the collection `interval`; `owned` is
/// what the store holds of the owners' listings, from which a repository
/// they left out is judged left out, not stale.
pub fn of(
    repo: &RepoStatus,
    owned: &Owned<'_>,
    interval: std::time::Duration,
    now: Timestamp,
) -> Health {
    let interval = SignedDuration::try_from(interval).unwrap_or(SignedDuration::MAX);
    let left_out = owned
        .get(&repo.summary.group.id, &repo.summary.repo.id)
        .filter(|l| l.row.state != State::Tracked)
        .map(|l| LeftOut {
            reason: l.row.state,
            since: l.row.since,
            owner: l.owner.owner.clone(),
            host: l.owner.host.clone(),
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
