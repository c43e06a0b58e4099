#!/bin/sh
# Written for the wide row of events before migration 0033: run it on a
# database of a release before 0033.
# Read latency of events against the compact copy compact-row-reads.sql
# makes (run it first), by pgbench: one client, prepared statements as
# pgx sends them, SECONDS_EACH (3) seconds a query. Each page returns
# the fields an event shows; the copy's through its dictionaries, joined
# to the page's rows only, and its filters find their key first.
DB=${1:?usage: docs/experiments/compact-row-reads.sh postgres://…/bench}
AP=$(psql "$DB" -Atc "SELECT access_point_id FROM events WHERE org = 1 ORDER BY occurred_at DESC LIMIT 1")
PLAYER=$(psql "$DB" -Atc "SELECT platform_user_id FROM events WHERE org = 1 AND platform_user_id IS NOT NULL ORDER BY occurred_at DESC LIMIT 1")
REASON=$(psql "$DB" -Atc "SELECT reason FROM events WHERE org = 1 AND reason IS NOT NULL ORDER BY occurred_at DESC LIMIT 1")
ID=$(psql "$DB" -Atc "SELECT id FROM events WHERE org = 1 ORDER BY occurred_at LIMIT 1 OFFSET 1000")
D=$(mktemp -d)

wide="e.id, e.type, e.occurred_at, e.received_at, e.allowed, e.reason, e.platform_user_id, e.platform_user_name,
  e.server_job_id, e.scope, e.location_id, e.location_name, e.access_point_id, e.access_point_name"
today() { echo "SELECT $wide FROM events e WHERE e.org = 1 $1 ORDER BY e.occurred_at DESC, e.id DESC LIMIT 51;"; }
compact() {
  echo "SELECT e.id, e.type, e.occurred_at, e.received_at, r.reason, p.platform_user_id, e.platform_user_name, j.server_job_id,
    e.scope, l.id, n.location_name, a.id, n.access_point_name
  FROM (SELECT * FROM lab.compact e WHERE e.org = 1 $1 ORDER BY e.occurred_at DESC, e.id DESC LIMIT 51) e
  JOIN lab.ap a ON a.org = e.org AND a.key = e.ap
  JOIN lab.loc l ON l.org = e.org AND l.key = e.loc
  JOIN lab.names n ON n.org = e.org AND n.key = e.names
  LEFT JOIN lab.players p ON p.org = e.org AND p.key = e.player
  LEFT JOIN lab.jobs j ON j.org = e.org AND j.key = e.job
  LEFT JOIN lab.reasons r ON r.org = e.org AND r.key = e.reason
  ORDER BY e.occurred_at DESC, e.id DESC;"
}
today "" > $D/today_first.sql
compact "" > $D/compact_first.sql
today "AND e.access_point_id = '$AP'" > $D/today_access_point.sql
compact "AND e.ap = (SELECT key FROM lab.ap WHERE org = 1 AND id = '$AP')" > $D/compact_access_point.sql
today "AND e.platform_user_id = '$PLAYER'" > $D/today_player.sql
compact "AND e.player = (SELECT key FROM lab.players WHERE org = 1 AND platform_user_id = '$PLAYER')" > $D/compact_player.sql
today "AND e.reason = '$REASON'" > $D/today_reason.sql
compact "AND e.reason = (SELECT key FROM lab.reasons WHERE org = 1 AND reason = '$REASON')" > $D/compact_reason.sql
today "AND e.type = 'ACCESS_DENIED'" > $D/today_denied.sql
compact "AND e.type = 'd'" > $D/compact_denied.sql
today "AND e.id = '$ID'" > $D/today_id.sql
compact "AND e.id = '$ID'" > $D/compact_id.sql
for q in first access_point player reason denied id; do
  for t in today compact; do
    ms=$(pgbench -n -c 1 -T ${SECONDS_EACH:-3} -M prepared -f $D/${t}_$q.sql "$DB" 2>/dev/null | awk '/latency average/{print $4}')
    echo "$q $t $ms"
  done
done
rm -r $D
