-- 0002_closed_at: the host's close time of an item (issue 18, trends); the
-- SQLite store's 0003_closed_at.
--
-- Never edit this file once merged. RFC 3339 text as every data timestamp
-- here; NULL while open, for releases, and for snapshots stored before this
-- migration.
ALTER TABLE snapshots ADD COLUMN closed_at TEXT COLLATE "C";
