//! The SQLite store of Repo Signals: one file, the embedded default.
//!
//! It keeps what collection runs observed (repositories, runs, every distinct
//! item snapshot, observation events, failed attempts) and
//! what the HTTP client reuses between runs (cached responses for conditional
//! requests, the last rate limit seen). The export and the page read their
//! views back from it.
//!
//! [`Store`] plays every role of `signals_store::Backend`, each in the
//! module that holds its SQL, named as the role's module in `signals-store`
//! (`write.rs` is `RunWrites`, `read.rs` `Reads`, `http.rs` `HttpState`,
//! ...); `signals-store-pg` has the same modules. Its API speaks
//! signals-core types and plain values, never rusqlite types. It does no
//! HTTP and no diffing: callers give it values computed by signals-core.
//!
//! # Schema
//!
//! Numbered SQL files in `migrations/` (embedded with `include_str!`, applied
//! in order in one transaction when the store opens, tracked by
//! `PRAGMA user_version`; never edited once merged: `schema.rs`). The comments in those
//! files are the reference; in short:
//!
//! - `groups`, `repositories`: the configured groups and repositories; a
//!   repository's `RepoKey` is stable for its (group id, repository id),
//!   and it carries the host's current name after a rename, and a missing
//!   flag and the last error of a failed attempt.
//! - `runs`: one row per successful run, with its `RunRecord` fields, the
//!   request statistics, and the run's context and news as JSON.
//! - `items`: one row per item ever seen, with the id of its newest
//!   snapshot (`latest`, the only column updated in place: an index, not
//!   history).
//! - `texts`: every distinct body and head (title, URL, author, creation
//!   time as JSON), once, addressed by SHA-256.
//! - `snapshots`: every distinct snapshot of every item, added and never
//!   updated, with the run that saw it: the often-changing fields as
//!   columns, the body and head as references into `texts`
//!   (`snapshots.rs`).
//! - `events`: observation events (discovered / changed, detail, changed
//!   field names), each pointing at the snapshot stored with it.
//! - `item_keys`, `item_refs`, `reference_marks`: links between items
//!   (`references.rs`): each item's own reference key, the keys
//!   its texts name, and the runs that changed a repository's links.
//! - `search_postings`, `search_docs`, `search_state`: the word index
//!   (`search.rs`), derived from the latest snapshots.
//! - `related_profiles`, `related_texts`, `related_lists`, `related_state`: related items
//!   (`related.rs`), derived from the latest snapshots; `related_gone`: the
//!   items a run found gone, until a catch-up takes them out.
//! - `failures`: one row per failed attempt; a failure writes nothing else.
//! - `http_cache`, `rate_limits`: keyed by a token *fingerprint* the caller
//!   computes; a token is never stored.
//!
//! Timestamps are stored as RFC 3339 text with their full precision, so a
//! `RunRecord` round-trips exactly; order comes from integer ids, never
//! from that text.
//!
//! # Safety of stored data
//!
//! A run is committed in one `BEGIN IMMEDIATE` transaction: all or nothing.
//! The database runs in WAL mode with foreign keys enforced. Unreadable data
//! (a file that is not SQLite, a damaged JSON column) is a `StoreError`,
//! never a panic.
//!

#![deny(missing_docs)]

mod comments;
mod dump;
mod error;
mod http;
mod lifecycle;
mod outbox;
mod owners;
mod paged;
mod read;
mod references;
mod related;
mod run_rows;
mod schema;
mod search;
mod snapshots;
mod staging;
mod stream;
mod totals;
mod trends;
mod write;

use std::fmt;
use std::path::{Path, PathBuf};

use rusqlite::config::DbConfig;
use rusqlite::{Connection, OpenFlags};
use signals_store::{Result, StoreError};

use error::DbContext;
use schema::MIGRATIONS;

/// `PRAGMA application_id` of a signals store ("RSig"), set by the first
/// migration; another application's SQLite file is refused.
const APPLICATION_ID: i64 = 0x5253_6967;

/// How long a statement waits for another process's write lock.
/// The most of the store file [`Store::serve_reads`] maps (1 GiB).
pub const SERVE_MMAP_BYTES: i64 = 1 << 30;

const BUSY_TIMEOUT: std::time::Duration = std::time::Duration::from_secs(5);

/// An open store.
pub struct Store {
    conn: Connection,
    /// The file, or `:memory:`; named in every error.
    path: PathBuf,
    /// Whether the schema has `repo_totals` (0017), which the writes keep:
    /// false only for a store opened at an older schema, by tests of a
    /// migration (`totals.rs`).
    keeps_totals: bool,
}

impl fmt::Debug for Store {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_struct("Store").field("path", &self.path).finish()
    }
}

