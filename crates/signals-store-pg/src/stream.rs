//! `signals export`'s reads in bounded batches, on PostgreSQL
//! (`signals_store::StreamReads`): the same four as the SQLite store's,
//! keyset-paged so that no cursor stays open between batches.

use std::collections::HashMap;

use signals_core::{News, RepoContext, TrailEvent};
use signals_store::codec::{from_json, ts_parse};
use signals_store::events::{detail_of, kind_of};
use signals_store::{
    LatestItem, Parts, RepoKey, RepoOutline, Result, StreamReads, TrailKey, run_record_from,
    trail_event_from,
};

use crate::PgStore;
use crate::read::{RUN_COLUMNS, SNAPSHOT_COLUMNS, SNAPSHOT_JOINS, raw_parts, run_row};

impl StreamReads for PgStore {
    fn repository_outline(&self, repo: RepoKey) -> Result<Option<RepoOutline>> {
        let path = self.path();
        let summary = self.summary_of(repo)?;
        let runs = self
            .query(
                "reading the runs",
                &format!("SELECT {RUN_COLUMNS} FROM runs WHERE repo = $1 ORDER BY id"),
                &[&repo.raw()],
            )?
            .iter()
            .map(|r| run_record_from(&path, run_row(r)))
            .collect::<Result<Vec<_>>>()?;
        if runs.is_empty() {
            return Ok(None);
        }
        let latest = self
            .query_opt(
                "reading the latest run's context",
                "SELECT context, news FROM runs WHERE repo = $1 ORDER BY id DESC LIMIT 1",
                &[&repo.raw()],
            )?
            .ok_or_else(|| self.corrupt("a run vanished while it was read".into()))?;
        let context: RepoContext = from_json(&path, "runs.context", latest.get(0))?;
        let news: News = from_json(&path, "runs.news", latest.get(1))?;
        Ok(Some(RepoOutline {
            summary,
            runs,
            license: context.license.clone(),
            context,
            news,
        }))
    }

    fn latest_news(&self, repo: RepoKey) -> Result<Option<News>> {
        let path = self.path();
        self.query_opt(
            "reading the latest run's news",
            "SELECT news FROM runs WHERE repo = $1 ORDER BY id DESC LIMIT 1",
            &[&repo.raw()],
        )?
        .map(|row| from_json(&path, "runs.news", row.get(0)))
        .transpose()
    }

    fn latest_items_after(
        &self,
        repo: RepoKey,
        after: Option<&str>,
        limit: usize,
    ) -> Result<Vec<LatestItem>> {
        let path = self.path();
        let rows = self.query(
            "reading a batch of the latest snapshots",
            &format!(
                "SELECT i.item_id, i.item_key, {SNAPSHOT_COLUMNS}, e.kind
                 FROM items i JOIN snapshots s ON s.id = i.latest {SNAPSHOT_JOINS}
                      LEFT JOIN events e ON e.item = i.id
                           AND e.run = (SELECT max(id) FROM runs WHERE repo = $1)
                 WHERE i.repo = $1 AND i.item_id > $2
                 ORDER BY i.item_id LIMIT $3"
            ),
            // Every id is longer than the empty one: from the first.
            &[&repo.raw(), &after.unwrap_or(""), &(limit as i64)],
        )?;
        let mut out = Vec::with_capacity(rows.len());
        for r in &rows {
            let key: String = r.get(1);
            let kind: Option<i64> = r.get(14);
            out.push(LatestItem {
                id: r.get(0),
                item: Parts::join(&path, &key, raw_parts(r, 2))?,
                latest_event: kind.map(|k| kind_of(&path, k)).transpose()?,
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
        let path = self.path();
        // Run ids start at 1: from the first event.
        let (run, item) = after.unwrap_or((0, ""));
        let rows = self.query(
            "reading a batch of the trail",
            // The key's place in its run (`pos`, signal id order) by the
            // items' and the events' unique indexes, then a range.
            "SELECT e.run, r.collected_at, i.item_id, e.kind, e.fields, e.detail
             FROM runs r JOIN events e ON e.run = r.id JOIN items i ON i.id = e.item
             WHERE r.repo = $1 AND e.run >= $2
               AND (e.run > $2 OR e.pos > (
                    SELECT k.pos FROM items ki JOIN events k ON k.item = ki.id
                    WHERE ki.repo = $1 AND ki.item_id = $3 AND k.run = $2))
             ORDER BY e.run, e.pos LIMIT $4",
            &[&repo.raw(), &run, &item, &(limit as i64)],
        )?;
        let mut out = Vec::with_capacity(rows.len());
        for r in &rows {
            let at: &str = r.get(1);
            out.push((
                r.get(0),
                TrailEvent {
                    at: ts_parse(&path, "runs.collected_at", at)?,
                    item_id: r.get(2),
                    title: String::new(),
                    url: String::new(),
                    kind: kind_of(&path, r.get(3))?,
                    detail: detail_of(&path, r.get(3), r.get(4), r.get(5))?,
                },
            ));
        }
        Ok(out)
    }

    /// One query for all keys (`unnest`), where SQLite does one seek each.
    fn trail_events(&self, repo: RepoKey, keys: &[TrailKey]) -> Result<Vec<TrailEvent>> {
        let path = self.path();
        if keys.is_empty() {
            return Ok(Vec::new());
        }
        let runs: Vec<i64> = keys.iter().map(|(run, _)| *run).collect();
        let items: Vec<&str> = keys.iter().map(|(_, item)| item.as_str()).collect();
        let rows = self.query(
            "reading events of the trail",
            "SELECT e.run, r.collected_at, i.item_id, h.text, e.kind, e.fields, e.detail
             FROM unnest($2::bigint[], $3::text[]) AS k(run, item_id)
             JOIN items i ON i.repo = $1 AND i.item_id = k.item_id
             JOIN events e ON e.run = k.run AND e.item = i.id
             JOIN runs r ON r.id = e.run
             JOIN snapshots s ON s.id = e.snapshot
             JOIN texts h ON h.id = s.head
             WHERE r.repo = $1",
            &[&repo.raw(), &runs, &items],
        )?;
        let mut found: HashMap<(i64, String), TrailEvent> = HashMap::with_capacity(rows.len());
        for r in &rows {
            let item_id: String = r.get(2);
            let event = trail_event_from(
                &path,
                (
                    r.get(1),
                    item_id.clone(),
                    r.get(3),
                    r.get(4),
                    r.get(5),
                    r.get(6),
                ),
            )?;
            found.insert((r.get(0), item_id), event);
        }
        keys.iter()
            .map(|key| {
                found.remove(key).ok_or_else(|| {
                    self.corrupt(format!(
                        "the event of {} in run {} vanished while it was read",
                        key.1, key.0
                    ))
                })
            })
            .collect()
    }
}
