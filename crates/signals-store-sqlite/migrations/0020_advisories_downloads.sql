-- 0020_advisories_downloads: items of kind `advisory` (a repository's
-- published security advisories) and the download counts of release
-- assets. PostgreSQL's 0020_advisories_downloads is the same change. Never
-- edit this file once merged.
--
-- An advisory is an item like a release: its snapshots, events and texts
-- are laid out as theirs, its severity, CVSS score, CVE id and times in
-- the detail JSON. Only `items.kind`'s CHECK names the kinds; SQLite
-- cannot change a CHECK in place, so the table is rebuilt with every row
-- and id kept, as 0010_discussions did (foreign keys are off while a
-- migration runs, checked before its commit), with its index.

CREATE TABLE items_0020 (
    id       INTEGER PRIMARY KEY,
    repo     INTEGER NOT NULL REFERENCES repositories (key),
    item_id  TEXT NOT NULL,                   -- signal id `<source>:<owner>/<name>:<kind>:<key>`
    kind     TEXT NOT NULL CHECK (kind IN ('issue', 'pull_request', 'release', 'discussion', 'advisory')),
    item_key TEXT NOT NULL,                   -- issue/PR/discussion number, release tag or GHSA id
    latest   INTEGER NOT NULL,                -- snapshots.id of the newest snapshot
    UNIQUE (repo, item_id)
) STRICT;

INSERT INTO items_0020 (id, repo, item_id, kind, item_key, latest)
SELECT id, repo, item_id, kind, item_key, latest FROM items;

DROP TABLE items;
ALTER TABLE items_0020 RENAME TO items;
CREATE INDEX items_by_latest ON items (repo, latest);

-- A release asset's download count, written by a run when it differs from
-- the asset's last stored one (its first sighting included): a run writes
-- only what changed. `asset` is the host's id of the asset, so a replaced
-- asset is another one. Trends and the verdict sum the increases between
-- an asset's rows (`signals_core::downloads`).
CREATE TABLE asset_downloads (
    repo  INTEGER NOT NULL REFERENCES repositories (key),
    asset TEXT NOT NULL,
    run   INTEGER NOT NULL REFERENCES runs (id),
    count INTEGER NOT NULL CHECK (count >= 0),
    PRIMARY KEY (repo, asset, run)
) STRICT, WITHOUT ROWID;
CREATE INDEX asset_downloads_by_run ON asset_downloads (repo, run);
