"""Opening a file, folder or page with the system's programs, the one way the console does it; where nothing can
open it (no file manager, no PDF viewer, no browser, no launcher at all), a dialog shows its path to copy.

On Linux Qt hands the path to xdg-open and reports success once xdg-open has started, even when xdg-open then
finds no program for it (a desktop without a file manager): so for a file or folder the console asks the same
database first (``xdg-mime``) and shows the dialog when it names no program."""

from __future__ import annotations

import shutil
import subprocess
import sys

from PySide6.QtCore import Qt, QUrl
from PySide6.QtGui import QDesktopServices, QGuiApplication
from PySide6.QtWidgets import (
    QDialog,
    QDialogButtonBox,
    QHBoxLayout,
    QLabel,
    QLineEdit,
    QPushButton,
    QVBoxLayout,
    QWidget,
)


class PathDialog(QDialog):
    def __init__(self, title: str, explanation: str, path: str, parent: QWidget | None = None) -> None:
        super().__init__(parent)
        self.setWindowTitle(title)
        self.setAttribute(Qt.WidgetAttribute.WA_DeleteOnClose)
        self.setMinimumWidth(480)
        label = QLabel(explanation)
        label.setWordWrap(True)
        self.path = QLineEdit(path)
        self.path.setReadOnly(True)
        self.path.setAccessibleName("Path")
        self.path.setCursorPosition(0)
        self.copy_button = QPushButton("Copy")
        self.copy_button.setToolTip("Copy the path to the clipboard")
        self.copy_button.clicked.connect(self.copy)
        row = QHBoxLayout()
        row.addWidget(self.path, 1)
        row.addWidget(self.copy_button)
        buttons = QDialogButtonBox(QDialogButtonBox.StandardButton.Close)
        buttons.rejected.connect(self.reject)
        layout = QVBoxLayout(self)
        layout.addWidget(label)
        layout.addLayout(row)
        layout.addWidget(buttons)

    def copy(self) -> None:
        QGuiApplication.clipboard().setText(self.path.text())
        self.copy_button.setText("Copied")


def open_or_show(url: QUrl, parent: QWidget, title: str, explanation: str) -> PathDialog | None:
    """Opens ``url`` (a local file or folder, or a web page) with the system's program for it; where none takes
    it, shows ``explanation`` and the path or address with a Copy button, and returns that dialog."""
    # Looked up on each call, not bound at import: tests put a stand-in launcher on QDesktopServices.
    if QDesktopServices.openUrl(url) and not (url.isLocalFile() and no_program_opens(url.toLocalFile())):
        return None
    dialog = PathDialog(title, explanation, url.toLocalFile() if url.isLocalFile() else url.toString(), parent)
    dialog.open()
    return dialog


def no_program_opens(path: str) -> bool:
    """Whether the freedesktop database names no program for ``path``'s type (False where there is no such
    database, as on Windows and macOS, or it cannot be asked: Qt's answer stands there)."""
    if sys.platform in ("win32", "darwin") or shutil.which("xdg-mime") is None:
        return False
    try:
        kind = _xdg_mime("filetype", path)
        return bool(kind) and not _xdg_mime("default", kind)
    except (OSError, subprocess.SubprocessError):
        return False


def _xdg_mime(query: str, argument: str) -> str:
    return subprocess.run(["xdg-mime", "query", query, argument], capture_output=True, text=True, timeout=5,
                          check=True).stdout.strip()
