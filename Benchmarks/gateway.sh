#!/usr/bin/env bash
# Card payments per second through the gateway: `tender bench gateway` creates and confirms
# automatic-capture card payments (one POST /v1/payment_intents with confirm=true each) over
# many connections, first against `tender serve` (release build, group commit; each payment is
# settled on the ledger, synchronous=FULL, before its answer), then against localstripe (PyPI,
# a fake Stripe that keeps its objects in memory) in the same run, and prints both lines.
# Target: at least 2,000 per second with p99 under 100 ms.
# localstripe answers about a dozen payments a second here (it slows as it keeps more), so it
# gets PEER_PAYMENTS (default 1,000) of the same requests over the same connections.
# Usage: [PEER_PAYMENTS=1000] Benchmarks/gateway.sh [payments] [connections]
set -euo pipefail
cd "$(dirname "$0")/.."
PAYMENTS="${1:-20000}"
CONNECTIONS="${2:-64}"
PEER_PAYMENTS="${PEER_PAYMENTS:-1000}"
source Benchmarks/serve.sh

ADMIN="$(cat "$DATA/ledger/admin.key")"
SECRET="$(curl -sf -X POST "$URL/v1/admin/merchants" -H "Authorization: Bearer $ADMIN" -d name=Bench | sed -n 's/.*"secret_key":"\([^"]*\)".*/\1/p')"
.build/release/tender bench gateway --url "$URL" --key "$SECRET" --payments "$PAYMENTS" --connections "$CONNECTIONS" --label "tender serve" | tee "$DATA/tender.txt"
# The same, each payment with its card inline (payment_method_data: a new payment method each).
.build/release/tender bench gateway --url "$URL" --key "$SECRET" --payments "$PAYMENTS" --connections "$CONNECTIONS" --inline --label "tender serve, payment_method_data" | tee -a "$DATA/tender.txt"

# localstripe in a virtual environment of its own (it pins old aiohttp).
LOCALSTRIPE_VENV="${LOCALSTRIPE_VENV:-$(pwd)/.build/localstripe-venv}"
if [ ! -x "$LOCALSTRIPE_VENV/bin/localstripe" ]; then
  python3 -m venv "$LOCALSTRIPE_VENV"
  "$LOCALSTRIPE_VENV/bin/pip" install --quiet --disable-pip-version-check localstripe==1.15.10
fi
# localstripe saves its objects in /tmp/localstripe.pickle when it stops and loads them when it
# starts: every run starts it empty (a run stopped midway leaves a truncated file it cannot load).
rm -f /tmp/localstripe.pickle
PEER_PORT="$(python3 -c 'import socket; s = socket.socket(); s.bind(("127.0.0.1", 0)); print(s.getsockname()[1])')"
"$LOCALSTRIPE_VENV/bin/localstripe" --port "$PEER_PORT" >"$DATA/localstripe.log" 2>&1 &
EXTRA_PIDS=$!
for _ in $(seq 1 600); do curl -sf "http://127.0.0.1:$PEER_PORT/v1/customers" -u sk_test_x: >/dev/null 2>&1 && break; sleep 0.1; done
curl -sf "http://127.0.0.1:$PEER_PORT/v1/customers" -u sk_test_x: >/dev/null || { echo "localstripe did not start: $(tail -3 "$DATA/localstripe.log")"; exit 1; }
.build/release/tender bench gateway --url "http://127.0.0.1:$PEER_PORT" --key sk_test_bench --payments "$PEER_PAYMENTS" --connections "$CONNECTIONS" --label "localstripe" | tee "$DATA/localstripe.txt"
# localstripe with the card inline too (it may not take payment_method_data; the line says what it answered).
.build/release/tender bench gateway --url "http://127.0.0.1:$PEER_PORT" --key sk_test_bench --payments "$PEER_PAYMENTS" --connections "$CONNECTIONS" --inline --label "localstripe, payment_method_data" | tee -a "$DATA/localstripe.txt"
