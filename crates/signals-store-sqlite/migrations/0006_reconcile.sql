-- 0006_reconcile: which runs listed every item of their repository
-- (issue 20, the periodic reconcile), so the next one can be planned and
-- `status`, the pages and the API can say when it last happened.
--
-- Never edit this file once merged. 1 for a reconcile run, 0 for a run
-- that asked only for the items updated since its `since` (every run
-- before this migration).
ALTER TABLE runs ADD COLUMN reconciled INTEGER NOT NULL DEFAULT 0
    CHECK (reconciled IN (0, 1));
