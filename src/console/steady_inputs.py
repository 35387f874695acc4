"""Inputs that hold still: a spin box or a combo box changes on the mouse wheel only while it has the focus
(the wheel over it otherwise scrolls what it sits in, instead of silently changing "at least 10 events" to 4),
and a combo box is as wide as its layout makes it, not as its longest item (a long project path must not
widen the window).

One filter on the application applies this to every such widget as Qt polishes it, dialogs included.
"""

from __future__ import annotations

from PySide6.QtCore import QEvent, QObject, Qt
from PySide6.QtGui import QWheelEvent
from PySide6.QtWidgets import QAbstractSpinBox, QApplication, QComboBox, QWidget

# In characters, for a combo filled from the server (a project, a scope); the popup always shows items whole.
COMBO_CONTENTS_LENGTH = 20

_POLISH = QEvent.Type.Polish
_WHEEL = QEvent.Type.Wheel


class SteadyInputs(QObject):
    """Installed once on the application (``install``)."""

    def eventFilter(self, watched: QObject, event: QEvent) -> bool:
        kind = event.type()
        if kind == _POLISH and isinstance(watched, (QAbstractSpinBox, QComboBox)):
            steady(watched)
        elif kind == _WHEEL and isinstance(watched, (QAbstractSpinBox, QComboBox)) and not watched.hasFocus():
            parent = watched.parentWidget()
            if parent is not None and isinstance(event, QWheelEvent):
                _pass_on(watched, parent, event)
            return True
        return False


def steady(widget: QWidget) -> None:
    """Wheel only with the focus (a click or Tab gives it, the wheel does not); a combo's width from its layout."""
    if widget.focusPolicy() == Qt.FocusPolicy.WheelFocus:
        widget.setFocusPolicy(Qt.FocusPolicy.StrongFocus)
    if isinstance(widget, QComboBox):
        if widget.minimumContentsLength() == 0:
            # A fixed choice (its items are there when it is polished) keeps fitting its longest item; a list
            # filled from the server later gets a set length.
            longest = max((len(widget.itemText(index)) for index in range(widget.count())), default=0)
            widget.setMinimumContentsLength(min(longest, COMBO_CONTENTS_LENGTH) if longest else COMBO_CONTENTS_LENGTH)
        widget.setSizeAdjustPolicy(QComboBox.SizeAdjustPolicy.AdjustToMinimumContentsLengthWithIcon)


def _pass_on(widget: QWidget, parent: QWidget, event: QWheelEvent) -> None:
    """The wheel goes to what holds the widget, as if the widget were not there."""
    offset = widget.mapTo(parent, event.position().toPoint()) - event.position().toPoint()
    moved = QWheelEvent(event.position() + offset.toPointF(), event.globalPosition(), event.pixelDelta(),
                        event.angleDelta(), event.buttons(), event.modifiers(), event.phase(), event.inverted(),
                        event.source())
    QApplication.sendEvent(parent, moved)


def install(app: QApplication) -> None:
    """Once per application; widgets already polished are made steady now."""
    if app.property("steady_inputs"):
        return
    app.setProperty("steady_inputs", True)
    app.installEventFilter(SteadyInputs(app))
    for widget in app.allWidgets():
        if isinstance(widget, (QAbstractSpinBox, QComboBox)):
            steady(widget)
