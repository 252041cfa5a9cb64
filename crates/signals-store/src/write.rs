//! What a run commit is ([`RunCommit`]), what it must satisfy before it
//! is written ([`check_commit`]), and the role that writes it
//! ([`RunWrites`]).
//!
//! A backend must not compute anything signals-core computes (diffs,
//! counts, scores): it checks that what it is given is consistent, and
//! stores it, all or nothing.

use std::collections::HashSet;

use jiff::Timestamp;
use signals_core::run::ItemEvent;
use signals_core::{Group, ItemSnapshot, News, RepoContext, RepoName, RunRecord, TrackedRepo};

use crate::{RepoKey, Result};

/// What a run cost in requests to the host (a core type).
pub use signals_core::RequestStats;

/// Everything one successful run adds to the store.
#[derive(Debug, Clone, PartialEq)]
pub struct RunCommit {
    /// The run itself; `changed_count` must equal `events.len()`.
    pub record: RunRecord,
    /// The repository as the host showed it during the run.
    pub context: RepoContext,
    /// The news computed by the run.
    pub news: News,
    /// New snapshots, by signal id (at most one per item). A snapshot equal
    /// to the item's latest stored one is skipped, so only distinct
    /// snapshots are kept. Importance is not stored: it depends on time, so
    /// the export computes it from the latest snapshot.
    pub snapshots: Vec<(String, ItemSnapshot)>,
    /// The observation events of the run (at most one per item); each item
    /// must have a snapshot, stored now or before.
    pub events: Vec<ItemEvent>,
    /// What the new texts of the run's items name, and where each item is
    /// (`signals_core::references`): each entry replaces the
    /// keys of one (item, text) pair; its item must have a snapshot,
    /// stored now or before.
    pub references: Vec<signals_core::references::ItemReferences>,
    /// Requests the run made.
    pub stats: RequestStats,
    /// The repository's `owner/name` on the host when it differs from the
    /// configured one (the repository was renamed or moved); `None` clears a
    /// previously recorded rename.
    pub renamed_to: Option<RepoName>,
    /// The alert messages the run's events call for
    /// (`signals_core::notify::messages`), committed with it.
    pub messages: Vec<signals_core::notify::Outgoing>,
    /// Whether the run listed every item of the repository (a reconcile),
    /// not only those updated since its `since`.
    pub reconciled: bool,
    /// The open pull requests the store holds after the run, when it
    /// holds the repository's whole history.
    pub open_pulls: KeptPulls,
    /// The download counts of the release assets the run read, at most one
    /// per asset: each is stored with the run when it differs from the
    /// asset's last stored count (a first sighting included), so a run
    /// writes only the counts that moved ([`crate::TrendReads::asset_sightings`]).
    pub downloads: Vec<signals_core::AssetCount>,
    /// The items a reconcile found no longer listed by the host (deleted,
    /// transferred, hidden), each closed by a snapshot of this commit: the
    /// store keeps a mark of each with the run, so related items drop them
    /// at the next catch-up, whenever that is ([`crate::RelatedStore`]).
    pub gone: Vec<String>,
}

/// What a run leaves of the store's count of its repository's open pull
/// requests: the collector computes it (from the previous
/// count and the run's items), the store keeps it on the repository.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq)]
pub enum KeptPulls {
    /// No count kept by this run (the store does not hold the whole
    /// history, the count was found wrong before, or the host's open
    /// issues are issues only): the host is asked, and the repository's
    /// row is not written. A count is only ever ended by
    /// [`KeptPulls::Differed`].
    #[default]
    Unknown,
    /// The open pull requests in the store after the run.
    Count(u64),
    /// A reconcile found the kept count differing from the host's: the
    /// difference is recorded and the count is unknown from then on.
    Differed {
        /// The count the store would have kept.
        kept: u64,
        /// The host's count.
        host: u64,
    },
}

/// A repository's kept count of open pull requests and the last
/// difference a reconcile recorded ([`crate::Reads::kept_pulls`]).
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct PullsKept {
    /// The count, when known ([`KeptPulls::Count`] of the last run).
    pub count: Option<u64>,
    /// The difference a reconcile found, as `kept K, host H at T`.
    pub differed: Option<String>,
}

