#!/usr/bin/env bash
# Issue 30's crash drill at the largest size: grows a network with `tender bench scale --keep`
# (or takes a data directory it kept), then runs the crash-recovery test on it with the release
# build's server: payments submitted in waves, SIGKILL mid-wave, a restart on the same data, every
# payment answered as applied found in the ledger, every invariant over the whole state holding.
# With TENDER_CRASH_DATABASE=postgres://... set, the network is (or is grown) in that PostgreSQL
# database, beside the data directory, and the server runs on it.
# Usage: [TENDER_CRASH_DATABASE=URL] Benchmarks/crash-at-scale.sh [DATA-DIRECTORY | ACCOUNTS PAYMENTS]
set -euo pipefail
cd "$(dirname "$0")/.."
swift build -c release --product tender >/dev/null
if [ $# -eq 1 ] && [ -d "$1" ]; then
  DATA="$1"
else
  ACCOUNTS="${1:-1000000}"; PAYMENTS="${2:-1000000}"
  WORK="$(mktemp -d)"
  .build/release/tender bench scale --accounts "$ACCOUNTS" --payments "$PAYMENTS" --transactions 1000 --requests 0 \
    --directory "$WORK" --keep ${TENDER_CRASH_DATABASE:+--database "$TENDER_CRASH_DATABASE"} | tee "$WORK/scale.log"
  DATA="$(awk '/data directory kept:/ {print $4}' "$WORK/scale.log")"
fi
echo "crash drill on $DATA${TENDER_CRASH_DATABASE:+ and $TENDER_CRASH_DATABASE}"
TENDER_CRASH_DATA="$DATA" TENDER_EXECUTABLE="$PWD/.build/release/tender" \
  swift test --filter everyAnsweredPaymentSurvivesKillMinus9
