"""The main window: connection area, feature tabs, status bar."""

from __future__ import annotations

import asyncio
from collections.abc import Callable
from pathlib import Path
from typing import NamedTuple

from PySide6.QtCore import QByteArray, QEventLoop, QSettings, Qt, QTimer
from PySide6.QtGui import QCloseEvent
from PySide6.QtWidgets import (
    QFormLayout,
    QFrame,
    QHBoxLayout,
    QLabel,
    QMainWindow,
    QMessageBox,
    QProgressBar,
    QPushButton,
    QStackedWidget,
    QTabWidget,
    QVBoxLayout,
    QWidget,
)

from console.connection.check import describe_user
from console.connection.credentials import CredentialStore
from console.connection.dialog import ConnectionDialog
from console.connection.local_server import LocalServer
from console.connection.profiles import ProfileStore
from console.context import AppContext
from console.errors import ErrorTrackingTab
from console.exports import ExportsTab
from console.settings import app_data_dir, app_settings
from console.variables.views import VariablesTab

SHUTDOWN_TIMEOUT = 20.0
SESSION_ONLY_NOTICE = "No system keyring: access tokens are kept for this session only."

STYLE = """
QLabel#adminBadge { background: #b3261e; color: white; border-radius: 4px; padding: 2px 8px; font-weight: bold; }
QLabel#userBadge { background: #5f6368; color: white; border-radius: 4px; padding: 2px 8px; }
QLabel#warning { color: #8a5300; }
QLabel#statusError { color: #b3261e; }
QLabel#serverLabel { font-weight: bold; }
QFrame#connectionBar { border-bottom: 1px solid palette(mid); }
"""


class TabFactory(NamedTuple):
    title: str
    create: Callable[[AppContext], QWidget]


class ServerOverview(QWidget):
    """Facts about the current connection: server address and version, signed-in user."""

    def __init__(self, context: AppContext) -> None:
        super().__init__()
        self._context = context
        self.server_value = QLabel()
        self.version_value = QLabel()
        self.user_value = QLabel()
        self.email_value = QLabel()
        for label in (self.server_value, self.version_value, self.user_value, self.email_value):
            label.setTextInteractionFlags(Qt.TextInteractionFlag.TextSelectableByMouse)
        form = QFormLayout(self)
        form.addRow("Server", self.server_value)
        form.addRow("Version", self.version_value)
        form.addRow("Signed in as", self.user_value)
        form.addRow("E-mail", self.email_value)
        context.connection_changed.connect(self.refresh)
        self.refresh()

    def refresh(self) -> None:
        context = self._context
        user, version = context.user or {}, context.server_version or {}
        self.server_value.setText(context.client.base_url if context.client else "")
        revision = version.get("revision")
        self.version_value.setText(f"{version.get('version', '')}" + (f" (revision {revision})" if revision else "")
                                   + (f", {context.server.product}" if version else ""))
        self.user_value.setText(describe_user(user) if user else "")
        self.email_value.setText(str(user.get("email") or user.get("public_email") or ""))


# The console's tabs, in order. Each feature adds one line here:
#   TabFactory("CI/CD variables", VariablesTab)
#   TabFactory("Vulnerability exports", ExportsTab)
#   TabFactory("Error tracking", ErrorTrackingTab)
TAB_FACTORIES: list[TabFactory] = [
    TabFactory("Server", ServerOverview),
    TabFactory("CI/CD variables", VariablesTab),
    TabFactory("Vulnerability exports", ExportsTab),
    TabFactory("Error tracking", ErrorTrackingTab),
]


