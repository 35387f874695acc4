#!/usr/bin/env bash
# Adds Outpost to the desktop's application menu for the current user, pointing at this folder.
# Run it again after moving the folder; remove the entry with --uninstall.
set -euo pipefail
here=$(cd "$(dirname "$0")" && pwd)
data=${XDG_DATA_HOME:-$HOME/.local/share}
entry="$data/applications/outpost.desktop"
icons="$data/icons/hicolor"

if [ "${1:-}" = "--uninstall" ]; then
    rm -f "$entry" "$icons/256x256/apps/outpost.png" "$icons/scalable/apps/outpost.svg"
    echo "Removed the Outpost menu entry."
    exit 0
fi

mkdir -p "$data/applications" "$icons/256x256/apps" "$icons/scalable/apps"
cp "$here/outpost.png" "$icons/256x256/apps/outpost.png"
cp "$here/outpost.svg" "$icons/scalable/apps/outpost.svg"
sed "s|^Exec=.*|Exec=\"$here/outpost\" %u|" "$here/outpost.desktop" > "$entry"
command -v update-desktop-database >/dev/null && update-desktop-database "$data/applications" || true
# outpost:// links open the console.
command -v xdg-mime >/dev/null && xdg-mime default outpost.desktop x-scheme-handler/outpost || true
echo "Added Outpost to the application menu ($entry)."
