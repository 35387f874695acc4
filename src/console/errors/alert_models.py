"""Table models of the Alerts page: the rules, a rule's recipients and its delivery log (failures in red)."""

from __future__ import annotations

from typing import Any

from PySide6.QtCore import QModelIndex, Qt
from PySide6.QtGui import QBrush

from console.core.api.alerts import AlertDelivery, AlertRule, RecipientDraft, delivery_failing, recipient_target
from console.core.errors.alert_form import CHANNEL_LABELS
from console.core.timestamps import full_time, relative_time
from console.looks import colour
from console.table_model import HeaderedTableModel, Index


def conditions_text(rule: AlertRule) -> str:
    parts = []
    if rule.onNewError:
        parts.append("new error")
    if rule.onRegression:
        parts.append("regression")
    if rule.onMonitorFailure:
        parts.append(f"monitor {rule.monitorSlug} fails" if rule.monitorSlug else "a monitor fails")
    if rule.quantity:
        parts.append(f"{rule.quantity} events in {rule.timespanMinutes} min")
    if rule.users:
        parts.append(f"{rule.users} users in {rule.timespanMinutes} min")
    text = ", ".join(parts) or "no condition"
    if rule.environments:
        text += f" ({', '.join(rule.environments)})"
    return text


class _ListModel(HeaderedTableModel):
    def __init__(self, parent=None) -> None:
        super().__init__(parent)
        self.items: list[Any] = []

    def set_items(self, items: list[Any]) -> None:
        self.beginResetModel()
        self.items = list(items)
        self.endResetModel()

    def item_at(self, row: int) -> Any:
        return self.items[row] if 0 <= row < len(self.items) else None

    def rowCount(self, parent: Index = QModelIndex()) -> int:
        return 0 if parent.isValid() else len(self.items)

    def cell(self, item: Any, column: int) -> str:
        raise NotImplementedError

    def data(self, index: Index, role: int = Qt.ItemDataRole.DisplayRole) -> Any:
        item = self.item_at(index.row()) if index.isValid() else None
        if item is None:
            return None
        if role in (Qt.ItemDataRole.DisplayRole, Qt.ItemDataRole.ToolTipRole):
            return self.cell(item, index.column())
        return None


class RuleModel(_ListModel):
    HEADERS = ("Rule", "Conditions", "Recipients")

    def cell(self, item: AlertRule, column: int) -> str:
        return (item.name or "", conditions_text(item), str(len(item.alertRecipients)))[column]


class RecipientModel(_ListModel):
    HEADERS = ("Channel", "Target")

    def cell(self, item: RecipientDraft, column: int) -> str:
        return (CHANNEL_LABELS.get(item.recipientType, item.recipientType), recipient_target(item))[column]


class DeliveryModel(_ListModel):
    HEADERS = ("Time", "Trigger", "Channel", "Target", "Status", "Attempts", "Last error")

    def cell(self, item: AlertDelivery, column: int) -> str:
        return (relative_time(item.created), item.trigger.replace("_", " "),
                CHANNEL_LABELS.get(item.channel, item.channel), item.target or "", item.status, str(item.attempts),
                item.lastError or "")[column]

    def data(self, index: Index, role: int = Qt.ItemDataRole.DisplayRole) -> Any:
        item = self.item_at(index.row()) if index.isValid() else None
        if item is not None and role == Qt.ItemDataRole.ForegroundRole and delivery_failing(item):
            return QBrush(colour("error"))
        if item is not None and role == Qt.ItemDataRole.ToolTipRole and index.column() == 0:
            return full_time(item.created)  # the time in full where the column says "5 min ago"
        return super().data(index, role)
