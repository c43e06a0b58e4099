-- What does each index of the events table cost at insert? This copies
-- 500,000 stored events server-side (no client, no network, no JSON) into
-- an empty copy of the events table with every index of the schema, then
-- again once without each index in turn, then with the primary key alone:
-- the first figure is PostgreSQL's own ceiling for the schema, the others
-- what each index costs. Run against a seeded bench database:
--
--   gatehouse bench seed --events 1000000 --db postgres://…/bench
--   psql postgres://…/bench -f docs/experiments/index-costs.sql
CREATE TEMP TABLE src AS SELECT * FROM events ORDER BY seq LIMIT 500000;
CREATE TABLE events_ceiling (LIKE events INCLUDING DEFAULTS INCLUDING IDENTITY INCLUDING INDEXES);

DO $$
DECLARE
  t0 timestamptz;
  n bigint;
  ix record;
  run text := 'INSERT INTO events_ceiling OVERRIDING SYSTEM VALUE SELECT * FROM src';
BEGIN
  SELECT count(*) INTO n FROM src;
  t0 := clock_timestamp();
  EXECUTE run;
  RAISE NOTICE 'every index: % rows/s', round(n / extract(epoch FROM clock_timestamp() - t0));
  FOR ix IN SELECT indexname, indexdef FROM pg_indexes
            WHERE tablename = 'events_ceiling' AND indexname <> 'events_ceiling_pkey' ORDER BY indexname LOOP
    TRUNCATE events_ceiling;
    EXECUTE format('DROP INDEX %I', ix.indexname);
    t0 := clock_timestamp();
    EXECUTE run;
    RAISE NOTICE 'without %: % rows/s', ix.indexname, round(n / extract(epoch FROM clock_timestamp() - t0));
    EXECUTE ix.indexdef;
  END LOOP;
  FOR ix IN SELECT indexname FROM pg_indexes WHERE tablename = 'events_ceiling' AND indexname <> 'events_ceiling_pkey' LOOP
    EXECUTE format('DROP INDEX %I', ix.indexname);
  END LOOP;
  TRUNCATE events_ceiling;
  t0 := clock_timestamp();
  EXECUTE run;
  RAISE NOTICE 'primary key only: % rows/s', round(n / extract(epoch FROM clock_timestamp() - t0));
END $$;

DROP TABLE events_ceiling;
