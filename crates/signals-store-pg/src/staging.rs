//! A run's stage on PostgreSQL (migration 0015): each
//! write in one transaction, a page's items upserted in one statement. Only
//! the worker holding the repository's lease stages it; the stage's row is
//! locked while items join it, so a run that started its own stage in
//! between is seen.

use std::collections::{HashMap, HashSet};

use jiff::Timestamp;
use postgres::{Client, Transaction};
use signals_core::ItemSnapshot;
use signals_store::codec::{int, stamp, stamp_parse, uint};
use signals_store::staging::{Positions, check_part, stage_rows, staged_from};
use signals_store::{
    Parts, RepoKey, Result, RunCommit, RunStaging, Staged, StagedParts, StoreError,
    check_staged_commit,
};

use crate::read::{SNAPSHOT_COLUMNS, SNAPSHOT_JOINS};
use crate::run_rows::{Commit, SnapshotRow};
use crate::texts::Texts;
use crate::{Attempt, PgStore};

/// A staged run's commit, prepared before its transaction: the run, the
/// texts of its own snapshots, and how many staged items a chunk holds.
#[derive(Clone, Copy)]
struct StagedCommit<'a> {
    commit: &'a Commit<'a>,
    texts: &'a Texts<'a>,
    chunk: usize,
}

/// Reads a chunk of a stage, in signal id order.
const STAGED_SQL: &str = "SELECT item_id, snapshot FROM run_stage_items
     WHERE repo = $1 AND ($2::text IS NULL OR item_id > $2::text)
     ORDER BY item_id LIMIT $3";

impl RunStaging for PgStore {
    fn stage_start(&self, repo: RepoKey, collected_at: Timestamp) -> Result<u64> {
        let err = self.err("starting a run's stage");
        let (s, ns) = stamp(collected_at);
        self.retrying(|client, _| {
            let mut tx = client.transaction().map_err(&err)?;
            let discarded = discard(&mut tx, repo).map_err(&err)?;
            tx.execute(
                "INSERT INTO run_stages (repo, collected_s, collected_ns) VALUES ($1, $2, $3)",
                &[&repo.raw(), &s, &ns],
            )
            .map_err(&err)?;
            tx.commit().map_err(&err)?;
            Ok(discarded)
        })
    }

    fn stage_items(
        &self,
        repo: RepoKey,
        collected_at: Timestamp,
        items: &[(String, ItemSnapshot)],
    ) -> Result<()> {
        let err = self.err("staging a run's items");
        let path = self.path();
        let rows = stage_rows(&path, items)?;
        let ids: Vec<&str> = rows.iter().map(|(id, _)| id.as_str()).collect();
        let jsons: Vec<&str> = rows.iter().map(|(_, json)| json.as_str()).collect();
        self.retrying(|client, _| {
            let mut tx = client.transaction().map_err(&err)?;
            self.check_stage(&mut tx, repo, collected_at)?;
            tx.execute(
                "INSERT INTO run_stage_items (repo, item_id, snapshot)
                 SELECT $1, u.* FROM unnest($2::text[], $3::text[]) AS u(item_id, snapshot)
                 ON CONFLICT (repo, item_id) DO UPDATE SET snapshot = excluded.snapshot",
                &[&repo.raw(), &ids, &jsons],
            )
            .map_err(&err)?;
            tx.commit().map_err(&err)
        })
    }

    fn staged_items(
        &self,
        repo: RepoKey,
        after: Option<&str>,
        limit: usize,
    ) -> Result<Vec<Staged>> {
        let limit = int("a chunk's size", limit as u64)?;
        let path = self.path();
        self.query(
            "reading a run's stage",
            STAGED_SQL,
            &[&repo.raw(), &after, &limit],
        )?
        .iter()
        .map(|r| staged_from(&path, r.get(0), r.get(1)))
        .collect()
    }

    fn staged_count(&self, repo: RepoKey) -> Result<u64> {
        let n: i64 = self
            .query(
                "counting a run's stage",
                "SELECT count(*) FROM run_stage_items WHERE repo = $1",
                &[&repo.raw()],
            )?
            .first()
            .map_or(0, |r| r.get(0));
        uint(&self.path(), "count(*)", n)
    }

