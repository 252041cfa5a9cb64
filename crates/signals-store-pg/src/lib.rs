//! The PostgreSQL store of Repo Signals: the store, the work queue and the
//! shared HTTP state of several workers on several machines.
//!
//! [`PgStore`] implements every role of [`signals_store::Backend`], each in
//! the module that holds its SQL, over the same schema shape as the SQLite
//! store (its own numbered migrations in `migrations/`), and the same store
//! suite runs against it (`tests/it/suite.rs`). On top, it
//! is the work queue ([`queue`]): workers lease due repositories with
//! `SELECT ... FOR UPDATE SKIP LOCKED`, and a run is committed together with
//! the release of its lease. And it shares what the HTTP clients of all
//! workers keep: the conditional-request cache, the rate limits, and a
//! per-token advisory lock that keeps requests on one token serial across
//! workers.
//!
//! The client is `postgres` (blocking, like the rest of the program),
//! without TLS: reach a remote server over a private network, a VPN or an
//! SSH tunnel (docs). This crate holds all of the PostgreSQL SQL.

#![deny(missing_docs)]

pub mod address;
mod comments;
mod compact;
mod dump;
mod http;
mod lifecycle;
mod outbox;
mod owners;
mod paged;
pub mod queue;
mod read;
mod references;
mod related;
mod run_rows;
mod schema;
mod search;
mod staging;
mod stream;
mod texts;
mod totals;
mod trends;
mod write;

use std::cell::RefCell;
use std::collections::HashMap;
use std::path::PathBuf;
use std::time::{Duration, Instant};

use postgres::fallible_iterator::FallibleIterator;
use postgres::types::ToSql;
use postgres::{Client, GenericClient, NoTls, Statement, Transaction};
use signals_store::{DbError, Result, StoreError};

use schema::MIGRATIONS;

pub use address::{Address, is_postgres};
pub use queue::{Lease, QueueStatus, WorkerStatus};

/// Which try of an operation [`PgStore::retrying`] runs: a retry after a
/// lost connection may find the first try's commit gone through.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) enum Attempt {
    /// The first try.
    First,
    /// A try after a conflict or a lost connection.
    Retry,
}

/// The advisory lock key that keeps a purge's deletion of texts apart from
/// run commits ("RSig" and 2): a commit holds it shared from the moment it
/// resolves its texts' ids until it commits, a purge holds it exclusive, so
/// a purge never deletes a text that a commit in flight is about to
/// reference (ARCHITECTURE.md, "Texts under concurrent commits").
pub(crate) const TEXTS_LOCK: i64 = 0x5253_6967_0000_0002;

/// How long one store operation waits for a lost server to come back
/// (reconnecting with backoff from 100 ms to 5 s) before its error stands.
/// A restart (`pg_ctl restart -m fast`) takes a few seconds.
pub const RECONNECT_WITHIN: Duration = Duration::from_secs(60);

/// How many times a transaction the server aborted to break a deadlock or a
/// serialization conflict is tried in all, with backoff (20 ms doubling to
/// 2 s, with jitter) between tries.
pub const CONFLICT_ATTEMPTS: u32 = 8;

/// How long the server keeps a session of ours idle inside a transaction
/// before it ends the session and rolls the transaction back. Our
/// transactions never wait on anything but the server (no request to a
/// host, no user input), so a transaction idle this long belongs to a
/// worker that stalled (SIGSTOP, a frozen VM) in the middle of a commit;
/// without this limit its row locks would hold up every other worker
/// (registering repositories, committing, purging) until it woke. When it
/// wakes, its connection is gone: it reconnects, and its commit is refused
/// because its lease has expired meanwhile.
pub const IDLE_IN_TRANSACTION: Duration = Duration::from_secs(30);

