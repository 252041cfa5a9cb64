//! A run's stage on SQLite (issue 27, part 2, migration 0015): each write
//! in one `BEGIN IMMEDIATE` transaction, the items upserted one statement
//! each.

use std::path::Path;

use jiff::Timestamp;
use rusqlite::{OptionalExtension, Transaction, TransactionBehavior, params};
use signals_core::ItemSnapshot;
use signals_store::codec::{int, stamp, stamp_parse, uint};
use signals_store::staging::{stage_rows, staged_from};
use signals_store::{RepoKey, Result, RunStaging, Staged, StoreError};

use crate::Store;
use crate::error::DbContext;

impl RunStaging for Store {
    fn stage_start(&self, repo: RepoKey, collected_at: Timestamp) -> Result<u64> {
        let doing = "starting a run's stage";
        let path = &self.path;
        let tx = Transaction::new_unchecked(&self.conn, TransactionBehavior::Immediate)
            .doing(path, doing)?;
        let discarded = discard(&tx, path, repo)?;
        let (s, ns) = stamp(collected_at);
        tx.execute(
            "INSERT INTO run_stages (repo, collected_s, collected_ns) VALUES (?1, ?2, ?3)",
            params![repo.raw(), s, ns],
        )
        .doing(path, doing)?;
        tx.commit().doing(path, doing)?;
        Ok(discarded)
    }

    fn stage_items(
        &self,
        repo: RepoKey,
        collected_at: Timestamp,
        items: &[(String, ItemSnapshot)],
    ) -> Result<()> {
        let doing = "staging a run's items";
        let path = &self.path;
        let rows = stage_rows(path, items)?;
        let tx = Transaction::new_unchecked(&self.conn, TransactionBehavior::Immediate)
            .doing(path, doing)?;
        let stage: Option<(i64, i64)> = tx
            .query_row(
                "SELECT collected_s, collected_ns FROM run_stages WHERE repo = ?1",
                params![repo.raw()],
                |r| Ok((r.get(0)?, r.get(1)?)),
            )
            .optional()
            .doing(path, doing)?;
        if stage != Some(stamp(collected_at)) {
            let by = match stage {
                Some((s, ns)) => Some(stamp_parse(path, "run_stages.collected", s, ns)?),
                None => None,
            };
            return Err(StoreError::StageLost {
                store: path.display().to_string(),
                repo,
                at: collected_at,
                by,
            });
        }
        for (id, json) in &rows {
            tx.prepare_cached(
                "INSERT INTO run_stage_items (repo, item_id, snapshot) VALUES (?1, ?2, ?3)
                 ON CONFLICT (repo, item_id) DO UPDATE SET snapshot = excluded.snapshot",
            )
            .doing(path, doing)?
            .execute(params![repo.raw(), id, json])
            .doing(path, doing)?;
        }
        tx.commit().doing(path, doing)
    }

    fn staged_items(
        &self,
        repo: RepoKey,
        after: Option<&str>,
        limit: usize,
    ) -> Result<Vec<Staged>> {
        let doing = "reading a run's stage";
        let limit = int("a chunk's size", limit as u64)?;
        let rows = self
            .conn
            .prepare_cached(
                "SELECT item_id, snapshot FROM run_stage_items
                 WHERE repo = ?1 AND (?2 IS NULL OR item_id > ?2) ORDER BY item_id LIMIT ?3",
            )
            .doing(&self.path, doing)?
            .query_map(params![repo.raw(), after, limit], |r| {
                Ok((r.get(0)?, r.get(1)?))
            })
            .doing(&self.path, doing)?
            .collect::<rusqlite::Result<Vec<(String, String)>>>()
            .doing(&self.path, doing)?;
        rows.into_iter()
            .map(|row| staged_from(&self.path, row))
            .collect()
    }

    fn staged_count(&self, repo: RepoKey) -> Result<u64> {
        let doing = "counting a run's stage";
        let n: i64 = self
            .conn
            .prepare_cached("SELECT count(*) FROM run_stage_items WHERE repo = ?1")
            .doing(&self.path, doing)?
            .query_row(params![repo.raw()], |r| r.get(0))
            .doing(&self.path, doing)?;
        uint(&self.path, "count(*)", n)
    }

    fn discard_stage(&self, repo: RepoKey) -> Result<u64> {
        let doing = "discarding a run's stage";
        let path = &self.path;
        let tx = Transaction::new_unchecked(&self.conn, TransactionBehavior::Immediate)
            .doing(path, doing)?;
        let discarded = discard(&tx, path, repo)?;
        tx.commit().doing(path, doing)?;
        Ok(discarded)
    }
}

/// Deletes the stage of `repo` in `tx`: its items, then the stage; returns
/// the number of items.
pub(crate) fn discard(tx: &Transaction<'_>, path: &Path, repo: RepoKey) -> Result<u64> {
    let doing = "discarding a run's stage";
    let n = tx
        .execute(
            "DELETE FROM run_stage_items WHERE repo = ?1",
            params![repo.raw()],
        )
        .doing(path, doing)?;
    tx.execute(
        "DELETE FROM run_stages WHERE repo = ?1",
        params![repo.raw()],
    )
    .doing(path, doing)?;
    Ok(n as u64)
}
