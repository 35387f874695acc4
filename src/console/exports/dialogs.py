"""The CSV preview of a finished export: sortable, filterable by severity and status."""

from __future__ import annotations

from PySide6.QtCore import Qt
from PySide6.QtWidgets import (
    QComboBox,
    QDialog,
    QDialogButtonBox,
    QHBoxLayout,
    QHeaderView,
    QLabel,
    QTableView,
    QVBoxLayout,
    QWidget,
)

from console.exports.columns import DEFAULT_SAMPLE, PREVIEW_FIRST, PREVIEW_SAMPLES, size_columns
from console.exports.models import SEVERITY_RANK, PreviewFilterProxy, PreviewModel

STATUSES = ("detected", "confirmed", "resolved", "dismissed")
ALL = "All"
class PreviewDialog(QDialog):
    def __init__(self, title: str, headers: list[str], rows: list[list[str]], *, truncated: bool,
                 parent: QWidget | None = None) -> None:
        super().__init__(parent)
        self.setWindowTitle(f"Preview: {title}")
        self.resize(1100, 600)
        self.model = PreviewModel(self)
        self.model.set_csv(headers, rows)
        self.proxy = PreviewFilterProxy(self)
        self.proxy.setSourceModel(self.model)
        self.table = QTableView()
        self.table.setObjectName("previewTable")  # its columns are remembered per profile (console.window_state)
        self.table.setModel(self.proxy)
        self.table.setSortingEnabled(True)
        self.table.setWordWrap(False)
        self.table.setAlternatingRowColors(True)
        self.table.horizontalHeader().setSectionResizeMode(QHeaderView.ResizeMode.Interactive)
        self._lay_out_columns(headers)

        self.severity_filter = QComboBox()
        self.severity_filter.addItems([ALL, *SEVERITY_RANK])
        self.status_filter = QComboBox()
        self.status_filter.addItems([ALL, *STATUSES])
        self.severity_filter.currentTextChanged.connect(self._apply_filters)
        self.status_filter.currentTextChanged.connect(self._apply_filters)
        self.count_label = QLabel()
        filters = QHBoxLayout()
        filters.addWidget(QLabel("Severity"))
        filters.addWidget(self.severity_filter)
        filters.addWidget(QLabel("Status"))
        filters.addWidget(self.status_filter)
        filters.addStretch(1)
        filters.addWidget(self.count_label)
        buttons = QDialogButtonBox(QDialogButtonBox.StandardButton.Close)
        buttons.rejected.connect(self.reject)
        layout = QVBoxLayout(self)
        layout.addLayout(filters)
        layout.addWidget(self.table, 1)
        if truncated:
            layout.addWidget(QLabel("The export is large: the preview shows its beginning. Save it to see every row."))
        layout.addWidget(buttons)
        self._apply_filters()

    def _lay_out_columns(self, headers: list[str]) -> None:
        """What triage reads first comes first (severity, status, the vulnerability, where), each column as wide
        as its usual text; the rest follow in the file's order."""
        header = self.table.horizontalHeader()
        size_columns(self.table, {column: PREVIEW_SAMPLES.get(name, DEFAULT_SAMPLE)
                                  for column, name in enumerate(headers)})
        for visual, name in enumerate(name for name in PREVIEW_FIRST if name in headers):
            header.moveSection(header.visualIndex(headers.index(name)), visual)

    def _apply_filters(self) -> None:
        severity = self.severity_filter.currentText()
        status = self.status_filter.currentText()
        self.proxy.set_filters(severity=None if severity == ALL else severity, status=None if status == ALL else status)
        self.count_label.setText(f"{self.proxy.rowCount()} of {self.model.rowCount()} vulnerabilities")

    def sort_by(self, header: str, order: Qt.SortOrder = Qt.SortOrder.AscendingOrder) -> None:
        self.table.sortByColumn(self.model.column(header), order)
