-- The compact row of events, part one (docs/decisions.md, "Bytes per
-- event", step 1): the access point, the location and the pair of names
-- an event was recorded with become keys of a per-organization dictionary
-- (event_values), the type and the scope one byte each, the outcome is no
-- longer stored (it follows from the type), the organization's key is an
-- integer, and the columns are laid out by alignment. The players, server
-- jobs and reasons stay text here.
--
-- The events are rewritten, month by month, into a new partitioned table
-- with the same partitions, and its indexes are built after, packed full.
-- It is not additive: stop every instance of the release before (deploy.md).

-- The codes of the type and the scope, and the outcome that follows from
-- the type. Ingest refuses any other type or scope.
CREATE FUNCTION event_type_code(t text) RETURNS "char" LANGUAGE sql IMMUTABLE PARALLEL SAFE
  RETURN CASE t WHEN 'ACCESS_GRANTED' THEN 'g' WHEN 'ACCESS_DENIED' THEN 'd' WHEN 'REMOTE_UNLOCK' THEN 'u' END;
CREATE FUNCTION event_type_name(t "char") RETURNS text LANGUAGE sql IMMUTABLE PARALLEL SAFE
  RETURN CASE t WHEN 'g' THEN 'ACCESS_GRANTED' WHEN 'd' THEN 'ACCESS_DENIED' WHEN 'u' THEN 'REMOTE_UNLOCK' END;
CREATE FUNCTION event_allowed(t "char") RETURNS text LANGUAGE sql IMMUTABLE PARALLEL SAFE
  RETURN CASE t WHEN 'g' THEN 'granted' WHEN 'd' THEN 'denied' END;
CREATE FUNCTION event_scope_code(s text) RETURNS "char" LANGUAGE sql IMMUTABLE PARALLEL SAFE
  RETURN CASE s WHEN 'UNIVERSE' THEN 'U' WHEN 'SERVER' THEN 'S' WHEN 'PLAYER' THEN 'P' END;
CREATE FUNCTION event_scope_name(s "char") RETURNS text LANGUAGE sql IMMUTABLE PARALLEL SAFE
  RETURN CASE s WHEN 'U' THEN 'UNIVERSE' WHEN 'S' THEN 'SERVER' WHEN 'P' THEN 'PLAYER' END;

-- The values events refer to by key, per organization: of kind 'a' an
-- access point's id, 'l' a location's id, 'n' the names of an access
-- point (value) and of its location (value2) as an event recorded them.
-- A key is never reused and never changes meaning (a renamed door gets a
-- new pair of names; the pair it had keeps its key), so every instance
-- caches them for good (postgres/values.go). Keys are taken per
-- organization, max + 1 under an advisory lock of the organization's.
CREATE TABLE event_values (
  org    bigint NOT NULL,
  key    integer NOT NULL,
  kind   "char" NOT NULL,
  value  text NOT NULL,
  value2 text NOT NULL DEFAULT '',
  PRIMARY KEY (org, key),
  UNIQUE (org, kind, value, value2)
);
-- A search for a location's name finds the pairs that hold it (search.go).
CREATE INDEX event_values_by_value2 ON event_values (org, kind, value2);

-- Every table of months: the partitions, and the months retention
-- detached and has not dropped yet (their rows are rewritten too).
CREATE TEMPORARY TABLE months_0033 ON COMMIT DROP AS
  SELECT c.relname::text AS name, c.relispartition AND NOT coalesce(i.inhdetachpending, false) AS attached,
    CASE WHEN c.relispartition THEN pg_get_expr(c.relpartbound, c.oid) END AS bound
  FROM pg_class c LEFT JOIN pg_inherits i ON i.inhrelid = c.oid
  WHERE c.relkind = 'r' AND c.relnamespace = current_schema()::regnamespace
    AND c.relname ~ '^events_([0-9]{4}_[0-9]{2}|legacy)$';

DO $$
DECLARE m record;
BEGIN
  CREATE TEMPORARY TABLE places_0033 (org bigint, ap uuid, loc uuid, ap_name text, loc_name text) ON COMMIT DROP;
  FOR m IN SELECT * FROM months_0033 LOOP
    EXECUTE format('INSERT INTO places_0033 SELECT DISTINCT org, access_point_id, location_id, access_point_name, location_name FROM %I', m.name);
  END LOOP;
  INSERT INTO event_values (org, key, kind, value, value2)
    SELECT org, row_number() OVER (PARTITION BY org ORDER BY kind, value, value2), kind, value, value2 FROM (
      SELECT DISTINCT org, 'a'::"char" AS kind, ap::text AS value, '' AS value2 FROM places_0033
      UNION SELECT DISTINCT org, 'l'::"char", loc::text, '' FROM places_0033
      UNION SELECT DISTINCT org, 'n'::"char", ap_name, loc_name FROM places_0033) v;
END $$;

-- The old table and its months step aside; their indexes go first (the
-- new ones take their names), and their triggers with them.
DROP INDEX events_by_time, events_by_access_point, events_by_location, events_by_type, events_by_user,
  events_by_reason, events_by_scope, events_by_key, events_feed;
ALTER TABLE events RENAME TO events_0032;
DO $$
DECLARE m record;
BEGIN
  FOR m IN SELECT * FROM months_0033 LOOP
    EXECUTE format('ALTER TABLE %I RENAME TO %I', m.name, m.name || '_0032');
  END LOOP;
END $$;

CREATE TABLE events (
  seq                bigint GENERATED ALWAYS AS IDENTITY,
  occurred_at        timestamptz NOT NULL,
  received_at        timestamptz NOT NULL,
  xid                xid8 NOT NULL DEFAULT pg_current_xact_id(),
  id                 uuid NOT NULL,
  requested_by       uuid,
  command_id         uuid,
  org                integer NOT NULL,
  access_point       integer NOT NULL, -- event_values, kind 'a'
  location           integer NOT NULL, -- kind 'l'
  names              integer NOT NULL, -- kind 'n'
  type               "char" NOT NULL,  -- event_type_code
  scope              "char",           -- event_scope_code
  reason             text,
  platform_user_id   text,
  server_job_id      text,
  platform_user_name text
) PARTITION BY RANGE (occurred_at);

DO $$
DECLARE
  m record;
  next_seq bigint;
  n bigint;
  copied bigint;
BEGIN
  FOR m IN SELECT * FROM months_0033 ORDER BY name LOOP
    IF m.attached THEN
      EXECUTE format('CREATE TABLE %I PARTITION OF events %s WITH (autovacuum_analyze_scale_factor = 0.02)', m.name, m.bound);
    ELSE
      EXECUTE format('CREATE TABLE %I (LIKE events INCLUDING DEFAULTS) WITH (autovacuum_analyze_scale_factor = 0.02)', m.name);
    END IF;
    EXECUTE format('SELECT count(*) FROM %I', m.name || '_0032') INTO n;
    EXECUTE format($q$INSERT INTO %I (seq, occurred_at, received_at, xid, id, requested_by, command_id, org,
        access_point, location, names, type, scope, reason, platform_user_id, server_job_id, platform_user_name)
      OVERRIDING SYSTEM VALUE
      SELECT e.seq, e.occurred_at, e.received_at, e.xid, e.id, e.requested_by, e.command_id, e.org, a.key, l.key, n.key,
        event_type_code(e.type), event_scope_code(e.scope), e.reason, e.platform_user_id, e.server_job_id, e.platform_user_name
      FROM %I e
      JOIN event_values a ON a.org = e.org AND a.kind = 'a' AND a.value = e.access_point_id::text AND a.value2 = ''
      JOIN event_values l ON l.org = e.org AND l.kind = 'l' AND l.value = e.location_id::text AND l.value2 = ''
      JOIN event_values n ON n.org = e.org AND n.kind = 'n' AND n.value = e.access_point_name AND n.value2 = e.location_name
      ORDER BY e.seq$q$, m.name, m.name || '_0032');
    GET DIAGNOSTICS copied = ROW_COUNT;
    IF copied <> n THEN
      RAISE EXCEPTION '0033: % of the % events of % rewritten', copied, n, m.name;
    END IF;
  END LOOP;
  EXECUTE format('SELECT CASE WHEN is_called THEN last_value + 1 ELSE last_value END FROM %s',
    pg_get_serial_sequence('events_0032', 'seq')) INTO next_seq;
  EXECUTE format('ALTER TABLE events ALTER seq RESTART WITH %s', next_seq);
  DROP TABLE events_0032;
  FOR m IN SELECT * FROM months_0033 WHERE NOT attached LOOP
    EXECUTE format('DROP TABLE IF EXISTS %I', m.name || '_0032');
  END LOOP;
  -- The identity's sequence, named beside the old one's, takes the
  -- usual name when that is free.
  IF to_regclass('events_seq_seq') IS NULL THEN
    EXECUTE format('ALTER SEQUENCE %s RENAME TO events_seq_seq', pg_get_serial_sequence('events', 'seq'));
  END IF;
END $$;

-- Built after the rows, packed full. A detached month gets them when it
-- is attached again.
CREATE UNIQUE INDEX events_by_key ON events (org, id, occurred_at) WITH (fillfactor = 100);
CREATE INDEX events_by_time ON events (org, occurred_at) WITH (fillfactor = 100);
CREATE INDEX events_by_access_point ON events (org, access_point, occurred_at) WITH (fillfactor = 100);
CREATE INDEX events_by_location ON events (org, location, occurred_at) WITH (fillfactor = 100);
CREATE INDEX events_by_type ON events (org, type, occurred_at) WITH (fillfactor = 100) WHERE type <> 'g';
CREATE INDEX events_by_user ON events (org, platform_user_id, occurred_at) WITH (fillfactor = 100);
CREATE INDEX events_by_reason ON events (org, reason, occurred_at) WITH (fillfactor = 100) WHERE reason IS NOT NULL;
CREATE INDEX events_by_scope ON events (org, scope, occurred_at) WITH (fillfactor = 100) WHERE scope IS NOT NULL;
CREATE INDEX events_feed ON events (org, xid, seq) WITH (fillfactor = 100);

-- The rollups keep their texts and ids: the triggers decode the codes,
-- and map the keys of each group (a batch's few) through event_values.
-- Each join names the kind: the rows of other kinds are then never read,
-- and never cast to a uuid (a name is none).
CREATE OR REPLACE FUNCTION insight_add() RETURNS trigger LANGUAGE plpgsql AS $$
BEGIN
  INSERT INTO insight_hour_totals AS r (org, hour, granted, denied, remote_unlocks)
    SELECT org, date_bin('1 hour', occurred_at, timestamptz '2000-01-01 00:00:00+00'),
      count(*) FILTER (WHERE type = 'g'), count(*) FILTER (WHERE type = 'd'), count(*) FILTER (WHERE type = 'u')
    FROM insight_new GROUP BY 1, 2 ORDER BY 1, 2
    ON CONFLICT (org, hour) DO UPDATE SET granted = r.granted + excluded.granted, denied = r.denied + excluded.denied,
      remote_unlocks = r.remote_unlocks + excluded.remote_unlocks;
  INSERT INTO insight_hours AS r (org, hour, type, reason, scope, n)
    SELECT org, date_bin('1 hour', occurred_at, timestamptz '2000-01-01 00:00:00+00'), event_type_name(type), coalesce(reason, ''),
      coalesce(event_scope_name(scope), ''), count(*)
    FROM insight_new GROUP BY 1, 2, 3, 4, 5 ORDER BY 1, 2, 3, 4, 5
    ON CONFLICT (org, hour, type, reason, scope) DO UPDATE SET n = r.n + excluded.n;
  INSERT INTO insight_days AS r (org, day, type, reason, scope, n)
    SELECT org, date_bin('1 day', occurred_at, timestamptz '2000-01-01 00:00:00+00'), event_type_name(type), coalesce(reason, ''),
      coalesce(event_scope_name(scope), ''), count(*)
    FROM insight_new GROUP BY 1, 2, 3, 4, 5 ORDER BY 1, 2, 3, 4, 5
    ON CONFLICT (org, day, type, reason, scope) DO UPDATE SET n = r.n + excluded.n;
  INSERT INTO insight_door_days AS r (org, day, access_point_id, location_id, type, reason, scope, n)
    SELECT d.org, d.day, a.value::uuid, l.value::uuid, d.type, d.reason, d.scope, d.n FROM (
        SELECT org, date_bin('1 day', occurred_at, timestamptz '2000-01-01 00:00:00+00') AS day, access_point, location,
          event_type_name(type) AS type, coalesce(reason, '') AS reason, coalesce(event_scope_name(scope), '') AS scope, count(*) AS n
        FROM insight_new GROUP BY 1, 2, 3, 4, 5, 6, 7) d
      JOIN event_values a ON a.org = d.org AND a.key = d.access_point AND a.kind = 'a'
      JOIN event_values l ON l.org = d.org AND l.key = d.location AND l.kind = 'l'
    ORDER BY 1, 2, 3, 4, 5, 6, 7
    ON CONFLICT (org, day, access_point_id, location_id, type, reason, scope) DO UPDATE SET n = r.n + excluded.n;
  INSERT INTO insight_door_months AS r (org, month, access_point_id, location_id, type, reason, scope, n)
    SELECT d.org, d.month, a.value::uuid, l.value::uuid, d.type, d.reason, d.scope, d.n FROM (
        SELECT org, date_trunc('month', occurred_at AT TIME ZONE 'UTC') AT TIME ZONE 'UTC' AS month, access_point, location,
          event_type_name(type) AS type, coalesce(reason, '') AS reason, coalesce(event_scope_name(scope), '') AS scope, count(*) AS n
        FROM insight_new GROUP BY 1, 2, 3, 4, 5, 6, 7) d
      JOIN event_values a ON a.org = d.org AND a.key = d.access_point AND a.kind = 'a'
      JOIN event_values l ON l.org = d.org AND l.key = d.location AND l.kind = 'l'
    ORDER BY 1, 2, 3, 4, 5, 6, 7
    ON CONFLICT (org, month, access_point_id, location_id, type, reason, scope) DO UPDATE SET n = r.n + excluded.n;
  RETURN NULL;
END $$;

CREATE OR REPLACE FUNCTION insight_remove() RETURNS trigger LANGUAGE plpgsql AS $$
BEGIN
  UPDATE insight_hour_totals r SET granted = r.granted - d.granted, denied = r.denied - d.denied,
      remote_unlocks = r.remote_unlocks - d.remote_unlocks FROM (
      SELECT org, date_bin('1 hour', occurred_at, timestamptz '2000-01-01 00:00:00+00') AS hour,
        count(*) FILTER (WHERE type = 'g') AS granted, count(*) FILTER (WHERE type = 'd') AS denied,
        count(*) FILTER (WHERE type = 'u') AS remote_unlocks
      FROM insight_old GROUP BY 1, 2) d
    WHERE (r.org, r.hour) = (d.org, d.hour);
  DELETE FROM insight_hour_totals r USING (
      SELECT DISTINCT org, date_bin('1 hour', occurred_at, timestamptz '2000-01-01 00:00:00+00') AS hour FROM insight_old) d
    WHERE r.org = d.org AND r.hour = d.hour AND r.granted <= 0 AND r.denied <= 0 AND r.remote_unlocks <= 0;
  UPDATE insight_hours r SET n = r.n - d.n FROM (
      SELECT org, date_bin('1 hour', occurred_at, timestamptz '2000-01-01 00:00:00+00') AS hour, event_type_name(type) AS type,
        coalesce(reason, '') AS reason, coalesce(event_scope_name(scope), '') AS scope, count(*) AS n
      FROM insight_old GROUP BY 1, 2, 3, 4, 5) d
    WHERE (r.org, r.hour, r.type, r.reason, r.scope) = (d.org, d.hour, d.type, d.reason, d.scope);
  DELETE FROM insight_hours r USING (
      SELECT DISTINCT org, date_bin('1 hour', occurred_at, timestamptz '2000-01-01 00:00:00+00') AS hour FROM insight_old) d
    WHERE r.org = d.org AND r.hour = d.hour AND r.n <= 0;
  UPDATE insight_days r SET n = r.n - d.n FROM (
      SELECT org, date_bin('1 day', occurred_at, timestamptz '2000-01-01 00:00:00+00') AS day, event_type_name(type) AS type,
        coalesce(reason, '') AS reason, coalesce(event_scope_name(scope), '') AS scope, count(*) AS n
      FROM insight_old GROUP BY 1, 2, 3, 4, 5) d
    WHERE (r.org, r.day, r.type, r.reason, r.scope) = (d.org, d.day, d.type, d.reason, d.scope);
  DELETE FROM insight_days r USING (
      SELECT DISTINCT org, date_bin('1 day', occurred_at, timestamptz '2000-01-01 00:00:00+00') AS day FROM insight_old) d
    WHERE r.org = d.org AND r.day = d.day AND r.n <= 0;
  UPDATE insight_door_days r SET n = r.n - d.n FROM (
      SELECT o.org, o.day, a.value::uuid AS access_point_id, l.value::uuid AS location_id, o.type, o.reason, o.scope, o.n FROM (
          SELECT org, date_bin('1 day', occurred_at, timestamptz '2000-01-01 00:00:00+00') AS day, access_point, location,
            event_type_name(type) AS type, coalesce(reason, '') AS reason, coalesce(event_scope_name(scope), '') AS scope, count(*) AS n
          FROM insight_old GROUP BY 1, 2, 3, 4, 5, 6, 7) o
        JOIN event_values a ON a.org = o.org AND a.key = o.access_point AND a.kind = 'a'
        JOIN event_values l ON l.org = o.org AND l.key = o.location AND l.kind = 'l') d
    WHERE (r.org, r.day, r.access_point_id, r.location_id, r.type, r.reason, r.scope)
      = (d.org, d.day, d.access_point_id, d.location_id, d.type, d.reason, d.scope);
  DELETE FROM insight_door_days r USING (
      SELECT DISTINCT org, date_bin('1 day', occurred_at, timestamptz '2000-01-01 00:00:00+00') AS day FROM insight_old) d
    WHERE r.org = d.org AND r.day = d.day AND r.n <= 0;
  UPDATE insight_door_months r SET n = r.n - d.n FROM (
      SELECT o.org, o.month, a.value::uuid AS access_point_id, l.value::uuid AS location_id, o.type, o.reason, o.scope, o.n FROM (
          SELECT org, date_trunc('month', occurred_at AT TIME ZONE 'UTC') AT TIME ZONE 'UTC' AS month, access_point, location,
            event_type_name(type) AS type, coalesce(reason, '') AS reason, coalesce(event_scope_name(scope), '') AS scope, count(*) AS n
          FROM insight_old GROUP BY 1, 2, 3, 4, 5, 6, 7) o
        JOIN event_values a ON a.org = o.org AND a.key = o.access_point AND a.kind = 'a'
        JOIN event_values l ON l.org = o.org AND l.key = o.location AND l.kind = 'l') d
    WHERE (r.org, r.month, r.access_point_id, r.location_id, r.type, r.reason, r.scope)
      = (d.org, d.month, d.access_point_id, d.location_id, d.type, d.reason, d.scope);
  DELETE FROM insight_door_months r USING (
      SELECT DISTINCT org, date_trunc('month', occurred_at AT TIME ZONE 'UTC') AT TIME ZONE 'UTC' AS month FROM insight_old) d
    WHERE r.org = d.org AND r.month = d.month AND r.n <= 0;
  RETURN NULL;
END $$;

CREATE OR REPLACE FUNCTION insight_player_remove() RETURNS trigger LANGUAGE plpgsql AS $$
BEGIN
  PERFORM 1 FROM insight_player_cursors WHERE org IN (SELECT DISTINCT org FROM insight_player_old) ORDER BY org FOR SHARE;
  UPDATE insight_player_months r SET n = r.n - d.n FROM (
      SELECT o.org, o.platform_user_id, event_type_name(o.type) AS type,
        date_trunc('month', o.occurred_at AT TIME ZONE 'UTC') AT TIME ZONE 'UTC' AS month,
        coalesce(o.reason, '') AS reason, coalesce(event_scope_name(o.scope), '') AS scope, count(*) AS n
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

CREATE TRIGGER insight_add AFTER INSERT ON events REFERENCING NEW TABLE AS insight_new
  FOR EACH STATEMENT EXECUTE FUNCTION insight_add();
CREATE TRIGGER insight_remove AFTER DELETE ON events REFERENCING OLD TABLE AS insight_old
  FOR EACH STATEMENT EXECUTE FUNCTION insight_remove();
CREATE TRIGGER insight_player_remove AFTER DELETE ON events REFERENCING OLD TABLE AS insight_player_old
  FOR EACH STATEMENT EXECUTE FUNCTION insight_player_remove();

-- Built in one go, the months that ended a week before are packed: the
-- hourly rebuild (compact.go, compactedMark) passes them over.
DO $$
DECLARE r record;
BEGIN
  FOR r IN SELECT t.oid::regclass AS part FROM pg_inherits i JOIN pg_class t ON t.oid = i.inhrelid
    WHERE i.inhparent = 'events'::regclass AND t.relname ~ '^events_[0-9]{4}_[0-9]{2}$'
      AND to_date(substr(t.relname, 8), 'YYYY_MM') + interval '1 month' <= now() - interval '7 days'
  LOOP
    EXECUTE format('COMMENT ON TABLE %s IS %L', r.part, 'gatehouse: indexes rebuilt packed');
  END LOOP;
END $$;

ANALYZE events, event_values;
