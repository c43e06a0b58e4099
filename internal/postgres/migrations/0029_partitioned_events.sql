-- Events are partitioned by the month they occurred in, UTC (docs/decisions.md,
-- "Partitioning events by time"). Retention drops a month whole instead of
-- deleting its rows; each partition has its own indexes.
--
-- Nothing is moved: the table as it is becomes the partition of everything
-- before the month after its last event (events_legacy; none when it is
-- empty), and months from then on are tables of their own, made ahead by
-- every instance (events_add_months) and on demand by ingest.
--
-- On a populated table the steps go from the weakest lock to the
-- strongest, each held to the end: the scans first, while reads and
-- writes go on; then the unique key's build, while reads go on; then the
-- swap, catalog work only, while everything waits (docs/performance.md,
-- "Partitioned events").

-- A partitioned table takes a unique index only with the partition key:
-- (org, id, occurred_at) replaces (org, id), and a table of the ids of the
-- last 7 days keeps a retry with another occurredAt a duplicate
-- (sqlstore.RecentIDsKept): ingest inserts a batch's ids here first, and
-- only the ids new here go on to events. The retention loop deletes the
-- rows past 7 days.
CREATE TABLE recent_event_ids (
  org         bigint NOT NULL,
  id          uuid NOT NULL,
  received_at timestamptz NOT NULL,
  PRIMARY KEY (org, id)
);
CREATE INDEX recent_event_ids_by_age ON recent_event_ids (received_at);

-- 1. Reads and writes go on: the ids of the last 7 days, and a check that
-- every event is before the legacy partition's end (validated apart, so
-- that the attach need not scan). The end is the month after both the
-- last event and tomorrow, which every insert until the swap keeps to
-- (ingest takes events up to an hour ahead).
CREATE TEMPORARY TABLE events_migration ON COMMIT DROP AS
  SELECT coalesce((SELECT max(seq) FROM events), 0) AS last_seq,
    (date_trunc('month', greatest(now() + interval '1 day', (SELECT max(m) FROM organizations o
      CROSS JOIN LATERAL (SELECT occurred_at AS m FROM events e WHERE e.org = o.seq ORDER BY occurred_at DESC LIMIT 1) l))
      AT TIME ZONE 'UTC') + interval '1 month') AT TIME ZONE 'UTC' AS bound,
    coalesce((SELECT last_value + 1 FROM events_seq_seq WHERE is_called), 1) AS next_seq,
    EXISTS (SELECT 1 FROM events) AS populated;
INSERT INTO recent_event_ids (org, id, received_at)
  SELECT org, id, received_at FROM events WHERE received_at >= now() - interval '7 days';
DO $$
BEGIN
  EXECUTE format('ALTER TABLE events ADD CONSTRAINT events_legacy_bound CHECK (occurred_at < %L) NOT VALID',
    (SELECT bound FROM events_migration));
END $$;
ALTER TABLE events VALIDATE CONSTRAINT events_legacy_bound;

-- 2. Reads go on, writes wait: the unique key with the time, then the ids
-- written since the first step (found through the key on seq, still
-- there).
CREATE UNIQUE INDEX events_legacy_by_key ON events (org, id, occurred_at);
INSERT INTO recent_event_ids (org, id, received_at)
  SELECT org, id, received_at FROM events WHERE seq > (SELECT last_seq FROM events_migration)
  ON CONFLICT DO NOTHING;

-- 3. Everything waits: the swap.
DROP TRIGGER insight_add ON events;
DROP TRIGGER insight_remove ON events;
DROP TRIGGER insight_player_remove ON events;
DROP INDEX events_by_id;
-- No key on seq: nothing looks a row up by it (the feed reads (xid, seq)
-- in events_feed), and a partitioned table cannot have it.
ALTER TABLE events DROP CONSTRAINT events_pkey;
ALTER TABLE events ALTER seq DROP IDENTITY;
ALTER TABLE events RENAME TO events_legacy;
ALTER INDEX events_by_time RENAME TO events_legacy_by_time;
ALTER INDEX events_by_access_point RENAME TO events_legacy_by_access_point;
ALTER INDEX events_by_location RENAME TO events_legacy_by_location;
ALTER INDEX events_by_type RENAME TO events_legacy_by_type;
ALTER INDEX events_by_user RENAME TO events_legacy_by_user;
ALTER INDEX events_by_reason RENAME TO events_legacy_by_reason;
ALTER INDEX events_by_scope RENAME TO events_legacy_by_scope;
ALTER INDEX events_feed RENAME TO events_legacy_feed;

CREATE TABLE events (
  seq                bigint GENERATED ALWAYS AS IDENTITY,
  org                bigint NOT NULL,
  id                 uuid NOT NULL,
  type               text NOT NULL,
  occurred_at        timestamptz NOT NULL,
  received_at        timestamptz NOT NULL,
  allowed            text,
  reason             text,
  platform_user_id   text,
  server_job_id      text,
  scope              text,
  location_id        uuid NOT NULL,
  location_name      text NOT NULL,
  access_point_id    uuid NOT NULL,
  access_point_name  text NOT NULL,
  requested_by       uuid,
  command_id         uuid,
  xid                xid8 NOT NULL DEFAULT pg_current_xact_id(),
  platform_user_name text
) PARTITION BY RANGE (occurred_at);

