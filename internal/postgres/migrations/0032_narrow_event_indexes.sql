-- The filter indexes of events without the event id, ascending, and every
-- index of events packed full (docs/decisions.md, "Bytes per event",
-- steps 2 and 4). An index that ends with the 16-byte id and descends
-- splits its pages in halves as each group grows at its end and stays
-- about half empty; without the id, a page of events reads the index
-- backwards and sorts each millisecond's few events by id (an incremental
-- sort), and a keyset cursor bounds the index on its time. fillfactor 100
-- leaves no room on pages that inserts fill at the end of their group.
--
-- Each new index is built beside the old one, which is dropped after, so
-- that reads keep an index throughout; writes wait while the indexes are
-- built (about 7.5 s per million events on two cores; docs/deploy.md,
-- "Upgrades and migrations"). A partition created later takes the same
-- indexes and options from the parent.
--
-- A month retention detached and has not dropped yet is no partition: the
-- indexes below do not reach it, and attached again (ingest, or the next
-- pass finding events it must keep) it would keep its old ones beside the
-- new. Its indexes are dropped here; an attach builds the new ones. (A
-- month left detaching, DETACH … CONCURRENTLY cut short, loses its
-- indexes with the parent's and is finished, dropped or attached by
-- retention's next pass the same way.)
DO $$
DECLARE idx regclass;
BEGIN
  FOR idx IN SELECT i.indexrelid::regclass FROM pg_index i JOIN pg_class t ON t.oid = i.indrelid
    WHERE t.relkind = 'r' AND NOT t.relispartition AND t.relnamespace = current_schema()::regnamespace
      AND t.relname ~ '^events_([0-9]{4}_[0-9]{2}|legacy)$'
  LOOP
    EXECUTE format('DROP INDEX %s', idx);
  END LOOP;
END $$;

CREATE INDEX events_by_time_0032 ON events (org, occurred_at) WITH (fillfactor = 100);
CREATE INDEX events_by_access_point_0032 ON events (org, access_point_id, occurred_at) WITH (fillfactor = 100);
CREATE INDEX events_by_location_0032 ON events (org, location_id, occurred_at) WITH (fillfactor = 100);
CREATE INDEX events_by_type_0032 ON events (org, type, occurred_at) WITH (fillfactor = 100)
  WHERE type <> 'ACCESS_GRANTED';
CREATE INDEX events_by_user_0032 ON events (org, platform_user_id, occurred_at) WITH (fillfactor = 100);
CREATE INDEX events_by_reason_0032 ON events (org, reason, occurred_at) WITH (fillfactor = 100)
  WHERE reason IS NOT NULL;
CREATE INDEX events_by_scope_0032 ON events (org, scope, occurred_at) WITH (fillfactor = 100)
  WHERE scope IS NOT NULL;
CREATE UNIQUE INDEX events_by_key_0032 ON events (org, id, occurred_at) WITH (fillfactor = 100);
CREATE INDEX events_feed_0032 ON events (org, xid, seq) WITH (fillfactor = 100);

DROP INDEX events_by_time, events_by_access_point, events_by_location, events_by_type, events_by_user,
  events_by_reason, events_by_scope, events_by_key, events_feed;

ALTER INDEX events_by_time_0032 RENAME TO events_by_time;
ALTER INDEX events_by_access_point_0032 RENAME TO events_by_access_point;
ALTER INDEX events_by_location_0032 RENAME TO events_by_location;
ALTER INDEX events_by_type_0032 RENAME TO events_by_type;
ALTER INDEX events_by_user_0032 RENAME TO events_by_user;
ALTER INDEX events_by_reason_0032 RENAME TO events_by_reason;
ALTER INDEX events_by_scope_0032 RENAME TO events_by_scope;
ALTER INDEX events_by_key_0032 RENAME TO events_by_key;
ALTER INDEX events_feed_0032 RENAME TO events_feed;

-- The months built here are packed already: a month that ended a week
-- ago or more (compactAfter, internal/postgres/compact.go) is marked as
-- CompactPartitions marks the months it rebuilds, which would otherwise
-- build them all again.
DO $$
DECLARE r record;
BEGIN
  FOR r IN SELECT t.oid::regclass AS part FROM pg_inherits i JOIN pg_class t ON t.oid = i.inhrelid
    WHERE i.inhparent = 'events'::regclass AND t.relname ~ '^events_[0-9]{4}_[0-9]{2}$'
      AND to_date(substr(t.relname, 8), 'YYYY_MM') + interval '1 month' <= now() - interval '7 days'
  LOOP
    EXECUTE format('COMMENT ON TABLE %s IS %L', r.part, 'gatehouse: indexes rebuilt packed');
  END LOOP;
END $$;
