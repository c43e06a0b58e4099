-- Feed cursors are sealed from this migration on (docs/decisions.md,
-- "Sealed feed cursors"): a position counts every organization's events,
-- so a cursor that showed it told a consumer how many others stored. The
-- cursors of the first form, handed out until now, are still read, as
-- positions no later than this one: past every event stored so far. One
-- written by hand since compares nothing stored after it.
CREATE TABLE feed_cursor_ceiling (seq INTEGER NOT NULL) STRICT;
INSERT INTO feed_cursor_ceiling SELECT coalesce(max(seq), 0) FROM events;
