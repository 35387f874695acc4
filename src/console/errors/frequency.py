"""The "Last 24 hours" column: each error's hourly counts painted as a small bar chart."""

from __future__ import annotations

from PySide6.QtCore import QRect, Qt
from PySide6.QtGui import QPainter
from PySide6.QtWidgets import QStyle, QStyledItemDelegate, QStyleOptionViewItem

from console.errors.models import FREQUENCY_ROLE
from console.looks import colour
from console.table_model import Index


class FrequencyBarDelegate(QStyledItemDelegate):
    """Paints the last 24 hours' counts as a small bar chart."""

    def paint(self, painter: QPainter, option: QStyleOptionViewItem, index: Index) -> None:
        counts = index.data(FREQUENCY_ROLE) or []
        selected = bool(option.state & QStyle.StateFlag.State_Selected)
        if selected:
            painter.fillRect(option.rect, option.palette.highlight())
        if not counts:
            return
        peak = max(counts) or 1
        area = option.rect.adjusted(4, 4, -4, -4)
        width = max(area.width() / len(counts), 1.0)
        painter.save()
        painter.setPen(Qt.PenStyle.NoPen)
        # On the selection's colour the bars take the selected text's: the dark theme's light blue selection
        # hid its light purple bars.
        painter.setBrush(option.palette.highlightedText() if selected else colour("bar"))
        for position, count in enumerate(counts):
            if count <= 0:
                continue
            height = max(int(area.height() * count / peak), 1)
            left = area.left() + int(position * width)
            painter.drawRect(QRect(left, area.bottom() - height + 1, max(int(width) - 1, 1), height))
        painter.restore()
