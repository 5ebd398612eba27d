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
source Benchmarks/serve.sh

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
