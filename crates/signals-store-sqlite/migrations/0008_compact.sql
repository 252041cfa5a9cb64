-- 0008_compact: snapshot and event rows of a few bytes (issue 17, part 5),
-- so a run in which an item only gained a reaction adds well under 10% of
-- a 1,000-byte body. PostgreSQL's 0007_compact is the same change.
--
-- Never edit this file once merged. It runs with foreign keys off (checked
-- before the commit). The two tables are renamed aside, created anew, and
-- filled by Rust code (`snapshots::migrate_compact`: timestamps are parsed,
-- texts hashed), which keeps every snapshot id, so items' `latest` and the
-- events still point at the same snapshots; then the old tables go.
--
-- What a row holds now:
-- - Timestamps as two integers: seconds since the Unix epoch and the
--   nanoseconds within (0 for whole seconds, which costs no byte), exact at
--   any precision, where RFC 3339 text took 20 bytes.
-- - `state` as 0 (open) or 1 (closed), which SQLite stores in no byte.
-- - Labels, assignees and detail (JSON, as before) in `texts`, once per
--   distinct value, referenced like head and body: an unchanged label set
--   costs its reference. These texts are few (`["bug"]`, `[]`,
--   `{"kind":"issue"}`), except a merged pull request's or a release's
--   detail, which carries its time: stored once per item instead of once
--   per snapshot. Like every text, they are in the trigram index; a search
--   only keeps items whose head or body matched, so they never match.
-- - Events: no text at all. The item is `items.id`; the changed fields a
--   bit set (`events.rs`); the trail's detail is derived from kind and
--   fields, and `detail` is set only for an older row whose detail the bits
--   would not give back. `pos` numbers a run's events in signal id order,
--   the trail's order, so a page of the trail is a range of the primary key
--   (`WITHOUT ROWID`: the table is that index, no second copy). The unique
--   index on `(run, item)` keeps one event per item and run and finds an
--   item's event in a run (the export's latest-run marks, its trail keys):
--   a few integers per event.

ALTER TABLE events RENAME TO events_before_compact;
ALTER TABLE snapshots RENAME TO snapshots_before_compact;

-- Every distinct snapshot of every item, added and never updated.
CREATE TABLE snapshots (
    id         INTEGER PRIMARY KEY,           -- the same ids as before
    item       INTEGER NOT NULL REFERENCES items (id),
    run        INTEGER NOT NULL REFERENCES runs (id),  -- the run that saw it
    head       INTEGER NOT NULL REFERENCES texts (id), -- JSON {repo, title, url, author, createdAt}
    body       INTEGER NOT NULL REFERENCES texts (id), -- the item's text
    labels     INTEGER NOT NULL REFERENCES texts (id), -- JSON array of strings
    assignees  INTEGER NOT NULL REFERENCES texts (id), -- JSON array of strings
    detail     INTEGER NOT NULL REFERENCES texts (id), -- JSON ItemDetail
    updated_s  INTEGER NOT NULL,              -- the host's updated_at: seconds
    updated_ns INTEGER NOT NULL               -- and nanoseconds (signed like the seconds)
               CHECK (updated_ns BETWEEN -999999999 AND 999999999),
    state      INTEGER NOT NULL CHECK (state IN (0, 1)),  -- 0 open, 1 closed
    reactions  INTEGER NOT NULL CHECK (reactions >= 0),
    comments   INTEGER NOT NULL CHECK (comments >= 0),
    closed_s   INTEGER,                       -- the host's closed_at (0003), NULL if none
    closed_ns  INTEGER CHECK (closed_ns BETWEEN -999999999 AND 999999999),
    CHECK ((closed_s IS NULL) = (closed_ns IS NULL)),
    UNIQUE (item, run)
) STRICT;

-- Observation events: what a run recorded about an item.
CREATE TABLE events (
    run      INTEGER NOT NULL REFERENCES runs (id),
    pos      INTEGER NOT NULL CHECK (pos >= 0),      -- place in the run, by signal id
    item     INTEGER NOT NULL REFERENCES items (id),
    kind     INTEGER NOT NULL CHECK (kind IN (0, 1)), -- 0 discovered, 1 changed
    fields   INTEGER NOT NULL CHECK (fields >= 0),   -- changed fields, a bit set
    snapshot INTEGER NOT NULL REFERENCES snapshots (id), -- stored with (or before) it
    detail   TEXT,                                   -- only where kind and fields do not give it
    PRIMARY KEY (run, pos),
    UNIQUE (run, item)
) STRICT, WITHOUT ROWID;
