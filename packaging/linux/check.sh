#!/usr/bin/env bash
# Runs the built Linux app the way CI proves it: --version, then the offscreen self-test
# (imports every tab, starts the bundled server from inside the bundle, one API call, stop,
# keyring backend), then looks inside the bundle for what is only loaded dynamically
# (keyring backends, uvicorn protocols, database drivers, migration scripts).
set -euo pipefail
cd "$(dirname "$0")/../.."
app=${1:-dist/outpost/outpost}
version=$(.venv/bin/python -c 'import console; print(console.__version__)')
export QT_QPA_PLATFORM=offscreen

echo "== $app --version"
printed=$(timeout 60 "$app" --version)
echo "$printed"
[ "$printed" = "outpost $version" ] || { echo "expected 'outpost $version'" >&2; exit 1; }

echo "== $app --self-test"
timeout --kill-after=10 180 "$app" --self-test

echo "== modules and files loaded only at run time are in the bundle"
.venv/bin/python packaging/check_bundle.py "$app"
echo "package check passed"
