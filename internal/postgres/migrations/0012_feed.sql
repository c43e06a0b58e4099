-- The feed: events in the order they were stored, behind a cursor that
-- never skips one. seq is handed out at insert, but transactions commit
-- in any order: a reader past seq 10 would never see a seq 9 committed
-- after it. Each row keeps the id of the transaction that wrote it, and
-- the feed reads only rows of transactions older than the oldest still
-- running (pg_snapshot_xmin), in the order (xid, seq): no transaction
-- still in flight can land before a position handed out
-- (docs/decisions.md, "Feed positions").
--
-- The events stored before this migration keep xid 0 and come first, in
-- seq order; a constant default adds the column without rewriting the
-- table.
ALTER TABLE events ADD COLUMN xid xid8 NOT NULL DEFAULT '0';
ALTER TABLE events ALTER COLUMN xid SET DEFAULT pg_current_xact_id();
CREATE INDEX events_feed ON events (org, xid, seq);
