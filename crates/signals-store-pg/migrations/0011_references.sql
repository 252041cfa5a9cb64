-- 0011_references: references between items of a group (issue 26, part
-- 4). SQLite's 0012_references is the same change. Never edit this
-- file once merged.
--
-- Derived from the items' texts (`signals_core::references`), kept so a
-- link is an indexed read, never a parse of stored texts: written in a
-- run's commit only for the texts that run stored, replaced only when
-- they changed. Like `items.latest`, these rows are an index over
-- history, updated in place, never history. Existing stores are filled
-- from each item's latest body by this migration's Rust step
-- (`references::migrate`).

-- Where each item is, as a reference key (`github.com/o/n#12`, GitLab
-- merge requests `host/g/p!3`), from its own URL. Releases have none.
CREATE TABLE item_keys (
    item BIGINT PRIMARY KEY REFERENCES items (id),
    key  TEXT NOT NULL
);
CREATE INDEX item_keys_by_key ON item_keys (key);

-- What each text of an item names: one row per item, text and key.
-- `via` is the text (`body`, or a tag of another text, a comment's);
-- `repo` the item's repository, so a group's references are read without
-- reading its items.
CREATE TABLE item_refs (
    item   BIGINT NOT NULL REFERENCES items (id),
    via    TEXT NOT NULL,
    target TEXT NOT NULL,
    repo   BIGINT NOT NULL REFERENCES repositories (key),
    PRIMARY KEY (item, via, target)
);
CREATE INDEX item_refs_by_target ON item_refs (target);
CREATE INDEX item_refs_by_repo ON item_refs (repo);

-- The runs whose commit changed a link of a repository's items (its
-- items' references, or the items naming them): added, never updated,
-- so concurrent commits never wait on each other here. The export
-- re-renders a repository whose greatest mark moved.
CREATE TABLE reference_marks (
    repo BIGINT NOT NULL REFERENCES repositories (key),
    run  BIGINT NOT NULL,
    PRIMARY KEY (repo, run)
);
