"""Qt models of the variables tab: the variables table, its filter, and an import's changes."""

from __future__ import annotations

from typing import Any

from PySide6.QtCore import QModelIndex, QSortFilterProxyModel, Qt

from console.core.api.variables import FILE, Variable, value_of
from console.core.variables.bulk import ADDED, CHANGED, INVALID, REMOVED, UNCHANGED, ImportPlan
from console.looks import colour
from console.table_model import HeaderedTableModel, Index

HIDDEN_VALUE = "•" * 8
TYPE_LABELS = {FILE: "File"}


def _one_line(text: str, limit: int = 80) -> str:
    first, *rest = text.splitlines() or [""]
    shortened = first if len(first) <= limit else first[: limit - 1] + "…"
    return shortened + (" …" if rest and shortened == first else "")


class VariablesModel(HeaderedTableModel):
    """Instance variables, one per row. Masked values stay hidden until revealed row by row."""

    KEY, VALUE, TYPE, PROTECTED, MASKED, EXPAND, DESCRIPTION = range(7)
    HEADERS = ("Key", "Value", "Type", "Protected", "Masked", "Expand variable reference", "Description")
    FLAG_COLUMNS = {PROTECTED: "protected", MASKED: "masked"}

    def __init__(self, parent=None) -> None:
        super().__init__(parent)
        self._variables: list[Variable] = []
        self._revealed: set[str] = set()
        self._sort_column = self.KEY
        self._sort_order = Qt.SortOrder.AscendingOrder

    # data access -----------------------------------------------------------------------------
    @property
    def variables(self) -> list[Variable]:
        return list(self._variables)

    def variable(self, row: int) -> Variable:
        return self._variables[row]

    def row_of(self, key: str) -> int | None:
        return next((row for row, variable in enumerate(self._variables) if variable.key == key), None)

    def set_variables(self, variables: list[Variable]) -> None:
        self.beginResetModel()
        self._variables = sorted(variables, key=self._sort_key, reverse=self._descending)
        self._revealed.clear()  # a reloaded table shows every masked value hidden again
        self.endResetModel()

    def upsert(self, variable: Variable) -> None:
        row = self.row_of(variable.key)
        if row is None:
            position = self._insertion_row(variable)
            self.beginInsertRows(QModelIndex(), position, position)
            self._variables.insert(position, variable)
            self.endInsertRows()
        else:
            self._variables[row] = variable
            self._revealed.discard(variable.key)  # a changed value is hidden again
            self._row_changed(row)

    def remove(self, key: str) -> None:
        row = self.row_of(key)
        if row is not None:
            self.beginRemoveRows(QModelIndex(), row, row)
            del self._variables[row]
            self.endRemoveRows()
            self._revealed.discard(key)

    def is_hidden(self, row: int) -> bool:
        variable = self._variables[row]
        return variable.masked and variable.key not in self._revealed

    def hide_unless(self, rows: list[int]) -> None:
        """Hide every revealed value but those of ``rows`` (the selection): a value is revealed only while
        it is selected."""
        keep = {self._variables[row].key for row in rows}
        for row, variable in enumerate(self._variables):
            if variable.key in self._revealed and variable.key not in keep:
                self._revealed.discard(variable.key)
                self._row_changed(row)

    def set_revealed(self, row: int, revealed: bool) -> None:
        key = self._variables[row].key
        if revealed:
            self._revealed.add(key)
        else:
            self._revealed.discard(key)
        self._row_changed(row)

    # sorting ---------------------------------------------------------------------------------
    # Sorting happens here, in one Python sort with precomputed keys, rather than in the proxy:
    # the proxy would call data() twice per comparison, which stalls the UI with thousands of rows.
    @property
    def _descending(self) -> bool:
        return self._sort_order == Qt.SortOrder.DescendingOrder

    def _sort_key(self, variable: Variable) -> tuple:
        column = self._sort_column
        if column in (self.PROTECTED, self.MASKED, self.EXPAND):
            primary: object = int(self._flag(variable, column))
        elif column == self.VALUE:
            # Hidden values sort together, so their order reveals nothing.
            primary = "" if variable.masked and variable.key not in self._revealed else value_of(variable).lower()
        elif column == self.TYPE:
            primary = TYPE_LABELS.get(variable.variable_type, "Variable").lower()
        elif column == self.DESCRIPTION:
            primary = (variable.description or "").lower()
        else:
            primary = variable.key.lower()
        return primary, variable.key.lower(), variable.key

    def _insertion_row(self, variable: Variable) -> int:
        key = self._sort_key(variable)
        for row, other in enumerate(self._variables):
            other_key = self._sort_key(other)
            if (other_key < key) == self._descending and other_key != key:
                return row
        return len(self._variables)

    def sort(self, column: int, order: Qt.SortOrder = Qt.SortOrder.AscendingOrder) -> None:
        self._sort_column, self._sort_order = column, order
        self.layoutAboutToBeChanged.emit()
        persistent = self.persistentIndexList()
        keys = [self._variables[index.row()].key for index in persistent]
        self._variables.sort(key=self._sort_key, reverse=self._descending)
        rows = {variable.key: row for row, variable in enumerate(self._variables)}
        self.changePersistentIndexList(persistent, [self.index(rows[key], index.column())
                                                    for key, index in zip(keys, persistent, strict=True)])
        self.layoutChanged.emit()

    def _row_changed(self, row: int) -> None:
        self.dataChanged.emit(self.index(row, 0), self.index(row, self.columnCount() - 1))

    # Qt model interface ----------------------------------------------------------------------
    def rowCount(self, parent: Index = QModelIndex()) -> int:
        return 0 if parent.isValid() else len(self._variables)

    def headerData(self, section: int, orientation: Qt.Orientation, role: int = Qt.ItemDataRole.DisplayRole) -> Any:
        if orientation == Qt.Orientation.Horizontal and role == Qt.ItemDataRole.ToolTipRole and section == self.EXPAND:
            return "Whether $VARIABLE references in the value are expanded (unchecked = raw value)"
        return super().headerData(section, orientation, role)

    def _flag(self, variable: Variable, column: int) -> bool:
        if column == self.EXPAND:
            return not variable.raw
        return getattr(variable, self.FLAG_COLUMNS[column])

    def data(self, index: Index, role: int = Qt.ItemDataRole.DisplayRole) -> Any:
        if not index.isValid() or not 0 <= index.row() < len(self._variables):
            return None
        variable, column = self._variables[index.row()], index.column()
        is_flag = column in (self.PROTECTED, self.MASKED, self.EXPAND)
        if role == Qt.ItemDataRole.DisplayRole:
            if column == self.KEY:
                return variable.key
            if column == self.VALUE:
                return HIDDEN_VALUE if self.is_hidden(index.row()) else _one_line(value_of(variable))
            if column == self.TYPE:
                return TYPE_LABELS.get(variable.variable_type, "Variable")
            if column == self.DESCRIPTION:
                return variable.description or ""
            return None
        if role == Qt.ItemDataRole.CheckStateRole and is_flag:
            return Qt.CheckState.Checked if self._flag(variable, column) else Qt.CheckState.Unchecked
        if role == Qt.ItemDataRole.ToolTipRole:
            if column == self.VALUE:
                return "Masked: select the row and choose Reveal to show it" if self.is_hidden(index.row()) else None
            if column == self.DESCRIPTION and variable.description:
                return variable.description
            return None
        return None


