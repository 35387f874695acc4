"""Saving an export's CSV to a file: the file dialog, the download with its progress bar and Cancel."""

from __future__ import annotations

import re
from pathlib import Path
from typing import TYPE_CHECKING

from PySide6.QtWidgets import QApplication, QFileDialog, QHBoxLayout, QProgressBar, QPushButton, QWidget

from console.api.exports import DownloadCancelled
from console.exports.models import utcnow
from console.exports.store import ExportRecord
from console.operations import Op
from console.timestamps import parse_time

if TYPE_CHECKING:
    from console.exports.views import ExportsTab


def suggested_file_name(record: ExportRecord) -> str:
    finished = parse_time(record.finished_at) or utcnow()
    slug = re.sub(r"[^a-z0-9_-]+", "-", record.scope_label.lower()).strip("-") or "instance"
    return f"{slug}_vulnerabilities_{finished.strftime('%Y-%m-%dT%H%M')}.csv"


class ExportSaving(QWidget):
    """The progress of the download in flight and its Cancel button; the tab's Save export action uses it."""

    def __init__(self, tab: ExportsTab) -> None:
        super().__init__()
        self.tab = tab
        self.task: Op[None] | None = None
        self.cancel_requested = False
        self.file_dialog: QFileDialog | None = None
        self.progress = QProgressBar()
        self.progress.setFormat("%p% saved")
        self.cancel_button = QPushButton("Cancel")
        self.cancel_button.clicked.connect(self.cancel)
        layout = QHBoxLayout(self)
        layout.setContentsMargins(0, 0, 0, 0)
        layout.addWidget(self.progress)
        layout.addWidget(self.cancel_button)
        self.progress.hide()
        self.cancel_button.hide()

    @property
    def downloading(self) -> bool:
        return self.task is not None and not self.task.done()

    def save_as(self, record: ExportRecord) -> QFileDialog:
        dialog = QFileDialog(self.tab, "Save vulnerability export", str(Path.home() / suggested_file_name(record)),
                             "CSV files (*.csv);;All files (*)")
        dialog.setAcceptMode(QFileDialog.AcceptMode.AcceptSave)
        dialog.setOption(QFileDialog.Option.DontUseNativeDialog, QApplication.platformName() == "offscreen")
        dialog.fileSelected.connect(lambda path, export_id=record.id: self.save_to(export_id, Path(path)))
        self.file_dialog = dialog
        dialog.open()
        return dialog

    def save_to(self, export_id: int, target: Path) -> Op[None] | None:
        self.cancel_requested = False
        download = Op(self.tab, self._save(export_id, target), description=f"Saving export {export_id}").run()
        if not download.started:
            return None
        self.task = download
        download.when_done(lambda: self._show(False))
        self._show(True)
        return download

    async def _save(self, export_id: int, target: Path) -> None:
        notice, context = self.tab.notice, self.tab.context
        try:
            size = await self.tab.api.download(export_id, target, progress=self._progress,
                                               cancelled=lambda: self.cancel_requested)
        except DownloadCancelled:
            notice.setText(f"Saving export {export_id} cancelled")
            context.say(f"Saving export {export_id} cancelled")
            return
        notice.setText(f"Export {export_id} saved to {target} ({size:,} bytes)")
        context.say(f"Export {export_id} saved to {target}")

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
        self.tab.update_actions()
