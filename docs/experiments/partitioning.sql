-- Written for the wide row of events before migration 0033: run it on a
-- database of a release before 0033.
-- Partitioning events by occurred_at: measured on copies, nothing built
-- (docs/decisions.md, "Partitioning events by time: measured on copies,
-- the plan"; figures in docs/performance.md, "Partitioning, measured on
-- copies"). It copies the stored events into tables of a schema of its
-- own, part, and never touches Gatehouse's tables. Run against a seeded
-- bench database (two years of events, four organizations):
--
--   gatehouse bench seed --events 1000000 --orgs 4 --seed 1 --db postgres://…/bench
--   psql postgres://…/bench -c 'VACUUM ANALYZE'
--   psql postgres://…/bench -f docs/experiments/partitioning.sql
--
-- Every insert goes in statements of 10,000 events, each its own
-- transaction (\gexec), in the order a live server stores them
-- (occurred_at), with ON CONFLICT DO NOTHING as ingest does; read the
-- time of the whole section from \timing's lines (sum them) or run it
-- under `time`. The copies have today's columns and index shapes and no
-- triggers (the insight trigger costs the same on both). About ten
-- minutes on two cores. Drop it all afterwards with partitioning-drop.sql.
\set ON_ERROR_STOP on
\ir partitioning-drop.sql
CREATE SCHEMA part;

-- The source, numbered in live order, so that each batch is a range.
CREATE TABLE part.src AS SELECT row_number() OVER (ORDER BY occurred_at, seq) AS rn, e.* FROM events e;
CREATE INDEX ON part.src (rn);
ANALYZE part.src;

-- The plain table as today: same columns, same indexes.
CREATE TABLE part.plain (LIKE events INCLUDING DEFAULTS INCLUDING INDEXES);

-- Three partitioned copies: monthly, weekly, daily, over the seeded two
-- years plus a month ahead. The primary key on seq and the unique
-- (org, id) are refused on a table partitioned by occurred_at; the
-- unique index takes the partition key.
CREATE FUNCTION part.make(name text) RETURNS void LANGUAGE plpgsql AS $$
BEGIN
  EXECUTE format('CREATE TABLE part.%I (LIKE events INCLUDING DEFAULTS) PARTITION BY RANGE (occurred_at)', name);
  EXECUTE format('CREATE UNIQUE INDEX ON part.%I (org, id, occurred_at)', name);
  EXECUTE format('CREATE INDEX ON part.%I (org, access_point_id, occurred_at DESC, id DESC)', name);
  EXECUTE format('CREATE INDEX ON part.%I (org, location_id, occurred_at DESC, id DESC)', name);
  EXECUTE format('CREATE INDEX ON part.%I (org, reason, occurred_at DESC, id DESC) WHERE reason IS NOT NULL', name);
  EXECUTE format('CREATE INDEX ON part.%I (org, scope, occurred_at DESC, id DESC) WHERE scope IS NOT NULL', name);
  EXECUTE format('CREATE INDEX ON part.%I (org, occurred_at DESC, id DESC)', name);
  EXECUTE format('CREATE INDEX ON part.%I (org, type, occurred_at DESC, id DESC) WHERE type <> %L', name, 'ACCESS_GRANTED');
  EXECUTE format('CREATE INDEX ON part.%I (org, platform_user_id, occurred_at DESC, id DESC)', name);
  EXECUTE format('CREATE INDEX ON part.%I (org, xid, seq)', name);
END $$;
-- The bounds of each partition: from the month of the first event (the
-- Monday before it for weeks) to a month past the last.
CREATE FUNCTION part.bounds(step interval) RETURNS TABLE (lo timestamptz, hi timestamptz) LANGUAGE sql AS $$
  WITH s AS (SELECT CASE WHEN step = interval '7 days'
      THEN date_trunc('week', date_trunc('month', min(occurred_at) AT TIME ZONE 'UTC')) AT TIME ZONE 'UTC'
      ELSE date_trunc('month', min(occurred_at) AT TIME ZONE 'UTC') AT TIME ZONE 'UTC' END AS first,
    max(occurred_at) + interval '1 month' AS last FROM events)
  SELECT t, t + step FROM s, generate_series(s.first, s.last, step) t WHERE t < s.last
$$;
-- Each partition created in a statement of its own (one transaction for
-- 788 partitions and their indexes would crowd the lock table).
SELECT part.make(name) FROM (VALUES ('monthly'), ('weekly'), ('daily'), ('probed')) v (name); -- probed: monthly, for the duplicate check below
SELECT format('CREATE TABLE part.%I PARTITION OF part.%I FOR VALUES FROM (%L) TO (%L)',
    name || '_' || to_char(lo AT TIME ZONE 'UTC', 'YYYYMMDD'), name, lo, hi)
  FROM (VALUES ('monthly', interval '1 month'), ('weekly', interval '7 days'), ('daily', interval '1 day'), ('probed', interval '1 month')) v (name, step),
    part.bounds(step) \gexec
SELECT inhparent::regclass AS parent, count(*) AS partitions FROM pg_inherits JOIN pg_class p ON p.oid = inhparent AND p.relkind = 'p'
  WHERE inhparent::regclass::text LIKE 'part.%' GROUP BY 1;

-- 1. Import rate. Each INSERT below is 100 statements of 10,000 events.
\timing on
\echo import: plain
SELECT format('INSERT INTO part.plain SELECT seq, org, id, type, occurred_at, received_at, allowed, reason, platform_user_id, server_job_id, scope, location_id, location_name, access_point_id, access_point_name, requested_by, command_id, xid, platform_user_name FROM part.src WHERE rn > %s AND rn <= %s ORDER BY rn ON CONFLICT (org, id) DO NOTHING', n, n + 10000)
  FROM generate_series(0, (SELECT max(rn) FROM part.src) - 1, 10000) n \gexec
\echo import: monthly
SELECT format('INSERT INTO part.monthly SELECT seq, org, id, type, occurred_at, received_at, allowed, reason, platform_user_id, server_job_id, scope, location_id, location_name, access_point_id, access_point_name, requested_by, command_id, xid, platform_user_name FROM part.src WHERE rn > %s AND rn <= %s ORDER BY rn ON CONFLICT (org, id, occurred_at) DO NOTHING', n, n + 10000)
  FROM generate_series(0, (SELECT max(rn) FROM part.src) - 1, 10000) n \gexec
\echo import: weekly
SELECT format('INSERT INTO part.weekly SELECT seq, org, id, type, occurred_at, received_at, allowed, reason, platform_user_id, server_job_id, scope, location_id, location_name, access_point_id, access_point_name, requested_by, command_id, xid, platform_user_name FROM part.src WHERE rn > %s AND rn <= %s ORDER BY rn ON CONFLICT (org, id, occurred_at) DO NOTHING', n, n + 10000)
  FROM generate_series(0, (SELECT max(rn) FROM part.src) - 1, 10000) n \gexec
\echo import: daily
SELECT format('INSERT INTO part.daily SELECT seq, org, id, type, occurred_at, received_at, allowed, reason, platform_user_id, server_job_id, scope, location_id, location_name, access_point_id, access_point_name, requested_by, command_id, xid, platform_user_name FROM part.src WHERE rn > %s AND rn <= %s ORDER BY rn ON CONFLICT (org, id, occurred_at) DO NOTHING', n, n + 10000)
  FROM generate_series(0, (SELECT max(rn) FROM part.src) - 1, 10000) n \gexec

-- 2. The duplicate promise.
-- (a) A table of every event's id, outside the partitions.
CREATE TABLE part.event_ids (org bigint NOT NULL, id uuid NOT NULL, PRIMARY KEY (org, id));
\echo import: event_ids alone (what (a) adds to each insert)
SELECT format('INSERT INTO part.event_ids SELECT org, id FROM part.src WHERE rn > %s AND rn <= %s ORDER BY rn ON CONFLICT DO NOTHING', n, n + 10000)
  FROM generate_series(0, (SELECT max(rn) FROM part.src) - 1, 10000) n \gexec
-- (c) No table: before inserting, probe every partition's unique
-- (org, id, occurred_at) by its (org, id) prefix for the batch's ids (in
-- ingest under a transaction-scoped advisory lock per id, so that two
-- batches with the same id take turns).
\echo import: monthly, each event probed for its id in every partition first
SELECT format('INSERT INTO part.probed SELECT s.seq, s.org, s.id, s.type, s.occurred_at, s.received_at, s.allowed, s.reason, s.platform_user_id, s.server_job_id, s.scope, s.location_id, s.location_name, s.access_point_id, s.access_point_name, s.requested_by, s.command_id, s.xid, s.platform_user_name FROM part.src s WHERE s.rn > %s AND s.rn <= %s AND NOT EXISTS (SELECT 1 FROM part.probed p WHERE p.org = s.org AND p.id = s.id) ORDER BY s.rn ON CONFLICT (org, id, occurred_at) DO NOTHING', n, n + 10000)
  FROM generate_series(0, (SELECT max(rn) FROM part.src) - 1, 10000) n \gexec
