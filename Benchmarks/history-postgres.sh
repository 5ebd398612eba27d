#!/usr/bin/env bash
# An account's newest payments on a PostgreSQL network grown by `tender bench scale --keep`,
# as PostgreSQL's store read them before 09b418d (through the operations table), from 09b418d
# (from `account_history` and the transactions it names, found by their key) and since 7d76394
# (each transaction read at the place its history row keeps, migration 116), the three picked at
# random in one pgbench run (one client, the extended protocol, as the store's driver), so that
# all meet the same buffers, page cache and disk. The network must have been opened by a build
# since 7d76394 (its migration 116 keeps the places). Each query reads a random even bulk account, those whose
# history `bench scale` grows and never pays in its measures. Prints each query's p50, p90 and
# p99 in milliseconds.
# Usage: Benchmarks/history-postgres.sh URL [ACCOUNTS [QUERIES]]
#   URL: postgres://user@host:port/database of the kept network; ACCOUNTS: its accounts
#   (10000000 when unset); QUERIES: of the three together (3000 when unset).
# Session 59 ran its first two on run 37's network, session 62 all three on run 43's
# (docs/benchmarks.md).
set -euo pipefail
URL="${1:?usage: history-postgres.sh URL [ACCOUNTS [QUERIES]]}"
ACCOUNTS="${2:-10000000}"
QUERIES="${3:-3000}"
WORK="$(mktemp -d)"
trap 'rm -rf "$WORK"' EXIT
# ScaleBench's bulk accounts: SHA-256 of "tender scale" and the index as 8 big-endian bytes, the
# first 1,000 indices being the senders.
pick="\\set i 1000 + 2 * random(0, $(( (ACCOUNTS - 1000 + 1) / 2 - 1 )))"
account="sha256('tender scale'::bytea || int8send(:i::int8))"
columns="t.hash, t.ledger, t.application_order, t.close_time, t.envelope, t.result, pa2.asset_a, pa2.asset_b, pa2.reserve_a, pa2.reserve_b, pa2.shares"
cat >"$WORK/before.sql" <<SQL
$pick
SELECT o.id, $columns FROM account_history a JOIN operations o ON o.id = a.toid JOIN transactions t ON t.id = o.transaction_id LEFT JOIN pool_amounts pa2 ON pa2.operation_id = o.id WHERE a.account_id = $account AND o.is_payment AND o.successful AND TRUE ORDER BY o.id DESC LIMIT 10;
SQL
cat >"$WORK/key.sql" <<SQL
$pick
SELECT a.toid, $columns FROM account_history a JOIN transactions t ON t.id = a.toid - (a.toid & 4095) LEFT JOIN pool_amounts pa2 ON pa2.operation_id = a.toid WHERE a.account_id = $account AND (a.toid & 4095) != 0 AND a.is_payment AND t.successful AND TRUE ORDER BY a.toid DESC LIMIT 10;
SQL
cat >"$WORK/place.sql" <<SQL
$pick
SELECT a.toid, $columns FROM account_history a JOIN LATERAL (SELECT * FROM transactions x WHERE x.ctid = a.tx AND x.id = a.toid - (a.toid & 4095) UNION ALL SELECT * FROM transactions x WHERE x.id = a.toid - (a.toid & 4095) LIMIT 1) t ON TRUE LEFT JOIN pool_amounts pa2 ON pa2.operation_id = a.toid WHERE a.account_id = $account AND (a.toid & 4095) != 0 AND a.is_payment AND t.successful AND TRUE ORDER BY a.toid DESC LIMIT 10;
SQL
(cd "$WORK" && pgbench -n -M extended -f before.sql -f key.sql -f place.sql -t "$QUERIES" -c 1 -l --log-prefix=queries "$URL" >/dev/null)
python3 - "$WORK" <<'PY'
import glob, sys
rows = [line.split() for name in glob.glob(sys.argv[1] + "/queries.*") for line in open(name)]
for script, name in (("0", "before 09b418d"), ("1", "09b418d, by the key"), ("2", "since 7d76394, by the place")):
    times = sorted(int(row[2]) / 1000 for row in rows if row[3] == script)
    n = len(times)
    print(f"{name}: {n} queries, p50 {times[n // 2]:.2f}, p90 {times[n * 90 // 100]:.2f}, p99 {times[n * 99 // 100]:.2f} ms")
PY
