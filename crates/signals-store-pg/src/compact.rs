//! The Rust half of migration `0007_compact` (the SQLite store's
//! `0008_compact`): moves the rows of `snapshots_before_compact` and
//! `events_before_compact` into the compact tables, keeping every snapshot
//! id and every value, with the conversions the SQLite store's migration
//! makes (`signals_store::codec::stamp`, `signals_store::events`). Rows
//! are read in batches through a cursor, so memory does not grow with the
//! store. A row that does not decode stops the migration; its transaction
//! rolls back and the store is left as it was.

use postgres::Transaction;
use signals_store::codec::{stamp, ts_parse};
use signals_store::{Parts, Result};

use crate::PgStore;

/// Rows read per batch.
const BATCH: i32 = 5_000;

pub(crate) fn migrate(store: &PgStore, tx: &mut Transaction<'_>) -> Result<()> {
    store_texts(store, tx)?;
    parse_stamps(store, tx)?;
    move_snapshots(store, tx)?;
    move_events(store, tx)?;
    tx.batch_execute("DROP TABLE events_before_compact; DROP TABLE snapshots_before_compact;")
        .map_err(store.err(DOING))?;
    Ok(())
}

/// What the migration's errors say it was doing.
const DOING: &str = "moving snapshots and events to the compact layout (0007)";

/// Labels, assignees and details become texts, inserted in hash order
/// like every text (ARCHITECTURE.md, "Texts under concurrent commits").
fn store_texts(store: &PgStore, tx: &mut Transaction<'_>) -> Result<()> {
    let err = store.err(DOING);
    let values: Vec<String> = tx
        .query(
            "SELECT labels FROM snapshots_before_compact
             UNION SELECT assignees FROM snapshots_before_compact
             UNION SELECT detail FROM snapshots_before_compact",
            &[],
        )
        .map_err(&err)?
        .iter()
        .map(|r| r.get(0))
        .collect();
    let mut texts: Vec<([u8; 32], &str)> = values
        .iter()
        .map(|v| (Parts::hash(v), v.as_str()))
        .collect();
    texts.sort();
    let hashes: Vec<&[u8]> = texts.iter().map(|(h, _)| h.as_slice()).collect();
    let bodies: Vec<&str> = texts.iter().map(|(_, t)| *t).collect();
    tx.execute(
        "INSERT INTO texts (hash, text)
         SELECT u.hash, u.text FROM unnest($1::bytea[], $2::text[]) AS u(hash, text)
         WHERE NOT EXISTS (SELECT 1 FROM texts t WHERE t.hash = u.hash)
         ORDER BY u.hash
         ON CONFLICT (hash) DO NOTHING",
        &[&hashes, &bodies],
    )
    .map_err(&err)?;
    Ok(())
}

/// Parses every snapshot's timestamps here, exactly (PostgreSQL's own
/// timestamps stop at microseconds), into `compact_stamps`, a table
/// [`move_snapshots`] joins; a batch at a time through a cursor.
fn parse_stamps(store: &PgStore, tx: &mut Transaction<'_>) -> Result<()> {
    let path = store.path();
    let err = store.err(DOING);
    tx.batch_execute(
        "CREATE TEMP TABLE compact_stamps (
             id BIGINT PRIMARY KEY, updated_s BIGINT NOT NULL, updated_ns BIGINT NOT NULL,
             closed_s BIGINT, closed_ns BIGINT) ON COMMIT DROP",
    )
    .map_err(&err)?;
    let portal = tx
        .bind(
            "SELECT id, updated_at, closed_at FROM snapshots_before_compact ORDER BY id",
            &[],
        )
        .map_err(&err)?;
    loop {
        let rows = tx.query_portal(&portal, BATCH).map_err(&err)?;
        if rows.is_empty() {
            break;
        }
        let (mut ids, mut us, mut uns, mut cs, mut cns) =
            (Vec::new(), Vec::new(), Vec::new(), Vec::new(), Vec::new());
        for r in &rows {
            let id: i64 = r.get(0);
            let updated = stamp(ts_parse(
                &path,
                &format!("snapshots.updated_at of snapshot {id}"),
                r.get(1),
            )?);
            let closed = r
                .get::<_, Option<&str>>(2)
                .map(|c| {
                    ts_parse(&path, &format!("snapshots.closed_at of snapshot {id}"), c).map(stamp)
                })
                .transpose()?;
            ids.push(id);
            us.push(updated.0);
            uns.push(updated.1);
            cs.push(closed.map(|c| c.0));
            cns.push(closed.map(|c| c.1));
        }
        tx.execute(
            "INSERT INTO compact_stamps
             SELECT * FROM unnest($1::bigint[], $2::bigint[], $3::bigint[], $4::bigint[],
                                  $5::bigint[])",
            &[&ids, &us, &uns, &cs, &cns],
        )
        .map_err(&err)?;
    }
    // A table a cursor still reads cannot be dropped.
    drop(portal);
    Ok(())
}

