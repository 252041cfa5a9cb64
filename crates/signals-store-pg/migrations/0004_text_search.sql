-- 0004_text_search: a trigram index of every text, for `serve`'s `q`
-- (issue 17; SQLite's 0005_text_search).
--
-- Never edit this file once merged. pg_trgm (a contrib extension, trusted:
-- the database's owner may create it) indexes `lower(text)` by its
-- three-character sequences, so `lower(text) LIKE '%query%'` finds the
-- candidate texts by the index; the caller checks each exactly. Where the
-- extension is missing or may not be created, the migration still
-- succeeds without the index (a notice says so) and searches look at
-- every item of the repository instead: slower, with the same answers.
DO $$
BEGIN
    CREATE EXTENSION IF NOT EXISTS pg_trgm;
    CREATE INDEX texts_trigrams ON texts USING gin (lower(text) gin_trgm_ops);
EXCEPTION
    WHEN insufficient_privilege OR undefined_file OR undefined_object THEN
        RAISE NOTICE 'signals: pg_trgm is not available (%); text search will read every item', SQLERRM;
END
$$;
