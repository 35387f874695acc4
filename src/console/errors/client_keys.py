"""The Client keys page: the project's DSNs, hidden until revealed; create, delete and rotate keys.

It shows what the client keys and tracking settings repositories (console.core.repositories.project_settings)
hold: settings saved on the Settings page change what it says at once.
"""

from __future__ import annotations

import asyncio
from typing import TYPE_CHECKING, Any

from PySide6.QtCore import Qt
from PySide6.QtGui import QGuiApplication
from PySide6.QtWidgets import (
    QAbstractItemView,
    QHBoxLayout,
    QHeaderView,
    QLabel,
    QMessageBox,
    QPushButton,
    QTableView,
    QVBoxLayout,
    QWidget,
)

from console.core.errors.access import MAINTAINER_ONLY
from console.core.settings_keys import LOCAL_DEMO_PROFILE
from console.core.store import EVERYTHING, Change
from console.errors.dialogs import RotateKeyWizard
from console.errors.models import ClientKeyModel
from console.operations import Op
from console.page_host import project_path
from outpost_model.error_tracking import ClientKey, TrackingSettings

if TYPE_CHECKING:
    from console.core.api.error_tracking import ErrorTrackingApi
    from console.page_host import ProjectHost

DEMO_PORT = ("A DSN names the local demo server's port. The demo keeps its port across starts while it is free; "
             "when another program holds it, the demo starts on another port and says so: then copy the DSN into "
             "your applications again.")
INTEGRATED_ONLY = ("Client keys are used only by integrated error tracking. This project's errors come from an "
                   "external Sentry, so applications send them there, not with these keys.")


def _keys_used(settings: TrackingSettings | None) -> bool:
    """Whether the project's errors arrive through its client keys (no settings yet: integrated is GitLab's default)."""
    return settings is None or settings.integrated


