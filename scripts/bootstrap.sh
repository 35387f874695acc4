#!/usr/bin/env bash
# Creates .venv and installs the console, the server and the entities both read (model/) at the pinned versions, with the test and development
# tools (the default, for make test and make lint) or, given "demo", without them (make demo needs none).
# Re-running is cheap: nothing is reinstalled unless the dependency files changed or the tools are now wanted;
# a development install serves the demo as it is.
set -euo pipefail
cd "$(dirname "$0")/.."

PYTHON=${PYTHON:-python3}
stamp=.venv/.installed
inputs="pyproject.toml server/pyproject.toml model/pyproject.toml constraints.txt"
wanted=${1:-dev}
case "$wanted" in
    dev) console='.[dev]' ;;
    demo) console='.' ;;
    *) echo "usage: $0 [dev|demo]" >&2; exit 2 ;;
esac

if [ ! -x .venv/bin/python ]; then
    "$PYTHON" -m venv .venv
fi
digest=$(cat $inputs | sha256sum | cut -d' ' -f1)
installed=$(cat "$stamp" 2>/dev/null || true)
if [ "$installed" != "dev $digest" ] && [ "$installed" != "$wanted $digest" ]; then
    .venv/bin/python -m pip install --quiet --upgrade pip
    .venv/bin/python -m pip install --quiet -c constraints.txt -e ./model -e ./server -e "$console"
    echo "$wanted $digest" > "$stamp"
fi
