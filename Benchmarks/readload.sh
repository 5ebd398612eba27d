#!/usr/bin/env bash
# Does read load slow the ledger down? Against a real `tender serve` (release build, group
# commit), with a market of offers on it (tender bench market: three markets of 30 offers, paths
# of three hops):
#   1. POST /transactions alone: tender bench submit, 256 connections;
#   2. the same while wrk (installed from Debian's packages if missing) asks for order books and
#      strict-send/strict-receive paths as fast as it can over 8 connections on one thread.
# Reports both submit rates and p99s, the read rate, and the cost of the read load to the submit
# rate. Target: under 20%. Usage: [ROUNDS=3] Benchmarks/readload.sh [transactions]
# (TENDER_MAX_PATH_FINDING_REQUESTS=N in the environment paces the server's path searches.)
set -euo pipefail
cd "$(dirname "$0")/.."
TRANSACTIONS="${1:-30720}"
SERVE_TIMEOUT=1800
source Benchmarks/serve.sh

.build/release/tender bench market --url "$URL" >"$DATA/reads.txt"
LUA="$DATA/reads.lua"
{
  echo "local paths = {"
  while read -r path; do echo "  \"$path\","; done <"$DATA/reads.txt"
  echo "}"
  echo "local i = 0"
  echo "request = function() i = i % #paths + 1; return wrk.format(\"GET\", paths[i]) end"
  echo "response = function(status) if status ~= 200 then error(\"status \" .. status) end end"
} >"$LUA"
# Each read does real work: show one of each.
while read -r path; do
  printf '%s -> %s bytes\n' "${path%%\?*}" "$(curl -sf "$URL$path" | wc -c)"
done <"$DATA/reads.txt"

submit() {
  .build/release/tender bench submit --url "$URL" --connections 256 --accounts 1024 --transactions "$TRANSACTIONS" >"$DATA/submit.txt"
  grep -E "applied|latency" "$DATA/submit.txt" >&2
  awk '/transactions per second/ {for (i = 1; i <= NF; i++) if ($i == "transactions") print $(i - 1)}' "$DATA/submit.txt"
}

# The submit rate alone swings by a quarter between identical runs on a small machine, and it
# drifts down as the history grows (each run adds its transactions), so a loaded run is compared
# with the mean of the alone runs just before and just after it: alone, loaded, alone, loaded,
# ..., alone (ROUNDS loaded runs). The cost is the median over the rounds.
ROUNDS="${ROUNDS:-3}"
cpu_seconds() { awk '{print ($14 + $15) / 100}' "/proc/$1/stat"; }
COSTS=""
echo
echo "== POST /transactions alone"
BEFORE="$(submit | tail -1)"
for round in $(seq 1 "$ROUNDS"); do
  echo
  echo "== round $round: POST /transactions while wrk reads order books and paths (1 thread, 8 connections)"
  wrk -t1 -c8 -d600s --latency -s "$LUA" "$URL" >"$DATA/wrk.txt" 2>&1 &
  WRK=$!
  EXTRA_PIDS=$WRK
  sleep 2
  LOADED="$(submit | tail -1)"
  WRK_CPU="$(cpu_seconds $WRK)"
  kill -INT $WRK 2>/dev/null || true
  wait $WRK 2>/dev/null || true
  EXTRA_PIDS=""
  grep -E "Requests/sec|99%|Non-2xx" "$DATA/wrk.txt" || true
  echo "== round $round: POST /transactions alone"
  AFTER="$(submit | tail -1)"
  COST="$(awk -v before="$BEFORE" -v after="$AFTER" -v loaded="$LOADED" 'BEGIN { alone = (before + after) / 2; printf "%.1f", (alone - loaded) / alone * 100 }')"
  COSTS="$COSTS $COST"
  awk -v before="$BEFORE" -v after="$AFTER" -v loaded="$LOADED" -v cost="$COST" -v cpu="$WRK_CPU" 'BEGIN {
    printf "submit rate alone %.0f/s before and %.0f/s after, under read load %.0f/s: the read load costs %s%% (wrk itself used %.1f CPU seconds)\n", before, after, loaded, cost, cpu
  }'
  BEFORE="$AFTER"
done
echo
echo "$COSTS" | tr ' ' '\n' | sed '/^$/d' | sort -n | awk '{ v[NR] = $1 } END {
  printf "the read load costs the submit rate (median of %d rounds) %.1f%% (target: under 20%%)\n", NR, v[int((NR + 1) / 2)]
}'
