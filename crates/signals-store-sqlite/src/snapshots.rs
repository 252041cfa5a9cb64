//! Snapshots on SQLite: the rows a snapshot is stored as (its texts once
//! each, by hash; an item's `latest`), and the Rust steps of the
//! migrations that moved old stores to that layout (0002, `0008_compact`).

use std::path::Path;

use rusqlite::{OptionalExtension, Transaction, params};
use signals_core::ItemSnapshot;
use signals_store::codec::{from_json, stamp, ts_parse, ts_text};
use signals_store::{Parts, RawParts, Result, StoreError};

use crate::error::DbContext;

/// The columns of a snapshot row joined with its texts, in the order
/// `Parts::from_raw` reads them (`RawParts`); `s` is the alias of `snapshots`, the
/// others those of [`SNAPSHOT_JOINS`].
pub(crate) const SNAPSHOT_COLUMNS: &str = "h.text, b.text, s.updated_s, s.updated_ns, s.state, \
     s.reactions, s.comments, l.text, a.text, d.text, s.closed_s, s.closed_ns";

/// The joins that go with [`SNAPSHOT_COLUMNS`].
pub(crate) const SNAPSHOT_JOINS: &str = "JOIN texts h ON h.id = s.head JOIN texts b ON b.id = s.body \
     JOIN texts l ON l.id = s.labels JOIN texts a ON a.id = s.assignees \
     JOIN texts d ON d.id = s.detail";

/// [`SNAPSHOT_COLUMNS`] without the body (read as an empty text), and the
/// joins that go with it: what ranking and filtering need, at a fraction of
/// the bytes.
pub(crate) const HEAD_COLUMNS: &str = "h.text, '', s.updated_s, s.updated_ns, s.state, \
     s.reactions, s.comments, l.text, a.text, d.text, s.closed_s, s.closed_ns";

/// The joins that go with [`HEAD_COLUMNS`].
pub(crate) const HEAD_JOINS: &str = "JOIN texts h ON h.id = s.head \
     JOIN texts l ON l.id = s.labels JOIN texts a ON a.id = s.assignees \
     JOIN texts d ON d.id = s.detail";

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
/// item's newest stored one. True when the item is new (its row was
/// inserted), which the repository's totals count.
pub(crate) fn store_snapshot(
    tx: &Transaction<'_>,
    path: &Path,
    repo: i64,
    item_id: &str,
    snapshot: &ItemSnapshot,
    run: i64,
) -> Result<bool> {
    let parts = Parts::split(path, snapshot)?;
    let (item, latest) = ensure_item(tx, path, repo, item_id, snapshot)?;
    if let Some(latest) = latest
        && parts_of(tx, path, latest)? == parts
    {
        return Ok(false);
    }
    insert_row(tx, path, item, run, &parts)?;
    Ok(latest.is_none())
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

/// The Rust half of migration 0008 (`0008_compact`): moves the rows of
/// `snapshots_before_compact` and `events_before_compact` (the layout
/// before) into the compact tables, keeping every snapshot id: timestamps
/// become [`stamp`]s, the state a number, labels, assignees and detail
/// references to texts (stored once each); events get their item's id,
/// their place in the run in signal id order, and their fields as a bit
/// set, keeping a detail the bits would not give back
/// ([`signals_store::events::from_text_row`]). Every value is moved as it
/// was; a row that does not decode stops the migration, and the store is
/// left as it was.
pub(crate) fn migrate_compact(tx: &Transaction<'_>, path: &Path) -> Result<()> {
    compact_snapshots(tx, path)?;
    compact_events(tx, path)?;
    tx.execute_batch("DROP TABLE events_before_compact; DROP TABLE snapshots_before_compact;")
        .doing(path, COMPACT)
}

/// What the errors of `0008_compact` say it was doing.
const COMPACT: &str = "moving snapshots and events to the compact layout (0008)";

/// Moves every snapshot into the compact table, keeping its id.
fn compact_snapshots(tx: &Transaction<'_>, path: &Path) -> Result<()> {
    let doing = COMPACT;
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
    Ok(())
}

/// Moves every event into the compact table, with its item's id and its
/// fields as a bit set.
fn compact_events(tx: &Transaction<'_>, path: &Path) -> Result<()> {
    let doing = COMPACT;
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
        let signals_store::events::EventColumns {
            kind,
            fields,
            detail,
        } = signals_store::events::from_text_row(path, &at, &kind, detail, &fields)?;
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
    Ok(())
}
