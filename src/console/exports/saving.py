"""Saving an export's file to disk: the file dialog, the download with its progress bar and Cancel; a saved PDF
is described (pages, size) and can be opened in the system's viewer."""

from __future__ import annotations

import re
from pathlib import Path
from typing import TYPE_CHECKING

from PySide6.QtCore import QUrl, Signal
from PySide6.QtWidgets import QFileDialog, QHBoxLayout, QLabel, QProgressBar, QPushButton, QWidget

from console.core.api.exports import DownloadCancelled
from console.core.exports import saved_pdf
from console.core.exports.store import ExportRecord
from console.core.operations import blocking
from console.core.timestamps import parse_time
from console.exports.models import utcnow
from console.file_dialogs import EXPORT, file_dialog
from console.operations import Op
from console.path_dialog import PathDialog, open_or_show

if TYPE_CHECKING:
    from console.core.api.exports import ExportsApi
    from console.page_host import PageHost


def suggested_file_name(record: ExportRecord) -> str:
    finished = parse_time(record.finished_at) or utcnow()
    slug = re.sub(r"[^a-z0-9_-]+", "-", record.scope_label.lower()).strip("-") or "instance"
    return f"{slug}_vulnerabilities_{finished.strftime('%Y-%m-%dT%H%M')}.{record.export_format}"


FILE_TYPES = {"csv": "CSV files (*.csv);;All files (*)", "pdf": "PDF files (*.pdf);;All files (*)"}


class ExportSaving(QWidget):
    """The progress of the download in flight and its Cancel button; the tab's Save export action uses it.
    What happened is said in ``notice``, the tab's line under the list.

    Signals:
        downloading_changed: a download started or ended (what Save export offers changes with it).
    """

    downloading_changed = Signal()

    def __init__(self, host: PageHost[ExportsApi], notice: QLabel) -> None:
        super().__init__()
        self.host = host
        self.notice = notice
        self.task: Op[None] | None = None
        self.cancel_requested = False
        self.file_dialog: QFileDialog | None = None
        self.progress = QProgressBar()
        self.progress.setFormat("%p% saved")
        self.cancel_button = QPushButton("Cancel")
        self.cancel_button.clicked.connect(self.cancel)
        self.saved_pdf: Path | None = None  # the PDF saved last, which Open shows in the system's viewer
        self.saved_export: int | None = None  # the export that PDF is of: Open PDF shows while it is selected
        self.open_button = QPushButton("Open PDF")
        self.open_button.setToolTip("Open the saved PDF in the system's viewer")
        self.open_button.clicked.connect(self.open_saved)
        layout = QHBoxLayout(self)
        layout.setContentsMargins(0, 0, 0, 0)
        layout.addWidget(self.progress)
        layout.addWidget(self.cancel_button)
        layout.addWidget(self.open_button)
        self.progress.hide()
        self.cancel_button.hide()
        self.open_button.hide()

    @property
    def downloading(self) -> bool:
        return self.task is not None and not self.task.done()

    def save_as(self, record: ExportRecord) -> QFileDialog:
        dialog = file_dialog(self, EXPORT, "Save vulnerability export",
                             FILE_TYPES.get(record.export_format, FILE_TYPES["csv"]),
                             file_name=suggested_file_name(record), save=True)
        dialog.fileSelected.connect(lambda path, record=record: self.save_to(record, Path(path)))
        self.file_dialog = dialog
        dialog.open()
        return dialog

    def save_to(self, record: ExportRecord, target: Path) -> Op[None] | None:
        self.cancel_requested = False
        self.saved_pdf = None
        self.open_button.hide()
        download = Op(self.host, self._save(record, target), description=f"Saving export {record.id}").run()
        if not download.started:
            return None
        self.task = download
        download.when_done(lambda: self._show(False))
        self._show(True)
        return download

    async def _save(self, record: ExportRecord, target: Path) -> None:
        notice, context, export_id = self.notice, self.host.context, record.id
        try:
            size = await self.host.api.download(export_id, target, progress=self._progress,
                                               cancelled=lambda: self.cancel_requested)
        except DownloadCancelled:
            notice.setText(f"Saving export {export_id} cancelled")
            context.say(f"Saving export {export_id} cancelled")
            return
        if record.export_format == "pdf":
            pages, size = await blocking(saved_pdf.describe, target)
            notice.setText(f"Export {export_id} saved to {target} ({saved_pdf.summary(pages, size)})")
            self.saved_pdf, self.saved_export = target, export_id
            self.open_button.show()
        else:
            notice.setText(f"Export {export_id} saved to {target} ({size:,} bytes)")
        context.say(f"Export {export_id} saved to {target}")

    def follow_selection(self, record: ExportRecord | None) -> None:
        """Open PDF is offered beside the export whose PDF was saved, not beside another (a CSV)."""
        self.open_button.setVisible(self.saved_pdf is not None and record is not None
                                    and record.id == self.saved_export)

    def open_saved(self) -> PathDialog | None:
        """Shows the PDF saved last in the system's viewer; where there is none, its path to copy (returned)."""
        if self.saved_pdf is None:
            return None
        return open_or_show(QUrl.fromLocalFile(str(self.saved_pdf)), self, "Saved PDF",
                            "This system has no program to open PDF files with. The export is saved here:")

    def _progress(self, done: int, total: int | None) -> None:
        if total:
            self.progress.setRange(0, 1000)
            self.progress.setValue(int(done * 1000 / total))
        else:
            self.progress.setRange(0, 0)

    def cancel(self) -> None:
        self.cancel_requested = True

    def _show(self, active: bool) -> None:
        self.progress.setVisible(active)
        self.cancel_button.setVisible(active)
        if active:
            self.progress.setRange(0, 1000)
            self.progress.setValue(0)
        self.downloading_changed.emit()
