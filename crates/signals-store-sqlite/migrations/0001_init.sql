-- 0001_init: the first schema of the Repo Signals store.
--
-- Never edit this file once merged: add 0002_*.sql instead. Migrations run in
-- order inside a transaction; `PRAGMA user_version` records the last applied.
--
-- Conventions:
-- - Timestamps are TEXT in RFC 3339, UTC, written by jiff with exactly the
--   precision they carry (`2026-11-21T10:00:00.123Z`), so they round-trip
--   exactly. Chronological order is never taken from this text: runs are
--   ordered by their INTEGER id, which the store only hands out in
--   collection order (commit refuses a run that is not after the last one).
-- - JSON columns hold signals-core types as serde writes them.
-- - Counters are INTEGER and never negative.
-- - Nothing here holds an access token: the HTTP cache and the rate limits
--   are keyed by a fingerprint the caller computes.

-- Marks the file as a signals store ("RSig"), so another SQLite database is
-- refused instead of being migrated.
PRAGMA application_id = 1381198183;

-- A group of tracked repositories, as configured.
CREATE TABLE groups (
    id   TEXT PRIMARY KEY,   -- slug, unique among groups
    name TEXT NOT NULL       -- display name
) STRICT;

-- A tracked repository. `key` is the stable RepoKey; the identity is the
-- dataset's address (group id, repository id). Display fields are updated
-- from the configuration at each collection.
CREATE TABLE repositories (
    key          INTEGER PRIMARY KEY,
    group_id     TEXT NOT NULL REFERENCES groups (id),
    repo_id      TEXT NOT NULL,               -- slug, unique within its group
    source       TEXT NOT NULL,               -- `github`, ...
    full_name    TEXT NOT NULL,               -- configured `owner/name`
    display_name TEXT NOT NULL,
    keywords     TEXT NOT NULL DEFAULT '[]',  -- JSON array of strings
    host_name    TEXT,                        -- `owner/name` on the host after a rename, else NULL
    missing      INTEGER NOT NULL DEFAULT 0 CHECK (missing IN (0, 1)), -- host said not found at the last attempt
    last_error   TEXT,                        -- message of the last failed attempt, NULL after a success
    UNIQUE (group_id, repo_id)
) STRICT;

-- One successful collection run of one repository. A failed attempt writes
-- nothing here (see `failures`).
CREATE TABLE runs (
    id             INTEGER PRIMARY KEY,       -- collection order
    repo           INTEGER NOT NULL REFERENCES repositories (key),
    collected_at   TEXT NOT NULL,
    since          TEXT NOT NULL,             -- lower bound of updatedAt asked for
    observed_count INTEGER NOT NULL CHECK (observed_count >= 0),
    changed_count  INTEGER NOT NULL CHECK (changed_count BETWEEN 0 AND observed_count),
    requests       INTEGER NOT NULL CHECK (requests >= 0),
    not_modified   INTEGER NOT NULL CHECK (not_modified >= 0),  -- 304 answers
    bytes_received INTEGER NOT NULL CHECK (bytes_received >= 0),
    retries        INTEGER NOT NULL CHECK (retries >= 0),
    context        TEXT NOT NULL,             -- JSON RepoContext seen by this run
    news           TEXT NOT NULL,             -- JSON News computed by this run
    UNIQUE (repo, collected_at)
) STRICT;
CREATE INDEX runs_by_repo ON runs (repo, id);

-- Every distinct snapshot of every item; rows are only ever added, so any
-- item's history can be rebuilt. The latest snapshot of an item is the one
-- with the greatest id.
CREATE TABLE snapshots (
    id         INTEGER PRIMARY KEY,
    repo       INTEGER NOT NULL REFERENCES repositories (key),
    item_id    TEXT NOT NULL,                 -- signal id `<source>:<owner>/<name>:<kind>:<key>`
    kind       TEXT NOT NULL CHECK (kind IN ('issue', 'pull_request', 'release')),
    item_key   TEXT NOT NULL,                 -- issue/PR number or release tag
    updated_at TEXT NOT NULL,
    title      TEXT NOT NULL,                 -- copied from content for the trail
    url        TEXT NOT NULL,                 -- copied from content for the trail
    content    TEXT NOT NULL,                 -- JSON ItemSnapshot
    run        INTEGER NOT NULL REFERENCES runs (id),  -- the run that saw it
    UNIQUE (run, item_id)
) STRICT;
CREATE INDEX snapshots_by_item ON snapshots (repo, item_id, id);

-- Observation events: what a run recorded about an item. `snapshot` is the
-- item's snapshot stored with (or before) the event; the trail shows its
-- title and URL.
CREATE TABLE events (
    id       INTEGER PRIMARY KEY,
    run      INTEGER NOT NULL REFERENCES runs (id),
    item_id  TEXT NOT NULL,
    kind     TEXT NOT NULL CHECK (kind IN ('discovered', 'changed')),
    detail   TEXT NOT NULL,                   -- `initial snapshot` or `text, state, ...`
    fields   TEXT NOT NULL DEFAULT '[]',      -- JSON array of the changed field names
    snapshot INTEGER NOT NULL REFERENCES snapshots (id),
    UNIQUE (run, item_id)
) STRICT;

-- Importance scores: derived data, replaced as a whole at each run.
CREATE TABLE scores (
    repo    INTEGER NOT NULL REFERENCES repositories (key),
    item_id TEXT NOT NULL,
    total   INTEGER NOT NULL CHECK (total >= 0),
    score   TEXT NOT NULL,                    -- JSON importance::Score with its terms
    run     INTEGER NOT NULL REFERENCES runs (id),
    PRIMARY KEY (repo, item_id)
) STRICT;

-- One row per failed collection attempt, for `signals status`.
CREATE TABLE failures (
    id      INTEGER PRIMARY KEY,
    repo    INTEGER NOT NULL REFERENCES repositories (key),
    at      TEXT NOT NULL,
    kind    TEXT NOT NULL,                    -- not_found, rate_limited, http, decode, ...
    message TEXT NOT NULL
) STRICT;
CREATE INDEX failures_by_repo ON failures (repo, id);

-- Responses kept for conditional requests. `token_fingerprint` is a digest
-- the caller computes (empty for anonymous requests), never the token.
CREATE TABLE http_cache (
    url               TEXT NOT NULL,
    token_fingerprint TEXT NOT NULL,
    etag              TEXT,
    last_modified     TEXT,
    link_next         TEXT,                   -- the `Link: rel="next"` URL, if any
    body              BLOB NOT NULL,
    stored_at         TEXT NOT NULL,
    PRIMARY KEY (url, token_fingerprint)
) STRICT;

-- The rate limit last reported by the host, per token fingerprint.
CREATE TABLE rate_limits (
    token_fingerprint TEXT PRIMARY KEY,
    rate_limit        INTEGER NOT NULL CHECK (rate_limit >= 0),
    remaining         INTEGER NOT NULL CHECK (remaining >= 0),
    reset_at          TEXT NOT NULL,
    seen_at           TEXT NOT NULL
) STRICT;
