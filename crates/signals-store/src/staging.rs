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
//! A staged item is kept as the lists give them: one per signal id, the
//! last sighting winning and standing where it was seen last (its
//! `place`), as `signals-http`'s `Items` does in memory.

use jiff::Timestamp;
use signals_core::ItemSnapshot;

use crate::{RepoKey, Result};

/// One item of a run's stage.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Staged {
    /// Its place in the stage: the order of its last sighting, from 1.
    pub place: u64,
    /// Its signal id.
    pub id: String,
    /// The item as its last sighting gave it.
    pub snapshot: ItemSnapshot,
}

/// The writes and reads of a run's stage. Each write is its own
/// transaction, all or nothing.
pub trait RunStaging {
    /// Starts the stage of the run of `repo` at `collected_at`, empty:
    /// what an earlier run staged and did not commit is discarded. Returns
    /// the number of items discarded.
    fn stage_start(&mut self, repo: RepoKey, collected_at: Timestamp) -> Result<u64>;

    /// Adds `items` (signal id and item) to the stage of the run of
    /// `repo` at `collected_at`, in their order, in one transaction: an
    /// id already staged is replaced, and takes the next place. Refused
    /// with [`crate::StoreError::StageLost`] when the repository's stage is
    /// not this run's (none was started, or a later run started its own).
    fn stage_items(
        &mut self,
        repo: RepoKey,
        collected_at: Timestamp,
        items: &[(String, ItemSnapshot)],
    ) -> Result<()>;

    /// At most `limit` staged items of `repo` whose place is after
    /// `after`, in the order of their places: a stage is read in chunks,
    /// `after` being the last place of the chunk before (0 at first).
    fn staged_items(&self, repo: RepoKey, after: u64, limit: usize) -> Result<Vec<Staged>>;

    /// The number of items staged for `repo`.
    fn staged_count(&self, repo: RepoKey) -> Result<u64>;

    /// Discards the stage of `repo`, whichever run it was; returns the
    /// number of items discarded.
    fn discard_stage(&mut self, repo: RepoKey) -> Result<u64>;
}

/// The rows [`RunStaging::stage_items`] writes: `items` with one row per
/// id, the last sighting winning, and their places from `next` on in the
/// order of those last sightings; each item as JSON
/// ([`crate::codec::to_json`]). Returns the rows and the next free place.
pub fn stage_rows(
    path: &std::path::Path,
    items: &[(String, ItemSnapshot)],
    next: u64,
) -> Result<(Vec<(String, i64, String)>, u64)> {
    let mut last = std::collections::HashMap::new();
    for (at, (id, _)) in items.iter().enumerate() {
        last.insert(id.as_str(), at);
    }
    let mut rows = Vec::with_capacity(last.len());
    let mut place = next;
    for (at, (id, snapshot)) in items.iter().enumerate() {
        if last.get(id.as_str()) != Some(&at) {
            continue;
        }
        let json = crate::codec::to_json(path, "a staged item", snapshot)?;
        rows.push((
            id.clone(),
            crate::codec::int("a stage's place", place)?,
            json,
        ));
        place += 1;
    }
    Ok((rows, place))
}

/// A staged row read back: its place, id and JSON.
pub fn staged_from(
    path: &std::path::Path,
    (place, id, json): (i64, String, String),
) -> Result<Staged> {
    Ok(Staged {
        place: crate::codec::uint(path, "run_stage_items.place", place)?,
        snapshot: crate::codec::from_json(path, "run_stage_items.snapshot", &json)?,
        id,
    })
}
