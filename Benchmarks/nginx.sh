#!/usr/bin/env bash
# GET /accounts/{id} from `tender serve` beside nginx serving the very same JSON bodies from files
# (issue 30: Tender at least 80% of nginx), in turn, in the same run, with the same wrk load:
# 100 friendbot accounts read in turn, one wrk thread (wrk keeps a core, the server the other).
# Usage: Benchmarks/nginx.sh [seconds-per-run] [rounds] [connections]
set -euo pipefail
cd "$(dirname "$0")/.."
SECONDS_WRK="${1:-10}"
ROUNDS="${2:-3}"
CONNECTIONS="${3:-32}"
Scripts/debian-packages.sh nginx
source Benchmarks/serve.sh

# 100 funded accounts, and each one's answer as a file for nginx.
WWW="$DATA/www"
mkdir -p "$WWW/accounts"
ACCOUNTS=()
for i in $(seq 1 100); do
  ADDRESS="$(.build/release/tender keys generate | awk '/account id/ {print $3}')"
  curl -sf "$URL/friendbot?addr=$ADDRESS" >/dev/null
  curl -sf "$URL/accounts/$ADDRESS" >"$WWW/accounts/$ADDRESS"
  ACCOUNTS+=("$ADDRESS")
done
LUA="$DATA/accounts.lua"
{
  echo "local accounts = {"
  for a in "${ACCOUNTS[@]}"; do echo "  \"/accounts/$a\","; done
  echo "}"
  echo "local i = 0"
  echo "request = function() i = i % #accounts + 1; return wrk.format(\"GET\", accounts[i]) end"
} >"$LUA"

# nginx on a free port, as a plain static server: no access log, keep-alive, JSON type.
NGINX_PORT="$(python3 -c 'import socket; s=socket.socket(); s.bind(("127.0.0.1", 0)); print(s.getsockname()[1])')"
mkdir -p "$DATA/nginx"
cat >"$DATA/nginx/nginx.conf" <<CONF
worker_processes auto;
pid $DATA/nginx/nginx.pid;
error_log $DATA/nginx/error.log;
events { worker_connections 1024; }
http {
  access_log off;
  keepalive_requests 1000000;
  default_type application/json;
  client_body_temp_path $DATA/nginx/body;
  proxy_temp_path $DATA/nginx/proxy;
  fastcgi_temp_path $DATA/nginx/fastcgi;
  uwsgi_temp_path $DATA/nginx/uwsgi;
  scgi_temp_path $DATA/nginx/scgi;
  server {
    listen 127.0.0.1:$NGINX_PORT;
    root $WWW;
  }
}
CONF
# nginx's workers run as another user (www-data when started as root): let them read the files.
chmod 755 "$DATA"
chmod -R a+rX "$WWW"
nginx -c "$DATA/nginx/nginx.conf" -p "$DATA/nginx"
EXTRA_PIDS="$(cat "$DATA/nginx/nginx.pid")"
NGINX="http://127.0.0.1:$NGINX_PORT"
# The same bytes from both.
cmp <(curl -sf "$URL/accounts/${ACCOUNTS[0]}") <(curl -sf "$NGINX/accounts/${ACCOUNTS[0]}")

# CPU time (user + system, in clock ticks) of the processes in $1, from /proc.
ticks() {
  local total=0 pid
  for pid in $1; do
    total=$((total + $(awk '{print $14 + $15}' "/proc/$pid/stat")))
  done
  echo "$total"
}
NGINX_PIDS="$EXTRA_PIDS $(pgrep -P "$EXTRA_PIDS" | tr '\n' ' ')"
TICK="$(getconf CLK_TCK)"
# The server runs under `timeout`: its child is Tender.
TENDER_PID="$(pgrep -P "$SERVER" || echo "$SERVER")"

# Requests a second, p99, and the server's CPU time a request in microseconds (every process of
# it: nginx's master and workers), so the cost is known apart from how busy the machine is.
rate() {
  local out before after
  before="$(ticks "$2")"
  out="$(wrk -t1 -c"$CONNECTIONS" -d"${SECONDS_WRK}s" --latency -s "$LUA" "$1")"
  after="$(ticks "$2")"
  local requests
  requests="$(awk '/requests in/ {print $1}' <<<"$out")"
  echo "$(awk '/Requests\/sec/ {print $2}' <<<"$out") $(awk '/ 99%/ {print $2}' <<<"$out") $(awk -v t=$((after - before)) -v n="$requests" -v hz="$TICK" 'BEGIN {printf "%.1fus", t * 1e6 / hz / n}')"
}
echo "== GET /accounts/{id}: wrk 1 thread, $CONNECTIONS connections, ${SECONDS_WRK} s a run, $ROUNDS rounds (requests/s, p99, server CPU a request)"
for round in $(seq 1 "$ROUNDS"); do
  T="$(rate "$URL" "$TENDER_PID")"; N="$(rate "$NGINX" "$NGINX_PIDS")"
  echo "round $round: tender $T | nginx $N | tender/nginx $(echo "$T $N" | awk '{printf "%.2f", $1 / $4}')"
done
