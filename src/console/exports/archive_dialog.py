"""The archive export of a project (Exports > Archive export…): a date range, the export created and watched
until it is finished, then Save CSV…

GitLab exports the vulnerabilities it archived within the range (those older than a year); Outpost exports
those detected within it. The project is the one chosen in the tab's picker.
"""

from __future__ import annotations

import asyncio
import datetime as dt
from pathlib import Path
from typing import TYPE_CHECKING

from PySide6.QtCore import QDate, Qt
from PySide6.QtWidgets import (
    QDateEdit,
    QDialog,
    QDialogButtonBox,
    QFileDialog,
    QFormLayout,
    QLabel,
    QPushButton,
    QScrollArea,
    QVBoxLayout,
    QWidget,
)

from console.accessibility import give_accessible_names
from console.core.api.errors import NotFound, readable
from console.core.api.exports import ExportScope
from console.core.exports import polling
from console.core.exports.options import ARCHIVE_DATE_GITLAB, ARCHIVE_DATE_OUTPOST, archive_range_problem, csv_records
from console.core.operations import blocking
from console.file_dialogs import ARCHIVE_EXPORT, file_dialog
from console.operations import Op
from outpost_model.exports import ArchiveExport, Export

if TYPE_CHECKING:
    from console.core.api.exports import ExportsApi
    from console.page_host import PageHost

STATUS_LINES = 4  # room for a saved file's long path and what the file holds
NO_PROJECT = "Archive exports are made per project: choose a project in the Exports tab first."
NOT_OFFERED = ("This GitLab does not offer archive exports to you: they need GitLab Ultimate, a version that has "
               "them (GitLab 18) and at least the Developer role on the project.")


def _date(value: QDate) -> dt.date:
    return dt.date(value.year(), value.month(), value.day())


def open_archive_dialog(tab: QWidget, host: PageHost[ExportsApi], project: ExportScope | None
                        ) -> ArchiveExportDialog:
    """The tab's archive export dialog, made for ``project`` (one at a time)."""
    for old in tab.findChildren(ArchiveExportDialog):
        if not old.isVisible():
            old.deleteLater()
        elif old.watcher is None or old.watcher.done():
            old.close()
            old.deleteLater()
        else:
            old.raise_()  # an export still being watched stays; the user saves it from there
            return old
    dialog = ArchiveExportDialog(host, project, tab)
    dialog.open()
    return dialog


