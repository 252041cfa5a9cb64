//! How an item snapshot is laid out in the store, and the migration that
//! moved old stores to that layout (0002).
//!
//! A snapshot is split in three: the body (the item's text, often large,
//! rarely changed), the head (repository, title, URL, author, creation time:
//! small, rarely changed) and the rest (updated time, state, counts, labels,
//! assignees, kind-specific detail: small, often changed). Body and head are
//! stored once per distinct value in `texts`, addressed by their SHA-256;
//! the rest are columns of the snapshot row. So a run in which an item only
//! gained a reaction adds one row of about a hundred bytes, whatever the
//! size of the item's text.
//!
//! [`Parts::split`] and [`Parts::join`] are exact inverses: a snapshot read
//! back equals the one written, field for field.

use std::path::Path;

use jiff::Timestamp;
use rusqlite::{OptionalExtension, Transaction, params};
use serde::{Deserialize, Serialize};
use sha2::{Digest, Sha256};
use signals_core::{ItemDetail, ItemSnapshot, ItemState, Metrics, RepoName};

use crate::codec::{from_json, int, to_json, ts_parse, ts_text, uint};
use crate::error::{DbContext, Result, StoreError};

/// The fields of a snapshot that rarely change, stored as one JSON text.
#[derive(Debug, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
struct Head {
    repo: RepoName,
    title: String,
    url: String,
    author: String,
    created_at: Timestamp,
}

/// A snapshot as columns: what [`SNAPSHOT_COLUMNS`] reads and the insert
/// writes, in both backends. Two snapshots are the same exactly when their
/// parts are equal. Fields: the head JSON text, the body text, then the
/// `snapshots` columns.
#[allow(missing_docs)]
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Parts {
    pub head: String,
    pub body: String,
    pub updated_at: String,
    pub state: String,
    pub reactions: i64,
    pub comments: i64,
    pub labels: String,
    pub assignees: String,
    pub detail: String,
    /// RFC 3339, `None` where the host gave none (migration 0003).
    pub closed_at: Option<String>,
}

/// The columns of a snapshot row joined with its head and body texts, in
/// the order [`Parts::from_row`] reads them; `s`, `h` and `b` are the
/// aliases of `snapshots` and the two `texts`.
pub(crate) const SNAPSHOT_COLUMNS: &str = "h.text, b.text, s.updated_at, s.state, s.reactions, \
     s.comments, s.labels, s.assignees, s.detail, s.closed_at";

/// The joins that go with [`SNAPSHOT_COLUMNS`].
pub(crate) const SNAPSHOT_JOINS: &str =
    "JOIN texts h ON h.id = s.head JOIN texts b ON b.id = s.body";

/// The raw row of [`SNAPSHOT_COLUMNS`] (the fields of [`Parts`] in order),
/// decoded outside the row callback.
pub type RawParts = (
    String,
    String,
    String,
    String,
    i64,
    i64,
    String,
    String,
    String,
    Option<String>,
);

/// Reads [`SNAPSHOT_COLUMNS`] starting at column `at`.
pub(crate) fn raw_parts(r: &rusqlite::Row<'_>, at: usize) -> rusqlite::Result<RawParts> {
    Ok((
        r.get(at)?,
        r.get(at + 1)?,
        r.get(at + 2)?,
        r.get(at + 3)?,
        r.get(at + 4)?,
        r.get(at + 5)?,
        r.get(at + 6)?,
        r.get(at + 7)?,
        r.get(at + 8)?,
        r.get(at + 9)?,
    ))
}

impl Parts {
    /// The parts as the tuple [`Parts::join`] takes.
    pub fn into_raw(self) -> RawParts {
        (
            self.head,
            self.body,
            self.updated_at,
            self.state,
            self.reactions,
            self.comments,
            self.labels,
            self.assignees,
            self.detail,
            self.closed_at,
        )
    }

    /// The SHA-256 of a text, its address in `texts`.
    pub fn hash(text: &str) -> [u8; 32] {
        Sha256::digest(text.as_bytes()).into()
    }

    /// The columns of a snapshot.
    pub fn split(path: &Path, s: &ItemSnapshot) -> Result<Parts> {
        let head = Head {
            repo: s.repo.clone(),
            title: s.title.clone(),
            url: s.url.clone(),
            author: s.author.clone(),
            created_at: s.created_at,
        };
        Ok(Parts {
            head: to_json(path, "item head", &head)?,
            body: s.text.clone(),
            updated_at: ts_text(s.updated_at),
            state: s.state.as_str().to_string(),
            reactions: int("reactions", s.metrics.reactions)?,
            comments: int("comments", s.metrics.comments)?,
            labels: to_json(path, "item labels", &s.labels)?,
            assignees: to_json(path, "item assignees", &s.assignees)?,
            detail: to_json(path, "item detail", &s.detail)?,
            closed_at: s.closed_at.map(ts_text),
        })
    }

