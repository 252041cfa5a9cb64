-- 0004_outbox: the outbox of alerts (issue 19); PostgreSQL's 0003_outbox.
--
-- Never edit this file once merged. A run's `[[notify]]` messages are
-- inserted by `commit_run` in the run's own transaction, so a run that
-- rolls back leaves none and a crash after the commit loses none.
-- `signals notify` claims a pending message (`claimed_ms`, a lease),
-- sends it, and settles it. Times are milliseconds since the Unix epoch
-- (they are compared, never shown as text). No secret is stored here: a
-- rule's URL and credentials stay in the configuration and the
-- environment, and errors are written without them.
CREATE TABLE outbox (
    id         INTEGER PRIMARY KEY,
    delivery   TEXT NOT NULL UNIQUE,       -- stable id, X-Signals-Delivery
    rule       TEXT NOT NULL,              -- the [[notify]] rule's name
    repo       INTEGER REFERENCES repositories (key) ON DELETE CASCADE, -- NULL for a digest
    run        INTEGER REFERENCES runs (id) ON DELETE CASCADE,          -- NULL for a digest
    state      TEXT NOT NULL
               CHECK (state IN ('held', 'pending', 'delivered', 'failed', 'digested')),
    created_ms INTEGER NOT NULL,           -- the run's commit (a digest: when made)
    next_ms    INTEGER NOT NULL,           -- due from then on (backoff)
    claimed_ms INTEGER,                    -- a sender's claim lasts until then
    attempts   INTEGER NOT NULL DEFAULT 0 CHECK (attempts >= 0),
    tried_ms   INTEGER,                    -- the last attempt
    last_error TEXT,                       -- the last attempt's error, without secrets
    digest     INTEGER REFERENCES outbox (id) ON DELETE SET NULL, -- the digest that holds it
    body       TEXT NOT NULL               -- JSON signals_core::notify::Payload
) STRICT;

-- What is due, in order; each rule's messages (status, digests).
CREATE INDEX outbox_due ON outbox (state, next_ms);
CREATE INDEX outbox_rule ON outbox (rule, state);
