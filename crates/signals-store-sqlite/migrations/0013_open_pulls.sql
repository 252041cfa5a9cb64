-- 0013_open_pulls: the open pull requests a repository's store holds
-- (issue 27, part 3). PostgreSQL's 0012_open_pulls is the same change.
-- Never edit this file once merged.
--
-- `open_pulls` is the number of open pull requests among the items'
-- latest snapshots, kept only while the store holds the repository's
-- whole history (its first run's window reached the repository's
-- creation and every later run covered its window); NULL otherwise, and
-- the host is asked. Each run's commit writes it as the collector
-- computed it from the previous count and the run's items, so keeping it
-- costs what the run observed, never a count over the repository's items.
-- `open_pulls_differed` is what a reconcile found when the kept count and
-- the host's differed (`kept K, host H at T`); from then on the count is
-- NULL. Stores from before this migration have no count: they ask.
ALTER TABLE repositories ADD COLUMN open_pulls INTEGER CHECK (open_pulls >= 0);
ALTER TABLE repositories ADD COLUMN open_pulls_differed TEXT;
