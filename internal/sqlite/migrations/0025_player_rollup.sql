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
-- The month leads the key, so that a fold of events in time order writes
-- the few months it covers, not pages all over the table; the player
-- follows it: a ranking reads its candidates' exact counts month by
-- month. insight_player_levels holds, for each month and kind of event,
-- the players whose count reached 2, 4, 8, 16… (level 1, 2, 3, 4…),
-- written once when the count crosses each: a ranking reads the highest
-- levels first and stops once no player below the level read can reach
-- the last place (internal/sqlstore/players.go). An index on the count
-- itself would change with every fold of every row.
DROP TABLE insight_player_months;
CREATE TABLE insight_player_months (
  org              INTEGER NOT NULL,
  month            INTEGER NOT NULL,
  platform_user_id TEXT NOT NULL,
  type             TEXT NOT NULL,
  reason           TEXT NOT NULL,
  scope            TEXT NOT NULL,
  n                INTEGER NOT NULL,
  PRIMARY KEY (org, month, platform_user_id, type, reason, scope)
) STRICT, WITHOUT ROWID;
CREATE TABLE insight_player_levels (
  org              INTEGER NOT NULL,
  type             TEXT NOT NULL,
  month            INTEGER NOT NULL,
  reason           TEXT NOT NULL,
  scope            TEXT NOT NULL,
  level            INTEGER NOT NULL,
  platform_user_id TEXT NOT NULL,
  PRIMARY KEY (org, type, month, reason, scope, level, platform_user_id)
) STRICT, WITHOUT ROWID;
-- A row of the rollup deleted (its count fell to zero) takes its levels.
CREATE TRIGGER insight_player_gone AFTER DELETE ON insight_player_months BEGIN
  DELETE FROM insight_player_levels WHERE org = OLD.org AND type = OLD.type AND month = OLD.month
    AND reason = OLD.reason AND scope = OLD.scope AND platform_user_id = OLD.platform_user_id;
END;

-- Rolled through seq; the rollup starts again from the first event.
CREATE TABLE insight_player_cursor (
  one INTEGER PRIMARY KEY CHECK (one = 1),
  seq INTEGER NOT NULL
) STRICT;
INSERT INTO insight_player_cursor (one, seq) VALUES (1, 0);
