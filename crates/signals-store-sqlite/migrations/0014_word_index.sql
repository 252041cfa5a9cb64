-- 0014_word_index: the word index of `signals serve`'s `q` and the static
-- site's search (issue 28, signals_store::search).
--
-- Never edit this file once merged. Derived data, rebuilt from snapshots:
-- `signals migrate` copies none of it, and a store from before starts with
-- no row here and is indexed whole by its first catch-up (`through` = 0).
--
-- `search_postings`: per repository and term, the documents holding it, cut
-- into blocks of 4,096 document numbers (the bytes are
-- signals_core::search::postings' format). `search_docs`: each indexed
-- item's document number, weighted length and distinct terms (sorted, `\n`
-- between), to take it out of the blocks when it changes. `search_state`:
-- per repository, how far the index has read (every item whose latest
-- snapshot id is at most `through` is indexed), the next document number,
-- and the statistics BM25 needs. `items_by_latest` finds the items changed
-- since `through` without reading the others.
-- `written` is the `through` of the update that last wrote a block; a block
-- left without documents stays, empty, so an incremental export of the
-- static site's index sees which terms changed since it wrote them.
CREATE TABLE search_postings (
    repo  INTEGER NOT NULL REFERENCES repositories (key),
    term  TEXT NOT NULL,
    block INTEGER NOT NULL CHECK (block >= 0),
    data  BLOB NOT NULL,
    written INTEGER NOT NULL,
    PRIMARY KEY (repo, term, block)
) STRICT, WITHOUT ROWID;

CREATE INDEX search_postings_by_written ON search_postings (repo, written);

CREATE TABLE search_docs (
    repo    INTEGER NOT NULL REFERENCES repositories (key),
    item_id TEXT NOT NULL,
    doc     INTEGER NOT NULL CHECK (doc >= 0),
    len     INTEGER NOT NULL CHECK (len >= 0),
    terms   TEXT NOT NULL,
    PRIMARY KEY (repo, item_id)
) STRICT, WITHOUT ROWID;

CREATE TABLE search_state (
    repo      INTEGER PRIMARY KEY REFERENCES repositories (key),
    through   INTEGER NOT NULL,
    next_doc  INTEGER NOT NULL CHECK (next_doc >= 0),
    docs      INTEGER NOT NULL CHECK (docs >= 0),
    total_len INTEGER NOT NULL CHECK (total_len >= 0)
) STRICT;

CREATE INDEX items_by_latest ON items (repo, latest);

-- Items whose comments were stored since the index last read them: a
-- comment (or an edit of one) that did not give its item a new snapshot
-- still reaches the index at the next catch-up.
CREATE TABLE search_dirty (
    repo INTEGER NOT NULL REFERENCES repositories (key),
    item TEXT NOT NULL,
    PRIMARY KEY (repo, item)
) STRICT, WITHOUT ROWID;

-- The trigram index of 0005_text_search is replaced by the word index: no
-- read uses it, and every stored text no longer pays for it.
DROP TRIGGER IF EXISTS texts_trigrams_insert;
DROP TRIGGER IF EXISTS texts_trigrams_delete;
DROP TABLE IF EXISTS texts_trigrams;
