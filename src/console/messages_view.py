"""The views of what the console said (console.core.messages): the notification list and the Messages view.

The status bar holds a button that counts the unread news and opens the notification list (double-click or
Enter opens what a piece of news is about); View > Messages… lists everything said since start, with its
time and kind.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

from PySide6.QtCore import QModelIndex, Qt
from PySide6.QtGui import QFont
from PySide6.QtWidgets import (
    QAbstractItemView,
    QDialog,
    QDialogButtonBox,
    QHeaderView,
    QPushButton,
    QTableView,
    QVBoxLayout,
    QWidget,
)

from console.core.messages import Kind, Message, MessageLog
from console.table_model import HeaderedTableModel, Index

TARGET_ROLE = int(Qt.ItemDataRole.UserRole) + 1


class MessageLogModel(HeaderedTableModel):
    """The log's messages of some kinds, newest first; rows are added as they are said."""

    HEADERS = ("Time", "Kind", "Message")
    TIME, KIND, TEXT = range(3)

    def __init__(self, log: MessageLog, kinds: frozenset[Kind] = frozenset(Kind), parent: Any = None) -> None:
        super().__init__(parent)
        self._kinds = kinds
        self._rows = [message for message in reversed(log.messages) if message.kind in kinds]
        self.unread = 0  # the newest rows that were news not yet read when the list was opened, or since
        self.detach = log.subscribe(self._said)  # called by its dialog when it goes

    def _said(self, message: Message) -> None:
        if message.kind in self._kinds:
            self.beginInsertRows(QModelIndex(), 0, 0)
            self._rows.insert(0, message)
            self.unread += message.kind is Kind.NEWS
            self.endInsertRows()

    def mark_unread(self, count: int) -> None:
        """The newest ``count`` rows show in bold until the list is opened again."""
        self.unread = count
        if self._rows:
            self.dataChanged.emit(self.index(0, 0), self.index(len(self._rows) - 1, len(self.HEADERS) - 1),
                                  [Qt.ItemDataRole.FontRole])

    def rowCount(self, parent: Index = QModelIndex()) -> int:
        return 0 if parent.isValid() else len(self._rows)

    def data(self, index: Index, role: int = Qt.ItemDataRole.DisplayRole) -> Any:
        if not index.isValid() or not 0 <= index.row() < len(self._rows):
            return None
        message = self._rows[index.row()]
        if role == Qt.ItemDataRole.DisplayRole:
            return (message.time.strftime("%H:%M:%S"), message.kind.value, message.text)[index.column()]
        if role == Qt.ItemDataRole.ToolTipRole:
            return f"{message.time:%Y-%m-%d %H:%M:%S}: {message.text}"
        if role == TARGET_ROLE:
            return message.target
        if role == Qt.ItemDataRole.FontRole and index.row() < self.unread:
            bold = QFont()
            bold.setBold(True)
            return bold
        return None


class MessagesDialog(QDialog):
    """A table of messages; for news, opening a row opens what it is about."""

    def __init__(self, title: str, model: MessageLogModel, parent: QWidget,
                 open_target: Callable[[Any], object] | None = None) -> None:
        super().__init__(parent)
        self.setWindowTitle(title)
        self.resize(720, 420)
        self.model = model
        model.setParent(self)
        self.table = QTableView()
        self.table.setAccessibleName(title)
        self.table.setModel(model)
        self.table.verticalHeader().hide()
        self.table.setSelectionBehavior(QAbstractItemView.SelectionBehavior.SelectRows)
        self.table.setEditTriggers(QAbstractItemView.EditTrigger.NoEditTriggers)
        self.table.setWordWrap(False)
        header = self.table.horizontalHeader()
        header.setSectionResizeMode(QHeaderView.ResizeMode.ResizeToContents)
        header.setSectionResizeMode(MessageLogModel.TEXT, QHeaderView.ResizeMode.Stretch)
        self._open_target = open_target
        if open_target is not None:
            self.table.activated.connect(self._open)
            self.table.doubleClicked.connect(self._open)
        buttons = QDialogButtonBox(QDialogButtonBox.StandardButton.Close)
        buttons.rejected.connect(self.reject)
        layout = QVBoxLayout(self)
        layout.addWidget(self.table, 1)
        layout.addWidget(buttons)

    def done(self, result: int) -> None:
        if self.testAttribute(Qt.WidgetAttribute.WA_DeleteOnClose):
            self.model.detach()  # the log outlives this view
        super().done(result)

    def _open(self, index: QModelIndex) -> None:
        target = index.data(TARGET_ROLE)
        if target is not None and self._open_target is not None:
            self.close()  # out of the way of what it opens; the button opens it again
            self._open_target(target)


class NotificationsButton(QPushButton):
    """In the status bar: how much news is unread; opens the notification list, which reads it."""

    def __init__(self, log: MessageLog, open_target: Callable[[Any], object]) -> None:
        super().__init__()
        self.setFlat(True)
        self.setAccessibleName("Notifications")
        self.log = log
        self.list: MessagesDialog | None = None
        self._open_target = open_target
        self.clicked.connect(self.open_list)
        log.subscribe(lambda message: self._render() if message.kind is Kind.NEWS else None)
        log.on_read(self._render)
        self._render()

    def _render(self) -> None:
        unread = self.log.unread
        self.setText(f"Notifications: {unread} new" if unread else "Notifications")
        news = self.log.news()
        self.setToolTip(news[-1].text if news else "No news from the server since the console started")
        font = self.font()
        font.setBold(bool(unread))
        self.setFont(font)

    def open_list(self) -> MessagesDialog:
        if self.list is None:
            self.list = MessagesDialog("Notifications", MessageLogModel(self.log, frozenset({Kind.NEWS})),
                                       self.window(), self._open_target)
            self.list.table.hideColumn(MessageLogModel.KIND)  # all of it is news
        self.list.model.mark_unread(self.log.unread)
        self.list.show()
        self.list.raise_()
        self.log.mark_read()
        return self.list
