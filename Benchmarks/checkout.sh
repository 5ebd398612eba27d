#!/usr/bin/env bash
# The checkout's screen state and totals under load: `tender checkout demo` seeds a marketplace,
# a buyer buys a listing now, then wrk asks for the payment screen's state
# (GET /checkout/v1/bids/{id}/screen: token check, user, bid, listing, pending order asked of
# the gateway, saved cards, totals) and for totals (POST /checkout/v1/totals) from many
# connections, printing requests per second and the latency percentiles (wrk --latency).
# The screen is measured twice: for a bid without an order yet, and for one whose order waits
# on the bank page (each answer then also asks the gateway for the intent's state).
# Target: at least 10,000 screen-state answers per second with p99 under 20 ms.
# Usage: Benchmarks/checkout.sh [seconds] [connections]
set -euo pipefail
cd "$(dirname "$0")/.."
SECONDS_EACH="${1:-10}"
CONNECTIONS="${2:-64}"
source Benchmarks/serve.sh

DEMO="$(.build/release/tender checkout demo --url "$URL" --data "$DATA/ledger" --json)"
TOKEN="$(echo "$DEMO" | python3 -c 'import json, sys; print(json.load(sys.stdin)["buyer"])')"
LISTING="$(echo "$DEMO" | python3 -c 'import json, sys; print(json.load(sys.stdin)["listings"][0]["id"])')"
BID="$(.build/release/tender checkout buy "$LISTING" --url "$URL" --token "$TOKEN" --json | python3 -c 'import json, sys; print(json.load(sys.stdin)["id"])')"

PENDING_LISTING="$(echo "$DEMO" | python3 -c 'import json, sys; print(json.load(sys.stdin)["listings"][1]["id"])')"
PENDING_BID="$(.build/release/tender checkout buy "$PENDING_LISTING" --url "$URL" --token "$TOKEN" --json | python3 -c 'import json, sys; print(json.load(sys.stdin)["id"])')"
.build/release/tender checkout pay "$PENDING_BID" --url "$URL" --token "$TOKEN" --payment-method ideal --json >/dev/null

echo "screen state: GET /checkout/v1/bids/$BID/screen, $CONNECTIONS connections, ${SECONDS_EACH}s"
wrk -t2 -c"$CONNECTIONS" -d"${SECONDS_EACH}s" --latency -H "Authorization: Bearer $TOKEN" \
  "$URL/checkout/v1/bids/$BID/screen?delivery=standard&payment_method=card" | tee "$DATA/screen.txt"

curl -sf -H "Authorization: Bearer $TOKEN" "$URL/checkout/v1/bids/$PENDING_BID/screen" \
  | python3 -c 'import json, sys; order = json.load(sys.stdin)["order"]; print("its order:", order["id"], order["status"])'
echo "screen state with a pending order: GET /checkout/v1/bids/$PENDING_BID/screen, $CONNECTIONS connections, ${SECONDS_EACH}s"
wrk -t2 -c"$CONNECTIONS" -d"${SECONDS_EACH}s" --latency -H "Authorization: Bearer $TOKEN" \
  "$URL/checkout/v1/bids/$PENDING_BID/screen" | tee "$DATA/screen-pending.txt"

cat >"$DATA/totals.lua" <<LUA
wrk.method = "POST"
wrk.body = '{"bid":"$BID","delivery":"registered","payment_method":"ideal"}'
wrk.headers["Content-Type"] = "application/json"
wrk.headers["Authorization"] = "Bearer $TOKEN"
LUA
echo "totals: POST /checkout/v1/totals, $CONNECTIONS connections, ${SECONDS_EACH}s"
wrk -t2 -c"$CONNECTIONS" -d"${SECONDS_EACH}s" --latency -s "$DATA/totals.lua" "$URL/checkout/v1/totals" | tee "$DATA/totals.txt"
