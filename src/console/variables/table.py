"""The variables tab's table: the variables through their filter, which rows are selected, and column widths."""

from __future__ import annotations

from PySide6.QtCore import QItemSelectionModel, Qt
from PySide6.QtWidgets import QHeaderView, QTableView

from console.variables.models import VariablesFilterProxy, VariablesModel

CONTENT_SAMPLE_ROWS = 50


class VariablesTable(QTableView):
    """Shows ``proxy`` (over ``model``), sorted by key at first; rows are the model's, not the proxy's."""

    def __init__(self, model: VariablesModel, proxy: VariablesFilterProxy) -> None:
        super().__init__()
        self.variables, self.proxy = model, proxy
        self.setModel(proxy)
        self.setSortingEnabled(True)
        self.sortByColumn(VariablesModel.KEY, Qt.SortOrder.AscendingOrder)
        self.setSelectionBehavior(QTableView.SelectionBehavior.SelectRows)
        self.setAlternatingRowColors(True)
        self.setWordWrap(False)
        self.verticalHeader().hide()
        header = self.horizontalHeader()
        # Widths are fitted once per load (from the first rows), never on every change: with
        # thousands of rows, continuous fitting would freeze the window.
        header.setResizeContentsPrecision(CONTENT_SAMPLE_ROWS)
        self.verticalHeader().setResizeContentsPrecision(CONTENT_SAMPLE_ROWS)
        header.setSectionResizeMode(VariablesModel.VALUE, QHeaderView.ResizeMode.Stretch)
        header.setSectionResizeMode(VariablesModel.DESCRIPTION, QHeaderView.ResizeMode.Stretch)
        for column in (VariablesModel.PROTECTED, VariablesModel.MASKED, VariablesModel.EXPAND):
            header.resizeSection(column, header.sectionSizeHint(column))  # a check box fits under its title

    def selected_rows(self) -> list[int]:
        """The model's rows of the selected variables."""
        return sorted({self.proxy.mapToSource(index).row() for index in self.selectionModel().selectedRows()})

    def select_key(self, key: str) -> None:
        row = self.variables.row_of(key)
        if row is None:
            return
        index = self.proxy.mapFromSource(self.variables.index(row, 0))
        self.selectionModel().select(index, QItemSelectionModel.SelectionFlag.ClearAndSelect
                                     | QItemSelectionModel.SelectionFlag.Rows)
        self.scrollTo(index)

    def fit_columns(self) -> None:
        for column in (VariablesModel.KEY, VariablesModel.TYPE):
            self.resizeColumnToContents(column)
