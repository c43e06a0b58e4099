-- Insights (docs/api.md, "Insights"; docs/decisions.md): counts of events
-- kept as rollups, so that an answer over 366 days reads buckets, not
-- events, each rollup shaped for the questions it answers
-- (internal/sqlstore/insights.go, PlanInsights). Events are stored by one
-- path (eventInserter: ingest, bulk import, decisions, remote unlocks),
-- which adds a batch's counts to each row once (ingest.go, insights.go): a
-- trigger per row cost a third of the ingest rate. Triggers take out what
-- every path that removes events (erasure, retention, the move of the
-- high-water row to organization 0) removes. A duplicate, which inserts
-- nothing, counts nothing. Absent reason and scope are '' so that they can
-- be keys.
--
-- insight_hour_totals: per organization and UTC hour (ms), the granted
-- attempts, denials and remote unlocks: one row an hour for the
-- groupings by time filtered at most by type or outcome.
CREATE TABLE insight_hour_totals (
  org            INTEGER NOT NULL,
  hour           INTEGER NOT NULL,
  granted        INTEGER NOT NULL,
  denied         INTEGER NOT NULL,
  remote_unlocks INTEGER NOT NULL,
  PRIMARY KEY (org, hour)
) STRICT, WITHOUT ROWID;

-- insight_hours and insight_days: per organization, UTC hour or day (ms),
-- type, reason and scope, no door: without a door or location filter, the
-- groupings by time (hours) and by type and reason (days, and the hours
-- of the days a window cuts). A year is 8,784 hours or 366 days times the
-- kinds of event seen.
CREATE TABLE insight_hours (
  org    INTEGER NOT NULL,
  hour   INTEGER NOT NULL,
  type   TEXT NOT NULL,
  reason TEXT NOT NULL,
  scope  TEXT NOT NULL,
  n      INTEGER NOT NULL,
  PRIMARY KEY (org, hour, type, reason, scope)
) STRICT, WITHOUT ROWID;

CREATE TABLE insight_days (
  org    INTEGER NOT NULL,
  day    INTEGER NOT NULL,
  type   TEXT NOT NULL,
  reason TEXT NOT NULL,
  scope  TEXT NOT NULL,
  n      INTEGER NOT NULL,
  PRIMARY KEY (org, day, type, reason, scope)
) STRICT, WITHOUT ROWID;

-- insight_door_days and insight_door_months: per UTC day or month (ms),
-- door, location, type, reason and scope: the groupings and filters by
-- door or location. A year is 12 or 13 months of each door and kind, and
-- the days of the months a window cuts.
CREATE TABLE insight_door_days (
  org             INTEGER NOT NULL,
  day             INTEGER NOT NULL,
  access_point_id BLOB NOT NULL,
  location_id     BLOB NOT NULL,
  type            TEXT NOT NULL,
  reason          TEXT NOT NULL,
  scope           TEXT NOT NULL,
  n               INTEGER NOT NULL,
  PRIMARY KEY (org, day, access_point_id, location_id, type, reason, scope)
) STRICT, WITHOUT ROWID;

CREATE TABLE insight_door_months (
  org             INTEGER NOT NULL,
  month           INTEGER NOT NULL,
  access_point_id BLOB NOT NULL,
  location_id     BLOB NOT NULL,
  type            TEXT NOT NULL,
  reason          TEXT NOT NULL,
  scope           TEXT NOT NULL,
  n               INTEGER NOT NULL,
  PRIMARY KEY (org, month, access_point_id, location_id, type, reason, scope)
) STRICT, WITHOUT ROWID;

-- insight_player_months: per UTC month (ms), player, type, reason and
-- scope, no door: the ranking of players over whole months (the parts of
-- months a window cuts come from the events: a daily player rollup cost
-- a row per event and batch at ingest). Events without a player are not
-- in it. The type leads the key: the ranking of denied players reads the
-- denials alone.
CREATE TABLE insight_player_months (
  org              INTEGER NOT NULL,
  month            INTEGER NOT NULL,
  platform_user_id TEXT NOT NULL,
  type             TEXT NOT NULL,
  reason           TEXT NOT NULL,
  scope            TEXT NOT NULL,
  n                INTEGER NOT NULL,
  PRIMARY KEY (org, type, month, platform_user_id, reason, scope)
) STRICT, WITHOUT ROWID;

