-- 0010_comments: comments and reviews of issues and pull requests (issue
-- 26), what first responses and items waiting for a reply are computed
-- from. SQLite's 0011_comments is the same table. Never edit this file
-- once merged.
--
-- One row per comment, review or review comment, keyed by its repository,
-- kind and the host's id, and replaced when read again (an edit); its
-- body is a reference into `texts`, stored once per distinct text.
CREATE TABLE comments (
    repo        BIGINT NOT NULL REFERENCES repositories (key),
    kind        BIGINT NOT NULL CHECK (kind IN (0, 1, 2)), -- comment, review, review comment
    host_id     TEXT COLLATE "C" NOT NULL,
    item        TEXT COLLATE "C" NOT NULL,     -- the item's signal id
    author      TEXT COLLATE "C" NOT NULL,     -- login, empty for a deleted account
    association TEXT COLLATE "C",              -- GitHub's author_association
    bot         BIGINT NOT NULL CHECK (bot IN (0, 1)), -- integers like SQLite's, for `signals migrate`
    state       TEXT COLLATE "C",              -- a review's state, NULL for comments
    created_s   BIGINT NOT NULL,               -- seconds since the Unix epoch
    updated_s   BIGINT NOT NULL,
    body        BIGINT NOT NULL REFERENCES texts (id),
    PRIMARY KEY (repo, kind, host_id)
);

CREATE INDEX comments_by_item ON comments (repo, item, created_s);
