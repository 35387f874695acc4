"""The main window: connection area, feature tabs, status bar.

The window is built in two steps so that it shows quickly. The constructor builds the first screen
(connection area, welcome page, tabs, status bar); :meth:`MainWindow.complete_setup` adds the rest
(menu items and shortcuts, the application and tray icons, the watcher, accessible names) once the first frame has been
painted, or earlier when a connection needs it. ``ready`` says when that has happened. Qt creates a
Python class for each enum the first time Python code touches it, so the first screen's code leaves
the ``Qt`` namespace and the menus' key sequences alone.
"""

from __future__ import annotations

from pathlib import Path
from typing import TYPE_CHECKING

from PySide6 import QtCore  # its Qt namespace only at call time: made on first touch, costly for a first frame
from PySide6.QtCore import QByteArray, QSettings, QTimer, Signal
from PySide6.QtWidgets import QApplication, QMainWindow, QMessageBox, QStackedWidget, QVBoxLayout, QWidget

from console.connection.bar import ConnectionBar, WelcomePage
from console.connection_changes import ConnectionChanges
from console.context import AppContext
from console.core import settings_keys as keys
from console.core.actions import MENUS
from console.core.connection.credentials import CredentialStore
from console.core.operations import inside_a_task, usable_loop
from console.looks import FollowPalette
from console.message_bar import MessageBar
from console.settings import app_data_dir, app_settings
from console.settings import local_server_dir as default_local_server_dir
from console.status_line import StatusLine
from console.tabs import TAB_FACTORIES, LazyTabs
from console.themes import Themes
from console.window_state import ProfileState, fit_on_screen

SHUTDOWN_TIMEOUT = 20.0

if TYPE_CHECKING:
    from PySide6.QtGui import QCloseEvent, QPaintEvent

    from console.connection.dialog import ConnectionDialog
    from console.core.connection.local_server import LocalServer
    from console.menus import WindowActions
    from console.messages_view import NotificationsButton
    from console.notifications import Notifier, Target, TrayNotifier, Watcher
    from console.operations import Op
    from console.single_instance import InstanceServer
    from console.tab_links import TabLinks
    from console.window_actions import WindowCommands

DEFAULT_SIZE = (1100, 700)
LOCAL_DEMO_PROFILE = keys.LOCAL_DEMO_PROFILE

__all__ = ["TAB_FACTORIES", "MainWindow"]


