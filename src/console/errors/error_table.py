"""The error list's table: fixed column widths from the font, the columns the detail shows hidden until the
header's context menu brings them back."""

from __future__ import annotations

from PySide6.QtCore import Qt
from PySide6.QtGui import QAction, QResizeEvent
from PySide6.QtWidgets import QAbstractItemView, QHeaderView, QTableView

from console.core.timestamps import WIDEST_RELATIVE
from console.errors.frequency import FrequencyBarDelegate
from console.errors.models import ErrorListModel

# Shown in the detail pane; hidden from the list so that, at the default window size, the title has room
# and the status and frequency bars stay in view.
# Assignee too: with it the list's columns no longer fit at 900 px; the header's menu shows it, and the
# "Assigned to me" filter is one click.
DETAIL_ONLY_COLUMNS = (ErrorListModel.TYPE, ErrorListModel.USERS, ErrorListModel.FIRST_SEEN, ErrorListModel.ASSIGNEE)
# The least share of the list's width the Error column keeps when the list is narrow.
TITLE_SHARE = 1 / 3
UNLIMITED = 1 << 30


class ErrorTable(QTableView):
    def __init__(self, model: ErrorListModel) -> None:
        super().__init__()
        self.setModel(model)
        self.setSelectionBehavior(QAbstractItemView.SelectionBehavior.SelectRows)
        # Several rows at once for triage (Resolve, Ignore, Assign, Merge of the selection).
        self.setSelectionMode(QAbstractItemView.SelectionMode.ExtendedSelection)
        self.setItemDelegateForColumn(ErrorListModel.TREND, FrequencyBarDelegate(self))
        self.verticalHeader().hide()
        self.setWordWrap(False)
        # Resolve, Ignore and Unresolve exist once: the detail's buttons, and in the console the Errors
        # menu's actions, which the window also puts on this list's context menu.
        self.setContextMenuPolicy(Qt.ContextMenuPolicy.ActionsContextMenu)
        # Fixed widths from the font, not ResizeToContents: measuring every cell on each page is slow.
        header = self.horizontalHeader()
        metrics = self.fontMetrics()
        samples = {ErrorListModel.TYPE: ["default"], ErrorListModel.EVENTS: ["1,000,000"],
                   ErrorListModel.USERS: ["100,000"], ErrorListModel.FIRST_SEEN: [*WIDEST_RELATIVE, "First seen"],
                   ErrorListModel.LAST_SEEN: [*WIDEST_RELATIVE, "Last seen"], ErrorListModel.STATUS: ["Unresolved"],
                   ErrorListModel.TREND: ["Last 24 hours"], ErrorListModel.ASSIGNEE: ["Assignee", "Firstname Last"]}
        self.squeezed: dict[int, int] = {}  # column: its width before the list got too narrow for it
        self.natural_widths = {column: max(map(metrics.horizontalAdvance, texts)) + 24
                               for column, texts in samples.items()}
        for column, width in self.natural_widths.items():
            header.resizeSection(column, width)
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
            toggle.toggled.connect(lambda shown, column=column: self._show_column(column, shown))
            header.addAction(toggle)
        self.verticalHeader().setSectionResizeMode(QHeaderView.ResizeMode.Fixed)
        self.verticalHeader().setDefaultSectionSize(metrics.height() + 10)

    def resizeEvent(self, event: QResizeEvent) -> None:
        super().resizeEvent(event)
        self.share_width()

    def share_width(self) -> None:
        """The Error column keeps at least TITLE_SHARE of the width: on a narrow list the other columns give up
        space in proportion to their usual widths (their text is cut with "…"), and get back the widths they
        had (the user's, if they set them) when there is room again."""
        shown = [column for column in self.natural_widths if not self.isColumnHidden(column)]
        wanted = sum(self.natural_widths[column] for column in shown)
        room = self.viewport().width() * (1 - TITLE_SHARE)
        scale = min(1.0, room / wanted) if wanted else 1.0
        header = self.horizontalHeader()
        for column in shown:
            width = header.sectionSize(column)
            most = int(self.natural_widths[column] * scale) if scale < 1 else UNLIMITED
            before = self.squeezed.get(column)
            if width > most:
                self.squeezed.setdefault(column, width)
                header.resizeSection(column, max(header.minimumSectionSize(), most))
            elif before is not None:
                header.resizeSection(column, min(before, most))
                if most >= before:
                    del self.squeezed[column]

    def _show_column(self, column: int, shown: bool) -> None:
        self.setColumnHidden(column, not shown)
        self.share_width()
