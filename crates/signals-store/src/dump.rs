//! Every stored row as plain values, to copy a store from one backend to
//! another (`signals migrate`) and to verify the copy: the role
//! ([`Dump`]) and the tables both schemas share.
//!
//! Both backends have the same tables with the same columns (each schema
//! at its latest migration: SQLite's `0012_references`, PostgreSQL's
//! `0011_references`), so a row is its table and its values in
//! [`Table::columns`] order. Ids are copied as they are: references
//! between rows stay valid, and the copy's documents are those of the
//! original.

use crate::Result;

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
    /// Items' own reference keys (`crate::references`).
    ItemKeys,
    /// What items' texts name.
    ItemRefs,
    /// Runs that changed a repository's links.
    ReferenceMarks,
    /// Comments and reviews (`crate::comments`).
    Comments,
    /// Lifecycle judgements (`crate::lifecycle`).
    Lifecycle,
    /// Release assets' download counts (`crate::RunCommit::downloads`).
    AssetDownloads,
    /// Who merged which pull request (`crate::lifecycle`).
    Merges,
}

use ColumnType::{Blob, Int, Text};

impl Table {
    /// Every table, in an order that loads: each table after those it
    /// references (`items.latest` is a plain number, not a reference).
    pub const ALL: [Table; 20] = [
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
        Table::ItemKeys,
        Table::ItemRefs,
        Table::ReferenceMarks,
        Table::Comments,
        Table::Lifecycle,
        Table::AssetDownloads,
        Table::Merges,
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
            Table::ItemKeys => "item_keys",
            Table::ItemRefs => "item_refs",
            Table::ReferenceMarks => "reference_marks",
            Table::Comments => "comments",
            Table::Lifecycle => "lifecycle",
            Table::AssetDownloads => "asset_downloads",
            Table::Merges => "merges",
        }
    }

    /// The columns, in dump order, with their types.
    pub fn columns(self) -> &'static [Column] {
        match self {
            Table::Groups => GROUPS,
            Table::Repositories => REPOSITORIES,
            Table::Runs => RUNS,
            Table::Texts => TEXTS,
            Table::Items => ITEMS,
            Table::Snapshots => SNAPSHOTS,
            Table::Events => EVENTS,
            Table::Failures => FAILURES,
            Table::HttpCache => HTTP_CACHE,
            Table::RateLimits => RATE_LIMITS,
            Table::Outbox => OUTBOX,
            Table::Owners => OWNERS,
            Table::OwnerRepos => OWNER_REPOS,
            Table::ItemKeys => ITEM_KEYS,
            Table::ItemRefs => ITEM_REFS,
            Table::ReferenceMarks => REFERENCE_MARKS,
            Table::Comments => COMMENTS,
            Table::Lifecycle => LIFECYCLE,
            Table::AssetDownloads => ASSET_DOWNLOADS,
            Table::Merges => MERGES,
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
            Table::ItemKeys => "item",
            Table::ItemRefs => "item, via, target",
            Table::ReferenceMarks => "repo, run",
            Table::Comments => "repo, kind, host_id",
            Table::Lifecycle => "run",
            Table::AssetDownloads => "repo, asset, run",
            Table::Merges => "repo, item_key",
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

/// A column: its name and type.
pub type Column = (&'static str, ColumnType);

/// The columns of each table, in dump order (each backend's schema at its
/// latest migration has them all).
const GROUPS: &[Column] = &[("id", Text), ("name", Text)];
const REPOSITORIES: &[Column] = &[
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
    ("open_pulls", Int),
    ("open_pulls_differed", Text),
];
const RUNS: &[Column] = &[
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
];
const TEXTS: &[Column] = &[("id", Int), ("hash", Blob), ("text", Text)];
const ITEMS: &[Column] = &[
    ("id", Int),
    ("repo", Int),
    ("item_id", Text),
    ("kind", Text),
    ("item_key", Text),
    ("latest", Int),
];
const SNAPSHOTS: &[Column] = &[
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
];
const EVENTS: &[Column] = &[
    ("run", Int),
    ("pos", Int),
    ("item", Int),
    ("kind", Int),
    ("fields", Int),
    ("snapshot", Int),
    ("detail", Text),
];
const FAILURES: &[Column] = &[
    ("id", Int),
    ("repo", Int),
    ("at", Text),
    ("kind", Text),
    ("message", Text),
];
const HTTP_CACHE: &[Column] = &[
    ("url", Text),
    ("token_fingerprint", Text),
    ("etag", Text),
    ("last_modified", Text),
    ("link_next", Text),
    ("body", Blob),
    ("stored_at", Text),
];
const RATE_LIMITS: &[Column] = &[
    ("token_fingerprint", Text),
    ("rate_limit", Int),
    ("remaining", Int),
    ("reset_at", Text),
    ("seen_at", Text),
];
const OUTBOX: &[Column] = &[
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
];
const OWNERS: &[Column] = &[
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
];
const OWNER_REPOS: &[Column] = &[
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
];
const COMMENTS: &[Column] = &[
    ("repo", Int),
    ("kind", Int),
    ("host_id", Text),
    ("item", Text),
    ("author", Text),
    ("association", Text),
    ("bot", Int),
    ("state", Text),
    ("created_s", Int),
    ("updated_s", Int),
    ("body", Int),
];

const LIFECYCLE: &[Column] = &[
    ("run", Int),
    ("repo", Int),
    ("state", Text),
    ("record", Text),
];

const ITEM_KEYS: &[Column] = &[("item", Int), ("key", Text)];
const ASSET_DOWNLOADS: &[Column] = &[("repo", Int), ("asset", Text), ("run", Int), ("count", Int)];
const MERGES: &[Column] = &[
    ("repo", Int),
    ("item_key", Text),
    ("merged_by", Text),
    ("bot", Int),
    ("merged_s", Int),
];
const ITEM_REFS: &[Column] = &[
    ("item", Int),
    ("via", Text),
    ("target", Text),
    ("repo", Int),
];
const REFERENCE_MARKS: &[Column] = &[("repo", Int), ("run", Int)];

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
    /// ([`crate::StoreError::NotEmpty`]), keeping every id; all or nothing.
    fn load(&mut self, records: &mut dyn Iterator<Item = Result<Record>>) -> Result<()>;

    /// The number of rows of each table, in [`Table::ALL`] order.
    fn table_counts(&self) -> Result<TableCounts>;
}
