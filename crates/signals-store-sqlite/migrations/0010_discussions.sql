-- 0010_discussions: items of kind `discussion` (GitHub Discussions, issue
-- 26). PostgreSQL's 0009_discussions is the same change. Never edit this
-- file once merged.
--
-- A discussion is an item like an issue: its snapshots, events and texts
-- are laid out as theirs, its category and `answered` in the detail JSON.
-- Only `items.kind`'s CHECK named the three kinds before; SQLite cannot
-- change a CHECK in place, so the table is rebuilt with every row and id
-- kept (it runs with foreign keys off, checked before the commit): the
-- `snapshots` and `events` references name the table, which keeps its name.

CREATE TABLE items_0010 (
    id       INTEGER PRIMARY KEY,
    repo     INTEGER NOT NULL REFERENCES repositories (key),
    item_id  TEXT NOT NULL,                   -- signal id `<source>:<owner>/<name>:<kind>:<key>`
    kind     TEXT NOT NULL CHECK (kind IN ('issue', 'pull_request', 'release', 'discussion')),
    item_key TEXT NOT NULL,                   -- issue/PR/discussion number or release tag
    latest   INTEGER NOT NULL,                -- snapshots.id of the newest snapshot
    UNIQUE (repo, item_id)
) STRICT;

INSERT INTO items_0010 (id, repo, item_id, kind, item_key, latest)
SELECT id, repo, item_id, kind, item_key, latest FROM items;

DROP TABLE items;
ALTER TABLE items_0010 RENAME TO items;
