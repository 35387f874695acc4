"""File dialogs that open in the folder last used for the same purpose: an administrator saving exports into one
folder and importing variables from another should not walk from their home folder each time."""

from __future__ import annotations

from pathlib import Path

from PySide6.QtWidgets import QApplication, QFileDialog, QWidget

from console.core import settings_keys as keys
from console.settings import app_settings

# The purposes, each remembered on its own.
EXPORT = "vulnerability-export"
ARCHIVE_EXPORT = "archive-export"
VARIABLES_IMPORT = "variables-import"
VARIABLES_EXPORT = "variables-export"


def file_dialog(parent: QWidget, purpose: str, title: str, filters: str, *, file_name: str = "",
                save: bool) -> QFileDialog:
    """A dialog to choose a file to save (``save``) or to open, starting in ``purpose``'s last folder; the folder
    of the file chosen is remembered for the next one. The caller connects fileSelected and opens it."""
    start = keys.start_path(app_settings().value(keys.last_folder(purpose)), file_name, Path.home())
    dialog = QFileDialog(parent, title, start, filters)
    if save:
        dialog.setAcceptMode(QFileDialog.AcceptMode.AcceptSave)
    else:
        dialog.setFileMode(QFileDialog.FileMode.ExistingFile)
    # Offscreen (tests, screenshots) no native dialog can be driven.
    dialog.setOption(QFileDialog.Option.DontUseNativeDialog, QApplication.platformName() == "offscreen")
    dialog.fileSelected.connect(lambda path: remember(purpose, Path(path)))
    return dialog


def remember(purpose: str, chosen: Path) -> None:
    app_settings().setValue(keys.last_folder(purpose), str(chosen.parent))
