//! The SQLite store of Repo Signals.
//!
//! It keeps what collection runs observed (repositories, runs, every distinct
//! item snapshot, observation events, failed attempts) and
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

pub mod codec;
pub mod dump;
mod error;
pub mod events;
mod http;
pub mod outbox;
pub mod owners;
mod paged;
mod read;
mod snapshots;
mod stream;
#[cfg(any(test, feature = "suite"))]
pub mod suite;
mod trends;
mod write;

use std::fmt;
use std::path::{Path, PathBuf};

use rusqlite::{Connection, OpenFlags, OptionalExtension, TransactionBehavior};

pub use dump::Dump;
pub use error::{DbError, Result, StoreError};
pub use http::{CachedResponse, HttpState, RateLimit, check_cacheable};
pub use outbox::{MessageState, Outbox, OutboxMessage, RuleOutbox, Settle};
pub use owners::{OwnerRef, OwnerRepo, OwnerStatus, Owners};
pub use paged::{PagedReads, TextIds, TrailSlice, searchable, trail_plan};
pub use read::{
    Failure, Reads, RepoStatus, RepoSummary, RepoTotals, RepoView, RunRow, RunStatus, Status,
    SummaryRow, TotalsRow, TrailRow, run_record_from, summary_from, totals_from, trail_event_from,
};
pub use snapshots::{
    HEAD_COLUMNS, HEAD_JOINS, Parts, RawParts, SNAPSHOT_COLUMNS, SNAPSHOT_JOINS, head_title_url,
    state_code,
};
pub use stream::{LatestItem, RepoOutline, StreamReads, TrailKey};
pub use trends::{ContextRow, GrowthRow, TrendReads, contexts_from, growth_from};
pub use write::{RequestStats, RunCommit, RunWrites, check_commit};

/// A store of repositories, runs, snapshots, events, failures, HTTP state,
/// alerts and owners: every role at once, what the binary holds. Each
/// role is its own trait, implemented by each backend in the module that
/// holds its SQL.
pub trait Backend:
    RunWrites + Reads + StreamReads + PagedReads + TrendReads + HttpState + Dump + Outbox + Owners
{
}

impl<T> Backend for T where
    T: RunWrites
        + Reads
        + StreamReads
        + PagedReads
        + TrendReads
        + HttpState
        + Dump
        + Outbox
        + Owners
        + ?Sized
{
}

use error::DbContext;

/// One numbered migration: SQL, then optionally Rust code for what SQL
/// cannot do (hashing), in the same transaction.
#[derive(Clone, Copy)]
struct Migration {
    name: &'static str,
    sql: &'static str,
    then: Option<fn(&rusqlite::Transaction<'_>, &Path) -> Result<()>>,
}

/// The migrations, in order. The schema version of a store is the number of
/// migrations applied to it. Never edit or reorder an entry once merged.
const MIGRATIONS: &[Migration] = &[
    Migration {
        name: "0001_init",
        sql: include_str!("../migrations/0001_init.sql"),
        then: None,
    },
    Migration {
        name: "0002_bodies",
        sql: include_str!("../migrations/0002_bodies.sql"),
        then: Some(snapshots::migrate_0002),
    },
    Migration {
        name: "0003_closed_at",
        sql: include_str!("../migrations/0003_closed_at.sql"),
        then: None,
    },
    Migration {
        name: "0004_outbox",
        sql: include_str!("../migrations/0004_outbox.sql"),
        then: None,
    },
    Migration {
        name: "0005_text_search",
        sql: include_str!("../migrations/0005_text_search.sql"),
        then: None,
    },
    Migration {
        name: "0006_reconcile",
        sql: include_str!("../migrations/0006_reconcile.sql"),
        then: None,
    },
    Migration {
        name: "0007_owners",
        sql: include_str!("../migrations/0007_owners.sql"),
        then: None,
    },
    Migration {
        name: "0008_compact",
        sql: include_str!("../migrations/0008_compact.sql"),
        then: Some(snapshots::migrate_compact),
    },
    Migration {
        name: "0009_owner_host_id",
        sql: include_str!("../migrations/0009_owner_host_id.sql"),
        then: None,
    },
];

/// `PRAGMA application_id` of a signals store ("RSig"), set by the first
/// migration; another application's SQLite file is refused.
const APPLICATION_ID: i64 = 0x5253_6967;

/// How long a statement waits for another process's write lock.
const BUSY_TIMEOUT: std::time::Duration = std::time::Duration::from_secs(5);

/// The stable key of a tracked repository in a store.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub struct RepoKey(i64);

impl RepoKey {
    /// The key as the database stores it (for backends).
    pub fn from_raw(key: i64) -> RepoKey {
        RepoKey(key)
    }

