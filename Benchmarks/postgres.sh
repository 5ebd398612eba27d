#!/usr/bin/env bash
# PostgreSQL beside SQLite, in one run (release build; a throwaway PostgreSQL from Debian's
# packages through Scripts/postgres.sh, stopped on exit):
#   1. the end-to-end commit benchmark (tender bench commit, 64 submitters, no HTTP) on SQLite,
#      then on PostgreSQL;
#   2. POST /transactions (tender bench submit, pre-signed payments over 256 connections) to a
#      tender serve on SQLite, then to one on PostgreSQL;
#   3. GET /accounts/{id} with wrk through one node of a PostgreSQL cluster, then through three
#      nodes sharing the database (one wrk per node, run together; their rates added).
# Usage: Benchmarks/postgres.sh [seconds-for-wrk]
set -euo pipefail
cd "$(dirname "$0")/.."
SECONDS_WRK="${1:-10}"
if ! command -v wrk >/dev/null; then
  (apt-get update -q && apt-get install -y -q wrk) >/dev/null
fi
swift build -c release --product tender >/dev/null
WORK="$(mktemp -d)"
# PostgreSQL runs as an unprivileged user, who must reach its directory inside.
chmod 755 "$WORK"
PIDS=""
cleanup() {
  kill $PIDS 2>/dev/null || true
  wait 2>/dev/null || true
  bash Scripts/postgres.sh stop "$WORK/pg" >/dev/null 2>&1 || true
  rm -rf "$WORK"
}
trap cleanup EXIT
PG="$(bash Scripts/postgres.sh start "$WORK/pg" | tail -1)"
BASE="${PG%/*}"
# A database of its own for each measurement.
newdb() { psql "$PG" -qc "CREATE DATABASE $1" >/dev/null; echo "$BASE/$1"; }

# Starts `tender serve` with the given arguments; sets URL.
serve() {
  local log="$WORK/serve-$RANDOM.log"
  timeout 900 .build/release/tender serve --port 0 --close-interval 0 "$@" >"$log" 2>/dev/null &
  PIDS="$PIDS $!"
  for _ in $(seq 1 300); do grep -q "listening on" "$log" 2>/dev/null && break; sleep 0.1; done
  URL="$(grep -o 'http://127.0.0.1:[0-9]*' "$log" | head -1)"
}

echo "== 1. end to end commit, 64 submitters, 20,000 payments (no HTTP)"
.build/release/tender bench commit --concurrency 64 --transactions 20000 2>/dev/null
.build/release/tender bench commit --concurrency 64 --transactions 20000 --database "$(newdb commitbench)" 2>/dev/null
echo
echo "== 2. POST /transactions, 256 connections, 30,720 pre-signed payments"
serve --data "$WORK/sqlite"
echo "-- SQLite ($URL)"
.build/release/tender bench submit --url "$URL" --connections 256 --accounts 1024 --transactions 30720
CLUSTER_DB="$(newdb cluster)"
serve --data "$WORK/cluster" --database "$CLUSTER_DB"
LEADER="$URL"
echo "-- PostgreSQL ($URL)"
.build/release/tender bench submit --url "$URL" --connections 256 --accounts 1024 --transactions 30720
echo "target on PostgreSQL: 3,000 applied transactions per second over HTTP"
echo

# 100 accounts for the reads (they exist after the submit benchmark, but fund known ones).
ACCOUNTS=()
for i in $(seq 1 100); do
  ADDRESS="$(.build/release/tender keys generate | awk '/account id/ {print $3}')"
  curl -sf "$LEADER/friendbot?addr=$ADDRESS" >/dev/null
  ACCOUNTS+=("$ADDRESS")
done
LUA="$WORK/accounts.lua"
{
  echo "local accounts = {"
  for a in "${ACCOUNTS[@]}"; do echo "  \"/accounts/$a\","; done
  echo "}"
  echo "local i = 0"
  echo "request = function() i = i % #accounts + 1; return wrk.format(\"GET\", accounts[i]) end"
} >"$LUA"
serve --data "$WORK/cluster" --database "$CLUSTER_DB"
FOLLOWER1="$URL"
serve --data "$WORK/cluster" --database "$CLUSTER_DB"
FOLLOWER2="$URL"
# Warm each node's account cache, so both runs measure the same thing.
for NODE in "$LEADER" "$FOLLOWER1" "$FOLLOWER2"; do
  for a in "${ACCOUNTS[@]}"; do curl -sf "$NODE/accounts/$a" >/dev/null; done
done

rate() { grep "Requests/sec" "$1" | awk '{print $2}'; }
# The machine's busy share between two readings of /proc/stat (every core, every process).
cpu() { awk '/^cpu / {print $2+$3+$4+$7+$8, $5+$6}' /proc/stat; }
busy() { echo "$1 $2" | awk '{printf "%.0f%%", 100 * ($3 - $1) / (($3 - $1) + ($4 - $2))}'; }
echo "== 3. GET /accounts/{id} on PostgreSQL, ${SECONDS_WRK} s, 64 connections in all"
BEFORE="$(cpu)"
wrk -t2 -c64 -d"${SECONDS_WRK}s" --latency -s "$LUA" "$LEADER" >"$WORK/one.txt"
echo "-- one node (the leader): $(rate "$WORK/one.txt") requests per second; the cores were $(busy "$BEFORE" "$(cpu)") busy"
grep -E "99%" "$WORK/one.txt" | sed 's/^/   p99 /'
I=0
WRKS=""
BEFORE="$(cpu)"
for NODE in "$LEADER" "$FOLLOWER1" "$FOLLOWER2"; do
  I=$((I + 1))
  wrk -t1 -c21 -d"${SECONDS_WRK}s" --latency -s "$LUA" "$NODE" >"$WORK/three-$I.txt" &
  WRKS="$WRKS $!"
done
wait $WRKS
BUSY="$(busy "$BEFORE" "$(cpu)")"
TOTAL=0
for I in 1 2 3; do
  R="$(rate "$WORK/three-$I.txt")"
  echo "-- node $I of three: $R requests per second, p99 $(grep -E ' 99%' "$WORK/three-$I.txt" | awk '{print $2}')"
  TOTAL="$(echo "$TOTAL + $R" | bc)"
done
ONE="$(rate "$WORK/one.txt")"
echo "-- three nodes together: $TOTAL requests per second ($(echo "scale=2; $TOTAL / $ONE" | bc) times one node's); the cores were $BUSY busy"
echo "target: three nodes at least 1.5 times one node's; this machine has $(nproc) cores, shared by every node and by wrk"
