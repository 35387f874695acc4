"""The vulnerability exports tab: request exports, watch them, save and preview the CSV."""

from __future__ import annotations

from pathlib import Path

from PySide6.QtCore import Qt, QTimer, Signal
from PySide6.QtGui import QResizeEvent, QShowEvent
from PySide6.QtWidgets import (
    QFileDialog,
    QGroupBox,
    QHBoxLayout,
    QLabel,
    QMessageBox,
    QProgressBar,
    QPushButton,
    QVBoxLayout,
    QWidget,
)

from console.context import AppContext
from console.core.api.errors import Forbidden, NotFound
from console.core.api.exports import ExportsApi, ExportScope
from console.core.exports import polling
from console.core.exports.store import ExportHistory, ExportRecord
from console.core.operations import Token
from console.core.store import EVERYTHING, Change
from console.exports.actions import ACTIONS
from console.exports.archive_dialog import ArchiveExportDialog, open_archive_dialog
from console.exports.columns import exports_table, fit_scope
from console.exports.dialogs import PreviewDialog
from console.exports.models import ExportsModel, utcnow
from console.exports.options_dialog import ExportOptionsBar
from console.exports.saving import ExportSaving
from console.exports.scope_picker import ScopePicker
from console.exports.watching import ExportWatches
from console.operations import Op
from console.settings import app_data_dir
from console.tab import ConsoleTab

# GitLab serves vulnerability exports in its Ultimate tier only: without it they answer 403 (EE) or 404 (CE).
ULTIMATE_ONLY = ("This GitLab does not offer vulnerability exports to you: they need GitLab Ultimate and at "
                 "least the Developer role on the project or group.")