class VariablesFilterProxy(QSortFilterProxyModel):
    """Keeps rows whose key, description or visible value match; sorting is passed to the source."""

    def __init__(self, parent=None) -> None:
        super().__init__(parent)
        self.setFilterCaseSensitivity(Qt.CaseSensitivity.CaseInsensitive)

    def sort(self, column: int, order: Qt.SortOrder = Qt.SortOrder.AscendingOrder) -> None:
        self.sourceModel().sort(column, order)

    def filterAcceptsRow(self, source_row: int, source_parent: Index) -> bool:
        needle = self.filterRegularExpression().pattern().lower()
        if not needle:
            return True
        model = self.sourceModel()
        assert isinstance(model, VariablesModel), "the proxy filters a VariablesModel"
        variable = model.variable(source_row)
        haystack = [variable.key, variable.description or ""]
        if not model.is_hidden(source_row):
            haystack.append(value_of(variable))
        return any(needle in text.lower() for text in haystack)

    def set_filter_text(self, text: str) -> None:
        self.setFilterFixedString(text.strip())


KIND_LABELS = {ADDED: "Add", CHANGED: "Change", REMOVED: "Remove", UNCHANGED: "Unchanged", INVALID: "Invalid"}


class ImportPlanModel(HeaderedTableModel):
    """The changes an import would make, and the result of each once applied."""

    CHANGE, KEY, DETAILS, RESULT = range(4)
    HEADERS = ("Change", "Key", "Details", "Result")

    def __init__(self, parent=None) -> None:
        super().__init__(parent)
        self.plan = ImportPlan()
        self._results: dict[int, str] = {}
        self._failed: set[int] = set()

    def set_plan(self, plan: ImportPlan) -> None:
        self.beginResetModel()
        self.plan = plan
        self._results.clear()
        self._failed.clear()
        self.endResetModel()

    def set_result(self, row: int, text: str, *, failed: bool) -> None:
        self.set_results([(row, text, failed)])

    def set_results(self, results: list[tuple[int, str, bool]]) -> None:
        """Record many results with a single change notification (one repaint)."""
        if not results:
            return
        for row, text, failed in results:
            self._results[row] = text
            if failed:
                self._failed.add(row)
        rows = [row for row, _, _ in results]
        self.dataChanged.emit(self.index(min(rows), 0), self.index(max(rows), self.columnCount() - 1))

    def failed_rows(self) -> list[int]:
        return sorted(self._failed)

    def result(self, row: int) -> str:
        return self._results.get(row, "")

    def rowCount(self, parent: Index = QModelIndex()) -> int:
        return 0 if parent.isValid() else len(self.plan.items)


    def data(self, index: Index, role: int = Qt.ItemDataRole.DisplayRole) -> Any:
        if not index.isValid() or not 0 <= index.row() < len(self.plan.items):
            return None
        item, column = self.plan.items[index.row()], index.column()
        if role in (Qt.ItemDataRole.DisplayRole, Qt.ItemDataRole.ToolTipRole):
            if column == self.CHANGE:
                return KIND_LABELS[item.kind]
            if column == self.KEY:
                return item.variable.key
            if column == self.DETAILS:
                if item.problems:
                    return " ".join(item.problems)
                if item.changed:
                    return "Changes " + ", ".join(name.replace("_", " ") for name in item.changed)
                return ""
            return self._results.get(index.row(), "")
        if role == Qt.ItemDataRole.ForegroundRole and (item.kind == INVALID or index.row() in self._failed):
            return colour("error")
        return None
