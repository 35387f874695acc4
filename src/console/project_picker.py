"""Makes a project combo box searchable (type to filter) and shows each project's unresolved errors."""

from __future__ import annotations

from PySide6.QtCore import QModelIndex, QPersistentModelIndex, Qt
from PySide6.QtGui import QPainter
from PySide6.QtWidgets import QComboBox, QCompleter, QStyledItemDelegate, QStyleOptionViewItem

COUNT_ROLE = int(Qt.ItemDataRole.UserRole) + 20


class CountDelegate(QStyledItemDelegate):
    """Paints the item as usual, then its count ("5 unresolved") at the right edge."""

    def paint(self, painter: QPainter, option: QStyleOptionViewItem,
              index: QModelIndex | QPersistentModelIndex) -> None:
        super().paint(painter, option, index)
        count = index.data(COUNT_ROLE)
        if count is None:
            return
        painter.save()
        painter.setPen(option.palette.placeholderText().color())
        rect = option.rect.adjusted(0, 0, -8, 0)
        painter.drawText(rect, int(Qt.AlignmentFlag.AlignRight | Qt.AlignmentFlag.AlignVCenter), f"{count} unresolved")
        painter.restore()


def make_searchable(combo: QComboBox) -> QCompleter:
    """Typing filters the projects by any part of their path; choosing one selects it."""
    combo.setEditable(True)
    combo.setInsertPolicy(QComboBox.InsertPolicy.NoInsert)
    line = combo.lineEdit()
    if line is not None:
        line.setPlaceholderText("Type to filter projects")
        line.setAccessibleName("Filter projects")
        line.setClearButtonEnabled(True)
    completer = QCompleter(combo.model(), combo)
    completer.setFilterMode(Qt.MatchFlag.MatchContains)
    completer.setCaseSensitivity(Qt.CaseSensitivity.CaseInsensitive)
    completer.setCompletionMode(QCompleter.CompletionMode.PopupCompletion)
    completer.activated[str].connect(  # type: ignore[index]  # PySide6 declares no overload indexing
        lambda path: combo.setCurrentIndex(combo.findText(path)))
    combo.setCompleter(completer)
    delegate = CountDelegate(combo)
    combo.setItemDelegate(delegate)
    popup = completer.popup()
    if popup is not None:
        popup.setItemDelegate(CountDelegate(popup))
    return completer


def show_counts(combo: QComboBox, counts: dict[str, str]) -> None:
    """Puts each known project's unresolved count beside it; unknown projects show none."""
    for index in range(combo.count()):
        count = counts.get(combo.itemText(index))
        combo.setItemData(index, count, COUNT_ROLE)
        combo.setItemData(index, f"{count} unresolved errors" if count is not None else None,
                          Qt.ItemDataRole.ToolTipRole)



