#!/usr/bin/env bash
# Checks the two .deb packages on this Debian machine, as root, the way an administrator uses them:
# lintian and AppStream validation; `apt-get install ./….deb`; the console from /usr/bin (--version,
# offscreen --self-test); the server started exactly as its systemd unit would start it (no systemd
# needed: its user, group, umask, working directory, environment file and ExecStart); an upgrade to a
# newer build (the same payload with a higher version) that keeps the data and the secret key; and
# finally remove and purge, after which nothing of either package may be left.
set -euo pipefail
cd "$(dirname "$0")/../.."
[ "$(id -u)" = 0 ] || { echo "check_debs.sh installs packages: run it as root" >&2; exit 1; }
export DEBIAN_FRONTEND=noninteractive
version=$(.venv/bin/python -c 'import console; print(console.__version__)')
console_deb=dist/outpost_${version}_amd64.deb
server_deb=dist/outpost-server_${version}_amd64.deb
unit=/lib/systemd/system/outpost-server.service
work=$(mktemp -d)
server_pid=""
cleanup() {
    [ -n "$server_pid" ] && kill "$server_pid" 2>/dev/null && wait "$server_pid" 2>/dev/null
    rm -rf "$work"
}
trap cleanup EXIT

step() { echo "== $*"; }
fail() { echo "FAILED: $*" >&2; exit 1; }

step "lintian"
for deb in "$console_deb" "$server_deb"; do
    lintian --fail-on error "$deb" 2> >(grep -v "running with root privileges" >&2) | tee "$work/lintian.txt" || fail "lintian errors in $deb"
    echo "$(basename "$deb"): $(grep -c '^E:' "$work/lintian.txt" || true) errors, $(grep -c '^W:' "$work/lintian.txt" || true) warnings"
done

step "apt-get install ./$console_deb ./$server_deb"
apt-get install -y -q "./$console_deb" "./$server_deb" >"$work/apt.log" || { cat "$work/apt.log"; fail "install"; }
dpkg -L outpost outpost-server | sort -u > "$work/files"

step "desktop entry, icons and AppStream metainfo"
[ -f /usr/share/applications/outpost.desktop ] && [ -f /usr/share/icons/hicolor/scalable/apps/outpost.svg ] \
    && [ -f /usr/share/icons/hicolor/256x256/apps/outpost.png ] || fail "menu entry or icons missing"
desktop-file-validate /usr/share/applications/outpost.desktop
appstreamcli validate --no-net /usr/share/metainfo/org.outpost.console.metainfo.xml

step "outpost from /usr/bin"
[ "$(command -v outpost)" = /usr/bin/outpost ] || fail "outpost is not /usr/bin/outpost"
printed=$(outpost --version)
[ "$printed" = "outpost $version" ] || fail "outpost --version printed '$printed'"
QT_QPA_PLATFORM=offscreen timeout --kill-after=10 180 outpost --self-test

step "systemd-analyze verify $unit"
systemd-analyze verify "$unit"

