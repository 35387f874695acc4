#!/usr/bin/env bash
# Builds dist/outpost_VERSION_amd64.deb from the one-folder app in dist/outpost (packaging/linux/build.sh):
# the app in /opt/outpost, /usr/bin/outpost, the desktop entry, hicolor icons and AppStream metainfo.
set -euo pipefail
cd "$(dirname "$0")/../../.."
. packaging/linux/deb/common.sh

app=dist/outpost
[ -x "$app/outpost" ] || { echo "$app/outpost is missing: run packaging/linux/build.sh first" >&2; exit 1; }
root=build/deb/outpost
rm -rf "$root" && mkdir -p "$root/opt" "$root/usr/bin"

# The folder's own desktop files are for the portable archive; the package installs them system-wide.
cp -a "$app" "$root/opt/outpost"
rm -f "$root/opt/outpost/outpost.desktop" "$root/opt/outpost/outpost.png" "$root/opt/outpost/outpost.svg" \
      "$root/opt/outpost/install-desktop-entry.sh"
ln -s /opt/outpost/outpost "$root/usr/bin/outpost"
# Shared objects are loaded, never run: no execute bit. A search path into the build machine's own
# Python (a self-built interpreter has one) must not travel; $ORIGIN-relative ones stay.
find "$root/opt/outpost/_internal" -type f -name '*.so*' -exec chmod 644 {} +
if command -v patchelf >/dev/null; then
    find "$root/opt/outpost/_internal" -type f -name '*.so*' -print0 | while IFS= read -r -d '' library; do
        runpath=$(patchelf --print-rpath "$library" 2>/dev/null) || continue
        if [ -n "$runpath" ] && [[ "$runpath" != *'$ORIGIN'* ]]; then patchelf --remove-rpath "$library"; fi
    done
fi

install -D -m 644 resources/outpost.desktop "$root/usr/share/applications/outpost.desktop"
for size in 16 24 32 48 64 128 256 512; do
    install -D -m 644 "resources/icons/outpost-$size.png" "$root/usr/share/icons/hicolor/${size}x${size}/apps/outpost.png"
done
install -D -m 644 resources/icons/outpost.svg "$root/usr/share/icons/hicolor/scalable/apps/outpost.svg"
install -d -m 755 "$root/usr/share/metainfo"
sed -e "s/@VERSION@/$version/" -e "s/@DATE@/$(date -u -d "@$SOURCE_DATE_EPOCH" +%F)/" \
    "$deb_dir/org.outpost.console.metainfo.xml" > "$root/usr/share/metainfo/org.outpost.console.metainfo.xml"
chmod 644 "$root/usr/share/metainfo/org.outpost.console.metainfo.xml"
add_documentation "$root" outpost outpost
add_lintian_overrides "$root" outpost

# Qt's system libraries (the list make bootstrap checks) and the C library the bundle was linked against.
glibc=$(dpkg-query -W -f='${Version}' libc6 | cut -d- -f1)
depends="libc6 (>= $glibc), $(scripts/check_qt_libs.sh --list | sed 's/ /, /g')"
build_deb "$root" outpost "$depends"
