//! Text search for `serve`'s `q` (issue 17): which texts may contain a
//! query, from the trigram index of migration 0004 (`texts_trigrams`, FTS5
//! over `texts`).
//!
//! The index answers with candidates, a superset of the texts that
//! contain the query case-insensitively; the caller checks each candidate
//! exactly (Rust's lower-casing, as the API always did), so answers do not
//! depend on the index. It narrows only queries it can: three characters
//! or more (a trigram), all ASCII (SQLite folds case by its own Unicode
//! tables, which may differ from Rust's outside ASCII). For any other
//! query the caller looks at every item.

use std::collections::HashSet;

use crate::error::DbContext;
use crate::{Result, Store};

/// Whether the trigram index can narrow a search for `q` (lower-cased).
pub fn searchable(q: &str) -> bool {
    q.len() >= 3 && q.is_ascii()
}

impl Store {
    /// The ids of the texts that may contain `q` (lower-cased),
    /// case-insensitively: a superset of those that do. `None` when the
    /// index cannot narrow the search ([`searchable`]).
    pub fn texts_matching(&self, q: &str) -> Result<Option<HashSet<i64>>> {
        if !searchable(q) {
            return Ok(None);
        }
        let doing = "searching the texts";
        // Every trigram of the query, each a quoted FTS5 string (quotes
        // doubled), all required: with `detail=none` the index knows which
        // texts hold a trigram, not where, so this is a superset of the
        // texts holding the query.
        let mut trigrams: Vec<&str> = (0..=q.len() - 3).map(|i| &q[i..i + 3]).collect();
        trigrams.sort_unstable();
        trigrams.dedup();
        let phrase = trigrams
            .iter()
            .map(|t| format!("\"{}\"", t.replace('"', "\"\"")))
            .collect::<Vec<_>>()
            .join(" AND ");
        let mut stmt = self
            .conn
            .prepare_cached("SELECT rowid FROM texts_trigrams WHERE texts_trigrams MATCH ?1")
            .doing(&self.path, doing)?;
        let rows = stmt
            .query_map([phrase], |r| r.get::<_, i64>(0))
            .doing(&self.path, doing)?;
        Ok(Some(
            rows.collect::<rusqlite::Result<HashSet<i64>>>()
                .doing(&self.path, doing)?,
        ))
    }
}
