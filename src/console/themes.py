"""View > Theme: System (the platform's style and palette), Light or Dark (Qt's Fusion style with the console's
palettes, whatever the platform says), remembered across runs.

ConsoleStyle wraps whichever style is in use. Fusion draws an unchecked check box or radio button and the line
edits' clear icon in colours derived from the window's (1.2:1 against a dark window): here they are drawn in the
palette's text colour, which the palettes keep at 4.5:1 or more against their backgrounds.
"""

from __future__ import annotations

from PySide6 import QtCore  # its Qt namespace only at call time: made on first touch, costly for a first frame
from PySide6.QtCore import QObject, QPointF, QRect, QRectF, QSettings, QSize, Signal
from PySide6.QtGui import QAction, QActionGroup, QColor, QIcon, QIconEngine, QPainter, QPalette, QPen, QPixmap
from PySide6.QtWidgets import QApplication, QMenu, QProxyStyle, QStyle, QStyleFactory, QStyleOption, QWidget

from console.core import settings_keys as keys

MENU_TEXTS = {"system": "&System", "light": "&Light", "dark": "&Dark"}
# The dark theme's palette (the light one is Fusion's own). Text and placeholder text keep at least 4.5:1 against
# Window, Base and Button; disabled text is exempt (WCAG exempts inactive controls) but still legible.
DARK_PALETTE = {
    "Window": "#202124", "WindowText": "#e8eaed",
    "Base": "#1b1b1f", "AlternateBase": "#26262b",
    "Text": "#e8eaed", "PlaceholderText": "#9aa0a6",
    "Button": "#303134", "ButtonText": "#e8eaed",
    "Highlight": "#8ab4f8", "HighlightedText": "#202124",
    "ToolTipBase": "#303134", "ToolTipText": "#e8eaed",
    "Light": "#505155", "Midlight": "#3c3d40", "Mid": "#5f6368",
    "Dark": "#151517", "Shadow": "#000000",
    "BrightText": "#ffffff", "Link": "#8ab4f8",
    "LinkVisited": "#c58af9",
}
DARK_DISABLED = "#80868b"


def dark_palette() -> QPalette:
    palette = QPalette()
    for role, value in DARK_PALETTE.items():
        palette.setColor(getattr(QPalette.ColorRole, role), QColor(value))
    for disabled in (QPalette.ColorRole.WindowText, QPalette.ColorRole.Text, QPalette.ColorRole.ButtonText):
        palette.setColor(QPalette.ColorGroup.Disabled, disabled, QColor(DARK_DISABLED))
    return palette


class ClearIcon(QIconEngine):
    """A line edit's clear button: a cross in the palette's text colour at the moment it is painted, so it follows
    a change of theme."""

    def paint(self, painter: QPainter, rect: QRect, mode: QIcon.Mode, state: QIcon.State) -> None:

        role = QPalette.ColorRole.PlaceholderText if mode == QIcon.Mode.Disabled else QPalette.ColorRole.Text
        side = min(rect.width(), rect.height()) * 0.5
        box = QRectF(0, 0, side, side)
        box.moveCenter(QRectF(rect).center())
        painter.save()
        painter.setRenderHint(QPainter.RenderHint.Antialiasing)
        pen = QPen(QApplication.palette().color(role), max(1.5, side / 5))
        pen.setCapStyle(QtCore.Qt.PenCapStyle.RoundCap)
        painter.setPen(pen)
        painter.drawLine(box.topLeft(), box.bottomRight())
        painter.drawLine(QPointF(box.left(), box.bottom()), QPointF(box.right(), box.top()))
        painter.restore()

    def pixmap(self, size: QSize, mode: QIcon.Mode, state: QIcon.State) -> QPixmap:

        pixmap = QPixmap(size)
        pixmap.fill(QtCore.Qt.GlobalColor.transparent)
        painter = QPainter(pixmap)
        self.paint(painter, QRect(0, 0, size.width(), size.height()), mode, state)
        painter.end()
        return pixmap

    def clone(self) -> QIconEngine:
        return ClearIcon()