-- Buckets floor the time also before 1970, where % is negative.
CREATE TRIGGER insight_remove AFTER DELETE ON events WHEN OLD.org <> 0 BEGIN
  UPDATE insight_hour_totals SET granted = granted - (OLD.type = 'ACCESS_GRANTED'),
    denied = denied - (OLD.type = 'ACCESS_DENIED'), remote_unlocks = remote_unlocks - (OLD.type = 'REMOTE_UNLOCK')
    WHERE org = OLD.org AND hour = OLD.occurred_at - (OLD.occurred_at % 3600000 + 3600000) % 3600000;
  DELETE FROM insight_hour_totals WHERE org = OLD.org AND hour = OLD.occurred_at - (OLD.occurred_at % 3600000 + 3600000) % 3600000
    AND granted <= 0 AND denied <= 0 AND remote_unlocks <= 0;
  UPDATE insight_hours SET n = n - 1 WHERE org = OLD.org
    AND hour = OLD.occurred_at - (OLD.occurred_at % 3600000 + 3600000) % 3600000 AND type = OLD.type
    AND reason = coalesce(OLD.reason, '') AND scope = coalesce(OLD.scope, '');
  DELETE FROM insight_hours WHERE org = OLD.org
    AND hour = OLD.occurred_at - (OLD.occurred_at % 3600000 + 3600000) % 3600000 AND type = OLD.type
    AND reason = coalesce(OLD.reason, '') AND scope = coalesce(OLD.scope, '') AND n <= 0;
  UPDATE insight_days SET n = n - 1 WHERE org = OLD.org
    AND day = OLD.occurred_at - (OLD.occurred_at % 86400000 + 86400000) % 86400000 AND type = OLD.type
    AND reason = coalesce(OLD.reason, '') AND scope = coalesce(OLD.scope, '');
  DELETE FROM insight_days WHERE org = OLD.org
    AND day = OLD.occurred_at - (OLD.occurred_at % 86400000 + 86400000) % 86400000 AND type = OLD.type
    AND reason = coalesce(OLD.reason, '') AND scope = coalesce(OLD.scope, '') AND n <= 0;
  UPDATE insight_door_days SET n = n - 1 WHERE org = OLD.org
    AND day = OLD.occurred_at - (OLD.occurred_at % 86400000 + 86400000) % 86400000
    AND access_point_id = OLD.access_point_id AND location_id = OLD.location_id AND type = OLD.type
    AND reason = coalesce(OLD.reason, '') AND scope = coalesce(OLD.scope, '');
  DELETE FROM insight_door_days WHERE org = OLD.org
    AND day = OLD.occurred_at - (OLD.occurred_at % 86400000 + 86400000) % 86400000
    AND access_point_id = OLD.access_point_id AND location_id = OLD.location_id AND type = OLD.type
    AND reason = coalesce(OLD.reason, '') AND scope = coalesce(OLD.scope, '') AND n <= 0;
  UPDATE insight_door_months SET n = n - 1 WHERE org = OLD.org
    AND month = CAST(strftime('%s', (OLD.occurred_at - (OLD.occurred_at % 1000 + 1000) % 1000) / 1000, 'unixepoch', 'start of month') AS INTEGER) * 1000
    AND access_point_id = OLD.access_point_id AND location_id = OLD.location_id AND type = OLD.type
    AND reason = coalesce(OLD.reason, '') AND scope = coalesce(OLD.scope, '');
  DELETE FROM insight_door_months WHERE org = OLD.org
    AND month = CAST(strftime('%s', (OLD.occurred_at - (OLD.occurred_at % 1000 + 1000) % 1000) / 1000, 'unixepoch', 'start of month') AS INTEGER) * 1000
    AND access_point_id = OLD.access_point_id AND location_id = OLD.location_id AND type = OLD.type
    AND reason = coalesce(OLD.reason, '') AND scope = coalesce(OLD.scope, '') AND n <= 0;
  UPDATE insight_player_months SET n = n - 1 WHERE OLD.platform_user_id IS NOT NULL AND org = OLD.org
    AND month = CAST(strftime('%s', (OLD.occurred_at - (OLD.occurred_at % 1000 + 1000) % 1000) / 1000, 'unixepoch', 'start of month') AS INTEGER) * 1000
    AND platform_user_id = OLD.platform_user_id AND type = OLD.type
    AND reason = coalesce(OLD.reason, '') AND scope = coalesce(OLD.scope, '');
  DELETE FROM insight_player_months WHERE OLD.platform_user_id IS NOT NULL AND org = OLD.org
    AND month = CAST(strftime('%s', (OLD.occurred_at - (OLD.occurred_at % 1000 + 1000) % 1000) / 1000, 'unixepoch', 'start of month') AS INTEGER) * 1000
    AND platform_user_id = OLD.platform_user_id AND type = OLD.type
    AND reason = coalesce(OLD.reason, '') AND scope = coalesce(OLD.scope, '') AND n <= 0;