# Runs the unit's ExecStart with its User, Group, UMask, WorkingDirectory and EnvironmentFile,
# plus the variables systemd itself sets; waits for the server's "Listening on" line.
unit_value() { sed -n "s/^$1=//p" "$unit" | tail -n 1; }
start_as_unit() {
    local user group env_file exec_start
    user=$(unit_value User) group=$(unit_value Group) env_file=$(unit_value EnvironmentFile)
    exec_start=$(unit_value ExecStart)
    local -a environment=(PATH=/usr/local/sbin:/usr/local/bin:/usr/sbin:/usr/bin:/sbin:/bin USER="$user"
                          LOGNAME="$user" HOME="$(getent passwd "$user" | cut -d: -f6)" SHELL=/usr/sbin/nologin)
    mapfile -t -O ${#environment[@]} environment < <(grep -E '^[A-Za-z_][A-Za-z0-9_]*=' "$env_file")
    : > "$work/server.log"
    (
        umask "$(unit_value UMask)"
        cd "$(unit_value WorkingDirectory)"
        # shellcheck disable=SC2086  # ExecStart is split into words, as systemd does
        exec setpriv --reuid="$user" --regid="$group" --init-groups env -i "${environment[@]}" $exec_start
    ) >"$work/server.log" 2>&1 &
    server_pid=$!
    for _ in $(seq 600); do
        grep -q '^Listening on ' "$work/server.log" && return 0
        kill -0 "$server_pid" 2>/dev/null || break
        sleep 0.1
    done
    cat "$work/server.log"
    fail "the server did not start as its unit"
}
stop_server() { kill "$server_pid"; wait "$server_pid" || true; server_pid=""; }

# api METHOD PATH TOKEN [JSON]: prints the answer's body; fails on anything but 2xx.
api() {
    python3 - "$@" <<'PYTHON'
import json, sys, urllib.request
method, path, token = sys.argv[1:4]
body = sys.argv[4].encode() if len(sys.argv) > 4 else None
port = [line.split("=", 1)[1].strip() for line in open("/etc/outpost/server.env") if line.startswith("OUTPOST_PORT=")][-1]
request = urllib.request.Request(f"http://127.0.0.1:{port}/api/v4{path}", data=body, method=method,
                                 headers={"PRIVATE-TOKEN": token, "Content-Type": "application/json"})
with urllib.request.urlopen(request, timeout=30) as response:
    print(response.read().decode())
PYTHON
}
json_field() { python3 -c 'import json, sys; print(json.load(sys.stdin)[sys.argv[1]])' "$1"; }

step "server started as outpost-server.service would start it"
env_file=/etc/outpost/server.env
[ "$(stat -c '%U:%G %a' "$env_file")" = "root:outpost 640" ] || fail "$env_file is $(stat -c '%U:%G %a' "$env_file")"
grep -Eq '^OUTPOST_SECRET_KEY=[0-9a-f]{64}$' "$env_file" || fail "no generated secret key in $env_file"
# What an administrator edits: a free port for this run and a bootstrap token.
port=$(python3 -c 'import socket; s = socket.socket(); s.bind(("127.0.0.1", 0)); print(s.getsockname()[1])')
root_token=$(python3 -c 'import secrets; print("glpat-" + secrets.token_hex(16))')
sed -i "s/^OUTPOST_PORT=.*/OUTPOST_PORT=$port/" "$env_file"
echo "OUTPOST_ROOT_TOKEN=$root_token" >> "$env_file"
start_as_unit
api GET /version "$root_token"
[ "$(stat -c %U /var/lib/outpost/outpost.sqlite3)" = outpost ] || fail "the database is not the outpost user's"
user_id=$(api POST /users "$root_token" '{"username":"kept","name":"Kept","email":"kept@example.com","password":"kept-password-1"}' | json_field id)
user_token=$(api POST "/users/$user_id/personal_access_tokens" "$root_token" '{"name":"kept","scopes":["api"]}' | json_field token)
stop_server
key_before=$(grep '^OUTPOST_SECRET_KEY=' "$env_file" | sha256sum)

step "upgrade to a newer build of outpost-server"
newer_version="$version+check1"
dpkg-deb -R "$server_deb" "$work/newer"
sed -i "s/^Version: .*/Version: $newer_version/" "$work/newer/DEBIAN/control"
dpkg-deb --root-owner-group -Zgzip --build "$work/newer" "$work/outpost-server_${newer_version}_amd64.deb" >/dev/null
apt-get install -y -q "$work/outpost-server_${newer_version}_amd64.deb" >"$work/apt.log" || { cat "$work/apt.log"; fail "upgrade"; }
grep -q 'Database is up to date' "$work/apt.log" || { cat "$work/apt.log"; fail "the upgrade did not migrate"; }
[ "$(dpkg-query -W -f='${Version}' outpost-server)" = "$newer_version" ] || fail "still the old version"
[ "$(grep '^OUTPOST_SECRET_KEY=' "$env_file" | sha256sum)" = "$key_before" ] || fail "the upgrade changed the secret key"
[ ! -e "$env_file.dpkg-dist" ] && [ ! -e "$env_file.dpkg-old" ] || fail "dpkg replaced or set aside $env_file"
start_as_unit
[ "$(api GET /user "$user_token" | json_field username)" = kept ] || fail "the user or its token did not survive the upgrade"
stop_server

step "remove keeps /var/lib/outpost and /etc/outpost; purge leaves nothing"
apt-get remove -y -q outpost outpost-server >"$work/apt.log" || { cat "$work/apt.log"; fail "remove"; }
[ -f /var/lib/outpost/outpost.sqlite3 ] && [ -f "$env_file" ] || fail "remove deleted the data or the settings"
[ ! -e /opt/outpost ] && [ ! -e /opt/outpost-server ] && [ ! -e /usr/bin/outpost ] || fail "remove left the programs"
# The console has no conffiles, so remove already took all of it; dpkg purges whatever is left of both.
dpkg --purge outpost outpost-server >"$work/apt.log" 2>&1 || { cat "$work/apt.log"; fail "purge"; }
left=$(while read -r path; do [ -e "$path" ] && [ ! -d "$path" ] && echo "$path"; done < "$work/files" || true)
left+=$(find /etc /opt /var/lib /lib/systemd /usr/bin /usr/share/applications /usr/share/metainfo /usr/share/doc \
        /usr/share/icons -name '*outpost*' 2>/dev/null || true)
getent passwd outpost >/dev/null && left+=" user:outpost"
getent group outpost >/dev/null && left+=" group:outpost"
[ -z "$left" ] || fail "left after purge: $left"
echo "check_debs: both packages installed, ran, upgraded and purged cleanly"
