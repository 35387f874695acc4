"""The CI/CD variables tab."""

from __future__ import annotations

import asyncio
from functools import partial
from pathlib import Path

from PySide6.QtGui import QGuiApplication
from PySide6.QtWidgets import (
    QFileDialog,
    QHBoxLayout,
    QLabel,
    QLineEdit,
    QMessageBox,
    QPushButton,
    QVBoxLayout,
    QWidget,
)

from console.context import AppContext
from console.core.api.variables import Variable, VariablesApi, value_of
from console.core.repositories.variables import INSTANCE, VARIABLES, VARIABLES_LIMIT
from console.core.store import EVERYTHING, Change
from console.core.variables import bulk
from console.file_dialogs import VARIABLES_EXPORT, VARIABLES_IMPORT, file_dialog
from console.operations import Op
from console.tab import ConsoleTab
from console.variables.actions import ACTIONS
from console.variables.dialogs import ImportPreviewDialog, VariableDialog
from console.variables.models import VariablesFilterProxy, VariablesModel
from console.variables.table import VariablesTable
from console.variables.transfer import read_import, write_export

FILE_FILTERS = "Environment files (*.env);;JSON files (*.json);;All files (*)"
ROW_BY_ROW = 50  # more changed variables than this are shown with one reset of the table


class VariablesTab(ConsoleTab[VariablesApi]):
    """Instance variables of the connected server: browse, filter, edit, import and export."""

    api_factory = VariablesApi

    def __init__(self, context: AppContext, parent: QWidget | None = None) -> None:
        super().__init__(context, parent)
        self.repository = context.repositories.variables
        self.dialog: VariableDialog | None = None
        self.import_dialog: ImportPreviewDialog | None = None
        self.confirmation: QMessageBox | None = None

        self.model = VariablesModel(self)
        self.proxy = VariablesFilterProxy(self)
        self.proxy.setSourceModel(self.model)
        self.table = VariablesTable(self.model, self.proxy)

        self.filter_edit = QLineEdit()
        self.filter_edit.setPlaceholderText("Filter by key, value or description")
        self.filter_edit.setClearButtonEnabled(True)
        self.count_label = QLabel()
        self.count_label.setObjectName("variableCount")
        self.notice_label = QLabel()
        self.notice_label.setWordWrap(True)
        self.notice_label.hide()
        self.add_button = QPushButton("Add variable…")
        self.edit_button = QPushButton("Edit…")
        self.delete_button = QPushButton("Delete…")
        self.reveal_button = QPushButton("Reveal value")
        self.copy_button = QPushButton("Copy value")
        self.import_button = QPushButton("Import…")
        self.export_button = QPushButton("Export…")
        self.refresh_button = QPushButton("Refresh")

        top = QHBoxLayout()
        top.addWidget(self.filter_edit, 1)
        top.addWidget(self.count_label)
        actions = QHBoxLayout()
        for button in (self.add_button, self.edit_button, self.delete_button, self.reveal_button, self.copy_button):
            actions.addWidget(button)
        actions.addStretch(1)
        for button in (self.import_button, self.export_button, self.refresh_button):
            actions.addWidget(button)
        layout = QVBoxLayout(self)
        layout.addLayout(top)
        layout.addWidget(self.notice_label)
        layout.addWidget(self.table, 1)
        layout.addLayout(actions)

        self.filter_edit.textChanged.connect(self._filter_changed)
        self.edit_button.clicked.connect(self.edit_selected)
        self.delete_button.clicked.connect(self.delete_selected)
        self.reveal_button.clicked.connect(self.toggle_reveal)
        self.copy_button.clicked.connect(self.copy_value)
        self.import_button.clicked.connect(self.choose_import_file)
        self.export_button.clicked.connect(self.choose_export_file)
        self.refresh_button.clicked.connect(self.refresh)
        self.table.doubleClicked.connect(lambda _index: self.edit_selected())
        self.table.selectionModel().selectionChanged.connect(lambda *_: self._selection_moved())
        context.store.subscribe_view(self, self._store_changed)
        context.connection_changed.connect(self._connection_changed)
        self.install_actions(ACTIONS)
        self.bind_button(self.add_button, "new_variable")
        self._connection_changed()

    # helpers ---------------------------------------------------------------------------------
    def selected_rows(self) -> list[int]:
        return self.table.selected_rows()

    def select_key(self, key: str) -> None:
        self.table.select_key(key)

    def _selection_moved(self) -> None:
        self.model.hide_unless(self.selected_rows())
        self._update_buttons()

    def _update_buttons(self) -> None:
        rows = self.selected_rows()
        connected = self.context.client is not None
        single = len(rows) == 1
        for button in (self.import_button, self.refresh_button):
            button.setEnabled(connected)
        self.export_button.setEnabled(connected and self.model.rowCount() > 0)
        self.edit_button.setEnabled(single)
        self.delete_button.setEnabled(self.can_delete_selection())
        self.copy_button.setEnabled(single)
        masked = [row for row in rows if self.model.variable(row).masked]
        self.reveal_button.setEnabled(bool(masked))
        revealed = masked and not any(self.model.is_hidden(row) for row in masked)
        self.reveal_button.setText("Hide value" if revealed else "Reveal value")
        self.update_actions()

    # what the window asks of every tab ------------------------------------------------------------
    def find_field(self) -> QWidget:
        return self.filter_edit

    def can_delete_selection(self) -> bool:
        return len(self.selected_rows()) == 1 and self.context.is_connected

    def delete_selection(self) -> QMessageBox | None:
        return self.delete_selected()

    def copy_selection(self, focus: QWidget | None) -> bool:
        """On the list, Copy copies the selected variable's value, revealed or not."""
        if focus is not self.table:
            return False
        self.copy_value()
        return True

    @property
    def limit(self) -> int | None:
        """The instance's limit on the number of variables, as the repository holds it (whoever read it)."""
        return self.repository.limit()

    def _update_count(self) -> None:
        count, limit = self.model.rowCount(), self.limit
        if limit:
            text = f"{count} of {limit}"
            tooltip = "Instance variables defined, out of the maximum the instance allows"
        else:
            text = f"{count} variable{'s' if count != 1 else ''}"
            tooltip = "No limit on the number of instance variables" if limit == 0 else (
                "The limit on the number of variables is not readable with this account")
        shown = self.proxy.rowCount()
        if shown != count:
            text = f"{shown} shown · {text}"
        self.count_label.setText(text)
        self.count_label.setToolTip(tooltip)

    def _filter_changed(self, text: str) -> None:
        self.proxy.set_filter_text(text)
        self._update_count()

    def _set_notice(self, text: str) -> None:
        self.notice_label.setText(text)
        self.notice_label.setVisible(bool(text))

    # loading ---------------------------------------------------------------------------------
    def _store_changed(self, change: Change) -> None:
        """The table shows the variables the repository holds, whoever read them (this tab, an import, an export,
        the overview)."""
        if change.kind == EVERYTHING:
            self.model.set_variables([])
        elif change.touches(VARIABLES_LIMIT, INSTANCE):
            self._update_count()
            return
        elif not change.touches(VARIABLES, INSTANCE):
            return
        elif len(change.ids) > ROW_BY_ROW:  # a whole list: one reset, row by row would be slow with thousands
            self._show_all()
        else:
            for key in change.ids:
                variable = self.repository.variable(key)
                if variable is None:
                    self.model.remove(key)
                else:
                    self.model.upsert(variable)
        self._update_count()
        self._update_buttons()

    def _show_all(self) -> None:
        selected = [self.model.variable(row).key for row in self.selected_rows()]
        self.model.set_variables(self.repository.variables())
        self.table.fit_columns()
        for key in selected:
            self.select_key(key)

    def _connection_changed(self) -> None:
        self._show_all()  # what the store holds already (the overview may have read the list)
        self._update_count()
        self._update_buttons()
        if self.context.client is None:
            self._set_notice("")
        elif not self.context.is_admin:
            self._set_notice("Instance CI/CD variables can only be managed by an administrator.")
        else:
            self._set_notice("")
            self.refresh()

    def refresh(self) -> Op[tuple[list[Variable], int | None]] | None:
        if not self.context.is_connected:
            return None
        # An answer for an earlier connection is stale: the tab owns the operation.
        return Op(self, self._load(self.api), description="Loading CI/CD variables").success(self._show).run()

    async def _load(self, api: VariablesApi) -> tuple[list[Variable], int | None]:
        variables, limit = await asyncio.gather(self.repository.fetch(api), self.repository.fetch_limit(api))
        return variables, limit

    def _show(self, _loaded: tuple[list[Variable], int | None]) -> None:
        self.model.hide_unless([])  # a reloaded table shows every masked value hidden again
        self.variables_listed()

    # single variables --------------------------------------------------------------------------
    def _taken_keys(self) -> set[str]:
        return {variable.key for variable in self.model.variables}

    def add_variable(self) -> VariableDialog | None:
        if not self.context.is_connected:
            return None
        return self._open_dialog(VariableDialog(self.context, save=partial(self.repository.create, self.api),
                                                taken=self._taken_keys(), parent=self))

    def edit_selected(self) -> VariableDialog | None:
        rows = self.selected_rows()
        if len(rows) != 1 or not self.context.is_connected:
            return None
        variable = self.model.variable(rows[0])
        return self._open_dialog(VariableDialog(self.context, save=partial(self.repository.update, self.api),
                                                taken=self._taken_keys(), variable=variable, parent=self))

    def _open_dialog(self, dialog: VariableDialog) -> VariableDialog:
        dispose(self.dialog)
        self.dialog = dialog

        def saved() -> None:
            if dialog.saved_variable is not None:  # the repository holds it: the table shows it already
                self.select_key(dialog.saved_variable.key)
                self.context.say(f"Saved variable {dialog.saved_variable.key}")

        dialog.accepted.connect(saved)
        dialog.open()
        return dialog

    def delete_selected(self) -> QMessageBox | None:
        rows = self.selected_rows()
        if len(rows) != 1 or not self.context.is_connected:
            return None
        api = self.api
        key = self.model.variable(rows[0]).key
        box = QMessageBox(QMessageBox.Icon.Warning, "Delete variable",
                          f"Delete the variable {key}?",
                          QMessageBox.StandardButton.Yes | QMessageBox.StandardButton.Cancel, self)
        box.setInformativeText("Pipelines will no longer receive it. This cannot be undone.")
        box.setDefaultButton(QMessageBox.StandardButton.Cancel)
        box.button(QMessageBox.StandardButton.Yes).setText(f"Delete {key}")

        def answered(result: int) -> None:
            if result == QMessageBox.StandardButton.Yes:
                Op(self, self.repository.delete(api, key), description=f"Deleting variable {key}").run()

        box.finished.connect(answered)
        dispose(self.confirmation)
        self.confirmation = box
        box.open()
        return box

    def toggle_reveal(self) -> None:
        rows = self.selected_rows()
        reveal = any(self.model.is_hidden(row) for row in rows)
        for row in rows:
            if self.model.variable(row).masked:
                self.model.set_revealed(row, reveal)
        self._update_buttons()

    def copy_value(self) -> None:
        rows = self.selected_rows()
        if len(rows) != 1:
            return
        variable = self.model.variable(rows[0])
        QGuiApplication.clipboard().setText(value_of(variable))
        self.context.say(f"Copied the value of {variable.key} to the clipboard")

    # import and export --------------------------------------------------------------------------
    def choose_import_file(self) -> QFileDialog:
        dialog = file_dialog(self, VARIABLES_IMPORT, "Import variables", FILE_FILTERS, save=False)
        dialog.fileSelected.connect(lambda path: self.import_file(Path(path)))
        dialog.open()
        return dialog

    def import_file(self, path: Path) -> Op[None] | None:
        if not self.context.is_connected:
            return None
        if self.import_dialog is not None and self.import_dialog.applying:
            self.report_failure(f"Reading {path.name}", f"Cannot import {path.name}",
                                "The previous import is still being applied.")
            self.import_dialog.raise_()
            return None
        return Op(self, read_import(self, self.repository, self.api, path), description=f"Reading {path.name}").run()

    def variables_listed(self) -> None:
        """The server's whole list was read (a load, an import): the table, which follows the repository, fits it."""
        self.table.fit_columns()
        self._update_count()  # the limit may have changed, the list not

    def preview_import(self, api: VariablesApi, source: str, plans: dict[bool, bulk.ImportPlan]) -> None:
        dialog = ImportPreviewDialog(self.context, api=api, source=source, plans=plans, parent=self)
        dialog.applied.connect(self.refresh)
        dispose(self.import_dialog)
        self.import_dialog = dialog
        dialog.open()

    def choose_export_file(self) -> QFileDialog:
        dialog = file_dialog(self, VARIABLES_EXPORT, "Export variables", FILE_FILTERS, file_name="variables.env",
                             save=True)
        dialog.fileSelected.connect(lambda path: self.export_to(Path(path)))
        dialog.open()
        return dialog

    def export_to(self, path: Path) -> Op[None] | None:
        if not self.context.is_connected:
            return None
        return Op(self, write_export(self.context, self.repository, self.api, path),
                  description=f"Exporting variables to {path.name}").run()


def dispose(dialog: QWidget | None) -> None:
    """Let a finished dialog go once the next one replaces it (kept until then for inspection)."""
    if dialog is not None:
        dialog.deleteLater()
