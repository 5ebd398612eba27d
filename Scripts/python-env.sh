# Sourced by scripts that need the Python stellar-sdk, stripe, paylike and playwright (driving Debian's chromium; no browser download): makes .venv (once) with the pinned packages
# and exports TENDER_PYTHON, the interpreter to use.
# Tests run in parallel and each sources this: the check and the install hold a lock, so only the
# first makes the environment and the others wait for it (two pip installs into one new .venv
# at once failed in a fresh clone).
TENDER_VENV="${TENDER_VENV:-$(pwd)/.venv}"
TENDER_VENV_LOCK="${TMPDIR:-/tmp}/tender-venv-$(printf '%s' "$TENDER_VENV" | cksum | cut -d' ' -f1).lock"
(
  flock 9
  if [ ! -x "$TENDER_VENV/bin/python" ] || ! "$TENDER_VENV/bin/python" -c 'import stellar_sdk, stripe, paylike, sys, importlib.metadata as m; sys.exit(stellar_sdk.__version__ != "16.1.1" or stripe.VERSION != "16.1.0" or m.version("paylike") != "1.0" or m.version("playwright") != "1.65.2" or m.version("axe-playwright-python") != "0.1.8")' 2>/dev/null; then
    python3 -m venv "$TENDER_VENV"
    "$TENDER_VENV/bin/pip" install --quiet --disable-pip-version-check -r Scripts/requirements.txt
  fi
) 9>"$TENDER_VENV_LOCK"
export TENDER_PYTHON="$TENDER_VENV/bin/python"
