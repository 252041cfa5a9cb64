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
    fn stage_start(&mut self, repo: RepoKey, collected_at: Timestamp) -> Result<u64> {
        let err = self.err("starting a run's stage");
        let (s, ns) = stamp(collected_at);
        self.retrying(|client, _| {
            let mut tx = client.transaction().map_err(&err)?;
            let discarded = discard(&mut tx, repo).map_err(&err)?;
            tx.execute(
                "INSERT INTO run_stages (repo, collected_s, collected_ns, next_place)
                 VALUES ($1, $2, $3, 1)",
                &[&repo.raw(), &s, &ns],
            )
            .map_err(&err)?;
            tx.commit().map_err(&err)?;
            Ok(discarded)
        })
    }

    fn stage_items(
        &mut self,
        repo: RepoKey,
        collected_at: Timestamp,
        items: &[(String, ItemSnapshot)],
    ) -> Result<()> {
        let err = self.err("staging a run's items");
        let path = self.path();
        self.retrying(|client, _| {
            let mut tx = client.transaction().map_err(&err)?;
            let stage = tx
                .query_opt(
                    "SELECT collected_s, collected_ns, next_place FROM run_stages
                     WHERE repo = $1 FOR UPDATE",
                    &[&repo.raw()],
                )
                .map_err(&err)?
                .map(|r| (r.get::<_, i64>(0), r.get::<_, i64>(1), r.get::<_, i64>(2)));
            let next = match stage {
                Some((s, ns, next)) if (s, ns) == stamp(collected_at) => {
                    uint(&path, "run_stages.next_place", next)?
                }
                other => {
                    let by = match other {
                        Some((s, ns, _)) => {
                            Some(stamp_parse(&path, "run_stages.collected", s, ns)?)
                        }
                        None => None,
                    };
                    return Err(StoreError::StageLost {
                        store: self.shown.clone(),
                        repo,
                        at: collected_at,
                        by,
                    });
                }
            };
            let (rows, next) = stage_rows(&path, items, next)?;
            let ids: Vec<&str> = rows.iter().map(|(id, _, _)| id.as_str()).collect();
            let places: Vec<i64> = rows.iter().map(|(_, place, _)| *place).collect();
            let jsons: Vec<&str> = rows.iter().map(|(_, _, json)| json.as_str()).collect();
            tx.execute(
                "INSERT INTO run_stage_items (repo, item_id, place, snapshot)
                 SELECT $1, u.* FROM unnest($2::text[], $3::bigint[], $4::text[])
                     AS u(item_id, place, snapshot)
                 ON CONFLICT (repo, item_id) DO UPDATE SET
                     place = excluded.place, snapshot = excluded.snapshot",
                &[&repo.raw(), &ids, &places, &jsons],
            )
            .map_err(&err)?;
            tx.execute(
                "UPDATE run_stages SET next_place = $2 WHERE repo = $1",
                &[&repo.raw(), &int("a stage's place", next)?],
            )
            .map_err(&err)?;
            tx.commit().map_err(&err)
        })
    }

    fn staged_items(&self, repo: RepoKey, after: u64, limit: usize) -> Result<Vec<Staged>> {
        let after = int("a stage's place", after)?;
        let limit = int("a chunk's size", limit as u64)?;
        let path = self.path();
        self.query(
            "reading a run's stage",
            "SELECT place, item_id, snapshot FROM run_stage_items
             WHERE repo = $1 AND place > $2 ORDER BY place LIMIT $3",
            &[&repo.raw(), &after, &limit],
        )?
        .iter()
        .map(|r| staged_from(&path, (r.get(0), r.get(1), r.get(2))))
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

    fn discard_stage(&mut self, repo: RepoKey) -> Result<u64> {
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
