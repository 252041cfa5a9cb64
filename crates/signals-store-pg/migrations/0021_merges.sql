-- 0021_merges: who merged each merged pull request, where the host says
-- so in an answer a run already asks (GitHub's `mergedBy` in the reviews
-- query): a maintainer who only merges is active
-- (signals_core::lifecycle::contributors::carriers). One row per pull
-- request, written as the run reads it, before the run's commit, as its
-- comments are; the last reading stands.
--
-- Never edit this file once merged. The index by time serves the
-- maintainers' count, which reads the last 90 days of merges.
CREATE TABLE merges (
    repo      BIGINT NOT NULL REFERENCES repositories (key),
    item_key  TEXT COLLATE "C" NOT NULL,
    merged_by TEXT COLLATE "C" NOT NULL,
    bot       BIGINT NOT NULL,
    merged_s  BIGINT NOT NULL,
    PRIMARY KEY (repo, item_key)
);

CREATE INDEX merges_by_time ON merges (repo, merged_s);