class MainWindow(QMainWindow):
    """Signals:
    ready: the menu items, shortcuts, icons, watcher and accessible names are in place (see complete_setup).
    """

    ready = Signal()

    # Built by complete_setup, after the first frame.
    actions_: WindowActions
    instance: InstanceServer
    commands: WindowCommands
    links: TabLinks
    notifications_button: NotificationsButton
    tray: TrayNotifier
    notifier: Notifier
    watcher: Watcher

    def __init__(
        self,
        context: AppContext,
        credentials: CredentialStore,
        *,
        settings: QSettings | None = None,
        local_server_dir: Path | None = None,
        notifier: Notifier | None = None,
        history_dir: Path | None = None,
    ) -> None:
        super().__init__()
        self.setWindowTitle("Outpost console[*]")  # [*]: the mark of unsaved changes (setWindowModified)
        self.looks = FollowPalette(self)
        self.context = context
        self.credentials = credentials
        self._settings = settings if settings is not None else app_settings()
        self.themes = Themes(self._settings, self)
        self.themes.changed.connect(self.looks.apply)
        self.themes.start(first_frame_done=False)
        self.local_server_dir = local_server_dir if local_server_dir is not None else default_local_server_dir()
        self._history_dir = history_dir if history_dir is not None else app_data_dir() / "exports"
        self._notifier = notifier
        self.local_server: LocalServer | None = None
        self.connection_dialog: ConnectionDialog | None = None
        self.is_ready = False
        self._setup_scheduled = False

        self.connection_bar = ConnectionBar()
        self.message_bar = MessageBar()  # failures of what belongs to no tab (connecting, the local server)
        self.welcome_page = WelcomePage()
        self.state = ProfileState(self._settings, context)
        self.tabs = LazyTabs(context, history_dir=self._history_dir)
        self.tabs.tab_created.connect(self._tab_created)
        self.tabs.currentChanged.connect(self._remember_tab)
        self.pages = QStackedWidget()
        self.pages.addWidget(self.welcome_page)
        self.pages.addWidget(self.tabs)
        central = QWidget()
        layout = QVBoxLayout(central)
        layout.setContentsMargins(0, 0, 0, 0)
        layout.addWidget(self.connection_bar)
        layout.addWidget(self.message_bar)
        layout.addWidget(self.pages, 1)
        self.setCentralWidget(central)
        self.menus = {name: self.menuBar().addMenu(title) for name, title in MENUS}

        self.status_line = StatusLine(self.statusBar(), context.messages)

        self.changes = ConnectionChanges(self)
        bar, asking_first = self.connection_bar, self.changes.asking_first
        bar.connect_button.clicked.connect(asking_first(self.open_connection_dialog))
        bar.local_server_button.clicked.connect(asking_first(self.start_local_server))
        bar.disconnect_button.clicked.connect(asking_first(self.disconnect_server))
        context.connection_changed.connect(self.show_connection)
        context.window_failure.connect(self.show_error)
        context.window_failure_ended.connect(self.message_bar.clear_failure)
        context.news.connect(self._news)
        context.connection_changed.connect(self.message_bar.dismiss)
        context.busy.connect(self.status_line.busy)
        self.show_connection()
        self._restore_geometry()

    def paintEvent(self, event: QPaintEvent) -> None:
        super().paintEvent(event)
        if not self._setup_scheduled:
            self._setup_scheduled = True
            QTimer.singleShot(0, self, self.complete_setup)  # after this frame reaches the screen
            # By now the window manager has framed the window: its title bar's height is known.
            QTimer.singleShot(0, self, lambda: fit_on_screen(self))

    def complete_setup(self) -> None:
        """Adds what the first frame does without: menu items and shortcuts, the application and tray icons,
        the watcher, accessible names. Runs once, right after the first paint or when a connection is made,
        whichever is first."""
        if self.is_ready:
            return
        self.is_ready = True
        from console.accessibility import give_accessible_names
        from console.icons import app_icon
        from console.menus import WindowActions
        from console.messages_view import NotificationsButton
        from console.notifications import TrayNotifier, Watcher
        from console.single_instance import InstanceServer
        from console.steady_inputs import install as steady_inputs
        from console.tab_links import TabLinks
        from console.window_actions import WindowCommands

        self.links = TabLinks(self)
        self.commands = WindowCommands(self)
        self.actions_ = WindowActions(self, self.commands.declared())
        bar = self.connection_bar
        for button, action in ((bar.connect_button, "connect"), (bar.local_server_button, "local_server"),
                               (bar.disconnect_button, "disconnect")):
            button.setToolTip(self.actions_.by_name[action].toolTip())
            button.setAccessibleName(self.actions_.by_name[action].text().replace("&", ""))
        if QApplication.windowIcon().isNull():
            QApplication.setWindowIcon(app_icon())  # for this window, later ones and the tray
        self.tray = TrayNotifier(QApplication.windowIcon(), self.context, self)
        self.tray.activated.connect(self.open_notified)
        self.notifier = self._notifier if self._notifier is not None else self.tray  # news while in the background
        self.watcher = Watcher(self.context, self.state, history_dir=self._history_dir, parent=self)
        self.notifications_button = NotificationsButton(self.context.messages, self.open_target)
        self.statusBar().addPermanentWidget(self.notifications_button)
        self.context.connection_changed.connect(self.links.restore_profile)
        give_accessible_names(self)  # the window's own controls; each tab's when it is built
        self.instance = InstanceServer(self)  # later starts hand their outpost:// links to this window
        self.instance.received.connect(self.open_link)
        self.instance.listen()
        steady_inputs(QApplication.instance())  # type: ignore[arg-type]  # a QApplication made this window
        self.themes.start(first_frame_done=True)
        self.themes.add_menu(self.menus["view"])
        if self.context.is_connected:  # connected while this was being connected: catch up
            self.watcher.restart()
            self.links.restore_profile()
        self.ready.emit()

    # connection -----------------------------------------------------------------
    def show_connection(self) -> None:
        local = self.local_server is not None and self.local_server.url is not None and (
            self.context.client is not None and self.context.client.base_url == self.local_server.url
        )
        self.connection_bar.show_connection(self.context, local=local)
        self.connection_bar.local_server_button.setEnabled(self.local_server is None)
        if self.is_ready:
            self.actions_.update_enabled()
        self.pages.setCurrentWidget(self.tabs if self.context.is_connected else self.welcome_page)
        if self.context.is_connected:
            self.complete_setup()  # the tabs need the watcher and the menus
            self.tabs.current_feature()  # tabs are built when first needed, not at start-up
        self.connection_bar.show_keyring_warning(self.credentials.warning)

    def open_connection_dialog(self) -> ConnectionDialog:
        from console.connection.dialog import ConnectionDialog  # not needed for the first screen
        from console.connection.profiles import ProfileStore

        dialog = ConnectionDialog(self.context, ProfileStore(self._settings), self.credentials, self)
        dialog.finished.connect(lambda _result: self.connection_bar.show_keyring_warning(self.credentials.warning))
        self.connection_dialog = dialog
        dialog.open()
        return dialog

    def start_local_server(self) -> Op[None]:
        return self.changes.start_local_server()

    def disconnect_server(self) -> Op[None]:
        return self.changes.disconnect()

    # the tabs -----------------------------------------------------------------------
    def _remember_tab(self, index: int) -> None:
        if self.context.is_connected and 0 <= index < self.tabs.count():
            self.state.set_value(keys.LAST_TAB, self.tabs.names[index])

    def _tab_created(self, name: str, widget: QWidget) -> None:
        from console.accessibility import give_accessible_names
        from console.feature import FeatureWidget

        assert isinstance(widget, FeatureWidget), "LazyTabs builds feature widgets"
        self.complete_setup()
        self.actions_.tab_created(name, widget)
        self.links.tab_created(name, widget)
        self.state.remember_views(name, widget)
        give_accessible_names(widget)

    def open_target(self, target: Target) -> None:
        """Open what an overview item or a notification points at (console.tab_links)."""
        self.links.open_target(target)

    def _news(self, title: str, message: str, target: Target) -> None:
        """News is in the notification list; the desktop shows it too while the console is in the background."""
        if not self.isActiveWindow():
            self.notifier.notify(title, message, target)

    def open_link(self, link: str) -> Op[None] | None:
        """An outpost:// link: the window comes forward and opens the error (console.link_opener)."""
        from console.connection.profiles import ProfileStore
        from console.link_opener import LinkOpener

        return LinkOpener(self, ProfileStore(self._settings)).open(link)

    def open_notified(self, target: Target) -> None:
        """A click on a notification: bring the window forward, then open what it was about."""
        self.showNormal()
        self.raise_()
        self.activateWindow()
        self.open_target(target)

    # failures -----------------------------------------------------------------
    def show_error(self, title: str, message: str) -> None:
        """A failure that belongs to no tab: it stays in the window's message bar until dismissed."""
        self.message_bar.show_failure(title, f"{title}: {message}")

    def show_unexpected_error(self, summary: str, details: str) -> QMessageBox:
        """Non-modal report of a bug; the traceback is under "Show Details"."""
        self.show_error("Unexpected error", summary)
        box = QMessageBox(QMessageBox.Icon.Critical, "Unexpected error", summary, QMessageBox.StandardButton.Close,
                          self)
        box.setInformativeText("The operation did not finish. The details below help when reporting the problem.")
        box.setDetailedText(details)
        box.setAttribute(QtCore.Qt.WidgetAttribute.WA_DeleteOnClose)
        box.open()
        return box

    # geometry and shutdown ------------------------------------------------------
    def _restore_geometry(self) -> None:
        geometry = self._settings.value(keys.WINDOW_GEOMETRY)
        if isinstance(geometry, QByteArray) and not geometry.isEmpty():
            self.restoreGeometry(geometry)
        else:
            self.resize(*DEFAULT_SIZE)

    def closeEvent(self, event: QCloseEvent) -> None:
        if not self.tabs.may_close(self.close):  # unsaved changes: the user answers first
            event.ignore()
            return
        self._settings.setValue(keys.WINDOW_GEOMETRY, self.saveGeometry())
        self._settings.sync()
        if self.local_server is None and self.context.client is None:
            event.accept()
            return
        from console.operations import Op

        loop = usable_loop()
        if loop is not None and inside_a_task(loop):
            # Called from inside a coroutine: the shutdown below needs other tasks to run, so close later.
            event.ignore()
            QTimer.singleShot(0, self.close)
            return
        # Finish the asynchronous shutdown before the window (and maybe the app) goes away; without a loop
        # (the interpreter shutting down), or when it takes too long, make sure the child goes too.
        shutdown = Op(self.context, self.changes.shutdown(), description="Closing", quiet=True)
        if loop is None or not shutdown.run().wait(SHUTDOWN_TIMEOUT):
            shutdown.cancel()
            if self.local_server is not None:
                self.local_server.terminate_now()
        event.accept()
