-- Issue 27, part 4: `status` reads each repository's latest reconcile (a
-- run that listed every item). By `runs_by_repo` alone that walks the
-- repository's runs back to its last reconcile, all of them when there was
-- none: a cost that grows with the history. A partial index of the
-- reconciles finds it in one step.
CREATE INDEX runs_reconciled ON runs (repo, id) WHERE reconciled = 1;
