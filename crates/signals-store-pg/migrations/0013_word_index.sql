-- 0013_word_index: the word index of `signals serve`'s `q` and the static
-- site's search (issue 28, signals_store::search); SQLite's 0014_word_index.
--
-- Never edit this file once merged. Derived data, rebuilt from snapshots:
-- `signals migrate` copies none of it, and a store from before starts with
-- no row here and is indexed whole by its first catch-up. Terms compare by
-- bytes (COLLATE "C"), as in SQLite, so a prefix is a key range and both
-- stores expand it to the same terms.
-- `written` is the `through` of the update that last wrote a block; a block
-- left without documents stays, empty, so an incremental export of the
-- static site's index sees which terms changed since it wrote them.
CREATE TABLE search_postings (
    repo  BIGINT NOT NULL REFERENCES repositories (key),
    term  TEXT COLLATE "C" NOT NULL,
    block BIGINT NOT NULL CHECK (block >= 0),
    data  BYTEA NOT NULL,
    written BIGINT NOT NULL,
    PRIMARY KEY (repo, term, block)
);

CREATE INDEX search_postings_by_written ON search_postings (repo, written);

CREATE TABLE search_docs (
    repo    BIGINT NOT NULL REFERENCES repositories (key),
    item_id TEXT NOT NULL,
    doc     BIGINT NOT NULL CHECK (doc >= 0),
    len     BIGINT NOT NULL CHECK (len >= 0),
    terms   TEXT NOT NULL,
    PRIMARY KEY (repo, item_id)
);

CREATE TABLE search_state (
    repo      BIGINT PRIMARY KEY REFERENCES repositories (key),
    through   BIGINT NOT NULL,
    next_doc  BIGINT NOT NULL CHECK (next_doc >= 0),
    docs      BIGINT NOT NULL CHECK (docs >= 0),
    total_len BIGINT NOT NULL CHECK (total_len >= 0)
);

CREATE INDEX items_by_latest ON items (repo, latest);

-- Items whose comments were stored since the index last read them: a
-- comment (or an edit of one) that did not give its item a new snapshot
-- still reaches the index at the next catch-up.
CREATE TABLE search_dirty (
    repo BIGINT NOT NULL REFERENCES repositories (key),
    item TEXT NOT NULL,
    PRIMARY KEY (repo, item)
);

-- The trigram index of 0004_text_search (where pg_trgm made it) is replaced
-- by the word index: no read uses it, and every stored text no longer pays
-- for it. The extension stays: other databases may use it.
DROP INDEX IF EXISTS texts_trigrams;
