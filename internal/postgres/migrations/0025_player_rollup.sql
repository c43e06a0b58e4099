-- The player rollup behind ingest (docs/decisions.md, "Insights: players
-- behind ingest"): insight_player_months is no longer written by the
-- statement trigger of each insert (a row per player and batch cost
-- 12-19% of the ingest rate) but by a roller that folds each
-- organization's events after its feed position (xid, seq), up to the
-- feed's horizon (0012_feed.sql), in large batches, on every instance:
-- an organization's cursor row, locked FOR UPDATE SKIP LOCKED, is its
-- lease. A ranking reads the rollup and the events after the position in
-- one snapshot, so it stays exact while the roller is behind. Deletion
-- takes out of the rollup only the events at or before the position,
-- holding the cursor row FOR SHARE: a fold and a deletion of the same
-- organization take turns, so an event is in the rollup exactly when it
-- is stored and at or before the position.
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
  org              bigint NOT NULL,
  month            timestamptz NOT NULL,
  platform_user_id text NOT NULL,
  type             text NOT NULL,
  reason           text NOT NULL,
  scope            text NOT NULL,
  n                bigint NOT NULL,
  last_added       bigint NOT NULL, -- by the last fold: the levels it crossed are those past n - last_added
  PRIMARY KEY (org, month, platform_user_id, type, reason, scope)
);
CREATE TABLE insight_player_levels (
  org              bigint NOT NULL,
  type             text NOT NULL,
  month            timestamptz NOT NULL,
  reason           text NOT NULL,
  scope            text NOT NULL,
  level            smallint NOT NULL,
  platform_user_id text NOT NULL,
  PRIMARY KEY (org, type, month, reason, scope, level, platform_user_id)
);
-- A row of the rollup deleted (its count fell to zero) takes its levels.
CREATE FUNCTION insight_player_gone() RETURNS trigger LANGUAGE plpgsql AS $$
BEGIN
  DELETE FROM insight_player_levels l USING insight_player_gone g
    WHERE (l.org, l.type, l.month, l.reason, l.scope, l.platform_user_id)
      = (g.org, g.type, g.month, g.reason, g.scope, g.platform_user_id);
  RETURN NULL;
END $$;
CREATE TRIGGER insight_player_gone AFTER DELETE ON insight_player_months REFERENCING OLD TABLE AS insight_player_gone
  FOR EACH STATEMENT EXECUTE FUNCTION insight_player_gone();

CREATE TABLE insight_player_cursors (
  org     bigint PRIMARY KEY REFERENCES organizations (seq),
  txn     xid8 NOT NULL DEFAULT '0',
  seq     bigint NOT NULL DEFAULT 0,
  next_at timestamptz NOT NULL DEFAULT '-infinity'
);
INSERT INTO insight_player_cursors (org) SELECT seq FROM organizations;
CREATE FUNCTION insight_player_cursor() RETURNS trigger LANGUAGE plpgsql AS $$
BEGIN
  INSERT INTO insight_player_cursors (org) VALUES (NEW.seq) ON CONFLICT DO NOTHING;
  RETURN NULL;
END $$;
CREATE TRIGGER insight_player_cursor AFTER INSERT ON organizations
  FOR EACH ROW EXECUTE FUNCTION insight_player_cursor();