class ConnectionBar(QFrame):
    """Server address, signed-in user with the administrator badge, and connection buttons."""

    def __init__(self) -> None:
        super().__init__()
        self.setObjectName("connectionBar")
        self.server_label = QLabel("Not connected")
        self.server_label.setObjectName("serverLabel")
        self.user_label = QLabel()
        self.admin_badge = QLabel("administrator")
        self.admin_badge.setObjectName("adminBadge")
        self.admin_badge.setToolTip("The signed-in user is an instance administrator")
        self.user_badge = QLabel("not an administrator")
        self.user_badge.setObjectName("userBadge")
        self.keyring_warning = QLabel()
        self.keyring_warning.setObjectName("warning")
        self.keyring_warning.setWordWrap(True)
        self.connect_button = QPushButton("Connect…")
        self.local_server_button = QPushButton("Start local server")
        self.local_server_button.setToolTip("Run the bundled server on this computer with demo data and connect to it")
        self.disconnect_button = QPushButton("Disconnect")

        row = QHBoxLayout()
        row.addWidget(self.server_label)
        row.addWidget(self.user_label)
        row.addWidget(self.admin_badge)
        row.addWidget(self.user_badge)
        row.addStretch(1)
        row.addWidget(self.connect_button)
        row.addWidget(self.local_server_button)
        row.addWidget(self.disconnect_button)
        layout = QVBoxLayout(self)
        layout.addLayout(row)
        layout.addWidget(self.keyring_warning)

    def show_connection(self, context: AppContext, *, local: bool) -> None:
        connected = context.client is not None
        if connected:
            assert context.client is not None
            where = "local server " if local else ""
            self.server_label.setText(f"Connected to {where}{context.client.base_url}")
            user = context.user or {}
            username = user.get("username", "?")
            self.user_label.setText(f"as {user.get('name') or username} (@{username})")
        else:
            self.server_label.setText("Not connected")
            self.user_label.clear()
        self.admin_badge.setVisible(connected and context.is_admin)
        self.user_badge.setVisible(connected and not context.is_admin)
        self.disconnect_button.setEnabled(connected)

    def show_keyring_warning(self, warning: str | None) -> None:
        self.keyring_warning.setText(SESSION_ONLY_NOTICE if warning else "")
        self.keyring_warning.setToolTip(warning or "")
        self.keyring_warning.setVisible(warning is not None)


class WelcomePage(QWidget):
    def __init__(self) -> None:
        super().__init__()
        title = QLabel("Connect to a server to begin")
        font = title.font()
        font.setPointSizeF(font.pointSizeF() * 1.6)
        title.setFont(font)
        hint = QLabel(
            "Use <b>Connect…</b> to sign in to a GitLab-compatible server with a personal access token, "
            "or <b>Start local server</b> to try Outpost with demo data on this computer."
        )
        hint.setWordWrap(True)
        layout = QVBoxLayout(self)
        layout.addStretch(1)
        for label in (title, hint):
            label.setAlignment(Qt.AlignmentFlag.AlignCenter)
            layout.addWidget(label)
        layout.addStretch(2)