    /// Texts first, as [`signals_store::RunWrites::commit_run`] on
    /// PostgreSQL stores them: the run's own and each chunk's, each in one
    /// statement of its own in hash order; then the run in one
    /// transaction (retried as a run's is), which only reads their ids.
    fn commit_staged(
        &mut self,
        repo: RepoKey,
        run: &RunCommit,
        chunk: usize,
        part: StagedParts<'_>,
    ) -> Result<()> {
        let path = self.path();
        let commit = Commit::checked(&path, repo, run, check_staged_commit)?;
        let texts = Texts::of(commit.parts.iter().map(|(_, _, p)| p));
        self.insert_texts(repo, &texts)?;
        let mut after: Option<String> = None;
        loop {
            let staged = self.staged_items(repo, after.as_deref(), chunk.max(1))?;
            let Some(last) = staged.last() else { break };
            after = Some(last.id.clone());
            let parts = staged
                .iter()
                .map(|s| Parts::split(&path, &s.snapshot))
                .collect::<Result<Vec<_>>>()?;
            self.insert_texts(repo, &Texts::of(parts.iter()))?;
        }
        let committed = self.retrying(|client, attempt| {
            let run = StagedCommit {
                commit: &commit,
                texts: &texts,
                chunk: chunk.max(1),
            };
            self.commit_staged_in(client, attempt, run, &mut *part)
        })?;
        if !committed {
            self.notice(format!(
                "the commit of {}'s run at {} had gone through before the connection \
                 was lost; it was not written again",
                commit.repo_name, commit.at
            ));
        }
        self.lease.borrow_mut().take();
        Ok(())
    }

    fn discard_stage(&self, repo: RepoKey) -> Result<u64> {
        let err = self.err("discarding a run's stage");
        self.retrying(|client, _| {
            let mut tx = client.transaction().map_err(&err)?;
            let discarded = discard(&mut tx, repo).map_err(&err)?;
            tx.commit().map_err(&err)?;
            Ok(discarded)
        })
    }
}

impl PgStore {
    /// Refuses a write whose stage is not the run's; locks the stage.
    fn check_stage(&self, tx: &mut Transaction<'_>, repo: RepoKey, at: Timestamp) -> Result<()> {
        let stage = tx
            .query_opt(
                "SELECT collected_s, collected_ns FROM run_stages WHERE repo = $1 FOR UPDATE",
                &[&repo.raw()],
            )
            .map_err(self.err("reading a run's stage"))?
            .map(|r| (r.get::<_, i64>(0), r.get::<_, i64>(1)));
        if stage == Some(stamp(at)) {
            return Ok(());
        }
        let by = match stage {
            Some((s, ns)) => Some(stamp_parse(&self.path(), "run_stages.collected", s, ns)?),
            None => None,
        };
        Err(StoreError::StageLost {
            store: self.shown.clone(),
            repo,
            at,
            by,
        })
    }

