//! A repository's lifecycle on SQLite (`signals_store::LifecycleStore`).

use jiff::Timestamp;
use rusqlite::{OptionalExtension, Transaction, TransactionBehavior, params};
use signals_core::lifecycle::contributors::Voice;
use signals_core::lifecycle::verdict::Record;
use signals_core::model::Merge;
use signals_core::notify::Outgoing;
use signals_store::codec::{to_json, ts_text};
use signals_store::lifecycle::{
    MergeRow, VoiceRow, changes_from, merges_from, record_from, voices_from,
};
use signals_store::{LifecycleStore, RepoKey, Result, StateChange};

use crate::Store;
use crate::error::DbContext;

impl LifecycleStore for Store {
    fn record_lifecycle(
        &self,
        repo: RepoKey,
        at: Timestamp,
        record: &Record,
        messages: &[Outgoing],
    ) -> Result<()> {
        let doing = "storing a run's lifecycle";
        let path = &self.path;
        let json = to_json(path, "a lifecycle record", record)?;
        let tx = Transaction::new_unchecked(&self.conn, TransactionBehavior::Immediate)
            .doing(path, doing)?;
        let run: i64 = tx
            .prepare_cached("SELECT id FROM runs WHERE repo = ?1 AND collected_at = ?2")
            .doing(path, doing)?
            .query_row(params![repo.raw(), ts_text(at)], |r| r.get(0))
            .doing(path, doing)?;
        tx.prepare_cached(
            "INSERT INTO lifecycle (run, repo, state, record) VALUES (?1, ?2, ?3, ?4)",
        )
        .doing(path, doing)?
        .execute(params![run, repo.raw(), record.state.as_str(), json])
        .doing(path, doing)?;
        crate::outbox::store_messages(&tx, path, repo, run, at, messages)?;
        tx.commit().doing(path, doing)?;
        Ok(())
    }

    fn lifecycle(&self, repo: RepoKey) -> Result<Option<Record>> {
        let doing = "reading a repository's lifecycle";
        let row: Option<String> = self
            .conn
            .prepare_cached(
                "SELECT record FROM lifecycle WHERE repo = ?1 ORDER BY run DESC LIMIT 1",
            )
            .doing(&self.path, doing)?
            .query_row(params![repo.raw()], |r| r.get(0))
            .optional()
            .doing(&self.path, doing)?;
        row.map(|r| record_from(&self.path, &r)).transpose()
    }

    fn lifecycle_changes(&self, repo: RepoKey) -> Result<Vec<StateChange>> {
        let doing = "reading a repository's lifecycle changes";
        let rows = self
            .conn
            .prepare_cached(
                "SELECT r.collected_at, l.state FROM lifecycle l JOIN runs r ON r.id = l.run
                 WHERE l.repo = ?1 ORDER BY l.run",
            )
            .doing(&self.path, doing)?
            .query_map(params![repo.raw()], |r| Ok((r.get(0)?, r.get(1)?)))
            .doing(&self.path, doing)?
            .collect::<rusqlite::Result<Vec<(String, String)>>>()
            .doing(&self.path, doing)?;
        changes_from(&self.path, rows)
    }

    fn voices_since(&self, repo: RepoKey, since: Timestamp) -> Result<Vec<Voice>> {
        let doing = "reading the recent comments' authors";
        let rows = self
            .conn
            .prepare_cached(
                "SELECT kind, author, association, bot = 1, state, created_s FROM comments
                 WHERE repo = ?1 AND created_s >= ?2 ORDER BY created_s, kind, host_id",
            )
            .doing(&self.path, doing)?
            .query_map(params![repo.raw(), since.as_second()], |r| {
                Ok((
                    r.get(0)?,
                    r.get(1)?,
                    r.get(2)?,
                    r.get(3)?,
                    r.get(4)?,
                    r.get(5)?,
                ))
            })
            .doing(&self.path, doing)?
            .collect::<rusqlite::Result<Vec<VoiceRow>>>()
            .doing(&self.path, doing)?;
        voices_from(&self.path, rows)
    }

    fn store_merges(&self, repo: RepoKey, merges: &[Merge]) -> Result<()> {
        if merges.is_empty() {
            return Ok(());
        }
        let doing = "storing merges";
        let path = &self.path;
        let tx = Transaction::new_unchecked(&self.conn, TransactionBehavior::Immediate)
            .doing(path, doing)?;
        for m in merges {
            tx.prepare_cached(
                "INSERT OR REPLACE INTO merges (repo, item_key, merged_by, bot, merged_s)
                 VALUES (?1, ?2, ?3, ?4, ?5)",
            )
            .doing(path, doing)?
            .execute(params![
                repo.raw(),
                m.item_key,
                m.merged_by,
                m.bot,
                m.merged_at.as_second()
            ])
            .doing(path, doing)?;
        }
        tx.commit().doing(path, doing)
    }

    fn merges_since(&self, repo: RepoKey, since: Timestamp) -> Result<Vec<Merge>> {
        let doing = "reading the recent merges";
        let rows = self
            .conn
            .prepare_cached(
                "SELECT item_key, merged_by, bot = 1, merged_s FROM merges
                 WHERE repo = ?1 AND merged_s >= ?2 ORDER BY merged_s, item_key",
            )
            .doing(&self.path, doing)?
            .query_map(params![repo.raw(), since.as_second()], |r| {
                Ok((r.get(0)?, r.get(1)?, r.get(2)?, r.get(3)?))
            })
            .doing(&self.path, doing)?
            .collect::<rusqlite::Result<Vec<MergeRow>>>()
            .doing(&self.path, doing)?;
        merges_from(&self.path, rows)
    }
}
