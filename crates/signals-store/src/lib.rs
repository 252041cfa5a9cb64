//! The SQLite store of Repo Signals.
//!
//! It keeps what collection runs observed (repositories, runs, every distinct
//! item snapshot, observation events, importance scores, failed attempts) and
//! what the HTTP client reuses between runs (cached responses for conditional
//! requests, the last rate limit seen). The export and the page read their
//! views back from it.
//!
//! This is the only crate that knows SQL, and it must stay that way: its
//! public API speaks signals-core types and plain values, never rusqlite
//! types, so a PostgreSQL backend can later offer the same API. It does no
//! HTTP and no diffing: callers give it values computed by signals-core.
//!
//! # Schema
//!
//! Numbered SQL files in `migrations/` (embedded with `include_str!`, applied
//! in order in one transaction when the store opens, tracked by
//! `PRAGMA user_version`; never edited once merged). The comments in those
//! files are the reference; in short:
//!
//! - `groups`, `repositories`: the configured groups and repositories; a
//!   repository's [`RepoKey`] is stable for its (group id, repository id),
//!   and it carries the host's current name after a rename, and a missing
//!   flag and the last error of a failed attempt.
//! - `runs`: one row per successful run, with its [`RunRecord`] fields, the
//!   request statistics, and the run's context and news as JSON.
//! - `snapshots`: every distinct snapshot of every item, added and never
//!   updated, with the run that saw it; the latest is the highest id.
//! - `events`: observation events (discovered / changed, detail, changed
//!   field names), each pointing at the snapshot stored with it.
//! - `scores`: the latest importance score per item, replaced at each run.
//! - `failures`: one row per failed attempt; a failure writes nothing else.
//! - `http_cache`, `rate_limits`: keyed by a token *fingerprint* the caller
//!   computes; a token is never stored.
//!
//! Timestamps are stored as RFC 3339 text with their full precision, so a
//! [`RunRecord`] round-trips exactly; order comes from integer ids, never
//! from that text.
//!
//! # Safety of stored data
//!
//! A run is committed in one `BEGIN IMMEDIATE` transaction: all or nothing.
//! The database runs in WAL mode with foreign keys enforced. Unreadable data
//! (a file that is not SQLite, a damaged JSON column) is a [`StoreError`],
//! never a panic.
//!
//! [`RunRecord`]: signals_core::RunRecord

#![deny(missing_docs)]

mod cache;
mod codec;
mod error;
mod read;
mod write;

use std::fmt;
use std::path::{Path, PathBuf};

use rusqlite::{Connection, OpenFlags, TransactionBehavior};

pub use cache::{CachedResponse, RateLimit};
pub use error::{DbError, Result, StoreError};
pub use read::{Failure, RepoStatus, RepoSummary, RepoView, RunStatus, Status};
pub use write::{RequestStats, RunCommit};

use error::DbContext;

/// The migrations, in order. The schema version of a store is the number of
/// migrations applied to it. Never edit or reorder an entry once merged.
const MIGRATIONS: &[(&str, &str)] = &[("0001_init", include_str!("../migrations/0001_init.sql"))];

/// `PRAGMA application_id` of a signals store ("RSig"), set by the first
/// migration; another application's SQLite file is refused.
const APPLICATION_ID: i64 = 0x5253_6967;

/// How long a statement waits for another process's write lock.
const BUSY_TIMEOUT: std::time::Duration = std::time::Duration::from_secs(5);

/// The stable key of a tracked repository in a store.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub struct RepoKey(i64);

impl fmt::Display for RepoKey {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        self.0.fmt(f)
    }
}

/// An open store.
pub struct Store {
    conn: Connection,
    /// The file, or `:memory:`; named in every error.
    path: PathBuf,
}

impl fmt::Debug for Store {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_struct("Store").field("path", &self.path).finish()
    }
}

