-- 0009_discussions: items of kind `discussion` (GitHub Discussions, issue
-- 26). SQLite's 0010_discussions is the same change. Never edit this file
-- once merged.
--
-- A discussion is an item like an issue: its snapshots, events and texts
-- are laid out as theirs, its category and `answered` in the detail JSON.
-- Only `items.kind`'s CHECK named the three kinds before.

ALTER TABLE items DROP CONSTRAINT items_kind_check;
ALTER TABLE items ADD CONSTRAINT items_kind_check
    CHECK (kind IN ('issue', 'pull_request', 'release', 'discussion'));
