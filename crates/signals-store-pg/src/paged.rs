//! `signals serve`'s reads that cost what they return, on PostgreSQL
//! (`signals_store::PagedReads`): the same queries as the SQLite store's,
//! with the shared trail planning and row decoding, and text search by the
//! pg_trgm index of `0004_text_search.sql` when the database has it.

use std::collections::HashSet;

use signals_core::{ItemSnapshot, TrailEvent};
use signals_store::codec::uint;
use signals_store::{
    HEAD_COLUMNS, HEAD_JOINS, PagedReads, Parts, RepoKey, Result, TextIds, searchable,
    trail_event_from, trail_plan,
};

use crate::PgStore;
use crate::read::{raw_parts, trail_row};

impl PagedReads for PgStore {
    fn each_latest_head(
        &self,
        repo: RepoKey,
        each: &mut dyn FnMut(String, ItemSnapshot, TextIds) -> Result<()>,
    ) -> Result<()> {
        let path = self.path();
        self.each_row(
            "reading the latest snapshots' heads",
            &format!(
                "SELECT i.item_id, i.item_key, s.head, s.body, {HEAD_COLUMNS}
                 FROM items i JOIN snapshots s ON s.id = i.latest {HEAD_JOINS}
                 WHERE i.repo = $1 ORDER BY i.item_id"
            ),
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
    fn texts_matching(&self, q: &str) -> Result<Option<HashSet<i64>>> {
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

    fn trail_page(&self, repo: RepoKey, offset: u64, limit: u64) -> Result<(u64, Vec<TrailEvent>)> {
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
        Ok((total, out))
    }
}

impl PgStore {
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
}
