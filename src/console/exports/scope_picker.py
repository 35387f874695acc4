"""The scope of a vulnerability export: a project or group found by searching the API, or the instance."""

from __future__ import annotations

from collections.abc import Coroutine
from typing import TYPE_CHECKING, Any

from PySide6.QtCore import QTimer
from PySide6.QtWidgets import QButtonGroup, QComboBox, QHBoxLayout, QLineEdit, QRadioButton, QVBoxLayout, QWidget

from console.core.api.exports import ExportScope
from console.core.operations import Token
from console.operations import Op
from outpost_model.accounts import Group
from outpost_model.projects import Project

if TYPE_CHECKING:
    from console.core.api.exports import ExportsApi
    from console.page_host import PageHost

SEARCH_DELAY_MS = 300


class ScopePicker(QWidget):
    """Chooses the export's scope: a project or group found by searching the API, or the instance."""

    def __init__(self, host: PageHost[ExportsApi]) -> None:
        super().__init__()
        self.host = host
        self.kind = "project"
        self.searches = Token()
        self.kind_buttons = QButtonGroup(self)
        row = QHBoxLayout()
        for kind, label in (("project", "Project"), ("group", "Group"), ("instance", "Instance")):
            button = QRadioButton(label)
            button.setProperty("scope_kind", kind)
            button.setChecked(kind == "project")
            self.kind_buttons.addButton(button)
            row.addWidget(button)
        self.search_edit = QLineEdit()
        self.search_edit.setClearButtonEnabled(True)
        self.results = QComboBox()
        self.results.setMinimumWidth(320)
        row.addWidget(self.search_edit, 1)
        row.addWidget(self.results, 2)
        layout = QVBoxLayout(self)
        layout.setContentsMargins(0, 0, 0, 0)
        layout.addLayout(row)
        self.search_timer = QTimer(self)
        self.search_timer.setSingleShot(True)
        self.search_timer.setInterval(SEARCH_DELAY_MS)
        self.search_timer.timeout.connect(self.search)
        self.search_edit.textEdited.connect(lambda _text: self.search_timer.start())
        self.kind_buttons.buttonToggled.connect(self._kind_toggled)
        self._show_kind()

    def _kind_toggled(self, button: QRadioButton, checked: bool) -> None:
        if checked:
            self.kind = button.property("scope_kind")
            self._show_kind()
            self.search()

    def _show_kind(self) -> None:
        self.searches.advance()  # answers to searches of the previous kind are stale now
        instance = self.kind == "instance"
        self.search_edit.setEnabled(not instance)
        self.results.setEnabled(not instance)
        self.search_edit.setPlaceholderText("" if instance else f"Search {self.kind}s by name or path…")
        self.results.clear()
        if instance:
            self.results.addItem("Every project where you are Developer or more")

    def set_kind(self, kind: str) -> None:
        for button in self.kind_buttons.buttons():
            if button.property("scope_kind") == kind:
                button.setChecked(True)

    def search(self) -> None:
        if self.kind == "instance" or not self.host.context.is_connected:
            return
        kind, text = self.kind, self.search_edit.text().strip()
        api = self.host.api
        found: Coroutine[Any, Any, list[Project] | list[Group]] = (
            api.search_projects(text) if kind == "project" else api.search_groups(text))
        # A newer search (or another kind) supersedes this one.
        Op(self.host, found, description=f"Searching {kind}s").success(self._fill).stale_when(
            self.searches.advance()).run()

    def _fill(self, found: list[Project] | list[Group]) -> None:
        chosen = self.results.currentData()
        self.results.clear()
        for item in found:
            label = item.path_with_namespace if isinstance(item, Project) else item.full_path
            self.results.addItem(label, item.id)
        if chosen is not None and (row := self.results.findData(chosen)) >= 0:
            self.results.setCurrentIndex(row)

    def scope(self) -> ExportScope | None:
        if self.kind == "instance":
            return ExportScope("instance")
        if self.results.currentIndex() < 0 or self.results.currentData() is None:
            return None
        return ExportScope(self.kind, int(self.results.currentData()), self.results.currentText())