/// An open PostgreSQL store.
pub struct PgStore {
    client: RefCell<Client>,
    /// How to connect again when the connection is lost.
    config: postgres::Config,
    /// What the store did on its own that its user may want to log: a
    /// lost connection it restored, a conflict it retried.
    notices: RefCell<Vec<String>>,
    /// The address without password, for messages.
    shown: String,
    /// The lease the next commit or failure releases, when this process is
    /// a worker: (repository, worker id, lease length in seconds).
    lease: RefCell<Option<(i64, String, f64)>>,
    /// The session's prepared statements, by their text (see
    /// [`PgStore::prepared`]).
    statements: RefCell<HashMap<String, Statement>>,
    /// Whether the schema has `repo_totals` (0017), which the writes keep:
    /// false only for a store opened at an older schema, by tests of a
    /// migration (`totals.rs`).
    keeps_totals: bool,
}

/// Whether `e` says a prepared statement is gone (a pooler discarded
/// it) or no longer fits the schema (another process migrated it:
/// "cached plan must not change result type").
fn stale(e: &postgres::Error) -> bool {
    use postgres::error::SqlState;
    e.code() == Some(&SqlState::INVALID_SQL_STATEMENT_NAME)
        || (e.code() == Some(&SqlState::FEATURE_NOT_SUPPORTED)
            && e.as_db_error()
                .is_some_and(|d| d.message().contains("cached plan")))
}

/// The most statements kept prepared; past it the cache starts over (the
/// store's statements are a few dozen texts, so this only bounds a caller
/// that builds texts with values in them).
const MAX_STATEMENTS: usize = 512;

impl std::fmt::Debug for PgStore {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("PgStore")
            .field("address", &self.shown)
            .finish()
    }
}

impl PgStore {
    /// Connects to the store at `url` (`postgres://user@host:port/db`), with
    /// the password from `PGPASSWORD` or the password file, and brings its
    /// schema up to date. A database of another application is not
    /// touched: the schema is created only in an empty database or one
    /// this program made.
    pub fn open(url: &str) -> Result<PgStore> {
        let mut address = address::parse(url).map_err(|e| StoreError::BadAddress {
            store: e.shown,
            problem: e.problem,
        })?;
        address::password_from_environment(&mut address);
        PgStore::connect(&address)
    }

    /// Connects with a parsed, completed address. Every session of the
    /// store ends a transaction left idle for [`IDLE_IN_TRANSACTION`].
    pub fn connect(address: &Address) -> Result<PgStore> {
        PgStore::connect_at(address, MIGRATIONS.len())
    }

    /// Opens a store with only its first `migrations` applied: for tests of
    /// a migration, which need a store of the schema before it.
    #[doc(hidden)]
    pub fn open_before(url: &str, migrations: usize) -> Result<PgStore> {
        let address = address::parse(url).map_err(|e| StoreError::BadAddress {
            store: e.shown,
            problem: e.problem,
        })?;
        PgStore::connect_at(&address, migrations.min(MIGRATIONS.len()))
    }

    fn connect_at(address: &Address, migrations: usize) -> Result<PgStore> {
        let mut config = address.config.clone();
        // No JIT: the store's statements are short, and a status of
        // 2,000 repositories crossed the planner's JIT threshold only to
        // spend 130 ms compiling for a 150 ms query.
        let limit = format!(
            "-c idle_in_transaction_session_timeout={} -c jit=off",
            IDLE_IN_TRANSACTION.as_millis()
        );
        let options = match config.get_options() {
            Some(given) if !given.trim().is_empty() => format!("{given} {limit}"),
            _ => limit,
        };
        config.options(&options);
        let client = config.connect(NoTls).map_err(|e| StoreError::Connect {
            store: address.shown.clone(),
            source: DbError::new(e),
        })?;
        let mut store = PgStore {
            client: RefCell::new(client),
            config,
            notices: RefCell::new(Vec::new()),
            statements: RefCell::new(HashMap::new()),
            shown: address.shown.clone(),
            lease: RefCell::new(None),
            keeps_totals: false,
        };
        let version = store.migrate(&MIGRATIONS[..migrations])?;
        store.keeps_totals = version >= totals::SINCE_VERSION;
        Ok(store)
    }

    /// The address without password.
    pub fn address(&self) -> &str {
        &self.shown
    }

