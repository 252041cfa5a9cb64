-- 0012_open_pulls: the SQLite store's 0013_open_pulls (issue 27, part 3).
-- The open pull requests a repository's store holds, kept only while it
-- holds the repository's whole history (NULL otherwise: the host is
-- asked), and what a reconcile found when the kept count and the host's
-- differed. Never edit once merged.
ALTER TABLE repositories ADD COLUMN open_pulls BIGINT CHECK (open_pulls >= 0);
ALTER TABLE repositories ADD COLUMN open_pulls_differed TEXT;
