"""The window's status line: transient progress and success lines, and the busy indicator beside them.

Failures are not said here: they stay in a message bar where the user acted (console.message_bar)."""

from __future__ import annotations

from PySide6.QtCore import QObject, QTimer
from PySide6.QtWidgets import QLabel, QProgressBar, QStatusBar

STATUS_SECONDS = 8  # how long a line of success stays in the status bar


class StatusLine(QObject):
    def __init__(self, bar: QStatusBar) -> None:
        super().__init__(bar)
        self.label = QLabel()
        bar.addWidget(self.label, 1)
        self.progress = QProgressBar()
        self.progress.setRange(0, 0)  # indeterminate
        self.progress.setMaximumWidth(120)
        self.progress.hide()
        bar.addPermanentWidget(self.progress)
        self.expiry = QTimer(self)  # status lines are transient
        self.expiry.setSingleShot(True)
        self.expiry.setInterval(STATUS_SECONDS * 1000)
        self.expiry.timeout.connect(self.label.clear)

    def show(self, message: str) -> None:
        """Progress ("…") stays until the next line; a success goes after a few seconds."""
        self.label.setText(message)
        self.label.setToolTip(message)
        if message.endswith("…"):
            self.expiry.stop()
        else:
            self.expiry.start()

    def busy(self, busy: bool) -> None:
        self.progress.setVisible(busy)
        if not busy and self.label.text().endswith("…"):
            self.label.clear()  # nothing is in progress any more (a failure is said where it happened)