impl Store {
    /// Opens the store file at `path`, creating it when it does not exist,
    /// and brings its schema up to date.
    ///
    /// The folder must exist: it is not created, so a mistyped path is an
    /// error rather than a new empty store somewhere unexpected. A file that
    /// is not a SQLite database, a SQLite database of another application,
    /// and a store written by a newer version are refused, and left as they
    /// are.
    pub fn open(path: impl AsRef<Path>) -> Result<Store> {
        let path = path.as_ref();
        if path.is_dir() {
            return Err(StoreError::IsAFolder {
                path: path.to_path_buf(),
            });
        }
        let dir = match path.parent() {
            Some(d) if !d.as_os_str().is_empty() => d,
            _ => Path::new("."),
        };
        if !dir.is_dir() {
            return Err(StoreError::MissingDirectory {
                path: path.to_path_buf(),
                dir: dir.to_path_buf(),
            });
        }
        // No SQLITE_OPEN_URI: a path is a path, even if it starts with `file:`.
        let flags = OpenFlags::SQLITE_OPEN_READ_WRITE
            | OpenFlags::SQLITE_OPEN_CREATE
            | OpenFlags::SQLITE_OPEN_NO_MUTEX;
        let conn = Connection::open_with_flags(path, flags).doing(path, "opening the file")?;
        Store::init(conn, path.to_path_buf(), true)
    }

    /// Opens a new empty store in memory, for tests and dry runs.
    pub fn open_in_memory() -> Result<Store> {
        let path = PathBuf::from(":memory:");
        let conn = Connection::open_in_memory().doing(&path, "opening an in-memory store")?;
        Store::init(conn, path, false)
    }

    /// The file this store was opened from (`:memory:` for an in-memory one).
    pub fn path(&self) -> &Path {
        &self.path
    }

    /// The schema version of this store (the number of migrations applied).
    pub fn schema_version(&self) -> Result<i64> {
        self.conn
            .pragma_query_value(None, "user_version", |r| r.get(0))
            .doing(&self.path, "reading the schema version")
    }

    fn init(conn: Connection, path: PathBuf, wal: bool) -> Result<Store> {
        conn.busy_timeout(BUSY_TIMEOUT)
            .doing(&path, "setting the busy timeout")?;
        conn.pragma_update(None, "foreign_keys", true)
            .doing(&path, "enabling foreign keys")?;
        let mut store = Store { conn, path };
        store.check_identity()?;
        if wal {
            // WAL lets `signals status` and the export read while a
            // collection writes. The pragma answers with the mode in force.
            let mode: String = store
                .conn
                .pragma_update_and_check(None, "journal_mode", "wal", |r| r.get(0))
                .doing(&store.path, "switching to WAL journal mode")?;
            if !mode.eq_ignore_ascii_case("wal") {
                return Err(StoreError::Corrupt {
                    path: store.path.clone(),
                    what: format!("journal mode is {mode:?} and cannot be switched to WAL"),
                });
            }
        }
        store.migrate()?;
        Ok(store)
    }

    /// Refuses files that are not signals stores. It reads the header first,
    /// so a file that is not SQLite fails here, before anything is written.
    fn check_identity(&self) -> Result<()> {
        let path = &self.path;
        let app: i64 = self
            .conn
            .pragma_query_value(None, "application_id", |r| r.get(0))
            .doing(path, "reading the file header")?;
        let version = self.schema_version()?;
        let tables: i64 = self
            .conn
            .query_row("SELECT count(*) FROM sqlite_schema", [], |r| r.get(0))
            .doing(path, "listing the tables")?;
        let foreign = (app != 0 && app != APPLICATION_ID) || (app == 0 && tables > 0);
        if foreign {
            return Err(StoreError::NotAStore { path: path.clone() });
        }
        let supported = MIGRATIONS.len() as i64;
        if version > supported {
            return Err(StoreError::TooNew {
                path: path.clone(),
                found: version,
                supported,
            });
        }
        Ok(())
    }

    /// Applies the migrations this store lacks, all in one transaction.
    fn migrate(&mut self) -> Result<()> {
        self.migrate_with(MIGRATIONS)
    }

