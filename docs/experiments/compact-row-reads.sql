-- Written for the wide row of events before migration 0033: run it on a
-- database of a release before 0033.
-- Read latency of the compact row (docs/decisions.md, "Bytes per event",
-- step 1), before it is built: copies the stored events of a seeded bench
-- database into lab.compact, partitioned by month like events, with the
-- dictionaries the plan gives it and migration 0032's index shapes on
-- its keys. docs/experiments/compact-row-reads.sh then times the same
-- reads on events and on the copy. Nothing here changes the schema
-- Gatehouse uses.
--
--   gatehouse bench seed --events 1000000 --orgs 4 --seed 1 --db postgres://…/bench
--   psql postgres://…/bench -f docs/experiments/compact-row-reads.sql
--   sh docs/experiments/compact-row-reads.sh postgres://…/bench
\set ON_ERROR_STOP on
DROP SCHEMA IF EXISTS lab CASCADE;
CREATE SCHEMA lab;

-- Per-organization keys: an access point's and a location's (a column of
-- access_points and locations in the plan), the pair of names an event
-- was recorded with, and the players, server jobs and reasons met.
CREATE TABLE lab.ap AS SELECT org::int, row_number() OVER (PARTITION BY org ORDER BY id)::int AS key, id FROM access_points;
CREATE TABLE lab.loc AS SELECT org::int, row_number() OVER (PARTITION BY org ORDER BY id)::int AS key, id FROM locations;
CREATE TABLE lab.names AS SELECT org::int, row_number() OVER (PARTITION BY org ORDER BY access_point_name, location_name)::int AS key,
  access_point_name, location_name FROM (SELECT DISTINCT org, access_point_name, location_name FROM events) d;
CREATE TABLE lab.players AS SELECT org::int, row_number() OVER (PARTITION BY org ORDER BY platform_user_id)::int AS key, platform_user_id
  FROM (SELECT DISTINCT org, platform_user_id FROM events WHERE platform_user_id IS NOT NULL) d;
CREATE TABLE lab.jobs AS SELECT org::int, row_number() OVER (PARTITION BY org ORDER BY server_job_id)::int AS key, server_job_id
  FROM (SELECT DISTINCT org, server_job_id FROM events WHERE server_job_id IS NOT NULL) d;
CREATE TABLE lab.reasons AS SELECT org::int, row_number() OVER (PARTITION BY org ORDER BY reason)::smallint AS key, reason
  FROM (SELECT DISTINCT org, reason FROM events WHERE reason IS NOT NULL) d;
ALTER TABLE lab.ap ADD PRIMARY KEY (org, key), ADD UNIQUE (org, id);
ALTER TABLE lab.loc ADD PRIMARY KEY (org, key), ADD UNIQUE (org, id);
ALTER TABLE lab.names ADD PRIMARY KEY (org, key), ADD UNIQUE (org, access_point_name, location_name);
ALTER TABLE lab.players ADD PRIMARY KEY (org, key), ADD UNIQUE (org, platform_user_id);
ALTER TABLE lab.jobs ADD PRIMARY KEY (org, key), ADD UNIQUE (org, server_job_id);
ALTER TABLE lab.reasons ADD PRIMARY KEY (org, key), ADD UNIQUE (org, reason);

CREATE TABLE lab.compact (
  seq bigint NOT NULL, occurred_at timestamptz NOT NULL, received_at timestamptz NOT NULL, xid xid8 NOT NULL, id uuid NOT NULL,
  requested_by uuid, command_id uuid, org int NOT NULL, ap int NOT NULL, loc int NOT NULL, names int NOT NULL, player int, job int,
  reason smallint, type "char" NOT NULL, scope "char", platform_user_name text
) PARTITION BY RANGE (occurred_at);
DO $$
DECLARE m timestamptz := date_trunc('month', (SELECT min(occurred_at) FROM events) AT TIME ZONE 'UTC') AT TIME ZONE 'UTC';
BEGIN
  WHILE m <= (SELECT max(occurred_at) FROM events) LOOP
    EXECUTE format('CREATE TABLE lab.compact_%s PARTITION OF lab.compact FOR VALUES FROM (%L) TO (%L)',
      to_char(m AT TIME ZONE 'UTC', 'YYYYMM'), m, m + interval '1 month');
    m := m + interval '1 month';
  END LOOP;
END $$;
INSERT INTO lab.compact
SELECT e.seq, e.occurred_at, e.received_at, e.xid, e.id, e.requested_by, e.command_id, e.org, a.key, l.key, n.key, p.key, j.key, r.key,
  (CASE e.type WHEN 'ACCESS_GRANTED' THEN 'g' WHEN 'ACCESS_DENIED' THEN 'd' ELSE 'u' END)::"char",
  (CASE e.scope WHEN 'UNIVERSE' THEN 'U' WHEN 'SERVER' THEN 'S' WHEN 'PLAYER' THEN 'P' END)::"char", e.platform_user_name
FROM events e
JOIN lab.ap a ON (a.org, a.id) = (e.org, e.access_point_id)
JOIN lab.loc l ON (l.org, l.id) = (e.org, e.location_id)
JOIN lab.names n ON (n.org, n.access_point_name, n.location_name) = (e.org, e.access_point_name, e.location_name)
LEFT JOIN lab.players p ON (p.org, p.platform_user_id) = (e.org, e.platform_user_id)
LEFT JOIN lab.jobs j ON (j.org, j.server_job_id) = (e.org, e.server_job_id)
LEFT JOIN lab.reasons r ON (r.org, r.reason) = (e.org, e.reason)
ORDER BY e.seq;
CREATE UNIQUE INDEX ON lab.compact (org, id, occurred_at) WITH (fillfactor = 100);
CREATE INDEX ON lab.compact (org, occurred_at) WITH (fillfactor = 100);
CREATE INDEX ON lab.compact (org, ap, occurred_at) WITH (fillfactor = 100);
CREATE INDEX ON lab.compact (org, loc, occurred_at) WITH (fillfactor = 100);
CREATE INDEX ON lab.compact (org, player, occurred_at) WITH (fillfactor = 100);
CREATE INDEX ON lab.compact (org, type, occurred_at) WITH (fillfactor = 100) WHERE type <> 'g';
CREATE INDEX ON lab.compact (org, reason, occurred_at) WITH (fillfactor = 100) WHERE reason IS NOT NULL;
CREATE INDEX ON lab.compact (org, scope, occurred_at) WITH (fillfactor = 100) WHERE scope IS NOT NULL;
CREATE INDEX ON lab.compact (org, xid, seq) WITH (fillfactor = 100);
VACUUM ANALYZE lab.compact, lab.ap, lab.loc, lab.names, lab.players, lab.jobs, lab.reasons;

SELECT round(sum(pg_total_relation_size(relid)) / (SELECT count(*) FROM lab.compact)::numeric, 1) AS compact_bytes_per_event
  FROM pg_partition_tree('lab.compact');
