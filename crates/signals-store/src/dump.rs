//! Every stored row as plain values, to copy a store from one backend to
//! another (`signals migrate`) and to verify the copy.
//!
//! Both backends have the same tables with the same columns (each schema
//! at its latest migration: SQLite's `0009_owner_host_id`, PostgreSQL's
//! `0008_owner_host_id`), so
//! a row is its table and its values in [`Table::columns`] order. Ids are
//! copied as they are: references between rows stay valid, and the copy's
//! documents are those of the original.

use std::path::Path;

use rusqlite::types::ValueRef;

use crate::Store;
use crate::error::{DbContext, Result, StoreError};

/// One column value.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Value {
    /// SQL NULL.
    Null,
    /// A 64-bit integer (ids, counters, flags as 0 or 1).
    Int(i64),
    /// UTF-8 text (timestamps as RFC 3339, JSON, names).
    Text(String),
    /// Bytes (SHA-256 hashes, cached response bodies).
    Blob(Vec<u8>),
}

/// The type of a column, for backends whose parameters are typed.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum ColumnType {
    /// 64-bit integer.
    Int,
    /// Text.
    Text,
    /// Bytes.
    Blob,
}

/// A table that [`Dump::dump`] copies.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Table {
    /// Configured groups.
    Groups,
    /// Tracked repositories.
    Repositories,
    /// Successful runs.
    Runs,
    /// Distinct texts (bodies, heads).
    Texts,
    /// Items ever seen.
    Items,
    /// Distinct snapshots.
    Snapshots,
    /// Observation events.
    Events,
    /// Failed attempts.
    Failures,
    /// Cached HTTP responses.
    HttpCache,
    /// Last rate limits seen.
    RateLimits,
    /// Alert messages (`crate::outbox`).
    Outbox,
    /// Owners whose repositories groups list (`crate::owners`).
    Owners,
    /// Repositories found through owners.
    OwnerRepos,
}

use ColumnType::{Blob, Int, Text};

impl Table {
    /// Every table, in an order that loads: each table after those it
    /// references (`items.latest` is a plain number, not a reference).
    pub const ALL: [Table; 13] = [
        Table::Groups,
        Table::Repositories,
        Table::Runs,
        Table::Texts,
        Table::Items,
        Table::Snapshots,
        Table::Events,
        Table::Failures,
        Table::HttpCache,
        Table::RateLimits,
        Table::Outbox,
        Table::Owners,
        Table::OwnerRepos,
    ];