-- The old table holds everything before its bound (the check spares the
-- attach its scan). An empty one (a new installation) is dropped: every
-- month is then a partition of its own.
DO $$
BEGIN
  EXECUTE format('ALTER TABLE events ALTER seq RESTART WITH %s', (SELECT next_seq FROM events_migration));
  IF NOT (SELECT populated FROM events_migration) THEN
    DROP TABLE events_legacy;
    RETURN;
  END IF;
  EXECUTE format('ALTER TABLE events ATTACH PARTITION events_legacy FOR VALUES FROM (MINVALUE) TO (%L)',
    (SELECT bound FROM events_migration));
END $$;
ALTER TABLE IF EXISTS events_legacy DROP CONSTRAINT events_legacy_bound;

-- Each adopts the old table's index of the same shape, when it is kept.
CREATE UNIQUE INDEX events_by_key ON events (org, id, occurred_at);
CREATE INDEX events_by_time ON events (org, occurred_at DESC, id DESC);
CREATE INDEX events_by_access_point ON events (org, access_point_id, occurred_at DESC, id DESC);
CREATE INDEX events_by_location ON events (org, location_id, occurred_at DESC, id DESC);
CREATE INDEX events_by_type ON events (org, type, occurred_at DESC, id DESC) WHERE type <> 'ACCESS_GRANTED';
CREATE INDEX events_by_user ON events (org, platform_user_id, occurred_at DESC, id DESC);
CREATE INDEX events_by_reason ON events (org, reason, occurred_at DESC, id DESC) WHERE reason IS NOT NULL;
CREATE INDEX events_by_scope ON events (org, scope, occurred_at DESC, id DESC) WHERE scope IS NOT NULL;
CREATE INDEX events_feed ON events (org, xid, seq);

-- A statement trigger on the partitioned table sees the rows of every
-- partition a statement touches.
CREATE TRIGGER insight_add AFTER INSERT ON events REFERENCING NEW TABLE AS insight_new
  FOR EACH STATEMENT EXECUTE FUNCTION insight_add();
CREATE TRIGGER insight_remove AFTER DELETE ON events REFERENCING OLD TABLE AS insight_old
  FOR EACH STATEMENT EXECUTE FUNCTION insight_remove();
CREATE TRIGGER insight_player_remove AFTER DELETE ON events REFERENCING OLD TABLE AS insight_player_old
  FOR EACH STATEMENT EXECUTE FUNCTION insight_player_remove();

-- events_add_months makes the partitions of the months the given instants
-- fall in that have none, and returns how many it made. Every instance
-- calls it for the months ahead, and ingest for a batch that meets a
-- month with no partition; the advisory lock makes a second caller wait,
-- then find the work done. Each month is created apart and attached
-- (SHARE UPDATE EXCLUSIVE on events: reads and writes go on), not
-- created as a partition (ACCESS EXCLUSIVE, which would queue every read
-- behind the longest open transaction). A month inside the legacy
-- partition's range is skipped. A month's table that retention detached
-- and has not dropped yet is attached again: it is checked again before
-- it is dropped (DropExpiredPartitions), under the same lock.
CREATE FUNCTION events_add_months(instants timestamptz[]) RETURNS integer LANGUAGE plpgsql AS $$
DECLARE
  at timestamp;
  name text;
  made integer := 0;
BEGIN
  PERFORM pg_advisory_xact_lock(7165536403245901587); -- "events.partitions"
  FOREACH at IN ARRAY ARRAY(SELECT DISTINCT date_trunc('month', i AT TIME ZONE 'UTC') FROM unnest(instants) i ORDER BY 1) LOOP
    name := 'events_' || to_char(at, 'YYYY_MM');
    IF to_regclass(name) IS NOT NULL THEN
      IF NOT (SELECT relispartition FROM pg_class WHERE oid = to_regclass(name)) THEN
        EXECUTE format('ALTER TABLE events ATTACH PARTITION %I FOR VALUES FROM (%L) TO (%L)', name,
          at AT TIME ZONE 'UTC', (at + interval '1 month') AT TIME ZONE 'UTC');
      END IF;
      CONTINUE;
    END IF;
    BEGIN
      EXECUTE format('CREATE TABLE %I (LIKE events INCLUDING DEFAULTS) WITH (autovacuum_analyze_scale_factor = 0.02)', name);
      EXECUTE format('ALTER TABLE events ATTACH PARTITION %I FOR VALUES FROM (%L) TO (%L)', name,
        at AT TIME ZONE 'UTC', (at + interval '1 month') AT TIME ZONE 'UTC');
      made := made + 1;
    EXCEPTION WHEN invalid_object_definition THEN
      NULL; -- the month overlaps the legacy partition, which holds it
    END;
  END LOOP;
  RETURN made;
END $$;

SELECT events_add_months(ARRAY[now(), now() + interval '1 month', now() + interval '2 months']);
