# Sourced by the benchmark scripts: installs wrk from Debian's packages if missing, builds the
# release binary, starts `tender serve` (group commit) on a free port in a temporary directory,
# and sets DATA, SERVER and URL. EXTRA_PIDS (other processes the script starts) are stopped
# with the server on exit.
if ! command -v wrk >/dev/null; then
  (apt-get update -q && apt-get install -y -q wrk) >/dev/null
fi
swift build -c release --product tender >/dev/null
DATA="$(mktemp -d)"
EXTRA_PIDS=""
timeout "${SERVE_TIMEOUT:-900}" .build/release/tender serve --port 0 --data "$DATA/ledger" --close-interval 0 >"$DATA/serve.log" 2>/dev/null &
SERVER=$!
trap 'kill $SERVER $EXTRA_PIDS 2>/dev/null || true; wait $SERVER 2>/dev/null || true; rm -rf "$DATA"' EXIT
# Port 0: the server picks a free one and prints it.
for _ in $(seq 1 100); do grep -q "listening on" "$DATA/serve.log" 2>/dev/null && break; sleep 0.1; done
URL="$(grep -o 'http://127.0.0.1:[0-9]*' "$DATA/serve.log" | head -1)"
echo "server: $URL (group commit)"
