"""The menu bar and keyboard shortcuts of the main window.

Each action exists once, here; per-tab actions open their tab when needed and call the tab's own
method. Every shortcut is shown in the menu and in the action's tooltip.
"""

from __future__ import annotations

import platform
from collections.abc import Callable
from typing import TYPE_CHECKING, Any

from PySide6 import __version__ as pyside_version
from PySide6.QtCore import QObject, Qt, QUrl, qVersion
from PySide6.QtGui import QAction, QDesktopServices, QGuiApplication, QKeySequence
from PySide6.QtWidgets import (
    QAbstractItemView,
    QApplication,
    QLineEdit,
    QMenuBar,
    QMessageBox,
    QPlainTextEdit,
    QTextEdit,
    QWidget,
)

from console import __version__
from console.settings import log_dir

if TYPE_CHECKING:
    from console.main_window import MainWindow

Shortcut = QKeySequence | QKeySequence.StandardKey | str | None

STATUS_ACTIONS = ("resolve", "ignore", "unresolve")
# Where each tab keeps its filter or search field, tried in order (attribute paths).
FILTER_FIELDS = (("filter_edit",), ("errors_page", "search"), ("project_picker",), ("picker", "search_edit"),
                 ("table",))


def _describe(action: QAction) -> None:
    shortcut = action.shortcut().toString(QKeySequence.SequenceFormat.NativeText)
    text = action.text().replace("&", "")
    action.setToolTip(f"{text} ({shortcut})" if shortcut else text)


def _attribute_path(widget: Any, path: tuple[str, ...]) -> Any:
    for name in path:
        widget = getattr(widget, name, None)
        if widget is None:
            return None
    return widget