class ClientKeysPage(QWidget):
    """Client keys (DSNs) of the integrated backend: reveal, copy, create, delete and rotate."""

    def __init__(self, host: ProjectHost[ErrorTrackingApi]) -> None:
        super().__init__()
        self.host = host
        self.model = ClientKeyModel(self)
        self.table = QTableView()
        self.table.setModel(self.model)
        self.table.setSelectionBehavior(QAbstractItemView.SelectionBehavior.SelectRows)
        self.table.setSelectionMode(QAbstractItemView.SelectionMode.SingleSelection)
        self.table.verticalHeader().hide()
        self.table.horizontalHeader().setSectionResizeMode(ClientKeyModel.DSN, QHeaderView.ResizeMode.Stretch)
        self.reveal_button = QPushButton("Reveal DSN")
        self.copy_button = QPushButton("Copy DSN")
        self.create_button = QPushButton("Create key")
        self.delete_button = QPushButton("Delete key")
        self.rotate_button = QPushButton("Rotate…")
        self.reveal_button.clicked.connect(self.toggle_reveal)
        self.copy_button.clicked.connect(self.copy_dsn)
        self.create_button.clicked.connect(self.create_key)
        self.delete_button.clicked.connect(self.confirm_delete)
        self.rotate_button.clicked.connect(self.open_rotate_wizard)
        self.table.selectionModel().currentRowChanged.connect(lambda *_: self._selection_moved())
        buttons = QHBoxLayout()
        for button in (self.reveal_button, self.copy_button, self.create_button, self.delete_button,
                       self.rotate_button):
            buttons.addWidget(button)
        buttons.addStretch(1)
        hint = QLabel("A DSN is a secret: applications use it to send errors. If one leaks, rotate it.")
        hint.setWordWrap(True)
        self.notice = QLabel()
        self.notice.setWordWrap(True)
        self.notice.hide()
        self.demo_notice = QLabel(DEMO_PORT)
        self.demo_notice.setWordWrap(True)
        self.demo_notice.hide()
        self.allowed = True
        self.keys = host.context.repositories.client_keys
        self.settings = host.context.repositories.tracking_settings
        self.keys.subscribe_view(self, self._held_changed, lambda: project_path(self.host))
        self.settings.subscribe_view(self, self._held_changed, lambda: project_path(self.host))
        layout = QVBoxLayout(self)
        layout.addWidget(hint)
        layout.addWidget(self.demo_notice)
        layout.addWidget(self.notice)
        layout.addWidget(self.table, 1)
        layout.addLayout(buttons)
        self.confirm_box: QMessageBox | None = None
        self.wizard: RotateKeyWizard | None = None
        self._update_buttons()

    def selected_key(self) -> ClientKey | None:
        return self.model.key_at(self.table.currentIndex().row())

    def _selection_moved(self) -> None:
        key = self.selected_key()
        self.model.hide_unless(key.id if key is not None else None)
        self._update_buttons()

    def _update_buttons(self) -> None:
        key = self.selected_key()
        for button in (self.reveal_button, self.copy_button, self.delete_button):
            button.setEnabled(key is not None)
        self.reveal_button.setText("Hide DSN" if key is not None and self.model.is_revealed(key.id) else "Reveal DSN")
        self.rotate_button.setEnabled(bool(self.model.keys))
        self.create_button.setEnabled(self.host.project is not None and self.allowed)

    def load(self) -> None:
        project = self.host.project
        if project is None:
            return
        api, path = self.host.api, project.path_with_namespace

        async def load() -> Any:
            return await asyncio.gather(self.settings.fetch(api, path, project.id),
                                        self.keys.fetch(api, path, project.id))

        Op(self.host, load(), description="Loading client keys").success(lambda _found: self._show(True)).stale_when(
            self.host.project_choice).run()

    def _held_changed(self, change: Change) -> None:
        self._show(keys_changed=change.kind in (self.keys.kind, EVERYTHING))

    def _show(self, keys_changed: bool) -> None:
        """What is held for the chosen project: the notice always; the table when its keys changed (a table shown
        again hides every DSN)."""
        path = project_path(self.host)
        if path is None or self.keys.allowed(path) is None:
            return  # not read yet on this connection
        settings = self.settings.settings(path)
        self.allowed = bool(self.keys.allowed(path))
        self.notice.setText(MAINTAINER_ONLY if not self.allowed else "" if _keys_used(settings) else INTEGRATED_ONLY)
        self.notice.setVisible(bool(self.notice.text()))
        self.demo_notice.setVisible(self.host.context.profile_address == LOCAL_DEMO_PROFILE)
        if keys_changed:
            self.model.set_keys(self.keys.keys(path) or [])
        self._update_buttons()

    def toggle_reveal(self) -> None:
        key = self.selected_key()
        if key is not None:
            self.model.set_revealed(key.id, not self.model.is_revealed(key.id))
            self._update_buttons()

    def copy_dsn(self) -> None:
        key = self.selected_key()
        if key is not None:
            QGuiApplication.clipboard().setText(key.sentry_dsn)
            self.host.context.say(f"DSN of key {key.id} copied to the clipboard")

    def create_key(self) -> None:
        project = self.host.project
        if project is None:
            return

        async def create() -> None:
            key = await self.keys.create(self.host.api, project.path_with_namespace, project.id)
            self.host.context.say(f"Client key {key.id} created")

        Op(self.host, create(), description="Creating a client key").run()

    def confirm_delete(self) -> None:
        key = self.selected_key()
        if key is None:
            return
        box = QMessageBox(QMessageBox.Icon.Warning, "Delete client key",
                          f"Delete client key {key.id}? Applications using its DSN can no longer send errors.",
                          QMessageBox.StandardButton.Cancel, self)
        delete_button = box.addButton("Delete", QMessageBox.ButtonRole.DestructiveRole)
        box.setAttribute(Qt.WidgetAttribute.WA_DeleteOnClose)
        box.buttonClicked.connect(lambda button: self._delete_confirmed(key) if button is delete_button else None)
        self.confirm_box = box
        box.open()

    def _delete_confirmed(self, key: ClientKey) -> None:
        project = self.host.project
        if project is None:
            return

        async def delete() -> None:
            await self.keys.delete(self.host.api, project.path_with_namespace, project.id, key.id)
            self.host.context.say(f"Client key {key.id} deleted")

        Op(self.host, delete(), description="Deleting the client key").run()

    def open_rotate_wizard(self) -> RotateKeyWizard | None:
        project = self.host.project
        if project is None:
            return None
        old = self.selected_key() or (self.model.keys[0] if self.model.keys else None)
        wizard = RotateKeyWizard(self.host.context, self.host.api, project, old_key=old, parent=self)
        wizard.finished.connect(lambda _result: self.load())
        self.wizard = wizard
        wizard.open()
        return wizard
