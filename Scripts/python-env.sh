# Sourced by scripts that need the Python stellar-sdk, stripe, paylike and playwright (driving Debian's chromium; no browser download): makes .venv (once) with the pinned packages
# and exports TENDER_PYTHON, the interpreter to use.
TENDER_VENV="${TENDER_VENV:-$(pwd)/.venv}"
if [ ! -x "$TENDER_VENV/bin/python" ] || ! "$TENDER_VENV/bin/python" -c 'import stellar_sdk, stripe, paylike, sys, importlib.metadata as m; sys.exit(stellar_sdk.__version__ != "16.1.1" or stripe.VERSION != "16.1.0" or m.version("paylike") != "1.0" or m.version("playwright") != "1.65.2")' 2>/dev/null; then
  python3 -m venv "$TENDER_VENV"
  "$TENDER_VENV/bin/pip" install --quiet --disable-pip-version-check -r Scripts/requirements.txt
fi
export TENDER_PYTHON="$TENDER_VENV/bin/python"