class WindowActions(QObject):
    """Fills the menus of ``window`` (the window shows them, empty, from its first frame) and carries out
    their actions."""

    def __init__(self, window: MainWindow) -> None:
        super().__init__(window)
        self.window = window
        self.by_name: dict[str, QAction] = {}
        bar: QMenuBar = window.menuBar()
        bar.setAccessibleName("Menu bar")

        file_menu = window.menus["file"]
        self._add(file_menu, "connect", "&Connect…", "Ctrl+O", window.open_connection_dialog)
        self._add(file_menu, "local_server", "&Start local server", "Ctrl+L", window.start_local_server)
        self._add(file_menu, "disconnect", "&Disconnect", "Ctrl+Shift+D", window.disconnect_server)
        file_menu.addSeparator()
        self._add(file_menu, "quit", "&Quit", "Ctrl+Q", window.close)

        edit_menu = window.menus["edit"]
        self._add(edit_menu, "find", "&Find", QKeySequence.StandardKey.Find, self.find)
        self._add(edit_menu, "copy", "&Copy", QKeySequence.StandardKey.Copy, self.copy)

        view_menu = window.menus["view"]
        self._add(view_menu, "refresh", "&Refresh", QKeySequence.StandardKey.Refresh, self.refresh)
        view_menu.addSeparator()
        for number, name in enumerate(window.tabs.names, start=1):
            title = window.tabs.tabText(number - 1)
            self._add(view_menu, f"tab_{name}", f"&{number} {title}", f"Ctrl+{number}", self._shows_tab(name))
        view_menu.addSeparator()
        self._add(view_menu, "notifications", "&Notifications…", None, window.open_notification_settings)

        variables_menu = window.menus["variables"]
        self._add(variables_menu, "new_variable", "&New variable…", QKeySequence.StandardKey.New,
                  lambda: self._on_tab("variables", "add_variable"))
        self._add(variables_menu, "delete", "&Delete…", QKeySequence.StandardKey.Delete, self.delete)
        exports_menu = window.menus["exports"]
        self._add(exports_menu, "save_export", "&Save export…", QKeySequence.StandardKey.Save,
                  lambda: self._on_tab("exports", "save_as"))
        errors_menu = window.menus["errors"]
        self._add(errors_menu, "resolve", "&Resolve selected error", "Ctrl+R",
                  lambda: self.set_error_status("resolved"))
        self._add(errors_menu, "ignore", "&Ignore selected error", "Ctrl+I",
                  lambda: self.set_error_status("ignored"))
        self._add(errors_menu, "unresolve", "&Unresolve selected error", "Ctrl+U",
                  lambda: self.set_error_status("unresolved"))

        help_menu = window.menus["help"]
        self._add(help_menu, "log_folder", "Open &log folder", None, self.open_log_folder)
        self._add(help_menu, "about", "&About Outpost console", QKeySequence.StandardKey.HelpContents,
                  self.show_about)
        window.context.connection_changed.connect(self.update_enabled)
        window.tabs.currentChanged.connect(lambda _index: self.update_enabled())
        self.update_enabled()

    def _add(self, menu: Any, name: str, text: str, shortcut: Shortcut, slot: Callable[[], Any]) -> QAction:
        action = QAction(text, self.window)
        if shortcut is not None:
            action.setShortcut(QKeySequence(shortcut))
        _describe(action)
        action.triggered.connect(lambda _checked=False: slot())
        menu.addAction(action)
        self.window.addAction(action)  # shortcuts work while the menu bar is hidden too
        self.by_name[name] = action
        return action

    def update_enabled(self) -> None:
        connected = self.window.context.is_connected
        for name in ("disconnect", "refresh", "find", "new_variable", "delete", "save_export", *STATUS_ACTIONS):
            self.by_name[name].setEnabled(connected)
        for name in self.window.tabs.names:
            self.by_name[f"tab_{name}"].setEnabled(connected)
        self.by_name["local_server"].setEnabled(self.window.local_server is None)

    def tab_created(self, name: str, widget: QWidget) -> None:
        """Called by the window for each feature widget it builds."""
        if name == "errors":  # the list's context menu offers the same actions (each action exists once)
            errors: Any = widget
            errors.errors_page.table.addActions([self.by_name[action] for action in STATUS_ACTIONS])

    # actions ----------------------------------------------------------------------------------
    def _shows_tab(self, name: str) -> Callable[[], QWidget]:
        return lambda: self.window.tabs.show_tab(name)

    def _on_tab(self, name: str, method: str) -> Any:
        return getattr(self.window.tabs.show_tab(name), method)()

    def find(self) -> QWidget | None:
        feature = self.window.tabs.current_feature()
        for path in FILTER_FIELDS:
            field = _attribute_path(feature, path)
            if isinstance(field, QWidget) and field.isVisibleTo(feature) and field.isEnabledTo(feature.window()):
                field.setFocus()
                if isinstance(field, QLineEdit):
                    field.selectAll()
                return field
        return None

    def copy(self) -> None:
        focus = QApplication.focusWidget()
        feature = self.window.tabs.current_feature()
        if isinstance(focus, (QLineEdit, QTextEdit, QPlainTextEdit)):
            focus.copy()
        elif focus is not None and focus is getattr(feature, "table", None) and hasattr(feature, "copy_value"):
            feature.copy_value()  # a variable's value, revealed or not, as that tab defines it
        elif isinstance(focus, QAbstractItemView) and focus.selectionModel() is not None:
            indexes = sorted(focus.selectionModel().selectedIndexes(), key=lambda index: (index.row(), index.column()))
            rows: dict[int, list[str]] = {}
            for index in indexes:
                rows.setdefault(index.row(), []).append(str(index.data() or ""))
            if rows:
                QGuiApplication.clipboard().setText("\n".join("\t".join(cells) for cells in rows.values()))

    def refresh(self) -> None:
        feature = self.window.tabs.current_feature()
        for path in (("refresh",), ("errors_page", "reload"), ("picker", "search")):
            method = _attribute_path(feature, path)
            if callable(method):
                method()
                return

    def delete(self) -> None:
        name = self.window.tabs.current_name()
        if name == "variables":
            self._on_tab("variables", "delete_selected")
        elif name == "exports":
            self._on_tab("exports", "forget")

    def set_error_status(self, status: str) -> None:
        errors: Any = self.window.tabs.show_tab("errors")
        page = errors.errors_page
        error = page.selected_error()
        if error is not None:
            page.change_status(error.id, status)
        else:
            self.window.context.say("Select an error in the list first")

    def about_text(self) -> str:
        version = self.window.context.server_version or {}
        server = f"{version.get('version')} ({version.get('revision')})" if version else "not connected"
        return (f"<b>Outpost console {__version__}</b><br>Python {platform.python_version()}, "
                f"PySide6 {pyside_version}, Qt {qVersion()}<br>Server: {server}")

    def show_about(self) -> QMessageBox:
        box = QMessageBox(QMessageBox.Icon.Information, "About Outpost console", self.about_text(),
                          QMessageBox.StandardButton.Close, self.window)
        box.setAttribute(Qt.WidgetAttribute.WA_DeleteOnClose)
        box.open()
        return box

    def open_log_folder(self) -> bool:
        # The folder exists from start-up on: app.py logs into it.
        return QDesktopServices.openUrl(QUrl.fromLocalFile(str(log_dir())))
