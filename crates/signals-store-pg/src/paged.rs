//! `signals serve`'s reads that cost what they return, on PostgreSQL: the
//! same three as the SQLite store's (`signals_store`'s `paged.rs`), with
//! its trail planning and row decoding.

use std::collections::HashSet;

use signals_core::{ItemSnapshot, TrailEvent};
use signals_store::codec::uint;
use signals_store::{Parts, RepoKey, Result, TextIds, searchable, trail_event_from, trail_plan};

use crate::PgStore;
use crate::read::raw_parts;

impl PgStore {
    pub(crate) fn each_latest_head_(
        &self,
        repo: RepoKey,
        each: &mut dyn FnMut(String, ItemSnapshot, TextIds) -> Result<()>,
    ) -> Result<()> {
        let path = self.path();
        self.each_row(
            "reading the latest snapshots' heads",
            "SELECT i.item_id, i.item_key, s.head, s.body, h.text, '', s.updated_at, s.state, s.reactions,
                    s.comments, s.labels, s.assignees, s.detail, s.closed_at
             FROM items i JOIN snapshots s ON s.id = i.latest
                  JOIN texts h ON h.id = s.head
             WHERE i.repo = $1 ORDER BY i.item_id",
            &[&repo.raw()],
            |r| {
                let key: String = r.get(1);
                let texts = TextIds {
                    head: r.get(2),
                    body: r.get(3),
                };
                each(r.get(0), Parts::join(&path, &key, raw_parts(r, 4))?, texts)
            },
        )
    }

    /// Candidates by the pg_trgm index of migration 0004 when the
    /// database has it (`lower(text) LIKE`, so `%`, `_` and a backslash in the
    /// query are escaped); `None` without it, or for a query it cannot
    /// narrow.
    pub(crate) fn texts_matching_(&self, q: &str) -> Result<Option<HashSet<i64>>> {
        if !searchable(q) || !self.has_trigram_index()? {
            return Ok(None);
        }
        let mut pattern = String::from("%");
        for c in q.chars() {
            if matches!(c, '%' | '_' | '\\') {
                pattern.push('\\');
            }
            pattern.push(c);
        }
        pattern.push('%');
        Ok(Some(
            self.query(
                "searching the texts",
                "SELECT id FROM texts WHERE lower(text) LIKE $1",
                &[&pattern],
            )?
            .iter()
            .map(|r| r.get(0))
            .collect(),
        ))
    }

    fn has_trigram_index(&self) -> Result<bool> {
        Ok(self
            .query(
                "looking for the text search index",
                "SELECT to_regclass('texts_trigrams') IS NOT NULL",
                &[],
            )?
            .first()
            .is_some_and(|r| r.get(0)))
    }

    pub(crate) fn changed_in_latest_(&self, repo: RepoKey) -> Result<HashSet<String>> {
        Ok(self
            .query(
                "reading the latest run's changes",
                "SELECT item_id FROM events
                 WHERE run = (SELECT max(id) FROM runs WHERE repo = $1) AND kind = 'changed'",
                &[&repo.raw()],
            )?
            .iter()
            .map(|r| r.get(0))
            .collect())
    }

    pub(crate) fn trail_page_(
        &self,
        repo: RepoKey,
        offset: u64,
        limit: u64,
    ) -> Result<(u64, Vec<TrailEvent>)> {
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
        let (total, slices) = trail_plan(&runs, offset, limit);
        let mut out = Vec::new();
        for slice in slices {
            let first: Option<String> = if slice.skip == 0 {
                None
            } else {
                self.query(
                    doing,
                    "SELECT item_id FROM events WHERE run = $1
                     ORDER BY item_id DESC LIMIT 1 OFFSET $2",
                    &[&slice.run, &(slice.skip as i64)],
                )?
                .first()
                .map(|r| r.get(0))
            };
            let rows = self.query(
                doing,
                "SELECT r.collected_at, e.item_id, h.text, e.kind, e.detail
                 FROM events e
                 JOIN runs r ON r.id = e.run
                 JOIN snapshots s ON s.id = e.snapshot
                 JOIN texts h ON h.id = s.head
                 WHERE e.run = $1 AND ($2::TEXT IS NULL OR e.item_id <= $2)
                 ORDER BY e.item_id DESC LIMIT $3",
                &[&slice.run, &first, &(slice.take as i64)],
            )?;
            for r in rows {
                out.push(trail_event_from(
                    &path,
                    r.get(0),
                    r.get(1),
                    r.get(2),
                    r.get(3),
                    r.get(4),
                )?);
            }
        }
        Ok((total, out))
    }
}