CREATE OR REPLACE FUNCTION insight_add() RETURNS trigger LANGUAGE plpgsql AS $$
BEGIN
  INSERT INTO insight_hour_totals AS r (org, hour, granted, denied, remote_unlocks)
    SELECT org, date_bin('1 hour', occurred_at, timestamptz '2000-01-01 00:00:00+00'),
      count(*) FILTER (WHERE type = 'ACCESS_GRANTED'), count(*) FILTER (WHERE type = 'ACCESS_DENIED'),
      count(*) FILTER (WHERE type = 'REMOTE_UNLOCK')
    FROM insight_new GROUP BY 1, 2 ORDER BY 1, 2
    ON CONFLICT (org, hour) DO UPDATE SET granted = r.granted + excluded.granted, denied = r.denied + excluded.denied,
      remote_unlocks = r.remote_unlocks + excluded.remote_unlocks;
  INSERT INTO insight_hours AS r (org, hour, type, reason, scope, n)
    SELECT org, date_bin('1 hour', occurred_at, timestamptz '2000-01-01 00:00:00+00'), type, coalesce(reason, ''), coalesce(scope, ''), count(*)
    FROM insight_new GROUP BY 1, 2, 3, 4, 5 ORDER BY 1, 2, 3, 4, 5
    ON CONFLICT (org, hour, type, reason, scope) DO UPDATE SET n = r.n + excluded.n;
  INSERT INTO insight_days AS r (org, day, type, reason, scope, n)
    SELECT org, date_bin('1 day', occurred_at, timestamptz '2000-01-01 00:00:00+00'), type, coalesce(reason, ''), coalesce(scope, ''), count(*)
    FROM insight_new GROUP BY 1, 2, 3, 4, 5 ORDER BY 1, 2, 3, 4, 5
    ON CONFLICT (org, day, type, reason, scope) DO UPDATE SET n = r.n + excluded.n;
  INSERT INTO insight_door_days AS r (org, day, access_point_id, location_id, type, reason, scope, n)
    SELECT org, date_bin('1 day', occurred_at, timestamptz '2000-01-01 00:00:00+00'), access_point_id, location_id, type, coalesce(reason, ''), coalesce(scope, ''), count(*)
    FROM insight_new GROUP BY 1, 2, 3, 4, 5, 6, 7 ORDER BY 1, 2, 3, 4, 5, 6, 7
    ON CONFLICT (org, day, access_point_id, location_id, type, reason, scope) DO UPDATE SET n = r.n + excluded.n;
  INSERT INTO insight_door_months AS r (org, month, access_point_id, location_id, type, reason, scope, n)
    SELECT org, date_trunc('month', occurred_at AT TIME ZONE 'UTC') AT TIME ZONE 'UTC', access_point_id, location_id, type, coalesce(reason, ''), coalesce(scope, ''), count(*)
    FROM insight_new GROUP BY 1, 2, 3, 4, 5, 6, 7 ORDER BY 1, 2, 3, 4, 5, 6, 7
    ON CONFLICT (org, month, access_point_id, location_id, type, reason, scope) DO UPDATE SET n = r.n + excluded.n;
  RETURN NULL;
END $$;