    /// The staged run's transaction: false when a retry finds the run
    /// committed already (as a run's, `write.rs`).
    fn commit_staged_in(
        &self,
        client: &mut Client,
        attempt: Attempt,
        run: StagedCommit<'_>,
        part_of: StagedParts<'_>,
    ) -> Result<bool> {
        let StagedCommit {
            commit: c,
            texts,
            chunk,
        } = run;
        let err = self.err("committing a run");
        let path = self.path();
        let repo = c.repo;
        let mut tx = client.transaction().map_err(&err)?;
        if !self.begin_run(&mut tx, c, attempt)? {
            return Ok(false);
        }
        self.check_stage(&mut tx, repo, c.at)?;
        let ids = texts.resolve(&mut tx).map_err(&err)?;
        let run_id = self.insert_run(&mut tx, c)?;
        let mut new_items = 0;
        for (id, snapshot, parts) in &c.parts {
            let row = SnapshotRow {
                repo: repo.raw(),
                item_id: id,
                snapshot,
                parts,
                run: run_id,
            };
            new_items += u64::from(self.store_snapshot(&mut tx, row, &ids)?);
        }
        let invalid = |problem: String| StoreError::InvalidRun {
            repo: c.repo_name.clone(),
            at: c.at,
            problem,
        };
        let own: HashSet<&str> = c.parts.iter().map(|(id, _, _)| *id).collect();
        let mut positions = Positions::new(&c.run.events);
        let mut shell = RunCommit {
            snapshots: Vec::new(),
            events: Vec::new(),
            references: Vec::new(),
            messages: Vec::new(),
            ..c.run.clone()
        };
        let mut after: Option<String> = None;
        loop {
            let limit = int("a chunk's size", chunk as u64)?;
            let staged = tx
                .query(STAGED_SQL, &[&repo.raw(), &after, &limit])
                .map_err(&err)?
                .iter()
                .map(|r| staged_from(&path, r.get(0), r.get(1)))
                .collect::<Result<Vec<Staged>>>()?;
            let Some(last) = staged.last() else { break };
            after = Some(last.id.clone());
            let chunk_ids: Vec<String> = staged.iter().map(|s| s.id.clone()).collect();
            let previous = self.previous_in(&mut tx, repo, &chunk_ids)?;
            let mut part = part_of(staged, previous)?;
            check_part(&own, &chunk_ids, &part).map_err(invalid)?;
            let parts = part
                .snapshots
                .iter()
                .map(|(id, s)| Ok((id.as_str(), s, Parts::split(&path, s)?)))
                .collect::<Result<Vec<_>>>()?;
            let part_ids = Texts::of(parts.iter().map(|(_, _, p)| p))
                .resolve(&mut tx)
                .map_err(&err)?;
            for (id, snapshot, parts) in &parts {
                let row = SnapshotRow {
                    repo: repo.raw(),
                    item_id: id,
                    snapshot,
                    parts,
                    run: run_id,
                };
                new_items += u64::from(self.store_snapshot(&mut tx, row, &part_ids)?);
            }
            let events = positions.part(&mut part.events);
            self.store_events(&mut tx, c, run_id, events)?;
            shell.references = part.references;
            self.store_references(&mut tx, repo.raw(), run_id, &shell)?;
        }
        self.store_events(&mut tx, c, run_id, positions.rest())?;
        if positions.count() != c.run.record.changed_count {
            return Err(invalid(format!(
                "changedCount is {} but the run and its stage have {} observation events",
                c.run.record.changed_count,
                positions.count()
            )));
        }
        self.store_references(&mut tx, repo.raw(), run_id, c.run)?;
        self.finish_in(&mut tx, c, run_id, new_items)?;
        discard(&mut tx, repo).map_err(&err)?;
        tx.commit().map_err(&err)?;
        Ok(true)
    }

    /// The latest snapshots of `ids` of `repo`, inside `tx`.
    fn previous_in(
        &self,
        tx: &mut Transaction<'_>,
        repo: RepoKey,
        ids: &[String],
    ) -> Result<HashMap<String, ItemSnapshot>> {
        let path = self.path();
        let rows = tx
            .query(
                &format!(
                    "SELECT i.item_id, i.item_key, {SNAPSHOT_COLUMNS}
                     FROM items i JOIN snapshots s ON s.id = i.latest {SNAPSHOT_JOINS}
                     WHERE i.repo = $1 AND i.item_id = ANY($2)"
                ),
                &[&repo.raw(), &ids],
            )
            .map_err(self.err("reading the latest snapshots of observed items"))?;
        rows.iter()
            .map(|r| {
                let key: String = r.get(1);
                Ok((
                    r.get(0),
                    Parts::join(&path, &key, crate::read::raw_parts(r, 2))?,
                ))
            })
            .collect()
    }
}

/// Deletes the stage of `repo` in `tx`: its items, then the stage; returns
/// the number of items.
pub(crate) fn discard(
    tx: &mut postgres::Transaction<'_>,
    repo: RepoKey,
) -> std::result::Result<u64, postgres::Error> {
    let n = tx.execute(
        "DELETE FROM run_stage_items WHERE repo = $1",
        &[&repo.raw()],
    )?;
    tx.execute("DELETE FROM run_stages WHERE repo = $1", &[&repo.raw()])?;
    Ok(n)
}
