//! Reads for `signals serve` (issue 17) that cost what they return, or
//! stream what they read, instead of reading a repository whole: the
//! latest heads of a repository one at a time (without bodies), the texts
//! that may contain a query, the items changed in the latest run, and one
//! page of the trail.
//!
//! The trail is paged by run: each run's `changed_count` is the number of
//! events it recorded (an invariant of commits), so the runs covering a
//! page are found from the runs alone, and only that page's events are
//! read, by the events' primary key `(run, pos)` (`pos` numbers a run's
//! events in signal id order). The planning is shared with the
//! PostgreSQL store ([`trail_plan`]).
//!
//! Text search answers with candidates from an index, a superset of the
//! texts that contain the query case-insensitively; the caller checks each
//! candidate exactly (Rust's lower-casing, as the API always did), so
//! answers do not depend on the index. For a query the index cannot narrow
//! ([`searchable`]) the caller looks at every item.

use std::collections::HashSet;

use rusqlite::params;
use signals_core::{ItemSnapshot, TrailEvent};

use crate::codec::uint;
use crate::error::DbContext;
use crate::read::trail_row;
use crate::snapshots::{HEAD_COLUMNS, HEAD_JOINS, Parts, raw_parts};
use crate::{RepoKey, Result, Store, trail_event_from};

/// The texts a latest snapshot refers to (`texts.id`), which
/// [`PagedReads::texts_matching`] answers in.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct TextIds {
    /// The head (JSON with the title).
    pub head: i64,
    /// The body.
    pub body: i64,
}

/// One run's share of a trail page: the run's row id, how many of its
/// events (newest item id first) to skip, and how many to take.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct TrailSlice {
    /// `runs.id`.
    pub run: i64,
    /// Events of the run to skip, in descending item id order.
    pub skip: u64,
    /// Events of the run to take after those.
    pub take: u64,
}

/// Which events of which runs make the trail page `offset..offset+limit`,
/// newest first, given every run's `(id, changed_count)` newest first; and
/// the trail's total.
pub fn trail_plan(runs: &[(i64, u64)], offset: u64, limit: u64) -> (u64, Vec<TrailSlice>) {
    let total = runs.iter().map(|(_, n)| n).sum();
    let mut slices = Vec::new();
    let end = offset.saturating_add(limit);
    let mut start_of_run = 0u64;
    for &(run, count) in runs {
        let end_of_run = start_of_run + count;
        if count > 0 && end_of_run > offset && start_of_run < end {
            let skip = offset.saturating_sub(start_of_run);
            let take = end.min(end_of_run) - (start_of_run + skip);
            slices.push(TrailSlice { run, skip, take });
        }
        if end_of_run >= end {
            break;
        }
        start_of_run = end_of_run;
    }
    (total, slices)
}

/// What `signals serve` reads (issue 17), each costing what it returns or
/// streaming what it reads: the latest heads one at a time, the texts that
/// may hold a query, the items changed in the latest run, one page of the
/// trail.
pub trait PagedReads {
    /// The latest snapshot of every item of `repo`, in signal id order
    /// (byte order), each without its body (`text` is empty), handed to
    /// `each` one at a time with its texts' ids: memory does not grow with
    /// the repository.
    fn each_latest_head(
        &self,
        repo: RepoKey,
        each: &mut dyn FnMut(String, ItemSnapshot, TextIds) -> Result<()>,
    ) -> Result<()>;

    /// The ids of the texts that may contain `q` (lower-cased),
    /// case-insensitively: a superset of those that do, from a text index;
    /// `None` when the store cannot narrow the search (no index, or a
    /// query it cannot use: see [`searchable`]).
    fn texts_matching(&self, q: &str) -> Result<Option<HashSet<i64>>>;

    /// The ids of the items with a `changed` event in the repository's
    /// latest run.
    fn changed_in_latest(&self, repo: RepoKey) -> Result<HashSet<String>>;

    /// The trail's total and its events `offset..offset + limit`, newest
    /// first (latest run first, then item ids in descending order: the
    /// reverse of the trail's order), reading only those.
    fn trail_page(&self, repo: RepoKey, offset: u64, limit: u64) -> Result<(u64, Vec<TrailEvent>)>;
}

/// Whether a text index can narrow a search for `q` (lower-cased): three
/// characters or more (a trigram), all ASCII (SQLite folds case by its
/// own Unicode tables, which may differ from Rust's outside ASCII).
pub fn searchable(q: &str) -> bool {
    q.len() >= 3 && q.is_ascii()
}

