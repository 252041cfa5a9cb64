-- 0015_run_stage: a run's stage (issue 27, part 2; signals_store::staging).
--
-- Never edit this file once merged. The items of a run, written as the
-- host's pages arrive, each page in a transaction of its own, and read back
-- in chunks by the run's commit, so a first collection need not hold every
-- item in memory. No read of the repository sees these rows; a killed run
-- leaves them until the next run of its repository starts its own stage.
-- `signals migrate` copies none of it.
--
-- `run_stages`: per repository, the instant of the run whose stage it is.
-- `run_stage_items`: one row per signal id, the item of its last sighting
-- as JSON, read back in signal id order (the order of a run's events).
CREATE TABLE run_stages (
    repo         INTEGER PRIMARY KEY REFERENCES repositories (key),
    collected_s  INTEGER NOT NULL,
    collected_ns INTEGER NOT NULL
) STRICT;

CREATE TABLE run_stage_items (
    repo     INTEGER NOT NULL REFERENCES run_stages (repo),
    item_id  TEXT NOT NULL,
    snapshot TEXT NOT NULL,
    PRIMARY KEY (repo, item_id)
) STRICT, WITHOUT ROWID;
