//! A run's rows, as a direct commit (`write.rs`) and a commit from the
//! stage (`staging.rs`) both write them: the order check, the run's row,
//! its events, and what follows its items (messages, the repository's
//! row). Each step runs inside the caller's transaction.

use std::path::Path;

use jiff::Timestamp;
use rusqlite::{OptionalExtension, Transaction, params};
use signals_core::run::ItemEvent;
use signals_store::codec::{int, ts_parse, ts_text};
use signals_store::{KeptPulls, RepoKey, Result, RunCommit, StoreError};

use crate::error::DbContext;
use crate::snapshots;

/// What a run writes after its items: its alert messages, the marks of
/// the items the host no longer lists, and its repository's row (the name
/// the host gave, the kept count of open pull requests).
pub(crate) fn finish_run(
    tx: &Transaction<'_>,
    path: &Path,
    repo: RepoKey,
    run_id: i64,
    run: &RunCommit,
) -> Result<()> {
    let at = run.record.collected_at;
    crate::outbox::store_messages(tx, path, repo, run_id, at, &run.messages)?;
    store_downloads(tx, path, repo, run_id, run)?;
    if !run.gone.is_empty() {
        crate::related::mark_gone(tx, path, repo, &run.gone)?;
    }
    tx.execute(
        "UPDATE repositories SET host_name = ?2, missing = 0, last_error = NULL
         WHERE key = ?1",
        params![repo.raw(), run.renamed_to.as_ref().map(|n| n.to_string())],
    )
    .doing(path, "updating the repository after a run")?;
    if run.open_pulls != KeptPulls::Unknown {
        tx.execute(
            "UPDATE repositories
             SET open_pulls = ?2, open_pulls_differed = COALESCE(?3, open_pulls_differed)
             WHERE key = ?1",
            params![
                repo.raw(),
                run.open_pulls.count().map(|n| n as i64),
                run.open_pulls.differed(at),
            ],
        )
        .doing(path, "keeping the count of open pull requests")?;
    }
    Ok(())
}

/// Stores each of the run's download counts that differs from its asset's
/// last stored one (or is its first): one indexed lookup per asset.
fn store_downloads(
    tx: &Transaction<'_>,
    path: &Path,
    repo: RepoKey,
    run_id: i64,
    run: &RunCommit,
) -> Result<()> {
    if run.downloads.is_empty() {
        return Ok(());
    }
    let mut insert = tx
        .prepare_cached(
            "INSERT INTO asset_downloads (repo, asset, run, count)
             SELECT ?1, ?2, ?3, ?4
             WHERE NOT EXISTS (
                 SELECT 1 FROM (SELECT count FROM asset_downloads
                                WHERE repo = ?1 AND asset = ?2 ORDER BY run DESC LIMIT 1)
                 WHERE count = ?4)",
        )
        .doing(path, "preparing to store download counts")?;
    for d in &run.downloads {
        insert
            .execute(params![
                repo.raw(),
                d.asset,
                run_id,
                int("asset download count", d.count)?
            ])
            .doing(path, "storing a download count")?;
    }
    Ok(())
}

/// A run that contradicts itself, refused.
pub(crate) fn invalid(run: &RunCommit, problem: String) -> StoreError {
    StoreError::InvalidRun {
        repo: run.context.repository.to_string(),
        at: run.record.collected_at,
        problem,
    }
}

/// The instant of the repository's last run; an unknown repository is
/// refused.
pub(crate) fn last_run(
    tx: &Transaction<'_>,
    path: &Path,
    repo: RepoKey,
) -> Result<Option<Timestamp>> {
    let known: Option<String> = tx
        .query_row(
            "SELECT full_name FROM repositories WHERE key = ?1",
            [repo.raw()],
            |r| r.get(0),
        )
        .optional()
        .doing(path, "looking up the repository of a run")?;
    if known.is_none() {
        return Err(StoreError::UnknownRepository {
            path: path.to_path_buf(),
            key: repo,
        });
    }
    let last: Option<String> = tx
        .query_row(
            "SELECT collected_at FROM runs WHERE repo = ?1 ORDER BY id DESC LIMIT 1",
            [repo.raw()],
            |r| r.get(0),
        )
        .optional()
        .doing(path, "reading the last run")?;
    last.map(|last| ts_parse(path, "runs.collected_at", &last))
        .transpose()
}

/// Adds the run's row; returns its id.
pub(crate) fn insert_run(
    tx: &Transaction<'_>,
    path: &Path,
    repo: RepoKey,
    run: &RunCommit,
    context: &str,
    news: &str,
) -> Result<i64> {
    let (record, stats) = (&run.record, run.stats);
    tx.execute(
        "INSERT INTO runs (repo, collected_at, since, observed_count, changed_count,
                           requests, not_modified, bytes_received, retries, context, news,
                           reconciled)
         VALUES (?1, ?2, ?3, ?4, ?5, ?6, ?7, ?8, ?9, ?10, ?11, ?12)",
        params![
            repo.raw(),
            ts_text(record.collected_at),
            ts_text(record.since),
            int("observed_count", record.observed_count)?,
            int("changed_count", record.changed_count)?,
            int("requests", stats.requests)?,
            int("not_modified", stats.not_modified)?,
            int("bytes_received", stats.bytes_received)?,
            int("retries", stats.retries)?,
            context,
            news,
            i64::from(run.reconciled)
        ],
    )
    .doing(path, "storing a run")?;
    Ok(tx.last_insert_rowid())
}

/// Adds the run's events, each pointing at its item's latest snapshot
/// (stored with the run or before).
pub(crate) fn store_events<'e>(
    tx: &Transaction<'_>,
    path: &Path,
    repo: RepoKey,
    run_id: i64,
    run: &RunCommit,
    events: impl IntoIterator<Item = (i64, &'e ItemEvent)>,
) -> Result<()> {
    let mut event = tx
        .prepare_cached(
            "INSERT INTO events (run, pos, item, kind, fields, snapshot)
             VALUES (?1, ?2, ?3, ?4, ?5, ?6)",
        )
        .doing(path, "preparing to store events")?;
    for (pos, e) in events {
        let Some((item, snapshot)) = snapshots::item_row(tx, path, repo.raw(), &e.item_id)? else {
            return Err(invalid(
                run,
                format!(
                    "its {} event for {} has no snapshot of that item; \
                     pass the item's snapshot with the run",
                    e.observation.kind().as_str(),
                    e.item_id
                ),
            ));
        };
        let signals_store::events::EventColumns { kind, fields, .. } =
            signals_store::events::encode(&e.observation);
        event
            .execute(params![run_id, pos, item, kind, fields, snapshot])
            .doing(path, "storing an observation event")?;
    }
    Ok(())
}
