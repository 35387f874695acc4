"""The overview's Storage box, for administrators: what error tracking stores on the server, in total and
for the projects storing the most (console.core.api.storage; against a GitLab it says the figures are not available)."""

from __future__ import annotations

from PySide6.QtWidgets import QGroupBox, QLabel, QVBoxLayout

from console.context import AppContext
from console.core.api.storage import NOT_AVAILABLE, describe_storage, instance_storage
from console.core.operations import Token
from console.operations import Op
from outpost_model.retention import Storage


class StorageBox(QGroupBox):
    def __init__(self, context: AppContext) -> None:
        super().__init__("Error tracking storage")
        self.context = context
        self.loads = Token()
        self.figures: Storage | None = None
        self.text = QLabel()
        self.text.setWordWrap(True)
        self.text.setAccessibleName("Error tracking storage on this server")
        layout = QVBoxLayout(self)
        layout.addWidget(self.text)
        self.hide()
        context.connection_changed.connect(self.load)
        self.load()

    def load(self) -> None:
        loading = self.loads.advance()  # an answer for an earlier connection is dropped
        self.figures = None
        client = self.context.client
        if client is None or not self.context.is_admin:
            self.text.clear()
            self.hide()
            return
        if not self.context.server.is_outpost:  # GitLab has no such API: say so without asking
            self._show(NOT_AVAILABLE)
            return
        self.text.setText("Reading the storage figures…")
        self.show()
        Op(self.context, instance_storage(client), description="Reading the storage figures").success(
            self._show).stale_when(loading).run()

    def _show(self, result: Storage | str) -> None:
        if isinstance(result, str):
            self.text.setText(result)
        else:
            self.figures = result
            self.text.setText(describe_storage(result))
        self.show()
