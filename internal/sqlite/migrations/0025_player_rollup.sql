-- The player rollup behind ingest (docs/decisions.md, "Insights: players
-- behind ingest"): insight_player_months is no longer written with each
-- batch of events (a row per player and batch cost 12-18% of the ingest
-- rate) but by a roller that folds the events after its position
-- (insight_player_cursor.seq: the one writer commits in seq order) in
-- large batches, on every instance, each fold one write transaction. A
-- ranking reads the rollup and the events after the position in one
-- snapshot, so it stays exact while the roller is behind. Every path that
-- deletes events first rolls up what is pending in its own transaction
-- (deleteEvents), so the 0021 triggers' removal from the rollup only ever
-- meets events already in it.
--
-- The player leads the key: a ranking reads the exact counts of its
-- candidates, and erasure removes one player. insight_player_ranks reads
-- each month and kind of event most first: the ranking stops once no
-- unread player can reach the last place (internal/sqlstore/players.go).
DROP TABLE insight_player_months;
CREATE TABLE insight_player_months (
  org              INTEGER NOT NULL,
  month            INTEGER NOT NULL,
  platform_user_id TEXT NOT NULL,
  type             TEXT NOT NULL,
  reason           TEXT NOT NULL,
  scope            TEXT NOT NULL,
  n                INTEGER NOT NULL,
  PRIMARY KEY (org, platform_user_id, type, month, reason, scope)
) STRICT, WITHOUT ROWID;
CREATE INDEX insight_player_ranks ON insight_player_months (org, type, month, reason, scope, n DESC, platform_user_id);

-- Rolled through seq; the rollup starts again from the first event.
CREATE TABLE insight_player_cursor (
  one INTEGER PRIMARY KEY CHECK (one = 1),
  seq INTEGER NOT NULL
) STRICT;
INSERT INTO insight_player_cursor (one, seq) VALUES (1, 0);
