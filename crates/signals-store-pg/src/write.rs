//! The write side in PostgreSQL: the same checks and rows as the SQLite
//! store's, each write one transaction. A commit or a failure of a leased
//! repository also releases the lease, in the same transaction, and is
//! refused (rolled back) when the lease was lost: another worker has the
//! repository now, so writing would duplicate its run.

use std::collections::HashMap;
use std::path::Path;

use jiff::Timestamp;
use postgres::{Client, Transaction};
use signals_core::run::ItemEvent;
use signals_core::{Group, ItemSnapshot, TrackedRepo};
use signals_store::codec::{int, to_json, ts_parse, ts_text};
use signals_store::{
    KeptPulls, Parts, RepoKey, Result, RunCommit, RunWrites, SNAPSHOT_COLUMNS, SNAPSHOT_JOINS,
    StoreError, check_commit,
};

use crate::texts::Texts;
use crate::{PgStore, TEXTS_LOCK};

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
            // repositories at once waited for one another (issue 27).
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
            self.retrying(|client, retry| self.commit_in(client, retry, &commit, &texts))?;
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
        self.retrying(|client, retry| {
            let mut tx = client.transaction().map_err(&err)?;
            // A retry after the connection broke: the failure may be recorded.
            if retry
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
            self.release_in(&mut tx, repo, true)?;
            tx.commit().map_err(&err)
        })?;
        self.lease.borrow_mut().take();
        Ok(())
    }

    fn purge_repository(&mut self, repo: RepoKey) -> Result<u64> {
        let err = self.err("deleting a repository");
        self.retrying(|client, retry| {
            let mut tx = client.transaction().map_err(&err)?;
            // Commits in flight finish first, and none starts until this one
            // commits: no text deleted below is about to be referenced.
            tx.execute("SELECT pg_advisory_xact_lock($1)", &[&TEXTS_LOCK])
                .map_err(&err)?;
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
            for table in [
                "item_refs",
                "reference_marks",
                "search_postings",
                "search_docs",
                "search_state",
                "search_dirty",
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
                if retry {
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
        retry: bool,
        c: &Commit<'_>,
        texts: &Texts<'_>,
    ) -> Result<bool> {
        let err = self.err("committing a run");
        let mut tx = client.transaction().map_err(&err)?;
        // Shared with other commits, exclusive to a purge: the texts
        // resolved below stay until this transaction commits.
        tx.execute("SELECT pg_advisory_xact_lock_shared($1)", &[&TEXTS_LOCK])
            .map_err(&err)?;
        let last = self.last_run_locked(&mut tx, c.repo)?;
        if retry && last == Some(c.at) {
            return Ok(false);
        }
        // A worker that stalled past its lease learns it here, before
        // anything else is checked: the repository is another's now.
        self.release_in(&mut tx, c.repo, false)?;
        if let Some(last) = last
            && c.at <= last
        {
            return Err(StoreError::RunOutOfOrder {
                path: self.path(),
                repo: c.repo_name.clone(),
                at: c.at,
                last,
            });
        }
        let ids = texts.resolve(&mut tx).map_err(&err)?;
        let run_id = self.insert_run(&mut tx, c)?;
        let mut new_items = 0;
        for (id, snapshot, parts) in &c.parts {
            new_items += u64::from(self.store_snapshot(
                &mut tx,
                c.repo.raw(),
                id,
                snapshot,
                parts,
                &ids,
                run_id,
            )?);
        }
        let events = signals_store::events::positioned(&c.run.events);
        self.store_events(&mut tx, (c, run_id), events)?;
        self.store_references(&mut tx, c.repo.raw(), (run_id, c.run))?;
        self.finish_in(&mut tx, c, run_id, new_items)?;
        tx.commit().map_err(&err)?;
        Ok(true)
    }

    /// What a run writes after its items: its alert messages, its
    /// repository's row (the name the host gave, the kept count of open
    /// pull requests) and totals, with `new_items` the items rows it
    /// inserted.
    pub(crate) fn finish_in(
        &self,
        tx: &mut Transaction<'_>,
        c: &Commit<'_>,
        run_id: i64,
        new_items: u64,
    ) -> Result<()> {
        let err = self.err("committing a run");
        self.store_messages(tx, c.repo, run_id, c.at, &c.run.messages)?;
        if self.keeps_totals {
            crate::totals::add_run(self, tx, c, new_items)?;
        }
        tx.execute(
            "UPDATE repositories SET host_name = $2, missing = 0, last_error = NULL
             WHERE key = $1",
            &[
                &c.repo.raw(),
                &c.run.renamed_to.as_ref().map(|n| n.to_string()),
            ],
        )
        .map_err(&err)?;
        if c.run.open_pulls != KeptPulls::Unknown {
            tx.execute(
                "UPDATE repositories
                 SET open_pulls = $2, open_pulls_differed = COALESCE($3, open_pulls_differed)
                 WHERE key = $1",
                &[
                    &c.repo.raw(),
                    &c.run.open_pulls.count().map(|n| n as i64),
                    &c.run.open_pulls.differed(c.at),
                ],
            )
            .map_err(&err)?;
        }
        Ok(())
    }

    /// The instant of the repository's last run, with the repository's row
    /// locked: the lock orders two commits of one repository (which leases
    /// already prevent) so the order check after it is sound.
    pub(crate) fn last_run_locked(
        &self,
        tx: &mut Transaction<'_>,
        repo: RepoKey,
    ) -> Result<Option<Timestamp>> {
        let err = self.err("committing a run");
        let known = tx
            .query_opt(
                "SELECT full_name FROM repositories WHERE key = $1 FOR UPDATE",
                &[&repo.raw()],
            )
            .map_err(&err)?;
        if known.is_none() {
            return Err(StoreError::UnknownRepository {
                path: self.path(),
                key: repo,
            });
        }
        tx.query_opt(
            "SELECT collected_at FROM runs WHERE repo = $1 ORDER BY id DESC LIMIT 1",
            &[&repo.raw()],
        )
        .map_err(&err)?
        .map(|r| ts_parse(&self.path(), "runs.collected_at", r.get(0)))
        .transpose()
    }

    /// Adds the run's row; returns its id.
    pub(crate) fn insert_run(&self, tx: &mut Transaction<'_>, c: &Commit<'_>) -> Result<i64> {
        let (record, stats) = (&c.run.record, c.run.stats);
        Ok(tx
            .query_one(
                "INSERT INTO runs (repo, collected_at, since, observed_count, changed_count,
                                   requests, not_modified, bytes_received, retries, context, news,
                                   reconciled)
                 VALUES ($1, $2, $3, $4, $5, $6, $7, $8, $9, $10, $11, $12) RETURNING id",
                &[
                    &c.repo.raw(),
                    &ts_text(c.at),
                    &ts_text(record.since),
                    &int("observed_count", record.observed_count)?,
                    &int("changed_count", record.changed_count)?,
                    &int("requests", stats.requests)?,
                    &int("not_modified", stats.not_modified)?,
                    &int("bytes_received", stats.bytes_received)?,
                    &int("retries", stats.retries)?,
                    &c.context,
                    &c.news,
                    &i64::from(c.run.reconciled),
                ],
            )
            .map_err(self.err("committing a run"))?
            .get(0))
    }

    /// Adds the run's events, each pointing at its item's latest snapshot
    /// (stored with the run or before).
    pub(crate) fn store_events<'e>(
        &self,
        tx: &mut Transaction<'_>,
        (c, run_id): (&Commit<'_>, i64),
        events: impl IntoIterator<Item = (i64, &'e ItemEvent)>,
    ) -> Result<()> {
        for (pos, e) in events {
            let Some((item, snapshot)) = self
                .item_row(tx, c.repo.raw(), &e.item_id)
                .map_err(self.err("committing a run"))?
            else {
                return Err(StoreError::InvalidRun {
                    repo: c.repo_name.clone(),
                    at: c.at,
                    problem: format!(
                        "its {} event for {} has no snapshot of that item; \
                         pass the item's snapshot with the run",
                        e.observation.kind().as_str(),
                        e.item_id
                    ),
                });
            };
            let (kind, fields) = signals_store::events::encode(&e.observation);
            let err = self.err("storing an observation event");
            let statement = self
                .prep(
                    tx,
                    "INSERT INTO events (run, pos, item, kind, fields, snapshot)
                     VALUES ($1, $2, $3, $4, $5, $6)",
                )
                .map_err(&err)?;
            tx.execute(
                &statement,
                &[&run_id, &pos, &item, &kind, &fields, &snapshot],
            )
            .map_err(&err)?;
        }
        Ok(())
    }

    /// Releases this process's lease on `repo` inside `tx`, recording the
    /// attempt; without a lease, only records the attempt. Fails with
    /// [`StoreError::LeaseLost`] when the lease is no longer this worker's.
    pub(crate) fn release_in(
        &self,
        tx: &mut Transaction<'_>,
        repo: RepoKey,
        failed: bool,
    ) -> Result<()> {
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

    #[allow(clippy::too_many_arguments)]
    pub(crate) fn store_snapshot(
        &self,
        tx: &mut Transaction<'_>,
        repo: i64,
        item_id: &str,
        snapshot: &ItemSnapshot,
        parts: &Parts,
        texts: &HashMap<[u8; 32], i64>,
        run: i64,
    ) -> Result<bool> {
        let err = self.err("storing a snapshot");
        let (item, new) = match self.item_row(tx, repo, item_id).map_err(&err)? {
            Some((item, latest)) => {
                if self.parts_of(tx, latest)? == *parts {
                    return Ok(false);
                }
                (item, false)
            }
            None => {
                let statement = self
                    .prep(
                        tx,
                        "INSERT INTO items (repo, item_id, kind, item_key, latest)
                         VALUES ($1, $2, $3, $4, 0) RETURNING id",
                    )
                    .map_err(&err)?;
                let kind = snapshot.kind().as_str();
                let item: i64 = tx
                    .query_one(&statement, &[&repo, &item_id, &kind, &snapshot.key])
                    .map_err(&err)?
                    .get(0);
                (item, true)
            }
        };
        let id_of = |text: &str| {
            texts.get(&Parts::hash(text)).copied().ok_or_else(|| {
                self.corrupt(format!(
                    "a text of {item_id} was not stored with its run (a bug: please report it)"
                ))
            })
        };
        let [head, body, labels, assignees, detail] = parts.texts();
        let insert = self
            .prep(
                tx,
                "INSERT INTO snapshots (item, run, head, body, labels, assignees, detail,
                                        updated_s, updated_ns, state, reactions, comments,
                                        closed_s, closed_ns)
                 VALUES ($1, $2, $3, $4, $5, $6, $7, $8, $9, $10, $11, $12, $13, $14)
                 RETURNING id",
            )
            .map_err(&err)?;
        let id: i64 = tx
            .query_one(
                &insert,
                &[
                    &item,
                    &run,
                    &id_of(head)?,
                    &id_of(body)?,
                    &id_of(labels)?,
                    &id_of(assignees)?,
                    &id_of(detail)?,
                    &parts.updated_at.0,
                    &parts.updated_at.1,
                    &parts.state,
                    &parts.reactions,
                    &parts.comments,
                    &parts.closed_at.map(|c| c.0),
                    &parts.closed_at.map(|c| c.1),
                ],
            )
            .map_err(&err)?
            .get(0);
        let latest = self
            .prep(tx, "UPDATE items SET latest = $2 WHERE id = $1")
            .map_err(&err)?;
        tx.execute(&latest, &[&item, &id]).map_err(&err)?;
        Ok(new)
    }

    fn parts_of(&self, tx: &mut Transaction<'_>, id: i64) -> Result<Parts> {
        let err = self.err("reading an item's latest snapshot");
        let sql =
            format!("SELECT {SNAPSHOT_COLUMNS} FROM snapshots s {SNAPSHOT_JOINS} WHERE s.id = $1");
        let statement = self.prep(tx, &sql).map_err(&err)?;
        let r = tx.query_one(&statement, &[&id]).map_err(&err)?;
        Parts::from_raw(&self.path(), crate::read::raw_parts(&r, 0))
    }

    /// The id and latest snapshot of `item_id` of `repo`, when stored.
    pub(crate) fn item_row(
        &self,
        tx: &mut Transaction<'_>,
        repo: i64,
        item_id: &str,
    ) -> std::result::Result<Option<(i64, i64)>, postgres::Error> {
        let statement = self.prep(
            tx,
            "SELECT id, latest FROM items WHERE repo = $1 AND item_id = $2",
        )?;
        Ok(tx
            .query_opt(&statement, &[&repo, &item_id])?
            .map(|r| (r.get(0), r.get(1))))
    }
}

/// A run as its transaction writes it, prepared before it starts (so a
/// retry writes the same): checked, its context and news as JSON, each
/// snapshot split into its columns.
pub(crate) struct Commit<'a> {
    pub(crate) repo: RepoKey,
    pub(crate) run: &'a RunCommit,
    pub(crate) at: Timestamp,
    /// `owner/name`, for messages.
    pub(crate) repo_name: String,
    context: String,
    news: String,
    /// Signal id, snapshot, columns.
    pub(crate) parts: Vec<(&'a str, &'a ItemSnapshot, Parts)>,
}

impl<'a> Commit<'a> {
    pub(crate) fn of(path: &Path, repo: RepoKey, run: &'a RunCommit) -> Result<Commit<'a>> {
        Commit::checked(path, repo, run, check_commit)
    }

    /// [`Commit::of`] with the checks of `check` (a staged run's events
    /// are counted with its parts).
    pub(crate) fn checked(
        path: &Path,
        repo: RepoKey,
        run: &'a RunCommit,
        check: fn(&RunCommit) -> std::result::Result<(), String>,
    ) -> Result<Commit<'a>> {
        let at = run.record.collected_at;
        let repo_name = run.context.repository.to_string();
        check(run).map_err(|problem| StoreError::InvalidRun {
            repo: repo_name.clone(),
            at,
            problem,
        })?;
        let parts = run
            .snapshots
            .iter()
            .map(|(id, snapshot)| Ok((id.as_str(), snapshot, Parts::split(path, snapshot)?)))
            .collect::<Result<Vec<_>>>()?;
        Ok(Commit {
            repo,
            run,
            at,
            repo_name,
            context: to_json(path, "run context", &run.context)?,
            news: to_json(path, "run news", &run.news)?,
            parts,
        })
    }
}
