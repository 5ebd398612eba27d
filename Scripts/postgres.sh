#!/usr/bin/env bash
# A throwaway PostgreSQL cluster from Debian's packages, for tests and benchmarks.
#   Scripts/postgres.sh start DIR   installs postgresql when missing, makes a cluster in DIR
#                                   (initdb as an unprivileged user: PostgreSQL refuses root),
#                                   starts it on a free port of 127.0.0.1 (no other address, no
#                                   password: trust on loopback only) and prints its URL,
#                                   postgres://tender@127.0.0.1:PORT/postgres
#   Scripts/postgres.sh standby PRIMARY DIR
#                                   makes DIR a streaming hot standby of the cluster in PRIMARY
#                                   (pg_basebackup with its replication settings), starts it on
#                                   a free port and prints its URL
#   Scripts/postgres.sh stop DIR    stops it (fast shutdown) and removes DIR
# The server runs under `timeout` (TENDER_POSTGRES_TIMEOUT seconds, default 3600), so one whose
# test died without stopping it still ends by itself. TENDER_POSTGRES_SHARED_BUFFERS (say 4GB)
# sets its `shared_buffers` (Debian's default, 128MB, when unset); TENDER_POSTGRES_SETTINGS, more
# settings as space-separated name=value pairs (say "checkpoint_timeout=1h max_wal_size=24GB").
set -euo pipefail
command="${1:?usage: postgres.sh start|standby|stop DIR}"
dir="${2:?usage: postgres.sh start|standby|stop DIR}"

bindir() { ls -d /usr/lib/postgresql/*/bin 2>/dev/null | sort -V | tail -1; }

# Runs a command as the cluster's owner: ourselves, or as root the `postgres` user Debian's
# package creates.
as_owner() {
  if [ "$(id -u)" -eq 0 ]; then runuser -u postgres -- "$@"; else "$@"; fi
}

# Starts the cluster in $dir on a free port ($port).
launch() {
  port="$(python3 -c 'import socket; s = socket.socket(); s.bind(("127.0.0.1", 0)); print(s.getsockname()[1])')"
  echo "$port" >"$dir/port"
  # Detached from the caller's session, holding none of its files (a caller that waits for this
  # script's end through an inherited descriptor must not wait for the server); stops itself
  # after the timeout.
  (
    for fd in /proc/$BASHPID/fd/*; do
      fd="${fd##*/}"
      [ "$fd" -gt 2 ] && eval "exec $fd>&-" 2>/dev/null
    done
    if [ "$(id -u)" -eq 0 ]; then launch=(runuser -u postgres --); else launch=(); fi
    settings=()
    for setting in ${TENDER_POSTGRES_SETTINGS:-}; do settings+=(-c "$setting"); done
    exec "${launch[@]}" setsid timeout "${TENDER_POSTGRES_TIMEOUT:-3600}" "$bin/postgres" -D "$dir/data" -p "$port" \
      -c listen_addresses=127.0.0.1 -c unix_socket_directories="$dir" -c fsync=on -c synchronous_commit=on \
      ${TENDER_POSTGRES_SHARED_BUFFERS:+-c shared_buffers="$TENDER_POSTGRES_SHARED_BUFFERS"} "${settings[@]}"
  ) >"$dir/postgres.log" 2>&1 </dev/null &
  for _ in $(seq 1 200); do
    "$bin/pg_isready" -q -U tender -d postgres -h 127.0.0.1 -p "$port" && break
    sleep 0.05
  done
  "$bin/pg_isready" -q -U tender -d postgres -h 127.0.0.1 -p "$port" || { echo "postgres did not start: $(tail -5 "$dir/postgres.log")" >&2; exit 1; }
}

case "$command" in
start)
  if [ -z "$(bindir)" ] || [ ! -x "$(bindir)/initdb" ]; then
    if [ "$(id -u)" -ne 0 ]; then echo "postgresql is missing: install it (apt-get install postgresql) or run as root" >&2; exit 1; fi
    (apt-get update -q && DEBIAN_FRONTEND=noninteractive apt-get install -y -q postgresql) >/dev/null
  fi
  bin="$(bindir)"
  mkdir -p "$dir"
  [ "$(id -u)" -eq 0 ] && chown postgres "$dir"
  as_owner "$bin/initdb" -D "$dir/data" -U tender --auth=trust --encoding=UTF8 --locale=C.UTF-8 >"$dir/initdb.log" 2>&1
  launch
  echo "postgres://tender@127.0.0.1:$port/postgres"
  ;;
standby)
  primary="$dir"
  dir="${3:?usage: postgres.sh standby PRIMARY DIR}"
  bin="$(bindir)"
  mkdir -p "$dir"
  [ "$(id -u)" -eq 0 ] && chown postgres "$dir"
  # A base backup that writes standby.signal and the primary's connection (-R), streaming the
  # WAL it needs (-X stream); the standby then follows the primary as it commits.
  as_owner "$bin/pg_basebackup" -D "$dir/data" -h 127.0.0.1 -p "$(cat "$primary/port")" -U tender -R -X stream >"$dir/basebackup.log" 2>&1
  launch
  echo "postgres://tender@127.0.0.1:$port/postgres"
  ;;
stop)
  if [ -f "$dir/data/postmaster.pid" ]; then
    pid="$(head -1 "$dir/data/postmaster.pid")"
    kill -INT "$pid" 2>/dev/null || true
    for _ in $(seq 1 200); do kill -0 "$pid" 2>/dev/null || break; sleep 0.05; done
  fi
  rm -rf "$dir"
  ;;
*)
  echo "usage: postgres.sh start|stop DIR" >&2; exit 2
  ;;
esac
