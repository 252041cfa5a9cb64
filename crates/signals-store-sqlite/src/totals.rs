//! Each repository's totals in `repo_totals` (migration 0017): the items,
//! runs, sums of the runs' counters and failures `status` shows, kept by
//! the writes that change them, in their own transaction, so `status`
//! reads one row a repository instead of its whole history. The row equals
//! a recount of the repository's rows ([`RECOUNT`]); see
//! `migrations/0017_repo_totals.sql` for each column's meaning.
//!
//! A store opened with an older schema (tests of a migration only) has no
//! such table: its writes skip it, and the migration to 0017 fills it from
//! the rows.

use std::path::Path;

use rusqlite::{Transaction, params};
use signals_store::codec::{int, ts_text};
use signals_store::{RepoKey, Result, RunCommit};

use crate::error::DbContext;

/// The schema version from which a store keeps `repo_totals`.
pub(crate) const SINCE_VERSION: i64 = 17;

/// A committed run: one more run, its counters, and `new_items` (the items
/// rows the commit inserted). The failures after the latest run are
/// recounted only when there were some after the previous one: a run is
/// later than the previous (commits refuse one that is not), so none can
/// be after it then.
pub(crate) fn add_run(
    tx: &Transaction<'_>,
    path: &Path,
    repo: RepoKey,
    run: &RunCommit,
    new_items: u64,
) -> Result<()> {
    let (record, stats) = (&run.record, run.stats);
    tx.prepare_cached(
        "INSERT INTO repo_totals (repo, items, runs, changed, requests, not_modified, bytes,
                                  retries)
         VALUES (?1, ?2, 1, ?3, ?4, ?5, ?6, ?7)
         ON CONFLICT (repo) DO UPDATE SET
             items = repo_totals.items + excluded.items,
             runs = repo_totals.runs + 1,
             changed = repo_totals.changed + excluded.changed,
             requests = repo_totals.requests + excluded.requests,
             not_modified = repo_totals.not_modified + excluded.not_modified,
             bytes = repo_totals.bytes + excluded.bytes,
             retries = repo_totals.retries + excluded.retries,
             failures_since = CASE WHEN repo_totals.failures_since = 0 THEN 0
                 ELSE (SELECT count(*) FROM failures WHERE repo = ?1
                       AND unixepoch(at, 'subsec') > unixepoch(?8, 'subsec')) END",
    )
    .doing(path, "keeping the repository's totals")?
    .execute(params![
        repo.raw(),
        int("new items", new_items)?,
        int("changed_count", record.changed_count)?,
        int("requests", stats.requests)?,
        int("not_modified", stats.not_modified)?,
        int("bytes_received", stats.bytes_received)?,
        int("retries", stats.retries)?,
        ts_text(record.collected_at),
    ])
    .doing(path, "keeping the repository's totals")?;
    Ok(())
}

/// A failure recorded at `at`: one more failure, and one more after the
/// latest run when it is later than that run (or there is none).
pub(crate) fn add_failure(
    tx: &Transaction<'_>,
    path: &Path,
    repo: RepoKey,
    at: &str,
) -> Result<()> {
    tx.prepare_cached(
        "INSERT INTO repo_totals (repo, failures, failures_since)
         VALUES (?1, 1, coalesce(
             (SELECT unixepoch(?2, 'subsec') > unixepoch(collected_at, 'subsec')
              FROM runs WHERE repo = ?1 ORDER BY id DESC LIMIT 1), 1))
         ON CONFLICT (repo) DO UPDATE SET
             failures = repo_totals.failures + 1,
             failures_since = repo_totals.failures_since + excluded.failures_since",
    )
    .doing(path, "keeping the repository's totals")?
    .execute(params![repo.raw(), at])
    .doing(path, "keeping the repository's totals")?;
    Ok(())
}

/// Every repository's row recounted from its rows: migration 0017's step,
/// and what `signals migrate` runs after loading a copy.
pub(crate) fn recount(tx: &Transaction<'_>, path: &Path) -> Result<()> {
    tx.execute_batch(RECOUNT)
        .doing(path, "counting each repository's totals")
}

