//! A run's stage: the items of a run written to the
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

use std::collections::{HashMap, HashSet};

use jiff::Timestamp;
use signals_core::ItemSnapshot;
use signals_core::references::ItemReferences;
use signals_core::run::ItemEvent;

use crate::{RepoKey, Result, RunCommit};

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

    /// Commits the run of `repo` whose stage is staged, all or nothing, in
    /// one transaction: `run` (as [`crate::RunWrites::commit_run`] does),
    /// and what `part` makes of each chunk of at most `chunk` staged items
    /// (in signal id order) and the latest stored snapshots of those items,
    /// read inside the transaction; the stage is discarded with it. Only
    /// one chunk and its part are held at a time.
    ///
    /// `run.record.changed_count` counts the events of `run` and of every
    /// part; `run`'s own snapshots (releases, discussions, items a
    /// reconcile closes) are not staged. Refused as `commit_run` refuses,
    /// with [`crate::StoreError::StageLost`] when the stage is not the
    /// run's, and with [`crate::StoreError::InvalidRun`] when the parts
    /// contradict the run.
    fn commit_staged(
        &mut self,
        repo: RepoKey,
        run: &RunCommit,
        chunk: usize,
        part: StagedParts<'_>,
    ) -> Result<()>;
}

/// What one chunk of a run's stage adds to its commit
/// ([`RunStaging::commit_staged`]): what the caller's diff made of its
/// items, as a [`RunCommit`] holds them.
#[derive(Debug, Clone, Default, PartialEq)]
pub struct StagedPart {
    /// New snapshots of the chunk's items, by signal id.
    pub snapshots: Vec<(String, ItemSnapshot)>,
    /// The observation events of the chunk's items.
    pub events: Vec<ItemEvent>,
    /// What the new texts of the chunk's items name.
    pub references: Vec<ItemReferences>,
}

/// Makes the part of a chunk: its staged items, and the latest stored
/// snapshot of each that has one, by signal id.
pub type StagedParts<'a> =
    &'a mut dyn FnMut(Vec<Staged>, HashMap<String, ItemSnapshot>) -> Result<StagedPart>;

/// Checks a part against its run and the chunk it was made of: its
/// snapshots and events are of the chunk's items, one each at most, and
/// none of the run's own. Returns the problem, for
/// [`crate::StoreError::InvalidRun`].
pub fn check_part(
    own: &HashSet<&str>,
    chunk: &[String],
    part: &StagedPart,
) -> std::result::Result<(), String> {
    let of_chunk = |id: &str| chunk.binary_search_by(|c| c.as_str().cmp(id)).is_ok();
    let mut seen = HashSet::new();
    for (id, _) in &part.snapshots {
        if !of_chunk(id) || own.contains(id.as_str()) || !seen.insert(id.as_str()) {
            return Err(format!(
                "a staged part has a snapshot of {id}, not once one of its chunk's items"
            ));
        }
    }
    let mut seen = HashSet::new();
    for e in &part.events {
        if !of_chunk(&e.item_id) || own.contains(e.item_id.as_str()) || !seen.insert(&e.item_id) {
            return Err(format!(
                "a staged part has an event for {}, not once one of its chunk's items",
                e.item_id
            ));
        }
    }
    Ok(())
}

/// The run's own events and those of the parts, numbered together in
/// signal id order as [`crate::events::positioned`] numbers a run's
/// events: the parts come in signal id order, the run's own events are
/// slotted in between them.
pub struct Positions<'a> {
    own: Vec<&'a ItemEvent>,
    next_own: usize,
    pos: i64,
}

impl<'a> Positions<'a> {
    /// Numbers `own` (the run's own events) among the parts' to come.
    pub fn new(own: &'a [ItemEvent]) -> Positions<'a> {
        let mut own: Vec<&ItemEvent> = own.iter().collect();
        own.sort_by(|a, b| a.item_id.cmp(&b.item_id));
        Positions {
            own,
            next_own: 0,
            pos: 0,
        }
    }

    /// The events of one part (sorted here) with the run's own events
    /// that come before each, numbered.
    pub fn part<'b>(&mut self, events: &'b mut [ItemEvent]) -> Vec<(i64, &'b ItemEvent)>
    where
        'a: 'b,
    {
        events.sort_by(|a, b| a.item_id.cmp(&b.item_id));
        let mut out = Vec::with_capacity(events.len());
        for e in events.iter() {
            while let Some(own) = self.own.get(self.next_own)
                && own.item_id < e.item_id
            {
                out.push((self.pos, *own));
                self.pos += 1;
                self.next_own += 1;
            }
            out.push((self.pos, e));
            self.pos += 1;
        }
        out
    }

    /// The run's own events left after the last part, numbered.
    pub fn rest(&mut self) -> Vec<(i64, &'a ItemEvent)> {
        let rest: Vec<(i64, &ItemEvent)> = self.own[self.next_own..]
            .iter()
            .enumerate()
            .map(|(i, e)| (self.pos + i as i64, *e))
            .collect();
        self.pos += rest.len() as i64;
        self.next_own = self.own.len();
        rest
    }

    /// How many events were numbered.
    pub fn count(&self) -> u64 {
        self.pos as u64
    }
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

/// A staged row read back from its id and JSON.
pub fn staged_from(path: &std::path::Path, id: String, json: &str) -> Result<Staged> {
    Ok(Staged {
        snapshot: crate::codec::from_json(path, "run_stage_items.snapshot", json)?,
        id,
    })
}