\timing off
VACUUM ANALYZE part.plain, part.monthly, part.weekly, part.daily, part.probed, part.event_ids;

-- Bytes per event: the table and its indexes, summed over partitions.
SELECT r AS relation,
  round(sum(pg_total_relation_size(c))::numeric / (SELECT count(*) FROM part.src), 1) AS bytes_per_event
FROM (VALUES ('plain'), ('monthly'), ('weekly'), ('daily'), ('event_ids')) v (r)
  CROSS JOIN LATERAL (SELECT ('part.' || r)::regclass AS c UNION ALL
    SELECT inhrelid::regclass FROM pg_inherits WHERE inhparent = ('part.' || r)::regclass) cs
GROUP BY r ORDER BY r;

-- What a retried id does on the partitioned table with only the
-- partition-local unique: the same occurred_at is a duplicate, another
-- one is stored a second time.
SELECT id AS dup_id, occurred_at AS dup_at FROM part.monthly WHERE org = 1 ORDER BY occurred_at LIMIT 1 \gset
INSERT INTO part.monthly (seq, org, id, type, occurred_at, received_at, location_id, location_name, access_point_id, access_point_name)
  SELECT -1, org, id, type, occurred_at, now(), location_id, location_name, access_point_id, access_point_name FROM part.monthly WHERE org = 1 AND id = :'dup_id'
  ON CONFLICT (org, id, occurred_at) DO NOTHING;
