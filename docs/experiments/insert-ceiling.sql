-- How fast can PostgreSQL itself insert events into Gatehouse's schema on
-- this machine? This copies 200,000 stored events server-side (no client,
-- no network, no JSON) into an empty copy of the events table: first with
-- every index, then without the trigram index, then with no index but the
-- primary key. An empty table is the kindest case, so the figures are
-- upper bounds for `event import`. Run against a seeded bench database:
--
--   gatehouse bench seed --events 1000000 --db postgres://…/bench
--   psql postgres://…/bench -f docs/experiments/insert-ceiling.sql
\timing on
CREATE TEMP TABLE src AS SELECT * FROM events ORDER BY seq LIMIT 200000;

CREATE TABLE events_ceiling (LIKE events INCLUDING DEFAULTS INCLUDING IDENTITY);
ALTER TABLE events_ceiling ADD PRIMARY KEY (seq);
CREATE UNIQUE INDEX ON events_ceiling (org, id);
CREATE INDEX ON events_ceiling (org, occurred_at DESC, id DESC);
CREATE INDEX ON events_ceiling (org, access_point_id, occurred_at DESC, id DESC);
CREATE INDEX ON events_ceiling (org, location_id, occurred_at DESC, id DESC);
CREATE INDEX ON events_ceiling (org, type, occurred_at DESC, id DESC);
CREATE INDEX ON events_ceiling (org, allowed, occurred_at DESC, id DESC);
CREATE INDEX ON events_ceiling (org, platform_user_id, occurred_at DESC, id DESC);
CREATE INDEX ON events_ceiling (org, reason, occurred_at DESC, id DESC);
CREATE INDEX ON events_ceiling (org, scope, occurred_at DESC, id DESC) WHERE scope IS NOT NULL;
CREATE INDEX events_ceiling_search ON events_ceiling USING gin (search gin_trgm_ops);

\echo every index
INSERT INTO events_ceiling OVERRIDING SYSTEM VALUE SELECT * FROM src;

\echo without the trigram index
TRUNCATE events_ceiling;
DROP INDEX events_ceiling_search;
INSERT INTO events_ceiling OVERRIDING SYSTEM VALUE SELECT * FROM src;

\echo primary key only
TRUNCATE events_ceiling;
SELECT format('DROP INDEX %I', indexname) FROM pg_indexes
 WHERE tablename = 'events_ceiling' AND indexname <> 'events_ceiling_pkey' \gexec
INSERT INTO events_ceiling OVERRIDING SYSTEM VALUE SELECT * FROM src;

DROP TABLE events_ceiling;
