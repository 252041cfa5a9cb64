-- 0018_split_postings: a block of the word index (issue 28) is kept as two
-- strings of bytes, its documents' counts (`data`) and their positions
-- (`positions`), so a word's query reads the counts alone: a word in every
-- one of 100,000 items reads about 500 KB instead of 1.6 MB, and only a
-- phrase reads the positions (signals_core::search::postings, `Block`).
--
-- Never edit this file once merged. Both columns are stored out of line
-- without compression: varint lists hardly compress, and a read then
-- never decompresses. Its step in Rust (`search::migrate_0018`) cuts every
-- stored block of the first format into the two parts, byte for byte:
-- nothing is indexed again.
ALTER TABLE search_postings ADD COLUMN positions bytea NOT NULL DEFAULT '';
ALTER TABLE search_postings ALTER COLUMN data SET STORAGE EXTERNAL;
ALTER TABLE search_postings ALTER COLUMN positions SET STORAGE EXTERNAL;