    /// The table's SQL name.
    pub fn name(self) -> &'static str {
        match self {
            Table::Groups => "groups",
            Table::Repositories => "repositories",
            Table::Runs => "runs",
            Table::Texts => "texts",
            Table::Items => "items",
            Table::Snapshots => "snapshots",
            Table::Events => "events",
            Table::Failures => "failures",
            Table::HttpCache => "http_cache",
            Table::RateLimits => "rate_limits",
            Table::Outbox => "outbox",
            Table::Owners => "owners",
            Table::OwnerRepos => "owner_repos",
        }
    }

    /// The columns, in dump order, with their types.
    pub fn columns(self) -> &'static [(&'static str, ColumnType)] {
        match self {
            Table::Groups => &[("id", Text), ("name", Text)],
            Table::Repositories => &[
                ("key", Int),
                ("group_id", Text),
                ("repo_id", Text),
                ("source", Text),
                ("full_name", Text),
                ("display_name", Text),
                ("keywords", Text),
                ("host_name", Text),
                ("missing", Int),
                ("last_error", Text),
            ],
            Table::Runs => &[
                ("id", Int),
                ("repo", Int),
                ("collected_at", Text),
                ("since", Text),
                ("observed_count", Int),
                ("changed_count", Int),
                ("requests", Int),
                ("not_modified", Int),
                ("bytes_received", Int),
                ("retries", Int),
                ("context", Text),
                ("news", Text),
                ("reconciled", Int),
            ],
            Table::Texts => &[("id", Int), ("hash", Blob), ("text", Text)],
            Table::Items => &[
                ("id", Int),
                ("repo", Int),
                ("item_id", Text),
                ("kind", Text),
                ("item_key", Text),
                ("latest", Int),
            ],
            Table::Snapshots => &[
                ("id", Int),
                ("item", Int),
                ("run", Int),
                ("head", Int),
                ("body", Int),
                ("labels", Int),
                ("assignees", Int),
                ("detail", Int),
                ("updated_s", Int),
                ("updated_ns", Int),
                ("state", Int),
                ("reactions", Int),
                ("comments", Int),
                ("closed_s", Int),
                ("closed_ns", Int),
            ],
            Table::Events => &[
                ("run", Int),
                ("pos", Int),
                ("item", Int),
                ("kind", Int),
                ("fields", Int),
                ("snapshot", Int),
                ("detail", Text),
            ],
            Table::Failures => &[
                ("id", Int),
                ("repo", Int),
                ("at", Text),
                ("kind", Text),
                ("message", Text),
            ],
            Table::HttpCache => &[
                ("url", Text),
                ("token_fingerprint", Text),
                ("etag", Text),
                ("last_modified", Text),
                ("link_next", Text),
                ("body", Blob),
                ("stored_at", Text),
            ],
            Table::RateLimits => &[
                ("token_fingerprint", Text),
                ("rate_limit", Int),
                ("remaining", Int),
                ("reset_at", Text),
                ("seen_at", Text),
            ],
            Table::Outbox => &[
                ("id", Int),
                ("delivery", Text),
                ("rule", Text),
                ("repo", Int),
                ("run", Int),
                ("state", Text),
                ("created_ms", Int),
                ("next_ms", Int),
                ("claimed_ms", Int),
                ("attempts", Int),
                ("tried_ms", Int),
                ("last_error", Text),
                ("digest", Int),
                ("body", Text),
            ],
            Table::Owners => &[
                ("group_id", Text),
                ("host", Text),
                ("owner", Text),
                ("claimed_at", Text),
                ("listed_at", Text),
                ("listings", Int),
                ("last_requests", Int),
                ("last_not_modified", Int),
                ("requests", Int),
                ("not_modified", Int),
                ("bytes_received", Int),
                ("failed_at", Text),
                ("last_error", Text),
            ],
            Table::OwnerRepos => &[
                ("group_id", Text),
                ("host", Text),
                ("owner", Text),
                ("full_name", Text),
                ("repo_id", Text),
                ("state", Text),
                ("since", Text),
                ("first_seen", Text),
                ("host_id", Int),
                ("tracked_as", Text),
                ("renamed_at", Text),
            ],
        }
    }

    /// The columns that order the rows of a dump (the primary key).
    pub fn order_by(self) -> &'static str {
        match self {
            Table::Groups => "id",
            Table::Repositories => "key",
            Table::HttpCache => "url, token_fingerprint",
            Table::RateLimits => "token_fingerprint",
            // A message folded into a digest references it, and the digest
            // was made after it: digests (and unfolded messages) first.
            Table::Outbox => "digest IS NOT NULL, id",
            Table::Owners => "group_id, host, owner",
            Table::OwnerRepos => "group_id, host, owner, repo_id",
            Table::Events => "run, pos",
            _ => "id",
        }
    }

    /// `col1, col2, ...`.
    pub fn column_list(self) -> String {
        self.columns()
            .iter()
            .map(|(c, _)| *c)
            .collect::<Vec<_>>()
            .join(", ")
    }
}

/// One row of one table.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Record {
    /// The table.
    pub table: Table,
    /// The values, in [`Table::columns`] order.
    pub values: Vec<Value>,
}

