-- 0022_related: related items (signals_store::related): the similarity
-- profile of every issue, pull request and discussion, each item's list
-- of related items of its group, and per repository how far the profiles
-- have read and a mark of its lists' changes.
--
-- Never edit this file once merged. Derived data, rebuilt from snapshots:
-- no dump carries it (`signals migrate` copies it as it is through the
-- store role), and a store from before starts with no row here and is
-- profiled whole by its first catch-up (`through` = 0).
--
-- `related_profiles`: whether the item is open and its profile as a
-- compact vector of integer term keys (signals_core::related::Vector,
-- binary): the only part of every item that weighing a whole group
-- reads, in rows small enough to stay in their pages.
-- `related_texts`: the profile's text (signals_core::related::Profile,
-- with the words shown), read only for the items whose lists are written.
-- `related_lists`: an item's related items by rank (0 = best), each with
-- its score and shared words (`\n` between); `related_lists_by_other`
-- finds the lists naming an item when it changes or goes.
CREATE TABLE related_profiles (
    repo    INTEGER NOT NULL REFERENCES repositories (key),
    item_id TEXT NOT NULL,
    open    INTEGER NOT NULL CHECK (open IN (0, 1)),
    vector  BLOB NOT NULL,
    PRIMARY KEY (repo, item_id)
) STRICT, WITHOUT ROWID;

CREATE TABLE related_texts (
    repo    INTEGER NOT NULL REFERENCES repositories (key),
    item_id TEXT NOT NULL,
    profile TEXT NOT NULL,
    PRIMARY KEY (repo, item_id)
) STRICT, WITHOUT ROWID;

CREATE TABLE related_lists (
    repo       INTEGER NOT NULL REFERENCES repositories (key),
    item_id    TEXT NOT NULL,
    rank       INTEGER NOT NULL CHECK (rank >= 0),
    other_repo INTEGER NOT NULL REFERENCES repositories (key),
    other_id   TEXT NOT NULL,
    score      REAL NOT NULL CHECK (score >= 0 AND score <= 1),
    shared     TEXT NOT NULL,
    PRIMARY KEY (repo, item_id, rank)
) STRICT, WITHOUT ROWID;

CREATE INDEX related_lists_by_other ON related_lists (other_repo, other_id);

CREATE TABLE related_state (
    repo    INTEGER PRIMARY KEY REFERENCES repositories (key),
    through INTEGER NOT NULL,
    mark    INTEGER NOT NULL CHECK (mark >= 0)
) STRICT;