-- insight_remove of 0021 keeps the other rollups; the player rollup has a
-- trigger of its own, after it.
CREATE OR REPLACE FUNCTION insight_remove() RETURNS trigger LANGUAGE plpgsql AS $$
BEGIN
  UPDATE insight_hour_totals r SET granted = r.granted - d.granted, denied = r.denied - d.denied,
      remote_unlocks = r.remote_unlocks - d.remote_unlocks FROM (
      SELECT org, date_bin('1 hour', occurred_at, timestamptz '2000-01-01 00:00:00+00') AS hour,
        count(*) FILTER (WHERE type = 'ACCESS_GRANTED') AS granted, count(*) FILTER (WHERE type = 'ACCESS_DENIED') AS denied,
        count(*) FILTER (WHERE type = 'REMOTE_UNLOCK') AS remote_unlocks
      FROM insight_old GROUP BY 1, 2) d
    WHERE (r.org, r.hour) = (d.org, d.hour);
  DELETE FROM insight_hour_totals r USING (
      SELECT DISTINCT org, date_bin('1 hour', occurred_at, timestamptz '2000-01-01 00:00:00+00') AS hour FROM insight_old) d
    WHERE r.org = d.org AND r.hour = d.hour AND r.granted <= 0 AND r.denied <= 0 AND r.remote_unlocks <= 0;
  UPDATE insight_hours r SET n = r.n - d.n FROM (
      SELECT org, date_bin('1 hour', occurred_at, timestamptz '2000-01-01 00:00:00+00') AS hour, type, coalesce(reason, '') AS reason, coalesce(scope, '') AS scope, count(*) AS n
      FROM insight_old GROUP BY 1, 2, 3, 4, 5) d
    WHERE (r.org, r.hour, r.type, r.reason, r.scope)
      = (d.org, d.hour, d.type, d.reason, d.scope);
  DELETE FROM insight_hours r USING (
      SELECT DISTINCT org, date_bin('1 hour', occurred_at, timestamptz '2000-01-01 00:00:00+00') AS hour FROM insight_old) d
    WHERE r.org = d.org AND r.hour = d.hour AND r.n <= 0;
  UPDATE insight_days r SET n = r.n - d.n FROM (
      SELECT org, date_bin('1 day', occurred_at, timestamptz '2000-01-01 00:00:00+00') AS day, type, coalesce(reason, '') AS reason, coalesce(scope, '') AS scope, count(*) AS n
      FROM insight_old GROUP BY 1, 2, 3, 4, 5) d
    WHERE (r.org, r.day, r.type, r.reason, r.scope)
      = (d.org, d.day, d.type, d.reason, d.scope);
  DELETE FROM insight_days r USING (
      SELECT DISTINCT org, date_bin('1 day', occurred_at, timestamptz '2000-01-01 00:00:00+00') AS day FROM insight_old) d
    WHERE r.org = d.org AND r.day = d.day AND r.n <= 0;
  UPDATE insight_door_days r SET n = r.n - d.n FROM (
      SELECT org, date_bin('1 day', occurred_at, timestamptz '2000-01-01 00:00:00+00') AS day, access_point_id, location_id, type, coalesce(reason, '') AS reason, coalesce(scope, '') AS scope, count(*) AS n
      FROM insight_old GROUP BY 1, 2, 3, 4, 5, 6, 7) d
    WHERE (r.org, r.day, r.access_point_id, r.location_id, r.type, r.reason, r.scope)
      = (d.org, d.day, d.access_point_id, d.location_id, d.type, d.reason, d.scope);
  DELETE FROM insight_door_days r USING (
      SELECT DISTINCT org, date_bin('1 day', occurred_at, timestamptz '2000-01-01 00:00:00+00') AS day FROM insight_old) d
    WHERE r.org = d.org AND r.day = d.day AND r.n <= 0;
  UPDATE insight_door_months r SET n = r.n - d.n FROM (
      SELECT org, date_trunc('month', occurred_at AT TIME ZONE 'UTC') AT TIME ZONE 'UTC' AS month, access_point_id, location_id, type, coalesce(reason, '') AS reason, coalesce(scope, '') AS scope, count(*) AS n
      FROM insight_old GROUP BY 1, 2, 3, 4, 5, 6, 7) d
    WHERE (r.org, r.month, r.access_point_id, r.location_id, r.type, r.reason, r.scope)
      = (d.org, d.month, d.access_point_id, d.location_id, d.type, d.reason, d.scope);
  DELETE FROM insight_door_months r USING (
      SELECT DISTINCT org, date_trunc('month', occurred_at AT TIME ZONE 'UTC') AT TIME ZONE 'UTC' AS month FROM insight_old) d
    WHERE r.org = d.org AND r.month = d.month AND r.n <= 0;
  RETURN NULL;
END $$;

-- The rolled events deleted: the cursor rows of their organizations held
-- FOR SHARE first, in key order, so a fold in progress finishes before
-- they are read and none starts until this transaction ends.
CREATE FUNCTION insight_player_remove() RETURNS trigger LANGUAGE plpgsql AS $$
BEGIN
  PERFORM 1 FROM insight_player_cursors WHERE org IN (SELECT DISTINCT org FROM insight_player_old) ORDER BY org FOR SHARE;
  UPDATE insight_player_months r SET n = r.n - d.n FROM (
      SELECT o.org, o.platform_user_id, o.type, date_trunc('month', o.occurred_at AT TIME ZONE 'UTC') AT TIME ZONE 'UTC' AS month,
        coalesce(o.reason, '') AS reason, coalesce(o.scope, '') AS scope, count(*) AS n
      FROM insight_player_old o JOIN insight_player_cursors c ON c.org = o.org
      WHERE o.platform_user_id IS NOT NULL AND (o.xid, o.seq) <= (c.txn, c.seq) GROUP BY 1, 2, 3, 4, 5, 6) d
    WHERE (r.org, r.month, r.platform_user_id, r.type, r.reason, r.scope)
      = (d.org, d.month, d.platform_user_id, d.type, d.reason, d.scope);
  DELETE FROM insight_player_months r USING (
      SELECT DISTINCT org, date_trunc('month', occurred_at AT TIME ZONE 'UTC') AT TIME ZONE 'UTC' AS month, platform_user_id
      FROM insight_player_old WHERE platform_user_id IS NOT NULL) d
    WHERE r.org = d.org AND r.month = d.month AND r.platform_user_id = d.platform_user_id AND r.n <= 0;
  RETURN NULL;
END $$;
CREATE TRIGGER insight_player_remove AFTER DELETE ON events REFERENCING OLD TABLE AS insight_player_old
  FOR EACH STATEMENT EXECUTE FUNCTION insight_player_remove();
