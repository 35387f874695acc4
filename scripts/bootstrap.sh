#!/usr/bin/env bash
# Creates .venv and installs the console, the server and the test tools at the pinned versions.
# Re-running is cheap: nothing is reinstalled unless the dependency files changed.
set -euo pipefail
cd "$(dirname "$0")/.."

PYTHON=${PYTHON:-python3}
stamp=.venv/.installed
inputs="pyproject.toml server/pyproject.toml constraints.txt"

if [ ! -x .venv/bin/python ]; then
    "$PYTHON" -m venv .venv
fi
digest=$(cat $inputs | sha256sum | cut -d' ' -f1)
if [ ! -f "$stamp" ] || [ "$(cat "$stamp")" != "$digest" ]; then
    .venv/bin/python -m pip install --quiet --upgrade pip
    .venv/bin/python -m pip install --quiet -c constraints.txt -e ./server -e '.[dev]'
    echo "$digest" > "$stamp"
fi
