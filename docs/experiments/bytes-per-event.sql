-- Written for the wide row of events before migration 0033: run it on a
-- database of a release before 0033.
-- What would bring an event to 350 bytes with its indexes on PostgreSQL?
-- (docs/performance.md, "Bytes per event"; the plan in docs/decisions.md,
-- "Bytes per event: what each column and index costs, and the plan".)
-- Nothing here changes the schema Gatehouse uses: it copies the stored
-- events into tables of a schema of its own, lab, with compact
-- encodings, and measures each. Run against a seeded bench database:
--
--   gatehouse bench seed --events 1000000 --orgs 4 --seed 1 --db postgres://…/bench
--   psql postgres://…/bench -c 'VACUUM ANALYZE'
--   psql postgres://…/bench -f docs/experiments/bytes-per-event.sql
--
-- Index sizes are measured as inserts grow them ("grown"), then packed
-- by REINDEX ("packed", what a partition that no longer takes events
-- can be given): an index built in one go is 30-50% smaller than the
-- same index grown row by row, so a CREATE TABLE AS with its indexes
-- built after would flatter every variant. About 15 minutes on two cores.
\set ON_ERROR_STOP on
DROP SCHEMA IF EXISTS lab CASCADE;
CREATE SCHEMA lab;

-- The dictionaries a compact row refers to: small integer keys for
-- access points and locations (the row keeps the ids it was recorded
-- with: an access point can move), one key for the pair of names the
-- row was recorded with, and per-organization keys for players, server
-- job ids and reasons (which search_terms and job_spans hold already).
CREATE TABLE lab.ap_keys AS SELECT row_number() OVER (ORDER BY id)::int AS key, id FROM access_points;
CREATE TABLE lab.loc_keys AS SELECT row_number() OVER (ORDER BY id)::int AS key, id FROM locations;
CREATE TABLE lab.name_keys AS SELECT row_number() OVER (PARTITION BY org ORDER BY access_point_name, location_name)::int AS key, *
  FROM (SELECT DISTINCT org, access_point_name, location_name FROM events) d;
CREATE TABLE lab.player_keys AS SELECT row_number() OVER (PARTITION BY org ORDER BY platform_user_id)::int AS key, *
  FROM (SELECT DISTINCT org, platform_user_id FROM events WHERE platform_user_id IS NOT NULL) d;
CREATE TABLE lab.job_keys AS SELECT row_number() OVER (PARTITION BY org ORDER BY server_job_id)::int AS key, *
  FROM (SELECT DISTINCT org, server_job_id FROM events WHERE server_job_id IS NOT NULL) d;
CREATE TABLE lab.reason_keys AS SELECT row_number() OVER (PARTITION BY org ORDER BY reason)::smallint AS key, *
  FROM (SELECT DISTINCT org, reason FROM events WHERE reason IS NOT NULL) d;

-- Every event, compact, in the order a live server stores them: the
-- organizations' events interleaved in time, seq and the transaction id
-- handed out in that order (transactions of 1,000). bench seed stores
-- one organization after the other instead, which flatters the indexes
-- that lead with org.
CREATE TABLE lab.src AS
SELECT row_number() OVER w AS seq, e.occurred_at, e.received_at, ((1000 + row_number() OVER w / 1000)::text)::xid8 AS xid, e.id,
  e.requested_by, e.command_id, e.org::int AS org, a.key AS ap, l.key AS loc, n.key AS names, p.key AS player, j.key AS job, r.key AS reason,
  (CASE e.type WHEN 'ACCESS_GRANTED' THEN 'g' WHEN 'ACCESS_DENIED' THEN 'd' ELSE 'u' END)::"char" AS type,
  (CASE e.scope WHEN 'UNIVERSE' THEN 'U' WHEN 'SERVER' THEN 'S' WHEN 'PLAYER' THEN 'P' END)::"char" AS scope,
  e.platform_user_name, e.server_job_id::uuid AS job_uuid, e.seq AS event_seq
FROM events e
JOIN lab.ap_keys a ON a.id = e.access_point_id
JOIN lab.loc_keys l ON l.id = e.location_id
JOIN lab.name_keys n ON (n.org, n.access_point_name, n.location_name) = (e.org, e.access_point_name, e.location_name)
LEFT JOIN lab.player_keys p ON (p.org, p.platform_user_id) = (e.org, e.platform_user_id)
LEFT JOIN lab.job_keys j ON (j.org, j.server_job_id) = (e.org, e.server_job_id)
LEFT JOIN lab.reason_keys r ON (r.org, r.reason) = (e.org, e.reason)
WINDOW w AS (ORDER BY e.occurred_at, e.id)
ORDER BY e.occurred_at, e.id;

