#!/usr/bin/env bash
# Starts the two extra PostgreSQL primaries the shard tests run against,
# as clusters of the machine's PostgreSQL on loopback ports 5433 and 5434
# (Debian's pg_createcluster; run as root or as the postgres user), creates
# a throwaway database on each, and prints the line that names them:
#
#   eval "$(scripts/shard-clusters.sh up)"   # exports GATEHOUSE_TEST_SHARDS
#   scripts/shard-clusters.sh down NAME      # drops that database again
#
# A cluster that exists is started if it is stopped and otherwise left as
# it is; .ci/run calls this.
set -euo pipefail

version=$(ls /etc/postgresql | sort -n | tail -n1)
ports=(5433 5434)

as_postgres() {
  if [ "$(id -u)" = 0 ]; then su postgres -s /bin/sh -c "$*"; else sh -c "$*"; fi
}

up() {
  local db="gatehouse_shard_$$_$(date +%s)" urls=()
  for i in "${!ports[@]}"; do
    local port=${ports[$i]} name="gatehouse_shard$((i + 1))"
    # Only the export line below goes to stdout, which the caller evals:
    # what the cluster tools print (pg_ctlcluster's "Removed stale pid
    # file.", for one) goes to stderr.
    if ! pg_lsclusters -h | awk '{print $2}' | grep -qx "$name"; then
      pg_createcluster "$version" "$name" --port "$port" -- --auth=trust >&2
    fi
    if ! pg_isready -q -h 127.0.0.1 -p "$port"; then
      pg_ctlcluster --skip-systemctl-redirect "$version" "$name" start >&2
    fi
    for _ in $(seq 30); do pg_isready -q -h 127.0.0.1 -p "$port" && break; sleep 1; done
    psql -q -h 127.0.0.1 -p "$port" -U postgres -d postgres -c "CREATE DATABASE $db" >/dev/null
    urls+=("postgres://postgres@127.0.0.1:$port/$db?sslmode=disable")
  done
  (IFS=,; echo "export GATEHOUSE_TEST_SHARDS='${urls[*]}'; export GATEHOUSE_SHARD_DB=$db")
}

down() {
  for port in "${ports[@]}"; do
    psql -q -h 127.0.0.1 -p "$port" -U postgres -d postgres -c "DROP DATABASE IF EXISTS $1 WITH (FORCE)" >/dev/null || true
  done
}

case "${1:-}" in
  up) up ;;
  down) down "${2:?the database name up printed}" ;;
  *) echo "usage: $0 up | down NAME" >&2; exit 2 ;;
esac
