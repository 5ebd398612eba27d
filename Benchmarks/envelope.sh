#!/usr/bin/env bash
# Decode + hash + verify throughput of one signed single-payment envelope, on one core.
# Usage: Benchmarks/envelope.sh [seconds per measurement]
set -euo pipefail
cd "$(dirname "$0")/.."
swift build -c release --product tender >/dev/null
.build/release/tender bench envelope --seconds "${1:-3}"
