//! Trends' reads on SQLite, each one indexed query whose
//! cost follows what it returns, not the repository's size.

use jiff::Timestamp;
use rusqlite::params;
use signals_core::RepoContext;
use signals_core::downloads::AssetSighting;
use signals_core::trends::Rising;
use signals_store::codec::ts_text;
use signals_store::{
    ContextRow, GrowthRow, RepoKey, Result, SightingRow, TrendReads, contexts_from, growth_from,
    sightings_from,
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

/// The stored download counts of a repository's assets at runs at or
/// after `?2`, and each asset's last one before the first such run, by
/// asset then run (`TrendReads::asset_sightings`). Indexed by
/// `(repo, asset, run)`: the rows before the span are read once, grouped.
pub(crate) const SIGHTINGS_SQL: &str = "
    WITH start AS (
        SELECT COALESCE(MIN(id), 9223372036854775807) AS id FROM runs
        WHERE repo = ?1 AND collected_at >= ?2),
    before AS (
        SELECT asset, MAX(run) AS run FROM asset_downloads, start
        WHERE repo = ?1 AND run < start.id GROUP BY asset)
    SELECT d.asset, r.collected_at, d.count
    FROM asset_downloads d JOIN runs r ON r.id = d.run, start
    WHERE d.repo = ?1
      AND (d.run >= start.id OR (d.asset, d.run) IN (SELECT asset, run FROM before))
    ORDER BY d.asset, d.run";

impl TrendReads for Store {
    fn asset_sightings(&self, repo: RepoKey, from: Timestamp) -> Result<Vec<AssetSighting>> {
        let doing = "reading the assets' download counts";
        let rows = self
            .conn
            .prepare_cached(SIGHTINGS_SQL)
            .doing(&self.path, doing)?
            .query_map(params![repo.raw(), ts_text(from)], |r| {
                Ok((r.get(0)?, r.get(1)?, r.get(2)?))
            })
            .doing(&self.path, doing)?
            .collect::<rusqlite::Result<Vec<SightingRow>>>()
            .doing(&self.path, doing)?;
        sightings_from(&self.path, rows)
    }

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