/// The number of rows per table, in [`Table::ALL`] order.
pub type TableCounts = Vec<(&'static str, u64)>;

/// Every stored row as plain values, out of one store and into another
/// (`signals migrate`), and the counts that verify the copy.
pub trait Dump {
    /// Every stored row, table by table in [`Table::ALL`] order (a table's
    /// references come before it), rows in [`Table::order_by`] order.
    fn dump(&self, sink: &mut dyn FnMut(Record) -> Result<()>) -> Result<()>;

    /// Loads rows from [`Dump::dump`] into this store, which must be empty
    /// ([`StoreError::NotEmpty`]), keeping every id; all or nothing.
    fn load(&mut self, records: &mut dyn Iterator<Item = Result<Record>>) -> Result<()>;

    /// The number of rows of each table, in [`Table::ALL`] order.
    fn table_counts(&self) -> Result<TableCounts>;
}

impl Dump for Store {
    /// One table after the other, rows streamed in key order.
    fn dump(&self, sink: &mut dyn FnMut(Record) -> Result<()>) -> Result<()> {
        let path = self.path();
        let doing = "reading the store to copy it";
        for table in Table::ALL {
            let columns = table.columns();
            let mut stmt = self
                .conn
                .prepare(&format!(
                    "SELECT {} FROM {} ORDER BY {}",
                    table.column_list(),
                    table.name(),
                    table.order_by()
                ))
                .doing(path, doing)?;
            let mut rows = stmt.query([]).doing(path, doing)?;
            while let Some(row) = rows.next().doing(path, doing)? {
                let mut values = Vec::with_capacity(columns.len());
                for (i, (column, _)) in columns.iter().enumerate() {
                    let value = row.get_ref(i).doing(path, doing)?;
                    values.push(value_of(path, table, column, value)?);
                }
                sink(Record { table, values })?;
            }
        }
        Ok(())
    }

    /// In one transaction.
    fn load(&mut self, records: &mut dyn Iterator<Item = Result<Record>>) -> Result<()> {
        let path = self.path.clone();
        let doing = "loading a copied store";
        if self.table_counts()?.iter().any(|(_, n)| *n > 0) {
            return Err(StoreError::NotEmpty {
                store: path.display().to_string(),
            });
        }
        let tx = self
            .conn
            .transaction_with_behavior(rusqlite::TransactionBehavior::Immediate)
            .doing(&path, doing)?;
        for record in records {
            let record = record?;
            let table = record.table;
            let sql = format!(
                "INSERT INTO {} ({}) VALUES ({})",
                table.name(),
                table.column_list(),
                (1..=table.columns().len())
                    .map(|i| format!("?{i}"))
                    .collect::<Vec<_>>()
                    .join(", ")
            );
            let mut stmt = tx.prepare_cached(&sql).doing(&path, doing)?;
            let params: Vec<rusqlite::types::Value> = record
                .values
                .into_iter()
                .map(|v| match v {
                    Value::Null => rusqlite::types::Value::Null,
                    Value::Int(i) => rusqlite::types::Value::Integer(i),
                    Value::Text(t) => rusqlite::types::Value::Text(t),
                    Value::Blob(b) => rusqlite::types::Value::Blob(b),
                })
                .collect();
            stmt.execute(rusqlite::params_from_iter(params))
                .doing(&path, doing)?;
        }
        tx.commit().doing(&path, doing)
    }

    fn table_counts(&self) -> Result<TableCounts> {
        let mut out = Vec::new();
        for table in Table::ALL {
            let n: i64 = self
                .conn
                .query_row(&format!("SELECT count(*) FROM {}", table.name()), [], |r| {
                    r.get(0)
                })
                .doing(self.path(), "counting rows")?;
            out.push((table.name(), n.max(0) as u64));
        }
        Ok(out)
    }
}

fn value_of(path: &Path, table: Table, column: &str, value: ValueRef<'_>) -> Result<Value> {
    Ok(match value {
        ValueRef::Null => Value::Null,
        ValueRef::Integer(i) => Value::Int(i),
        ValueRef::Text(t) => {
            Value::Text(
                String::from_utf8(t.to_vec()).map_err(|_| StoreError::Corrupt {
                    path: path.to_path_buf(),
                    what: format!("{}.{column} is not UTF-8", table.name()),
                })?,
            )
        }
        ValueRef::Blob(b) => Value::Blob(b.to_vec()),
        ValueRef::Real(_) => {
            return Err(StoreError::Corrupt {
                path: path.to_path_buf(),
                what: format!("{}.{column} holds a floating-point number", table.name()),
            });
        }
    })
}
