#!/usr/bin/env bash
# Installs the Debian packages named (e.g. tmux) when their command is missing: tests call this
# instead of assuming a machine has them. Usage: Scripts/debian-packages.sh PACKAGE...
set -euo pipefail
missing=()
for package in "$@"; do
  command -v "$package" >/dev/null 2>&1 || missing+=("$package")
done
[ ${#missing[@]} -eq 0 ] && exit 0
if [ "$(id -u)" -ne 0 ]; then
  echo "missing ${missing[*]}: install them (apt-get install ${missing[*]}) or run as root" >&2
  exit 1
fi
# One install at a time (tests run in parallel and apt holds one lock); whatever another caller
# installed meanwhile is not installed again.
exec 9>/tmp/tender-debian-packages.lock
flock 9
still=()
for package in "${missing[@]}"; do
  command -v "$package" >/dev/null 2>&1 || still+=("$package")
done
[ ${#still[@]} -eq 0 ] && exit 0
(apt-get update -q && DEBIAN_FRONTEND=noninteractive apt-get install -y -q "${still[@]}") >/dev/null
