#!/usr/bin/env bash
# The console on a merchant with many payments: `tender bench gateway` makes PAYMENTS card
# payments (default 100,000) through the API, then wrk (1 thread, 8 connections, with the
# merchant's console session) asks for the payments list's first page, a page filtered by a
# status no payment has (each such page reads the most a page reads, 2,000 payments), a
# payment's page and the home page (14 days of figures and charts), printing requests per second
# and the latency percentiles (wrk --latency).
# Then the cost of an open console to the payments: card payments (20,000, 64 connections)
# measured alone and with CONSOLES home pages open on /console/live (default 5), in turn, twice.
# Targets (issue 27): the list with 100,000 payments answers in under 100 ms at p99; a console
# open on the home page costs the card payment rate less than 5%.
# Usage: [CONSOLES=5] Benchmarks/console.sh [payments] [seconds]
set -euo pipefail
cd "$(dirname "$0")/.."
PAYMENTS="${1:-100000}"
SECONDS_EACH="${2:-10}"
CONSOLES="${CONSOLES:-5}"
SERVE_TIMEOUT="${SERVE_TIMEOUT:-1800}"
source Benchmarks/serve.sh

ADMIN="$(cat "$DATA/ledger/admin.key")"
SECRET="$(curl -sf -X POST "$URL/v1/admin/merchants" -H "Authorization: Bearer $ADMIN" -d name=Bench | sed -n 's/.*"secret_key":"\([^"]*\)".*/\1/p')"
.build/release/tender bench gateway --url "$URL" --key "$SECRET" --payments "$PAYMENTS" --connections 64 --label "filling: card payments"

# A console session, signed in as a browser would.
JAR="$DATA/cookies"
SIGNIN="$(curl -sf -c "$JAR" "$URL/console/sign-in" | sed -n 's/.*name="signin" value="\([^"]*\)".*/\1/p')"
curl -sf -b "$JAR" -c "$JAR" -o /dev/null "$URL/console/sign-in" --data-urlencode "signin=$SIGNIN" --data-urlencode "key=$SECRET"
SESSION="$(awk '$6 == "tender_console" { print $7 }' "$JAR")"
[ -n "$SESSION" ] || { echo "no console session"; exit 1; }
COOKIE="Cookie: tender_console=$SESSION"
PAYMENT="$(curl -sf -u "$SECRET:" "$URL/v1/payment_intents?limit=1" | python3 -c 'import json, sys; print(json.load(sys.stdin)["data"][0]["id"])')"
for path in "/console/payments" "/console/payments?status=canceled" "/console/payments/$PAYMENT" "/console"; do
  STATUS="$(curl -s -o /dev/null -w '%{http_code}' -H "$COOKIE" "$URL$path")"
  [ "$STATUS" = 200 ] || { echo "$path answered $STATUS"; exit 1; }
  echo "GET $path with $PAYMENTS payments: wrk 1 thread, 8 connections, ${SECONDS_EACH}s"
  wrk -t1 -c8 -d"${SECONDS_EACH}s" --latency -H "$COOKIE" "$URL$path" | grep -E "Requests/sec|  50%|  99%|Non-2xx"
done

echo "card payments alone, then with $CONSOLES consoles open on /console/live, twice"
for round in 1 2; do
  .build/release/tender bench gateway --url "$URL" --key "$SECRET" --payments 20000 --connections 64 --label "round $round, no console"
  LIVE_PIDS=""
  for _ in $(seq 1 "$CONSOLES"); do
    curl -sN -H "$COOKIE" "$URL/console/live" >/dev/null 2>&1 &
    LIVE_PIDS="$LIVE_PIDS $!"
  done
  EXTRA_PIDS="$EXTRA_PIDS $LIVE_PIDS"
  sleep 1
  .build/release/tender bench gateway --url "$URL" --key "$SECRET" --payments 20000 --connections 64 --label "round $round, $CONSOLES consoles open"
  kill $LIVE_PIDS 2>/dev/null || true
done