/// The statements of [`recount`].
const RECOUNT: &str = "
    DELETE FROM repo_totals;
    INSERT INTO repo_totals (repo, items, runs, changed, requests, not_modified, bytes, retries,
                             failures, failures_since)
    SELECT r.key,
           (SELECT count(*) FROM items WHERE repo = r.key),
           coalesce(t.runs, 0), coalesce(t.changed, 0), coalesce(t.requests, 0),
           coalesce(t.not_modified, 0), coalesce(t.bytes, 0), coalesce(t.retries, 0),
           (SELECT count(*) FROM failures WHERE repo = r.key),
           (SELECT count(*) FROM failures WHERE repo = r.key AND (lr.collected_at IS NULL
               OR unixepoch(at, 'subsec') > unixepoch(lr.collected_at, 'subsec')))
    FROM repositories r
    LEFT JOIN runs lr
        ON lr.id = (SELECT id FROM runs WHERE repo = r.key ORDER BY id DESC LIMIT 1)
    LEFT JOIN (
        SELECT repo, count(*) AS runs, sum(changed_count) AS changed, sum(requests) AS requests,
               sum(not_modified) AS not_modified, sum(bytes_received) AS bytes,
               sum(retries) AS retries
        FROM runs GROUP BY repo) t ON t.repo = r.key;";

#[cfg(test)]
mod tests {
    use rusqlite::Connection;
    use signals_store::RunWrites;
    use signals_store::suite::{issue, run_of, status_totals, totals_history, ts};

    use crate::Store;
    use crate::schema::MIGRATIONS;

    /// Each repository's totals as `status` computed them before 0017,
    /// from every row: items, runs, changed, requests, not modified,
    /// bytes, retries, failures, failures since the last run.
    fn old_totals(conn: &Connection) -> Vec<(i64, [i64; 9])> {
        let mut stmt = conn
            .prepare(
                "SELECT r.key, (SELECT count(*) FROM items WHERE repo = r.key),
                        coalesce(t.runs, 0), coalesce(t.changed, 0), coalesce(t.requests, 0),
                        coalesce(t.not_modified, 0), coalesce(t.bytes, 0),
                        coalesce(t.retries, 0),
                        (SELECT count(*) FROM failures WHERE repo = r.key),
                        (SELECT count(*) FROM failures WHERE repo = r.key
                         AND (lr.collected_at IS NULL
                              OR unixepoch(at, 'subsec') > unixepoch(lr.collected_at, 'subsec')))
                 FROM repositories r
                 LEFT JOIN runs lr ON lr.id = (SELECT id FROM runs WHERE repo = r.key
                                               ORDER BY id DESC LIMIT 1)
                 LEFT JOIN (SELECT repo, count(*) AS runs, sum(changed_count) AS changed,
                                   sum(requests) AS requests, sum(not_modified) AS not_modified,
                                   sum(bytes_received) AS bytes, sum(retries) AS retries
                            FROM runs GROUP BY repo) t ON t.repo = r.key
                 ORDER BY r.key",
            )
            .unwrap();
        stmt.query_map([], |r| {
            let mut v = [0i64; 9];
            for (i, x) in v.iter_mut().enumerate() {
                *x = r.get(i + 1)?;
            }
            Ok((r.get(0)?, v))
        })
        .unwrap()
        .collect::<rusqlite::Result<_>>()
        .unwrap()
    }

    /// 0017 fills every repository's row from the rows stored before:
    /// `status` then shows what it computed from them, and the writes
    /// after it keep the rows equal to that computation.
    #[test]
    fn migration_0017_fills_in_the_totals_of_a_store_from_before() {
        let dir = crate::tests::temp_dir("totals0017");
        let path = dir.join("signals.db");
        let before = usize::try_from(super::SINCE_VERSION - 1).unwrap();
        let mut store = Store::open_before(&path, before).unwrap();
        assert_eq!(store.schema_version().unwrap(), 16);
        let keys = totals_history(&mut store);
        let old = old_totals(&store.conn);
        assert_eq!(
            old[0].1,
            [4, 3, 5, 30 + 3, 3, 3 * 12_345, 0, 3, 2],
            "{old:?}"
        );
        assert_eq!(old[1].1, [0, 0, 0, 0, 0, 0, 0, 1, 1], "{old:?}");
        drop(store);

        let mut store = Store::open(&path).unwrap();
        assert_eq!(store.schema_version().unwrap(), MIGRATIONS.len() as i64);
        assert_eq!(status_totals(&store), old);
        let kept: i64 = store
            .conn
            .query_row("SELECT count(*) FROM repo_totals", [], |r| r.get(0))
            .unwrap();
        assert_eq!(kept, 3, "a row for every repository");

        let at = ts("2026-11-20T14:00:00Z");
        let run = run_of(&store, keys[1], at, vec![issue("9")], 5);
        store.commit_run(keys[1], &run).unwrap();
        store
            .record_failure(keys[2], ts("2026-11-20T15:00:00Z"), "http", "500")
            .unwrap();
        assert_eq!(status_totals(&store), old_totals(&store.conn));
        let _ = std::fs::remove_dir_all(dir);
    }
}
