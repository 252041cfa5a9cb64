//! The store's errors: one typed enum whose variants a caller can act on,
//! whichever backend failed.
//!
//! Every message says what failed, on which store, and what to do. The
//! public API does not expose a database binding's types: each backend
//! wraps its database's own error in the opaque [`DbError`].

use std::fmt;
use std::path::PathBuf;

use jiff::Timestamp;

use crate::RepoKey;

/// What can go wrong with the store.
#[derive(Debug, thiserror::Error)]
#[non_exhaustive]
pub enum StoreError {
    /// The folder that should hold the store file does not exist. The store
    /// does not create folders, so a typo in a path is not silently accepted.
    #[error(
        "cannot open the store {path}: the folder {dir} does not exist; \
         create it first, or choose another store path"
    )]
    MissingDirectory {
        /// The store file asked for.
        path: PathBuf,
        /// Its missing parent folder.
        dir: PathBuf,
    },

    /// The path names a folder, not a file.
    #[error(
        "cannot open the store {path}: it is a folder; give the path of the \
         store file, such as {}", path.join("signals.db").display()
    )]
    IsAFolder {
        /// The folder given.
        path: PathBuf,
    },

    /// The file exists but is not a SQLite database.
    #[error(
        "cannot open the store {path}: the file is not a SQLite database \
         (another kind of file, or a damaged store); choose another path, or \
         restore the store from a backup"
    )]
    NotADatabase {
        /// The file.
        path: PathBuf,
    },

    /// The file is a SQLite database, but not one this program wrote.
    #[error(
        "cannot open the store {path}: it is a SQLite database but not a \
         signals store; choose another path"
    )]
    NotAStore {
        /// The file.
        path: PathBuf,
    },

    /// The store was written by a newer version of this program.
    #[error(
        "cannot open the store {path}: it has schema version {found}, and \
         this signals knows versions up to {supported}; run a newer signals"
    )]
    TooNew {
        /// The file.
        path: PathBuf,
        /// The schema version found in the file.
        found: i64,
        /// The newest schema version this build knows.
        supported: i64,
    },

    /// Another process held the store longer than the busy timeout.
    #[error(
        "the store {path} is busy (another signals process is writing it) \
         while {doing}; wait for it to finish and try again"
    )]
    Busy {
        /// The file.
        path: PathBuf,
        /// What was being done.
        doing: &'static str,
    },

    /// A stored value cannot be read back: the file was damaged or edited
    /// by hand.
    #[error(
        "the store {path} holds unreadable data ({what}); restore it from a \
         backup, or remove the damaged rows"
    )]
    Corrupt {
        /// The file.
        path: PathBuf,
        /// Which value, and why it is unreadable.
        what: String,
    },

    /// The repository key is not in this store.
    #[error("repository key {key} is not in the store {path}; call ensure_repository first")]
    UnknownRepository {
        /// The file.
        path: PathBuf,
        /// The key asked for.
        key: RepoKey,
    },

    /// A run must come after the last stored run of its repository, so runs
    /// stay in collection order.
    #[error(
        "refusing the run of {repo} collected at {at}: the store {path} already \
         has a run of it at {last}; runs are recorded in collection order, so \
         check the system clock"
    )]
    RunOutOfOrder {
        /// The file.
        path: PathBuf,
        /// `<owner>/<name>` of the repository.
        repo: String,
        /// The refused run's instant.
        at: Timestamp,
        /// The last stored run's instant.
        last: Timestamp,
    },

    /// The run to commit contradicts itself; this is a bug in the caller.
    #[error("refusing the run of {repo} collected at {at}: {problem}")]
    InvalidRun {
        /// `<owner>/<name>` of the repository.
        repo: String,
        /// The run's instant.
        at: Timestamp,
        /// What is inconsistent.
        problem: String,
    },

    /// A URL given to the HTTP cache carries credentials, which must never
    /// be written to disk.
    #[error(
        "refusing to cache a response for a URL that carries credentials \
         (user info or an access_token parameter); send the token in a header"
    )]
    CredentialsInUrl,

    /// A number does not fit the store's 64-bit signed integers.
    #[error("{what} = {value} is too large to store (the limit is {})", i64::MAX)]
    OutOfRange {
        /// Which value.
        what: &'static str,
        /// The value.
        value: u64,
    },

    /// A store is loaded only when empty (`signals migrate` copies into a
    /// new store).
    #[error(
        "cannot copy into the store {store}: it already holds data; copy into \
         a new, empty database"
    )]
    NotEmpty {
        /// The store (file, or PostgreSQL address without password).
        store: String,
    },

    /// The database server cannot be reached or refused the connection.
    #[error(
        "cannot connect to the store {store}: {source}; check that the server \
         runs and accepts connections from here, the user and the database \
         name, and the password (PGPASSWORD or ~/.pgpass, never the \
         configuration file)"
    )]
    Connect {
        /// The PostgreSQL address, without password.
        store: String,
        /// The server's or the network's error.
        #[source]
        source: DbError,
    },

    /// The store address cannot be used as given.
    #[error("the store address {store} cannot be used: {problem}")]
    BadAddress {
        /// The address, without any password.
        store: String,
        /// What is wrong, and what to do.
        problem: String,
    },

    /// A worker's lease on a repository expired and another worker took
    /// it before this run was committed; the run was dropped.
    #[error(
        "the lease on {repo} in {store} expired before its run was committed, \
         and another worker took it; nothing of this run was written (make \
         the lease longer than a repository's collection takes)"
    )]
    LeaseLost {
        /// The store.
        store: String,
        /// `group/repo`.
        repo: String,
    },

    /// A run's stage is no longer the run's: another
    /// run of the same repository started its own since (two collectors
    /// of one store at once), or none was started. Nothing of the refused
    /// items was written.
    #[error(
        "the run of repository {repo} at {at} cannot stage its items in {store}: \
         {}; this run stops, and the next run collects the repository \
         (do not run two collectors of one SQLite store at once)",
        match by {
            Some(by) => format!("a run at {by} staged its own since"),
            None => "no stage was started for it".to_string(),
        }
    )]
    StageLost {
        /// The store.
        store: String,
        /// The repository's key.
        repo: RepoKey,
        /// The refused run's instant.
        at: Timestamp,
        /// The instant of the run whose stage it is now, if any.
        by: Option<Timestamp>,
    },

    /// The database aborted a transaction to break a deadlock or a
    /// serialization conflict between concurrent writers (PostgreSQL's
    /// 40P01 and 40001), and it was aborted again each time it was retried.
    #[error(
        "the store {store} aborted a transaction while {doing} to resolve a \
         conflict with another worker, {attempts} times in a row (the last: \
         {source}); nothing of it was written, and the next round tries again"
    )]
    Conflict {
        /// The store, without any password.
        store: String,
        /// What was being done.
        doing: &'static str,
        /// How many times it was tried.
        attempts: u32,
        /// The database's own error.
        #[source]
        source: DbError,
    },

    /// The disk that holds the store is full (SQLite's `SQLITE_FULL`,
    /// PostgreSQL's `53100 disk_full`): the statement or transaction was
    /// rolled back, so nothing of it was written and what was stored
    /// before is intact. It concerns every later write too, so a
    /// collection stops at once (exit code 7) instead of failing each
    /// repository the same way.
    #[error(
        "the store {path} ran out of disk space while {doing}: nothing of it was \
         written, and what was stored before is intact; free space on {disk} \
         and run again"
    )]
    DiskFull {
        /// The file (or the PostgreSQL address, without password).
        path: PathBuf,
        /// What was being done.
        doing: &'static str,
        /// Where space is missing: "the disk that holds /srv/signals" or
        /// "the database server's disk".
        disk: String,
    },

    /// Any other database failure (an I/O error, ...).
    #[error("the store {path} failed while {doing}")]
    Db {
        /// The file.
        path: PathBuf,
        /// What was being done.
        doing: &'static str,
        /// The database's own error.
        #[source]
        source: DbError,
    },
}

