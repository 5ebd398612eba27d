#!/usr/bin/env bash
# Issue 30's series on PostgreSQL: the network grown step by step in a throwaway cluster (Debian's
# packages through Scripts/postgres.sh, on the same machine, stopped on exit) as Benchmarks/scale.sh
# grows it in SQLite, and at each size the same measures (load, memory, commits, tender serve's
# start-up, POST /transactions, GET /accounts/{id}, an account's payments p99, the database's
# size); beside each step a new network of 10,000 accounts and payments measured just before and
# just after it (`--beside`: a database of its own in the same cluster, a fresh copy of it made by
# PostgreSQL each time), and the step's rates as shares of its, each step measured three times
# (`--repeats 3`: each measure followed by a new network's, its shares the medians of each
# measure's). Leaves the table on stdout and the
# series in docs/scale-postgres.csv and docs/scale-postgres.svg.
# Usage: Benchmarks/scale-postgres.sh [ACCOUNTS [PAYMENTS]]   (comma-separated steps)
#   session 42's runs: Benchmarks/scale-postgres.sh 10000,10000000 10000,1000000
# TENDER_POSTGRES_SHARED_BUFFERS sets the cluster's shared_buffers (8GB when unset here: what a
# payment touches at random at ten million accounts and payments, the accounts' rows and key, the
# history's key and the hashes' key, is about 7 GB; docs/operations.md, sizing PostgreSQL; 12GB
# measured no better in session 63), and
# TENDER_POSTGRES_SETTINGS its other settings (checkpoint_timeout=1h max_wal_size=24GB when unset:
# a page's first change after a checkpoint is written whole to the WAL, and at ten million
# accounts that is nearly every change for the first few hundred thousand payments after one).
# WARM_UP payments are committed to each step's network before it is measured (0 when unset;
# session 54's ten-million runs: 1000000), so that the measures fall inside a checkpoint interval
# rather than at its start (`tender bench scale --help`, --warm-up): one count for every step, or
# one for each step (session 58's series: WARM_UP=0,0,0,1000000, the last step's only).
# CARDS, as for Benchmarks/scale.sh: card payments in the gateway's store at each step, measured.
set -euo pipefail
cd "$(dirname "$0")/.."
ACCOUNTS="${1:-10000,100000,1000000}"
PAYMENTS="${2:-10000,100000,1000000}"
swift build -c release --product tender >/dev/null
WORK="$(mktemp -d)"
# PostgreSQL runs as an unprivileged user, who must reach its directory inside.
chmod 755 "$WORK"
cleanup() {
  bash Scripts/postgres.sh stop "$WORK/pg" >/dev/null 2>&1 || true
  rm -rf "$WORK"
}
trap cleanup EXIT
# Growing ten million accounts takes most of an hour on two cores: the cluster may live four.
PG="$(TENDER_POSTGRES_TIMEOUT=14400 TENDER_POSTGRES_SHARED_BUFFERS="${TENDER_POSTGRES_SHARED_BUFFERS:-8GB}" \
  TENDER_POSTGRES_SETTINGS="${TENDER_POSTGRES_SETTINGS:-checkpoint_timeout=1h max_wal_size=24GB}" \
  bash Scripts/postgres.sh start "$WORK/pg" | tail -1)"
.build/release/tender bench scale --database "$PG" --accounts "$ACCOUNTS" --payments "$PAYMENTS" \
  --transactions 20000 --requests 20000 --beside 10000 --repeats 3 --warm-up "${WARM_UP:-0}" --directory "$WORK" \
  ${CARDS:+--cards "$CARDS"} --csv docs/scale-postgres.csv --svg docs/scale-postgres.svg
