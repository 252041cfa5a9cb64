//! A repository's lifecycle on PostgreSQL
//! (`signals_store::LifecycleStore`), the same queries as the SQLite
//! store's.

use jiff::Timestamp;
use signals_core::lifecycle::contributors::Voice;
use signals_core::lifecycle::verdict::Record;
use signals_core::model::Merge;
use signals_core::notify::Outgoing;
use signals_store::codec::{to_json, ts_text};
use signals_store::lifecycle::{changes_from, merges_from, record_from, voices_from};
use signals_store::{LifecycleStore, RepoKey, Result, StateChange};

use crate::PgStore;

impl LifecycleStore for PgStore {
    fn record_lifecycle(
        &self,
        repo: RepoKey,
        at: Timestamp,
        record: &Record,
        messages: &[Outgoing],
    ) -> Result<()> {
        let json = to_json(&self.path(), "a lifecycle record", record)?;
        let err = self.err("storing a run's lifecycle");
        self.retrying(|client, _| {
            let mut tx = client.transaction().map_err(&err)?;
            let run: i64 = tx
                .query_one(
                    "SELECT id FROM runs WHERE repo = $1 AND collected_at = $2",
                    &[&repo.raw(), &ts_text(at)],
                )
                .map_err(&err)?
                .get(0);
            tx.execute(
                "INSERT INTO lifecycle (run, repo, state, record) VALUES ($1, $2, $3, $4)",
                &[&run, &repo.raw(), &record.state.as_str(), &json],
            )
            .map_err(&err)?;
            self.store_messages(&mut tx, repo, run, at, messages)?;
            tx.commit().map_err(&err)
        })
    }

    fn lifecycle(&self, repo: RepoKey) -> Result<Option<Record>> {
        let rows = self.query(
            "reading a repository's lifecycle",
            "SELECT record FROM lifecycle WHERE repo = $1 ORDER BY run DESC LIMIT 1",
            &[&repo.raw()],
        )?;
        rows.first()
            .map(|r| record_from(&self.path(), r.get(0)))
            .transpose()
    }

    fn lifecycle_changes(&self, repo: RepoKey) -> Result<Vec<StateChange>> {
        let rows = self
            .query(
                "reading a repository's lifecycle changes",
                "SELECT r.collected_at, l.state FROM lifecycle l JOIN runs r ON r.id = l.run
                 WHERE l.repo = $1 ORDER BY l.run",
                &[&repo.raw()],
            )?
            .iter()
            .map(|r| (r.get(0), r.get(1)))
            .collect();
        changes_from(&self.path(), rows)
    }

    fn voices_since(&self, repo: RepoKey, since: Timestamp) -> Result<Vec<Voice>> {
        let rows = self
            .query(
                "reading the recent comments' authors",
                "SELECT kind, author, association, bot = 1, state, created_s FROM comments
                 WHERE repo = $1 AND created_s >= $2 ORDER BY created_s, kind, host_id",
                &[&repo.raw(), &since.as_second()],
            )?
            .iter()
            .map(|r| (r.get(0), r.get(1), r.get(2), r.get(3), r.get(4), r.get(5)))
            .collect();
        voices_from(&self.path(), rows)
    }

    fn store_merges(&self, repo: RepoKey, merges: &[Merge]) -> Result<()> {
        if merges.is_empty() {
            return Ok(());
        }
        // One row per pull request, the last reading standing (an upsert
        // may not touch a row twice).
        let last: std::collections::BTreeMap<&str, &Merge> =
            merges.iter().map(|m| (m.item_key.as_str(), m)).collect();
        let keys: Vec<&str> = last.keys().copied().collect();
        let by: Vec<&str> = last.values().map(|m| m.merged_by.as_str()).collect();
        let bots: Vec<i64> = last.values().map(|m| i64::from(m.bot)).collect();
        let at: Vec<i64> = last.values().map(|m| m.merged_at.as_second()).collect();
        let err = self.err("storing merges");
        self.retrying(|client, _| {
            client
                .execute(
                    "INSERT INTO merges (repo, item_key, merged_by, bot, merged_s)
                     SELECT $1, u.* FROM unnest($2::text[], $3::text[], $4::bigint[], $5::bigint[])
                         AS u(item_key, merged_by, bot, merged_s)
                     ON CONFLICT (repo, item_key) DO UPDATE SET merged_by = excluded.merged_by,
                         bot = excluded.bot, merged_s = excluded.merged_s",
                    &[&repo.raw(), &keys, &by, &bots, &at],
                )
                .map_err(&err)?;
            Ok(())
        })
    }

    fn merges_since(&self, repo: RepoKey, since: Timestamp) -> Result<Vec<Merge>> {
        let rows = self
            .query(
                "reading the recent merges",
                "SELECT item_key, merged_by, bot = 1, merged_s FROM merges
                 WHERE repo = $1 AND merged_s >= $2 ORDER BY merged_s, item_key",
                &[&repo.raw(), &since.as_second()],
            )?
            .iter()
            .map(|r| (r.get(0), r.get(1), r.get(2), r.get(3)))
            .collect();
        merges_from(&self.path(), rows)
    }
}
