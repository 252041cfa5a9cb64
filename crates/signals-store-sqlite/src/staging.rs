//! A run's stage on SQLite (migration 0015): each write
//! in one `BEGIN IMMEDIATE` transaction, the items upserted one statement
//! each.

use std::collections::HashSet;
use std::path::Path;

use jiff::Timestamp;
use rusqlite::{OptionalExtension, Transaction, TransactionBehavior, params};
use signals_core::ItemSnapshot;
use signals_store::codec::{int, stamp, stamp_parse, to_json, uint};
use signals_store::staging::{Positions, check_part, stage_rows, staged_from};
use signals_store::{
    Reads, RepoKey, Result, RunCommit, RunStaging, Staged, StagedParts, StoreError,
    check_staged_commit,
};

use crate::Store;
use crate::error::DbContext;
use crate::run_rows::{finish_run, insert_run, invalid, last_run, store_events};

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
        self.check_stage(&tx, repo, collected_at)?;
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
            .map(|(id, json)| staged_from(&self.path, id, &json))
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

    /// On a full disk, the space its rolled-back pages took in the WAL is
    /// given back.
    fn commit_staged(
        &mut self,
        repo: RepoKey,
        run: &RunCommit,
        chunk: usize,
        part: StagedParts<'_>,
    ) -> Result<()> {
        let result = self.commit_staged_once(repo, run, chunk, part);
        self.give_back(result)
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

impl Store {
    /// [`RunStaging::commit_staged`] in one `BEGIN IMMEDIATE` transaction,
    /// the reads of the stage and of the previous snapshots on the same
    /// connection, inside it.
    fn commit_staged_once(
        &self,
        repo: RepoKey,
        run: &RunCommit,
        chunk: usize,
        part_of: StagedParts<'_>,
    ) -> Result<()> {
        let path = &self.path;
        let at = run.record.collected_at;
        check_staged_commit(run).map_err(|problem| invalid(run, problem))?;
        let context = to_json(path, "run context", &run.context)?;
        let news = to_json(path, "run news", &run.news)?;
        let tx = Transaction::new_unchecked(&self.conn, TransactionBehavior::Immediate)
            .doing(path, "starting to commit a run")?;
        if let Some(last) = last_run(&tx, path, repo)?
            && at <= last
        {
            return Err(StoreError::RunOutOfOrder {
                path: path.clone(),
                repo: run.context.repository.to_string(),
                at,
                last,
            });
        }
        self.check_stage(&tx, repo, at)?;
        let run_id = insert_run(&tx, path, repo, run, &context, &news)?;
        let mut new_items = 0;
        for (id, snapshot) in &run.snapshots {
            new_items += u64::from(crate::snapshots::store_snapshot(
                &tx,
                path,
                repo.raw(),
                id,
                snapshot,
                run_id,
            )?);
        }
        let own: HashSet<&str> = run.snapshots.iter().map(|(id, _)| id.as_str()).collect();
        let mut positions = Positions::new(&run.events);
        let mut shell = RunCommit {
            snapshots: Vec::new(),
            events: Vec::new(),
            references: Vec::new(),
            messages: Vec::new(),
            ..run.clone()
        };
        let mut after: Option<String> = None;
        loop {
            let staged = self.staged_items(repo, after.as_deref(), chunk.max(1))?;
            let Some(last) = staged.last() else { break };
            after = Some(last.id.clone());
            let ids: Vec<String> = staged.iter().map(|s| s.id.clone()).collect();
            let previous = self.latest_snapshots_for(repo, &ids)?;
            let mut part = part_of(staged, previous)?;
            check_part(&own, &ids, &part).map_err(|problem| invalid(run, problem))?;
            for (id, snapshot) in &part.snapshots {
                new_items += u64::from(crate::snapshots::store_snapshot(
                    &tx,
                    path,
                    repo.raw(),
                    id,
                    snapshot,
                    run_id,
                )?);
            }
            let events = positions.part(&mut part.events);
            store_events(&tx, path, repo, run_id, run, events)?;
            shell.references = part.references;
            crate::references::store_references(&tx, path, repo.raw(), run_id, &shell)?;
        }
        store_events(&tx, path, repo, run_id, run, positions.rest())?;
        if positions.count() != run.record.changed_count {
            return Err(invalid(
                run,
                format!(
                    "changedCount is {} but the run and its stage have {} observation events",
                    run.record.changed_count,
                    positions.count()
                ),
            ));
        }
        crate::references::store_references(&tx, path, repo.raw(), run_id, run)?;
        finish_run(&tx, path, repo, run_id, run)?;
        if self.keeps_totals {
            crate::totals::add_run(&tx, path, repo, run, new_items)?;
        }
        discard(&tx, path, repo)?;
        tx.commit().doing(path, "committing a run")
    }

    /// Refuses a commit whose stage is not the run's.
    fn check_stage(&self, tx: &Transaction<'_>, repo: RepoKey, at: Timestamp) -> Result<()> {
        let path = &self.path;
        let stage: Option<(i64, i64)> = tx
            .query_row(
                "SELECT collected_s, collected_ns FROM run_stages WHERE repo = ?1",
                params![repo.raw()],
                |r| Ok((r.get(0)?, r.get(1)?)),
            )
            .optional()
            .doing(path, "committing a run")?;
        if stage == Some(stamp(at)) {
            return Ok(());
        }
        let by = match stage {
            Some((s, ns)) => Some(stamp_parse(path, "run_stages.collected", s, ns)?),
            None => None,
        };
        Err(StoreError::StageLost {
            store: path.display().to_string(),
            repo,
            at,
            by,
        })
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
