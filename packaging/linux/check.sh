#!/usr/bin/env bash
# Runs the built Linux app the way CI proves it: --version; the offscreen self-test (imports
# every tab, starts the bundled server from inside the bundle, one API call, stop, keyring
# backend); then a look inside the bundle for what is only loaded dynamically (keyring
# backends, uvicorn protocols, database drivers, migration scripts).
set -uo pipefail
cd "$(dirname "$0")/../.."
app=${1:-dist/outpost/outpost}
version=$(.venv/bin/python -c 'import console; print(console.__version__)')
export QT_QPA_PLATFORM=offscreen
passed=0
failed=0

check() {
    local title=$1
    shift
    echo "== $title"
    if "$@"; then passed=$((passed + 1)); else failed=$((failed + 1)); echo "FAILED: $title"; fi
}

version_matches() {
    local printed
    printed=$(timeout 60 "$app" --version) || return 1
    echo "$printed"
    [ "$printed" = "outpost $version" ] || { echo "expected 'outpost $version'"; return 1; }
}

check "$app --version" version_matches
check "$app --self-test" timeout --kill-after=10 180 "$app" --self-test
check "bundle contents" .venv/bin/python packaging/check_bundle.py "$app"

echo "package-check: $passed passed, $failed failed"
[ "$failed" = 0 ]
