#!/bin/sh
# Written for the wide row of events before migration 0033: run it on a
# database of a release before 0033.
# The conversion of partitioning.sql's step 5 with inserts going on: two
# pgbench clients insert single events into part.plain (the one-table
# copy partitioning.sql leaves) for 20 s while the unique index is built
# concurrently, the check validated, and part.plain swapped for a
# partitioned table of the same name whose partition for everything
# before 2027 is the old table. Prints the insert latencies (ms) before,
# during and after the conversion, and any error. Run it after
# partitioning.sql; partitioning-drop.sql cleans up.
set -e
DB=${1:?usage: docs/experiments/partitioning-swap.sh postgres://…/bench}
D=$(mktemp -d)
psql "$DB" -qc "CREATE SEQUENCE IF NOT EXISTS part.swap_seq START 2000000000"
cat > $D/ins.sql <<'SQL'
INSERT INTO part.plain (seq, org, id, type, occurred_at, received_at, location_id, location_name, access_point_id, access_point_name)
  VALUES (nextval('part.swap_seq'), 1, gen_random_uuid(), 'ACCESS_GRANTED', now(), now(), gen_random_uuid(), 'l', gen_random_uuid(), 'a');
SQL
(cd $D && pgbench -n -c 2 -T 20 -l -f ins.sql "$DB" > pgbench.out 2>&1) &
sleep 5
start=$(date +%s%N)
psql "$DB" -v ON_ERROR_STOP=1 -q <<'SQL'
\timing on
CREATE UNIQUE INDEX CONCURRENTLY plain_org_id_at ON part.plain (org, id, occurred_at);
ALTER TABLE part.plain ADD CONSTRAINT before_t CHECK (occurred_at >= '2000-01-01 00:00:00+00' AND occurred_at < '2027-01-01 00:00:00+00') NOT VALID;
ALTER TABLE part.plain VALIDATE CONSTRAINT before_t;
BEGIN;
SET LOCAL lock_timeout = '2s';
ALTER TABLE part.plain RENAME TO legacy;
CREATE TABLE part.plain (LIKE part.legacy INCLUDING DEFAULTS) PARTITION BY RANGE (occurred_at);
ALTER TABLE part.legacy DROP CONSTRAINT plain_pkey;
ALTER TABLE part.plain ATTACH PARTITION part.legacy FOR VALUES FROM ('2000-01-01 00:00:00+00') TO ('2027-01-01 00:00:00+00');
CREATE TABLE part.plain_20270101 PARTITION OF part.plain FOR VALUES FROM ('2027-01-01 00:00:00+00') TO ('2027-02-01 00:00:00+00');
CREATE UNIQUE INDEX ON part.plain (org, id, occurred_at);
CREATE INDEX ON part.plain (org, occurred_at DESC, id DESC);
CREATE INDEX ON part.plain (org, xid, seq);
COMMIT;
SQL
end=$(date +%s%N)
wait
cat $D/pgbench.out | grep -E 'processed|failed|latency average|error|ERROR' || true
# pgbench's log: client, transaction, latency (µs), script, epoch s, µs.
cat $D/pgbench_log.* | awk -v s=$((start / 1000)) -v e=$((end / 1000)) '
  { t = $5 * 1000000 + $6; k = (t < s) ? "before" : (t - $3 <= e) ? "during" : "after"; print k, $3 / 1000 }' > $D/lat
for k in before during after; do
  grep "^$k " $D/lat | cut -d' ' -f2 | sort -n | awk -v k=$k '{ a[NR] = $1 }
    END { printf "%s: %d inserts, p50 %.2f ms, p99 %.2f ms, max %.2f ms\n", k, NR, a[int(NR * 0.5) + 1], a[int(NR * 0.99) + 1], a[NR] }'
done
rm -r $D