/// How a store's connection journals its writes.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Journal {
    /// A file's write-ahead log, so readers go on while a writer writes.
    Wal,
    /// SQLite's default, for a store in memory, which has no file to share.
    InMemory,
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
        Store::init(conn, path.to_path_buf(), Journal::Wal)
    }

    /// Opens the store file at `path` with only its first `migrations`
    /// applied: for tests of a migration, which need a store of the schema
    /// before it.
    #[doc(hidden)]
    pub fn open_before(path: impl AsRef<Path>, migrations: usize) -> Result<Store> {
        let path = path.as_ref();
        let conn = Connection::open(path).doing(path, "opening the file")?;
        conn.pragma_update(None, "foreign_keys", true)
            .doing(path, "enabling foreign keys")?;
        let mut store = Store {
            conn,
            path: path.to_path_buf(),
            keeps_totals: false,
        };
        store.migrate_with(&MIGRATIONS[..migrations.min(MIGRATIONS.len())])?;
        Ok(store)
    }

    /// Opens a new empty store in memory, for tests and dry runs.
    pub fn open_in_memory() -> Result<Store> {
        let path = PathBuf::from(":memory:");
        let conn = Connection::open_in_memory().doing(&path, "opening an in-memory store")?;
        Store::init(conn, path, Journal::InMemory)
    }

    /// Readies this connection for serving reads (`signals serve`'s
    /// pool): the file is read through a shared memory map of up to
    /// [`SERVE_MMAP_BYTES`] instead of a copy into each connection's own
    /// small page cache (2 MB by default). A search's posting lists are
    /// megabytes; with the default cache every request read them again
    /// from the kernel (a fifth of a common word's time). The map is the
    /// operating system's page cache, shared by the pool's connections,
    /// so memory does not grow with the pool. Writes are unchanged.
    pub fn serve_reads(&self) -> Result<()> {
        self.conn
            .pragma_update(None, "mmap_size", SERVE_MMAP_BYTES)
            .doing(&self.path, "mapping the file for reading")
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

    fn init(conn: Connection, path: PathBuf, journal: Journal) -> Result<Store> {
        conn.busy_timeout(BUSY_TIMEOUT)
            .doing(&path, "setting the busy timeout")?;
        conn.pragma_update(None, "foreign_keys", true)
            .doing(&path, "enabling foreign keys")?;
        // The query planner's stability guarantee: a cached statement keeps
        // the plan it was prepared with. Without it SQLite marks a statement
        // whose plan could depend on a bound value (`LIMIT ?`, the ids of
        // `json_each(?)`) and prepares it again, planner and all, on every
        // new binding: a fifth of a served page's time went to planning the
        // joins of its references again. The store runs no ANALYZE, so no
        // plan here ever depended on the values.
        conn.set_db_config(DbConfig::SQLITE_DBCONFIG_ENABLE_QPSG, true)
            .doing(&path, "keeping the query plans of cached statements")?;
        let mut store = Store {
            conn,
            path,
            keeps_totals: false,
        };
        store.check_identity()?;
        if journal == Journal::Wal {
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
            // A passive checkpoint after every commit (SQLite's default
            // waits for 1,000 pages): what is committed moves into the
            // database file at once, so the WAL holds little more than
            // the transaction in progress, and a write that fails on a full
            // disk leaves only its own pages there, which
            // [`Store::give_back`] can then truncate away.
            store
                .conn
                .pragma_update(None, "wal_autocheckpoint", 1)
                .doing(&store.path, "setting the WAL checkpoint interval")?;
            store.empty_wal();
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

    /// Passes on the result of a write; when it failed on a full disk,
    /// first gives back the space its rolled-back pages took in the WAL,
    /// with a checkpoint that truncates the WAL file (best effort: it
    /// cannot when another connection reads, and then the WAL keeps its
    /// size until the last connection closes and removes it).
    pub(crate) fn give_back<T>(&self, result: Result<T>) -> Result<T> {
        if result.as_ref().is_err_and(StoreError::is_disk_full) {
            let _ = self
                .conn
                .query_row("PRAGMA wal_checkpoint(TRUNCATE)", [], |_| Ok(()));
        }
        result
    }

    /// Empties a WAL left by a process that stopped on a full disk: its
    /// committed pages move into the database file and the file is
    /// truncated, so the space its rolled-back pages took is free again
    /// for this one. Without waiting: when another connection reads or
    /// writes, it is left for later (best effort, as in
    /// [`Store::give_back`]).
    fn empty_wal(&self) {
        let wal = std::path::PathBuf::from(format!("{}-wal", self.path.display()));
        if std::fs::metadata(&wal).is_ok_and(|m| m.len() > 0)
            && self.conn.busy_timeout(std::time::Duration::ZERO).is_ok()
        {
            let _ = self
                .conn
                .query_row("PRAGMA wal_checkpoint(TRUNCATE)", [], |_| Ok(()));
            let _ = self.conn.busy_timeout(BUSY_TIMEOUT);
        }
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
    use signals_store::Reads;

    pub(crate) fn temp_dir(name: &str) -> PathBuf {
        let dir = std::env::temp_dir().join(format!(
            "signals-store-{name}-{}-{:?}",
            std::process::id(),
            std::thread::current().id()
        ));
        let _ = std::fs::remove_dir_all(&dir);
        std::fs::create_dir_all(&dir).unwrap();
        dir
    }

    /// A cached statement whose rows come from the ids bound to a
    /// `json_each(?)`, and with a `LIMIT ?`, runs with new values without
    /// being prepared again: serve's pages bind new ids on every request.
    #[test]
    fn cached_statements_keep_their_plan_across_new_bindings() {
        let dir = temp_dir("plans");
        let store = Store::open(dir.join("s.db")).unwrap();
        let sql = "SELECT i.item_id FROM json_each(?2) w
                   CROSS JOIN items i ON i.repo = ?1 AND i.item_id = w.value
                   JOIN snapshots s ON s.id = i.latest LIMIT ?3";
        for (ids, limit) in [("[\"a\"]", 1), ("[\"b\",\"c\"]", 2), ("[]", 3)] {
            let mut stmt = store.conn.prepare_cached(sql).unwrap();
            let rows: Vec<String> = stmt
                .query_map(rusqlite::params![1, ids, limit], |r| r.get(0))
                .unwrap()
                .collect::<rusqlite::Result<_>>()
                .unwrap();
            assert!(rows.is_empty());
            assert_eq!(
                stmt.get_status(rusqlite::StatementStatus::RePrepare),
                0,
                "prepared again for {ids} and LIMIT {limit}"
            );
        }
        let _ = std::fs::remove_dir_all(&dir);
    }

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
