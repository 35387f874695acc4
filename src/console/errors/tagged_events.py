"""The events that carry a chosen tag value (an error's event list filtered by tag); choosing one shows it."""

from __future__ import annotations

from typing import Any

from PySide6.QtCore import QModelIndex, Qt, Signal
from PySide6.QtWidgets import QAbstractItemView, QHeaderView, QTableView

from console.core.api.sentry_events import event_tags, event_user_label
from console.core.timestamps import short_time
from console.table_model import HeaderedTableModel, Index
from outpost_model.sentry_events import EventSummary

_DISPLAY = int(Qt.ItemDataRole.DisplayRole)


class TaggedEventsModel(HeaderedTableModel):
    HEADERS = ("Time", "Event", "User", "Release", "Environment")
    TIME, EVENT, USER, RELEASE, ENVIRONMENT = range(5)

    def __init__(self, parent=None) -> None:
        super().__init__(parent)
        self._events: list[EventSummary] = []
        self._texts: list[tuple[str, ...]] = []
        self.more_available = False

    def set_events(self, events: list[EventSummary], *, more_available: bool = False) -> None:
        self.beginResetModel()
        self._events = list(events)
        self._texts = [(short_time(event.dateCreated), event.eventID[:12], event_user_label(event),
                        event_tags(event).get("release", ""), event_tags(event).get("environment", ""))
                       for event in events]
        self.more_available = more_available
        self.endResetModel()

    def event_at(self, row: int) -> EventSummary | None:
        return self._events[row] if 0 <= row < len(self._events) else None

    def rowCount(self, parent: Index = QModelIndex()) -> int:
        return 0 if parent.isValid() else len(self._events)

    def data(self, index: Index, role: int = _DISPLAY) -> Any:
        if not index.isValid() or not 0 <= index.row() < len(self._events) or not 0 <= index.column() < 5:
            return None
        if role == _DISPLAY:
            return self._texts[index.row()][index.column()]
        if role == Qt.ItemDataRole.ToolTipRole and index.column() == self.EVENT:
            return self._events[index.row()].id
        return None


class TaggedEventsView(QTableView):
    event_chosen = Signal(str)  # event id

    def __init__(self, parent=None) -> None:
        super().__init__(parent)
        self.events = TaggedEventsModel(self)
        self.setModel(self.events)
        self.setSelectionBehavior(QAbstractItemView.SelectionBehavior.SelectRows)
        self.setSelectionMode(QAbstractItemView.SelectionMode.SingleSelection)
        self.verticalHeader().hide()
        self.setWordWrap(False)
        self.horizontalHeader().setSectionResizeMode(QHeaderView.ResizeMode.Stretch)
        self.clicked.connect(self._clicked)

    def _clicked(self, index: QModelIndex) -> None:
        event = self.events.event_at(index.row())
        if event is not None:
            self.event_chosen.emit(event.id)

    def choose(self, row: int) -> None:
        self.selectRow(row)
        self._clicked(self.events.index(row, TaggedEventsModel.EVENT))