impl StoreError {
    /// True when the connection to a store server was lost or could not be
    /// made: the server restarted, the network failed. Nothing of the
    /// operation was kept, and the same operation may work once the
    /// connection is back; a worker waits for it instead of failing the
    /// repository.
    pub fn is_connection(&self) -> bool {
        matches!(self, StoreError::Connect { .. })
    }

    /// True when the disk that holds the store is full: nothing of the
    /// operation was kept, and every later write would fail the same way
    /// until space is freed.
    pub fn is_disk_full(&self) -> bool {
        matches!(self, StoreError::DiskFull { .. })
    }
}

/// The database's own error, kept opaque so the public API does not depend
/// on a database binding.
#[derive(Debug)]
pub struct DbError(Box<dyn std::error::Error + Send + Sync>);

impl DbError {
    /// Wraps a database binding's error (for backends in other crates).
    pub fn new(error: impl std::error::Error + Send + Sync + 'static) -> DbError {
        DbError(Box::new(error))
    }
}

impl fmt::Display for DbError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        self.0.fmt(f)
    }
}

impl std::error::Error for DbError {
    fn source(&self) -> Option<&(dyn std::error::Error + 'static)> {
        self.0.source()
    }
}

/// A result with a [`StoreError`].
pub type Result<T, E = StoreError> = std::result::Result<T, E>;
