-- 0006_owners: the SQLite store's 0007_owners. The owners a group lists
-- and the repositories found through them (issue 20, part 1); a
-- repository is never deleted from here (one no longer listed is `gone`).
-- `claimed_at` is text like every data timestamp (so the two stores copy
-- row for row), written from the server's clock and compared as
-- timestamptz, so that of several workers one lists an owner per interval.
-- Never edit once merged.

CREATE TABLE owners (
    group_id          TEXT COLLATE "C" NOT NULL REFERENCES groups (id),
    host              TEXT COLLATE "C" NOT NULL,
    owner             TEXT COLLATE "C" NOT NULL,
    claimed_at        TEXT COLLATE "C",
    listed_at         TEXT COLLATE "C",
    listings          BIGINT NOT NULL DEFAULT 0 CHECK (listings >= 0),
    last_requests     BIGINT NOT NULL DEFAULT 0 CHECK (last_requests >= 0),
    last_not_modified BIGINT NOT NULL DEFAULT 0 CHECK (last_not_modified >= 0),
    requests          BIGINT NOT NULL DEFAULT 0 CHECK (requests >= 0),
    not_modified      BIGINT NOT NULL DEFAULT 0 CHECK (not_modified >= 0),
    bytes_received    BIGINT NOT NULL DEFAULT 0 CHECK (bytes_received >= 0),
    failed_at         TEXT COLLATE "C",
    last_error        TEXT COLLATE "C",
    PRIMARY KEY (group_id, host, owner)
);

CREATE TABLE owner_repos (
    group_id   TEXT COLLATE "C" NOT NULL,
    host       TEXT COLLATE "C" NOT NULL,
    owner      TEXT COLLATE "C" NOT NULL,
    full_name  TEXT COLLATE "C" NOT NULL,
    repo_id    TEXT COLLATE "C" NOT NULL,
    state      TEXT COLLATE "C" NOT NULL
        CHECK (state IN ('tracked', 'gone', 'archived', 'fork', 'excluded')),
    since      TEXT COLLATE "C" NOT NULL,
    first_seen TEXT COLLATE "C" NOT NULL,
    PRIMARY KEY (group_id, host, owner, full_name),
    UNIQUE (group_id, repo_id),
    FOREIGN KEY (group_id, host, owner) REFERENCES owners (group_id, host, owner)
);
