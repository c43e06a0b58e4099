-- Written for the wide row of events before migration 0033: run it on a
-- database of a release before 0033.
\timing on
DROP SCHEMA IF EXISTS part_flat CASCADE; DROP SCHEMA IF EXISTS part_month CASCADE;
CREATE SCHEMA part_flat; CREATE SCHEMA part_month;
CREATE TABLE part_flat.events (seq bigint generated always as identity, org bigint not null, id uuid not null, type text not null, occurred_at timestamptz not null, platform_user_id text, reason text, access_point_id uuid not null, payload text);
CREATE TABLE part_month.events (seq bigint generated always as identity, org bigint not null, id uuid not null, type text not null, occurred_at timestamptz not null, platform_user_id text, reason text, access_point_id uuid not null, payload text) PARTITION BY RANGE (occurred_at);
DO $$ BEGIN FOR m IN 0..24 LOOP EXECUTE format('CREATE TABLE part_month.events_%s PARTITION OF part_month.events FOR VALUES FROM (%L) TO (%L)', m, timestamptz '2024-11-01' + make_interval(months => m), timestamptz '2024-11-01' + make_interval(months => m+1)); END LOOP; END $$;
CREATE UNIQUE INDEX ON part_flat.events (org, id);
CREATE UNIQUE INDEX ON part_month.events (org, id, occurred_at); -- a partitioned unique index must include the partition key
CREATE INDEX ON part_flat.events (org, occurred_at DESC, id DESC);
CREATE INDEX ON part_month.events (org, occurred_at DESC, id DESC);
CREATE INDEX ON part_flat.events (org, platform_user_id, occurred_at DESC, id DESC);
CREATE INDEX ON part_month.events (org, platform_user_id, occurred_at DESC, id DESC);
\echo insert flat
INSERT INTO part_flat.events (org, id, type, occurred_at, platform_user_id, reason, access_point_id, payload)
SELECT (g % 4) + 1, gen_random_uuid(), 'ACCESS_GRANTED', timestamptz '2024-11-20' + (g * interval '62 second'), (g % 5000)::text, 'SCHEDULE', '00000000-0000-0000-0000-000000000001', 'x' FROM generate_series(1, 1000000) g;
\echo insert monthly
INSERT INTO part_month.events (org, id, type, occurred_at, platform_user_id, reason, access_point_id, payload)
SELECT (g % 4) + 1, gen_random_uuid(), 'ACCESS_GRANTED', timestamptz '2024-11-20' + (g * interval '62 second'), (g % 5000)::text, 'SCHEDULE', '00000000-0000-0000-0000-000000000001', 'x' FROM generate_series(1, 1000000) g;
ANALYZE part_flat.events; ANALYZE part_month.events;
