#!/usr/bin/env bash
# Issue 30's series, first part: a SQLite network grown step by step (accounts in bulk, signed
# payments in history), and at each size the start-up time, resident memory, end-to-end commit
# rate and p99, and an account's payments p99. Leaves the table on stdout and the series in
# docs/scale.csv and docs/scale.svg.
# Usage: Benchmarks/scale.sh [ACCOUNTS [PAYMENTS]]   (comma-separated steps)
set -euo pipefail
cd "$(dirname "$0")/.."
ACCOUNTS="${1:-10000,100000,1000000}"
PAYMENTS="${2:-10000,100000,1000000}"
swift build -c release --product tender >/dev/null
.build/release/tender bench scale --accounts "$ACCOUNTS" --payments "$PAYMENTS" --transactions 20000 \
  --csv docs/scale.csv --svg docs/scale.svg
