"""Tag facets of an error: per tag key its top values with their event counts and a percentage bar.

Clicking a value asks for the events that carry it (``value_chosen``).
"""

from __future__ import annotations

from typing import Any

from PySide6.QtCore import QModelIndex, QRect, Qt, Signal
from PySide6.QtGui import QPainter, QPalette, QResizeEvent
from PySide6.QtWidgets import (
    QAbstractItemView,
    QHeaderView,
    QStyle,
    QStyledItemDelegate,
    QStyleOptionViewItem,
    QTableView,
)

from console.core.api.sentry_events import tag_share
from console.looks import colour
from console.table_model import HeaderedTableModel, Index
from outpost_model.sentry_issues import TagKey, TagValue

SHARE_ROLE = int(Qt.ItemDataRole.UserRole) + 30  # the value's fraction of its key's events, 0..1
VALUE_ROLE = int(Qt.ItemDataRole.UserRole) + 31  # the row's TagValue
_DISPLAY = int(Qt.ItemDataRole.DisplayRole)
_TOOLTIP = int(Qt.ItemDataRole.ToolTipRole)
SHARE_WIDTH = 110  # the bar and its percentage
PERCENT_WIDTH = 52  # the percentage alone, where the pane is narrow
_RIGHT_ALIGNED = int(Qt.AlignmentFlag.AlignRight | Qt.AlignmentFlag.AlignVCenter)


class TagFacetModel(HeaderedTableModel):
    """One row per (key, top value); the key is written on its first row only, so keys read as groups."""

    HEADERS = ("Tag", "Value", "Events", "Share")
    KEY, VALUE, COUNT, SHARE = range(4)

    def __init__(self, parent=None) -> None:
        super().__init__(parent)
        self._rows: list[tuple[TagKey, TagValue, bool]] = []

    def set_facets(self, facets: list[TagKey]) -> None:
        self.beginResetModel()
        self._rows = [(facet, value, position == 0)
                      for facet in facets for position, value in enumerate(facet.topValues)]
        self.endResetModel()

    def value_at(self, row: int) -> TagValue | None:
        return self._rows[row][1] if 0 <= row < len(self._rows) else None

    def row_of(self, key: str, value: str) -> int:
        return next((row for row, (_facet, item, _first) in enumerate(self._rows)
                     if item.key == key and item.value == value), -1)

    def rowCount(self, parent: Index = QModelIndex()) -> int:
        return 0 if parent.isValid() else len(self._rows)

    def data(self, index: Index, role: int = _DISPLAY) -> Any:
        if not index.isValid() or not 0 <= index.row() < len(self._rows) or not 0 <= index.column() < 4:
            return None
        facet, value, first = self._rows[index.row()]
        column = index.column()
        share = tag_share(facet, value)
        if role == _DISPLAY:
            return (facet.name if first else "", value.name, value.count, f"{share:.0%}")[column]
        if role == _TOOLTIP:
            return f"{facet.name}: {value.value} — {value.count} of {facet.totalValues} events. Click to list them."
        if role == SHARE_ROLE:
            return share
        if role == VALUE_ROLE:
            return value
        if role == Qt.ItemDataRole.TextAlignmentRole and column in (self.COUNT, self.SHARE):
            return _RIGHT_ALIGNED
        return None


class ShareBarDelegate(QStyledItemDelegate):
    """The share column: a bar as wide as the value's share of its key's events, with the percentage."""

    def paint(self, painter: QPainter, option: QStyleOptionViewItem, index: Index) -> None:
        selected = bool(option.state & QStyle.StateFlag.State_Selected)
        if selected:
            painter.fillRect(option.rect, option.palette.highlight())
        share = float(index.data(SHARE_ROLE) or 0.0)
        area = option.rect.adjusted(4, 5, -48, -5)
        if area.width() >= 8:  # a narrow pane shows the percentage alone
            painter.save()
            painter.setPen(Qt.PenStyle.NoPen)
            painter.setBrush(colour("track"))
            painter.drawRect(area)
            painter.setBrush(colour("bar"))
            painter.drawRect(QRect(area.left(), area.top(), max(int(area.width() * share), 1), area.height()))
            painter.restore()
        text_area = option.rect.adjusted(option.rect.width() - 44, 0, -4, 0)
        painter.save()  # the percentage in the view's text colour, which follows the palette
        role = QPalette.ColorRole.HighlightedText if selected else QPalette.ColorRole.Text
        painter.setPen(option.palette.color(role))
        painter.drawText(text_area, _RIGHT_ALIGNED, str(index.data(_DISPLAY) or ""))
        painter.restore()


class TagFacetsView(QTableView):
    value_chosen = Signal(object)  # TagValue

    def __init__(self, parent=None) -> None:
        super().__init__(parent)
        self.facets = TagFacetModel(self)
        self.setModel(self.facets)
        self.setItemDelegateForColumn(TagFacetModel.SHARE, ShareBarDelegate(self))
        self.setSelectionBehavior(QAbstractItemView.SelectionBehavior.SelectRows)
        self.setSelectionMode(QAbstractItemView.SelectionMode.SingleSelection)
        self.verticalHeader().hide()
        self.setShowGrid(False)
        self.setWordWrap(False)
        header = self.horizontalHeader()
        metrics = self.fontMetrics()
        # Narrow enough for the detail pane at the default window size: the value takes what is left.
        for column, sample in ((TagFacetModel.KEY, "Environment"), (TagFacetModel.COUNT, "100,000")):
            header.resizeSection(column, metrics.horizontalAdvance(sample) + 24)
        header.resizeSection(TagFacetModel.SHARE, SHARE_WIDTH)
        header.setSectionResizeMode(TagFacetModel.VALUE, QHeaderView.ResizeMode.Stretch)
        self.clicked.connect(self._clicked)
        self.facets.modelReset.connect(self._share_the_width)

    def resizeEvent(self, event: QResizeEvent) -> None:
        super().resizeEvent(event)
        self._share_the_width()

    def _share_the_width(self) -> None:
        """The values, what the pane is for, get the width first: where the pane is narrow (900 px) the key and
        count columns take their widest text only (a key at most as wide as "Environment") and the share bar
        gives way to its percentage."""
        model, metrics, header = self.facets, self.fontMetrics(), self.horizontalHeader()
        if not model.rowCount():
            return

        def widest(column: int) -> int:
            texts = [str(model.HEADERS[column])] + [str(model.index(row, column).data() or "")
                                                    for row in range(model.rowCount())]
            return max(metrics.horizontalAdvance(text) for text in texts) + 24

        # A key longer than "Environment" is cut (whole in the row's tooltip), as its values matter more.
        key = min(widest(TagFacetModel.KEY), metrics.horizontalAdvance("Environment") + 24)
        count = widest(TagFacetModel.COUNT)
        room = self.viewport().width() - key - count - widest(TagFacetModel.VALUE)
        header.resizeSection(TagFacetModel.KEY, key)
        header.resizeSection(TagFacetModel.COUNT, count)
        header.resizeSection(TagFacetModel.SHARE, max(PERCENT_WIDTH, min(SHARE_WIDTH, room)))

    def _clicked(self, index: QModelIndex) -> None:
        value = self.facets.value_at(index.row())
        if value is not None:
            self.value_chosen.emit(value)

    def choose(self, key: str, value: str) -> None:
        """Select and click a value, as a person would."""
        row = self.facets.row_of(key, value)
        if row < 0:
            raise LookupError(f"{key}={value}")
        self.selectRow(row)
        self._clicked(self.facets.index(row, TagFacetModel.VALUE))
