//! The write side in PostgreSQL: the same checks and rows as the SQLite
//! store's, each write one transaction. A commit or a failure of a leased
//! repository also releases the lease, in the same transaction, and is
//! refused (rolled back) when the lease was lost: another worker has the
//! repository now, so writing would duplicate its run.

use jiff::Timestamp;
use postgres::Transaction;
use signals_core::{Group, ItemSnapshot, TrackedRepo};
use signals_store::codec::{int, to_json, ts_parse, ts_text};
use signals_store::{Parts, RepoKey, Result, RunCommit, StoreError, check_commit, event_fields};

use crate::PgStore;

impl PgStore {
    pub(crate) fn ensure_repository_(
        &mut self,
        group: &Group,
        repo: &TrackedRepo,
    ) -> Result<RepoKey> {
        let doing = "registering a repository";
        let keywords = to_json(&self.path(), "repository keywords", &repo.keywords)?;
        let err = self.err(doing);
        let mut client = self.client.borrow_mut();
        let mut tx = client.transaction().map_err(&err)?;
        tx.execute(
            "INSERT INTO groups (id, name) VALUES ($1, $2)
             ON CONFLICT (id) DO UPDATE SET name = excluded.name
             WHERE groups.name IS DISTINCT FROM excluded.name",
            &[&group.id, &group.name],
        )
        .map_err(&err)?;
        let full_name = repo.repo.to_string();
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
    }

    /// Releases this process's lease on `repo` inside `tx`, recording the
    /// attempt; without a lease, only records the attempt. Fails with
    /// [`StoreError::LeaseLost`] when the lease is no longer this worker's.
    fn release_in(&self, tx: &mut Transaction<'_>, repo: RepoKey, failed: bool) -> Result<()> {
        let err = self.err("releasing a lease");
        let lease = self.lease.borrow().clone();
        match lease {
            Some((leased, worker, _)) if leased == repo.raw() => {
                let n = tx
                    .execute(
                        "UPDATE leases SET worker = NULL, lease_until = NULL, last_attempt = now()
                         WHERE repo = $1 AND worker = $2 AND lease_until > now()",
                        &[&leased, &worker],
                    )
                    .map_err(&err)?;
                if n == 0 {
                    let name: Option<String> = tx
                        .query_opt(
                            "SELECT group_id || '/' || repo_id FROM repositories WHERE key = $1",
                            &[&leased],
                        )
                        .map_err(&err)?
                        .map(|r| r.get(0));
                    return Err(StoreError::LeaseLost {
                        store: self.shown.clone(),
                        repo: name.unwrap_or_else(|| repo.to_string()),
                    });
                }
                let column = if failed { "failed" } else { "collected" };
                tx.execute(
                    &format!("UPDATE workers SET {column} = {column} + 1 WHERE id = $1"),
                    &[&worker],
                )
                .map_err(&err)?;
            }
            _ => {
                tx.execute(
                    "INSERT INTO leases (repo, last_attempt) VALUES ($1, now())
                     ON CONFLICT (repo) DO UPDATE SET last_attempt = now()",
                    &[&repo.raw()],
                )
                .map_err(&err)?;
            }
        }
        Ok(())
    }

