//! A run's rows, as a direct commit (`write.rs`) and a commit from the
//! stage (`staging.rs`) both write them: the run's row, its snapshots and
//! events, and what follows its items (messages, the repository's row and
//! totals). Each step runs inside the caller's transaction.

use std::collections::HashMap;
use std::path::Path;

use jiff::Timestamp;
use postgres::Transaction;
use signals_core::ItemSnapshot;
use signals_core::run::ItemEvent;
use signals_store::codec::{int, to_json, ts_parse, ts_text};
use signals_store::{KeptPulls, Parts, RepoKey, Result, RunCommit, StoreError, check_commit};

use crate::queue::Outcome;
use crate::read::{SNAPSHOT_COLUMNS, SNAPSHOT_JOINS};
use crate::{Attempt, PgStore, TEXTS_LOCK};

/// One snapshot to store with its run.
#[derive(Clone, Copy)]
pub(crate) struct SnapshotRow<'a> {
    /// The repository's key.
    pub(crate) repo: i64,
    /// The item's signal id.
    pub(crate) item_id: &'a str,
    pub(crate) snapshot: &'a ItemSnapshot,
    /// The snapshot split into its columns.
    pub(crate) parts: &'a Parts,
    /// The run's id.
    pub(crate) run: i64,
}

impl PgStore {
    /// Opens the run's transaction `tx`: takes the texts' lock shared,
    /// locks the repository's row and releases the lease. False when a
    /// retry finds the run committed already (the connection broke after
    /// the server committed it); an error when the run is not later than
    /// the repository's last.
    pub(crate) fn begin_run(
        &self,
        tx: &mut Transaction<'_>,
        c: &Commit<'_>,
        attempt: Attempt,
    ) -> Result<bool> {
        // Shared with other commits, exclusive to a purge: the texts
        // resolved after this stay until this transaction commits.
        tx.execute("SELECT pg_advisory_xact_lock_shared($1)", &[&TEXTS_LOCK])
            .map_err(self.err("committing a run"))?;
        let last = self.last_run_locked(tx, c.repo)?;
        if attempt == Attempt::Retry && last == Some(c.at) {
            return Ok(false);
        }
        // A worker that stalled past its lease learns it here, before
        // anything else is checked: the repository is another's now.
        self.release_in(tx, c.repo, Outcome::Collected)?;
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
        Ok(true)
    }

    /// What a run writes after its items: its alert messages, the marks
    /// of the items the host no longer lists, its repository's row (the name the host gave, the kept count of open
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
        self.store_downloads(tx, c, run_id)?;
        crate::related::mark_gone(tx, c.repo, &c.run.gone)
            .map_err(self.err("marking the items the host no longer lists"))?;
        if self.keeps_totals {
            crate::totals::add_run(self, tx, c.repo, c.run, new_items)?;
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

    /// Stores each of the run's download counts that differs from its
    /// asset's last stored one (or is its first), in one statement.
    fn store_downloads(&self, tx: &mut Transaction<'_>, c: &Commit<'_>, run_id: i64) -> Result<()> {
        if c.run.downloads.is_empty() {
            return Ok(());
        }
        let assets: Vec<&str> = c.run.downloads.iter().map(|d| d.asset.as_str()).collect();
        let counts = c
            .run
            .downloads
            .iter()
            .map(|d| int("asset download count", d.count))
            .collect::<Result<Vec<i64>>>()?;
        tx.execute(
            "INSERT INTO asset_downloads (repo, asset, run, count)
             SELECT $1, d.asset, $2, d.count
             FROM unnest($3::text[], $4::bigint[]) AS d (asset, count)
             WHERE d.count IS DISTINCT FROM (
                 SELECT a.count FROM asset_downloads a
                 WHERE a.repo = $1 AND a.asset = d.asset ORDER BY a.run DESC LIMIT 1)",
            &[&c.repo.raw(), &run_id, &assets, &counts],
        )
        .map_err(self.err("storing download counts"))?;
        Ok(())
    }

    /// The instant of the repository's last run, with the repository's row
    /// locked: the lock orders two commits of one repository (which leases
    /// already prevent) so the order check after it is sound.
    fn last_run_locked(
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
        c: &Commit<'_>,
        run_id: i64,
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
            let signals_store::events::EventColumns { kind, fields, .. } =
                signals_store::events::encode(&e.observation);
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

    /// Stores `row`'s snapshot unless its item's latest one has the same
    /// columns; `texts` are the ids of the texts resolved before. True when
    /// the item is new.
    pub(crate) fn store_snapshot(
        &self,
        tx: &mut Transaction<'_>,
        row: SnapshotRow<'_>,
        texts: &HashMap<[u8; 32], i64>,
    ) -> Result<bool> {
        let SnapshotRow {
            repo,
            item_id,
            snapshot,
            parts,
            run,
        } = row;
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
