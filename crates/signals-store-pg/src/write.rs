//! The write side in PostgreSQL: the same checks and rows as the SQLite
//! store's, each write one transaction. A commit or a failure of a leased
//! repository also releases the lease, in the same transaction, and is
//! refused (rolled back) when the lease was lost: another worker has the
//! repository now, so writing would duplicate its run.

use jiff::Timestamp;
use postgres::Client;
use signals_core::{Group, TrackedRepo};
use signals_store::codec::{to_json, ts_text};
use signals_store::{RepoKey, Result, RunCommit, RunWrites, StoreError};

use crate::queue::Outcome;
use crate::run_rows::{Commit, SnapshotRow};
use crate::texts::Texts;
use crate::{Attempt, PgStore, TEXTS_LOCK};

impl RunWrites for PgStore {
    fn ensure_repository(&mut self, group: &Group, repo: &TrackedRepo) -> Result<RepoKey> {
        let doing = "registering a repository";
        let keywords = to_json(&self.path(), "repository keywords", &repo.keywords)?;
        let err = self.err(doing);
        let full_name = repo.repo.to_string();
        // Most opens find the repository as configured: then nothing is
        // written, so no row lock is waited for (a commit of that
        // repository in flight holds one until it ends).
        let registered = self.retrying(|client, _| {
            let row = client
                .query_opt(
                    "SELECT r.key FROM repositories r JOIN groups g ON g.id = r.group_id
                     JOIN leases l ON l.repo = r.key
                     WHERE r.group_id = $1 AND r.repo_id = $2 AND g.name = $3
                       AND r.source = $4 AND r.full_name = $5
                       AND r.display_name IS NOT DISTINCT FROM $6
                       AND r.keywords IS NOT DISTINCT FROM $7",
                    &[
                        &group.id,
                        &repo.id,
                        &group.name,
                        &repo.source.as_str(),
                        &full_name,
                        &repo.name,
                        &keywords,
                    ],
                )
                .map_err(&err)?;
            Ok(row.map(|r| r.get::<_, i64>(0)))
        })?;
        if let Some(key) = registered {
            return Ok(RepoKey::from_raw(key));
        }
        self.retrying(|client, _| {
            let mut tx = client.transaction().map_err(&err)?;
            // Neither statement locks the group's row unless its name
            // changes: an upsert's `DO UPDATE` locked it even when its
            // `WHERE` was false, so workers registering a new group's
            // repositories at once waited for one another.
            tx.execute(
                "INSERT INTO groups (id, name) VALUES ($1, $2) ON CONFLICT (id) DO NOTHING",
                &[&group.id, &group.name],
            )
            .map_err(&err)?;
            tx.execute(
                "UPDATE groups SET name = $2 WHERE id = $1 AND name IS DISTINCT FROM $2",
                &[&group.id, &group.name],
            )
            .map_err(&err)?;
            let key: i64 = tx
                .query_one(
                    "INSERT INTO repositories
                    (group_id, repo_id, source, full_name, display_name, keywords)
                 VALUES ($1, $2, $3, $4, $5, $6)
                 ON CONFLICT (group_id, repo_id) DO UPDATE SET
                    source = excluded.source,
                    display_name = excluded.display_name,
                    keywords = excluded.keywords,
                    host_name = CASE WHEN repositories.full_name = excluded.full_name
                                     THEN repositories.host_name ELSE NULL END,
                    full_name = excluded.full_name
                 RETURNING key",
                    &[
                        &group.id,
                        &repo.id,
                        &repo.source.as_str(),
                        &full_name,
                        &repo.name,
                        &keywords,
                    ],
                )
                .map_err(&err)?
                .get(0);
            tx.execute(
                "INSERT INTO leases (repo) VALUES ($1) ON CONFLICT (repo) DO NOTHING",
                &[&key],
            )
            .map_err(&err)?;
            tx.commit().map_err(&err)?;
            Ok(RepoKey::from_raw(key))
        })
    }

