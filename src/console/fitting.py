"""Labels that fit the width they are given: they wrap where they can, never widen their pane, and show their
whole text in a tooltip when some of it may be out of sight."""

from __future__ import annotations

from PySide6 import QtCore  # its Qt namespace only at call time: made on first touch, costly for a first frame
from PySide6.QtCore import QSize
from PySide6.QtGui import QResizeEvent
from PySide6.QtWidgets import QFrame, QLabel, QScrollArea, QSizePolicy, QWidget


class FittingLabel(QLabel):
    """A word-wrapped label whose width is the layout's to decide: a word longer than the line is cut rather
    than the pane widened, and the tooltip then carries the whole text (always, with ``always_tip``)."""

    def __init__(self, text: str = "", parent: QWidget | None = None, *, always_tip: bool = False) -> None:
        super().__init__(parent)
        self.always_tip = always_tip
        self.setWordWrap(True)
        policy = self.sizePolicy()
        policy.setHorizontalPolicy(QSizePolicy.Policy.Ignored)
        self.setSizePolicy(policy)
        self.setMinimumWidth(1)
        self.setText(text)

    def setText(self, text: str) -> None:  # keeps the tooltip in step
        super().setText(text)
        self._update_tip()

    def clear(self) -> None:
        self.setText("")

    def resizeEvent(self, event: QResizeEvent) -> None:
        super().resizeEvent(event)
        self._update_tip()

    def is_cut(self) -> bool:
        """Whether a word of the text is wider than the label (so part of it is out of sight)."""
        metrics, width = self.fontMetrics(), self.contentsRect().width()
        return any(metrics.horizontalAdvance(word) > width for word in self.text().split())

    def _update_tip(self) -> None:
        self.setToolTip(self.text() if self.text() and (self.always_tip or self.is_cut()) else "")


class ElidedLabel(QLabel):
    """One line, elided at the right with "…" when narrower than its text; the tooltip then has the whole text.
    ``full_text()`` is the text as set. It asks its layout for the whole text's width but never needs more than
    a few characters: whatever the text, it does not widen the window."""

    def __init__(self, text: str = "", parent: QWidget | None = None) -> None:
        super().__init__(parent)
        self.setSizePolicy(QSizePolicy.Policy.Preferred, QSizePolicy.Policy.Preferred)
        self.setMinimumWidth(1)
        self._full = ""
        self.setText(text)

    def sizeHint(self) -> QSize:
        hint = super().sizeHint()
        margins = self.contentsMargins()
        # A pixel more than the text's advance: eliding compares fractional widths, the advance is rounded.
        width = (self.fontMetrics().horizontalAdvance(self._full) + 1 + margins.left() + margins.right()
                 + 2 * self.margin())
        return QSize(width, hint.height())

    def minimumSizeHint(self) -> QSize:
        return QSize(self.fontMetrics().horizontalAdvance("M…"), super().minimumSizeHint().height())

    def full_text(self) -> str:
        return self._full

    def setText(self, text: str) -> None:  # remembers the whole text
        self._full = text
        self._elide()

    def clear(self) -> None:
        self.setText("")

    def is_cut(self) -> bool:
        return bool(self._full) and self.fontMetrics().horizontalAdvance(self._full) > self.contentsRect().width()

    def resizeEvent(self, event: QResizeEvent) -> None:
        super().resizeEvent(event)
        self._elide()

    def _elide(self) -> None:
        width = max(self.contentsRect().width(), 1)
        metrics = self.fontMetrics()
        if metrics.horizontalAdvance(self._full) < width:
            QLabel.setText(self, self._full)
        else:
            # Only now: the connection bar's labels are on the first screen, which leaves Qt's enums alone.

            QLabel.setText(self, metrics.elidedText(self._full, QtCore.Qt.TextElideMode.ElideRight, width))
        self.setToolTip(self._full if self.is_cut() else "")


def scrolling(content: QWidget, name: str) -> QScrollArea:
    """``content`` in a frameless area that scrolls it up and down when the window is too short for it, instead
    of making the window taller; it keeps the width the area is given."""
    area = QScrollArea()
    area.setAccessibleName(name)
    area.setFrameShape(QFrame.Shape.NoFrame)
    area.setWidgetResizable(True)
    area.setWidget(content)
    return area
