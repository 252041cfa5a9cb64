//! What `signals export` streams a repository from, in bounded
//! batches, so that an export never holds a whole repository: the
//! repository without its items and trail ([`RepoOutline`]), its latest
//! snapshots in signal id order after a given id ([`LatestItem`]), its
//! trail's events after a given one (without titles and URLs), and the
//! events of a trail page by their keys ([`TrailKey`]).
//!
//! Batches are keyset-paged (`WHERE key > after ORDER BY key LIMIT n`):
//! each read is one indexed range, costs what it returns, and holds no
//! cursor open between batches, so the caller may read other things in
//! between (PostgreSQL's client cannot run two queries at once).

use signals_core::{EventKind, ItemSnapshot, News, RepoContext, RunRecord, TrailEvent};

use crate::{RepoKey, RepoSummary, Result};

/// A repository without its items and trail: what a dataset's head, a
/// page's header and its news are made of.
#[derive(Debug, Clone, PartialEq)]
pub struct RepoOutline {
    /// The repository, its group and its state.
    pub summary: RepoSummary,
    /// All successful runs, in collection order (never empty).
    pub runs: Vec<RunRecord>,
    /// The context seen by the latest run.
    pub context: RepoContext,
    /// The news computed by the latest run.
    pub news: News,
    /// SPDX identifier of the license, as the latest run saw it.
    pub license: Option<String>,
}

/// An item's latest snapshot, as [`StreamReads::latest_items_after`]
/// reads it.
#[derive(Debug, Clone, PartialEq)]
pub struct LatestItem {
    /// The signal id.
    pub id: String,
    /// The latest snapshot, body included.
    pub item: ItemSnapshot,
    /// The kind of its event in the repository's latest run, if it had
    /// one there (`Changed` is what the dataset marks `change: updated`).
    pub latest_event: Option<EventKind>,
}

/// A trail event's place in the store: its run's row id and the item id
/// (unique together), the key [`StreamReads::trail_events`] reads by.
pub type TrailKey = (i64, String);

/// What `signals export` streams a repository from, a batch at a time:
/// the repository without its items and trail, its latest
/// snapshots after an id, its trail's keys after a key, and the events of
/// a trail page by their keys.
pub trait StreamReads {
    /// A repository without its items and trail (runs, latest context and
    /// news); `None` before its first successful run,
    /// [`crate::StoreError::UnknownRepository`] for a key the store does not have.
    fn repository_outline(&self, repo: RepoKey) -> Result<Option<RepoOutline>>;

    /// The news of `repo`'s latest successful run, `None` before its
    /// first: one row read, whatever the number of runs (a run whose
    /// discussions did not change keeps the previous run's).
    fn latest_news(&self, repo: RepoKey) -> Result<Option<News>>;

    /// At most `limit` latest snapshots of `repo`'s items, bodies
    /// included, in signal id order (byte order) after the id `after`
    /// (from the first when `None`), each with its event of the latest
    /// run.
    fn latest_items_after(
        &self,
        repo: RepoKey,
        after: Option<&str>,
        limit: usize,
    ) -> Result<Vec<LatestItem>>;

    /// At most `limit` events of `repo`'s trail in its order (run, then
    /// item id) after the event `after` (a run's row id and an item id),
    /// each with its run's row id; titles and URLs are left empty.
    fn trail_keys_after(
        &self,
        repo: RepoKey,
        after: Option<(i64, &str)>,
        limit: usize,
    ) -> Result<Vec<(i64, TrailEvent)>>;

    /// The trail events of `keys` (from [`StreamReads::trail_keys_after`]),
    /// whole, in the order of `keys`.
    fn trail_events(&self, repo: RepoKey, keys: &[TrailKey]) -> Result<Vec<TrailEvent>>;
}
