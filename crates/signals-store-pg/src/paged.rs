//! `signals serve`'s reads that cost what they return, on PostgreSQL
//! (`signals_store::PagedReads`): the same queries as the SQLite store's,
//! with the shared trail planning and row decoding.

use std::collections::HashSet;

use signals_core::ItemSnapshot;
use signals_store::codec::uint;
use signals_store::{
    PagedReads, Parts, RepoKey, Result, TrailPage, TrailPlan, trail_event_from, trail_plan,
};

use crate::PgStore;
use crate::read::{HEAD_COLUMNS, HEAD_JOINS, raw_parts, trail_row};

impl PagedReads for PgStore {
    fn each_latest_head(
        &self,
        repo: RepoKey,
        each: &mut dyn FnMut(String, ItemSnapshot) -> Result<()>,
    ) -> Result<()> {
        let path = self.path();
        self.each_row(
            "reading the latest snapshots' heads",
            &format!(
                "SELECT i.item_id, i.item_key, {HEAD_COLUMNS}
                 FROM items i JOIN snapshots s ON s.id = i.latest {HEAD_JOINS}
                 WHERE i.repo = $1 ORDER BY i.item_id"
            ),
            &[&repo.raw()],
            |r| {
                let key: String = r.get(1);
                each(r.get(0), Parts::join(&path, &key, raw_parts(r, 2))?)
            },
        )
    }

    fn changed_in_latest(&self, repo: RepoKey) -> Result<HashSet<String>> {
        Ok(self
            .query(
                "reading the latest run's changes",
                "SELECT i.item_id FROM events e JOIN items i ON i.id = e.item
                 WHERE e.run = (SELECT max(id) FROM runs WHERE repo = $1) AND e.kind = 1",
                &[&repo.raw()],
            )?
            .iter()
            .map(|r| r.get(0))
            .collect())
    }

    fn trail_page(&self, repo: RepoKey, offset: u64, limit: u64) -> Result<TrailPage> {
        let path = self.path();
        let doing = "reading a page of the trail";
        let mut runs = Vec::new();
        for r in self.query(
            doing,
            "SELECT id, changed_count FROM runs WHERE repo = $1 ORDER BY id DESC",
            &[&repo.raw()],
        )? {
            runs.push((
                r.get::<_, i64>(0),
                uint(&path, "runs.changed_count", r.get(1))?,
            ));
        }
        let TrailPlan { total, slices } = trail_plan(&runs, offset, limit);
        let mut out = Vec::new();
        for slice in slices {
            // A range of the primary key (run, pos), from the run's last
            // `pos` down, `skip` of them skipped.
            let rows = self.query(
                doing,
                "SELECT r.collected_at, i.item_id, h.text, e.kind, e.fields, e.detail
                 FROM events e
                 JOIN runs r ON r.id = e.run
                 JOIN items i ON i.id = e.item
                 JOIN snapshots s ON s.id = e.snapshot
                 JOIN texts h ON h.id = s.head
                 WHERE e.run = $1
                   AND e.pos <= (SELECT max(pos) FROM events WHERE run = $1) - $2
                 ORDER BY e.pos DESC LIMIT $3",
                &[&slice.run, &(slice.skip as i64), &(slice.take as i64)],
            )?;
            for r in rows {
                out.push(trail_event_from(&path, trail_row(&r))?);
            }
        }
        Ok(TrailPage { total, events: out })
    }
}
