-- 0019_lifecycle: a repository's lifecycle as the run that judged it
-- found it (signals_core::lifecycle::verdict::Record, as JSON): its
-- state, since when, its reasons, who carries the repository, and the
-- host's commits per week with when they were asked, so they are asked
-- at most daily. A run that did not judge writes no row; a repository's
-- lifecycle is its latest row.
--
-- Never edit this file once merged. The index by time on comments
-- serves the maintainers' count, which reads the last 90 days of a
-- repository's comments and reviews.
CREATE TABLE lifecycle (
    run    INTEGER PRIMARY KEY REFERENCES runs (id),
    repo   INTEGER NOT NULL REFERENCES repositories (key),
    state  TEXT NOT NULL,
    record TEXT NOT NULL
) STRICT;

CREATE INDEX lifecycle_by_repo ON lifecycle (repo, run);

CREATE INDEX comments_by_time ON comments (repo, created_s);