class ConsoleStyle(QProxyStyle):
    def __init__(self, base: str) -> None:
        super().__init__(QStyleFactory.create(base))
        self.outlines = base.lower() == "fusion"  # the other styles draw indicators as their platform wants

    def standardIcon(self, icon: QStyle.StandardPixmap, option: QStyleOption | None = None,
                     widget: QWidget | None = None) -> QIcon:
        if icon == QStyle.StandardPixmap.SP_LineEditClearButton:
            return QIcon(ClearIcon())
        return super().standardIcon(icon, option, widget)

    def drawPrimitive(self, element: QStyle.PrimitiveElement, option: QStyleOption, painter: QPainter,
                      widget: QWidget | None = None) -> None:

        super().drawPrimitive(element, option, painter, widget)
        radio = element == QStyle.PrimitiveElement.PE_IndicatorRadioButton
        if not self.outlines or not (radio or element == QStyle.PrimitiveElement.PE_IndicatorCheckBox):
            return
        group = (QPalette.ColorGroup.Disabled if not option.state & QStyle.StateFlag.State_Enabled
                 else QPalette.ColorGroup.Active)
        painter.save()
        painter.setRenderHint(QPainter.RenderHint.Antialiasing, radio)
        painter.setPen(QPen(option.palette.color(group, QPalette.ColorRole.WindowText), 1))
        painter.setBrush(QtCore.Qt.BrushStyle.NoBrush)
        frame = QRectF(option.rect).adjusted(0.5, 0.5, -0.5, -0.5)
        if radio:
            painter.drawEllipse(frame)
        else:
            painter.drawRoundedRect(frame, 1.5, 1.5)
        painter.restore()


class Themes(QObject):
    """Applies the chosen theme to the application and keeps the choice; ``changed`` after each change."""

    changed = Signal()

    def __init__(self, settings: QSettings, parent: QObject | None = None) -> None:
        super().__init__(parent)
        self._settings = settings
        app = QApplication.instance()
        assert isinstance(app, QApplication)
        self._app = app
        self._system_style = app.style().name()
        self._themed = False  # whether a palette of ours replaced the platform's

    @property
    def choice(self) -> str:
        return keys.theme(self._settings.value(keys.THEME))

    def apply(self, choice: str | None = None) -> None:

        choice = keys.theme(choice if choice is not None else self.choice)
        self._settings.setValue(keys.THEME, choice)
        hints = self._app.styleHints()
        if choice == "system":
            self._app.setStyle(ConsoleStyle(self._system_style))
            hints.setColorScheme(QtCore.Qt.ColorScheme.Unknown)
            if self._themed:
                self._app.setPalette(QPalette())  # nothing set: the platform's again, following its changes
            self._themed = False
        else:
            style = ConsoleStyle("fusion")
            self._app.setStyle(style)
            hints.setColorScheme(QtCore.Qt.ColorScheme.Dark if choice == "dark" else QtCore.Qt.ColorScheme.Light)
            self._app.setPalette(dark_palette() if choice == "dark" else style.standardPalette())
            self._themed = True
        self.changed.emit()

    def start(self, first_frame_done: bool) -> None:
        """A chosen light or dark theme applies before the first frame (no flash of the other); the system's
        needs only ConsoleStyle, which can wait until after it."""
        if (self.choice == "system") == first_frame_done:
            self.apply()

    def add_menu(self, menu: QMenu) -> QMenu:
        """View > Theme: one checked entry of System, Light and Dark."""
        menu.addSeparator()
        themes = menu.addMenu("&Theme")
        group = QActionGroup(themes)
        for name, text in MENU_TEXTS.items():
            action = QAction(text, themes, checkable=True)
            action.setObjectName(f"theme_{name}")
            action.setChecked(name == self.choice)
            action.triggered.connect(lambda _checked=False, name=name: self.apply(name))
            group.addAction(action)
            themes.addAction(action)
        return themes
