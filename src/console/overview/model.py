"""The overview's per-project error table."""

from __future__ import annotations

from typing import Any

from PySide6.QtCore import QModelIndex, Qt

from console.core.overview.data import Count, ProjectErrors
from console.errors.models import FREQUENCY_ROLE
from console.table_model import HeaderedTableModel, Index

_ROOT = QModelIndex()
PROJECT_ROLE = int(Qt.ItemDataRole.UserRole) + 10
_DISPLAY = int(Qt.ItemDataRole.DisplayRole)
_TOOLTIP = int(Qt.ItemDataRole.ToolTipRole)
_ALIGNMENT = int(Qt.ItemDataRole.TextAlignmentRole)
_RIGHT_ALIGNED = int(Qt.AlignmentFlag.AlignRight | Qt.AlignmentFlag.AlignVCenter)


class ProjectErrorsModel(HeaderedTableModel):
    HEADERS = ("Project", "New in 24 hours", "Unresolved", "Regressions", "Failing monitors", "Last 24 hours")
    PROJECT, NEW, UNRESOLVED, REGRESSIONS, MONITORS, TREND = range(6)

    def __init__(self, parent: Any = None) -> None:
        super().__init__(parent)
        self._rows: list[ProjectErrors] = []

    @property
    def rows(self) -> list[ProjectErrors]:
        return list(self._rows)

    def set_rows(self, rows: list[ProjectErrors]) -> None:
        self.beginResetModel()
        self._rows = list(rows)
        self.endResetModel()

    def rowCount(self, parent: Index = _ROOT) -> int:
        return 0 if parent.isValid() else len(self._rows)

    def _count(self, row: ProjectErrors, column: int) -> Count | None:
        return {self.NEW: row.new_today, self.UNRESOLVED: row.unresolved, self.REGRESSIONS: row.regressions,
                self.MONITORS: row.failing_monitors}.get(column)

    def data(self, index: Index, role: int = _DISPLAY) -> Any:
        if not index.isValid() or not 0 <= index.row() < len(self._rows):
            return None
        row, column = self._rows[index.row()], index.column()
        count = self._count(row, column)
        if role == _DISPLAY:
            if column == self.PROJECT:
                return row.path
            return count.text if count is not None else None
        if role == _TOOLTIP:
            if count is not None and count.value is None:
                return f"Not available: {count.reason}"
            if count is not None and count.capped:
                return "At least this many; open the project to see them all"
            if column == self.TREND:
                return f"{sum(row.frequency)} events in the last 24 hours"
            return f"Open {row.path} in Error tracking"
        if role == _ALIGNMENT and count is not None:
            return _RIGHT_ALIGNED
        if role == FREQUENCY_ROLE and column == self.TREND:
            return list(row.frequency)
        if role == PROJECT_ROLE:
            return row.path
        return None
