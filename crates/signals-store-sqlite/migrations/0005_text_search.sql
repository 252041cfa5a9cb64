-- 0005_text_search: a trigram index of every text, for `serve`'s `q`
-- (issue 17).
--
-- Never edit this file once merged. `texts_trigrams` is an FTS5 table over
-- `texts` (external content: it stores no copy of a text, only which texts
-- hold each three-character sequence, `detail=none`), kept up to date by
-- the two triggers below (texts are inserted and deleted, never updated).
-- A search asks it for the texts holding every trigram of the query, case
-- folded; the caller then checks each candidate exactly. Heads (JSON with
-- the title) and bodies are both indexed, so a query finds an item by
-- either.
CREATE VIRTUAL TABLE texts_trigrams USING fts5(
    text, content = 'texts', content_rowid = 'id',
    tokenize = 'trigram', detail = 'none'
);
INSERT INTO texts_trigrams (texts_trigrams) VALUES ('rebuild');

CREATE TRIGGER texts_trigrams_insert AFTER INSERT ON texts BEGIN
    INSERT INTO texts_trigrams (rowid, text) VALUES (new.id, new.text);
END;
CREATE TRIGGER texts_trigrams_delete AFTER DELETE ON texts BEGIN
    INSERT INTO texts_trigrams (texts_trigrams, rowid, text) VALUES ('delete', old.id, old.text);
END;
