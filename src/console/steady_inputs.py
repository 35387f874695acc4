"""Inputs that hold still: a spin box or a combo box changes on the mouse wheel only while it has the focus
(the wheel over it otherwise scrolls what it sits in, instead of silently changing "at least 10 events" to 4),
and a combo box is as wide as its layout makes it, not as its longest item (a long project path must not
widen the window).

A dialog holds still on the screen too: as it is shown it is fitted into the screen's available area (a
1,100 px preview on a 900 px screen had its Close button off-screen).

One filter on the application applies this to every such widget as Qt polishes or shows it, dialogs included.
"""

from __future__ import annotations

from PySide6.QtCore import QEvent, QObject, QPointF, Qt, QTimer
from PySide6.QtGui import QWheelEvent
from PySide6.QtWidgets import QAbstractScrollArea, QAbstractSpinBox, QApplication, QComboBox, QDialog, QWidget

from console.window_state import fit_on_screen

# In characters, for a combo filled from the server (a project, a scope); the popup always shows items whole.
COMBO_CONTENTS_LENGTH = 20

_POLISH = QEvent.Type.Polish
_WHEEL = QEvent.Type.Wheel
_SHOW = QEvent.Type.Show
_PAINT = QEvent.Type.Paint
_FRAMED = "fitted_in_its_frame"


class SteadyInputs(QObject):
    """Installed once on the application (``install``)."""

    def eventFilter(self, watched: QObject, event: QEvent) -> bool:
        kind = event.type()
        if kind == _POLISH and isinstance(watched, (QAbstractSpinBox, QComboBox)):
            steady(watched)
        elif kind == _WHEEL and isinstance(watched, (QAbstractSpinBox, QComboBox)) and not watched.hasFocus():
            if isinstance(event, QWheelEvent):
                _scroll_around(watched, event)
            return True
        elif kind == _SHOW and isinstance(watched, QDialog) and watched.isWindow():
            fit_on_screen(watched)
            watched.setProperty(_FRAMED, False)
        elif kind == _PAINT and isinstance(watched, QDialog) and watched.property(_FRAMED) is False:
            # By its first paint the window manager has framed it: its title bar counts too.
            watched.setProperty(_FRAMED, True)
            QTimer.singleShot(0, watched, lambda: fit_on_screen(watched))
        return False


def steady(widget: QWidget) -> None:
    """Wheel only with the focus (a click or Tab gives it, the wheel does not); the width of a combo filled later
    from its layout."""
    if widget.focusPolicy() == Qt.FocusPolicy.WheelFocus:
        widget.setFocusPolicy(Qt.FocusPolicy.StrongFocus)
    if isinstance(widget, QComboBox) and widget.count() == 0:
        # Filled later from the server (a project, a scope): its width is set, not its longest item's. A fixed
        # choice (its items are there when it is polished) keeps fitting its items, which nobody can lengthen.
        if widget.minimumContentsLength() == 0:
            widget.setMinimumContentsLength(COMBO_CONTENTS_LENGTH)
        widget.setSizeAdjustPolicy(QComboBox.SizeAdjustPolicy.AdjustToMinimumContentsLengthWithIcon)


def _scroll_around(widget: QWidget, event: QWheelEvent) -> None:
    """The wheel scrolls the area the widget sits in, as if the widget were not there. (Qt passes only the
    wheel events that come from the system on to parents, so this one is given to the area itself.)"""
    area = widget.parentWidget()
    while area is not None and not isinstance(area, QAbstractScrollArea):
        area = area.parentWidget()
    if area is None:
        return
    viewport = area.viewport()
    position = QPointF(viewport.mapFromGlobal(event.globalPosition().toPoint()))
    QApplication.sendEvent(viewport, QWheelEvent(position, event.globalPosition(), event.pixelDelta(),
                                                 event.angleDelta(), event.buttons(), event.modifiers(),
                                                 event.phase(), event.inverted(), event.source()))


def install(app: QApplication) -> None:
    """Once per application; widgets already polished are made steady now."""
    if app.property("steady_inputs"):
        return
    app.setProperty("steady_inputs", True)
    app.installEventFilter(SteadyInputs(app))
    for widget in app.allWidgets():
        if isinstance(widget, (QAbstractSpinBox, QComboBox)):
            steady(widget)
