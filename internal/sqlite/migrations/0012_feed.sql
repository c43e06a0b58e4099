-- The feed: an organization's events in the order they were stored. SQLite
-- has one writer, so transactions commit in the order they write, and seq
-- (the rowid, max + 1 at each insert) is that order: a reader past seq
-- 10 never finds a 9 committed after it (docs/decisions.md, "Feed
-- positions").
CREATE INDEX events_feed ON events (org, seq);
