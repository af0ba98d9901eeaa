#!/usr/bin/env bash
# Prepare the independent client of the cross-client proof: a Python venv
# with the Apache Cassandra Python driver (cassandra-driver 3.30.1), which
# TestCrossClientValues of the integration module (integration/crossclient)
# runs as $KANDRA_PYTHON integration/crossclient/crossclient.py (embedded in
# the test).
#
#   KANDRA_PYTHON=$(bash scripts/pyclient.sh)
#
# Idempotent: an existing venv with the right version is reused. Progress
# goes to stderr; the last line on stdout is the venv's python.
#
# Environment (optional):
#   KANDRA_PYVENV    the venv's directory (default: $HOME/.cache/kandra/pyclient)
#   KANDRA_PYTHON3   the python that creates it (default: python3)
set -euo pipefail

readonly VERSION=3.30.1
VENV="${KANDRA_PYVENV:-$HOME/.cache/kandra/pyclient}"
PY3="${KANDRA_PYTHON3:-python3}"
PY="$VENV/bin/python"

log() { echo "pyclient: $*" >&2; }

check() { # the venv's driver is the pinned version
  [ -x "$PY" ] && "$PY" -c "import sys, cassandra; sys.exit(0 if cassandra.__version__ == '$VERSION' else 1)" >/dev/null 2>&1
}

if check; then
  log "cassandra-driver $VERSION already in $VENV"
else
  if [ ! -x "$PY" ]; then
    log "creating the venv $VENV with $("$PY3" --version 2>&1)"
    mkdir -p "$(dirname "$VENV")"
    "$PY3" -m venv "$VENV" >&2
  fi
  log "installing cassandra-driver==$VERSION"
  "$PY" -m pip install --quiet --disable-pip-version-check "cassandra-driver==$VERSION" >&2
  if ! check; then
    log "cassandra-driver $VERSION does not import from $PY:"
    "$PY" -c "import cassandra; print(cassandra.__version__)" >&2 || true
    exit 1
  fi
  log "cassandra-driver $VERSION installed in $VENV"
fi
echo "$PY"
