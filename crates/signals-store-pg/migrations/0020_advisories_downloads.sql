-- 0020_advisories_downloads: items of kind `advisory` (a repository's
-- published security advisories) and the download counts of release
-- assets. SQLite's 0020_advisories_downloads is the same change. Never
-- edit this file once merged.
--
-- An advisory is an item like a release: its snapshots, events and texts
-- are laid out as theirs, its severity, CVSS score, CVE id and times in
-- the detail JSON. Only `items.kind`'s CHECK names the kinds.

ALTER TABLE items DROP CONSTRAINT items_kind_check;
ALTER TABLE items ADD CONSTRAINT items_kind_check
    CHECK (kind IN ('issue', 'pull_request', 'release', 'discussion', 'advisory'));

-- A release asset's download count, written by a run when it differs from
-- the asset's last stored one (its first sighting included): a run writes
-- only what changed. `asset` is the host's id of the asset, so a replaced
-- asset is another one. Trends and the verdict sum the increases between
-- an asset's rows (`signals_core::downloads`).
CREATE TABLE asset_downloads (
    repo  BIGINT NOT NULL REFERENCES repositories (key),
    asset TEXT COLLATE "C" NOT NULL,
    run   BIGINT NOT NULL REFERENCES runs (id),
    count BIGINT NOT NULL CHECK (count >= 0),
    PRIMARY KEY (repo, asset, run)
);
CREATE INDEX asset_downloads_by_run ON asset_downloads (repo, run);
