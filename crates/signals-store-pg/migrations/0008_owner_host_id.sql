-- 0008_owner_host_id: renames within an owner, followed through the
-- host's numeric repository id (SQLite's 0009_owner_host_id). Never edit
-- this file once merged.
--
-- `owner_repos` gains the host's id (NULL for rows stored before, until
-- the next listing names them), the name a renamed repository was first
-- tracked under (its signal ids keep it; NULL when not renamed) and when
-- it was last renamed. Its primary key becomes the repository id: after a
-- rename, a repository may take the name a gone one still holds.

ALTER TABLE owner_repos
    ADD COLUMN host_id    BIGINT CHECK (host_id >= 0),
    ADD COLUMN tracked_as TEXT COLLATE "C",
    ADD COLUMN renamed_at TEXT COLLATE "C",
    DROP CONSTRAINT owner_repos_pkey,
    ADD PRIMARY KEY (group_id, host, owner, repo_id);