INSERT INTO part.monthly (seq, org, id, type, occurred_at, received_at, location_id, location_name, access_point_id, access_point_name)
  SELECT -2, org, id, type, occurred_at + interval '40 days', now(), location_id, location_name, access_point_id, access_point_name FROM part.monthly WHERE org = 1 AND id = :'dup_id'
  ON CONFLICT (org, id, occurred_at) DO NOTHING;
SELECT count(*) AS stored_with_that_id FROM part.monthly WHERE org = 1 AND id = :'dup_id';
DELETE FROM part.monthly WHERE seq < 0;

-- 1 (reads). Partition pruning, and what the plans cost to make.
SELECT access_point_id AS ap, platform_user_id AS player FROM part.plain WHERE org = 1 AND platform_user_id IS NOT NULL ORDER BY occurred_at DESC LIMIT 1 \gset
EXPLAIN (ANALYZE, BUFFERS, COSTS OFF) SELECT * FROM part.daily WHERE org = 1 ORDER BY occurred_at DESC, id DESC LIMIT 51;
EXPLAIN (ANALYZE, BUFFERS, COSTS OFF) SELECT * FROM part.monthly WHERE org = 1 AND access_point_id = :'ap' ORDER BY occurred_at DESC, id DESC LIMIT 51;
EXPLAIN (ANALYZE, BUFFERS, COSTS OFF) SELECT * FROM part.monthly WHERE org = 1 AND platform_user_id = :'player' ORDER BY occurred_at DESC, id DESC LIMIT 51;
EXPLAIN (ANALYZE, BUFFERS, COSTS OFF) SELECT count(*) FROM part.monthly WHERE org = 1 AND occurred_at >= now() - interval '366 days' AND occurred_at < now();
-- A page after a cursor, bounded in time: pruned at plan time.
EXPLAIN (ANALYZE, BUFFERS, COSTS OFF) SELECT * FROM part.daily WHERE org = 1 AND occurred_at < now() - interval '200 days' ORDER BY occurred_at DESC, id DESC LIMIT 51;
-- The same with the bound as a parameter (a prepared statement, as pgx
-- sends them): pruned when it runs.
PREPARE page(timestamptz) AS SELECT * FROM part.daily WHERE org = 1 AND occurred_at < $1 ORDER BY occurred_at DESC, id DESC LIMIT 51;
SET plan_cache_mode = force_generic_plan;
EXPLAIN (ANALYZE, BUFFERS, COSTS OFF) EXECUTE page(now() - interval '200 days');
RESET plan_cache_mode;
DEALLOCATE page;
-- The feed has no time in its key: every partition's (org, xid, seq) is read.
EXPLAIN (ANALYZE, BUFFERS, COSTS OFF) SELECT * FROM part.daily WHERE org = 1 AND (xid, seq) > ('0', 0) ORDER BY xid, seq LIMIT 100;
EXPLAIN (ANALYZE, BUFFERS, COSTS OFF) SELECT * FROM part.monthly WHERE org = 1 AND (xid, seq) > ('0', 0) ORDER BY xid, seq LIMIT 100;
EXPLAIN (ANALYZE, BUFFERS, COSTS OFF) SELECT * FROM part.plain WHERE org = 1 AND (xid, seq) > ('0', 0) ORDER BY xid, seq LIMIT 100;
-- An id looked up (GET /events/{id}, the search's join): every partition.
EXPLAIN (ANALYZE, BUFFERS, COSTS OFF) SELECT * FROM part.monthly WHERE org = 1 AND id = :'dup_id';

-- 3. Retention: a month of 1 M events dropped, against today's batched
-- deletes. part.ret is partitioned by month; every event of the log is
-- put into January 2025 (2.6 s apart), with today's indexes.
DROP TABLE IF EXISTS part.ret, part.door_days, part.player_months, part.hours;
CREATE TABLE part.ret (LIKE events INCLUDING DEFAULTS) PARTITION BY RANGE (occurred_at);
CREATE TABLE part.ret_202501 PARTITION OF part.ret FOR VALUES FROM ('2025-01-01 00:00:00+00') TO ('2025-02-01 00:00:00+00');
CREATE TABLE part.ret_202502 PARTITION OF part.ret FOR VALUES FROM ('2025-02-01 00:00:00+00') TO ('2025-03-01 00:00:00+00');
CREATE UNIQUE INDEX ON part.ret (org, id, occurred_at);
CREATE INDEX ON part.ret (org, access_point_id, occurred_at DESC, id DESC);
CREATE INDEX ON part.ret (org, location_id, occurred_at DESC, id DESC);
CREATE INDEX ON part.ret (org, reason, occurred_at DESC, id DESC) WHERE reason IS NOT NULL;
CREATE INDEX ON part.ret (org, occurred_at DESC, id DESC);
CREATE INDEX ON part.ret (org, type, occurred_at DESC, id DESC) WHERE type <> 'ACCESS_GRANTED';
CREATE INDEX ON part.ret (org, platform_user_id, occurred_at DESC, id DESC);
CREATE INDEX ON part.ret (org, xid, seq);
SELECT format('INSERT INTO part.ret SELECT seq, org, id, type, timestamptz %L + rn * interval %L, received_at, allowed, reason, platform_user_id, server_job_id, scope, location_id, location_name, access_point_id, access_point_name, requested_by, command_id, xid, platform_user_name FROM part.src WHERE rn > %s AND rn <= %s ORDER BY rn', '2025-01-01 00:00:00+00', '2.6 s', n, n + 10000)
  FROM generate_series(0, (SELECT max(rn) FROM part.src) - 1, 10000) n \gexec
VACUUM ANALYZE part.ret;
SELECT count(*) AS events_in_january, pg_size_pretty(pg_total_relation_size('part.ret_202501')) FROM part.ret_202501;
\timing on
\echo today: 40 batches of 250 deletes (10,000 events), each its own transaction
-- (Today's statement deletes WHERE seq IN (…), through the primary key
-- on seq, which a table partitioned by time cannot have: without it the
-- same statement reads the whole partition for every batch. Here by the
-- unique key instead.)
SELECT format('DELETE FROM part.ret WHERE (org, id, occurred_at) IN (SELECT org, id, occurred_at FROM part.ret WHERE org = %s AND occurred_at < %L LIMIT 250)', 1, '2025-02-01') FROM generate_series(1, 40) \gexec
\echo the same on the plain copy, by seq as today
SELECT format('DELETE FROM part.plain WHERE seq IN (SELECT seq FROM part.plain WHERE org = %s AND occurred_at < %L LIMIT 250)', 1, '2025-02-01') FROM generate_series(1, 40) \gexec
-- The unique key read by org and time instead (the time index, oldest
-- first), through the parent: the parent's statement trigger with a
-- transition table fires with every deleted row, as the insight triggers
-- need (a DELETE naming a partition would not fire the parent's
-- statement triggers).
CREATE TABLE part.trig_log (n bigint);
CREATE FUNCTION part.trig() RETURNS trigger LANGUAGE plpgsql AS $$ BEGIN INSERT INTO part.trig_log SELECT count(*) FROM old_rows; RETURN NULL; END $$;
CREATE TRIGGER t AFTER DELETE ON part.monthly REFERENCING OLD TABLE AS old_rows FOR EACH STATEMENT EXECUTE FUNCTION part.trig();
\echo by the time index through the parent, 40 batches of 250
SELECT format('DELETE FROM part.monthly WHERE (org, id, occurred_at) IN (SELECT org, id, occurred_at FROM part.monthly WHERE org = 1 AND occurred_at < %L ORDER BY occurred_at LIMIT 250)', '2025-01-01') FROM generate_series(1, 40) \gexec
SELECT count(*) AS statements, sum(n) AS rows_seen_by_the_trigger FROM part.trig_log;
\echo the month detached (concurrently: two short transactions, no lock that stops inserts) and dropped
ALTER TABLE part.ret DETACH PARTITION part.ret_202501 CONCURRENTLY;
DROP TABLE part.ret_202501;
\timing off

-- What the side tables must lose with a dropped month, read from the
-- seeded rollups (copied): with a month partition, every rollup key of
-- that month goes whole (hours, days and months all fall inside it).
CREATE TABLE part.door_days AS SELECT * FROM insight_door_days;
CREATE TABLE part.player_months AS SELECT * FROM insight_player_months;
CREATE TABLE part.hours AS SELECT * FROM insight_hours;
ALTER TABLE part.door_days ADD PRIMARY KEY (org, day, access_point_id, location_id, type, reason, scope);
ALTER TABLE part.player_months ADD PRIMARY KEY (org, month, platform_user_id, type, reason, scope);
CREATE INDEX ON part.hours (org, hour);
SELECT date_trunc('month', min(occurred_at) AT TIME ZONE 'UTC') AT TIME ZONE 'UTC' + interval '1 month' AS m0 FROM events \gset
\timing on
\echo the rollup rows of one month deleted by key range (all organizations)
DELETE FROM part.door_days WHERE day >= :'m0' AND day < timestamptz :'m0' + interval '1 month';
DELETE FROM part.player_months WHERE month = :'m0';
DELETE FROM part.hours WHERE hour >= :'m0' AND hour < timestamptz :'m0' + interval '1 month';
\echo a day partition instead: its month rows must be decremented by the counts of the day, read from the partition itself
SELECT count(*) AS player_month_keys_touched FROM (SELECT org, platform_user_id, type, coalesce(reason, ''), coalesce(scope, '')
  FROM part.daily WHERE occurred_at >= timestamptz :'m0' + interval '1 month' AND occurred_at < timestamptz :'m0' + interval '1 month 1 day'
    AND platform_user_id IS NOT NULL GROUP BY 1, 2, 3, 4, 5) d;
\echo search terms of players with no event left, probed against each copy (PruneTerms reads it so)
SELECT count(*) FROM search_terms s WHERE s.org = 1 AND s.field = 1 AND NOT EXISTS (SELECT 1 FROM part.plain e WHERE e.org = s.org AND e.platform_user_id = s.value);
SELECT count(*) FROM search_terms s WHERE s.org = 1 AND s.field = 1 AND NOT EXISTS (SELECT 1 FROM part.monthly e WHERE e.org = s.org AND e.platform_user_id = s.value);
SELECT count(*) FROM search_terms s WHERE s.org = 1 AND s.field = 1 AND NOT EXISTS (SELECT 1 FROM part.daily e WHERE e.org = s.org AND e.platform_user_id = s.value);
\timing off

-- 4. Creating partitions ahead. An insert with no partition for its
-- time fails; a DEFAULT partition takes it, and then a partition
-- created for that range later is refused while the row is there.
\set ON_ERROR_STOP off
INSERT INTO part.monthly (seq, org, id, type, occurred_at, received_at, location_id, location_name, access_point_id, access_point_name)
  VALUES (-3, 1, gen_random_uuid(), 'ACCESS_GRANTED', '2031-01-05', now(), gen_random_uuid(), 'x', gen_random_uuid(), 'y');
CREATE TABLE part.monthly_default PARTITION OF part.monthly DEFAULT;
INSERT INTO part.monthly (seq, org, id, type, occurred_at, received_at, location_id, location_name, access_point_id, access_point_name)
  VALUES (-3, 1, gen_random_uuid(), 'ACCESS_GRANTED', '2031-01-05', now(), gen_random_uuid(), 'x', gen_random_uuid(), 'y');
CREATE TABLE part.monthly_20310101 PARTITION OF part.monthly FOR VALUES FROM ('2031-01-01 00:00:00+00') TO ('2031-02-01 00:00:00+00');
\set ON_ERROR_STOP on
DROP TABLE part.monthly_default;
-- Every instance's loop: one advisory transaction lock (the same key on
-- every instance), then each missing partition ahead created; a second
-- instance waits, then finds them there. ATTACH of a table made apart
-- takes SHARE UPDATE EXCLUSIVE on the parent (inserts and reads go on);
-- CREATE TABLE … PARTITION OF takes ACCESS EXCLUSIVE (it waits for every
-- open transaction that touched events, and everything queues behind it).
\timing on
BEGIN;
SELECT pg_advisory_xact_lock(hashtext('events.partitions'));
CREATE TABLE IF NOT EXISTS part.monthly_20270101 (LIKE part.monthly INCLUDING DEFAULTS);
ALTER TABLE part.monthly_20270101 ADD CONSTRAINT bound CHECK (occurred_at >= '2027-01-01 00:00:00+00' AND occurred_at < '2027-02-01 00:00:00+00');
ALTER TABLE part.monthly ATTACH PARTITION part.monthly_20270101 FOR VALUES FROM ('2027-01-01 00:00:00+00') TO ('2027-02-01 00:00:00+00');
ALTER TABLE part.monthly_20270101 DROP CONSTRAINT bound;
COMMIT;
\timing off