    /// Commits a run: its texts first, each in one fixed order (by hash) and
    /// in their own short statement, then the run in one transaction that
    /// only reads those texts' ids (ARCHITECTURE.md, "Texts under
    /// concurrent commits"). A deadlock, a serialization failure or a lost
    /// connection is retried with the same run; a retry after the
    /// connection broke during the commit first checks whether the commit
    /// went through, so a run is never written twice.
    fn commit_run(&mut self, repo: RepoKey, run: &RunCommit) -> Result<()> {
        let commit = Commit::of(&self.path(), repo, run)?;
        let texts = Texts::of(commit.parts.iter().map(|(_, _, p)| p));
        self.insert_texts(repo, &texts)?;
        let committed =
            self.retrying(|client, attempt| self.commit_in(client, attempt, &commit, &texts))?;
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

    fn record_failure(
        &mut self,
        repo: RepoKey,
        at: Timestamp,
        kind: &str,
        message: &str,
    ) -> Result<()> {
        let err = self.err("recording a failed attempt");
        self.retrying(|client, attempt| {
            let mut tx = client.transaction().map_err(&err)?;
            // A retry after the connection broke: the failure may be recorded.
            if attempt == Attempt::Retry
                && tx
                    .query_opt(
                        "SELECT 1 FROM failures WHERE repo = $1 AND at = $2 AND kind = $3",
                        &[&repo.raw(), &ts_text(at), &kind],
                    )
                    .map_err(&err)?
                    .is_some()
            {
                return Ok(());
            }
            let missing: i64 = (kind == "not_found").into();
            let n = tx
                .execute(
                    "UPDATE repositories SET missing = $2, last_error = $3 WHERE key = $1",
                    &[&repo.raw(), &missing, &message],
                )
                .map_err(&err)?;
            if n == 0 {
                return Err(StoreError::UnknownRepository {
                    path: self.path(),
                    key: repo,
                });
            }
            tx.execute(
                "INSERT INTO failures (repo, at, kind, message) VALUES ($1, $2, $3, $4)",
                &[&repo.raw(), &ts_text(at), &kind, &message],
            )
            .map_err(&err)?;
            if self.keeps_totals {
                crate::totals::add_failure(self, &mut tx, repo, &ts_text(at))?;
            }
            self.release_in(&mut tx, repo, Outcome::Failed)?;
            tx.commit().map_err(&err)
        })?;
        self.lease.borrow_mut().take();
        Ok(())
    }

    fn purge_repository(&mut self, repo: RepoKey) -> Result<u64> {
        let err = self.err("deleting a repository");
        self.retrying(|client, attempt| {
            let mut tx = client.transaction().map_err(&err)?;
            // Commits in flight finish first, and none starts until this one
            // commits: no text deleted below is about to be referenced.
            tx.execute("SELECT pg_advisory_xact_lock($1)", &[&TEXTS_LOCK])
                .map_err(&err)?;
            let key = repo.raw();
            // Nor does a catch-up of its group's related items write lists
            // naming its items meanwhile: it holds the group's lock while it
            // computes and writes (`related.rs`), and one that read before
            // this purge finds the repository's position gone and computes
            // again.
            tx.execute(
                "SELECT pg_advisory_xact_lock(hashtext('signals.related'), hashtext(group_id))
                 FROM repositories WHERE key = $1",
                &[&key],
            )
            .map_err(&err)?;
            tx.execute(
                "DELETE FROM events WHERE run IN (SELECT id FROM runs WHERE repo = $1)",
                &[&key],
            )
            .map_err(&err)?;
            // The texts this repository's snapshots used, to delete those no
            // other snapshot uses once its snapshots are gone.
            tx.batch_execute(
            "CREATE TEMP TABLE IF NOT EXISTS purged_texts (id BIGINT PRIMARY KEY) ON COMMIT DROP",
        )
        .map_err(&err)?;
            tx.execute(
                "INSERT INTO purged_texts
             SELECT DISTINCT unnest(ARRAY[head, body, labels, assignees, detail]) FROM snapshots
             WHERE item IN (SELECT id FROM items WHERE repo = $1)
             UNION SELECT body FROM comments WHERE repo = $1
             ON CONFLICT DO NOTHING",
                &[&key],
            )
            .map_err(&err)?;
            tx.execute("DELETE FROM comments WHERE repo = $1", &[&key])
                .map_err(&err)?;
            tx.execute(
                "DELETE FROM snapshots WHERE item IN (SELECT id FROM items WHERE repo = $1)",
                &[&key],
            )
            .map_err(&err)?;
            tx.execute(
                "DELETE FROM item_keys WHERE item IN (SELECT id FROM items WHERE repo = $1)",
                &[&key],
            )
            .map_err(&err)?;
            crate::staging::discard(&mut tx, repo).map_err(&err)?;
            // The lists naming its items lose them: their repositories'
            // marks move, so the export renders them again.
            tx.execute(
                "INSERT INTO related_state (repo, through, mark)
                 SELECT DISTINCT repo, 0, 1 FROM related_lists
                 WHERE other_repo = $1 AND repo <> $1
                 ON CONFLICT (repo) DO UPDATE SET mark = related_state.mark + 1",
                &[&key],
            )
            .map_err(&err)?;
            tx.execute("DELETE FROM related_lists WHERE other_repo = $1", &[&key])
                .map_err(&err)?;
            for table in [
                "lifecycle",
                "asset_downloads",
                "merges",
                "item_refs",
                "reference_marks",
                "search_postings",
                "search_docs",
                "search_state",
                "search_dirty",
                "related_profiles",
                "related_texts",
                "related_lists",
                "related_state",
                "related_gone",
            ] {
                tx.execute(&format!("DELETE FROM {table} WHERE repo = $1"), &[&key])
                    .map_err(&err)?;
            }
            tx.execute(
                "DELETE FROM texts t USING purged_texts p WHERE t.id = p.id
               AND NOT EXISTS (SELECT 1 FROM snapshots WHERE head = t.id)
               AND NOT EXISTS (SELECT 1 FROM snapshots WHERE body = t.id)
               AND NOT EXISTS (SELECT 1 FROM snapshots WHERE labels = t.id)
               AND NOT EXISTS (SELECT 1 FROM snapshots WHERE assignees = t.id)
               AND NOT EXISTS (SELECT 1 FROM snapshots WHERE detail = t.id)
               AND NOT EXISTS (SELECT 1 FROM comments WHERE body = t.id)",
                &[],
            )
            .map_err(&err)?;
            for table in ["repo_totals", "items", "failures", "leases"] {
                tx.execute(&format!("DELETE FROM {table} WHERE repo = $1"), &[&key])
                    .map_err(&err)?;
            }
            let runs = tx
                .execute("DELETE FROM runs WHERE repo = $1", &[&key])
                .map_err(&err)?;
            let deleted = tx
                .execute("DELETE FROM repositories WHERE key = $1", &[&key])
                .map_err(&err)?;
            if deleted == 0 {
                // A retry after the connection broke may find it done.
                if attempt == Attempt::Retry {
                    return Ok(0);
                }
                return Err(StoreError::UnknownRepository {
                    path: self.path(),
                    key: repo,
                });
            }
            tx.commit().map_err(&err)?;
            Ok(runs)
        })
    }
}

impl PgStore {
    /// The run's transaction: false when a retry finds the run committed
    /// already (the connection broke after the server committed it).
    fn commit_in(
        &self,
        client: &mut Client,
        attempt: Attempt,
        c: &Commit<'_>,
        texts: &Texts<'_>,
    ) -> Result<bool> {
        let err = self.err("committing a run");
        let mut tx = client.transaction().map_err(&err)?;
        if !self.begin_run(&mut tx, c, attempt)? {
            return Ok(false);
        }
        let ids = texts.resolve(&mut tx).map_err(&err)?;
        let run_id = self.insert_run(&mut tx, c)?;
        let mut new_items = 0;
        for (id, snapshot, parts) in &c.parts {
            let row = SnapshotRow {
                repo: c.repo.raw(),
                item_id: id,
                snapshot,
                parts,
                run: run_id,
            };
            new_items += u64::from(self.store_snapshot(&mut tx, row, &ids)?);
        }
        let events = signals_store::events::positioned(&c.run.events);
        self.store_events(&mut tx, c, run_id, events)?;
        self.store_references(&mut tx, c.repo.raw(), run_id, c.run)?;
        self.finish_in(&mut tx, c, run_id, new_items)?;
        tx.commit().map_err(&err)?;
        Ok(true)
    }
}
