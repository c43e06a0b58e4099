-- Feed cursors are sealed from this migration on (docs/decisions.md,
-- "Sealed feed cursors"): a position counts every organization's events
-- and transactions, so a cursor that showed it told a consumer how many
-- others stored. The cursors of the first form, handed out until now,
-- are still read, as positions no later than (this transaction, 0): past
-- every event of the transactions before it. One written by hand since
-- compares nothing stored after it.
CREATE TABLE feed_cursor_ceiling (xid xid8 NOT NULL);
INSERT INTO feed_cursor_ceiling VALUES (pg_current_xact_id());
