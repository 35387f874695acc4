#!/usr/bin/env bash
# Runs the built Linux app the way CI proves it: --version; the offscreen self-test (imports
# every tab, starts the bundled server from inside the bundle, one API call, stop, keyring
# backend); then a look inside the bundle for what is only loaded dynamically (keyring
# backends, uvicorn protocols, database drivers, migration scripts); and, where a Secret
# Service can be started, the self-test again with a real keyring.
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

# With a Secret Service available (Debian: dbus-daemon and gnome-keyring), prove the frozen
# app finds and uses it: a private session bus with a freshly unlocked keyring, then the self-test.
self_test_with_secret_service() {
    local output home
    home=$(mktemp -d)  # the keyring daemon keeps its files under HOME: start from none each time
    output=$(HOME=$home XDG_DATA_HOME=$home/data XDG_CONFIG_HOME=$home/config dbus-run-session -- sh -c '
        printf %s outpost-check | gnome-keyring-daemon --unlock --components=secrets >/dev/null
        exec timeout --kill-after=10 180 "$0" --self-test' "$app" 2>/dev/null)
    local status=$?
    rm -rf "$home"
    [ "$status" = 0 ] || { echo "$output"; return 1; }
    echo "$output" | grep '^keyring: '
    echo "$output" | grep -q '^keyring: keyring.backends.SecretService.Keyring (tokens are stored securely)'
}
if command -v dbus-run-session >/dev/null && command -v gnome-keyring-daemon >/dev/null; then
    check "$app --self-test with a Secret Service keyring" self_test_with_secret_service
else
    echo "== no dbus-run-session/gnome-keyring-daemon here: the Secret Service keyring check is not run"
fi

echo "package-check: $passed passed, $failed failed"
[ "$failed" = 0 ]
