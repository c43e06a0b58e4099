-- The feed's index keys each run of 32 consecutive seq of a transaction
-- once: (org, xid, seq >> 5) instead of (org, xid, seq). Its equal keys
-- are deduplicated into one entry with a list of rows (PostgreSQL 13's
-- B-tree deduplication), about 6 bytes an event where (org, xid, seq)
-- took 36 (docs/decisions.md, "Bytes per event"). The feed reads it in
-- (xid, seq >> 5) order and sorts each run by seq (an incremental sort;
-- feedOrder in internal/postgres/feed.go), so a page reads at most a run
-- past its ends. An event alone in its transaction takes what it took.
--
-- The new index is built beside the old one, which is dropped after, so
-- that reads keep an index until the drop; writes wait while it is built
-- (about 0.5 s per million events on two cores). A release before this
-- one reads the feed correctly through it, but sorts each transaction it
-- reads whole, which for a history moved from SQLite (all xid 0) is all
-- of it: stop its instances first (docs/deploy.md).
--
-- A month retention detached and has not dropped yet keeps its own copy
-- of the old index, which an attach would keep beside the new one: it is
-- dropped here (as 0032 did), and an attach builds the new one.
DO $$
DECLARE idx regclass;
BEGIN
  FOR idx IN SELECT i.indexrelid::regclass FROM pg_index i JOIN pg_class t ON t.oid = i.indrelid
    WHERE t.relkind = 'r' AND NOT t.relispartition AND t.relnamespace = current_schema()::regnamespace
      AND t.relname ~ '^events_[0-9]{4}_[0-9]{2}$'
      AND pg_get_indexdef(i.indexrelid) LIKE '%(org, xid, seq)%'
  LOOP
    EXECUTE format('DROP INDEX %s', idx);
  END LOOP;
END $$;

CREATE INDEX events_feed_0035 ON events (org, xid, (seq >> 5)) WITH (fillfactor = 100);
DROP INDEX events_feed;
ALTER INDEX events_feed_0035 RENAME TO events_feed;