    /// The snapshot of item `key` from its stored columns.
    pub fn join(path: &Path, key: &str, raw: RawParts) -> Result<ItemSnapshot> {
        let (
            head,
            body,
            updated_at,
            state,
            reactions,
            comments,
            labels,
            assignees,
            detail,
            closed_at,
        ) = raw;
        let head: Head = from_json(path, "texts.text (item head)", &head)?;
        let state = match state.as_str() {
            "open" => ItemState::Open,
            "closed" => ItemState::Closed,
            other => {
                return Err(StoreError::Corrupt {
                    path: path.to_path_buf(),
                    what: format!("snapshots.state {other:?} is not open or closed"),
                });
            }
        };
        let detail: ItemDetail = from_json(path, "snapshots.detail", &detail)?;
        Ok(ItemSnapshot {
            repo: head.repo,
            key: key.to_string(),
            title: head.title,
            text: body,
            url: head.url,
            created_at: head.created_at,
            updated_at: ts_parse(path, "snapshots.updated_at", &updated_at)?,
            metrics: Metrics {
                reactions: uint(path, "snapshots.reactions", reactions)?,
                comments: uint(path, "snapshots.comments", comments)?,
            },
            labels: from_json(path, "snapshots.labels", &labels)?,
            author: head.author,
            state,
            closed_at: closed_at
                .map(|t| ts_parse(path, "snapshots.closed_at", &t))
                .transpose()?,
            assignees: from_json(path, "snapshots.assignees", &assignees)?,
            detail,
        })
    }
}

/// The title and URL of an item from its head text.
pub fn head_title_url(path: &Path, head: &str) -> Result<(String, String)> {
    let head: Head = from_json(path, "texts.text (item head)", head)?;
    Ok((head.title, head.url))
}

/// The id of `text` in `texts`, adding it when it is new.
pub(crate) fn text_id(tx: &Transaction<'_>, path: &Path, text: &str) -> Result<i64> {
    let doing = "storing a text";
    let hash = Parts::hash(text);
    let found: Option<i64> = tx
        .prepare_cached("SELECT id FROM texts WHERE hash = ?1")
        .doing(path, doing)?
        .query_row([&hash[..]], |r| r.get(0))
        .optional()
        .doing(path, doing)?;
    if let Some(id) = found {
        return Ok(id);
    }
    tx.prepare_cached("INSERT INTO texts (hash, text) VALUES (?1, ?2)")
        .doing(path, doing)?
        .execute(params![&hash[..], text])
        .doing(path, doing)?;
    Ok(tx.last_insert_rowid())
}

/// An item's row in `items`: its id and the id of its newest snapshot.
pub(crate) fn item_row(
    tx: &Transaction<'_>,
    path: &Path,
    repo: i64,
    item_id: &str,
) -> Result<Option<(i64, i64)>> {
    let doing = "looking up an item";
    tx.prepare_cached("SELECT id, latest FROM items WHERE repo = ?1 AND item_id = ?2")
        .doing(path, doing)?
        .query_row(params![repo, item_id], |r| Ok((r.get(0)?, r.get(1)?)))
        .optional()
        .doing(path, doing)
}

/// The stored columns of snapshot `id`.
pub(crate) fn parts_of(tx: &Transaction<'_>, path: &Path, id: i64) -> Result<Parts> {
    let doing = "reading an item's latest snapshot";
    let raw = tx
        .prepare_cached(&format!(
            "SELECT {SNAPSHOT_COLUMNS} FROM snapshots s {SNAPSHOT_JOINS} WHERE s.id = ?1"
        ))
        .doing(path, doing)?
        .query_row([id], |r| raw_parts(r, 0))
        .doing(path, doing)?;
    let (head, body, updated_at, state, reactions, comments, labels, assignees, detail, closed_at) =
        raw;
    Ok(Parts {
        head,
        body,
        updated_at,
        state,
        reactions,
        comments,
        labels,
        assignees,
        detail,
        closed_at,
    })
}

/// Stores one snapshot of an item seen by run `run`, unless it equals the
/// item's newest stored one.
pub(crate) fn store_snapshot(
    tx: &Transaction<'_>,
    path: &Path,
    repo: i64,
    item_id: &str,
    snapshot: &ItemSnapshot,
    run: i64,
) -> Result<()> {
    let parts = Parts::split(path, snapshot)?;
    let (item, latest) = ensure_item(tx, path, repo, item_id, snapshot)?;
    if let Some(latest) = latest
        && parts_of(tx, path, latest)? == parts
    {
        return Ok(());
    }
    insert_row(tx, path, item, run, &parts, None)
}

