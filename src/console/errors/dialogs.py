"""The client key rotation wizard: create a new key, list the keys, confirm the new DSN is deployed,
then delete the old key (the order of the spec's rotation procedure, so no event is refused meanwhile)."""

from __future__ import annotations

from typing import TYPE_CHECKING

from PySide6.QtCore import Qt
from PySide6.QtGui import QGuiApplication
from PySide6.QtWidgets import (
    QAbstractItemView,
    QCheckBox,
    QComboBox,
    QHBoxLayout,
    QHeaderView,
    QLabel,
    QLineEdit,
    QPushButton,
    QTableView,
    QVBoxLayout,
    QWizard,
    QWizardPage,
)

from console.context import AppContext
from console.errors.models import ClientKeyModel
from console.operations import Op
from outpost_model.error_tracking import ClientKey
from outpost_model.projects import Project

if TYPE_CHECKING:
    from console.core.api.error_tracking import ErrorTrackingApi


class _StepPage(QWizardPage):
    """A page that is complete once its asynchronous step succeeded."""

    def __init__(self, wizard: RotateKeyWizard, title: str, text: str) -> None:
        super().__init__()
        self.rotation = wizard
        self.done = False
        self.setTitle(title)
        self.explanation = QLabel(text)
        self.explanation.setWordWrap(True)
        self.status = QLabel()
        self.status.setWordWrap(True)
        self.layout_ = QVBoxLayout(self)
        self.layout_.addWidget(self.explanation)

    def isComplete(self) -> bool:
        return self.done

    def mark_done(self) -> None:
        self.done = True
        self.completeChanged.emit()


class CreateKeyPage(_StepPage):
    def __init__(self, wizard: RotateKeyWizard) -> None:
        super().__init__(wizard, "1. Create a new key",
                         "A new client key gets its own DSN. The old key keeps working until the last step.")
        self.create_button = QPushButton("Create new key")
        self.create_button.clicked.connect(self.create)
        self.new_dsn = QLineEdit()
        self.new_dsn.setReadOnly(True)
        self.new_dsn.setPlaceholderText("The new DSN appears here")
        self.copy_button = QPushButton("Copy")
        self.copy_button.setEnabled(False)
        self.copy_button.clicked.connect(lambda: QGuiApplication.clipboard().setText(self.new_dsn.text()))
        row = QHBoxLayout()
        row.addWidget(self.new_dsn, 1)
        row.addWidget(self.copy_button)
        self.layout_.addWidget(self.create_button)
        self.layout_.addLayout(row)
        self.layout_.addWidget(self.status)

    def create(self) -> None:  # type: ignore[override]  # the dialog's Create action, not QWidget.create
        self.create_button.setEnabled(False)

        async def create() -> None:
            try:
                key = await self.rotation.api.create_client_key(self.rotation.project.id)
            except BaseException:
                self.create_button.setEnabled(True)
                raise
            self.rotation.new_key = key
            self.new_dsn.setText(key.sentry_dsn)
            self.copy_button.setEnabled(True)
            self.status.setText(f"Key {key.id} created.")
            self.mark_done()

        Op(self.rotation.context, create(), description="Creating the new client key").run()


class ListKeysPage(_StepPage):
    def __init__(self, wizard: RotateKeyWizard) -> None:
        super().__init__(wizard, "2. Check the keys",
                         "These are the project's keys; the new one is in bold. Choose the old key to retire.")
        self.model = ClientKeyModel(self)
        self.table = QTableView()
        self.table.setModel(self.model)
        self.table.verticalHeader().hide()
        self.table.setSelectionMode(QAbstractItemView.SelectionMode.NoSelection)
        self.table.setWordWrap(False)
        self.table.horizontalHeader().setSectionResizeMode(ClientKeyModel.DSN, QHeaderView.ResizeMode.Stretch)
        self.old_key = QComboBox()
        self.old_key.currentIndexChanged.connect(self._old_key_chosen)
        self.layout_.addWidget(self.table, 1)
        row = QHBoxLayout()
        row.addWidget(QLabel("Key to delete"))
        row.addWidget(self.old_key, 1)
        self.layout_.addLayout(row)
        self.layout_.addWidget(self.status)

    def initializePage(self) -> None:
        self.done = False
        self.status.setText("Loading the keys…")

        async def load() -> None:
            keys = await self.rotation.api.client_keys(self.rotation.project.id)
            new = self.rotation.new_key
            self.model.highlighted = new.id if new else None
            self.model.set_keys(keys)
            if new is not None:
                self.model.set_revealed(new.id, True)
            self.old_key.blockSignals(True)
            self.old_key.clear()
            for key in keys:
                if new is None or key.id != new.id:
                    self.old_key.addItem(f"Key {key.id} ({key.public_key[:9]}…)", key)
            preferred = self.rotation.old_key
            index = next((i for i in range(self.old_key.count()) if preferred and self.old_key.itemData(i).id
                          == preferred.id), 0)
            self.old_key.setCurrentIndex(index if self.old_key.count() else -1)
            self.old_key.blockSignals(False)
            self._old_key_chosen(self.old_key.currentIndex())
            self.status.setText(f"{len(keys)} keys." if self.old_key.count() else "There is no other key to delete.")
            self.mark_done()

        Op(self.rotation.context, load(), description="Loading client keys").run()

    def _old_key_chosen(self, index: int) -> None:
        self.rotation.old_key = self.old_key.itemData(index) if index >= 0 else None