-- 5. Converting a populated table. (i) Moving rows: the imports above
-- are that copy (INSERT … SELECT in batches). (ii) Without moving them:
-- the old table becomes the partition of everything before a bound T a
-- month ahead. Its check constraint is validated first (SHARE UPDATE
-- EXCLUSIVE: writes go on), and the unique index with the partition key
-- built CONCURRENTLY, so that the swap itself scans nothing.
\timing on
CREATE UNIQUE INDEX CONCURRENTLY plain_org_id_at ON part.plain (org, id, occurred_at);
ALTER TABLE part.plain ADD CONSTRAINT before_t CHECK (occurred_at >= '2000-01-01 00:00:00+00' AND occurred_at < '2027-01-01 00:00:00+00') NOT VALID;
ALTER TABLE part.plain VALIDATE CONSTRAINT before_t;
\echo the swap: one short transaction
BEGIN;
SET LOCAL lock_timeout = '2s';
ALTER TABLE part.plain RENAME TO legacy;
CREATE TABLE part.swapped (LIKE part.legacy INCLUDING DEFAULTS) PARTITION BY RANGE (occurred_at);
ALTER TABLE part.legacy DROP CONSTRAINT plain_pkey;
ALTER TABLE part.swapped ATTACH PARTITION part.legacy FOR VALUES FROM ('2000-01-01 00:00:00+00') TO ('2027-01-01 00:00:00+00');
CREATE TABLE part.swapped_20270101 PARTITION OF part.swapped FOR VALUES FROM ('2027-01-01 00:00:00+00') TO ('2027-02-01 00:00:00+00');
CREATE UNIQUE INDEX ON part.swapped (org, id, occurred_at);
CREATE INDEX ON part.swapped (org, occurred_at DESC, id DESC);
CREATE INDEX ON part.swapped (org, xid, seq);
COMMIT;
\timing off
-- The partitioned indexes above attached the legacy table's own indexes
-- (same definitions) instead of building new ones.
SELECT c.relname, i.indexrelid::regclass FROM pg_inherits h JOIN pg_class c ON c.oid = h.inhparent JOIN pg_index i ON i.indexrelid = h.inhrelid
  WHERE c.relname LIKE 'swapped%' ORDER BY 1;
