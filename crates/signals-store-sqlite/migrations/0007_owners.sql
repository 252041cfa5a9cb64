-- 0007_owners: whole organisations and groups (issue 20, part 1): the
-- owners a group lists (a GitHub organisation or user, a GitLab group, a
-- Forgejo organisation), and the repositories found through them.
--
-- Never edit this file once merged. Only repositories a group tracks or
-- once tracked are kept (an organisation's forks cost no rows); a
-- repository is never deleted from here: one the owner no longer lists is
-- `gone`, and its history stays in `runs`, `snapshots` and `events`.

-- One owner of one group on one configured host.
CREATE TABLE owners (
    group_id        TEXT NOT NULL REFERENCES groups (id),
    host            TEXT NOT NULL,             -- the configured host's name
    owner           TEXT NOT NULL,             -- as configured (`vllm-project`, `gnome/world`)
    claimed_at      TEXT,                      -- when a collection last took the listing on
    listed_at       TEXT,                      -- the last successful listing
    listings        INTEGER NOT NULL DEFAULT 0 CHECK (listings >= 0),
    last_requests   INTEGER NOT NULL DEFAULT 0 CHECK (last_requests >= 0),  -- of the last listing
    last_not_modified INTEGER NOT NULL DEFAULT 0 CHECK (last_not_modified >= 0),
    requests        INTEGER NOT NULL DEFAULT 0 CHECK (requests >= 0),       -- of all listings
    not_modified    INTEGER NOT NULL DEFAULT 0 CHECK (not_modified >= 0),
    bytes_received  INTEGER NOT NULL DEFAULT 0 CHECK (bytes_received >= 0),
    failed_at       TEXT,                      -- the last failed listing, NULL after a success
    last_error      TEXT,
    PRIMARY KEY (group_id, host, owner)
) STRICT;

-- A repository found through an owner, under the id it was given when the
-- group first tracked it.
CREATE TABLE owner_repos (
    group_id   TEXT NOT NULL,
    host       TEXT NOT NULL,
    owner      TEXT NOT NULL,
    full_name  TEXT NOT NULL,                  -- `owner/name` as last listed
    repo_id    TEXT NOT NULL,                  -- its repository id in the group
    state      TEXT NOT NULL CHECK (state IN ('tracked', 'gone', 'archived', 'fork', 'excluded')),
    since      TEXT NOT NULL,                  -- when it took that state
    first_seen TEXT NOT NULL,                  -- when it was first tracked
    PRIMARY KEY (group_id, host, owner, full_name),
    UNIQUE (group_id, repo_id),
    FOREIGN KEY (group_id, host, owner) REFERENCES owners (group_id, host, owner)
) STRICT;
