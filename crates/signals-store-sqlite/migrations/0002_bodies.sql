-- 0002_bodies: snapshots store what is new; scores are no longer stored.
--
-- Never edit this file once merged. It runs with foreign keys off (checked
-- with `PRAGMA foreign_key_check` before the commit): the old `snapshots`
-- table is copied aside and dropped, and the new one takes its name, so the
-- `events` foreign key names the new table and its ids stay valid. The rows
-- are moved by Rust code (`snapshots::migrate_0002`), because a body's
-- address is its SHA-256, which SQL here cannot compute.

-- Every distinct text, stored once: item bodies (Markdown, release notes)
-- and item heads (the JSON of the fields that rarely change: repository,
-- title, URL, author, creation time). `hash` is the SHA-256 of the UTF-8
-- text, so the same text seen in a thousand snapshots is one row.
CREATE TABLE texts (
    id   INTEGER PRIMARY KEY,
    hash BLOB NOT NULL UNIQUE CHECK (length(hash) = 32),
    text TEXT NOT NULL
) STRICT;

-- One row per item ever seen, per repository. `latest` is the id of the
-- item's newest snapshot: the only column in the store updated in place,
-- an index over history, never history itself (it always equals
-- `max(snapshots.id)` of the item).
CREATE TABLE items (
    id       INTEGER PRIMARY KEY,
    repo     INTEGER NOT NULL REFERENCES repositories (key),
    item_id  TEXT NOT NULL,                   -- signal id `<source>:<owner>/<name>:<kind>:<key>`
    kind     TEXT NOT NULL CHECK (kind IN ('issue', 'pull_request', 'release')),
    item_key TEXT NOT NULL,                   -- issue/PR number or release tag
    latest   INTEGER NOT NULL,                -- snapshots.id of the newest snapshot
    UNIQUE (repo, item_id)
) STRICT;

CREATE TEMP TABLE snapshots_v1 AS SELECT id, repo, item_id, content, run FROM snapshots;
DROP TABLE snapshots;

-- Every distinct snapshot of every item, added and never updated. The
-- fields that change often are columns; the body and the head are
-- references into `texts`, so a change of reactions or labels adds one
-- small row and no text.
CREATE TABLE snapshots (
    id         INTEGER PRIMARY KEY,           -- the same ids as before 0002
    item       INTEGER NOT NULL REFERENCES items (id),
    run        INTEGER NOT NULL REFERENCES runs (id),  -- the run that saw it
    head       INTEGER NOT NULL REFERENCES texts (id), -- JSON {repo, title, url, author, createdAt}
    body       INTEGER NOT NULL REFERENCES texts (id), -- the item's text
    updated_at TEXT NOT NULL,
    state      TEXT NOT NULL CHECK (state IN ('open', 'closed')),
    reactions  INTEGER NOT NULL CHECK (reactions >= 0),
    comments   INTEGER NOT NULL CHECK (comments >= 0),
    labels     TEXT NOT NULL,                 -- JSON array of strings
    assignees  TEXT NOT NULL,                 -- JSON array of strings
    detail     TEXT NOT NULL,                 -- JSON ItemDetail
    UNIQUE (item, run)
) STRICT;

-- Derived data, now computed at export from the latest snapshot and the
-- dataset's instant (scores depend on time, so a stored one goes stale).
DROP TABLE scores;
