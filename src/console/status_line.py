"""The window's status line: transient progress and success lines, and the busy indicator beside them.

Failures are not said here: they stay in a message bar where the user acted (console.message_bar). An outcome
("The error is now resolved") keeps the line for a few seconds against an operation's routine lines
("Loading the error…", "Loading the error: done") said after it, as when a resolve moves the selection to the
next error and its details load; the newest routine line is shown when the outcome has had its time.
"""

from __future__ import annotations

from PySide6.QtCore import QObject, QTimer
from PySide6.QtWidgets import QLabel, QProgressBar, QStatusBar

from console.core.messages import Kind, Message, MessageLog

STATUS_SECONDS = 8  # how long a line of success stays in the status bar
OUTCOME_SECONDS = 5  # how long an outcome is not replaced by an operation's routine line


class StatusLine(QObject):
    def __init__(self, bar: QStatusBar, log: MessageLog) -> None:
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
        self.outcome = QTimer(self)  # running while an outcome keeps the line
        self.outcome.setSingleShot(True)
        self.outcome.setInterval(OUTCOME_SECONDS * 1000)
        self.outcome.timeout.connect(self._outcome_had_its_time)
        self._waiting: str | None = None  # the newest routine line said meanwhile
        stop = log.subscribe(self.said)  # the log outlives a closed window
        self.destroyed.connect(lambda *_: stop())

    def said(self, message: Message) -> None:
        """A line said (console.core.messages): progress and successes are shown, other kinds have their places."""
        if message.kind not in (Kind.PROGRESS, Kind.DONE):
            return
        if message.routine and self.outcome.isActive():
            self._waiting = message.text
            return
        self._waiting = None
        self.show(message.text)
        if not message.routine:
            self.outcome.start()

    def show(self, text: str) -> None:
        """Progress ("…") stays until the next line; a success goes after a few seconds."""
        self.label.setText(text)
        self.label.setToolTip(text)
        if text.endswith("…"):
            self.expiry.stop()
        else:
            self.expiry.start()

    def _outcome_had_its_time(self) -> None:
        if self._waiting is not None:
            text, self._waiting = self._waiting, None
            self.show(text)

    def busy(self, busy: bool) -> None:
        self.progress.setVisible(busy)
        if not busy:  # nothing is in progress any more (a failure is said where it happened)
            if self._waiting is not None and self._waiting.endswith("…"):
                self._waiting = None
            if self.label.text().endswith("…"):
                self.label.clear()
