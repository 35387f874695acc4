"""The window's own actions (File, Edit, View, Help), declared; and what Edit and View ask of the current tab.

The tabs' actions are declared by the tabs (console.core.actions); console.menus renders both.
"""

from __future__ import annotations

import html
import platform
from collections.abc import Callable
from typing import TYPE_CHECKING, Protocol

from PySide6 import __version__ as pyside_version
from PySide6.QtCore import Qt, QUrl, qVersion
from PySide6.QtGui import QGuiApplication
from PySide6.QtWidgets import (
    QAbstractItemView,
    QApplication,
    QDialog,
    QLineEdit,
    QMessageBox,
    QPlainTextEdit,
    QTextEdit,
    QWidget,
)

from console import __version__
from console.about_dialog import AboutDialog
from console.core.actions import WindowAction
from console.core.link_registration import installed_by_package, register
from console.messages_view import MessageLogModel, MessagesDialog, NotificationsButton
from console.notification_settings import NotificationSettingsDialog
from console.path_dialog import open_or_show
from console.settings import log_dir

if TYPE_CHECKING:
    from console.connection.dialog import ConnectionDialog
    from console.connection_changes import ConnectionChanges
    from console.context import AppContext
    from console.core.connection.local_server import LocalServer
    from console.notifications import Target, Watcher
    from console.operations import Op
    from console.tab_links import TabLinks
    from console.tabs import LazyTabs
    from console.window_state import ProfileState


class CommandedWindow(Protocol):
    """What the window's actions use of the main window (console.main_window, which declares them)."""

    context: AppContext
    tabs: LazyTabs
    state: ProfileState
    watcher: Watcher
    links: TabLinks
    notifications_button: NotificationsButton
    local_server: LocalServer | None
    changes: ConnectionChanges

    def window(self) -> QWidget: ...

    def open_connection_dialog(self) -> ConnectionDialog: ...

    def start_local_server(self) -> Op[None]: ...

    def disconnect_server(self) -> Op[None]: ...

    def open_target(self, target: Target) -> None: ...


class WindowCommands:
    """Carries out the window's actions that are not the window's own methods."""

    def __init__(self, window: CommandedWindow) -> None:
        self.window = window

    def declared(self) -> list[WindowAction]:
        """Every action of the window, in menu order."""
        window = self.window
        asking_first = window.changes.asking_first

        def connected() -> bool:
            return window.context.is_connected

        tabs = [WindowAction(f"tab_{name}", "view", f"&{number} {window.tabs.tabText(number - 1)}",
                             f"Ctrl+{number}", self._shows_tab(name), enabled=connected, separator=number == 1)
                for number, name in enumerate(window.tabs.names, start=1)]
        return [
            # Each asks first about unsaved changes, which a new connection would drop.
            WindowAction("connect", "file", "&Connect…", "Ctrl+O", asking_first(window.open_connection_dialog)),
            WindowAction("local_server", "file", "&Start local server", "Ctrl+L",
                         asking_first(window.start_local_server), enabled=lambda: window.local_server is None),
            WindowAction("disconnect", "file", "&Disconnect", "Ctrl+Shift+D", asking_first(window.disconnect_server),
                         enabled=connected),
            WindowAction("quit", "file", "&Quit", "Ctrl+Q", window.window().close, separator=True),
            WindowAction("find", "edit", "&Find", "Find", self.find, enabled=connected),
            WindowAction("copy", "edit", "&Copy", "Copy", self.copy),
            WindowAction("delete", "edit", "&Delete…", "Delete", self.delete, enabled=self.can_delete),
            WindowAction("refresh", "view", "&Refresh", "Refresh", self.refresh, enabled=connected),
            *tabs,
            WindowAction("notification_list", "view", "&Notifications", "Ctrl+Shift+N",
                         lambda: window.notifications_button.open_list(), separator=True),
            WindowAction("messages", "view", "&Messages…", None, self.open_messages),
            WindowAction("notifications", "view", "Notification &settings…", None, self.open_notification_settings),
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
        version = self.window.context.server_version
        server = f"{version.version} ({version.revision})" if version is not None else "not connected"
        return (f"<b>Outpost console {__version__}</b><br>Python {platform.python_version()}, "
                f"PySide6 {pyside_version}, Qt {qVersion()}<br>Server: {server}")

    def open_messages(self) -> QWidget:
        """View > Messages…: everything said since start, with its time and kind."""
        window = self.window
        dialog = MessagesDialog("Messages", MessageLogModel(window.context.messages), window.window(),
                                window.open_target)
        dialog.setAttribute(Qt.WidgetAttribute.WA_DeleteOnClose)
        dialog.show()
        return dialog

    def open_notification_settings(self) -> QWidget:
        window = self.window
        dialog = NotificationSettingsDialog(window.state, window.links.project_paths(), window.window())
        dialog.accepted.connect(window.watcher.restart)
        dialog.open()
        return dialog

    def show_about(self) -> QDialog:
        """The versions; connected to the local demo server, also its address, root's token and a curl line."""
        dialog = AboutDialog(self.about_text(), self.window.window())
        local, client = self.window.local_server, self.window.context.client
        if local is not None and local.url is not None and client is not None and client.base_url == local.url:
            dialog.show_local_server(html.escape(local.url), local.root_token, str(local.data_dir))
        dialog.open()
        return dialog

    def register_links(self) -> QMessageBox:
        """No installer registered the outpost:// scheme for this console (a source checkout, a tarball): do it."""
        outcome = register()
        box = QMessageBox(QMessageBox.Icon.Information if outcome.done else QMessageBox.Icon.Warning,
                          "Register outpost:// links", outcome.message, QMessageBox.StandardButton.Close,
                          self.window.window())
        box.setAttribute(Qt.WidgetAttribute.WA_DeleteOnClose)
        box.open()
        return box

    def open_log_folder(self) -> QWidget | None:
        """Opens the folder in the file manager; where nothing can open it, shows its path to copy (returned)."""
        # The folder exists from start-up on: app.py logs into it.
        return open_or_show(QUrl.fromLocalFile(str(log_dir())), self.window.window(), "Log folder",
                            "This system has no program to open folders with. The console's log is in this folder "
                            "(console.log, and older logs beside it):")
