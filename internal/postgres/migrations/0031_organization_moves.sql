-- Moving an organization to another primary (gatehouse shard move,
-- docs/decisions.md "Organizations on several primaries"). The copy keeps
-- every row's position (xid, seq) as the source gave it, and consumers
-- keep their cursors for ever, but the target's own transaction ids may
-- be lower than the source's: its new rows would sort before the copied
-- ones, and its feed horizon would hold back none of them.
--
-- xid_shift is what this database adds to its transaction ids for the
-- organization, in every position it writes (events, command changes,
-- lockdown changes) and every bound it reads (the feeds' horizon, the
-- next transaction id a cursor must be below, the webhook and alert
-- heads, the player rollup's fold): the mover sets it past the largest
-- copied position. 0, every organization never moved, changes nothing.
--
-- cursor_ceiling, when set, is the organization's ceiling for cursors of
-- the first form instead of feed_cursor_ceiling's (0019): those cursors
-- were handed out by the source, so a moved organization carries the
-- source's ceiling, and this database's would compare them with
-- positions of another numbering.
ALTER TABLE organizations ADD COLUMN xid_shift bigint NOT NULL DEFAULT 0,
  ADD COLUMN cursor_ceiling xid8;

-- The directory marks an organization being moved: every instance's
-- router holds its calls until the move ends, so that nothing is written
-- to the source once the last rows are copied.
ALTER TABLE organization_shards ADD COLUMN moving boolean NOT NULL DEFAULT false;

-- A command change is positioned as events are, so by the organization's
-- shift too (0013_webhooks.sql): a lookup by primary key per changed
-- command.
CREATE OR REPLACE FUNCTION commands_changed() RETURNS trigger LANGUAGE plpgsql AS $$
BEGIN
  IF NEW.issued AND (TG_OP = 'INSERT' OR NEW.status IS DISTINCT FROM OLD.status) THEN
    NEW.change_xid := (pg_current_xact_id()::text::bigint
      + (SELECT o.xid_shift FROM organizations o WHERE o.seq = NEW.org))::text::xid8;
    NEW.change_seq := nextval('command_changes');
  END IF;
  RETURN NEW;
END $$;