impl KeptPulls {
    /// The count to keep, when known.
    pub fn count(self) -> Option<u64> {
        match self {
            KeptPulls::Count(n) => Some(n),
            _ => None,
        }
    }

    /// The difference to record, as [`PullsKept::differed`] says it.
    pub fn differed(self, at: Timestamp) -> Option<String> {
        match self {
            KeptPulls::Differed { kept, host } => Some(format!("kept {kept}, host {host} at {at}")),
            _ => None,
        }
    }
}

/// The writes of collection: registering a repository, committing a run
/// or a failed attempt, and deleting a repository with its history.
pub trait RunWrites {
    /// Registers a configured repository, or updates its display fields
    /// (group name, `owner/name`, display name, keywords) when it is already
    /// known. The returned key is stable for the (group id, repository id)
    /// pair, which is the dataset's address.
    fn ensure_repository(&mut self, group: &Group, repo: &TrackedRepo) -> Result<RepoKey>;

    /// Records a successful run and everything it observed, all or nothing.
    ///
    /// Refused with [`crate::StoreError::RunOutOfOrder`] when `collected_at` is not
    /// after the repository's last run, and with [`crate::StoreError::InvalidRun`]
    /// when the commit contradicts itself ([`check_commit`], or an event for
    /// an item that has no snapshot). It reads and writes only the run's
    /// items: its cost grows with what the run observed, not with what the
    /// repository holds.
    fn commit_run(&mut self, repo: RepoKey, run: &RunCommit) -> Result<()>;

    /// Records a failed collection attempt. Nothing else is written: the
    /// runs, snapshots and events stay as they were, and the next run covers
    /// the window. A `not_found` failure marks the repository missing until
    /// its next successful run.
    fn record_failure(
        &mut self,
        repo: RepoKey,
        at: Timestamp,
        kind: &str,
        message: &str,
    ) -> Result<()>;

    /// Deletes a repository and everything stored about it (runs, snapshots,
    /// events, failure notes, alert messages, and the texts no other
    /// snapshot uses), all or nothing; returns the number of runs deleted.
    /// This is the only deletion of history a store offers: `signals repos
    /// remove --purge`.
    fn purge_repository(&mut self, repo: RepoKey) -> Result<u64>;
}

/// What a run commit must satisfy before it is written, as a problem
/// statement for [`crate::StoreError::InvalidRun`].
pub fn check_commit(run: &RunCommit) -> std::result::Result<(), String> {
    let r = &run.record;
    if r.changed_count != run.events.len() as u64 {
        return Err(format!(
            "changedCount is {} but the run has {} observation events",
            r.changed_count,
            run.events.len()
        ));
    }
    check_staged_commit(run)
}

/// [`check_commit`] but for the count of events, which a staged run's
/// parts complete ([`crate::RunStaging::commit_staged`]).
pub fn check_staged_commit(run: &RunCommit) -> std::result::Result<(), String> {
    let r = &run.record;
    if r.changed_count > r.observed_count {
        return Err(format!(
            "changedCount {} is greater than observedCount {}",
            r.changed_count, r.observed_count
        ));
    }
    if r.since > r.collected_at {
        return Err(format!("since {} is after collectedAt", r.since));
    }
    let mut seen = HashSet::new();
    if let Some((id, _)) = run.snapshots.iter().find(|(id, _)| !seen.insert(id)) {
        return Err(format!("it has two snapshots of {id}"));
    }
    let mut seen = HashSet::new();
    if let Some(e) = run.events.iter().find(|e| !seen.insert(&e.item_id)) {
        return Err(format!("it has two events for {}", e.item_id));
    }
    let mut seen = HashSet::new();
    if let Some(d) = run.downloads.iter().find(|d| !seen.insert(&d.asset)) {
        return Err(format!("it has two download counts of asset {}", d.asset));
    }
    let closed: HashSet<&str> = run.snapshots.iter().map(|(id, _)| id.as_str()).collect();
    if let Some(id) = run.gone.iter().find(|id| !closed.contains(id.as_str())) {
        return Err(format!("{id} is gone but has no snapshot in the run"));
    }
    Ok(())
}
