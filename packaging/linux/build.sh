#!/usr/bin/env bash
# Builds the Linux package from the repository root's .venv (make bootstrap):
#   dist/outpost/                                the one-folder app (run dist/outpost/outpost)
#   dist/outpost-VERSION-linux-ARCH.tar.gz       the same folder with a .desktop file and icons
#   dist/Outpost-VERSION-ARCH.AppImage           only when appimagetool is on PATH
#   dist/outpost_VERSION_amd64.deb, dist/outpost-server_VERSION_amd64.deb   where dpkg-deb exists (Debian)
set -euo pipefail
cd "$(dirname "$0")/../.."

PY=${PY:-.venv/bin/python}
version=$("$PY" -c 'import console; print(console.__version__)')
arch=$(uname -m)
archive="dist/outpost-$version-linux-$arch.tar.gz"
started=$(date +%s)

# PyInstaller needs objdump (binutils) on Linux.
command -v objdump >/dev/null || { echo "objdump is missing: install binutils" >&2; exit 1; }

"$PY" -m PyInstaller --noconfirm --clean --log-level WARN --distpath dist --workpath build/pyinstaller packaging/outpost.spec

# Desktop integration files travel inside the folder, with a script that installs them for the user.
app=dist/outpost
cp resources/outpost.desktop "$app/outpost.desktop"
cp resources/icons/outpost-256.png "$app/outpost.png"
cp resources/icons/outpost.svg "$app/outpost.svg"
install -m 755 packaging/linux/install-desktop-entry.sh "$app/install-desktop-entry.sh"

rm -f "$archive"
tar -C dist -czf "$archive" outpost
built=$(date +%s)

if command -v appimagetool >/dev/null; then
    appdir=build/appimage/Outpost.AppDir
    rm -rf "$appdir" && mkdir -p "$appdir"
    cp -a "$app/." "$appdir/"
    ln -s outpost "$appdir/AppRun"
    ln -s outpost.png "$appdir/.DirIcon"
    ARCH=$arch appimagetool --no-appstream "$appdir" "dist/Outpost-$version-$arch.AppImage"
else
    echo "appimagetool not found: no AppImage built (see packaging/README.md)"
fi

if command -v dpkg-deb >/dev/null; then
    packaging/linux/deb/build_console.sh
    packaging/linux/deb/build_server.sh
else
    echo "dpkg-deb not found: no .deb packages built (see packaging/README.md)"
fi
packaged=$(date +%s)

echo "build time: $((built - started)) s, .deb packages: $((packaged - built)) s"
echo "folder size: $(du -sh "$app" | cut -f1) ($(du -sb "$app" | cut -f1) bytes) in $app"
echo "archive size: $(du -h "$archive" | cut -f1) ($(stat -c %s "$archive") bytes) in $archive"
ls -l dist/*.AppImage 2>/dev/null || true