    fn migrate_with(&mut self, migrations: &[(&str, &str)]) -> Result<()> {
        if self.schema_version()? >= migrations.len() as i64 {
            return Ok(());
        }
        let path = self.path.clone();
        let tx = self
            .conn
            .transaction_with_behavior(TransactionBehavior::Immediate)
            .doing(&path, "starting the schema migration")?;
        // Another process may have migrated between the check and the lock.
        let version: i64 = tx
            .pragma_query_value(None, "user_version", |r| r.get(0))
            .doing(&path, "reading the schema version")?;
        let start = usize::try_from(version).unwrap_or(0);
        for (i, (_name, sql)) in migrations.iter().enumerate().skip(start) {
            tx.execute_batch(sql)
                .doing(&path, "applying a schema migration")?;
            tx.pragma_update(None, "user_version", (i + 1) as i64)
                .doing(&path, "recording the schema version")?;
        }
        tx.commit().doing(&path, "committing the schema migration")
    }

    /// The journal mode in force (`wal` for a file store).
    #[cfg(test)]
    fn journal_mode(&self) -> String {
        self.conn
            .pragma_query_value(None, "journal_mode", |r| r.get(0))
            .unwrap()
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn temp_dir(name: &str) -> PathBuf {
        let dir = std::env::temp_dir().join(format!(
            "signals-store-{name}-{}-{:?}",
            std::process::id(),
            std::thread::current().id()
        ));
        let _ = std::fs::remove_dir_all(&dir);
        std::fs::create_dir_all(&dir).unwrap();
        dir
    }

    fn tables(store: &Store) -> Vec<String> {
        let mut stmt = store
            .conn
            .prepare("SELECT name FROM sqlite_schema WHERE type = 'table' ORDER BY name")
            .unwrap();
        stmt.query_map([], |r| r.get(0))
            .unwrap()
            .collect::<Result<_, _>>()
            .unwrap()
    }

    #[test]
    fn fresh_store_is_migrated_and_reopening_is_idempotent() {
        let dir = temp_dir("migrate");
        let path = dir.join("signals.db");
        let store = Store::open(&path).unwrap();
        assert_eq!(store.schema_version().unwrap(), MIGRATIONS.len() as i64);
        let first = tables(&store);
        assert!(first.contains(&"runs".to_string()), "{first:?}");
        assert!(first.contains(&"http_cache".to_string()), "{first:?}");
        drop(store);
        let again = Store::open(&path).unwrap();
        assert_eq!(again.schema_version().unwrap(), MIGRATIONS.len() as i64);
        assert_eq!(tables(&again), first);
        let _ = std::fs::remove_dir_all(dir);
    }

    #[test]
    fn a_failing_migration_changes_nothing() {
        let mut store = Store::open_in_memory().unwrap();
        let broken = [
            MIGRATIONS[0],
            (
                "0002_test",
                "CREATE TABLE extra (x INTEGER); SELECT no_such_function();",
            ),
        ];
        let err = store.migrate_with(&broken).unwrap_err();
        assert!(
            err.to_string().contains("applying a schema migration"),
            "{err}"
        );
        assert_eq!(store.schema_version().unwrap(), 1);
        assert!(!tables(&store).contains(&"extra".to_string()));
        let fine = [
            MIGRATIONS[0],
            ("0002_test", "CREATE TABLE extra (x INTEGER);"),
        ];
        store.migrate_with(&fine).unwrap();
        assert_eq!(store.schema_version().unwrap(), 2);
        assert!(tables(&store).contains(&"extra".to_string()));
    }

    /// WAL is there so `signals status` and the export can read while a
    /// collection holds the write lock.
    #[test]
    fn readers_are_not_blocked_by_an_open_write() {
        let dir = temp_dir("concurrent");
        let path = dir.join("s.db");
        let writer = Store::open(&path).unwrap();
        let reader = Store::open(&path).unwrap();
        writer
            .conn
            .execute_batch("BEGIN IMMEDIATE; INSERT INTO groups (id, name) VALUES ('g', 'G');")
            .unwrap();
        let started = std::time::Instant::now();
        assert!(reader.repositories().unwrap().is_empty());
        assert!(started.elapsed() < BUSY_TIMEOUT / 2);
        writer.conn.execute_batch("COMMIT").unwrap();
        let _ = std::fs::remove_dir_all(dir);
    }

    #[test]
    fn file_store_uses_wal_and_foreign_keys() {
        let dir = temp_dir("wal");
        let store = Store::open(dir.join("s.db")).unwrap();
        assert_eq!(store.journal_mode(), "wal");
        let fk: bool = store
            .conn
            .pragma_query_value(None, "foreign_keys", |r| r.get(0))
            .unwrap();
        assert!(fk);
        let _ = std::fs::remove_dir_all(dir);
    }

    #[test]
    fn missing_folder_is_an_error_not_created() {
        let dir = temp_dir("nofolder");
        let path = dir.join("absent").join("s.db");
        let err = Store::open(&path).unwrap_err();
        assert!(
            matches!(err, StoreError::MissingDirectory { .. }),
            "{err:?}"
        );
        assert!(err.to_string().contains("absent"), "{err}");
        assert!(!dir.join("absent").exists());
        let _ = std::fs::remove_dir_all(dir);
    }

    #[test]
    fn a_file_that_is_not_sqlite_is_refused_and_left_alone() {
        let dir = temp_dir("notsqlite");
        let path = dir.join("notes.db");
        let long =
            b"# my notes\nthis is not a database, but long enough to have a page.\n".repeat(20);
        let png = [&b"\x89PNG\r\n\x1a\n"[..], &[7u8; 600]].concat();
        for content in [&b"hello"[..], &long, &png] {
            std::fs::write(&path, content).unwrap();
            let err = Store::open(&path).unwrap_err();
            assert!(matches!(err, StoreError::NotADatabase { .. }), "{err:?}");
            let msg = err.to_string();
            assert!(
                msg.contains("notes.db") && msg.contains("not a SQLite database"),
                "{msg}"
            );
            assert_eq!(std::fs::read(&path).unwrap(), content);
        }
        let _ = std::fs::remove_dir_all(dir);
    }

    #[test]
    fn a_folder_is_not_a_store() {
        let dir = temp_dir("folder");
        let err = Store::open(&dir).unwrap_err();
        assert!(matches!(err, StoreError::IsAFolder { .. }), "{err:?}");
        let msg = err.to_string();
        assert!(msg.contains(&*dir.to_string_lossy()), "{msg}");
        assert!(dir.is_dir());
        let _ = std::fs::remove_dir_all(dir);
    }

    #[test]
    fn another_applications_database_is_refused() {
        let dir = temp_dir("foreign");
        let path = dir.join("other.db");
        let conn = Connection::open(&path).unwrap();
        conn.execute_batch("CREATE TABLE notes (body TEXT); INSERT INTO notes VALUES ('x');")
            .unwrap();
        drop(conn);
        let err = Store::open(&path).unwrap_err();
        assert!(matches!(err, StoreError::NotAStore { .. }), "{err:?}");
        let conn = Connection::open(&path).unwrap();
        let n: i64 = conn
            .query_row("SELECT count(*) FROM notes", [], |r| r.get(0))
            .unwrap();
        assert_eq!(n, 1);
        let _ = std::fs::remove_dir_all(dir);
    }

    #[test]
    fn a_store_from_a_newer_version_asks_for_a_newer_signals() {
        let dir = temp_dir("newer");
        let path = dir.join("s.db");
        let store = Store::open(&path).unwrap();
        store.conn.pragma_update(None, "user_version", 99).unwrap();
        drop(store);
        let err = Store::open(&path).unwrap_err();
        assert!(
            matches!(err, StoreError::TooNew { found: 99, .. }),
            "{err:?}"
        );
        assert!(err.to_string().contains("run a newer signals"), "{err}");
        let _ = std::fs::remove_dir_all(dir);
    }
}
