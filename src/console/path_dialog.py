"""Opening a file, folder or page with the system's programs, the one way the console does it; where nothing can
open it (no file manager, no PDF viewer, no browser, no launcher at all), a dialog shows its path to copy."""

from __future__ import annotations

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
    if QDesktopServices.openUrl(url):
        return None
    dialog = PathDialog(title, explanation, url.toLocalFile() if url.isLocalFile() else url.toString(), parent)
    dialog.open()
    return dialog
