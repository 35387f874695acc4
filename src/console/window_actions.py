"""The window's own actions (File, Edit, View, Help), declared; and what Edit and View ask of the current tab.

The tabs' actions are declared by the tabs (console.actions); console.menus renders both.
"""

from __future__ import annotations

import html
import platform
from collections.abc import Callable
from typing import TYPE_CHECKING

from PySide6 import __version__ as pyside_version
from PySide6.QtCore import Qt, QUrl, qVersion
from PySide6.QtGui import QDesktopServices, QGuiApplication
from PySide6.QtWidgets import (
    QAbstractItemView,
    QApplication,
    QLineEdit,
    QMessageBox,
    QPlainTextEdit,
    QTextEdit,
    QWidget,
)

from console import __version__
from console.actions import WindowAction
from console.link_registration import installed_by_package
from console.settings import log_dir

if TYPE_CHECKING:
    from console.main_window import MainWindow


class WindowCommands:
    """Carries out the window's actions that are not the window's own methods."""

    # Opens a folder or page with the system's launcher (False where there is none); a test puts a stand-in here.
    open_url = staticmethod(QDesktopServices.openUrl)

    def __init__(self, window: MainWindow) -> None:
        self.window = window

    def declared(self) -> list[WindowAction]:
        """Every action of the window, in menu order."""
        window = self.window

        def connected() -> bool:
            return window.context.is_connected

        tabs = [WindowAction(f"tab_{name}", "view", f"&{number} {window.tabs.tabText(number - 1)}",
                             f"Ctrl+{number}", self._shows_tab(name), enabled=connected, separator=number == 1)
                for number, name in enumerate(window.tabs.names, start=1)]
        return [
            WindowAction("connect", "file", "&Connect…", "Ctrl+O", window.open_connection_dialog),
            WindowAction("local_server", "file", "&Start local server", "Ctrl+L", window.start_local_server,
                         enabled=lambda: window.local_server is None),
            WindowAction("disconnect", "file", "&Disconnect", "Ctrl+Shift+D", window.disconnect_server,
                         enabled=connected),
            WindowAction("quit", "file", "&Quit", "Ctrl+Q", window.close, separator=True),
            WindowAction("find", "edit", "&Find", "Find", self.find, enabled=connected),
            WindowAction("copy", "edit", "&Copy", "Copy", self.copy),
            WindowAction("delete", "edit", "&Delete…", "Delete", self.delete, enabled=self.can_delete),
            WindowAction("refresh", "view", "&Refresh", "Refresh", self.refresh, enabled=connected),
            *tabs,
            WindowAction("notification_list", "view", "&Notifications", "Ctrl+Shift+N",
                         lambda: window.notifications_button.open_list(), separator=True),
            WindowAction("messages", "view", "&Messages…", None, window.open_messages),
            WindowAction("notifications", "view", "Notification &settings…", None, window.open_notification_settings),
            WindowAction("log_folder", "help", "Open &log folder", None, self.open_log_folder),
            *([] if installed_by_package() else [
                WindowAction("register_links", "help", "&Register outpost:// links", None, self.register_links)]),
            WindowAction("about", "help", "&About Outpost console", "HelpContents", self.show_about),
        ]

    def _shows_tab(self, name: str) -> Callable[[], object]:
        return lambda: self.window.tabs.show_tab(name)

    # what Edit and View ask of the current tab ---------------------------------------------------------
    def find(self) -> QWidget | None:
        feature = self.window.tabs.current_feature()
        field = feature.find_field()
        if field is None or not field.isVisibleTo(feature) or not field.isEnabledTo(feature.window()):
            return None
        field.setFocus()
        if isinstance(field, QLineEdit):
            field.selectAll()
        return field

    def copy(self) -> None:
        focus = QApplication.focusWidget()
        if isinstance(focus, (QLineEdit, QTextEdit, QPlainTextEdit)):
            focus.copy()
        elif self.window.tabs.current_feature().copy_selection(focus):
            pass  # the tab knows better (a variable's value, revealed or not)
        elif isinstance(focus, QAbstractItemView) and focus.selectionModel() is not None:
            indexes = sorted(focus.selectionModel().selectedIndexes(), key=lambda index: (index.row(), index.column()))
            rows: dict[int, list[str]] = {}
            for index in indexes:
                rows.setdefault(index.row(), []).append(str(index.data() or ""))
            if rows:
                QGuiApplication.clipboard().setText("\n".join("\t".join(cells) for cells in rows.values()))

    def refresh(self) -> None:
        self.window.tabs.current_feature().refresh()

    def can_delete(self) -> bool:
        feature = self.window.tabs.created(self.window.tabs.current_name())
        return self.window.context.is_connected and feature is not None and feature.can_delete_selection()

    def delete(self) -> None:
        self.window.tabs.current_feature().delete_selection()

    # help ---------------------------------------------------------------------------------------------
    def about_text(self) -> str:
        version = self.window.context.server_version or {}
        server = f"{version.get('version')} ({version.get('revision')})" if version else "not connected"
        return (f"<b>Outpost console {__version__}</b><br>Python {platform.python_version()}, "
                f"PySide6 {pyside_version}, Qt {qVersion()}<br>Server: {server}{self.local_server_text()}")

    def local_server_text(self) -> str:
        """Connected to the local demo server: its address, root's token and how to use it with the REST API."""
        local, client = self.window.local_server, self.window.context.client
        if local is None or local.url is None or client is None or client.base_url != local.url:
            return ""
        url, token = html.escape(local.url), html.escape(local.root_token)
        return (f"<p><b>Local demo server</b> at {url}, signed in as root with this token (a new one on each "
                f"start):<br><code>{token}</code></p><p>With the REST API:<br>"
                f"<code>curl -H \"PRIVATE-TOKEN: {token}\" {url}/api/v4/user</code></p>"
                f"<p>Its data is kept in {html.escape(str(local.data_dir))} (<code>make demo-reset</code> "
                f"removes it).</p>")

    def show_about(self) -> QMessageBox:
        box = QMessageBox(QMessageBox.Icon.Information, "About Outpost console", self.about_text(),
                          QMessageBox.StandardButton.Close, self.window)
        box.setTextInteractionFlags(Qt.TextInteractionFlag.TextSelectableByMouse)  # the token can be copied
        box.setAttribute(Qt.WidgetAttribute.WA_DeleteOnClose)
        box.open()
        return box

    def register_links(self) -> QMessageBox:
        """No installer registered the outpost:// scheme for this console (a source checkout, a tarball): do it."""
        from console.link_registration import register

        outcome = register()
        box = QMessageBox(QMessageBox.Icon.Information if outcome.done else QMessageBox.Icon.Warning,
                          "Register outpost:// links", outcome.message, QMessageBox.StandardButton.Close, self.window)
        box.setAttribute(Qt.WidgetAttribute.WA_DeleteOnClose)
        box.open()
        return box

    def open_log_folder(self) -> QWidget | None:
        """Opens the folder in the file manager; where nothing can open it, shows its path to copy (returned)."""
        # The folder exists from start-up on: app.py logs into it.
        folder = str(log_dir())
        if self.open_url(QUrl.fromLocalFile(folder)):
            return None
        from console.path_dialog import PathDialog

        dialog = PathDialog("Log folder", "This system has no program to open folders with. The console's log is "
                            "in this folder (console.log, and older logs beside it):", folder, self.window)
        dialog.open()
        return dialog
