-- Rebuild the search index over gatehouse.FoldCase of the searched text,
-- with a case-sensitive tokenizer: the trigram tokenizer's own folding
-- differs from the scan's (it keeps İ apart from i, Go's lower-casing keeps
-- ſ, ς and ı apart from s, σ and i), so a term's matches depended on which
-- path a page took. Reads every event once.
DROP TABLE events_search;
CREATE VIRTUAL TABLE events_search USING fts5 (text, content = '', tokenize = 'trigram case_sensitive 1');
INSERT INTO events_search (events_search, rank) VALUES ('automerge', 8);
INSERT INTO events_search (rowid, text)
  SELECT seq, gatehouse_search_text(id, platform_user_id, access_point_name, location_name, reason, server_job_id)
  FROM events;
