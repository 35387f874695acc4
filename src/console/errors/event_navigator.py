"""The rows that walk an error's events: oldest, previous, next, latest; below them where the shown event
stands and when it happened. Narrow enough for the detail pane at the default window size."""

from __future__ import annotations

from PySide6.QtCore import Signal
from PySide6.QtGui import QPalette
from PySide6.QtWidgets import QHBoxLayout, QLabel, QToolButton, QVBoxLayout, QWidget

from console.core.api.sentry_events import Event
from console.core.timestamps import short_time
from console.fitting import ElidedLabel

TIPS = {"oldest": "Show the error's first stored event", "previous": "Show the event before this one",
        "next": "Show the event after this one", "latest": "Show the error's latest event"}


def _button(text: str, tip: str) -> QToolButton:
    button = QToolButton()
    button.setText(text)
    button.setToolTip(tip)
    return button


class EventNavigator(QWidget):
    # "oldest", "latest" or an event id: the event asked for.
    requested = Signal(str)

    def __init__(self, parent: QWidget | None = None) -> None:
        super().__init__(parent)
        self.oldest_button = _button("◀◀ Oldest", TIPS["oldest"])
        self.previous_button = _button("◀ Previous", TIPS["previous"])
        self.next_button = _button("Next ▶", TIPS["next"])
        self.latest_button = _button("Latest ▶▶", TIPS["latest"])
        self.position = QLabel()
        self.when = ElidedLabel()
        self.when.setForegroundRole(QPalette.ColorRole.PlaceholderText)  # secondary; follows the palette
        self._previous_id: str | None = None
        self._next_id: str | None = None
        self.oldest_button.clicked.connect(lambda: self.requested.emit("oldest"))
        self.latest_button.clicked.connect(lambda: self.requested.emit("latest"))
        self.previous_button.clicked.connect(lambda: self._previous_id and self.requested.emit(self._previous_id))
        self.next_button.clicked.connect(lambda: self._next_id and self.requested.emit(self._next_id))
        buttons = QHBoxLayout()
        for button in (self.oldest_button, self.previous_button, self.next_button, self.latest_button):
            buttons.addWidget(button)
        buttons.addStretch(1)
        where = QHBoxLayout()
        where.addWidget(self.position)
        where.addWidget(self.when, 1)
        layout = QVBoxLayout(self)
        layout.setContentsMargins(0, 0, 0, 0)
        layout.addLayout(buttons)
        layout.addLayout(where)
        self.clear()

    def clear(self) -> None:
        self._previous_id = self._next_id = None
        self.position.clear()
        self.when.clear()
        for button in (self.oldest_button, self.previous_button, self.next_button, self.latest_button):
            button.setEnabled(False)

    def show_event(self, event: Event, position: str) -> None:
        self._previous_id, self._next_id = event.previousEventID, event.nextEventID
        self.position.setText(position)
        details = [short_time(event.dateCreated), event.eventID[:12]]
        if event.release is not None:
            details.append(event.release.version)
        self.when.setText("  ·  ".join(part for part in details if part))
        # At the latest event there is nothing newer to go to; Refresh (F5) finds events that arrived since.
        self.previous_button.setEnabled(event.previousEventID is not None)
        self.oldest_button.setEnabled(event.previousEventID is not None)
        self.next_button.setEnabled(event.nextEventID is not None)
        self.latest_button.setEnabled(event.nextEventID is not None)

    def offer_ends(self) -> None:
        """The shown event is no longer what the position says (pruned meanwhile): the oldest and the latest
        are the ways back."""
        self.oldest_button.setEnabled(True)
        self.latest_button.setEnabled(True)