class ConfirmDeployPage(_StepPage):
    def __init__(self, wizard: RotateKeyWizard) -> None:
        super().__init__(wizard, "3. Deploy the new DSN",
                         "Configure every application that used the old key with the new DSN and deploy it. "
                         "Events sent with the old DSN are refused once it is deleted.")
        self.dsn = QLineEdit()
        self.dsn.setReadOnly(True)
        self.confirmed = QCheckBox("The new DSN is deployed everywhere the old key was used")
        self.confirmed.toggled.connect(lambda checked: self.mark_done() if checked else self._undo())
        self.layout_.addWidget(self.dsn)
        self.layout_.addWidget(self.confirmed)

    def initializePage(self) -> None:
        self.dsn.setText(self.rotation.new_key.sentry_dsn if self.rotation.new_key else "")

    def _undo(self) -> None:
        self.done = False
        self.completeChanged.emit()


LATER = ("Or finish without deleting it: the old key keeps working, and you can delete it later on the Client "
         "keys page (select it, then Delete).")


class DeleteOldKeyPage(_StepPage):
    """The last step, and an optional one: Finish is offered whether or not the old key was deleted."""

    def __init__(self, wizard: RotateKeyWizard) -> None:
        super().__init__(wizard, "4. Delete the old key", "")
        self.delete_button = QPushButton("Delete old key")
        self.delete_button.clicked.connect(self.delete)
        self.layout_.addWidget(self.delete_button)
        self.layout_.addWidget(self.status)

    def isComplete(self) -> bool:
        return True

    def initializePage(self) -> None:
        old = self.rotation.old_key
        self.explanation.setText(f"Delete key {old.id} now: its DSN stops working at once. {LATER}" if old
                                 else "There is no old key to delete.")
        self.delete_button.setEnabled(old is not None)
        if old is not None:
            self.status.clear()
        self.done = old is None

    def delete(self) -> None:
        old = self.rotation.old_key
        if old is None:
            return
        self.delete_button.setEnabled(False)

        async def delete() -> None:
            try:
                await self.rotation.api.delete_client_key(self.rotation.project.id, old.id)
            except BaseException:
                self.delete_button.setEnabled(True)
                raise
            self.status.setText(f"Key {old.id} deleted. The rotation is complete.")
            self.rotation.old_key = None  # back and forth again, there is nothing left to delete
            self.mark_done()

        Op(self.rotation.context, delete(), description="Deleting the old client key").run()


class RotateKeyWizard(QWizard):
    def __init__(self, context: AppContext, api: ErrorTrackingApi, project: Project, *,
                 old_key: ClientKey | None, parent=None) -> None:
        super().__init__(parent)
        self.context = context
        self.api = api
        self.project = project
        self.old_key = old_key
        self.new_key: ClientKey | None = None
        self.setWindowTitle(f"Rotate a client key of {project.path_with_namespace}")
        self.setWizardStyle(QWizard.WizardStyle.ClassicStyle)
        self.setAttribute(Qt.WidgetAttribute.WA_DeleteOnClose)
        self.create_page = CreateKeyPage(self)
        self.list_page = ListKeysPage(self)
        self.confirm_page = ConfirmDeployPage(self)
        self.delete_page = DeleteOldKeyPage(self)
        for page in (self.create_page, self.list_page, self.confirm_page, self.delete_page):
            self.addPage(page)
        self.resize(640, 420)