/// The item's id and its newest snapshot's id, registering the item when
/// it is new (then there is no snapshot yet).
fn ensure_item(
    tx: &Transaction<'_>,
    path: &Path,
    repo: i64,
    item_id: &str,
    snapshot: &ItemSnapshot,
) -> Result<(i64, Option<i64>)> {
    if let Some((item, latest)) = item_row(tx, path, repo, item_id)? {
        return Ok((item, Some(latest)));
    }
    tx.prepare_cached(
        "INSERT INTO items (repo, item_id, kind, item_key, latest) VALUES (?1, ?2, ?3, ?4, 0)",
    )
    .doing(path, "registering an item")?
    .execute(params![
        repo,
        item_id,
        snapshot.kind().as_str(),
        snapshot.key
    ])
    .doing(path, "registering an item")?;
    Ok((tx.last_insert_rowid(), None))
}

/// Adds a snapshot row (with id `id`, or one SQLite chooses) and makes it
/// the item's newest.
fn insert_row(
    tx: &Transaction<'_>,
    path: &Path,
    item: i64,
    run: i64,
    parts: &Parts,
    id: Option<i64>,
) -> Result<()> {
    let doing = "storing a snapshot";
    let head = text_id(tx, path, &parts.head)?;
    let body = text_id(tx, path, &parts.body)?;
    // Without a close time the column is left out (NULL): the 0002 step of
    // an old store's migration inserts before migration 0003 adds it.
    let (columns, values) = match parts.closed_at {
        Some(_) => (", closed_at", ", ?13"),
        None => ("", ""),
    };
    let sql = format!(
        "INSERT INTO snapshots (id, item, run, head, body, updated_at, state, reactions,
                                comments, labels, assignees, detail{columns})
         VALUES (?1, ?2, ?3, ?4, ?5, ?6, ?7, ?8, ?9, ?10, ?11, ?12{values})"
    );
    let mut insert = tx.prepare_cached(&sql).doing(path, doing)?;
    let common = params![
        id,
        item,
        run,
        head,
        body,
        parts.updated_at,
        parts.state,
        parts.reactions,
        parts.comments,
        parts.labels,
        parts.assignees,
        parts.detail,
    ];
    match &parts.closed_at {
        Some(closed_at) => {
            let mut all = common.to_vec();
            all.push(closed_at);
            insert.execute(&all[..])
        }
        None => insert.execute(common),
    }
    .doing(path, doing)?;
    let snapshot_id = tx.last_insert_rowid();
    tx.prepare_cached("UPDATE items SET latest = ?2 WHERE id = ?1")
        .doing(path, doing)?
        .execute(params![item, snapshot_id])
        .doing(path, doing)?;
    Ok(())
}

/// The Rust half of migration 0002: moves every row of `snapshots_v1` (the
/// 0001 layout: the whole snapshot as one JSON column) into the new tables,
/// keeping every id, so the events still point at the same snapshots; then
/// drops the old table. Rows are read in id order, so each item's `latest`
/// ends at its newest snapshot. No row is skipped, even one equal to the
/// item's previous snapshot: history is moved, not rewritten.
pub(crate) fn migrate_0002(tx: &Transaction<'_>, path: &Path) -> Result<()> {
    let doing = "moving snapshots to the 0002 layout";
    {
        let mut read = tx
            .prepare("SELECT id, repo, item_id, content, run FROM snapshots_v1 ORDER BY id")
            .doing(path, doing)?;
        let mut rows = read.query([]).doing(path, doing)?;
        while let Some(row) = rows.next().doing(path, doing)? {
            let id: i64 = row.get(0).doing(path, doing)?;
            let repo: i64 = row.get(1).doing(path, doing)?;
            let item_id: String = row.get(2).doing(path, doing)?;
            let content: String = row.get(3).doing(path, doing)?;
            let run: i64 = row.get(4).doing(path, doing)?;
            let snapshot: ItemSnapshot = from_json(path, "snapshots.content", &content)?;
            let parts = Parts::split(path, &snapshot)?;
            let (item, _) = ensure_item(tx, path, repo, &item_id, &snapshot)?;
            insert_row(tx, path, item, run, &parts, Some(id))?;
        }
    }
    tx.execute_batch("DROP TABLE snapshots_v1;")
        .doing(path, doing)
}
