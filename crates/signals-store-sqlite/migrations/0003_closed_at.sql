-- 0003_closed_at: the host's close time of an item (issue 18, trends).
--
-- Never edit this file once merged. `closed_at` is the host's `closed_at`
-- (GitLab: a merged merge request's `merged_at`), RFC 3339 text as every
-- data timestamp; NULL while open, for releases, and for snapshots stored
-- before this migration (their close time was not kept: trends count them
-- as closed at an unknown time, in no week). A snapshot row that differs
-- from the item's previous one only by it is a new distinct snapshot, like
-- any other untracked change: it records no event.
ALTER TABLE snapshots ADD COLUMN closed_at TEXT
    CHECK (closed_at IS NULL OR closed_at GLOB '[0-9][0-9][0-9][0-9]-*');
