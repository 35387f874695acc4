"""Colours that follow the operating system's light or dark palette.

Qt already takes the OS palette (and the colour scheme where the platform reports it); the few colours
the console sets itself are chosen per scheme here and swapped when the OS switches.
"""

from __future__ import annotations

from PySide6.QtCore import QObject
from PySide6.QtGui import QGuiApplication, QPalette
from PySide6.QtWidgets import QWidget

LIGHT = {"error": "#b3261e", "warning": "#8a5300", "badge": "#5f6368"}
DARK = {"error": "#f2b8b5", "warning": "#f0c05a", "badge": "#8e918f"}

STYLE = """
QLabel#adminBadge {{ background: #b3261e; color: white; border-radius: 4px; padding: 2px 8px; font-weight: bold; }}
QLabel#userBadge {{ background: {badge}; color: white; border-radius: 4px; padding: 2px 8px; }}
QLabel#warning {{ color: {warning}; }}
QLabel#statusError {{ color: {error}; }}
QLabel#serverLabel {{ font-weight: bold; }}
QFrame#connectionBar {{ border-bottom: 1px solid palette(mid); }}
"""


def is_dark(palette: QPalette | None = None) -> bool:
    """Dark when the window background is darker than its text (works whether or not the OS names a scheme)."""
    palette = palette if palette is not None else QGuiApplication.palette()
    window, text = palette.color(QPalette.ColorRole.Window), palette.color(QPalette.ColorRole.WindowText)
    return window.lightness() < text.lightness()


def colours() -> dict[str, str]:
    return DARK if is_dark() else LIGHT


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
