#!/usr/bin/env bash
# Builds dist/Outpost.app and dist/Outpost-VERSION-macos-ARCH.dmg on a Mac, then signs and
# notarises them when the environment asks for it. Run from anywhere: packaging/macos/build.sh
#
# Prerequisites: Python 3.11+ (python.org or Homebrew) and the Xcode command line tools.
#
# Environment (all optional):
#   PYTHON                      interpreter for the build venv (default python3)
#   OUTPOST_TARGET_ARCH         x86_64, arm64 or universal2 (default: this Mac's architecture;
#                               universal2 needs a universal2 Python and universal2 wheels)
#   OUTPOST_CODESIGN_IDENTITY   "Developer ID Application: NAME (TEAMID)": sign the app and the dmg
#                               with the hardened runtime and a secure timestamp
#   OUTPOST_NOTARY_PROFILE      a notarytool keychain profile (made once with
#                               `xcrun notarytool store-credentials PROFILE --apple-id ... --team-id ...`):
#                               notarise the dmg and staple the ticket; needs OUTPOST_CODESIGN_IDENTITY
set -euo pipefail
cd "$(dirname "$0")/../.."

here=packaging/macos
app=dist/Outpost.app
entitlements=$here/entitlements.plist

if [ ! -x .venv/bin/python ]; then
    "${PYTHON:-python3}" -m venv .venv
fi
.venv/bin/python -m pip install --quiet --upgrade pip
.venv/bin/python -m pip install --quiet -c constraints.txt -e ./model -e ./server -e '.[dev]' dmgbuild

version=$(.venv/bin/python -c 'import console; print(console.__version__)')
arch=${OUTPOST_TARGET_ARCH:-$(uname -m)}
dmg="dist/Outpost-$version-macos-$arch.dmg"

# The spec signs nothing itself here: signing happens below, inside-out, once the bundle is complete.
rm -rf "$app" dist/outpost
OUTPOST_CODESIGN_IDENTITY= OUTPOST_TARGET_ARCH=$arch \
    .venv/bin/python -m PyInstaller --noconfirm --clean --distpath dist --workpath build/pyinstaller packaging/outpost.spec

# The GUI executable writes nothing to a terminal when started from Finder; run it directly for the check.
"$app/Contents/MacOS/outpost" --version
QT_QPA_PLATFORM=offscreen "$app/Contents/MacOS/outpost" --self-test
.venv/bin/python packaging/check_bundle.py "$app/Contents/MacOS/outpost"

sign() {
    codesign --force --timestamp --options runtime --entitlements "$entitlements" \
        --sign "$OUTPOST_CODESIGN_IDENTITY" "$@"
}

if [ -n "${OUTPOST_CODESIGN_IDENTITY:-}" ]; then
    # Inside-out: every Mach-O file, then the Qt frameworks, then the bundle itself.
    find "$app/Contents" -type f -print0 | while IFS= read -r -d '' file; do
        if file -b "$file" | grep -q "Mach-O"; then sign "$file"; fi
    done
    find "$app/Contents" -type d -name "*.framework" -print0 | while IFS= read -r -d '' framework; do
        sign "$framework"
    done
    sign "$app"
    codesign --verify --deep --strict --verbose=2 "$app"
fi

rm -f "$dmg"
.venv/bin/dmgbuild -s "$here/dmg_settings.py" -D app="$app" -D icon=resources/icons/outpost.icns "Outpost $version" "$dmg"

if [ -n "${OUTPOST_CODESIGN_IDENTITY:-}" ]; then
    codesign --force --timestamp --sign "$OUTPOST_CODESIGN_IDENTITY" "$dmg"
fi
if [ -n "${OUTPOST_NOTARY_PROFILE:-}" ]; then
    [ -n "${OUTPOST_CODESIGN_IDENTITY:-}" ] || { echo "notarisation needs OUTPOST_CODESIGN_IDENTITY" >&2; exit 1; }
    xcrun notarytool submit "$dmg" --keychain-profile "$OUTPOST_NOTARY_PROFILE" --wait
    xcrun stapler staple "$dmg"
    xcrun stapler validate "$dmg"
    spctl --assess --type open --context context:primary-signature --verbose "$dmg"
fi

echo "app size: $(du -sh "$app" | cut -f1) in $app"
echo "dmg size: $(du -h "$dmg" | cut -f1) in $dmg"
