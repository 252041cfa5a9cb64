-- 0011_comments: comments and reviews of issues and pull requests (issue
-- 26), what first responses and items waiting for a reply are computed
-- from. PostgreSQL's 0010_comments is the same table. Never edit this
-- file once merged.
--
-- One row per comment, review or review comment, keyed by its repository,
-- kind and the host's id, and replaced when read again (an edit): a row is
-- a few integers, the author, the item's signal id and a reference to its
-- body in `texts`, stored once per distinct text.
CREATE TABLE comments (
    repo        INTEGER NOT NULL REFERENCES repositories (key),
    kind        INTEGER NOT NULL CHECK (kind IN (0, 1, 2)), -- comment, review, review comment
    host_id     TEXT NOT NULL,                 -- the host's id of it
    item        TEXT NOT NULL,                 -- the item's signal id
    author      TEXT NOT NULL,                 -- login, empty for a deleted account
    association TEXT,                          -- GitHub's author_association, NULL elsewhere
    bot         INTEGER NOT NULL CHECK (bot IN (0, 1)),
    state       TEXT,                          -- a review's state, NULL for comments
    created_s   INTEGER NOT NULL,              -- seconds since the Unix epoch
    updated_s   INTEGER NOT NULL,
    body        INTEGER NOT NULL REFERENCES texts (id),
    PRIMARY KEY (repo, kind, host_id)
) STRICT, WITHOUT ROWID;

-- An item's replies, and a repository's comments by item.
CREATE INDEX comments_by_item ON comments (repo, item, created_s);
