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

use crate::codec::{from_json, int, stamp, stamp_parse, to_json, ts_parse, ts_text, uint};
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
/// parts are equal. The texts (head, body, and since SQLite migration `0008_compact`
/// and PostgreSQL `0007_compact` labels, assignees and detail) are stored once each
/// in `texts` and referenced; timestamps are [`crate::codec::stamp`]s.
#[allow(missing_docs)]
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Parts {
    pub head: String,
    pub body: String,
    /// Seconds and nanoseconds.
    pub updated_at: (i64, i64),
    /// 0 open, 1 closed.
    pub state: i64,
    pub reactions: i64,
    pub comments: i64,
    /// JSON array of strings.
    pub labels: String,
    /// JSON array of strings.
    pub assignees: String,
    /// JSON `ItemDetail`.
    pub detail: String,
    /// `None` where the host gave none (migration 0003).
    pub closed_at: Option<(i64, i64)>,
}

/// The columns of a snapshot row joined with its texts, in the order
/// [`Parts::from_raw`] reads them; `s` is the alias of `snapshots`, the
/// others those of [`SNAPSHOT_JOINS`].
pub const SNAPSHOT_COLUMNS: &str = "h.text, b.text, s.updated_s, s.updated_ns, s.state, \
     s.reactions, s.comments, l.text, a.text, d.text, s.closed_s, s.closed_ns";

/// The joins that go with [`SNAPSHOT_COLUMNS`].
pub const SNAPSHOT_JOINS: &str = "JOIN texts h ON h.id = s.head JOIN texts b ON b.id = s.body \
     JOIN texts l ON l.id = s.labels JOIN texts a ON a.id = s.assignees \
     JOIN texts d ON d.id = s.detail";

/// [`SNAPSHOT_COLUMNS`] without the body (read as an empty text), and the
/// joins that go with it: what ranking and filtering need, at a fraction of
/// the bytes.
pub const HEAD_COLUMNS: &str = "h.text, '', s.updated_s, s.updated_ns, s.state, \
     s.reactions, s.comments, l.text, a.text, d.text, s.closed_s, s.closed_ns";

/// The joins that go with [`HEAD_COLUMNS`].
pub const HEAD_JOINS: &str = "JOIN texts h ON h.id = s.head \
     JOIN texts l ON l.id = s.labels JOIN texts a ON a.id = s.assignees \
     JOIN texts d ON d.id = s.detail";

/// The raw row of [`SNAPSHOT_COLUMNS`], decoded outside the row callback.
pub type RawParts = (
    String,
    String,
    i64,
    i64,
    i64,
    i64,
    i64,
    String,
    String,
    String,
    Option<i64>,
    Option<i64>,
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
        r.get(at + 10)?,
        r.get(at + 11)?,
    ))
}

impl Parts {
    /// The parts from the tuple of [`SNAPSHOT_COLUMNS`]; a close time with
    /// one of its two columns missing is corrupt.
    pub fn from_raw(path: &Path, raw: RawParts) -> Result<Parts> {
        let (
            head,
            body,
            updated_s,
            updated_ns,
            state,
            reactions,
            comments,
            labels,
            assignees,
            detail,
            closed_s,
            closed_ns,
        ) = raw;
        let closed_at = match (closed_s, closed_ns) {
            (Some(s), Some(ns)) => Some((s, ns)),
            (None, None) => None,
            _ => {
                return Err(StoreError::Corrupt {
                    path: path.to_path_buf(),
                    what: "snapshots.closed_s and closed_ns are not both set or both empty".into(),
                });
            }
        };
        Ok(Parts {
            head,
            body,
            updated_at: (updated_s, updated_ns),
            state,
            reactions,
            comments,
            labels,
            assignees,
            detail,
            closed_at,
        })
    }

    /// The SHA-256 of a text, its address in `texts`.
    pub fn hash(text: &str) -> [u8; 32] {
        Sha256::digest(text.as_bytes()).into()
    }