-- 1. The row alone, one encoding after the other (no index).
CREATE TABLE lab.h0 AS SELECT e.* FROM events e JOIN lab.src s ON s.event_seq = e.seq ORDER BY s.seq;
CREATE TABLE lab.h1 AS SELECT e.seq, e.org, e.id, s.type, e.occurred_at, e.received_at, s.reason, e.platform_user_id, e.server_job_id, s.scope,
  e.location_id, e.location_name, e.access_point_id, e.access_point_name, e.requested_by, e.command_id, e.xid, e.platform_user_name
  FROM events e JOIN lab.src s ON s.event_seq = e.seq ORDER BY s.seq;
CREATE TABLE lab.h2 AS SELECT e.seq, e.occurred_at, e.received_at, e.xid, e.id, e.location_id, e.access_point_id, e.requested_by, e.command_id,
  s.org, s.reason, s.type, s.scope, e.platform_user_id, e.server_job_id, e.location_name, e.access_point_name, e.platform_user_name
  FROM events e JOIN lab.src s ON s.event_seq = e.seq ORDER BY s.seq;
CREATE TABLE lab.h3 AS SELECT e.seq, e.occurred_at, e.received_at, e.xid, e.id, s.job_uuid, e.location_id, e.access_point_id, e.requested_by,
  e.command_id, s.org, s.reason, s.type, s.scope, e.platform_user_id, e.location_name, e.access_point_name, e.platform_user_name
  FROM events e JOIN lab.src s ON s.event_seq = e.seq ORDER BY s.seq;
CREATE TABLE lab.h4 AS SELECT e.seq, e.occurred_at, e.received_at, e.xid, e.id, e.location_id, e.access_point_id, e.requested_by, e.command_id,
  s.org, s.job, s.reason, s.type, s.scope, e.platform_user_id, e.location_name, e.access_point_name, e.platform_user_name
  FROM events e JOIN lab.src s ON s.event_seq = e.seq ORDER BY s.seq;
CREATE TABLE lab.h5 AS SELECT e.seq, e.occurred_at, e.received_at, e.xid, e.id, e.location_id, e.access_point_id, e.requested_by, e.command_id,
  s.org, s.player, s.job, s.reason, s.type, s.scope, e.location_name, e.access_point_name, e.platform_user_name
  FROM events e JOIN lab.src s ON s.event_seq = e.seq ORDER BY s.seq;
CREATE TABLE lab.h6 AS SELECT seq, occurred_at, received_at, xid, id, requested_by, command_id,
  org, ap, loc, names, player, job, reason, type, scope, platform_user_name FROM lab.src ORDER BY seq;
CREATE TABLE lab.h6u AS SELECT seq, occurred_at, received_at, xid, id, job_uuid, requested_by, command_id,
  org, ap, loc, names, player, reason, type, scope, platform_user_name FROM lab.src ORDER BY seq;
CREATE TABLE lab.h7 AS SELECT seq, occurred_at, xid, id, requested_by, command_id,
  org, ap, loc, names, player, job, reason, type, scope, platform_user_name FROM lab.src ORDER BY seq;
VACUUM ANALYZE lab.h0, lab.h1, lab.h2, lab.h3, lab.h4, lab.h5, lab.h6, lab.h6u, lab.h7;
SELECT c.relname AS "row", round((pg_relation_size(c.oid) + pg_relation_size(c.oid, 'fsm') + pg_relation_size(c.oid, 'vm'))
  / (SELECT count(*) FROM lab.src)::numeric, 1) AS bytes_per_event
FROM pg_class c WHERE c.relnamespace = 'lab'::regnamespace AND c.relname ~ '^h[0-9]' ORDER BY c.relname;

-- 2. The compact row (h6) with a set of indexes, the events inserted in
-- the live order: each relation grown, then packed by REINDEX at the
-- default fillfactor (90) and at 100.
CREATE FUNCTION lab.variant(name text, idx text[]) RETURNS TABLE (rel text, grown numeric, packed90 numeric, packed100 numeric)
LANGUAGE plpgsql AS $$
DECLARE
  t text := 'lab.' || name;
  n numeric := (SELECT count(*) FROM lab.src);
  d text;
  i int := 0;
  g jsonb := '{}';
  p jsonb := '{}';
  r record;
