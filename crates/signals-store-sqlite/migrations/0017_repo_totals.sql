-- 0017_repo_totals: each repository's totals kept, not recomputed (issue
-- 27, part 4).
--
-- Never edit this file once merged. `status` (and `/metrics`,
-- `/api/groups`) counted each repository's items and added up all its runs
-- and failures on every call: a cost that grew with the history (8,760
-- runs a year for a repository collected hourly). Every write that changes
-- them now adds to this row in its own transaction (`totals.rs`), so a row
-- equals a recount of the repository's rows:
-- - items: its items; runs: its runs; changed, requests, not_modified,
--   bytes, retries: the sums of its runs' changed_count, requests,
--   not_modified, bytes_received, retries; failures: its failures;
-- - failures_since: its failures after its latest run (the one of the
--   largest id), compared as instants (`unixepoch(at, 'subsec') >
--   unixepoch(collected_at, 'subsec')`), all of them when it has no run.
-- A repository without a row has none of these. Deleted with its
-- repository.
CREATE TABLE repo_totals (
    repo           INTEGER PRIMARY KEY REFERENCES repositories (key) ON DELETE CASCADE,
    items          INTEGER NOT NULL DEFAULT 0 CHECK (items >= 0),
    runs           INTEGER NOT NULL DEFAULT 0 CHECK (runs >= 0),
    changed        INTEGER NOT NULL DEFAULT 0 CHECK (changed >= 0),
    requests       INTEGER NOT NULL DEFAULT 0 CHECK (requests >= 0),
    not_modified   INTEGER NOT NULL DEFAULT 0 CHECK (not_modified >= 0),
    bytes          INTEGER NOT NULL DEFAULT 0 CHECK (bytes >= 0),
    retries        INTEGER NOT NULL DEFAULT 0 CHECK (retries >= 0),
    failures       INTEGER NOT NULL DEFAULT 0 CHECK (failures >= 0),
    failures_since INTEGER NOT NULL DEFAULT 0 CHECK (failures_since BETWEEN 0 AND failures)
);

-- Every repository's row is filled in from the rows stored before by the
-- migration's Rust step (`totals::recount`, what `signals migrate` runs too).
