-- The compact row, the server job (docs/decisions.md, "Bytes per event",
-- step 1): an event's server job id, text of 37 bytes for a UUID, becomes
-- the key of a value of kind 'j' in event_values, four bytes; and the
-- events of a job get an index of their own, which a search for a job id
-- reads instead of every event in the job's span.
--
-- Each month is rewritten into a new table of the new row, in the
-- feed's order (packed), which takes the month's place; a partition is
-- attached again, which builds its indexes. The months retention detached
-- and has not dropped yet are rewritten too, so that they can be attached
-- again. It is not additive: stop every instance of the release before
-- (deploy.md).

-- Every table of months: the partitions, and the months retention
-- detached and has not dropped yet.
CREATE TEMPORARY TABLE months_0034 ON COMMIT DROP AS
  SELECT c.relname::text AS name, c.relispartition AND NOT coalesce(i.inhdetachpending, false) AS attached,
    CASE WHEN c.relispartition THEN pg_get_expr(c.relpartbound, c.oid) END AS bound
  FROM pg_class c LEFT JOIN pg_inherits i ON i.inhrelid = c.oid
  WHERE c.relkind = 'r' AND c.relnamespace = current_schema()::regnamespace
    AND c.relname ~ '^events_([0-9]{4}_[0-9]{2}|legacy)$';

-- Each organization's server jobs take its next keys, max + 1 on, as
-- ingest takes them (postgres/values.go).
DO $$
DECLARE m record;
BEGIN
  CREATE TEMPORARY TABLE jobs_0034 (org bigint, job text) ON COMMIT DROP;
  FOR m IN SELECT * FROM months_0034 LOOP
    EXECUTE format('INSERT INTO jobs_0034 SELECT DISTINCT org, server_job_id FROM %I WHERE server_job_id IS NOT NULL', m.name);
  END LOOP;
  INSERT INTO event_values (org, key, kind, value, value2)
    SELECT j.org, coalesce((SELECT max(v.key) FROM event_values v WHERE v.org = j.org), 0)
        + row_number() OVER (PARTITION BY j.org ORDER BY j.job),
      'j', j.job, ''
    FROM (SELECT DISTINCT org, job FROM jobs_0034) j;
END $$;

-- Each month's rows, in a new table of the new row.
DO $$
DECLARE
  m record;
  n bigint;
  copied bigint;
BEGIN
  FOR m IN SELECT * FROM months_0034 ORDER BY name LOOP
    EXECUTE format('CREATE TABLE %I (LIKE events INCLUDING DEFAULTS) WITH (autovacuum_analyze_scale_factor = 0.02)', m.name || '_0034');
    EXECUTE format('ALTER TABLE %I ALTER server_job_id TYPE integer USING NULL', m.name || '_0034');
    EXECUTE format('SELECT count(*) FROM %I', m.name) INTO n;
    EXECUTE format($q$INSERT INTO %I (seq, occurred_at, received_at, xid, id, requested_by, command_id, org,
        access_point, location, names, server_job_id, type, scope, reason, platform_user_id, platform_user_name)
      SELECT e.seq, e.occurred_at, e.received_at, e.xid, e.id, e.requested_by, e.command_id, e.org,
        e.access_point, e.location, e.names, j.key, e.type, e.scope, e.reason, e.platform_user_id, e.platform_user_name
      FROM %I e
      LEFT JOIN event_values j ON j.org = e.org AND j.kind = 'j' AND j.value = e.server_job_id AND j.value2 = ''
      WHERE (j.key IS NULL) = (e.server_job_id IS NULL)
      ORDER BY e.seq$q$, m.name || '_0034', m.name);
    GET DIAGNOSTICS copied = ROW_COUNT;
    IF copied <> n THEN
      RAISE EXCEPTION '0034: % of the % events of % rewritten', copied, n, m.name;
    END IF;
    -- The mark of a month rebuilt (compact.go) stays: its indexes are
    -- built packed as it is attached.
    EXECUTE format('COMMENT ON TABLE %I IS %L', m.name || '_0034', obj_description(m.name::regclass, 'pg_class'));
    EXECUTE format('DROP TABLE %I', m.name);
  END LOOP;
END $$;

-- With no month left, the column changes type at no cost, and the index
-- of jobs is declared: each month builds it as it is attached.
ALTER TABLE events ALTER server_job_id TYPE integer USING NULL;
-- A search for a server job id reads the job's events in order.
CREATE INDEX events_by_job ON events (org, server_job_id, occurred_at) WITH (fillfactor = 100)
  WHERE server_job_id IS NOT NULL;

DO $$
DECLARE m record;
BEGIN
  FOR m IN SELECT * FROM months_0034 ORDER BY name LOOP
    EXECUTE format('ALTER TABLE %I RENAME TO %I', m.name || '_0034', m.name);
    IF m.attached THEN
      EXECUTE format('ALTER TABLE events ATTACH PARTITION %I %s', m.name, m.bound);
    END IF;
  END LOOP;
END $$;

-- The index of location names is of the pairs of names alone: a job's
-- value, of which an organization has many, has no second.
DROP INDEX event_values_by_value2;
CREATE INDEX event_values_by_value2 ON event_values (org, value2) WHERE kind = 'n';

COMMENT ON COLUMN events.server_job_id IS 'event_values, kind ''j''';

ANALYZE events, event_values;
