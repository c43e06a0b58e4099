-- Merge the search index's segments eight at a time instead of four: an
-- import spends half its time in the trigram index, a third of that in
-- merges, and wider merges rewrite each entry fewer times (BenchmarkImport:
-- 15,700 → 20,000 events/s). Queries read at most a few more segments.
INSERT INTO events_search (events_search, rank) VALUES ('automerge', 8);
