#!/usr/bin/env bash
# Horizon API benchmarks against a real `tender serve` (release build, group commit):
#   1. GET /accounts/{id} with wrk (installed from Debian's packages if missing), 100 accounts
#      in turn, 15 s: one wrk thread with 32 connections (wrk keeps one core, the server the
#      other), then two threads with 64;
#   2. POST /transactions with pre-signed payments over 256 connections (tender bench submit).
# Usage: Benchmarks/horizon.sh [seconds-for-wrk]
set -euo pipefail
cd "$(dirname "$0")/.."
SECONDS_WRK="${1:-15}"
if ! command -v wrk >/dev/null; then
  (apt-get update -q && apt-get install -y -q wrk) >/dev/null
fi
swift build -c release --product tender >/dev/null
DATA="$(mktemp -d)"
LOG="$DATA/serve.log"
# Port 0: the server picks a free one and prints it.
timeout 900 .build/release/tender serve --port 0 --data "$DATA/ledger" --close-interval 0 >"$LOG" 2>/dev/null &
SERVER=$!
trap 'kill $SERVER 2>/dev/null || true; wait $SERVER 2>/dev/null || true; rm -rf "$DATA"' EXIT
for _ in $(seq 1 100); do grep -q "listening on" "$LOG" 2>/dev/null && break; sleep 0.1; done
URL="$(grep -o 'http://127.0.0.1:[0-9]*' "$LOG" | head -1)"
echo "server: $URL (group commit)"

# 100 funded accounts for the reads.
ACCOUNTS=()
for i in $(seq 1 100); do
  ADDRESS="$(.build/release/tender keys generate | awk '/account id/ {print $3}')"
  curl -sf "$URL/friendbot?addr=$ADDRESS" >/dev/null
  ACCOUNTS+=("$ADDRESS")
done
LUA="$DATA/accounts.lua"
{
  echo "local accounts = {"
  for a in "${ACCOUNTS[@]}"; do echo "  \"/accounts/$a\","; done
  echo "}"
  echo "local i = 0"
  echo "request = function() i = i % #accounts + 1; return wrk.format(\"GET\", accounts[i]) end"
} >"$LUA"
echo
for CONFIG in "1 32" "2 64"; do
  set -- $CONFIG
  echo "== GET /accounts/{id}: wrk, $1 thread(s), $2 connections, ${SECONDS_WRK} s"
  wrk -t"$1" -c"$2" -d"${SECONDS_WRK}s" --latency -s "$LUA" "$URL" | grep -E "Latency  |50%|90%|99%|Requests/sec"
done
echo "target: 20,000 requests per second, p99 under 10 ms"
echo
echo "== POST /transactions: pre-signed payments, 256 connections"
.build/release/tender bench submit --url "$URL" --connections 256 --accounts 1024 --transactions 30720
