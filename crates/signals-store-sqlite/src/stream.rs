//! `signals export`'s batched reads on SQLite: keyset-paged,
//! each one indexed range.

use rusqlite::{OptionalExtension, params};
use signals_core::{News, RepoContext, TrailEvent};
use signals_store::codec::from_json;
use signals_store::events::{detail_of, kind_of};
use signals_store::{
    LatestItem, Parts, RepoKey, RepoOutline, Result, StoreError, StreamReads, TrailKey,
    run_record_from, trail_event_from,
};

use crate::Store;
use crate::error::DbContext;
use crate::read::{RUN_COLUMNS, run_row, trail_row, trail_row_at};
use crate::snapshots::{SNAPSHOT_COLUMNS, SNAPSHOT_JOINS, raw_parts};

impl StreamReads for Store {
    fn repository_outline(&self, repo: RepoKey) -> Result<Option<RepoOutline>> {
        let path = &self.path;
        let summary = self.summary_of(repo)?;
        let runs = {
            let doing = "reading the runs";
            let mut stmt = self
                .conn
                .prepare_cached(&format!(
                    "SELECT {RUN_COLUMNS} FROM runs WHERE repo = ?1 ORDER BY id"
                ))
                .doing(path, doing)?;
            let rows = stmt.query_map([repo.raw()], run_row).doing(path, doing)?;
            let mut runs = Vec::new();
            for row in rows {
                runs.push(run_record_from(path, row.doing(path, doing)?)?);
            }
            runs
        };
        if runs.is_empty() {
            return Ok(None);
        }
        let (context, news): (String, String) = self
            .conn
            .query_row(
                "SELECT context, news FROM runs WHERE repo = ?1 ORDER BY id DESC LIMIT 1",
                [repo.raw()],
                |r| Ok((r.get(0)?, r.get(1)?)),
            )
            .doing(path, "reading the latest run's context")?;
        let context: RepoContext = from_json(path, "runs.context", &context)?;
        let news: News = from_json(path, "runs.news", &news)?;
        Ok(Some(RepoOutline {
            summary,
            runs,
            license: context.license.clone(),
            context,
            news,
        }))
    }

    fn latest_news(&self, repo: RepoKey) -> Result<Option<News>> {
        let path = &self.path;
        let news: Option<String> = self
            .conn
            .query_row(
                "SELECT news FROM runs WHERE repo = ?1 ORDER BY id DESC LIMIT 1",
                [repo.raw()],
                |r| r.get(0),
            )
            .optional()
            .doing(path, "reading the latest run's news")?;
        news.map(|n| from_json(path, "runs.news", &n)).transpose()
    }

    fn latest_items_after(
        &self,
        repo: RepoKey,
        after: Option<&str>,
        limit: usize,
    ) -> Result<Vec<LatestItem>> {
        let path = &self.path;
        let doing = "reading a batch of the latest snapshots";
        let mut stmt = self
            .conn
            .prepare_cached(&format!(
                "SELECT i.item_id, i.item_key, {SNAPSHOT_COLUMNS}, e.kind
                 FROM items i JOIN snapshots s ON s.id = i.latest {SNAPSHOT_JOINS}
                      LEFT JOIN events e ON e.item = i.id
                           AND e.run = (SELECT max(id) FROM runs WHERE repo = ?1)
                 WHERE i.repo = ?1 AND i.item_id > ?2
                 ORDER BY i.item_id LIMIT ?3"
            ))
            .doing(path, doing)?;
        let rows = stmt
            // Every id is longer than the empty one: from the first.
            .query_map(
                params![repo.raw(), after.unwrap_or(""), limit as i64],
                |r| {
                    Ok((
                        r.get::<_, String>(0)?,
                        r.get::<_, String>(1)?,
                        raw_parts(r, 2)?,
                        r.get::<_, Option<i64>>(14)?,
                    ))
                },
            )
            .doing(path, doing)?;
        let mut out = Vec::new();
        for row in rows {
            let (id, key, raw, kind) = row.doing(path, doing)?;
            out.push(LatestItem {
                id,
                item: Parts::join(path, &key, raw)?,
                latest_event: kind.map(|k| kind_of(path, k)).transpose()?,
            });
        }
        Ok(out)
    }

    fn trail_keys_after(
        &self,
        repo: RepoKey,
        after: Option<(i64, &str)>,
        limit: usize,
    ) -> Result<Vec<(i64, TrailEvent)>> {
        let path = &self.path;
        let doing = "reading a batch of the trail";
        // Run ids start at 1: from the first event.
        let (run, item) = after.unwrap_or((0, ""));
        let mut stmt = self
            .conn
            .prepare_cached(
                // The key's place in its run (`pos`, signal id order) by
                // the items' and the events' unique indexes, then a range.
                "SELECT e.run, r.collected_at, i.item_id, '', e.kind, e.fields, e.detail
                 FROM runs r JOIN events e ON e.run = r.id JOIN items i ON i.id = e.item
                 WHERE r.repo = ?1 AND e.run >= ?2
                   AND (e.run > ?2 OR e.pos > (
                        SELECT k.pos FROM items ki JOIN events k ON k.item = ki.id
                        WHERE ki.repo = ?1 AND ki.item_id = ?3 AND k.run = ?2))
                 ORDER BY e.run, e.pos LIMIT ?4",
            )
            .doing(path, doing)?;
        let rows = stmt
            .query_map(params![repo.raw(), run, item, limit as i64], |r| {
                Ok((r.get::<_, i64>(0)?, trail_row_at(r, 1)?))
            })
            .doing(path, doing)?;
        let mut out = Vec::new();
        for row in rows {
            let (run, (at, item_id, _, kind, fields, detail)) = row.doing(path, doing)?;
            out.push((
                run,
                TrailEvent {
                    at: signals_store::codec::ts_parse(path, "runs.collected_at", &at)?,
                    item_id,
                    title: String::new(),
                    url: String::new(),
                    kind: kind_of(path, kind)?,
                    detail: detail_of(path, kind, fields, detail)?,
                },
            ));
        }
        Ok(out)
    }

    /// One indexed read per key.
    fn trail_events(&self, repo: RepoKey, keys: &[TrailKey]) -> Result<Vec<TrailEvent>> {
        let path = &self.path;
        let doing = "reading events of the trail";
        let mut stmt = self
            .conn
            .prepare_cached(
                "SELECT r.collected_at, i.item_id, h.text, e.kind, e.fields, e.detail
                 FROM items i
                 JOIN events e ON e.item = i.id AND e.run = ?1
                 JOIN runs r ON r.id = e.run
                 JOIN snapshots s ON s.id = e.snapshot
                 JOIN texts h ON h.id = s.head
                 WHERE i.item_id = ?2 AND i.repo = ?3 AND r.repo = ?3",
            )
            .doing(path, doing)?;
        let mut out = Vec::with_capacity(keys.len());
        for (run, item_id) in keys {
            let row = stmt
                .query_row(params![run, item_id, repo.raw()], trail_row)
                .optional()
                .doing(path, doing)?;
            let Some(row) = row else {
                return Err(StoreError::Corrupt {
                    path: path.clone(),
                    what: format!("the event of {item_id} in run {run} vanished while it was read"),
                });
            };
            out.push(trail_event_from(path, row)?);
        }
        Ok(out)
    }
}