END;

-- Erasure moves the event holding the largest seq to organization 0
-- instead of deleting it (migration 0014): for its organization it is gone.
CREATE TRIGGER insight_move AFTER UPDATE OF org ON events WHEN OLD.org <> 0 AND NEW.org = 0 BEGIN
  UPDATE insight_hour_totals SET granted = granted - (OLD.type = 'ACCESS_GRANTED'),
    denied = denied - (OLD.type = 'ACCESS_DENIED'), remote_unlocks = remote_unlocks - (OLD.type = 'REMOTE_UNLOCK')
    WHERE org = OLD.org AND hour = OLD.occurred_at - (OLD.occurred_at % 3600000 + 3600000) % 3600000;
  DELETE FROM insight_hour_totals WHERE org = OLD.org AND hour = OLD.occurred_at - (OLD.occurred_at % 3600000 + 3600000) % 3600000
    AND granted <= 0 AND denied <= 0 AND remote_unlocks <= 0;
  UPDATE insight_hours SET n = n - 1 WHERE org = OLD.org
    AND hour = OLD.occurred_at - (OLD.occurred_at % 3600000 + 3600000) % 3600000 AND type = OLD.type
    AND reason = coalesce(OLD.reason, '') AND scope = coalesce(OLD.scope, '');
  DELETE FROM insight_hours WHERE org = OLD.org
    AND hour = OLD.occurred_at - (OLD.occurred_at % 3600000 + 3600000) % 3600000 AND type = OLD.type
    AND reason = coalesce(OLD.reason, '') AND scope = coalesce(OLD.scope, '') AND n <= 0;
  UPDATE insight_days SET n = n - 1 WHERE org = OLD.org
    AND day = OLD.occurred_at - (OLD.occurred_at % 86400000 + 86400000) % 86400000 AND type = OLD.type
    AND reason = coalesce(OLD.reason, '') AND scope = coalesce(OLD.scope, '');
  DELETE FROM insight_days WHERE org = OLD.org
    AND day = OLD.occurred_at - (OLD.occurred_at % 86400000 + 86400000) % 86400000 AND type = OLD.type
    AND reason = coalesce(OLD.reason, '') AND scope = coalesce(OLD.scope, '') AND n <= 0;
  UPDATE insight_door_days SET n = n - 1 WHERE org = OLD.org
    AND day = OLD.occurred_at - (OLD.occurred_at % 86400000 + 86400000) % 86400000
    AND access_point_id = OLD.access_point_id AND location_id = OLD.location_id AND type = OLD.type
    AND reason = coalesce(OLD.reason, '') AND scope = coalesce(OLD.scope, '');
  DELETE FROM insight_door_days WHERE org = OLD.org
    AND day = OLD.occurred_at - (OLD.occurred_at % 86400000 + 86400000) % 86400000
    AND access_point_id = OLD.access_point_id AND location_id = OLD.location_id AND type = OLD.type
    AND reason = coalesce(OLD.reason, '') AND scope = coalesce(OLD.scope, '') AND n <= 0;
  UPDATE insight_door_months SET n = n - 1 WHERE org = OLD.org
    AND month = CAST(strftime('%s', (OLD.occurred_at - (OLD.occurred_at % 1000 + 1000) % 1000) / 1000, 'unixepoch', 'start of month') AS INTEGER) * 1000
    AND access_point_id = OLD.access_point_id AND location_id = OLD.location_id AND type = OLD.type
    AND reason = coalesce(OLD.reason, '') AND scope = coalesce(OLD.scope, '');
  DELETE FROM insight_door_months WHERE org = OLD.org
    AND month = CAST(strftime('%s', (OLD.occurred_at - (OLD.occurred_at % 1000 + 1000) % 1000) / 1000, 'unixepoch', 'start of month') AS INTEGER) * 1000
    AND access_point_id = OLD.access_point_id AND location_id = OLD.location_id AND type = OLD.type
    AND reason = coalesce(OLD.reason, '') AND scope = coalesce(OLD.scope, '') AND n <= 0;
  UPDATE insight_player_months SET n = n - 1 WHERE OLD.platform_user_id IS NOT NULL AND org = OLD.org
    AND month = CAST(strftime('%s', (OLD.occurred_at - (OLD.occurred_at % 1000 + 1000) % 1000) / 1000, 'unixepoch', 'start of month') AS INTEGER) * 1000
    AND platform_user_id = OLD.platform_user_id AND type = OLD.type
    AND reason = coalesce(OLD.reason, '') AND scope = coalesce(OLD.scope, '');
  DELETE FROM insight_player_months WHERE OLD.platform_user_id IS NOT NULL AND org = OLD.org
    AND month = CAST(strftime('%s', (OLD.occurred_at - (OLD.occurred_at % 1000 + 1000) % 1000) / 1000, 'unixepoch', 'start of month') AS INTEGER) * 1000
    AND platform_user_id = OLD.platform_user_id AND type = OLD.type
    AND reason = coalesce(OLD.reason, '') AND scope = coalesce(OLD.scope, '') AND n <= 0;
