"""An event's breadcrumbs as a timeline: time, category, level, message or data, ending with the crash itself."""

from __future__ import annotations

from typing import Any

from PySide6.QtCore import QModelIndex, Qt
from PySide6.QtGui import QBrush, QFont
from PySide6.QtWidgets import QAbstractItemView, QHeaderView, QTableView

from console.core.api.sentry_events import Event, breadcrumb_text, event_breadcrumbs, event_exceptions
from console.core.timestamps import parse_time
from console.looks import colour
from console.table_model import HeaderedTableModel, Index

CRASH_ROLE = int(Qt.ItemDataRole.UserRole) + 20  # True on the row that marks the moment of the crash
# The levels shown in colour, by the palette colour (console.looks) they are shown in.
LEVEL_COLOURS = {"error": "error", "fatal": "fatal", "warning": "warning"}
_DISPLAY = int(Qt.ItemDataRole.DisplayRole)
_TOOLTIP = int(Qt.ItemDataRole.ToolTipRole)


def clock_time(text: str | None) -> str:
    """Local time of day with milliseconds: breadcrumbs of one event are seconds apart."""
    try:
        moment = parse_time(text)
    except ValueError:
        return text or ""
    return moment.astimezone().strftime("%H:%M:%S.%f")[:-3] if moment else ""


class BreadcrumbModel(HeaderedTableModel):
    HEADERS = ("Time", "Category", "Level", "Message or data")
    TIME, CATEGORY, LEVEL, MESSAGE = range(4)

    def __init__(self, parent=None) -> None:
        super().__init__(parent)
        self._rows: list[tuple[str, str, str, str]] = []
        self._crash_row = -1
        self._levels: list[str] = []
        bold = QFont()
        bold.setBold(True)
        self._bold = bold

    def show_event(self, event: Event | None) -> None:
        self.beginResetModel()
        crumbs = event_breadcrumbs(event) if event is not None else []
        self._rows = [(clock_time(crumb.timestamp), crumb.category or crumb.type, crumb.level, breadcrumb_text(crumb))
                      for crumb in crumbs]
        self._levels = [crumb.level for crumb in crumbs]
        self._crash_row = -1
        if event is not None:
            exceptions = event_exceptions(event)
            raised = (exceptions[-1].type, exceptions[-1].value) if exceptions else ()
            what = ": ".join(str(part) for part in raised if part)
            self._rows.append((clock_time(event.dateCreated), "crash", "error", what or event.title))
            self._levels.append("error")
            self._crash_row = len(self._rows) - 1
        self.endResetModel()

    @property
    def crash_row(self) -> int:
        return self._crash_row

    def rowCount(self, parent: Index = QModelIndex()) -> int:
        return 0 if parent.isValid() else len(self._rows)

    def data(self, index: Index, role: int = _DISPLAY) -> Any:
        if not index.isValid() or not 0 <= index.row() < len(self._rows) or not 0 <= index.column() < 4:
            return None
        row, column = index.row(), index.column()
        if role in (_DISPLAY, _TOOLTIP):
            return self._rows[row][column]
        is_crash = row == self._crash_row
        if role == CRASH_ROLE:
            return is_crash
        if role == Qt.ItemDataRole.BackgroundRole and is_crash:
            return QBrush(colour("notice"))
        if role == Qt.ItemDataRole.FontRole and is_crash:
            return self._bold
        if role == Qt.ItemDataRole.ForegroundRole and column == self.LEVEL and self._levels[row] in LEVEL_COLOURS:
            return QBrush(colour(LEVEL_COLOURS[self._levels[row]]))
        return None


class BreadcrumbsView(QTableView):
    def __init__(self, parent=None) -> None:
        super().__init__(parent)
        self.crumbs = BreadcrumbModel(self)
        self.setModel(self.crumbs)
        self.verticalHeader().hide()
        self.setWordWrap(False)
        self.setSelectionBehavior(QAbstractItemView.SelectionBehavior.SelectRows)
        header = self.horizontalHeader()
        metrics = self.fontMetrics()
        # Narrow enough for the detail pane at the default window size: the message takes what is left (and
        # a cut one is whole in its tooltip).
        for column, sample in ((BreadcrumbModel.TIME, "00:00:00.000"), (BreadcrumbModel.CATEGORY, "http.client"),
                               (BreadcrumbModel.LEVEL, "warning")):
            header.resizeSection(column, metrics.horizontalAdvance(sample) + 24)
        header.setSectionResizeMode(BreadcrumbModel.MESSAGE, QHeaderView.ResizeMode.Stretch)

    def show_event(self, event: Event | None) -> None:
        self.crumbs.show_event(event)
        if self.crumbs.crash_row >= 0:
            self.scrollToBottom()  # the crash, and what led to it