    pub(crate) fn commit_run_(&mut self, repo: RepoKey, run: &RunCommit) -> Result<()> {
        let path = self.path();
        let at = run.record.collected_at;
        let repo_name = run.context.repository.to_string();
        check_commit(run).map_err(|problem| StoreError::InvalidRun {
            repo: repo_name.clone(),
            at,
            problem,
        })?;
        let context = to_json(&path, "run context", &run.context)?;
        let news = to_json(&path, "run news", &run.news)?;
        let stats = run.stats;
        let err = self.err("committing a run");
        let mut client = self.client.borrow_mut();
        let mut tx = client.transaction().map_err(&err)?;

        // The row lock orders two commits of one repository (which leases
        // already prevent) so the order check below is sound.
        let known = tx
            .query_opt(
                "SELECT full_name FROM repositories WHERE key = $1 FOR UPDATE",
                &[&repo.raw()],
            )
            .map_err(&err)?;
        if known.is_none() {
            return Err(StoreError::UnknownRepository { path, key: repo });
        }
        let last = tx
            .query_opt(
                "SELECT collected_at FROM runs WHERE repo = $1 ORDER BY id DESC LIMIT 1",
                &[&repo.raw()],
            )
            .map_err(&err)?;
        if let Some(last) = last {
            let last = ts_parse(&path, "runs.collected_at", last.get(0))?;
            if at <= last {
                return Err(StoreError::RunOutOfOrder {
                    path,
                    repo: repo_name,
                    at,
                    last,
                });
            }
        }
        let run_id: i64 = tx
            .query_one(
                "INSERT INTO runs (repo, collected_at, since, observed_count, changed_count,
                                   requests, not_modified, bytes_received, retries, context, news)
                 VALUES ($1, $2, $3, $4, $5, $6, $7, $8, $9, $10, $11) RETURNING id",
                &[
                    &repo.raw(),
                    &ts_text(at),
                    &ts_text(run.record.since),
                    &int("observed_count", run.record.observed_count)?,
                    &int("changed_count", run.record.changed_count)?,
                    &int("requests", stats.requests)?,
                    &int("not_modified", stats.not_modified)?,
                    &int("bytes_received", stats.bytes_received)?,
                    &int("retries", stats.retries)?,
                    &context,
                    &news,
                ],
            )
            .map_err(&err)?
            .get(0);

        for (id, snapshot) in &run.snapshots {
            self.store_snapshot(&mut tx, repo.raw(), id, snapshot, run_id)?;
        }
        for e in &run.events {
            let Some((_, snapshot)) = item_row(&mut tx, repo.raw(), &e.item_id).map_err(&err)?
            else {
                return Err(StoreError::InvalidRun {
                    repo: repo_name,
                    at,
                    problem: format!(
                        "its {} event for {} has no snapshot of that item; \
                         pass the item's snapshot with the run",
                        e.observation.kind().as_str(),
                        e.item_id
                    ),
                });
            };
            tx.execute(
                "INSERT INTO events (run, item_id, kind, detail, fields, snapshot)
                 VALUES ($1, $2, $3, $4, $5, $6)",
                &[
                    &run_id,
                    &e.item_id,
                    &e.observation.kind().as_str(),
                    &e.observation.detail(),
                    &event_fields(&path, &e.observation)?,
                    &snapshot,
                ],
            )
            .map_err(self.err("storing an observation event"))?;
        }
        tx.execute(
            "UPDATE repositories SET host_name = $2, missing = 0, last_error = NULL
             WHERE key = $1",
            &[&repo.raw(), &run.renamed_to.as_ref().map(|n| n.to_string())],
        )
        .map_err(&err)?;
        self.release_in(&mut tx, repo, false)?;
        tx.commit().map_err(&err)?;
        drop(client);
        self.lease.borrow_mut().take();
        Ok(())
    }

    fn store_snapshot(
        &self,
        tx: &mut Transaction<'_>,
        repo: i64,
        item_id: &str,
        snapshot: &ItemSnapshot,
        run: i64,
    ) -> Result<()> {
        let err = self.err("storing a snapshot");
        let parts = Parts::split(&self.path(), snapshot)?;
        let item = match item_row(tx, repo, item_id).map_err(&err)? {
            Some((item, latest)) => {
                if self.parts_of(tx, latest)? == parts {
                    return Ok(());
                }
                item
            }
            None => tx
                .query_one(
                    "INSERT INTO items (repo, item_id, kind, item_key, latest)
                     VALUES ($1, $2, $3, $4, 0) RETURNING id",
                    &[&repo, &item_id, &snapshot.kind().as_str(), &snapshot.key],
                )
                .map_err(&err)?
                .get(0),
        };
        let head = text_id(tx, &parts.head).map_err(&err)?;
        let body = text_id(tx, &parts.body).map_err(&err)?;
        let id: i64 = tx
            .query_one(
                "INSERT INTO snapshots (item, run, head, body, updated_at, state, reactions,
                                        comments, labels, assignees, detail)
                 VALUES ($1, $2, $3, $4, $5, $6, $7, $8, $9, $10, $11) RETURNING id",
                &[
                    &item,
                    &run,
                    &head,
                    &body,
                    &parts.updated_at,
                    &parts.state,
                    &parts.reactions,
                    &parts.comments,
                    &parts.labels,
                    &parts.assignees,
                    &parts.detail,
                ],
            )
            .map_err(&err)?
            .get(0);
        tx.execute("UPDATE items SET latest = $2 WHERE id = $1", &[&item, &id])
            .map_err(&err)?;
        Ok(())
    }

    fn parts_of(&self, tx: &mut Transaction<'_>, id: i64) -> Result<Parts> {
        let r = tx
            .query_one(
                "SELECT h.text, b.text, s.updated_at, s.state, s.reactions, s.comments,
                        s.labels, s.assignees, s.detail
                 FROM snapshots s JOIN texts h ON h.id = s.head JOIN texts b ON b.id = s.body
                 WHERE s.id = $1",
                &[&id],
            )
            .map_err(self.err("reading an item's latest snapshot"))?;
        Ok(Parts {
            head: r.get(0),
            body: r.get(1),
            updated_at: r.get(2),
            state: r.get(3),
            reactions: r.get(4),
            comments: r.get(5),
            labels: r.get(6),
            assignees: r.get(7),
            detail: r.get(8),
        })
    }

    pub(crate) fn record_failure_(
        &mut self,
        repo: RepoKey,
        at: Timestamp,
        kind: &str,
        message: &str,
    ) -> Result<()> {
        let err = self.err("recording a failed attempt");
        let mut client = self.client.borrow_mut();
        let mut tx = client.transaction().map_err(&err)?;
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
        self.release_in(&mut tx, repo, true)?;
        tx.commit().map_err(&err)?;
        drop(client);
        self.lease.borrow_mut().take();
        Ok(())
    }

    pub(crate) fn purge_repository_(&mut self, repo: RepoKey) -> Result<u64> {
        let err = self.err("deleting a repository");
        let mut client = self.client.borrow_mut();
        let mut tx = client.transaction().map_err(&err)?;
        let key = repo.raw();
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
             SELECT head FROM snapshots WHERE item IN (SELECT id FROM items WHERE repo = $1)
             UNION SELECT body FROM snapshots WHERE item IN (SELECT id FROM items WHERE repo = $1)",
            &[&key],
        )
        .map_err(&err)?;
        tx.execute(
            "DELETE FROM snapshots WHERE item IN (SELECT id FROM items WHERE repo = $1)",
            &[&key],
        )
        .map_err(&err)?;
        tx.execute(
            "DELETE FROM texts t USING purged_texts p WHERE t.id = p.id
               AND NOT EXISTS (SELECT 1 FROM snapshots WHERE head = t.id)
               AND NOT EXISTS (SELECT 1 FROM snapshots WHERE body = t.id)",
            &[],
        )
        .map_err(&err)?;
        for table in ["items", "failures", "leases"] {
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
            return Err(StoreError::UnknownRepository {
                path: self.path(),
                key: repo,
            });
        }
        tx.commit().map_err(&err)?;
        Ok(runs)
    }
}

