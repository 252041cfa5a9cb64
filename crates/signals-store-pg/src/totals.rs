//! Each repository's totals in `repo_totals` (migration 0017), as on
//! SQLite: the items, runs, sums of the runs' counters and failures
//! `status` shows, kept by the writes that change them, in their own
//! transaction, so `status` reads one row a repository instead of its
//! whole history. Each write adds to the row (`ON CONFLICT DO UPDATE SET x
//! = repo_totals.x + excluded.x`), never reads it back to write it. The
//! row equals a recount of the repository's rows ([`RECOUNT`]); see
//! `migrations/0017_repo_totals.sql` for each column's meaning.
//!
//! A store opened with an older schema (tests of a migration only) has no
//! such table: its writes skip it, and the migration to 0017 fills it from
//! the rows.

use postgres::Transaction;
use signals_store::codec::{int, ts_text};
use signals_store::{RepoKey, Result, RunCommit};

use crate::PgStore;

/// The schema version from which a store keeps `repo_totals`.
pub(crate) const SINCE_VERSION: i64 = 17;

/// A committed `run` of `repo`: one more run, its counters, and `new_items` (the items
/// rows the commit inserted). The failures after the latest run are
/// recounted only when there were some after the previous one: a run is
/// later than the previous (commits refuse one that is not), so none can
/// be after it then.
pub(crate) fn add_run(
    store: &PgStore,
    tx: &mut Transaction<'_>,
    repo: RepoKey,
    run: &RunCommit,
    new_items: u64,
) -> Result<()> {
    let (record, stats) = (&run.record, run.stats);
    tx.execute(
        "INSERT INTO repo_totals (repo, items, runs, changed, requests, not_modified, bytes,
                                  retries)
         VALUES ($1, $2, 1, $3, $4, $5, $6, $7)
         ON CONFLICT (repo) DO UPDATE SET
             items = repo_totals.items + excluded.items,
             runs = repo_totals.runs + 1,
             changed = repo_totals.changed + excluded.changed,
             requests = repo_totals.requests + excluded.requests,
             not_modified = repo_totals.not_modified + excluded.not_modified,
             bytes = repo_totals.bytes + excluded.bytes,
             retries = repo_totals.retries + excluded.retries,
             failures_since = CASE WHEN repo_totals.failures_since = 0 THEN 0
                 ELSE (SELECT count(*) FROM failures WHERE repo = $1
                       AND at::timestamptz > $8::text::timestamptz) END",
        &[
            &repo.raw(),
            &int("new items", new_items)?,
            &int("changed_count", record.changed_count)?,
            &int("requests", stats.requests)?,
            &int("not_modified", stats.not_modified)?,
            &int("bytes_received", stats.bytes_received)?,
            &int("retries", stats.retries)?,
            &ts_text(record.collected_at),
        ],
    )
    .map_err(store.err("keeping the repository's totals"))?;
    Ok(())
}

/// A failure recorded at `at` (as stored): one more failure, and one more
/// after the latest run when it is later than that run (or there is none).
pub(crate) fn add_failure(
    store: &PgStore,
    tx: &mut Transaction<'_>,
    repo: RepoKey,
    at: &str,
) -> Result<()> {
    tx.execute(
        "INSERT INTO repo_totals (repo, failures, failures_since)
         VALUES ($1, 1, coalesce(
             (SELECT CASE WHEN $2::text::timestamptz > collected_at::timestamptz
                          THEN 1 ELSE 0 END
              FROM runs WHERE repo = $1 ORDER BY id DESC LIMIT 1), 1))
         ON CONFLICT (repo) DO UPDATE SET
             failures = repo_totals.failures + 1,
             failures_since = repo_totals.failures_since + excluded.failures_since",
        &[&repo.raw(), &at],
    )
    .map_err(store.err("keeping the repository's totals"))?;
    Ok(())
}

/// Every repository's row recounted from its rows: migration 0017's step,
/// and what `signals migrate` runs after loading a copy.
pub(crate) fn recount(store: &PgStore, tx: &mut Transaction<'_>) -> Result<()> {
    tx.batch_execute(RECOUNT)
        .map_err(store.err("counting each repository's totals"))
}

/// The statements of [`recount`].
const RECOUNT: &str = "
    DELETE FROM repo_totals;
    INSERT INTO repo_totals (repo, items, runs, changed, requests, not_modified, bytes, retries,
                             failures, failures_since)
    SELECT r.key,
           (SELECT count(*) FROM items WHERE repo = r.key),
           t.runs, coalesce(t.changed, 0), coalesce(t.requests, 0), coalesce(t.not_modified, 0),
           coalesce(t.bytes, 0), coalesce(t.retries, 0),
           f.failures, f.since_last_run
    FROM repositories r
    LEFT JOIN LATERAL (
        SELECT collected_at FROM runs WHERE repo = r.key ORDER BY id DESC LIMIT 1) lr ON true
    CROSS JOIN LATERAL (
        SELECT count(*) AS runs, sum(changed_count) AS changed, sum(requests) AS requests,
               sum(not_modified) AS not_modified, sum(bytes_received) AS bytes,
               sum(retries) AS retries
        FROM runs WHERE repo = r.key) t
    CROSS JOIN LATERAL (
        SELECT count(*) AS failures,
               count(*) FILTER (WHERE lr.collected_at IS NULL
                   OR at::timestamptz > lr.collected_at::timestamptz) AS since_last_run
        FROM failures WHERE repo = r.key) f;";
