//! What trends read beyond the latest snapshots, on PostgreSQL
//! (`signals_store::TrendReads`): the same queries as the SQLite
//! store's, with the shared row decoding.

use jiff::Timestamp;
use signals_core::RepoContext;
use signals_core::downloads::AssetSighting;
use signals_core::trends::Rising;
use signals_store::codec::ts_text;
use signals_store::{RepoKey, Result, TrendReads, contexts_from, growth_from, sightings_from};

use crate::PgStore;

impl TrendReads for PgStore {
    /// SQLite's query (`SIGHTINGS_SQL` there), in PostgreSQL's words.
    fn asset_sightings(&self, repo: RepoKey, from: Timestamp) -> Result<Vec<AssetSighting>> {
        let rows = self
            .query(
                "reading the assets' download counts",
                "WITH start AS (
                     SELECT COALESCE(MIN(id), 9223372036854775807) AS id FROM runs
                     WHERE repo = $1 AND collected_at >= $2),
                 before AS (
                     SELECT a.asset, MAX(a.run) AS run FROM asset_downloads a, start
                     WHERE a.repo = $1 AND a.run < start.id GROUP BY a.asset)
                 SELECT d.asset, r.collected_at, d.count
                 FROM asset_downloads d JOIN runs r ON r.id = d.run, start
                 WHERE d.repo = $1
                   AND (d.run >= start.id OR (d.asset, d.run) IN (SELECT asset, run FROM before))
                 ORDER BY d.asset, d.run",
                &[&repo.raw(), &ts_text(from)],
            )?
            .iter()
            .map(|r| (r.get(0), r.get(1), r.get(2)))
            .collect();
        sightings_from(&self.path(), rows)
    }

    fn run_contexts(
        &self,
        repo: RepoKey,
        since: Timestamp,
    ) -> Result<Vec<(Timestamp, RepoContext)>> {
        let rows = self
            .query(
                "reading the runs' context",
                "SELECT collected_at, context FROM runs
                 WHERE repo = $1 AND collected_at >= $2 ORDER BY id",
                &[&repo.raw(), &ts_text(since)],
            )?
            .iter()
            .map(|r| (r.get(0), r.get(1)))
            .collect();
        contexts_from(&self.path(), rows)
    }

    fn growth_since(&self, repo: RepoKey, from: Timestamp) -> Result<Vec<Rising>> {
        let rows = self
            .query(
                "reading the items' recent growth",
                "SELECT item_id, head, then_, now_ FROM (
                     SELECT i.item_id, h.text AS head,
                            COALESCE(
                              (SELECT s.reactions + s.comments FROM snapshots s
                               JOIN runs r ON r.id = s.run
                               WHERE s.item = i.id AND r.collected_at <= $2
                               ORDER BY s.id DESC LIMIT 1),
                              (SELECT s.reactions + s.comments FROM snapshots s
                               WHERE s.item = i.id ORDER BY s.id LIMIT 1)) AS then_,
                            ls.reactions + ls.comments AS now_
                     FROM items i JOIN snapshots ls ON ls.id = i.latest
                          JOIN texts h ON h.id = ls.head
                     WHERE i.repo = $1 AND i.id IN (
                         SELECT e.item FROM events e JOIN runs r ON r.id = e.run
                         WHERE r.repo = $1 AND r.collected_at > $2)) g
                 WHERE now_ > then_
                 ORDER BY item_id",
                &[&repo.raw(), &ts_text(from)],
            )?
            .iter()
            .map(|r| (r.get(0), r.get(1), r.get(2), r.get(3)))
            .collect();
        growth_from(&self.path(), rows)
    }
}