class ArchiveExportDialog(QDialog):
    def __init__(self, host: PageHost[ExportsApi], project: ExportScope | None, parent: QWidget) -> None:
        super().__init__(parent)
        self.host = host
        self.project = project
        self.export_id: int | None = None
        self.watcher: Op[None] | None = None
        self.saving: Op[tuple[int, int]] | None = None
        self.file_dialog: QFileDialog | None = None
        self.setWindowTitle("Archive export")
        today = QDate.currentDate()
        self.start_edit = QDateEdit(today.addYears(-1))
        self.end_edit = QDateEdit(today)
        for edit in (self.start_edit, self.end_edit):
            edit.setCalendarPopup(True)
            edit.setDisplayFormat("yyyy-MM-dd")
            edit.setMaximumDate(today)
        self.create_button = QPushButton("Create archive export")
        self.create_button.clicked.connect(self.request)
        self.save_button = QPushButton("Save CSV…")
        self.save_button.setEnabled(False)
        self.save_button.clicked.connect(self.save_as)
        self.status = QLabel(NO_PROJECT if project is None else "")
        self.status.setWordWrap(True)
        self.status.setAlignment(Qt.AlignmentFlag.AlignTop | Qt.AlignmentFlag.AlignLeft)
        form = QFormLayout()
        form.addRow("Project", QLabel(project.label if project is not None else "none chosen"))
        form.addRow("Start date", self.start_edit)
        form.addRow("End date", self.end_edit)
        buttons = QDialogButtonBox(QDialogButtonBox.StandardButton.Close)
        buttons.addButton(self.create_button, QDialogButtonBox.ButtonRole.ActionRole)
        buttons.addButton(self.save_button, QDialogButtonBox.ButtonRole.ActionRole)
        buttons.rejected.connect(self.reject)
        layout = QVBoxLayout(self)
        layout.addWidget(QLabel("The project's vulnerabilities of a range of days (both included), as a CSV."))
        self.date_note = QLabel(ARCHIVE_DATE_OUTPOST if host.context.server.is_outpost else ARCHIVE_DATE_GITLAB)
        self.date_note.setWordWrap(True)
        layout.addWidget(self.date_note)
        layout.addLayout(form)
        layout.addWidget(self._status_area())
        layout.addWidget(buttons)
        self.create_button.setEnabled(project is not None)
        self.finished.connect(lambda _result: self._stop_watching())
        give_accessible_names(self)  # built after the tab was named

    def _status_area(self) -> QScrollArea:
        """The status in a space kept for it from the start: a long line (a saved file's path) wraps inside it,
        and the date rows above never move or shrink; a longer one scrolls."""
        area = QScrollArea()
        area.setFrameShape(QScrollArea.Shape.NoFrame)
        area.setWidgetResizable(True)
        area.setHorizontalScrollBarPolicy(Qt.ScrollBarPolicy.ScrollBarAlwaysOff)
        area.setWidget(self.status)
        area.setFixedHeight(self.fontMetrics().lineSpacing() * STATUS_LINES + 4)
        return area

    def set_range(self, start: dt.date, end: dt.date) -> None:
        self.start_edit.setDate(QDate(start.year, start.month, start.day))
        self.end_edit.setDate(QDate(end.year, end.month, end.day))

    # creating and watching ------------------------------------------------------------------
    def request(self) -> Op[ArchiveExport] | None:
        if self.project is None or self.project.id is None:
            self.status.setText(NO_PROJECT)
            return None
        start, end = _date(self.start_edit.date()), _date(self.end_edit.date())
        problem = archive_range_problem(start, end, dt.date.today())
        if problem is not None:
            self.status.setText(problem)
            return None
        self._stop_watching()
        self.export_id = None
        self.save_button.setEnabled(False)
        self.create_button.setEnabled(False)
        self.status.setText(f"Requesting the archive export of {start} to {end}…")
        return Op(self.host, self.host.api.create_archive(self.project.id, start, end),
                  description=f"Requesting an archive export of {self.project.label}").success(
            self._created).failure(self._refused).run()

    def _refused(self, exc: Exception) -> None:
        self.create_button.setEnabled(True)
        not_offered = isinstance(exc, NotFound) and not self.host.context.server.is_outpost
        self.status.setText(NOT_OFFERED if not_offered else readable(exc))

    def _created(self, body: ArchiveExport) -> None:
        self.export_id = body.id
        self._show_state(body)
        self.watcher = Op(self.host, self._watch(self.export_id), description=f"Checking archive export "
                          f"{self.export_id}", quiet=True).failure(self._refused).run()

    async def _watch(self, export_id: int) -> None:
        await asyncio.sleep(polling.FIRST_POLL_SECONDS)
        while True:
            state = await self.host.api.state(export_id, archive=True)
            if export_id != self.export_id:
                return
            self._show_state(state.body)
            wait = polling.next_wait(state)
            if wait is None:
                return
            await asyncio.sleep(wait)

    def _show_state(self, body: Export | ArchiveExport) -> None:
        status = body.status
        self.status.setText(f"Archive export {self.export_id}: {status}")
        finished = status == "finished"
        self.save_button.setEnabled(finished)
        self.create_button.setEnabled(not polling.is_running(status))

    def _stop_watching(self) -> None:
        if self.watcher is not None:
            self.watcher.cancel()
            self.watcher = None

    # saving ---------------------------------------------------------------------------------
    def suggested_name(self) -> str:
        slug = (self.project.label if self.project else "project").replace("/", "-")
        start, end = _date(self.start_edit.date()), _date(self.end_edit.date())
        return f"{slug}_vulnerabilities_archive_{start}..{end}.csv"

    def save_as(self) -> QFileDialog | None:
        if self.export_id is None:
            return None
        dialog = self.file_dialog = file_dialog(self, ARCHIVE_EXPORT, "Save archive export",
                                                "CSV files (*.csv);;All files (*)", file_name=self.suggested_name(),
                                                save=True)
        dialog.fileSelected.connect(lambda path: self.save_to(Path(path)))
        dialog.open()
        return dialog

    def save_to(self, target: Path) -> Op[tuple[int, int]] | None:
        """Save the CSV, then say how many vulnerabilities it holds (the API's answer has no count: it is read
        from the file)."""
        export_id = self.export_id
        if export_id is None:
            return None
        self.status.setText(f"Saving archive export {export_id}…")

        async def save() -> tuple[int, int]:
            size = await self.host.api.download(export_id, target, archive=True)
            return size, await blocking(csv_records, target)

        def saved(result: tuple[int, int]) -> None:
            size, count = result
            empty = (f" None was {'first detected' if self.host.context.server.is_outpost else 'archived'} "
                     "in the range: try an earlier start date.") if count == 0 else ""
            self.status.setText(f"Archive export {export_id} saved to {target}: {count} "
                                f"vulnerabilit{'y' if count == 1 else 'ies'} ({size:,} bytes).{empty}")

        self.saving = Op(self.host, save(), description=f"Saving archive export {export_id}").success(
            saved).failure(self._refused).run()
        return self.saving
