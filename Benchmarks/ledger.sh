#!/usr/bin/env bash
# In-memory apply rate (with scaling) and end-to-end durable submission rate.
# Usage: Benchmarks/ledger.sh
set -euo pipefail
cd "$(dirname "$0")/.."
swift build -c release --product tender >/dev/null
.build/release/tender bench ledger
echo
.build/release/tender bench commit --concurrency 64
echo
.build/release/tender bench commit --concurrency 256
