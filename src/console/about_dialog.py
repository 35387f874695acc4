"""Help > About: the console's and the server's versions; on the local demo server also root's token and a `curl`
line for the REST API, each in a field of its own with a Copy button (a line of rich text wrapped the long curl
line wherever it liked, and selecting a token by mouse was fiddly)."""

from __future__ import annotations

from PySide6.QtCore import Qt
from PySide6.QtGui import QGuiApplication
from PySide6.QtWidgets import (
    QDialog,
    QDialogButtonBox,
    QGridLayout,
    QLabel,
    QLineEdit,
    QPushButton,
    QVBoxLayout,
    QWidget,
)


class CopyField(QWidget):
    """A read-only line to copy: shown whole in its field (scrolling inside it when long), Copy beside it."""

    def __init__(self, text: str, name: str, grid: QGridLayout, row: int) -> None:
        super().__init__()
        self.field = QLineEdit(text)
        self.field.setReadOnly(True)
        self.field.setAccessibleName(name)
        self.field.setCursorPosition(0)
        self.field.setMinimumWidth(320)
        self.copy_button = QPushButton("Copy")
        self.copy_button.setAccessibleName(f"Copy the {name.lower()}")
        self.copy_button.setToolTip(f"Copy the {name.lower()} to the clipboard")
        self.copy_button.clicked.connect(self.copy)
        grid.addWidget(QLabel(f"{name}:"), row, 0)
        grid.addWidget(self.field, row, 1)
        grid.addWidget(self.copy_button, row, 2)

    def copy(self) -> None:
        QGuiApplication.clipboard().setText(self.field.text())
        self.copy_button.setText("Copied")


class AboutDialog(QDialog):
    def __init__(self, versions: str, parent: QWidget | None = None) -> None:
        super().__init__(parent)
        self.setWindowTitle("About Outpost console")
        self.setAttribute(Qt.WidgetAttribute.WA_DeleteOnClose)
        self.versions = QLabel(versions)
        self.versions.setTextInteractionFlags(Qt.TextInteractionFlag.TextSelectableByMouse)
        self.token: CopyField | None = None
        self.curl: CopyField | None = None
        self.demo_grid = QGridLayout()
        self.demo_grid.setColumnStretch(1, 1)
        buttons = QDialogButtonBox(QDialogButtonBox.StandardButton.Close)
        buttons.rejected.connect(self.reject)
        self.box = QVBoxLayout(self)
        self.box.addWidget(self.versions)
        self.box.addLayout(self.demo_grid)
        self.box.addStretch(1)
        self.box.addWidget(buttons)

    def show_local_server(self, url: str, token: str, data_dir: str) -> None:
        """The demo server this console started and signed in to: how to reach it from elsewhere."""
        heading = QLabel(f"<b>Local demo server</b> at {url}, signed in as root with this token (a new one on each "
                         "start):")
        heading.setTextFormat(Qt.TextFormat.RichText)
        heading.setWordWrap(True)
        self.demo_grid.addWidget(heading, 0, 0, 1, 3)
        self.token = CopyField(token, "Token", self.demo_grid, 1)
        self.curl = CopyField(f'curl -H "PRIVATE-TOKEN: {token}" {url}/api/v4/user', "REST API", self.demo_grid, 2)
        data = QLabel(f"Its data is kept in {data_dir} (make demo-reset removes it).")
        data.setTextFormat(Qt.TextFormat.PlainText)
        data.setWordWrap(True)
        data.setTextInteractionFlags(Qt.TextInteractionFlag.TextSelectableByMouse)
        self.data_folder = data
        self.demo_grid.addWidget(data, 3, 0, 1, 3)
