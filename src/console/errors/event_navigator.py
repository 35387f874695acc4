"""The row that walks an error's events: oldest, previous, next, latest, and where the shown event stands."""

from __future__ import annotations

from PySide6.QtCore import Signal
from PySide6.QtGui import QPalette
from PySide6.QtWidgets import QHBoxLayout, QLabel, QPushButton, QWidget

from console.api.sentry_events import Event
from console.timestamps import short_time


class EventNavigator(QWidget):
    # "oldest", "latest" or an event id: the event asked for.
    requested = Signal(str)

    def __init__(self, parent: QWidget | None = None) -> None:
        super().__init__(parent)
        self.oldest_button = QPushButton("◀◀ Oldest")
        self.previous_button = QPushButton("◀ Previous")
        self.next_button = QPushButton("Next ▶")
        self.latest_button = QPushButton("Latest ▶▶")
        self.position = QLabel()
        self.when = QLabel()
        self.when.setForegroundRole(QPalette.ColorRole.PlaceholderText)  # secondary; follows the palette
        self._previous_id: str | None = None
        self._next_id: str | None = None
        self.oldest_button.clicked.connect(lambda: self.requested.emit("oldest"))
        self.latest_button.clicked.connect(lambda: self.requested.emit("latest"))
        self.previous_button.clicked.connect(lambda: self._previous_id and self.requested.emit(self._previous_id))
        self.next_button.clicked.connect(lambda: self._next_id and self.requested.emit(self._next_id))
        layout = QHBoxLayout(self)
        layout.setContentsMargins(0, 0, 0, 0)
        layout.addWidget(self.oldest_button)
        layout.addWidget(self.previous_button)
        layout.addWidget(self.position)
        layout.addWidget(self.next_button)
        layout.addWidget(self.latest_button)
        layout.addWidget(self.when, 1)
        self.clear()

    def clear(self) -> None:
        self._previous_id = self._next_id = None
        self.position.clear()
        self.when.clear()
        for button in (self.oldest_button, self.previous_button, self.next_button, self.latest_button):
            button.setEnabled(False)

    def show_event(self, event: Event, position: str) -> None:
        self._previous_id, self._next_id = event.previous_id, event.next_id
        self.position.setText(position)
        details = [short_time(event.date_created), event.id[:12]]
        if event.release:
            details.append(event.release)
        self.when.setText("  ·  ".join(part for part in details if part))
        self.when.setToolTip(event.id)
        # Latest stays on even at the latest: newer events may have arrived since this one was shown.
        self.previous_button.setEnabled(event.previous_id is not None)
        self.oldest_button.setEnabled(event.previous_id is not None)
        self.next_button.setEnabled(event.next_id is not None)
        self.latest_button.setEnabled(True)

    def set_position(self, position: str) -> None:
        self.position.setText(position)
