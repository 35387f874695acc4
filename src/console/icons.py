"""The application icon, drawn from its SVG so it stays sharp at any screen scale (devicePixelRatio)."""

from __future__ import annotations

import sys
from pathlib import Path

from PySide6.QtGui import QIcon

ICON_NAME = "outpost.svg"


def icon_path() -> Path:
    """Where the SVG is: inside the frozen app (packaging/outpost.spec puts it there) or in the checkout."""
    bundle = getattr(sys, "_MEIPASS", None)
    if bundle is not None:
        return Path(bundle) / "resources" / "icons" / ICON_NAME
    return Path(__file__).resolve().parents[2] / "resources" / "icons" / ICON_NAME


def app_icon() -> QIcon:
    """A scalable icon: Qt renders the SVG at the size and pixel ratio it is asked for."""
    path = icon_path()
    return QIcon(str(path)) if path.is_file() else QIcon()