impl PagedReads for Store {
    fn each_latest_head(
        &self,
        repo: RepoKey,
        each: &mut dyn FnMut(String, ItemSnapshot, TextIds) -> Result<()>,
    ) -> Result<()> {
        let doing = "reading the latest snapshots' heads";
        let mut stmt = self
            .conn
            .prepare_cached(&format!(
                "SELECT i.item_id, i.item_key, s.head, s.body, {HEAD_COLUMNS}
                 FROM items i JOIN snapshots s ON s.id = i.latest {HEAD_JOINS}
                 WHERE i.repo = ?1 ORDER BY i.item_id"
            ))
            .doing(&self.path, doing)?;
        let mut rows = stmt.query([repo.0]).doing(&self.path, doing)?;
        while let Some(r) = rows.next().doing(&self.path, doing)? {
            let id: String = r.get(0).doing(&self.path, doing)?;
            let key: String = r.get(1).doing(&self.path, doing)?;
            let texts = TextIds {
                head: r.get(2).doing(&self.path, doing)?,
                body: r.get(3).doing(&self.path, doing)?,
            };
            let raw = raw_parts(r, 4).doing(&self.path, doing)?;
            each(id, Parts::join(&self.path, &key, raw)?, texts)?;
        }
        Ok(())
    }

    /// Candidates from the FTS5 trigram index of migration 0005
    /// (`texts_trigrams`, kept by triggers on `texts`); the caller checks
    /// each exactly.
    fn texts_matching(&self, q: &str) -> Result<Option<HashSet<i64>>> {
        if !searchable(q) {
            return Ok(None);
        }
        let doing = "searching the texts";
        // Every trigram of the query, each a quoted FTS5 string (quotes
        // doubled), all required: with `detail=none` the index knows which
        // texts hold a trigram, not where, so this is a superset of the
        // texts holding the query.
        let mut trigrams: Vec<&str> = (0..=q.len() - 3).map(|i| &q[i..i + 3]).collect();
        trigrams.sort_unstable();
        trigrams.dedup();
        let phrase = trigrams
            .iter()
            .map(|t| format!("\"{}\"", t.replace('"', "\"\"")))
            .collect::<Vec<_>>()
            .join(" AND ");
        let mut stmt = self
            .conn
            .prepare_cached("SELECT rowid FROM texts_trigrams WHERE texts_trigrams MATCH ?1")
            .doing(&self.path, doing)?;
        let rows = stmt
            .query_map([phrase], |r| r.get::<_, i64>(0))
            .doing(&self.path, doing)?;
        Ok(Some(
            rows.collect::<rusqlite::Result<HashSet<i64>>>()
                .doing(&self.path, doing)?,
        ))
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
            .query_map([repo.0], |r| r.get::<_, String>(0))
            .doing(&self.path, doing)?;
        rows.collect::<rusqlite::Result<HashSet<_>>>()
            .doing(&self.path, doing)
    }

    fn trail_page(&self, repo: RepoKey, offset: u64, limit: u64) -> Result<(u64, Vec<TrailEvent>)> {
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
                .query_map([repo.0], |r| Ok((r.get::<_, i64>(0)?, r.get::<_, i64>(1)?)))
                .doing(path, doing)?;
            let mut runs = Vec::new();
            for row in rows {
                let (id, n) = row.doing(path, doing)?;
                runs.push((id, uint(path, "runs.changed_count", n)?));
            }
            runs
        };
        let (total, slices) = trail_plan(&runs, offset, limit);
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
        Ok((total, out))
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn trail_plans_cover_exactly_the_page() {
        let runs = [(9, 3), (8, 0), (7, 5), (6, 2)];
        assert_eq!(trail_plan(&runs, 0, 100).0, 10);
        let all: Vec<(i64, u64)> = (0..10)
            .flat_map(|offset| {
                let (_, slices) = trail_plan(&runs, offset, 1);
                assert_eq!(slices.len(), 1, "{offset}");
                slices.into_iter().map(|s| (s.run, s.skip))
            })
            .collect();
        assert_eq!(
            all,
            [
                (9, 0),
                (9, 1),
                (9, 2),
                (7, 0),
                (7, 1),
                (7, 2),
                (7, 3),
                (7, 4),
                (6, 0),
                (6, 1)
            ]
        );
        assert_eq!(
            trail_plan(&runs, 2, 4).1,
            [
                TrailSlice {
                    run: 9,
                    skip: 2,
                    take: 1
                },
                TrailSlice {
                    run: 7,
                    skip: 0,
                    take: 3
                }
            ]
        );
        assert!(trail_plan(&runs, 10, 5).1.is_empty());
        assert!(trail_plan(&[], 0, 5).1.is_empty());
    }
}
