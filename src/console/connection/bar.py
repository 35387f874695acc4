"""The connection area above the tabs, and the page shown while not connected."""

from __future__ import annotations

from PySide6.QtGui import QResizeEvent
from PySide6.QtWidgets import QFrame, QHBoxLayout, QLabel, QPushButton, QVBoxLayout, QWidget

from console.context import AppContext
from console.fitting import ElidedLabel

SESSION_ONLY_NOTICE = "No system keyring: access tokens are kept for this session only."


class ConnectionBar(QFrame):
    """Server address, signed-in user with the administrator badge, and connection buttons."""

    def __init__(self) -> None:
        super().__init__()
        self.setObjectName("connectionBar")
        # A long address or name is cut with "…" (whole in the tooltip) rather than widening the window.
        self.server_label = ElidedLabel("Not connected")
        self.server_label.setObjectName("serverLabel")
        self.user_label = ElidedLabel()
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
        row.addStretch(1)  # the labels ask for their text's width; the buttons stay at the right
        row.addWidget(self.connect_button)
        row.addWidget(self.local_server_button)
        row.addWidget(self.disconnect_button)
        self.row = row
        layout = self.outer = QVBoxLayout(self)
        layout.addLayout(row)
        layout.addWidget(self.keyring_warning)

    def resizeEvent(self, event: QResizeEvent) -> None:
        self._keep_the_address()
        super().resizeEvent(event)

    def _keep_the_address(self) -> None:
        """Where the row is short (900 px), the user's name is cut before the server's address: the address
        says where everything on screen comes from. A very long address is still cut rather than widening
        the window."""
        others = (self.admin_badge, self.user_badge, self.connect_button, self.local_server_button,
                  self.disconnect_button)
        taken = sum(widget.sizeHint().width() + self.row.spacing() for widget in others if widget.isVisibleTo(self))
        outer = self.outer.contentsMargins()
        margins = outer.left() + outer.right() + 2 * self.row.spacing()
        left = self.width() - margins - taken - self.user_label.minimumSizeHint().width()
        self.server_label.setMinimumWidth(max(1, min(self.server_label.sizeHint().width(), left)))

    def show_connection(self, context: AppContext, *, local: bool) -> None:
        connected = context.client is not None
        if connected:
            assert context.client is not None
            where = "local server " if local else ""
            self.server_label.setText(f"Connected to {where}{context.client.base_url}")
            user = context.user
            name, username = (user.name or user.username, user.username) if user is not None else ("?", "?")
            self.user_label.setText(f"as {name} (@{username})")
        else:
            self.server_label.setText("Not connected")
            self.user_label.clear()
        self.admin_badge.setVisible(connected and context.is_admin)
        self.user_badge.setVisible(connected and not context.is_admin)
        self.disconnect_button.setEnabled(connected)
        self._keep_the_address()

    def show_keyring_warning(self, warning: str | None) -> None:
        self.keyring_warning.setText(SESSION_ONLY_NOTICE if warning else "")
        self.keyring_warning.setToolTip(warning or "")
        self.keyring_warning.setVisible(warning is not None)


class WelcomePage(QWidget):
    """The first screen while not connected. Centred and sized by its markup: touching Qt's alignment or
    font enums here would cost the first frame several milliseconds (see main_window)."""

    def __init__(self) -> None:
        super().__init__()
        self.title = QLabel('<p align="center" style="font-size: x-large">Connect to a server to begin</p>')
        self.hint = QLabel(
            '<p align="center">Use <b>Connect…</b> to sign in to a GitLab-compatible server with a personal access '
            "token, or <b>Start local server</b> to try Outpost with demo data on this computer.</p>"
        )
        self.hint.setWordWrap(True)
        layout = QVBoxLayout(self)
        layout.addStretch(1)
        layout.addWidget(self.title)
        layout.addWidget(self.hint)
        layout.addStretch(2)
