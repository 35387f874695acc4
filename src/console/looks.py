"""Colours that follow the operating system's light or dark palette.

Qt already takes the OS palette (and the colour scheme where the platform reports it); the few colours
the console sets itself are chosen per scheme here and swapped when the OS switches.
"""

from __future__ import annotations

from PySide6.QtCore import QObject
from PySide6.QtGui import QColor, QGuiApplication, QPalette
from PySide6.QtWidgets import QWidget

# Every colour the console sets itself, per scheme. Text colours keep a contrast of at least 4.5 against
# the scheme's base and window colours, and "notice" backgrounds against its text (tests/console/shell/
# test_contrast.py checks both with a dark palette).
LIGHT = {
    "error": "#b3261e",  # failures, invalid rows, the error level
    "fatal": "#8e1b10",  # the fatal level
    "warning": "#8a5300",
    "success": "#1e7b34",
    "muted": "#5f6368",  # secondary text: library frames, a culprit, a time
    "badge": "#5f6368",
    "notice": "#fde7e9",  # the background of a row to notice: the line that raised, the crash's breadcrumb
    "bar": "#6e49cb",  # bar charts
    "track": "#e8e3f6",  # behind a bar
}
DARK = {
    "error": "#f2b8b5",
    "fatal": "#ffb4ab",
    "warning": "#f0c05a",
    "success": "#7dd28c",
    "muted": "#a8acb1",
    "badge": "#8e918f",
    "notice": "#5c2b2e",
    "bar": "#b69df8",
    "track": "#3b3450",
}

STYLE = """
QLabel#adminBadge {{ background: #b3261e; color: white; border-radius: 4px; padding: 2px 8px; font-weight: bold; }}
QLabel#userBadge {{ background: {badge}; color: white; border-radius: 4px; padding: 2px 8px; }}
QLabel#warning {{ color: {warning}; }}
QLabel#statusError {{ color: {error}; }}
QLabel#serverLabel {{ font-weight: bold; }}
QFrame#connectionBar {{ border-bottom: 1px solid palette(mid); }}
QFrame#messageBar {{ background: {notice}; border: 1px solid {error}; border-radius: 4px; }}
"""


def is_dark(palette: QPalette | None = None) -> bool:
    """Dark when the window background is darker than its text (works whether or not the OS names a scheme)."""
    palette = palette if palette is not None else QGuiApplication.palette()
    window, text = palette.color(QPalette.ColorRole.Window), palette.color(QPalette.ColorRole.WindowText)
    return window.lightness() < text.lightness()


def colours() -> dict[str, str]:
    return DARK if is_dark() else LIGHT


def colour(name: str) -> QColor:
    """One of the console's own colours (see LIGHT) for the palette in use now: read it when painting or
    answering a model's data, not once, so it follows a switch between light and dark."""
    return QColor(colours()[name])


class FollowPalette(QObject):
    """Keeps ``widget``'s style sheet in step with the OS palette."""

    def __init__(self, widget: QWidget) -> None:
        super().__init__(widget)
        self._widget = widget
        hints = QGuiApplication.styleHints()
        hints.colorSchemeChanged.connect(lambda _scheme: self.apply())
        self.apply()

    def apply(self) -> None:
        self._widget.setStyleSheet(STYLE.format(**colours()))