END;

-- The events stored before this migration.
INSERT INTO insight_hour_totals (org, hour, granted, denied, remote_unlocks)
  SELECT org, occurred_at - (occurred_at % 3600000 + 3600000) % 3600000, sum(type = 'ACCESS_GRANTED'),
    sum(type = 'ACCESS_DENIED'), sum(type = 'REMOTE_UNLOCK')
  FROM events WHERE org <> 0 GROUP BY 1, 2;
INSERT INTO insight_hours (org, hour, type, reason, scope, n)
  SELECT org, occurred_at - (occurred_at % 3600000 + 3600000) % 3600000, type, coalesce(reason, ''), coalesce(scope, ''), count(*)
  FROM events WHERE org <> 0 GROUP BY 1, 2, 3, 4, 5;
INSERT INTO insight_days (org, day, type, reason, scope, n)
  SELECT org, occurred_at - (occurred_at % 86400000 + 86400000) % 86400000, type, coalesce(reason, ''), coalesce(scope, ''), count(*)
  FROM events WHERE org <> 0 GROUP BY 1, 2, 3, 4, 5;
INSERT INTO insight_door_days (org, day, access_point_id, location_id, type, reason, scope, n)
  SELECT org, occurred_at - (occurred_at % 86400000 + 86400000) % 86400000, access_point_id, location_id, type, coalesce(reason, ''), coalesce(scope, ''), count(*)
  FROM events WHERE org <> 0 GROUP BY 1, 2, 3, 4, 5, 6, 7;
INSERT INTO insight_door_months (org, month, access_point_id, location_id, type, reason, scope, n)
  SELECT org, CAST(strftime('%s', (occurred_at - (occurred_at % 1000 + 1000) % 1000) / 1000, 'unixepoch', 'start of month') AS INTEGER) * 1000, access_point_id, location_id, type, coalesce(reason, ''), coalesce(scope, ''), count(*)
  FROM events WHERE org <> 0 GROUP BY 1, 2, 3, 4, 5, 6, 7;
INSERT INTO insight_player_months (org, month, platform_user_id, type, reason, scope, n)
  SELECT org, CAST(strftime('%s', (occurred_at - (occurred_at % 1000 + 1000) % 1000) / 1000, 'unixepoch', 'start of month') AS INTEGER) * 1000, platform_user_id, type, coalesce(reason, ''), coalesce(scope, ''), count(*)
  FROM events WHERE org <> 0 AND platform_user_id IS NOT NULL GROUP BY 1, 2, 3, 4, 5, 6;
