"""Opening an outpost:// link (from the command line, or handed over by a later start): the window comes forward,
the console connects with the profile saved for the link's server (or asks to sign in when there is none, or no
saved token) and opens the error in its project. A later `--demo` start hands over a request for the demo
instead: the window comes forward and starts the local server if it is not running."""

from __future__ import annotations

import logging
from typing import TYPE_CHECKING, Protocol

from PySide6.QtWidgets import QMessageBox

from console.core import outpost_links
from console.core.api.error_tracking import ErrorTrackingApi
from console.core.api.errors import NotFound
from console.core.connection.local_server import LocalServer
from console.operations import Op
from console.single_instance import DEMO_REQUEST

if TYPE_CHECKING:
    from pathlib import Path

    from PySide6.QtWidgets import QWidget

    from console.connection.dialog import ConnectionDialog
    from console.connection.profiles import Profile, ProfileStore
    from console.context import AppContext
    from console.core.connection.credentials import CredentialStore
    from console.notifications import Target


class LinkWindow(Protocol):
    """What opening a link uses of the main window (console.main_window, which makes the opener)."""

    context: AppContext
    credentials: CredentialStore
    local_server: LocalServer | None
    local_server_dir: Path

    def window(self) -> QWidget: ...

    def start_local_server(self) -> Op[None]: ...

    def open_connection_dialog(self) -> ConnectionDialog: ...

    def open_target(self, target: Target) -> None: ...

log = logging.getLogger(__name__)


class LinkOpener:
    def __init__(self, window: LinkWindow, profiles: ProfileStore) -> None:
        self.window = window
        self.profiles = profiles
        self.demo_question: QMessageBox | None = None  # the last offer to start the demo (kept for tests)

    def open(self, text: str) -> Op[None] | None:
        """Opens the link (None when it is not one: the status bar says why)."""
        window = self.window
        shown = window.window()
        shown.showNormal()
        shown.raise_()
        shown.activateWindow()

        if text == DEMO_REQUEST:
            log.info("Another start asked for the demo: this console's window came forward")
            return window.start_local_server() if window.local_server is None else None
        try:
            link = outpost_links.parse(text)
        except outpost_links.NotALink as error:
            window.context.report_error("Cannot open the link", str(error))
            return None

        return Op(window.context, self._open(link), description="Opening the link").run()

    async def _open(self, link: outpost_links.ErrorLink) -> None:
        context = self.window.context
        if context.client is not None and (path := link.serves(context.client.base_url)) is not None:
            await self._show(path, link.error_id)
            return
        saved = [(profile, path) for profile in self.profiles.load()
                 if (path := link.serves(profile.base_url)) is not None]
        for profile, path in saved:
            token = await self.window.credentials.load_token(profile.base_url, profile.name)
            if token:
                await context.connect_to(profile.base_url, token)
                self.profiles.last_used = profile.name
                await self._show(path, link.error_id)
                return
        demo_path = self._demo_path(link)
        if demo_path is not None:
            self._offer_demo(demo_path, link.error_id)
            return
        self._sign_in(link, saved[0][0] if saved else None)

    def _demo_path(self, link: outpost_links.ErrorLink) -> str | None:
        """The project's path when the link is to this computer's demo server (on the port it last had) and the
        demo is not running: its token is made afresh at each start, so no one could sign in with it."""

        if self.window.local_server is not None:
            return None
        port = LocalServer(self.window.local_server_dir).remembered_port()
        return link.serves(f"http://127.0.0.1:{port}") if port is not None else None

    def _offer_demo(self, path: str, error_id: str) -> None:
        """Offers to start the demo, then opens the error on it (on whichever port it gets)."""

        def answered(result: int) -> None:
            if result != QMessageBox.StandardButton.Yes:
                return
            started = self.window.start_local_server()
            started.when_done(lambda: Op(self.window.context, self._show(path, error_id),
                                         description="Opening the link").run()
                              if self.window.context.is_connected else None)

        box = self.demo_question = QMessageBox(
            QMessageBox.Icon.Question, "Open the link", f"The link is to error {error_id} of {path} on the local "
            "demo server, which is not running. Start the demo server and open the error?",
            QMessageBox.StandardButton.Yes | QMessageBox.StandardButton.No, self.window.window())
        box.finished.connect(answered)
        box.open()

    def _sign_in(self, link: outpost_links.ErrorLink, profile: Profile | None) -> None:
        """No saved profile (or no saved token) for the server: the connection dialog, filled in as far as known;
        once it has connected, the link is opened."""
        if profile is not None:
            self.profiles.last_used = profile.name  # the dialog opens on it and reads its token, if any
        dialog = self.window.open_connection_dialog()
        if profile is None:
            dialog.url_edit.setText(link.guessed_address())
        dialog.result_label.setText(f"Sign in to {link.authority} to open the error in {link.path}.")
        dialog.accepted.connect(lambda: self.open(outpost_links.error_link(
            self.window.context.client.base_url if self.window.context.client else link.guessed_address(),
            link.path, link.error_id)))

    async def _show(self, path: str, error_id: str) -> None:
        """Opens the project at the error; when the server knows no such error, says so rather than "done"."""

        self.window.open_target(("errors", (path, error_id)))
        client = self.window.context.client
        if client is None:
            return
        try:
            await ErrorTrackingApi(client).error(path, error_id)
        except NotFound:
            self.window.context.report_error("Cannot open the link", f"Error {error_id} was not found in {path}: "
                                             "it was deleted, or the project has no such error.")
