#!/bin/sh
# Written for the wide row of events before migration 0033: run it on a
# database of a release before 0033.
# Read latency on the copies partitioning.sql makes (run it first), by
# pgbench: one client, SECONDS_EACH (3) seconds a query and mode.
# simple: every statement planned; prepared: as pgx sends them.
DB=${1:?usage: docs/experiments/partitioning-reads.sh postgres://…/bench}
AP=$(psql "$DB" -Atc "SELECT access_point_id FROM events WHERE org = 1 ORDER BY occurred_at DESC LIMIT 1")
PLAYER=$(psql "$DB" -Atc "SELECT platform_user_id FROM events WHERE org = 1 AND platform_user_id IS NOT NULL ORDER BY occurred_at DESC LIMIT 1")
ID=$(psql "$DB" -Atc "SELECT id FROM events WHERE org = 1 ORDER BY occurred_at LIMIT 1 OFFSET 1000")
CUR=$(psql "$DB" -Atc "SELECT format('(%L::xid8, %s)', xid, seq) FROM events WHERE org = 1 ORDER BY xid DESC, seq DESC LIMIT 1 OFFSET 1000")
D=$(mktemp -d)

for t in ${TABLES:-plain monthly weekly daily}; do
  echo "SELECT * FROM part.$t WHERE org = 1 ORDER BY occurred_at DESC, id DESC LIMIT 51;" > $D/first.sql
  echo "SELECT * FROM part.$t WHERE org = 1 AND access_point_id = '$AP' ORDER BY occurred_at DESC, id DESC LIMIT 51;" > $D/access_point.sql
  echo "SELECT * FROM part.$t WHERE org = 1 AND platform_user_id = '$PLAYER' ORDER BY occurred_at DESC, id DESC LIMIT 51;" > $D/player.sql
  echo "SELECT count(*) FROM part.$t WHERE org = 1 AND occurred_at >= now() - interval '366 days' AND occurred_at < now();" > $D/count366.sql
  echo "SELECT * FROM part.$t WHERE org = 1 AND (xid, seq) > $CUR ORDER BY xid, seq LIMIT 100;" > $D/feed.sql
  echo "SELECT * FROM part.$t WHERE org = 1 AND id = '$ID';" > $D/id.sql
  for q in first access_point player count366 feed id; do
    for m in simple prepared; do
      ms=$(pgbench -n -c 1 -T ${SECONDS_EACH:-3} -M $m -f $D/$q.sql "$DB" 2>/dev/null | awk '/latency average/{print $4}')
      echo "$t $q $m $ms"
    done
  done
done
rm -r $D