/// Moves every snapshot into the compact table, keeping its id, and moves
/// the id sequence past them; all of them, or the migration stops.
fn move_snapshots(store: &PgStore, tx: &mut Transaction<'_>) -> Result<()> {
    let err = store.err(DOING);
    let moved = tx
        .execute(
            "INSERT INTO snapshots (id, item, run, head, body, labels, assignees, detail,
                                    updated_s, updated_ns, state, reactions, comments,
                                    closed_s, closed_ns)
             SELECT o.id, o.item, o.run, o.head, o.body, l.id, a.id, d.id,
                    c.updated_s, c.updated_ns,
                    CASE o.state WHEN 'open' THEN 0 WHEN 'closed' THEN 1 END,
                    o.reactions, o.comments, c.closed_s, c.closed_ns
             FROM snapshots_before_compact o
             JOIN compact_stamps c ON c.id = o.id
             JOIN texts l ON l.hash = sha256(convert_to(o.labels, 'UTF8'))
             JOIN texts a ON a.hash = sha256(convert_to(o.assignees, 'UTF8'))
             JOIN texts d ON d.hash = sha256(convert_to(o.detail, 'UTF8'))
             ORDER BY o.id",
            &[],
        )
        .map_err(&err)?;
    let before: i64 = tx
        .query_one("SELECT count(*) FROM snapshots_before_compact", &[])
        .map_err(&err)?
        .get(0);
    if moved as i64 != before {
        return Err(store.corrupt(format!(
            "moving snapshots to the compact layout kept {moved} of {before}; \
             the store was left as it was"
        )));
    }
    tx.execute(
        "SELECT setval(pg_get_serial_sequence('snapshots', 'id'),
                       COALESCE((SELECT max(id) FROM snapshots), 0) + 1, false)",
        &[],
    )
    .map_err(&err)?;
    Ok(())
}

/// Moves every event into the compact table, numbered within its run in
/// signal id order (`COLLATE "C"`: byte order, as the trail reads them), a
/// batch at a time through a cursor.
fn move_events(store: &PgStore, tx: &mut Transaction<'_>) -> Result<()> {
    let path = store.path();
    let err = store.err(DOING);
    let portal = tx
        .bind(
            "SELECT e.id, e.run, i.id, e.kind, e.detail, e.fields, e.snapshot,
                    row_number() OVER (PARTITION BY e.run ORDER BY e.item_id) - 1
             FROM events_before_compact e JOIN runs r ON r.id = e.run
             LEFT JOIN items i ON i.repo = r.repo AND i.item_id = e.item_id
             ORDER BY e.run, e.item_id",
            &[],
        )
        .map_err(&err)?;
    loop {
        let rows = tx.query_portal(&portal, BATCH).map_err(&err)?;
        if rows.is_empty() {
            break;
        }
        // run, pos, item, kind, fields, snapshot
        let mut columns: [Vec<i64>; 6] = Default::default();
        let mut details: Vec<Option<String>> = Vec::new();
        for r in &rows {
            let id: i64 = r.get(0);
            let at = format!("event {id}");
            let Some(item) = r.get::<_, Option<i64>>(2) else {
                return Err(store.corrupt(format!(
                    "{at} is about an item its repository does not have; \
                     the store was left as it was"
                )));
            };
            let signals_store::events::EventColumns {
                kind,
                fields,
                detail,
            } = signals_store::events::from_text_row(&path, &at, r.get(3), r.get(4), r.get(5))?;
            columns[0].push(r.get(1));
            columns[1].push(r.get(7));
            columns[2].push(item);
            columns[3].push(kind);
            columns[4].push(fields);
            columns[5].push(r.get(6));
            details.push(detail);
        }
        tx.execute(
            "INSERT INTO events (run, pos, item, kind, fields, snapshot, detail)
             SELECT * FROM unnest($1::bigint[], $2::bigint[], $3::bigint[], $4::bigint[],
                                  $5::bigint[], $6::bigint[], $7::text[])",
            &[
                &columns[0],
                &columns[1],
                &columns[2],
                &columns[3],
                &columns[4],
                &columns[5],
                &details,
            ],
        )
        .map_err(&err)?;
    }
    drop(portal);
    Ok(())
}
