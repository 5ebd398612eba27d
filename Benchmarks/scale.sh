#!/usr/bin/env bash
# Issue 30's series: a SQLite network grown step by step (accounts in bulk, every second one with
# a trustline; signed payments in history), and at each size: a new process's load time and
# resident memory (bytes per account and per trustline), the end-to-end commit rate and p99,
# `tender serve` started on it (time until it listens) with POST /transactions and
# GET /accounts/{id} over HTTP and its memory after, an account's payments p99, the database's
# size; beside each step a new network of 10,000 accounts and payments measured just before and
# just after it (`--beside`, a fresh copy each time), and the step's rates as shares of its
# (the machine's speed drifts over a long series); each step measured three times, each measure
# followed by a new network's (`--repeats 3`), its shares the medians of each measure's. Leaves the table on stdout and the series in
# docs/scale.csv and docs/scale.svg.
# Usage: Benchmarks/scale.sh [ACCOUNTS [PAYMENTS]]   (comma-separated steps)
# With CARDS (comma-separated, one per step, e.g. 10000,100000,1000000), the gateway's store is
# grown through the server to each step and card payments measured there and on each new-network
# copy (`--cards`).
#   the documented series: Benchmarks/scale.sh 10000,100000,1000000,10000000 10000,100000,1000000,10000000
set -euo pipefail
cd "$(dirname "$0")/.."
ACCOUNTS="${1:-10000,100000,1000000}"
PAYMENTS="${2:-10000,100000,1000000}"
swift build -c release --product tender >/dev/null
.build/release/tender bench scale --accounts "$ACCOUNTS" --payments "$PAYMENTS" --transactions 20000 --requests 20000 --beside 10000 --repeats 3 \
  ${CARDS:+--cards "$CARDS"} --csv docs/scale.csv --svg docs/scale.svg