    /// The number the database stores.
    pub fn raw(self) -> i64 {
        self.0
    }
}

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
        };
        store.migrate_with(&MIGRATIONS[..migrations.min(MIGRATIONS.len())])?;
        Ok(store)
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

    fn migrate_with(&mut self, migrations: &[Migration]) -> Result<()> {
        if self.schema_version()? >= migrations.len() as i64 {
            return Ok(());
        }
        let path = self.path.clone();
        // A migration may rebuild a table that others reference (0002 does),
        // which SQLite allows only with foreign keys off; they are checked
        // before the commit instead, and switched back on whatever happens.
        // The pragma is a no-op inside a transaction, so it is set here.
        self.conn
            .pragma_update(None, "foreign_keys", false)
            .doing(&path, "preparing the schema migration")?;
        let result = Self::apply(&mut self.conn, &path, migrations);
        self.conn
            .pragma_update(None, "foreign_keys", true)
            .doing(&path, "enabling foreign keys")?;
        result
    }

    fn apply(conn: &mut Connection, path: &Path, migrations: &[Migration]) -> Result<()> {
        let path = path.to_path_buf();
        let tx = conn
            .transaction_with_behavior(TransactionBehavior::Immediate)
            .doing(&path, "starting the schema migration")?;
        // Another process may have migrated between the check and the lock.
        let version: i64 = tx
            .pragma_query_value(None, "user_version", |r| r.get(0))
            .doing(&path, "reading the schema version")?;
        let start = usize::try_from(version).unwrap_or(0);
        for (i, m) in migrations.iter().enumerate().skip(start) {
            tx.execute_batch(m.sql)
                .doing(&path, "applying a schema migration")?;
            if let Some(then) = m.then {
                then(&tx, &path)?;
            }
            let broken: Option<String> = tx
                .query_row(
                    "SELECT \"table\" FROM pragma_foreign_key_check LIMIT 1",
                    [],
                    |r| r.get(0),
                )
                .optional()
                .doing(&path, "checking the migrated foreign keys")?;
            if let Some(table) = broken {
                return Err(StoreError::Corrupt {
                    path: path.clone(),
                    what: format!(
                        "migration {} left rows of {table} pointing at missing rows; \
                         the store was left as it was",
                        m.name
                    ),
                });
            }
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
        let test = |sql| Migration {
            name: "9999_test",
            sql,
            then: None,
        };
        let current = MIGRATIONS.len() as i64;
        let with = |extra: Migration| {
            let mut all = MIGRATIONS.to_vec();
            all.push(extra);
            all
        };
        let broken = with(test(
            "CREATE TABLE extra (x INTEGER); SELECT no_such_function();",
        ));
        let err = store.migrate_with(&broken).unwrap_err();
        assert!(
            err.to_string().contains("applying a schema migration"),
            "{err}"
        );
        assert_eq!(store.schema_version().unwrap(), current);
        assert!(!tables(&store).contains(&"extra".to_string()));
        let fine = with(test("CREATE TABLE extra (x INTEGER);"));
        store.migrate_with(&fine).unwrap();
        assert_eq!(store.schema_version().unwrap(), current + 1);
        assert!(tables(&store).contains(&"extra".to_string()));
    }

    /// Issue 7: migration 0002 moves every snapshot of a store made by the
    /// 0001 schema into the content-addressed layout; every item's history
    /// and the whole trail read back exactly as before.
    #[test]
    fn migration_0002_keeps_every_history_exactly() {
        use signals_core::{ItemDetail, ItemSnapshot, ItemState, Metrics, RepoName, TrailEvent};

        let path = PathBuf::from(":memory:");
        let conn = Connection::open_in_memory().unwrap();
        let mut store = Store { conn, path };
        store.migrate_with(&MIGRATIONS[..1]).unwrap();
        assert_eq!(store.schema_version().unwrap(), 1);

        // A deterministic mix: two repositories (one tracked in two groups,
        // so item ids repeat across repositories), issues, pull requests and
        // releases, bodies shared between items, metrics-only changes, body
        // edits, label and state changes, and one snapshot equal to the one
        // before it (history is moved as it is, not deduplicated).
        let mut rng: u64 = 0x5eed;
        let mut next = |n: u64| {
            rng = rng
                .wrapping_mul(6364136223846793005)
                .wrapping_add(1442695040888963407);
            (rng >> 33) % n
        };
        store
            .conn
            .execute_batch(
                "INSERT INTO groups VALUES ('g', 'G'), ('h', 'H');
                 INSERT INTO repositories (key, group_id, repo_id, source, full_name, display_name)
                 VALUES (1, 'g', 'n', 'github', 'o/n', 'N'), (2, 'h', 'n', 'github', 'o/n', 'N'),
                        (3, 'g', 'm', 'github', 'o/m', 'M');",
            )
            .unwrap();
        let base: jiff::Timestamp = "2026-01-01T00:00:00Z".parse().unwrap();
        let mut latest: std::collections::HashMap<(i64, String), ItemSnapshot> = Default::default();
        let mut snapshot_id = 0i64;
        for run in 1..=12i64 {
            let repo = 1 + (run % 3);
            let at = base + jiff::SignedDuration::from_hours(run);
            store
                .conn
                .execute(
                    "INSERT INTO runs (id, repo, collected_at, since, observed_count,
                        changed_count, requests, not_modified, bytes_received, retries, context, news)
                     VALUES (?1, ?2, ?3, ?3, 40, 0, 0, 0, 0, 0, '{}', '{}')",
                    rusqlite::params![run, repo, at.to_string()],
                )
                .unwrap();
            let name = if repo == 3 { "o/m" } else { "o/n" };
            for k in 0..(5 + next(20)) {
                let key = k.to_string();
                let detail = match k % 3 {
                    0 => ItemDetail::Issue,
                    1 => ItemDetail::PullRequest {
                        draft: next(2) == 0,
                        merged: next(2) == 0,
                        merged_at: (next(2) == 0).then_some(at),
                    },
                    _ => ItemDetail::Release {
                        prerelease: next(2) == 0,
                        published_at: base,
                    },
                };
                let id = format!(
                    "github:{name}:{}:{key}",
                    match k % 3 {
                        0 => "issue",
                        1 => "pull_request",
                        _ => "release",
                    }
                );
                let mut s = latest
                    .get(&(repo, id.clone()))
                    .cloned()
                    .unwrap_or(ItemSnapshot {
                        repo: RepoName::parse(name).unwrap(),
                        key: key.clone(),
                        title: format!("item {k}"),
                        text: format!("shared body {}", next(3)).repeat(1 + next(50) as usize),
                        url: format!("https://github.com/{name}/issues/{k}"),
                        created_at: base,
                        updated_at: base,
                        metrics: Metrics::default(),
                        labels: vec![],
                        author: "a".into(),
                        state: ItemState::Open,
                        closed_at: None,
                        assignees: vec![],
                        detail: detail.clone(),
                    });
                match next(6) {
                    0 => s.metrics.reactions += 1 + next(5),
                    1 => s.text.push_str(" edited"),
                    2 => s.labels.push(format!("l{}", next(4))),
                    3 => s.state = ItemState::Closed,
                    4 => s.title = format!("renamed {}", next(100)),
                    _ => {} // the same snapshot again
                }
                s.detail = detail;
                s.updated_at = at;
                snapshot_id += 1;
                store
                    .conn
                    .execute(
                        "INSERT INTO snapshots (id, repo, item_id, kind, item_key, updated_at,
                                                title, url, content, run)
                         VALUES (?1, ?2, ?3, ?4, ?5, ?6, ?7, ?8, ?9, ?10)",
                        rusqlite::params![
                            snapshot_id,
                            repo,
                            id,
                            s.kind().as_str(),
                            key,
                            at.to_string(),
                            s.title,
                            s.url,
                            serde_json::to_string(&s).unwrap(),
                            run
                        ],
                    )
                    .unwrap();
                if next(2) == 0 {
                    store
                        .conn
                        .execute(
                            "INSERT INTO events (run, item_id, kind, detail, fields, snapshot)
                             VALUES (?1, ?2, 'changed', 'metrics', '[\"metrics\"]', ?3)",
                            rusqlite::params![run, id, snapshot_id],
                        )
                        .unwrap();
                }
                latest.insert((repo, id), s);
            }
        }

        // Histories and trails as the 0001 layout gives them.
        let v1_history = |store: &Store, repo: i64, id: &str| -> Vec<(String, ItemSnapshot)> {
            let mut stmt = store
                .conn
                .prepare(
                    "SELECT r.collected_at, s.content FROM snapshots s JOIN runs r ON r.id = s.run
                     WHERE s.repo = ?1 AND s.item_id = ?2 ORDER BY s.id",
                )
                .unwrap();
            stmt.query_map(rusqlite::params![repo, id], |r| {
                Ok((r.get::<_, String>(0)?, r.get::<_, String>(1)?))
            })
            .unwrap()
            .map(|r| {
                let (at, c) = r.unwrap();
                (at, serde_json::from_str(&c).unwrap())
            })
            .collect()
        };
        let items: Vec<(i64, String)> = latest.keys().cloned().collect();
        let before: Vec<_> = items
            .iter()
            .map(|(repo, id)| v1_history(&store, *repo, id))
            .collect();
        let v1_trail = |store: &Store, repo: i64| -> Vec<(String, String, String, String)> {
            let mut stmt = store
                .conn
                .prepare(
                    "SELECT r.collected_at, e.item_id, s.title, s.url FROM events e
                     JOIN runs r ON r.id = e.run JOIN snapshots s ON s.id = e.snapshot
                     WHERE r.repo = ?1 ORDER BY r.id, e.item_id",
                )
                .unwrap();
            stmt.query_map([repo], |r| Ok((r.get(0)?, r.get(1)?, r.get(2)?, r.get(3)?)))
                .unwrap()
                .map(Result::unwrap)
                .collect()
        };
        let trails_before: Vec<_> = (1..=3).map(|r| v1_trail(&store, r)).collect();
        assert!(before.iter().map(Vec::len).sum::<usize>() > 100);

        store.migrate().unwrap();
        assert_eq!(store.schema_version().unwrap(), MIGRATIONS.len() as i64);

        for ((repo, id), before) in items.iter().zip(before) {
            let after: Vec<(String, ItemSnapshot)> = store
                .snapshot_history(RepoKey(*repo), id)
                .unwrap()
                .into_iter()
                .map(|(at, s)| (at.to_string(), s))
                .collect();
            assert_eq!(after, before, "history of {id} in repository {repo}");
        }
        for (repo, before) in (1..=3).zip(trails_before) {
            let after: Vec<_> = store
                .trail(RepoKey(repo))
                .unwrap()
                .into_iter()
                .map(
                    |TrailEvent {
                         at,
                         item_id,
                         title,
                         url,
                         ..
                     }| { (at.to_string(), item_id, title, url) },
                )
                .collect();
            assert_eq!(after, before, "trail of repository {repo}");
        }
        // Every item's newest snapshot is its `latest`, and bodies shared
        // between items and snapshots are stored once.
        for ((repo, id), want) in &latest {
            let got = store
                .latest_snapshots_for(RepoKey(*repo), std::slice::from_ref(id))
                .unwrap();
            assert_eq!(got.get(id), Some(want), "{id}");
        }
        let (texts, snapshots): (i64, i64) = store
            .conn
            .query_row(
                "SELECT (SELECT count(*) FROM texts WHERE id IN (SELECT body FROM snapshots)),
                        (SELECT count(*) FROM snapshots)",
                [],
                |r| Ok((r.get(0)?, r.get(1)?)),
            )
            .unwrap();
        assert!(
            texts < snapshots,
            "{texts} bodies for {snapshots} snapshots"
        );
        assert_eq!(snapshots, snapshot_id);
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

    /// 0009_owner_host_id: the rows of an owner stored before are kept,
    /// without a host id until the next listing names them; a rename onto
    /// a gone repository's name then fits beside it.
    #[test]
    fn migration_0009_keeps_the_owners_rows() {
        use signals_core::owners::State;

        let conn = Connection::open_in_memory().unwrap();
        let mut store = Store {
            conn,
            path: PathBuf::from(":memory:"),
        };
        store.migrate_with(&MIGRATIONS[..8]).unwrap();
        store
            .conn
            .execute_batch(
                "INSERT INTO groups VALUES ('g', 'G');
                 INSERT INTO owners (group_id, host, owner, listings) VALUES ('g', 'github', 'org', 2);
                 INSERT INTO owner_repos VALUES
                    ('g', 'github', 'org', 'org/a', 'a', 'tracked',
                     '2026-01-01T00:00:00Z', '2026-01-01T00:00:00Z'),
                    ('g', 'github', 'org', 'org/b', 'b', 'gone',
                     '2026-01-02T00:00:00Z', '2026-01-01T00:00:00Z');",
            )
            .unwrap();
        store.migrate_with(MIGRATIONS).unwrap();
        assert_eq!(store.schema_version().unwrap(), 9);
        let rows = store.owner_repos("g").unwrap();
        let got: Vec<_> = rows
            .iter()
            .map(|r| {
                let k = &r.known;
                (
                    k.full_name.to_string(),
                    k.repo_id.as_str(),
                    k.state,
                    k.host_id,
                    k.tracked_as.clone(),
                )
            })
            .collect();
        assert_eq!(
            got,
            vec![
                ("org/a".to_string(), "a", State::Tracked, None, None),
                ("org/b".to_string(), "b", State::Gone, None, None),
            ]
        );
        assert_eq!(rows[1].known.first_seen.to_string(), "2026-01-01T00:00:00Z");
        // Two rows may now share a name: a renamed repository and a gone one.
        store
            .conn
            .execute(
                "UPDATE owner_repos SET full_name = 'org/b', host_id = 7, tracked_as = 'org/a'
                 WHERE repo_id = 'a'",
                [],
            )
            .unwrap();
        assert_eq!(store.owner_repos("g").unwrap().len(), 2);
        // A negative host id is refused by the schema, not read back.
        assert!(
            store
                .conn
                .execute(
                    "UPDATE owner_repos SET host_id = -1 WHERE repo_id = 'b'",
                    []
                )
                .is_err()
        );
    }
}