class ExportsTab(ConsoleTab[ExportsApi]):
    """Exports requested from this console for the connected profile, with live status.

    Signals:
        export_finished(export id, text): an export watched here stopped running. The window hands it to
            the one notification path (console.notifications), so it is announced once however it was seen.
    """

    export_finished = Signal(int, str)
    views_added = Signal(QWidget)  # a preview: the window remembers its columns like the tab's (window_state)

    api_factory = ExportsApi

    def __init__(self, context: AppContext, parent: QWidget | None = None, *, history_dir: Path | None = None) -> None:
        super().__init__(context, parent)
        self.history_dir = history_dir if history_dir is not None else app_data_dir() / "exports"
        self.repository = context.repositories.exports
        self.history: ExportHistory | None = None  # the profile's, once read
        self.profiles = Token()  # a history read for an earlier profile is stale
        self.watches = ExportWatches(self, self._announce)  # one per running export
        self.wanted_export: int | None = None  # to select once the history has been read
        self.preview_dialog: PreviewDialog | None = None
        self.confirmation: QMessageBox | None = None  # the last "remove from list?" asked (kept for tests)

        self.picker = ScopePicker(self)
        self.request_button = QPushButton("Request export")
        self.request_button.clicked.connect(self.request_export)
        self.options_bar = ExportOptionsBar(context)  # CSV or PDF, filters, email
        request_box = QGroupBox("Request a vulnerability export")
        # The scope on one line, the options and the button on the next: together they would not fit 900 pixels.
        request_layout = QVBoxLayout(request_box)
        request_layout.addWidget(self.picker)
        request_row = QHBoxLayout()
        request_row.addWidget(self.options_bar, 1)
        request_row.addWidget(self.request_button)
        request_layout.addLayout(request_row)

        self.model = ExportsModel(self)
        self.table = exports_table(self.model)
        self.table.selectionModel().selectionChanged.connect(self.update_actions)
        self.table.doubleClicked.connect(lambda _index: self.preview())

        self.save_button = QPushButton("Save As…")
        self.preview_button = QPushButton("Preview…")
        self.regenerate_button = QPushButton("Regenerate")
        self.forget_button = QPushButton("Remove from list")
        self.archive_button = QPushButton("Archive export…")
        self.preview_button.clicked.connect(self.preview)
        self.regenerate_button.clicked.connect(self.regenerate)
        self.forget_button.clicked.connect(self.forget)
        self.notice = QLabel()
        self.notice.setTextInteractionFlags(Qt.TextInteractionFlag.TextSelectableByMouse)
        actions = QHBoxLayout()
        for widget in (self.save_button, self.preview_button, self.regenerate_button, self.forget_button,
                       self.archive_button):
            actions.addWidget(widget)
        actions.addStretch(1)
        self.saving = ExportSaving(self, self.notice)
        self.saving.downloading_changed.connect(self.update_actions)
        actions.addWidget(self.saving)

        layout = QVBoxLayout(self)
        layout.addWidget(request_box)
        layout.addWidget(QLabel("Exports requested from this console "
                                "(the server deletes each one after its lifetime):"))
        layout.addWidget(self.table, 1)
        layout.addLayout(actions)
        layout.addWidget(self.notice)

        self.clock = QTimer(self)
        self.clock.setInterval(1000)
        self.clock.timeout.connect(self._tick)
        self.clock.start()
        context.store.subscribe_view(self, self._store_changed)
        context.connection_changed.connect(self.load_profile)
        self.install_actions(ACTIONS)
        self.bind_button(self.save_button, "save_export")
        self.bind_button(self.archive_button, "archive_export")
        self.load_profile()

    # selection ---------------------------------------------------------------------
    def selected(self) -> ExportRecord | None:
        rows = self.table.selectionModel().selectedRows()
        return self.model.record(rows[0].row()) if rows else None

    def select_export(self, export_id: int) -> None:
        """Select the export; asked for while the history is still being read, as soon as it has been."""
        self.wanted_export = export_id if self.history is None and self.context.is_connected else None
        for row, record in enumerate(self.model.records):
            if record.id == export_id:
                self.table.selectRow(row)
                self.wanted_export = None
                return

    # profile -----------------------------------------------------------------------
    def load_profile(self) -> None:
        self.watches.stop_all()
        client = self.context.client
        self.history = None
        self.model.set_records(self.repository.held())  # what others (the overview) read meanwhile
        reading = self.profiles.advance()
        if client is not None:
            # The file is read in a worker thread; until it is, nothing is written over it.
            history = ExportHistory(self.history_dir, self.context.profile_key or "")
            Op.in_thread(self, history.load, description="Reading the export history", quiet=True).success(
                lambda records: self._history_read(history, records)).stale_when(reading).run()
            self.picker.results.clear()
            if self.isVisible():
                self.picker.search()
        self.request_button.setEnabled(client is not None)
        self.update_actions()

    def _history_read(self, history: ExportHistory, from_file: list[ExportRecord]) -> None:
        # What the store holds is newer (requested, or looked at by the watcher, while the file was read).
        newer = self.repository.take_history(from_file)
        self.history = history
        self.model.set_records(self.repository.held())
        for record in self.repository.held():
            if record.is_active:
                self.watches.watch(record)
        if newer:
            self._save_history()
        if self.wanted_export is not None:
            self.select_export(self.wanted_export)
        self.update_actions()

    def _store_changed(self, change: Change) -> None:
        """The list shows the exports the repository holds; the profile's history file keeps them."""
        if change.kind == EVERYTHING:
            self.model.set_records([])
        elif self.repository.touched_by(change):
            for key in change.ids:
                record = self.repository.record(int(key))
                if record is None:
                    self.model.remove(int(key))
                else:
                    self.model.upsert(record)
            self._save_history()
        self.update_actions()

    def _save_history(self) -> None:
        """Write the list in a worker thread; a later list written first is never replaced by an earlier one."""
        history = self.history
        if history is not None:
            Op.in_thread(self.context, history.save, self.repository.held(), history.next_save(),
                         description="Saving the export history", quiet=True).run()

    # requesting and watching ------------------------------------------------------
    def request_export(self) -> Op[None] | None:
        scope = self.picker.scope()
        if scope is None:
            self.report_failure("Requesting an export", "No scope chosen",
                                f"Search for a {self.picker.kind} and pick one first.")
            return None
        return Op(self, self._request(scope), description=f"Requesting an export of {scope.label}").run()

    async def _request(self, scope: ExportScope, *, replacing: int | None = None, options: dict | None = None) -> None:
        options = self.options_bar.request_body() if options is None else options
        try:
            record = await self.repository.request(self.api, scope, options, replacing=replacing)
        except (Forbidden, NotFound) as refused:
            if not self.context.server.is_outpost:
                self.notice.setText(ULTIMATE_ONLY)  # GitLab without Ultimate: 403, or 404 on a Free instance
                return
            if not isinstance(refused, NotFound) or scope.kind == "instance":
                raise  # a real permission problem, reported as such
            # The project or group was deleted (or access lost) since it was listed: say so and
            # refresh the list rather than leave a choice that cannot work.
            if self.picker.kind == scope.kind:
                self.picker.search()
            self.report_failure(
                f"Requesting an export of {scope.label}", f"Cannot export {scope.label}",
                f"The {scope.kind} {scope.label} no longer exists, or you can no longer export it. "
                f"The {scope.kind} list has been refreshed: pick another.")
            return
        self.select_export(record.id)
        self.context.say(f"Export {record.id} of {scope.label} requested")
        self.watches.watch(record)

    def _record(self, export_id: int) -> ExportRecord | None:
        return self.repository.record(export_id)

    def _announce(self, record: ExportRecord) -> None:
        text = polling.announcement(record.id, record.scope_label, record.status)
        self.notice.setText(text)
        self.context.say(text)  # the status bar's "requested" is over
        self.export_finished.emit(record.id, text)

    # actions -----------------------------------------------------------------------
    def offered(self) -> polling.Offered:
        return polling.offered(self.selected(), utcnow(), connected=self.context.is_connected)

    def open_archive_export(self) -> ArchiveExportDialog:
        """Archive export…: the dialog for the project chosen in the picker now (one at a time)."""
        scope = self.picker.scope()
        return open_archive_dialog(self, self, scope if scope is not None and scope.kind == "project" else None)

    def can_save(self) -> bool:
        return self.offered().save and not self.saving.downloading

    def update_actions(self) -> None:
        offered = self.offered()
        self.preview_button.setEnabled(offered.preview)
        self.regenerate_button.setEnabled(offered.regenerate)
        self.forget_button.setEnabled(self.can_delete_selection())
        self.saving.follow_selection(self.selected())
        super().update_actions()  # Save export, with its button

    # what the window asks of every tab ------------------------------------------------------------
    def refresh(self) -> None:
        self.picker.search()

    def find_field(self) -> QWidget:
        return self.picker.search_edit

    def can_delete_selection(self) -> bool:
        return self.selected() is not None

    def delete_selection(self) -> QMessageBox | None:
        """Edit > Delete (Del): asks first; the export cannot be listed again once removed."""
        record = self.selected()
        if record is None:
            return None
        box = self.confirmation = QMessageBox(
            QMessageBox.Icon.Question, "Remove from list", f"Remove export {record.id} of {record.scope_label} "
            "from the list? The console cannot list it again.",
            QMessageBox.StandardButton.Yes | QMessageBox.StandardButton.Cancel, self)
        box.setDefaultButton(QMessageBox.StandardButton.Cancel)
        yes = QMessageBox.StandardButton.Yes
        box.finished.connect(lambda answer: self._forget(record.id) if answer == yes else None)
        box.open()
        return box

    def resizeEvent(self, event: QResizeEvent) -> None:
        super().resizeEvent(event)
        fit_scope(self.table)  # from 1100 to 900 px, Scope gives way to "Format and filters"

    def showEvent(self, event: QShowEvent) -> None:
        # The scope list is fetched when the tab is first looked at, not on every connection.
        super().showEvent(event)
        if self.context.is_connected and self.picker.results.count() == 0:
            self.picker.search()

    def _tick(self) -> None:
        self.model.tick()
        self.update_actions()

    def regenerate(self) -> Op[None] | None:
        record = self.selected()
        if record is None:
            return None
        return Op(self, self._request(record.scope, replacing=record.id, options=record.request),
                  description=f"Regenerating the export of {record.scope_label}").run()

    def forget(self) -> None:
        record = self.selected()
        if record is not None:
            self._forget(record.id)

    def _forget(self, export_id: int) -> None:
        self.watches.stop(export_id)
        self.repository.forget(export_id)

    # saving (console.exports.saving) ------------------------------------------------------------------
    @property
    def download_task(self) -> Op[None] | None:
        return self.saving.task

    @property
    def file_dialog(self) -> QFileDialog | None:
        return self.saving.file_dialog

    @property
    def progress(self) -> QProgressBar:
        return self.saving.progress

    def save_as(self) -> QFileDialog | None:
        return self.saving.save_as(record) if self.can_save() and (record := self.selected()) else None

    def save_to(self, export_id: int, target: Path) -> Op[None] | None:
        record = self._record(export_id)
        return self.saving.save_to(record, target) if record is not None else None

    def cancel_download(self) -> None:
        self.saving.cancel()

    def preview(self) -> Op[None] | None:
        record = self.selected()
        if record is None or not record.can_download(utcnow()) or record.export_format != "csv":
            return None
        return Op(self, self._preview(record), description=f"Loading export {record.id}").run()

    async def _preview(self, record: ExportRecord) -> None:
        headers, rows, truncated = await self.api.preview(record.id)
        if self.preview_dialog is not None:
            self.preview_dialog.close()
        self.preview_dialog = PreviewDialog(f"export {record.id} of {record.scope_label}", headers, rows,
                                            truncated=truncated, parent=self)
        self.views_added.emit(self.preview_dialog)
        self.preview_dialog.open()
