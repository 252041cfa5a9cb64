-- 0009_owner_host_id: renames within an owner, followed through the
-- host's numeric repository id (docs/decisions.md, "Whole organisations
-- and groups"). Never edit this file once merged.
--
-- `owner_repos` gains the host's id (NULL for rows stored before, until
-- the next listing names them), the name a renamed repository was first
-- tracked under (its signal ids keep it; NULL when not renamed) and when
-- it was last renamed. Its primary key becomes the repository id: after a
-- rename, a repository may take the name a gone one still holds. SQLite
-- cannot change a primary key in place, so the table is rebuilt; nothing
-- references it, and every row is copied.

CREATE TABLE owner_repos_0009 (
    group_id   TEXT NOT NULL,
    host       TEXT NOT NULL,
    owner      TEXT NOT NULL,
    full_name  TEXT NOT NULL,                  -- `owner/name` as last listed
    repo_id    TEXT NOT NULL,                  -- its repository id in the group
    state      TEXT NOT NULL CHECK (state IN ('tracked', 'gone', 'archived', 'fork', 'excluded')),
    since      TEXT NOT NULL,                  -- when it took that state
    first_seen TEXT NOT NULL,                  -- when it was first tracked
    host_id    INTEGER CHECK (host_id >= 0),   -- the host's numeric id, as last listed
    tracked_as TEXT,                           -- first tracked name after a rename, else NULL
    renamed_at TEXT,                           -- when last found under a new name
    PRIMARY KEY (group_id, host, owner, repo_id),
    UNIQUE (group_id, repo_id),
    FOREIGN KEY (group_id, host, owner) REFERENCES owners (group_id, host, owner)
) STRICT;

INSERT INTO owner_repos_0009
    (group_id, host, owner, full_name, repo_id, state, since, first_seen)
SELECT group_id, host, owner, full_name, repo_id, state, since, first_seen
FROM owner_repos;

DROP TABLE owner_repos;
ALTER TABLE owner_repos_0009 RENAME TO owner_repos;