    /// The texts of a snapshot (head, body, labels, assignees, detail),
    /// each stored once in `texts`.
    pub fn texts(&self) -> [&str; 5] {
        [
            &self.head,
            &self.body,
            &self.labels,
            &self.assignees,
            &self.detail,
        ]
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
            updated_at: stamp(s.updated_at),
            state: state_code(s.state),
            reactions: int("reactions", s.metrics.reactions)?,
            comments: int("comments", s.metrics.comments)?,
            labels: to_json(path, "item labels", &s.labels)?,
            assignees: to_json(path, "item assignees", &s.assignees)?,
            detail: to_json(path, "item detail", &s.detail)?,
            closed_at: s.closed_at.map(stamp),
        })
    }

    /// The snapshot of item `key` from its stored columns.
    pub fn join(path: &Path, key: &str, raw: RawParts) -> Result<ItemSnapshot> {
        let p = Parts::from_raw(path, raw)?;
        let head: Head = from_json(path, "texts.text (item head)", &p.head)?;
        let state = match p.state {
            0 => ItemState::Open,
            1 => ItemState::Closed,
            other => {
                return Err(StoreError::Corrupt {
                    path: path.to_path_buf(),
                    what: format!("snapshots.state {other} is not open (0) or closed (1)"),
                });
            }
        };
        let detail: ItemDetail = from_json(path, "texts.text (item detail)", &p.detail)?;
        let (updated_s, updated_ns) = p.updated_at;
        Ok(ItemSnapshot {
            repo: head.repo,
            key: key.to_string(),
            title: head.title,
            text: p.body,
            url: head.url,
            created_at: head.created_at,
            updated_at: stamp_parse(path, "snapshots.updated_s", updated_s, updated_ns)?,
            metrics: Metrics {
                reactions: uint(path, "snapshots.reactions", p.reactions)?,
                comments: uint(path, "snapshots.comments", p.comments)?,
            },
            labels: from_json(path, "texts.text (item labels)", &p.labels)?,
            author: head.author,
            state,
            closed_at: p
                .closed_at
                .map(|(s, ns)| stamp_parse(path, "snapshots.closed_s", s, ns))
                .transpose()?,
            assignees: from_json(path, "texts.text (item assignees)", &p.assignees)?,
            detail,
        })
    }
}

/// `snapshots.state`: 0 open, 1 closed.
pub fn state_code(state: ItemState) -> i64 {
    match state {
        ItemState::Open => 0,
        ItemState::Closed => 1,
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
    Parts::from_raw(path, raw)
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
    insert_row(tx, path, item, run, &parts)
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

/// Adds a snapshot row and makes it the item's newest.
fn insert_row(tx: &Transaction<'_>, path: &Path, item: i64, run: i64, parts: &Parts) -> Result<()> {
    let doing = "storing a snapshot";
    let [head, body, labels, assignees, detail] = parts.texts();
    let texts = [
        text_id(tx, path, head)?,
        text_id(tx, path, body)?,
        text_id(tx, path, labels)?,
        text_id(tx, path, assignees)?,
        text_id(tx, path, detail)?,
    ];
    tx.prepare_cached(
        "INSERT INTO snapshots (item, run, head, body, labels, assignees, detail, updated_s,
                                updated_ns, state, reactions, comments, closed_s, closed_ns)
         VALUES (?1, ?2, ?3, ?4, ?5, ?6, ?7, ?8, ?9, ?10, ?11, ?12, ?13, ?14)",
    )
    .doing(path, doing)?
    .execute(params![
        item,
        run,
        texts[0],
        texts[1],
        texts[2],
        texts[3],
        texts[4],
        parts.updated_at.0,
        parts.updated_at.1,
        parts.state,
        parts.reactions,
        parts.comments,
        parts.closed_at.map(|c| c.0),
        parts.closed_at.map(|c| c.1),
    ])
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
/// item's previous snapshot: history is moved, not rewritten. It writes the
/// 0002 layout with its own statement (later migrations change the row).
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
            let s: ItemSnapshot = from_json(path, "snapshots.content", &content)?;
            let parts = Parts::split(path, &s)?;
            let (item, _) = ensure_item(tx, path, repo, &item_id, &s)?;
            let head = text_id(tx, path, &parts.head)?;
            let body = text_id(tx, path, &parts.body)?;
            tx.prepare_cached(
                "INSERT INTO snapshots (id, item, run, head, body, updated_at, state, reactions,
                                        comments, labels, assignees, detail)
                 VALUES (?1, ?2, ?3, ?4, ?5, ?6, ?7, ?8, ?9, ?10, ?11, ?12)",
            )
            .doing(path, doing)?
            .execute(params![
                id,
                item,
                run,
                head,
                body,
                ts_text(s.updated_at),
                s.state.as_str(),
                parts.reactions,
                parts.comments,
                parts.labels,
                parts.assignees,
                parts.detail,
            ])
            .doing(path, doing)?;
            tx.prepare_cached("UPDATE items SET latest = ?2 WHERE id = ?1")
                .doing(path, doing)?
                .execute(params![item, id])
                .doing(path, doing)?;
        }
    }
    tx.execute_batch("DROP TABLE snapshots_v1;")
        .doing(path, doing)
}