BEGIN
  EXECUTE format('CREATE TABLE %s (LIKE lab.h6)', t);
  FOREACH d IN ARRAY idx LOOP
    i := i + 1;
    EXECUTE format('CREATE INDEX %I ON %s ', name || '_' || i, t) || d;
  END LOOP;
  EXECUTE format('INSERT INTO %s SELECT seq, occurred_at, received_at, xid, id, requested_by, command_id, org, ap, loc, names, player, job, reason, type, scope, platform_user_name FROM lab.src ORDER BY seq', t);
  FOR r IN SELECT t AS relname, pg_relation_size(t::regclass) AS b
           UNION ALL SELECT x.indexrelid::regclass::text, pg_relation_size(x.indexrelid) FROM pg_index x WHERE x.indrelid = t::regclass LOOP
    g := g || jsonb_build_object(r.relname || ' ' || coalesce((SELECT pg_get_indexdef(r.relname::regclass)), ''), r.b);
  END LOOP;
  EXECUTE format('REINDEX TABLE %s', t);
  FOR r IN SELECT x.indexrelid::regclass::text AS relname, pg_relation_size(x.indexrelid) AS b FROM pg_index x WHERE x.indrelid = t::regclass LOOP
    p := p || jsonb_build_object(r.relname, r.b);
  END LOOP;
  FOR r IN SELECT x.indexrelid::regclass::text AS relname FROM pg_index x JOIN pg_class c ON c.oid = x.indexrelid
           JOIN pg_am a ON a.oid = c.relam WHERE x.indrelid = t::regclass AND a.amname = 'btree' LOOP
    EXECUTE format('ALTER INDEX %s SET (fillfactor = 100)', r.relname);
  END LOOP;
  EXECUTE format('REINDEX TABLE %s', t);
  RETURN QUERY
    SELECT k, round((g->>k)::numeric / n, 1), round((p->>split_part(k, ' ', 1))::numeric / n, 1),
      round(CASE WHEN k LIKE '% CREATE %' THEN pg_relation_size(split_part(k, ' ', 1)::regclass) END / n, 1)
    FROM jsonb_object_keys(g) k
    UNION ALL
    SELECT 'total', round((SELECT sum(v::bigint) FROM jsonb_each_text(g) x(kk, v)) / n, 1),
      round((pg_relation_size(t::regclass) + (SELECT sum(v::bigint) FROM jsonb_each_text(p) x(kk, v))) / n, 1),
      round(pg_total_relation_size(t::regclass) / n, 1)
    ORDER BY 1;
  EXECUTE format('DROP TABLE %s', t);
END $$;

-- a: today's index shapes over the compact row (small keys, "char").
SELECT * FROM lab.variant('a', ARRAY['(seq)', '(org, id)', '(org, occurred_at DESC, id DESC)', '(org, ap, occurred_at DESC, id DESC)',
  '(org, loc, occurred_at DESC, id DESC)', '(org, player, occurred_at DESC, id DESC)', '(org, type, occurred_at DESC, id DESC) WHERE type <> ''g''',
  '(org, reason, occurred_at DESC, id DESC) WHERE reason IS NOT NULL', '(org, scope, occurred_at DESC, id DESC) WHERE scope IS NOT NULL', '(org, xid, seq)']);
-- b: the same, ascending (a backward scan reads them newest first).
SELECT * FROM lab.variant('b', ARRAY['(seq)', '(org, id)', '(org, occurred_at, id)', '(org, ap, occurred_at, id)',
  '(org, loc, occurred_at, id)', '(org, player, occurred_at, id)', '(org, type, occurred_at, id) WHERE type <> ''g''',
  '(org, reason, occurred_at, id) WHERE reason IS NOT NULL', '(org, scope, occurred_at, id) WHERE scope IS NOT NULL', '(org, xid, seq)']);
-- c: the id left out of the filter indexes, descending.
SELECT * FROM lab.variant('c', ARRAY['(seq)', '(org, id)', '(org, occurred_at DESC)', '(org, ap, occurred_at DESC)',
  '(org, loc, occurred_at DESC)', '(org, player, occurred_at DESC)', '(org, type, occurred_at DESC) WHERE type <> ''g''',
  '(org, reason, occurred_at DESC) WHERE reason IS NOT NULL', '(org, scope, occurred_at DESC) WHERE scope IS NOT NULL', '(org, xid, seq)']);
-- d: the id left out, ascending.
SELECT * FROM lab.variant('d', ARRAY['(seq)', '(org, id)', '(org, occurred_at)', '(org, ap, occurred_at)',
  '(org, loc, occurred_at)', '(org, player, occurred_at)', '(org, type, occurred_at) WHERE type <> ''g''',
  '(org, reason, occurred_at) WHERE reason IS NOT NULL', '(org, scope, occurred_at) WHERE scope IS NOT NULL', '(org, xid, seq)']);
