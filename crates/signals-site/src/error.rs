//! Why the site could not be rendered or written: one error type for the
//! whole crate, whose variants a caller can act on (fix an id, free some
//! space, report a bug).

use std::path::PathBuf;

use crate::paths::NotSlug;

/// Why the site could not be rendered or written.
#[derive(Debug, thiserror::Error)]
pub enum SiteError {
    /// A file or folder could not be created, written, renamed or removed.
    #[error("could not {action} {}: {source}; {}", path.display(), io_hint(source))]
    Io {
        /// What was being done: "create folder", "write", "rename into place", ...
        action: &'static str,
        /// The path concerned.
        path: PathBuf,
        /// The cause.
        #[source]
        source: std::io::Error,
    },
    /// A group or repository id is not a slug, so it cannot name a folder.
    #[error(
        "{what} id {id:?} is not a slug (lowercase letters, digits and single dashes); fix it in the configuration"
    )]
    BadId {
        /// `group` or `repository`.
        what: &'static str,
        /// The id.
        id: String,
    },
    /// Two repositories would be written to the same folder.
    #[error("repository {0} is given twice; each group/repository pair must be unique")]
    DuplicateRepository(String),
    /// A signal of the document has no score.
    #[error(
        "signal {signal_id} of {repository} has no importance score; score every signal of the document before rendering"
    )]
    MissingScore {
        /// `<group>/<repo>`.
        repository: String,
        /// The signal id.
        signal_id: String,
    },
    /// A template failed to render; a bug in this crate.
    #[error("template {name} failed to render: {source:#}")]
    Template {
        /// The template's name.
        name: &'static str,
        /// The cause.
        #[source]
        source: minijinja::Error,
    },
    /// The repository's data could not be read (the store failed under a
    /// streamed export).
    #[error("could not read the data of the repository being exported: {0}")]
    Source(Box<dyn std::error::Error + Send + Sync>),
    /// A column of a filter index could not be kept in, or read back
    /// from, its unnamed temporary file.
    #[error(
        "could not keep the filter index of {repository} in a temporary file under {}: {source}; check that there is space there, or set TMPDIR to a folder that has it",
        dir.display()
    )]
    Spill {
        /// `<group>/<repo>`.
        repository: String,
        /// The folder of temporary files.
        dir: PathBuf,
        /// The cause.
        #[source]
        source: std::io::Error,
    },
    /// The dataset document could not be serialized.
    #[error(
        "could not serialize the dataset of {repository}: {source}{}",
        json_hint(source)
    )]
    Json {
        /// `<group>/<repo>`.
        repository: String,
        /// The cause.
        #[source]
        source: serde_json::Error,
    },
}

/// What to do about a failed write: free space when the disk is full,
/// else check the permissions.
fn io_hint(e: &std::io::Error) -> &'static str {
    let full = matches!(
        e.kind(),
        std::io::ErrorKind::StorageFull | std::io::ErrorKind::QuotaExceeded
    );
    if full {
        "the disk is full: free space on it and export again (the site served is left as it was)"
    } else {
        "check that the output folder is writable"
    }
}

/// What to do when a document could not be written out as JSON: only a
/// full disk is the user's to fix.
fn json_hint(e: &serde_json::Error) -> &'static str {
    match e.io_error_kind() {
        Some(std::io::ErrorKind::StorageFull | std::io::ErrorKind::QuotaExceeded) => {
            "; the disk is full: free space on it and export again (the site served is left as it was)"
        }
        _ => "",
    }
}

impl From<NotSlug> for SiteError {
    fn from(e: NotSlug) -> SiteError {
        SiteError::BadId {
            what: e.what,
            id: e.id,
        }
    }
}
