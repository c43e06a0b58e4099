-- Insights (docs/api.md, "Insights"; docs/decisions.md): counts of events
-- kept as rollups, so that an answer over 366 days reads buckets, not
-- events, each rollup shaped for the questions it answers
-- (internal/sqlstore/insights.go, PlanInsights). Statement triggers keep
-- them, one aggregated upsert per rollup and statement: every path that
-- inserts an event (COPY through events_in, the batch INSERT, decisions,
-- remote unlocks) and every path that deletes one (erasure, retention)
-- goes through them, and a duplicate, which ON CONFLICT DO NOTHING leaves
-- out of the transition table, counts nothing. The upserts take their
-- rows in key order, so two transactions that each insert with one
-- statement never wait on each other in a cycle. Absent reason and scope
-- are '' so that they can be keys.
--
-- insight_hour_totals: per organization and UTC hour, the granted
-- attempts, denials and remote unlocks: one row an hour for the
-- groupings by time filtered at most by type or outcome.
CREATE TABLE insight_hour_totals (
  org              bigint NOT NULL,
  hour             timestamptz NOT NULL,
  granted          bigint NOT NULL,
  denied           bigint NOT NULL,
  remote_unlocks   bigint NOT NULL,
  PRIMARY KEY (org, hour)
);

-- insight_hours and insight_days: per organization, UTC hour or day,
-- type, reason and scope, no door: without a door or location filter,
-- the groupings by time (hours) and by type and reason (days, and the
-- hours of the days a window cuts).
CREATE TABLE insight_hours (
  org              bigint NOT NULL,
  hour             timestamptz NOT NULL,
  type             text NOT NULL,
  reason           text NOT NULL,
  scope            text NOT NULL,
  n                bigint NOT NULL,
  PRIMARY KEY (org, hour, type, reason, scope)
);
CREATE TABLE insight_days (
  org              bigint NOT NULL,
  day              timestamptz NOT NULL,
  type             text NOT NULL,
  reason           text NOT NULL,
  scope            text NOT NULL,
  n                bigint NOT NULL,
  PRIMARY KEY (org, day, type, reason, scope)
);

-- insight_door_days and insight_door_months: per UTC day or month, door,
-- location, type, reason and scope: the groupings and filters by door or
-- location. A year is 12 or 13 months of each door and kind, and the
-- days of the months a window cuts. The months' key includes n: a year
-- of them is a seventh of the table on the 10 M bench log, which the
-- planner read whole (58 ms) rather than through a key that makes it
-- read the rows too; an index-only range scan takes 12 ms.
CREATE TABLE insight_door_days (
  org              bigint NOT NULL,
  day              timestamptz NOT NULL,
  access_point_id  uuid NOT NULL,
  location_id      uuid NOT NULL,
  type             text NOT NULL,
  reason           text NOT NULL,
  scope            text NOT NULL,
  n                bigint NOT NULL,
  PRIMARY KEY (org, day, access_point_id, location_id, type, reason, scope)
);
CREATE TABLE insight_door_months (
  org              bigint NOT NULL,
  month            timestamptz NOT NULL,
  access_point_id  uuid NOT NULL,
  location_id      uuid NOT NULL,
  type             text NOT NULL,
  reason           text NOT NULL,
  scope            text NOT NULL,
  n                bigint NOT NULL,
  PRIMARY KEY (org, month, access_point_id, location_id, type, reason, scope) INCLUDE (n)
);

-- insight_player_months: per UTC month, player, type, reason and
-- scope, no door: the ranking of players over whole months (the parts of
-- months a window cuts come from the events: a daily player rollup cost
-- a row per event and batch at ingest). Events without a player are not
-- in it. The type leads the key: the ranking of denied players reads the
-- denials alone.
CREATE TABLE insight_player_months (
  org              bigint NOT NULL,
  type             text NOT NULL,
  month            timestamptz NOT NULL,
  platform_user_id text NOT NULL,
  reason           text NOT NULL,
  scope            text NOT NULL,
  n                bigint NOT NULL,
  PRIMARY KEY (org, type, month, platform_user_id, reason, scope)
);

CREATE FUNCTION insight_add() RETURNS trigger LANGUAGE plpgsql AS $$
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
  INSERT INTO insight_player_months AS r (org, type, month, platform_user_id, reason, scope, n)
    SELECT org, type, date_trunc('month', occurred_at AT TIME ZONE 'UTC') AT TIME ZONE 'UTC', platform_user_id, coalesce(reason, ''), coalesce(scope, ''), count(*)
    FROM insight_new WHERE platform_user_id IS NOT NULL GROUP BY 1, 2, 3, 4, 5, 6 ORDER BY 1, 2, 3, 4, 5, 6
    ON CONFLICT (org, type, month, platform_user_id, reason, scope) DO UPDATE SET n = r.n + excluded.n;
  RETURN NULL;
