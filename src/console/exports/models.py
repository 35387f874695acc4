"""Table models of the exports tab: the export list and the CSV preview."""

from __future__ import annotations

import datetime as dt
from typing import Any

from PySide6.QtCore import QModelIndex, QSortFilterProxyModel, Qt

from console.core.exports.options import ExportOptions
from console.core.exports.store import ExportRecord
from console.core.timestamps import parse_time
from console.table_model import HeaderedTableModel, Index

SEVERITY_RANK = {"critical": 0, "high": 1, "medium": 2, "low": 3, "info": 4, "unknown": 5}


def utcnow() -> dt.datetime:
    return dt.datetime.now(dt.timezone.utc)


def format_duration(seconds: float) -> str:
    seconds = max(int(seconds), 0)
    hours, rest = divmod(seconds, 3600)
    minutes, seconds = divmod(rest, 60)
    if hours:
        return f"{hours} h {minutes:02d} min"
    if minutes:
        return f"{minutes} min {seconds:02d} s"
    return f"{seconds} s"


class ExportsModel(HeaderedTableModel):
    """The exports requested from this console, newest first."""

    SCOPE, WHAT, STATUS, REQUESTED, ELAPSED, TIME_LEFT, ID = range(7)
    HEADERS = ("Scope", "Format and filters", "Status", "Requested", "Elapsed", "Deleted in", "ID")
    RecordRole = Qt.ItemDataRole.UserRole + 1

    def __init__(self, parent=None) -> None:
        super().__init__(parent)
        self.records: list[ExportRecord] = []
        self.now = utcnow()

    def rowCount(self, parent: Index = QModelIndex()) -> int:
        return 0 if parent.isValid() else len(self.records)

    def data(self, index: Index, role: int = Qt.ItemDataRole.DisplayRole) -> Any:
        if not index.isValid() or not 0 <= index.row() < len(self.records):
            return None
        record = self.records[index.row()]
        if role == self.RecordRole:
            return record
        if role == Qt.ItemDataRole.DisplayRole:
            return self._text(record, index.column())
        if role == Qt.ItemDataRole.ToolTipRole and index.column() == self.SCOPE:
            return f"{record.scope_kind}: {record.scope_label}"
        if role == Qt.ItemDataRole.ToolTipRole and index.column() == self.WHAT:
            return self._text(record, self.WHAT)
        return None

    def _text(self, record: ExportRecord, column: int) -> str | None:
        created = parse_time(record.created_at)
        if column == self.SCOPE:
            if record.scope_kind == "instance":
                return record.scope_label
            return f"{record.scope_kind.title()}: {record.scope_label}"
        if column == self.WHAT:
            return ExportOptions.of(record.request, record.export_format).summary()
        if column == self.STATUS:
            return "expired (deleted)" if record.is_expired(self.now) else record.status
        if column == self.REQUESTED:
            return created.astimezone().strftime("%Y-%m-%d %H:%M:%S") if created else ""
        if column == self.ELAPSED:
            end = parse_time(record.finished_at) or (self.now if record.is_active else None)
            return format_duration((end - created).total_seconds()) if created and end else ""
        if column == self.TIME_LEFT:
            expires = parse_time(record.expires_at)
            if expires is None or record.is_expired(self.now):
                return "—"
            return format_duration((expires - self.now).total_seconds())
        if column == self.ID:
            return str(record.id)
        return None

    def set_records(self, records: list[ExportRecord]) -> None:
        self.beginResetModel()
        self.records = sorted(records, key=lambda r: r.id, reverse=True)
        self.endResetModel()

    def upsert(self, record: ExportRecord) -> None:
        for row, existing in enumerate(self.records):
            if existing.id == record.id:
                self.records[row] = record
                self.dataChanged.emit(self.index(row, 0), self.index(row, self.columnCount() - 1))
                return
        self.beginInsertRows(QModelIndex(), 0, 0)
        self.records.insert(0, record)
        self.endInsertRows()

    def remove(self, export_id: int) -> None:
        for row, existing in enumerate(self.records):
            if existing.id == export_id:
                self.beginRemoveRows(QModelIndex(), row, row)
                del self.records[row]
                self.endRemoveRows()
                return

    def tick(self, now: dt.datetime | None = None) -> None:
        """Refresh the time-dependent columns (elapsed, time left, expiry)."""
        self.now = now or utcnow()
        if self.records:
            self.dataChanged.emit(self.index(0, self.STATUS), self.index(len(self.records) - 1, self.TIME_LEFT))

    def record(self, row: int) -> ExportRecord | None:
        return self.records[row] if 0 <= row < len(self.records) else None


class PreviewModel(HeaderedTableModel):
    """The rows of a downloaded CSV; its columns are the file's."""

    def __init__(self, parent=None) -> None:
        super().__init__(parent)
        self.rows: list[list[str]] = []

    def set_csv(self, headers: list[str], rows: list[list[str]]) -> None:
        self.beginResetModel()
        self.HEADERS = tuple(headers)
        width = len(headers)
        self.rows = [row + [""] * (width - len(row)) if len(row) < width else row[:width] for row in rows]
        self.endResetModel()

    def rowCount(self, parent: Index = QModelIndex()) -> int:
        return 0 if parent.isValid() else len(self.rows)

    def headerData(self, section: int, orientation: Qt.Orientation, role: int = Qt.ItemDataRole.DisplayRole) -> Any:
        if orientation == Qt.Orientation.Vertical and role == Qt.ItemDataRole.DisplayRole:
            return section + 1  # the row number, as a spreadsheet shows it
        return super().headerData(section, orientation, role)

    def data(self, index: Index, role: int = Qt.ItemDataRole.DisplayRole) -> Any:
        if not index.isValid() or not (0 <= index.row() < len(self.rows) and 0 <= index.column() < len(self.HEADERS)):
            return None
        value = self.rows[index.row()][index.column()]
        if role in (Qt.ItemDataRole.DisplayRole, Qt.ItemDataRole.ToolTipRole):
            return value
        if role == Qt.ItemDataRole.UserRole and self.HEADERS[index.column()] == "Severity":
            return SEVERITY_RANK.get(value, len(SEVERITY_RANK))
        return None

    def column(self, name: str) -> int:
        return self.HEADERS.index(name) if name in self.HEADERS else -1


class PreviewFilterProxy(QSortFilterProxyModel):
    """Sorts the preview (severity by rank) and keeps only the chosen severity and status."""

    def __init__(self, parent=None) -> None:
        super().__init__(parent)
        self.severity: str | None = None
        self.status: str | None = None

    def set_filters(self, *, severity: str | None, status: str | None) -> None:
        self.beginFilterChange()
        self.severity, self.status = severity, status
        self.endFilterChange()

    def filterAcceptsRow(self, source_row: int, source_parent: Index) -> bool:
        model = self.sourceModel()
        if not isinstance(model, PreviewModel) or not 0 <= source_row < len(model.rows):
            return True
        row = model.rows[source_row]
        for name, wanted in (("Severity", self.severity), ("Status", self.status)):
            column = model.column(name)
            if wanted and column >= 0 and row[column] != wanted:
                return False
        return True

    def lessThan(self, left: Index, right: Index) -> bool:
        model = self.sourceModel()
        if isinstance(model, PreviewModel) and model.HEADERS[left.column()] == "Severity":
            return (left.data(Qt.ItemDataRole.UserRole) or 0) < (right.data(Qt.ItemDataRole.UserRole) or 0)
        return super().lessThan(left, right)