fn item_row(
    tx: &mut Transaction<'_>,
    repo: i64,
    item_id: &str,
) -> std::result::Result<Option<(i64, i64)>, postgres::Error> {
    Ok(tx
        .query_opt(
            "SELECT id, latest FROM items WHERE repo = $1 AND item_id = $2",
            &[&repo, &item_id],
        )?
        .map(|r| (r.get(0), r.get(1))))
}

/// The id of `text` in `texts`, adding it when new. Two workers adding the
/// same text at once: one inserts, the other's insert does nothing and it
/// reads the row (`ON CONFLICT` waits for the first to commit).
fn text_id(tx: &mut Transaction<'_>, text: &str) -> std::result::Result<i64, postgres::Error> {
    let hash = Parts::hash(text).to_vec();
    if let Some(r) = tx.query_opt("SELECT id FROM texts WHERE hash = $1", &[&hash])? {
        return Ok(r.get(0));
    }
    if let Some(r) = tx.query_opt(
        "INSERT INTO texts (hash, text) VALUES ($1, $2) ON CONFLICT (hash) DO NOTHING RETURNING id",
        &[&hash, &text],
    )? {
        return Ok(r.get(0));
    }
    Ok(tx
        .query_one("SELECT id FROM texts WHERE hash = $1", &[&hash])?
        .get(0))
}
