-- 0023_related_gone: the items a reconcile found no longer listed by the
-- host (deleted, transferred, hidden), marked by the run's commit until a
-- catch-up of related items takes them out of every list
-- (signals_store::related).
--
-- Never edit this file once merged. State of related items, like 0022's:
-- no dump carries it (`signals migrate` copies it through the store
-- role). A store from before has no mark: an item found gone before it
-- stays listed, as closed.
--
-- `snapshot`: the id of the snapshot that closed the item. The mark
-- counts only while that is the item's latest (an item listed again has
-- a newer one); a catch-up clears the marks its `through` passed.
CREATE TABLE related_gone (
    repo     INTEGER NOT NULL REFERENCES repositories (key),
    item_id  TEXT NOT NULL,
    snapshot INTEGER NOT NULL,
    PRIMARY KEY (repo, item_id)
) STRICT, WITHOUT ROWID;
