#!/usr/bin/env bash
# Makes sure Qt's system libraries are present. As root on Debian it installs them;
# otherwise it names the exact packages to install. `--list` prints the list (the console's .deb depends on it).
set -euo pipefail

packages="libegl1 libgl1 libxkbcommon0 libxkbcommon-x11-0 libfontconfig1 libdbus-1-3 libglib2.0-0 \
libxcb-cursor0 libxcb-icccm4 libxcb-keysyms1 libxcb-image0 libxcb-randr0 libxcb-render-util0 \
libxcb-shape0 libxcb-xkb1 fonts-dejavu-core"

if [ "${1:-}" = "--list" ]; then
    echo $packages
    exit 0
fi

command -v dpkg-query >/dev/null 2>&1 || exit 0   # not Debian: nothing we can check here
missing=""
for package in $packages; do
    dpkg-query -W -f='${Status}' "$package" 2>/dev/null | grep -q "install ok installed" || missing="$missing $package"
done
[ -z "$missing" ] && exit 0

if [ "$(id -u)" = 0 ] && command -v apt-get >/dev/null 2>&1; then
    echo "Installing Qt's system libraries:$missing"
    apt-get update -q >/dev/null
    DEBIAN_FRONTEND=noninteractive apt-get install -y -q --no-install-recommends $missing >/dev/null
else
    echo "Qt needs these Debian packages, which are missing:$missing" >&2
    echo "Install them with: sudo apt-get install -y --no-install-recommends$missing" >&2
    exit 1
fi