    fn path(&self) -> PathBuf {
        PathBuf::from(&self.shown)
    }

    /// Maps a database error to the store's error, naming what was done: a
    /// lost connection is [`StoreError::Connect`], a deadlock or
    /// serialization failure [`StoreError::Conflict`] (both retried by
    /// [`PgStore::retrying`]), anything else [`StoreError::Db`].
    pub(crate) fn err(&self, doing: &'static str) -> impl Fn(postgres::Error) -> StoreError + '_ {
        move |e| match classify(&e) {
            // A prepared statement the server no longer knows, or that no
            // longer fits the schema, aborted its transaction: the
            // session's statements are prepared anew when it is retried.
            Class::Stale => {
                self.statements.borrow_mut().clear();
                StoreError::Conflict {
                    store: self.shown.clone(),
                    doing,
                    attempts: 1,
                    source: DbError::new(e),
                }
            }
            Class::Connection => StoreError::Connect {
                store: self.shown.clone(),
                source: DbError::new(e),
            },
            Class::Conflict => StoreError::Conflict {
                store: self.shown.clone(),
                doing,
                attempts: 1,
                source: DbError::new(e),
            },
            Class::DiskFull => StoreError::DiskFull {
                path: self.path(),
                doing,
                disk: "the database server's disk (PostgreSQL's data folder)".to_string(),
            },
            Class::Other => StoreError::Db {
                path: self.path(),
                doing,
                source: DbError::new(e),
            },
        }
    }

    /// Runs `op` on the connection, and again while it fails in a way that
    /// is not its own: a conflict the server broke by aborting it (up to
    /// [`CONFLICT_ATTEMPTS`] tries, with backoff), or a lost connection
    /// (reconnecting for up to [`RECONNECT_WITHIN`]). `op` learns whether
    /// it is a retry, so an operation whose commit may have gone through
    /// before the connection broke can check for that first. `op` must be
    /// all or nothing: a transaction, or one statement.
    pub(crate) fn retrying<T>(
        &self,
        mut op: impl FnMut(&mut Client, Attempt) -> Result<T>,
    ) -> Result<T> {
        let mut conflicts = 0;
        let mut deadline = None;
        let mut attempt = Attempt::First;
        loop {
            let result = op(&mut self.client.borrow_mut(), attempt);
            match result {
                Err(StoreError::Conflict {
                    store,
                    doing,
                    source,
                    ..
                }) => {
                    conflicts += 1;
                    if conflicts >= CONFLICT_ATTEMPTS {
                        return Err(StoreError::Conflict {
                            store,
                            doing,
                            attempts: conflicts,
                            source,
                        });
                    }
                    self.notice(format!(
                        "the store aborted a transaction while {doing} to resolve a conflict \
                         with another worker ({source}); trying again"
                    ));
                    std::thread::sleep(conflict_backoff(conflicts));
                }
                Err(e) if e.is_connection() => {
                    let deadline =
                        *deadline.get_or_insert_with(|| Instant::now() + RECONNECT_WITHIN);
                    if self.reconnect_until(deadline, &e).is_err() {
                        return Err(e);
                    }
                }
                other => return other,
            }
            attempt = Attempt::Retry;
        }
    }

    /// Connects again, trying with backoff (100 ms doubling to 5 s) until
    /// `deadline`; the error of the last try when it passes. A success is
    /// noted once, with what was lost and how long it took.
    fn reconnect_until(&self, deadline: Instant, cause: &StoreError) -> Result<()> {
        let started = Instant::now();
        let mut wait = Duration::from_millis(100);
        loop {
            match self.config.connect(NoTls) {
                Ok(client) => {
                    *self.client.borrow_mut() = client;
                    // Prepared statements die with their session.
                    self.statements.borrow_mut().clear();
                    let why = std::error::Error::source(cause)
                        .map(|s| s.to_string())
                        .unwrap_or_else(|| cause.to_string());
                    self.notice(format!(
                        "the connection to the store {} was lost ({why}); reconnected after {:.1} s",
                        self.shown,
                        started.elapsed().as_secs_f64()
                    ));
                    return Ok(());
                }
                Err(e) => {
                    let now = Instant::now();
                    if now >= deadline {
                        return Err(StoreError::Connect {
                            store: self.shown.clone(),
                            source: DbError::new(e),
                        });
                    }
                    std::thread::sleep(wait.min(deadline - now));
                    wait = (wait * 2).min(Duration::from_secs(5));
                }
            }
        }
    }

    /// Waits for the server: connects again with backoff for up to
    /// `within`. A worker calls it when an operation's own wait
    /// ([`RECONNECT_WITHIN`]) was not enough.
    pub fn reconnect(&self, within: Duration) -> Result<()> {
        let cause = StoreError::Connect {
            store: self.shown.clone(),
            source: DbError::new(std::io::Error::other("the connection was lost")),
        };
        self.reconnect_until(Instant::now() + within, &cause)
    }

    pub(crate) fn notice(&self, text: String) {
        self.notices.borrow_mut().push(text);
    }

    /// What the store did on its own since the last call (a connection it
    /// restored, a conflict it retried), one line each, for the worker's
    /// log.
    pub fn take_notices(&self) -> Vec<String> {
        std::mem::take(&mut *self.notices.borrow_mut())
    }

    pub(crate) fn corrupt(&self, what: String) -> StoreError {
        StoreError::Corrupt {
            path: self.path(),
            what,
        }
    }

    /// `sql` prepared once per session and kept: a read then costs one
    /// round trip instead of two, and after a few executions the server
    /// reuses a generic plan instead of planning again (planning the
    /// snapshot and reference reads took 2 to 6 ms of each API request).
    /// A statement the server no longer knows or that no longer fits the
    /// schema ([`stale`]) is prepared again by [`PgStore::fresh`].
    fn prepared<C: GenericClient>(
        &self,
        client: &mut C,
        sql: &str,
    ) -> std::result::Result<Statement, postgres::Error> {
        if let Some(statement) = self.statements.borrow().get(sql) {
            return Ok(statement.clone());
        }
        let statement = client.prepare(sql)?;
        let mut statements = self.statements.borrow_mut();
        if statements.len() >= MAX_STATEMENTS {
            statements.clear();
        }
        statements.insert(sql.to_string(), statement.clone());
        Ok(statement)
    }

    /// `sql` prepared once per session, for a statement of a
    /// transaction: the statements a run's commit makes per item, event
    /// and reference then cost one round trip each and, after a few
    /// executions, no planning (parsing and planning them was more of the
    /// server's time than executing them). A statement gone
    /// stale aborts its transaction; [`PgStore::err`] then forgets the
    /// session's statements and calls it a conflict, so
    /// [`PgStore::retrying`] runs the transaction again, prepared anew.
    pub(crate) fn prep(
        &self,
        tx: &mut Transaction<'_>,
        sql: &str,
    ) -> std::result::Result<Statement, postgres::Error> {
        self.prepared(tx, sql)
    }

    /// Runs `run` with `sql` prepared; when the server says the prepared
    /// statement does not exist, forgets the session's statements and runs
    /// it once more, prepared anew.
    fn fresh<T>(
        &self,
        client: &mut Client,
        sql: &str,
        mut run: impl FnMut(&mut Client, &Statement) -> std::result::Result<T, postgres::Error>,
    ) -> std::result::Result<T, postgres::Error> {
        let statement = self.prepared(client, sql)?;
        match run(client, &statement) {
            Err(e) if stale(&e) => {
                self.statements.borrow_mut().clear();
                let statement = self.prepared(client, sql)?;
                run(client, &statement)
            }
            other => other,
        }
    }

    /// Rows of a query, streamed to `each`.
    pub(crate) fn each_row(
        &self,
        doing: &'static str,
        sql: &str,
        params: &[&(dyn ToSql + Sync)],
        mut each: impl FnMut(&postgres::Row) -> Result<()>,
    ) -> Result<()> {
        let mut client = self.client.borrow_mut();
        let statement = self.prepared(&mut *client, sql).map_err(self.err(doing))?;
        let mut rows = client
            .query_raw(&statement, params.iter().copied())
            .map_err(|e| {
                // Prepared anew at the next call.
                if stale(&e) {
                    self.statements.borrow_mut().clear();
                }
                self.err(doing)(e)
            })?;
        while let Some(row) = rows.next().map_err(self.err(doing))? {
            each(&row)?;
        }
        Ok(())
    }

    pub(crate) fn query(
        &self,
        doing: &'static str,
        sql: &str,
        params: &[&(dyn ToSql + Sync)],
    ) -> Result<Vec<postgres::Row>> {
        self.retrying(|client, _| {
            self.fresh(client, sql, |c, s| c.query(s, params))
                .map_err(self.err(doing))
        })
    }

    pub(crate) fn query_opt(
        &self,
        doing: &'static str,
        sql: &str,
        params: &[&(dyn ToSql + Sync)],
    ) -> Result<Option<postgres::Row>> {
        self.retrying(|client, _| {
            self.fresh(client, sql, |c, s| c.query_opt(s, params))
                .map_err(self.err(doing))
        })
    }

    pub(crate) fn execute(
        &self,
        doing: &'static str,
        sql: &str,
        params: &[&(dyn ToSql + Sync)],
    ) -> Result<u64> {
        self.retrying(|client, _| {
            self.fresh(client, sql, |c, s| c.execute(s, params))
                .map_err(self.err(doing))
        })
    }
}

/// How a database error is handled.
enum Class {
    /// The connection is gone or the server is going away or not yet up:
    /// connect again and retry.
    Connection,
    /// The server aborted the transaction to break a deadlock (40P01) or a
    /// serialization conflict (40001): retry it.
    Conflict,
    /// A prepared statement gone stale ([`stale`]): the transaction is
    /// retried with the session's statements prepared anew.
    Stale,
    /// The server's disk is full (53100 `disk_full`): the transaction was
    /// rolled back; not retried here, since only freeing space helps (a
    /// looping worker tries again after its pause).
    DiskFull,
    /// The operation's own failure.
    Other,
}

fn classify(e: &postgres::Error) -> Class {
    if e.is_closed() {
        return Class::Connection;
    }
    if stale(e) {
        return Class::Stale;
    }
    match e.code().map(|c| c.code()) {
        Some("40P01" | "40001") => Class::Conflict,
        Some("53100") => Class::DiskFull,
        // Class 08 is "connection exception"; 57P01..57P03 are the server
        // shutting down (admin, crash) or not accepting connections yet;
        // 25P03 and 57P05 the server ending a session left idle (inside a
        // transaction: [`IDLE_IN_TRANSACTION`]), as after a stall.
        Some(code)
            if code.starts_with("08")
                || matches!(code, "57P01" | "57P02" | "57P03" | "57P05" | "25P03") =>
        {
            Class::Connection
        }
        Some(_) => Class::Other,
        // No SQL state: the socket failed under the client.
        None if std::error::Error::source(e).is_some_and(|s| s.is::<std::io::Error>()) => {
            Class::Connection
        }
        None => Class::Other,
    }
}

/// The pause before the `n`th retry of a conflict: 20 ms doubling, at most
/// 2 s, with full jitter so two workers that collided do not collide again.
fn conflict_backoff(n: u32) -> Duration {
    let cap = Duration::from_millis(20 * (1u64 << n.min(7))).min(Duration::from_secs(2));
    cap.mul_f64(0.5 + fastrand::f64() / 2.0)
}

/// A stable advisory-lock key for a string (a token fingerprint): the first
/// eight bytes of its SHA-256 would need a hash crate; FNV-1a is enough, a
/// collision only makes two tokens wait for each other.
pub(crate) fn lock_key(text: &str) -> i64 {
    let mut hash: u64 = 0xcbf2_9ce4_8422_2325;
    for b in text.bytes() {
        hash ^= u64::from(b);
        hash = hash.wrapping_mul(0x0100_0000_01b3);
    }
    hash as i64
}
