//! SQLite's errors as the store's: each turned into the variant a caller
//! can act on ([`StoreError::NotADatabase`], [`StoreError::Busy`],
//! [`StoreError::Corrupt`], [`StoreError::DiskFull`], or [`StoreError::Db`] with SQLite's own error
//! inside), naming the file and what was being done.

use std::path::Path;

use rusqlite::ErrorCode;
use signals_store::{DbError, Result, StoreError};

/// Turns a SQLite error into the variant a caller can act on.
pub(crate) fn db_error(path: &Path, doing: &'static str, err: rusqlite::Error) -> StoreError {
    let path = path.to_path_buf();
    // The shared-memory index beside a WAL store could not grow: on a full
    // disk the one byte SQLite writes per new page fails (ENOSPC), which it
    // reports as this I/O error rather than SQLITE_FULL.
    let shm_full = err
        .sqlite_error()
        .is_some_and(|e| e.extended_code == rusqlite::ffi::SQLITE_IOERR_SHMSIZE);
    let code = if shm_full {
        Some(ErrorCode::DiskFull)
    } else {
        err.sqlite_error_code()
    };
    match code {
        Some(ErrorCode::NotADatabase) => StoreError::NotADatabase { path },
        Some(ErrorCode::DatabaseBusy | ErrorCode::DatabaseLocked) => {
            StoreError::Busy { path, doing }
        }
        Some(ErrorCode::DiskFull) => {
            let dir = match path.parent() {
                Some(d) if !d.as_os_str().is_empty() => d.to_path_buf(),
                _ => Path::new(".").to_path_buf(),
            };
            StoreError::DiskFull {
                disk: format!("the disk that holds {}", dir.display()),
                path,
                doing,
            }
        }
        Some(ErrorCode::DatabaseCorrupt) => StoreError::Corrupt {
            path,
            what: format!("SQLite reports corruption while {doing}: {err}"),
        },
        _ => StoreError::Db {
            path,
            doing,
            source: DbError::new(err),
        },
    }
}

/// Adds the store path and the action to a SQLite result.
pub(crate) trait DbContext<T> {
    /// Maps the error with [`db_error`].
    fn doing(self, path: &Path, doing: &'static str) -> Result<T>;
}

impl<T> DbContext<T> for std::result::Result<T, rusqlite::Error> {
    fn doing(self, path: &Path, doing: &'static str) -> Result<T> {
        self.map_err(|e| db_error(path, doing, e))
    }
}
