//! `signals serve`'s reads on SQLite.

use std::collections::HashSet;

use rusqlite::params;
use signals_core::ItemSnapshot;
use signals_store::codec::uint;
use signals_store::{
    PagedReads, Parts, RepoKey, Result, TrailPage, TrailPlan, trail_event_from, trail_plan,
};

use crate::Store;
use crate::error::DbContext;
use crate::read::trail_row;
use crate::snapshots::{HEAD_COLUMNS, HEAD_JOINS, raw_parts};

impl PagedReads for Store {
    fn each_latest_head(
        &self,
        repo: RepoKey,
        each: &mut dyn FnMut(String, ItemSnapshot) -> Result<()>,
    ) -> Result<()> {
        let doing = "reading the latest snapshots' heads";
        let mut stmt = self
            .conn
            .prepare_cached(&format!(
                "SELECT i.item_id, i.item_key, {HEAD_COLUMNS}
                 FROM items i JOIN snapshots s ON s.id = i.latest {HEAD_JOINS}
                 WHERE i.repo = ?1 ORDER BY i.item_id"
            ))
            .doing(&self.path, doing)?;
        let mut rows = stmt.query([repo.raw()]).doing(&self.path, doing)?;
        while let Some(r) = rows.next().doing(&self.path, doing)? {
            let id: String = r.get(0).doing(&self.path, doing)?;
            let key: String = r.get(1).doing(&self.path, doing)?;
            let raw = raw_parts(r, 2).doing(&self.path, doing)?;
            each(id, Parts::join(&self.path, &key, raw)?)?;
        }
        Ok(())
    }

    fn changed_in_latest(&self, repo: RepoKey) -> Result<HashSet<String>> {
        let doing = "reading the latest run's changes";
        let mut stmt = self
            .conn
            .prepare_cached(
                "SELECT i.item_id FROM events e JOIN items i ON i.id = e.item
                 WHERE e.run = (SELECT max(id) FROM runs WHERE repo = ?1) AND e.kind = 1",
            )
            .doing(&self.path, doing)?;
        let rows = stmt
            .query_map([repo.raw()], |r| r.get::<_, String>(0))
            .doing(&self.path, doing)?;
        rows.collect::<rusqlite::Result<HashSet<_>>>()
            .doing(&self.path, doing)
    }

    fn trail_page(&self, repo: RepoKey, offset: u64, limit: u64) -> Result<TrailPage> {
        let path = &self.path;
        let doing = "reading a page of the trail";
        let runs = {
            let mut stmt = self
                .conn
                .prepare_cached(
                    "SELECT id, changed_count FROM runs WHERE repo = ?1 ORDER BY id DESC",
                )
                .doing(path, doing)?;
            let rows = stmt
                .query_map([repo.raw()], |r| {
                    Ok((r.get::<_, i64>(0)?, r.get::<_, i64>(1)?))
                })
                .doing(path, doing)?;
            let mut runs = Vec::new();
            for row in rows {
                let (id, n) = row.doing(path, doing)?;
                runs.push((id, uint(path, "runs.changed_count", n)?));
            }
            runs
        };
        let TrailPlan { total, slices } = trail_plan(&runs, offset, limit);
        let mut out = Vec::new();
        for slice in slices {
            // The slice is a range of the primary key: the run's events
            // from its last `pos` down, `skip` of them skipped.
            let mut stmt = self
                .conn
                .prepare_cached(
                    "SELECT r.collected_at, i.item_id, h.text, e.kind, e.fields, e.detail
                     FROM events e
                     JOIN runs r ON r.id = e.run
                     JOIN items i ON i.id = e.item
                     JOIN snapshots s ON s.id = e.snapshot
                     JOIN texts h ON h.id = s.head
                     WHERE e.run = ?1
                       AND e.pos <= (SELECT max(pos) FROM events WHERE run = ?1) - ?2
                     ORDER BY e.pos DESC LIMIT ?3",
                )
                .doing(path, doing)?;
            let rows = stmt
                .query_map(
                    params![slice.run, slice.skip as i64, slice.take as i64],
                    trail_row,
                )
                .doing(path, doing)?;
            for row in rows {
                out.push(trail_event_from(path, row.doing(path, doing)?)?);
            }
        }
        Ok(TrailPage { total, events: out })
    }
}