END $$;

CREATE FUNCTION insight_remove() RETURNS trigger LANGUAGE plpgsql AS $$
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
  UPDATE insight_player_months r SET n = r.n - d.n FROM (
      SELECT org, type, date_trunc('month', occurred_at AT TIME ZONE 'UTC') AT TIME ZONE 'UTC' AS month, platform_user_id, coalesce(reason, '') AS reason, coalesce(scope, '') AS scope, count(*) AS n
      FROM insight_old WHERE platform_user_id IS NOT NULL GROUP BY 1, 2, 3, 4, 5, 6) d
    WHERE (r.org, r.type, r.month, r.platform_user_id, r.reason, r.scope)
      = (d.org, d.type, d.month, d.platform_user_id, d.reason, d.scope);
  DELETE FROM insight_player_months r USING (
      SELECT DISTINCT org, date_trunc('month', occurred_at AT TIME ZONE 'UTC') AT TIME ZONE 'UTC' AS month, platform_user_id FROM insight_old WHERE platform_user_id IS NOT NULL) d
    WHERE r.org = d.org AND r.month = d.month AND r.platform_user_id = d.platform_user_id AND r.n <= 0;
  RETURN NULL;
END $$;

CREATE TRIGGER insight_add AFTER INSERT ON events REFERENCING NEW TABLE AS insight_new
  FOR EACH STATEMENT EXECUTE FUNCTION insight_add();
CREATE TRIGGER insight_remove AFTER DELETE ON events REFERENCING OLD TABLE AS insight_old
  FOR EACH STATEMENT EXECUTE FUNCTION insight_remove();

-- The events stored before this migration.
INSERT INTO insight_hour_totals (org, hour, granted, denied, remote_unlocks)
  SELECT org, date_bin('1 hour', occurred_at, timestamptz '2000-01-01 00:00:00+00'),
    count(*) FILTER (WHERE type = 'ACCESS_GRANTED'), count(*) FILTER (WHERE type = 'ACCESS_DENIED'),
    count(*) FILTER (WHERE type = 'REMOTE_UNLOCK')
  FROM events GROUP BY 1, 2;
INSERT INTO insight_hours (org, hour, type, reason, scope, n)
  SELECT org, date_bin('1 hour', occurred_at, timestamptz '2000-01-01 00:00:00+00'), type, coalesce(reason, ''), coalesce(scope, ''), count(*)
  FROM events GROUP BY 1, 2, 3, 4, 5;
INSERT INTO insight_days (org, day, type, reason, scope, n)
  SELECT org, date_bin('1 day', occurred_at, timestamptz '2000-01-01 00:00:00+00'), type, coalesce(reason, ''), coalesce(scope, ''), count(*)
  FROM events GROUP BY 1, 2, 3, 4, 5;
INSERT INTO insight_door_days (org, day, access_point_id, location_id, type, reason, scope, n)
  SELECT org, date_bin('1 day', occurred_at, timestamptz '2000-01-01 00:00:00+00'), access_point_id, location_id, type, coalesce(reason, ''), coalesce(scope, ''), count(*)
  FROM events GROUP BY 1, 2, 3, 4, 5, 6, 7;
INSERT INTO insight_door_months (org, month, access_point_id, location_id, type, reason, scope, n)
  SELECT org, date_trunc('month', occurred_at AT TIME ZONE 'UTC') AT TIME ZONE 'UTC', access_point_id, location_id, type, coalesce(reason, ''), coalesce(scope, ''), count(*)
  FROM events GROUP BY 1, 2, 3, 4, 5, 6, 7;
INSERT INTO insight_player_months (org, type, month, platform_user_id, reason, scope, n)
  SELECT org, type, date_trunc('month', occurred_at AT TIME ZONE 'UTC') AT TIME ZONE 'UTC', platform_user_id, coalesce(reason, ''), coalesce(scope, ''), count(*)
  FROM events WHERE platform_user_id IS NOT NULL GROUP BY 1, 2, 3, 4, 5, 6;
ANALYZE insight_hour_totals, insight_hours, insight_days, insight_door_days, insight_door_months, insight_player_months;