/// The Rust half of migration 0008 (0008_compact): moves the rows of `snapshots_before_compact` and
/// `events_before_compact` (the layout before) into the compact tables, keeping every
/// snapshot id: timestamps become [`stamp`]s, the state a number, labels,
/// assignees and detail references to texts (stored once each); events get
/// their item's id, their place in the run in signal id order, and their
/// fields as a bit set, keeping a detail the bits would not give back
/// ([`crate::events::from_text_row`]). Every value is moved as it was;
/// a row that does not decode stops the migration, and the store is left
/// as it was.
pub(crate) fn migrate_compact(tx: &Transaction<'_>, path: &Path) -> Result<()> {
    let doing = "moving snapshots and events to the compact layout (0008)";
    {
        let mut read = tx
            .prepare(
                "SELECT id, item, run, head, body, updated_at, state, reactions, comments,
                        labels, assignees, detail, closed_at
                 FROM snapshots_before_compact ORDER BY id",
            )
            .doing(path, doing)?;
        let mut rows = read.query([]).doing(path, doing)?;
        while let Some(row) = rows.next().doing(path, doing)? {
            let id: i64 = row.get(0).doing(path, doing)?;
            let updated: String = row.get(5).doing(path, doing)?;
            let state: String = row.get(6).doing(path, doing)?;
            let labels: String = row.get(9).doing(path, doing)?;
            let assignees: String = row.get(10).doing(path, doing)?;
            let detail: String = row.get(11).doing(path, doing)?;
            let closed: Option<String> = row.get(12).doing(path, doing)?;
            let what = |column: &str| format!("snapshots.{column} of snapshot {id}");
            let updated = stamp(ts_parse(path, &what("updated_at"), &updated)?);
            let closed = closed
                .map(|c| ts_parse(path, &what("closed_at"), &c).map(stamp))
                .transpose()?;
            let state = match state.as_str() {
                "open" => 0,
                "closed" => 1,
                other => {
                    return Err(StoreError::Corrupt {
                        path: path.to_path_buf(),
                        what: format!("{} {other:?} is not open or closed", what("state")),
                    });
                }
            };
            let labels = text_id(tx, path, &labels)?;
            let assignees = text_id(tx, path, &assignees)?;
            let detail = text_id(tx, path, &detail)?;
            tx.prepare_cached(
                "INSERT INTO snapshots (id, item, run, head, body, labels, assignees, detail,
                                        updated_s, updated_ns, state, reactions, comments,
                                        closed_s, closed_ns)
                 VALUES (?1, ?2, ?3, ?4, ?5, ?6, ?7, ?8, ?9, ?10, ?11, ?12, ?13, ?14, ?15)",
            )
            .doing(path, doing)?
            .execute(params![
                id,
                row.get::<_, i64>(1).doing(path, doing)?,
                row.get::<_, i64>(2).doing(path, doing)?,
                row.get::<_, i64>(3).doing(path, doing)?,
                row.get::<_, i64>(4).doing(path, doing)?,
                labels,
                assignees,
                detail,
                updated.0,
                updated.1,
                state,
                row.get::<_, i64>(7).doing(path, doing)?,
                row.get::<_, i64>(8).doing(path, doing)?,
                closed.map(|c| c.0),
                closed.map(|c| c.1),
            ])
            .doing(path, doing)?;
        }
    }
    {
        // `pos` numbers each run's events in signal id order (byte order:
        // SQLite's default collation), as the trail reads them.
        let mut read = tx
            .prepare(
                "SELECT e.id, e.run, i.id, e.kind, e.detail, e.fields, e.snapshot,
                        row_number() OVER (PARTITION BY e.run ORDER BY e.item_id) - 1
                 FROM events_before_compact e JOIN runs r ON r.id = e.run
                 LEFT JOIN items i ON i.repo = r.repo AND i.item_id = e.item_id
                 ORDER BY e.run, e.item_id",
            )
            .doing(path, doing)?;
        let mut rows = read.query([]).doing(path, doing)?;
        while let Some(row) = rows.next().doing(path, doing)? {
            let id: i64 = row.get(0).doing(path, doing)?;
            let at = format!("event {id}");
            let item: Option<i64> = row.get(2).doing(path, doing)?;
            let Some(item) = item else {
                return Err(StoreError::Corrupt {
                    path: path.to_path_buf(),
                    what: format!(
                        "{at} is about an item its repository does not have; \
                         the store was left as it was"
                    ),
                });
            };
            let kind: String = row.get(3).doing(path, doing)?;
            let detail: String = row.get(4).doing(path, doing)?;
            let fields: String = row.get(5).doing(path, doing)?;
            let (kind, fields, detail) =
                crate::events::from_text_row(path, &at, &kind, detail, &fields)?;
            tx.prepare_cached(
                "INSERT INTO events (run, pos, item, kind, fields, snapshot, detail)
                 VALUES (?1, ?2, ?3, ?4, ?5, ?6, ?7)",
            )
            .doing(path, doing)?
            .execute(params![
                row.get::<_, i64>(1).doing(path, doing)?,
                row.get::<_, i64>(7).doing(path, doing)?,
                item,
                kind,
                fields,
                row.get::<_, i64>(6).doing(path, doing)?,
                detail,
            ])
            .doing(path, doing)?;
        }
    }
    tx.execute_batch("DROP TABLE events_before_compact; DROP TABLE snapshots_before_compact;")
        .doing(path, doing)
}