-- e: d without the primary key on seq, every index at fillfactor 100.
SELECT * FROM lab.variant('e', ARRAY['(org, id) WITH (fillfactor = 100)', '(org, occurred_at) WITH (fillfactor = 100)',
  '(org, ap, occurred_at) WITH (fillfactor = 100)', '(org, loc, occurred_at) WITH (fillfactor = 100)', '(org, player, occurred_at) WITH (fillfactor = 100)',
  '(org, type, occurred_at) WITH (fillfactor = 100) WHERE type <> ''g''', '(org, reason, occurred_at) WITH (fillfactor = 100) WHERE reason IS NOT NULL',
  '(org, scope, occurred_at) WITH (fillfactor = 100) WHERE scope IS NOT NULL', '(org, xid, seq) WITH (fillfactor = 100)']);
-- f: what else was tried: the time index keeping the id for index-only
-- reads (INCLUDE), a BRIN on occurred_at, random (version 4) ids.
SELECT * FROM lab.variant('f', ARRAY['(org, occurred_at) INCLUDE (id) WITH (fillfactor = 100)', 'USING brin (occurred_at)']);
CREATE TABLE lab.src_v4 AS SELECT * FROM lab.src;
UPDATE lab.src_v4 SET id = gen_random_uuid();
ALTER TABLE lab.src RENAME TO src_v7;
ALTER TABLE lab.src_v4 RENAME TO src;
SELECT * FROM lab.variant('g', ARRAY['(org, id) WITH (fillfactor = 100)']);
ALTER TABLE lab.src RENAME TO src_v4;
ALTER TABLE lab.src_v7 RENAME TO src;

-- 3. e partitioned by month, as issue 33 partitions events; then every
-- month but the last, which still takes events, reindexed.
CREATE TABLE lab.p (LIKE lab.h6) PARTITION BY RANGE (occurred_at);
DO $$
DECLARE m date := date_trunc('month', (SELECT min(occurred_at) FROM lab.src) AT TIME ZONE 'UTC');
BEGIN
  WHILE m <= (SELECT max(occurred_at) FROM lab.src) LOOP
    EXECUTE format('CREATE TABLE lab.p_%s PARTITION OF lab.p FOR VALUES FROM (%L) TO (%L)', to_char(m, 'YYYYMM'), m, m + interval '1 month');
    m := m + interval '1 month';
  END LOOP;
END $$;
CREATE INDEX p_id ON lab.p (org, id) WITH (fillfactor = 100);
CREATE INDEX p_time ON lab.p (org, occurred_at) WITH (fillfactor = 100);
CREATE INDEX p_ap ON lab.p (org, ap, occurred_at) WITH (fillfactor = 100);
CREATE INDEX p_loc ON lab.p (org, loc, occurred_at) WITH (fillfactor = 100);
CREATE INDEX p_user ON lab.p (org, player, occurred_at) WITH (fillfactor = 100);
CREATE INDEX p_type ON lab.p (org, type, occurred_at) WITH (fillfactor = 100) WHERE type <> 'g';
CREATE INDEX p_reason ON lab.p (org, reason, occurred_at) WITH (fillfactor = 100) WHERE reason IS NOT NULL;
CREATE INDEX p_scope ON lab.p (org, scope, occurred_at) WITH (fillfactor = 100) WHERE scope IS NOT NULL;
CREATE INDEX p_feed ON lab.p (org, xid, seq) WITH (fillfactor = 100);
INSERT INTO lab.p SELECT seq, occurred_at, received_at, xid, id, requested_by, command_id, org, ap, loc, names, player, job, reason, type, scope,
  platform_user_name FROM lab.src ORDER BY seq;
SELECT 'partitioned, grown' AS p, round(sum(pg_total_relation_size(relid)) / (SELECT count(*) FROM lab.src)::numeric, 1) AS bytes_per_event
  FROM pg_partition_tree('lab.p');
DO $$
DECLARE r record;
BEGIN
  FOR r IN SELECT relid FROM pg_partition_tree('lab.p') WHERE isleaf ORDER BY relid::text DESC OFFSET 1 LOOP
    EXECUTE format('REINDEX TABLE %s', r.relid);
  END LOOP;
END $$;
SELECT 'partitioned, closed months reindexed' AS p, round(sum(pg_total_relation_size(relid)) / (SELECT count(*) FROM lab.src)::numeric, 1) AS bytes_per_event
  FROM pg_partition_tree('lab.p');

DROP SCHEMA lab CASCADE;
