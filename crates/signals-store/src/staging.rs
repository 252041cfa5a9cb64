//! A run's stage (issue 27, part 2): the items of a run written to the
//! store as the host's pages arrive, in small transactions of their own,
//! so that a first collection of a 100,000-item repository need not hold
//! every item in memory until its commit.
//!
//! A stage is invisible: no read of a repository, its runs, snapshots,
//! events, pages, dataset or word index sees it. It belongs to one run of
//! one repository, named by the run's instant; [`RunStaging::stage_start`]
//! discards whatever an earlier run staged and never committed (it was
//! killed), so a killed run leaves no trace but its HTTP cache and rows no
//! one reads until the next run of the repository drops them. On
//! PostgreSQL the run holding the repository's lease is the only one that
//! stages it; on SQLite, should two collectors of one file collect the same
//! repository at once, the older run's next [`RunStaging::stage_items`] is
//! refused with [`crate::StoreError::StageLost`] instead of mixing items
//! of two runs.
//!
//! A stage holds one item per signal id, its last sighting (as the
//! collection's lists give them, an item that moved between pages while
//! they were read is seen twice), and is read back in chunks in signal id
//! order (byte order), the order in which a run's events are numbered
//! ([`crate::events::positioned`]).

use jiff::Timestamp;
use signals_core::ItemSnapshot;

use crate::{RepoKey, Result};

/// One item of a run's stage.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Staged {
    /// Its signal id.
    pub id: String,
    /// The item as its last sighting gave it.
    pub snapshot: ItemSnapshot,
}

/// The writes and reads of a run's stage. Each write is its own
/// transaction, all or nothing. Like [`crate::HttpState`]'s, the writes
/// take `&self`: a run stages its items while its collection reads the
/// store as its HTTP cache.
pub trait RunStaging {
    /// Starts the stage of the run of `repo` at `collected_at`, empty:
    /// what an earlier run staged and did not commit is discarded. Returns
    /// the number of items discarded.
    fn stage_start(&self, repo: RepoKey, collected_at: Timestamp) -> Result<u64>;

    /// Adds `items` (signal id and item) to the stage of the run of
    /// `repo` at `collected_at`, in one transaction: of an id given
    /// twice, or already staged, the last one given stays. Refused with
    /// [`crate::StoreError::StageLost`] when the repository's stage is not
    /// this run's (none was started, or a later run started its own).
    fn stage_items(
        &self,
        repo: RepoKey,
        collected_at: Timestamp,
        items: &[(String, ItemSnapshot)],
    ) -> Result<()>;

    /// At most `limit` staged items of `repo` whose id is after `after`
    /// (all when `None`), in signal id order (byte order): a stage is read
    /// in chunks, `after` being the last id of the chunk before.
    fn staged_items(&self, repo: RepoKey, after: Option<&str>, limit: usize)
    -> Result<Vec<Staged>>;

    /// The number of items staged for `repo`.
    fn staged_count(&self, repo: RepoKey) -> Result<u64>;

    /// Discards the stage of `repo`, whichever run it was; returns the
    /// number of items discarded.
    fn discard_stage(&self, repo: RepoKey) -> Result<u64>;
}

/// The rows [`RunStaging::stage_items`] writes: one per id, the last one
/// given, each item as JSON ([`crate::codec::to_json`]), in the order given.
pub fn stage_rows(
    path: &std::path::Path,
    items: &[(String, ItemSnapshot)],
) -> Result<Vec<(String, String)>> {
    let mut last = std::collections::HashMap::new();
    for (at, (id, _)) in items.iter().enumerate() {
        last.insert(id.as_str(), at);
    }
    let mut rows = Vec::with_capacity(last.len());
    for (at, (id, snapshot)) in items.iter().enumerate() {
        if last.get(id.as_str()) == Some(&at) {
            rows.push((
                id.clone(),
                crate::codec::to_json(path, "a staged item", snapshot)?,
            ));
        }
    }
    Ok(rows)
}

/// A staged row read back: its id and JSON.
pub fn staged_from(path: &std::path::Path, (id, json): (String, String)) -> Result<Staged> {
    Ok(Staged {
        snapshot: crate::codec::from_json(path, "run_stage_items.snapshot", &json)?,
        id,
    })
}
