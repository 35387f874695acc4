"""The error list's table: fixed column widths from the font, the columns the detail shows hidden until the
header's context menu brings them back."""

from __future__ import annotations

from PySide6.QtCore import Qt
from PySide6.QtGui import QAction
from PySide6.QtWidgets import QAbstractItemView, QHeaderView, QTableView

from console.errors.frequency import FrequencyBarDelegate
from console.errors.models import ErrorListModel

# Shown in the detail pane; hidden from the list so that, at the default window size, the title has room
# and the status and frequency bars stay in view.
DETAIL_ONLY_COLUMNS = (ErrorListModel.TYPE, ErrorListModel.USERS, ErrorListModel.FIRST_SEEN)


class ErrorTable(QTableView):
    def __init__(self, model: ErrorListModel) -> None:
        super().__init__()
        self.setModel(model)
        self.setSelectionBehavior(QAbstractItemView.SelectionBehavior.SelectRows)
        self.setSelectionMode(QAbstractItemView.SelectionMode.SingleSelection)
        self.setItemDelegateForColumn(ErrorListModel.TREND, FrequencyBarDelegate(self))
        self.verticalHeader().hide()
        self.setWordWrap(False)
        # Resolve, Ignore and Unresolve exist once: the detail's buttons, and in the console the Errors
        # menu's actions, which the window also puts on this list's context menu.
        self.setContextMenuPolicy(Qt.ContextMenuPolicy.ActionsContextMenu)
        # Fixed widths from the font, not ResizeToContents: measuring every cell on each page is slow.
        header = self.horizontalHeader()
        metrics = self.fontMetrics()
        samples = {ErrorListModel.TYPE: "default", ErrorListModel.EVENTS: "1,000,000", ErrorListModel.USERS: "100,000",
                   ErrorListModel.FIRST_SEEN: "2026-12-31 23:59", ErrorListModel.LAST_SEEN: "2026-12-31 23:59",
                   ErrorListModel.STATUS: "Unresolved", ErrorListModel.TREND: "Last 24 hours"}
        for column, sample in samples.items():
            header.resizeSection(column, metrics.horizontalAdvance(sample) + 24)
        header.setSectionResizeMode(ErrorListModel.TITLE, QHeaderView.ResizeMode.Stretch)
        # At the default window size the list shows what triage needs, frequency bars included; the
        # detail shows the rest, and the header's context menu brings any column back.
        for column in DETAIL_ONLY_COLUMNS:
            self.setColumnHidden(column, True)
        header.setContextMenuPolicy(Qt.ContextMenuPolicy.ActionsContextMenu)
        for column, title in enumerate(ErrorListModel.HEADERS):
            if column == ErrorListModel.TITLE:
                continue
            toggle = QAction(f"Show {title}", header)
            toggle.setCheckable(True)
            toggle.setChecked(not self.isColumnHidden(column))
            toggle.toggled.connect(lambda shown, column=column: self.setColumnHidden(column, not shown))
            header.addAction(toggle)
        self.verticalHeader().setSectionResizeMode(QHeaderView.ResizeMode.Fixed)
        self.verticalHeader().setDefaultSectionSize(metrics.height() + 10)
