//! Trends' two reads on SQLite, each one indexed query whose
//! cost follows what it returns, not the repository's size.

use jiff::Timestamp;
use rusqlite::params;
use signals_core::RepoContext;
use signals_core::trends::Rising;
use signals_store::codec::ts_text;
use signals_store::{
    ContextRow, GrowthRow, RepoKey, Result, TrendReads, contexts_from, growth_from,
};

use crate::Store;
use crate::error::DbContext;

/// The runs of a repository since `since`, oldest first (for trends'
/// context points; bounded by the weeks a trends document covers).
pub(crate) const CONTEXTS_SQL: &str =
    "SELECT collected_at, context FROM runs WHERE repo = ?1 AND collected_at >= ?2 ORDER BY id";

/// Every item with an observation event in a run after `?2`: its id, its
/// latest head, its reactions plus comments in its latest snapshot at or
/// before `?2` (or, first seen later, in its first snapshot), and now.
/// Snapshots are only stored on change and a change of metrics is an event,
/// so no item that grew is missed.
pub(crate) const GROWTH_SQL: &str = "
    SELECT item_id, head, then_, now_ FROM (
        SELECT i.item_id, h.text AS head,
               COALESCE(
                 (SELECT s.reactions + s.comments FROM snapshots s JOIN runs r ON r.id = s.run
                  WHERE s.item = i.id AND r.collected_at <= ?2 ORDER BY s.id DESC LIMIT 1),
                 (SELECT s.reactions + s.comments FROM snapshots s
                  WHERE s.item = i.id ORDER BY s.id LIMIT 1)) AS then_,
               ls.reactions + ls.comments AS now_
        FROM items i JOIN snapshots ls ON ls.id = i.latest JOIN texts h ON h.id = ls.head
        WHERE i.repo = ?1 AND i.id IN (
            SELECT e.item FROM events e JOIN runs r ON r.id = e.run
            WHERE r.repo = ?1 AND r.collected_at > ?2)) g
    WHERE now_ > then_
    ORDER BY item_id";

impl TrendReads for Store {
    fn run_contexts(
        &self,
        repo: RepoKey,
        since: Timestamp,
    ) -> Result<Vec<(Timestamp, RepoContext)>> {
        let doing = "reading the runs' context";
        let rows = self
            .conn
            .prepare_cached(CONTEXTS_SQL)
            .doing(&self.path, doing)?
            .query_map(params![repo.raw(), ts_text(since)], |r| {
                Ok((r.get(0)?, r.get(1)?))
            })
            .doing(&self.path, doing)?
            .collect::<rusqlite::Result<Vec<ContextRow>>>()
            .doing(&self.path, doing)?;
        contexts_from(&self.path, rows)
    }

    fn growth_since(&self, repo: RepoKey, from: Timestamp) -> Result<Vec<Rising>> {
        let doing = "reading the items' recent growth";
        let rows = self
            .conn
            .prepare_cached(GROWTH_SQL)
            .doing(&self.path, doing)?
            .query_map(params![repo.raw(), ts_text(from)], |r| {
                Ok((r.get(0)?, r.get(1)?, r.get(2)?, r.get(3)?))
            })
            .doing(&self.path, doing)?
            .collect::<rusqlite::Result<Vec<GrowthRow>>>()
            .doing(&self.path, doing)?;
        growth_from(&self.path, rows)
    }
}