-- Undone, so that the reads (docs/experiments/partitioning-reads.sh)
-- compare the same tables again.
ALTER TABLE part.swapped DETACH PARTITION part.legacy;
DROP TABLE part.swapped;
ALTER TABLE part.legacy RENAME TO plain;
ALTER TABLE part.plain DROP CONSTRAINT before_t;
DROP INDEX part.plain_org_id_at;
ALTER TABLE part.plain ADD CONSTRAINT plain_pkey PRIMARY KEY (seq);

-- Locks, in two shells (not run by this file): with a read of the parent
-- open in one,
--   psql "$DB" -c BEGIN -c "SELECT count(*) FROM part.monthly WHERE occurred_at > now() - interval '1 day'" -c 'SELECT pg_sleep(4)' -c COMMIT &
-- CREATE TABLE … PARTITION OF waits for it (ACCESS EXCLUSIVE), ATTACH does not:
--   psql "$DB" -c "SET lock_timeout = '1s'" -c "CREATE TABLE part.monthly_20280101 PARTITION OF part.monthly FOR VALUES FROM ('2028-01-01') TO ('2028-02-01')"
--   psql "$DB" -c "SET lock_timeout = '1s'" -c "CREATE TABLE part.m2 (LIKE part.monthly INCLUDING DEFAULTS)" -c "ALTER TABLE part.monthly ATTACH PARTITION part.m2 FOR VALUES FROM ('2028-01-01') TO ('2028-02-01')"

-- An identity column on a partitioned table (PostgreSQL 15): filled for
-- an insert through the parent, not for one naming the partition.
CREATE TABLE part.idt (seq bigint GENERATED ALWAYS AS IDENTITY, t timestamptz) PARTITION BY RANGE (t);
CREATE TABLE part.idt_1 PARTITION OF part.idt FOR VALUES FROM ('2025-01-01') TO ('2026-01-01');
INSERT INTO part.idt (t) VALUES ('2025-05-01') RETURNING seq;
\set ON_ERROR_STOP off
INSERT INTO part.idt_1 (t) VALUES ('2025-05-01') RETURNING seq;
