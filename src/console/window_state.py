"""What the console remembers per connection profile (server and user): last tab, sort orders,
splitter proportions, the error tracking project and the watch settings. Never secrets.

The names they are kept under, and how kept values read back, are console.core.settings_keys' (no Qt); this
module reads and writes them."""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

from PySide6 import QtCore  # its Qt namespace only at call time: made on first touch, costly for a first frame
from PySide6.QtCore import QByteArray, QSettings
from PySide6.QtWidgets import QComboBox, QSplitter, QTableView

from console.context import AppContext
from console.core import settings_keys as keys

if TYPE_CHECKING:
    from PySide6.QtWidgets import QWidget

# The object name of a combo box that chooses a sort order (the error list's, which the server sorts):
# remember_views keeps its choice like a table's sort order.
SORT_CHOOSER = "sortChooser"


class ProfileState:
    """Reads and writes settings under the connected profile's group; without a connection nothing is kept."""

    def __init__(self, settings: QSettings, context: AppContext) -> None:
        self._settings = settings
        self._context = context

    def _key(self, name: str) -> str | None:
        return keys.profile_setting(self._context.profile_key, name)

    def value(self, name: str, default: Any = None) -> Any:
        key = self._key(name)
        return default if key is None else self._settings.value(key, default)

    def set_value(self, name: str, value: Any) -> None:
        key = self._key(name)
        if key is not None:
            self._settings.setValue(key, value)

    # typed helpers ------------------------------------------------------------------
    def text(self, name: str) -> str | None:
        return keys.as_text(self.value(name))

    def flag(self, name: str, default: bool = False) -> bool:
        return keys.as_flag(self.value(name, default))

    def number(self, name: str, default: int) -> int:
        return keys.as_number(self.value(name, default), default)

    def texts(self, name: str) -> list[str]:
        return keys.as_texts(self.value(name, []))

    @property
    def watch_enabled(self) -> bool:
        return self.flag(keys.WATCH_ENABLED)

    @property
    def watch_seconds(self) -> int:
        return keys.watch_seconds(self.value(keys.WATCH_INTERVAL, keys.DEFAULT_WATCH_SECONDS))

    @property
    def watched_projects(self) -> list[str]:
        return self.texts(keys.WATCH_PROJECTS)

    def remember_views(self, tab_name: str, widget: QWidget) -> None:
        """Restores, then keeps saving, the sort order of each sortable table and each sort chooser, each
        splitter's sizes and each named table's columns (widths and order). A widget that adds views later (a
        dialog) announces each through its ``views_added`` signal."""
        tables = [table for table in widget.findChildren(QTableView) if table.objectName()]
        for table in tables:  # named: their columns as the user left them, kept under their name
            self._remember_columns(keys.table_columns(tab_name, table.objectName()), table)
        sortable = [(keys.table_sort(tab_name, table.objectName()), table) for table in tables
                    if table.isSortingEnabled()]
        sortable += [(keys.unnamed_table_sort(tab_name, number), table) for number, table in enumerate(
            table for table in widget.findChildren(QTableView) if table.isSortingEnabled() and not table.objectName())]
        for name, table in sortable:
            saved = keys.sort_order(self.value(name))
            if saved is not None:
                column, descending = saved
                table.sortByColumn(column, QtCore.Qt.SortOrder(int(descending)))
            table.horizontalHeader().sortIndicatorChanged.connect(
                lambda column, order, name=name:
                self.set_value(name, keys.sort_text(column, order == QtCore.Qt.SortOrder.DescendingOrder)))
        added = getattr(widget, "views_added", None)
        if added is not None:
            added.connect(lambda view: self.remember_views(tab_name, view))
        # A named splitter is kept under its name; the others by their number among the unnamed ones.
        splitters = widget.findChildren(QSplitter)
        named = [(keys.splitter(tab_name, splitter.objectName()), splitter) for splitter in splitters
                 if splitter.objectName()]
        numbered = [(keys.unnamed_splitter(tab_name, number), splitter)
                    for number, splitter in enumerate(s for s in splitters if not s.objectName())]
        for name, splitter in named + numbered:
            saved = self.value(name)
            if isinstance(saved, QByteArray) and not saved.isEmpty():
                splitter.restoreState(saved)
            splitter.splitterMoved.connect(lambda _pos, _index, splitter=splitter, name=name:
                                           self.set_value(name, splitter.saveState()))
        choosers = [combo for combo in widget.findChildren(QComboBox) if combo.objectName() == SORT_CHOOSER]
        for number, combo in enumerate(choosers):
            name = keys.sort_chooser(tab_name, number)
            saved = self.value(name)
            index = combo.findData(saved) if saved is not None else -1
            if index >= 0:
                combo.setCurrentIndex(index)
            combo.currentIndexChanged.connect(lambda _index, combo=combo, name=name:
                                              self.set_value(name, combo.currentData()))

    def _remember_columns(self, name: str, table: QTableView) -> None:
        header = table.horizontalHeader()
        saved = self.value(name)
        if isinstance(saved, QByteArray) and not saved.isEmpty():
            header.restoreState(saved)

        def save(*_args: object) -> None:
            self.set_value(name, header.saveState())

        header.sectionResized.connect(save)
        header.sectionMoved.connect(save)


def fit_on_screen(window: QWidget) -> None:
    """Shrinks and moves a shown window so that its frame, the window manager's title bar included, lies in its
    screen's available area. The default 1100×700 is the window's inside: on a 700 px high screen the title bar
    pushed the status bar below the edge, and a remembered size may come from a larger screen."""
    screen = window.screen()
    if screen is None or not window.isVisible() or window.isMaximized() or window.isFullScreen():
        return
    available, frame = screen.availableGeometry(), window.frameGeometry()
    if available.contains(frame):
        return
    extra_width, extra_height = frame.width() - window.width(), frame.height() - window.height()
    window.resize(max(window.minimumWidth(), min(window.width(), available.width() - extra_width)),
                  max(window.minimumHeight(), min(window.height(), available.height() - extra_height)))
    width, height = window.width() + extra_width, window.height() + extra_height
    # move() places the frame's top left corner.
    window.move(max(available.left(), min(frame.left(), available.left() + available.width() - width)),
                max(available.top(), min(frame.top(), available.top() + available.height() - height)))
