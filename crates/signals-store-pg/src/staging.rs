//! A run's stage on PostgreSQL (issue 27, part 2, migration 0015): each
//! write in one transaction, a page's items upserted in one statement. Only
//! the worker holding the repository's lease stages it; the stage's row is
//! locked while items join it, so a run that started its own stage in
//! between is seen.

use jiff::Timestamp;
use signals_core::ItemSnapshot;
use signals_store::codec::{int, stamp, stamp_parse, uint};
use signals_store::staging::{stage_rows, staged_from};
use signals_store::{RepoKey, Result, RunStaging, Staged, StoreError};

use crate::PgStore;

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
            let stage = tx
                .query_opt(
                    "SELECT collected_s, collected_ns FROM run_stages WHERE repo = $1 FOR UPDATE",
                    &[&repo.raw()],
                )
                .map_err(&err)?
                .map(|r| (r.get::<_, i64>(0), r.get::<_, i64>(1)));
            if stage != Some(stamp(collected_at)) {
                let by = match stage {
                    Some((s, ns)) => Some(stamp_parse(&path, "run_stages.collected", s, ns)?),
                    None => None,
                };
                return Err(StoreError::StageLost {
                    store: self.shown.clone(),
                    repo,
                    at: collected_at,
                    by,
                });
            }
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
            "SELECT item_id, snapshot FROM run_stage_items
             WHERE repo = $1 AND ($2::text IS NULL OR item_id > $2::text)
             ORDER BY item_id LIMIT $3",
            &[&repo.raw(), &after, &limit],
        )?
        .iter()
        .map(|r| staged_from(&path, (r.get(0), r.get(1))))
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
