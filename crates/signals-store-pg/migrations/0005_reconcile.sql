-- 0005_reconcile: the SQLite store's 0006_reconcile. Which runs listed
-- every item of their repository (issue 20). Never edit once merged.
ALTER TABLE runs ADD COLUMN reconciled BIGINT NOT NULL DEFAULT 0
    CHECK (reconciled IN (0, 1));
