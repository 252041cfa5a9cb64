//! What trends read from the store beyond the latest snapshots (issue 18),
//! each by one indexed query whose cost follows what it returns, not the
//! repository's size: the context of the runs since a time, and the items
//! observed since a time with their reactions plus comments then and now.
//! The row decoding is public so the PostgreSQL store shares it.

use std::path::Path;

use jiff::Timestamp;
use rusqlite::params;
use signals_core::RepoContext;
use signals_core::trends::Rising;

use crate::codec::{from_json, ts_parse, ts_text, uint};
use crate::error::DbContext;
use crate::snapshots::head_title_url;
use crate::{RepoKey, Result, Store};

/// A run's instant and context as stored: (collected_at, context JSON).
pub type ContextRow = (String, String);

/// A rising candidate as stored: (item id, head JSON, metrics then, now).
pub type GrowthRow = (String, String, i64, i64);

/// Decodes [`ContextRow`]s.
pub fn contexts_from(path: &Path, rows: Vec<ContextRow>) -> Result<Vec<(Timestamp, RepoContext)>> {
    rows.into_iter()
        .map(|(at, context)| {
            Ok((
                ts_parse(path, "runs.collected_at", &at)?,
                from_json(path, "runs.context", &context)?,
            ))
        })
        .collect()
}

/// Decodes [`GrowthRow`]s.
pub fn growth_from(path: &Path, rows: Vec<GrowthRow>) -> Result<Vec<Rising>> {
    rows.into_iter()
        .map(|(id, head, from, to)| {
            let (title, url) = head_title_url(path, &head)?;
            Ok(Rising {
                id,
                title,
                url,
                from: uint(path, "snapshots.reactions + comments", from)?,
                to: uint(path, "snapshots.reactions + comments", to)?,
            })
        })
        .collect()
}

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

/// The two reads trends add (issue 18), each by one indexed query whose
/// cost follows what it returns, not the repository's size.
pub trait TrendReads {
    /// The instant and context of each run of `repo` since `since`, oldest
    /// first (trends' stars and forks; bounded by the weeks a trends
    /// document covers).
    fn run_contexts(
        &self,
        repo: RepoKey,
        since: Timestamp,
    ) -> Result<Vec<(Timestamp, RepoContext)>>;

    /// The items of `repo` observed in a run after `from` that grew, with
    /// their reactions plus comments then (or when first seen) and now:
    /// the candidates of trends' "rising". Only those that grew: the others
    /// cannot rise, and a repository whose items were all seen this week
    /// (a first collection) would otherwise hand them all over (issue 17).
    fn growth_since(&self, repo: RepoKey, from: Timestamp) -> Result<Vec<Rising>>;
}

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
            .query_map(params![repo.0, ts_text(since)], |r| {
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
            .query_map(params![repo.0, ts_text(from)], |r| {
                Ok((r.get(0)?, r.get(1)?, r.get(2)?, r.get(3)?))
            })
            .doing(&self.path, doing)?
            .collect::<rusqlite::Result<Vec<GrowthRow>>>()
            .doing(&self.path, doing)?;
        growth_from(&self.path, rows)
    }
}