class MainWindow(QMainWindow):
    def __init__(
        self,
        context: AppContext,
        credentials: CredentialStore,
        *,
        settings: QSettings | None = None,
        local_server_dir: Path | None = None,
    ) -> None:
        super().__init__()
        self.setWindowTitle("Outpost console")
        self.setStyleSheet(STYLE)
        self.context = context
        self.credentials = credentials
        self._settings = settings if settings is not None else app_settings()
        self.profiles = ProfileStore(self._settings)
        self._local_server_dir = local_server_dir if local_server_dir is not None else app_data_dir() / "local-server"
        self.local_server: LocalServer | None = None
        self.connection_dialog: ConnectionDialog | None = None

        self.connection_bar = ConnectionBar()
        self.welcome_page = WelcomePage()
        self.tabs = QTabWidget()
        self.tabs.setDocumentMode(True)
        for factory in TAB_FACTORIES:
            self.tabs.addTab(factory.create(context), factory.title)
        self.pages = QStackedWidget()
        self.pages.addWidget(self.welcome_page)
        self.pages.addWidget(self.tabs)
        central = QWidget()
        layout = QVBoxLayout(central)
        layout.setContentsMargins(0, 0, 0, 0)
        layout.addWidget(self.connection_bar)
        layout.addWidget(self.pages, 1)
        self.setCentralWidget(central)

        self.progress = QProgressBar()
        self.progress.setRange(0, 0)  # indeterminate
        self.progress.setMaximumWidth(120)
        self.progress.hide()
        self.status_label = QLabel()
        self.statusBar().addWidget(self.status_label, 1)
        self.statusBar().addPermanentWidget(self.progress)

        bar = self.connection_bar
        bar.connect_button.clicked.connect(self.open_connection_dialog)
        bar.local_server_button.clicked.connect(self.start_local_server)
        bar.disconnect_button.clicked.connect(self.disconnect)
        context.connection_changed.connect(self._show_connection)
        context.status_message.connect(self.show_status)
        context.error_reported.connect(self.show_error)
        context.busy.connect(self.progress.setVisible)
        self._show_connection()
        bar.show_keyring_warning(credentials.warning)
        self._restore_geometry()

    # connection -----------------------------------------------------------------
    def _show_connection(self) -> None:
        local = self.local_server is not None and self.local_server.url is not None and (
            self.context.client is not None and self.context.client.base_url == self.local_server.url
        )
        self.connection_bar.show_connection(self.context, local=local)
        self.connection_bar.local_server_button.setEnabled(self.local_server is None)
        self.pages.setCurrentWidget(self.tabs if self.context.is_connected else self.welcome_page)
        self.connection_bar.show_keyring_warning(self.credentials.warning)

    def open_connection_dialog(self) -> ConnectionDialog:
        dialog = ConnectionDialog(self.context, self.profiles, self.credentials, self)
        dialog.finished.connect(lambda _result: self.connection_bar.show_keyring_warning(self.credentials.warning))
        self.connection_dialog = dialog
        dialog.open()
        return dialog

    def start_local_server(self) -> asyncio.Task[None]:
        return self.context.run(self._start_local_server(), description="Starting the local server")

    async def _start_local_server(self) -> None:
        if self.local_server is not None:
            return
        server = self.local_server = LocalServer(self._local_server_dir)
        self._show_connection()
        try:
            url = await server.start()
            await self.context.connect_to(url, server.root_token)
        except BaseException:
            await self._stop_local_server()
            raise
        self._show_connection()

    async def _stop_local_server(self) -> None:
        server, self.local_server = self.local_server, None
        if server is not None:
            await server.stop()
        self._show_connection()

    def disconnect(self) -> asyncio.Task[None]:  # type: ignore[override]  # from the server; not QObject's
        return self.context.run(self._disconnect(), description="Disconnecting")

    async def _disconnect(self) -> None:
        await self.context.cancel_operations()
        await self.context.disconnect()
        await self._stop_local_server()

    # status bar -----------------------------------------------------------------
    def show_status(self, message: str) -> None:
        self.status_label.setObjectName("")
        self.status_label.setStyleSheet("")
        self.status_label.setText(message)
        self.status_label.setToolTip("")

    def show_error(self, title: str, message: str) -> None:
        self.status_label.setObjectName("statusError")
        self.status_label.setStyleSheet("color: #b3261e;")
        self.status_label.setText(f"{title}: {message}".splitlines()[0])
        self.status_label.setToolTip(message)

    def show_unexpected_error(self, summary: str, details: str) -> QMessageBox:
        """Non-modal report of a bug; the traceback is under "Show Details"."""
        self.show_error("Unexpected error", summary)
        box = QMessageBox(QMessageBox.Icon.Critical, "Unexpected error", summary, QMessageBox.StandardButton.Close,
                          self)
        box.setInformativeText("The operation did not finish. The details below help when reporting the problem.")
        box.setDetailedText(details)
        box.setAttribute(Qt.WidgetAttribute.WA_DeleteOnClose)
        box.open()
        return box

    # geometry and shutdown ------------------------------------------------------
    def _restore_geometry(self) -> None:
        geometry = self._settings.value("main_window/geometry")
        if isinstance(geometry, QByteArray) and not geometry.isEmpty():
            self.restoreGeometry(geometry)
        else:
            self.resize(1100, 700)

    async def shutdown(self) -> None:
        """Cancel running operations, close the connection and stop the local server."""
        await self.context.cancel_operations()
        await self.context.disconnect()
        await self._stop_local_server()

    def closeEvent(self, event: QCloseEvent) -> None:
        self._settings.setValue("main_window/geometry", self.saveGeometry())
        self._settings.sync()
        if self.local_server is None and self.context.client is None:
            event.accept()
            return
        loop = _usable_loop()
        if loop is not None and asyncio.current_task(loop) is not None:
            # Called from inside a coroutine: the shutdown below needs other tasks to run, so close later.
            event.ignore()
            QTimer.singleShot(0, self.close)
            return
        if loop is None:
            # The event loop is gone (interpreter shutting down): make sure the child goes too.
            if self.local_server is not None:
                self.local_server.terminate_now()
            event.accept()
            return
        # Finish the asynchronous shutdown before the window (and maybe the app) goes away.
        task = loop.create_task(self.shutdown())
        waiter = QEventLoop()
        task.add_done_callback(lambda _task: waiter.quit())
        QTimer.singleShot(int(SHUTDOWN_TIMEOUT * 1000), waiter.quit)
        if not task.done():
            waiter.exec()
        if not task.done():
            task.cancel()
            if self.local_server is not None:
                self.local_server.terminate_now()
        event.accept()


def _usable_loop() -> asyncio.AbstractEventLoop | None:
    """The qasync loop when it can still run tasks from inside a Qt callback."""
    try:
        loop = asyncio.get_running_loop()
    except RuntimeError:
        return None
    return None if loop.is_closed() else loop
