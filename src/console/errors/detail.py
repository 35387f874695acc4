"""The detail pane of the error list: what happened, where, how often, releases, and the stack trace.

Below the summary, sections: the error's stack trace, and those its owner adds (its events, its tags). The
summary scrolls on its own above a splitter, so the sections are always in view; everything fits the pane's
width (text wraps, or is cut with the whole text in a tooltip), however narrow the pane is made.
"""

from __future__ import annotations

from PySide6.QtCore import Qt, QUrl, Signal
from PySide6.QtGui import QPalette
from PySide6.QtWidgets import (
    QFormLayout,
    QHBoxLayout,
    QPushButton,
    QScrollArea,
    QSplitter,
    QTabWidget,
    QVBoxLayout,
    QWidget,
)

from console.core.api.error_tracking import ErrorDetails, ErrorSummary
from console.core.timestamps import short_time
from console.errors.stacktrace import FRAME_ORDER, StackTraceView
from console.fitting import ElidedLabel, FittingLabel
from console.path_dialog import open_or_show
from outpost_model.error_tracking import ExceptionValue

STATUS_ACTIONS = (("Resolve", "resolved"), ("Ignore", "ignored"), ("Unresolve", "unresolved"))
# The splitter between the summary and the sections at the default window size (scaled to the real one).
SUMMARY_AND_SECTIONS = [230, 320]
DETAIL_SPLITTER = "detailSplitter"  # remembered by this name (console.window_state)


class ErrorDetailView(QWidget):
    """One error: what happened, where, how often, releases, and its stack trace."""

    status_changed = Signal()  # the shown error's status (or that none is shown) changed
    copy_requested = Signal()  # Copy as Markdown: the owner knows the most about the error
    cleared = Signal()  # no error is shown any more: added sections forget theirs

    def __init__(self) -> None:
        super().__init__()
        self.error_id: str | None = None
        self.status: str | None = None  # the shown error's
        self.shown_count: int | None = None  # the shown error's events, as last shown
        self.title = FittingLabel("Select an error to see its details", always_tip=True)
        font = self.title.font()
        font.setPointSizeF(font.pointSizeF() * 1.25)
        font.setBold(True)
        self.title.setFont(font)
        self.exception = FittingLabel()
        self.culprit = ElidedLabel()
        self.culprit.setForegroundRole(QPalette.ColorRole.PlaceholderText)  # secondary; follows the palette
        # The owner binds these to its Resolve, Ignore and Unresolve actions, which enable them.
        self.action_buttons: dict[str, QPushButton] = {}
        actions = QHBoxLayout()
        for text, status in STATUS_ACTIONS:
            button = QPushButton(text)
            self.action_buttons[status] = button
            actions.addWidget(button)
        actions.addStretch(1)
        self.copy_button = QPushButton("Copy as Markdown")
        self.copy_button.setToolTip("The error's title, culprit, counts, dates, releases, top frames and a link, "
                                    "for pasting into an issue")
        self.copy_button.clicked.connect(self.copy_requested)
        copy_row = QHBoxLayout()  # a row of its own: beside the status buttons it would not fit a narrow pane
        copy_row.addStretch(1)
        copy_row.addWidget(self.copy_button)
        # Where the server cannot do something (GitLab: status changes), the explanation and the way out.
        self.notice = FittingLabel()
        self.browser_button = QPushButton("Open in browser")
        self.browser_button.clicked.connect(self._open_browser)
        self.browser_url = ""
        notice_row = QHBoxLayout()
        notice_row.addWidget(self.notice, 1)
        notice_row.addWidget(self.browser_button)
        self.fields: dict[str, FittingLabel] = {}
        form = QFormLayout()
        form.setFieldGrowthPolicy(QFormLayout.FieldGrowthPolicy.AllNonFixedFieldsGrow)
        form.setRowWrapPolicy(QFormLayout.RowWrapPolicy.DontWrapRows)
        for name in ("Status", "Events", "Users affected", "First seen", "Last seen", "First release",
                     "Last release", "Environment", "Tags", "Release health"):
            label = FittingLabel()
            label.setTextInteractionFlags(Qt.TextInteractionFlag.TextSelectableByMouse)
            self.fields[name] = label
            form.addRow(name, label)
        summary = QWidget()
        summary_layout = QVBoxLayout(summary)
        summary_layout.addWidget(self.title)
        summary_layout.addWidget(self.exception)
        summary_layout.addWidget(self.culprit)
        summary_layout.addLayout(actions)
        summary_layout.addLayout(copy_row)
        summary_layout.addLayout(notice_row)
        summary_layout.addLayout(form)
        summary_layout.addStretch(1)
        self.summary_scroll = QScrollArea()
        self.summary_scroll.setWidgetResizable(True)
        self.summary_scroll.setAccessibleName("Error summary")
        self.summary_scroll.setFrameShape(QScrollArea.Shape.NoFrame)
        self.summary_scroll.setHorizontalScrollBarPolicy(Qt.ScrollBarPolicy.ScrollBarAlwaysOff)  # text wraps
        self.summary_scroll.setWidget(summary)
        self.stack_trace = StackTraceView()
        self.sections = QTabWidget()
        self.sections.addTab(self.stack_trace, "Stack trace")
        self.sections.setTabToolTip(0, FRAME_ORDER)
        self.splitter = QSplitter(Qt.Orientation.Vertical)
        self.splitter.setObjectName(DETAIL_SPLITTER)
        self.splitter.setChildrenCollapsible(False)
        self.splitter.addWidget(self.summary_scroll)
        self.splitter.addWidget(self.sections)
        self.splitter.setStretchFactor(0, 2)
        self.splitter.setStretchFactor(1, 3)
        self.splitter.setSizes(SUMMARY_AND_SECTIONS)
        layout = QVBoxLayout(self)
        layout.setContentsMargins(0, 0, 0, 0)
        layout.addWidget(self.splitter)
        self.clear()

    def add_section(self, widget: QWidget, title: str) -> None:
        self.sections.addTab(widget, title)

    def offer_browser(self, explanation: str, url: str) -> None:
        self.notice.setText(explanation)
        self.browser_url = url
        self.notice.show()
        self.browser_button.show()

    def _open_browser(self) -> None:
        if self.browser_url:
            open_or_show(QUrl(self.browser_url), self, "Open in browser",
                         "This system has no browser to open the page with. Its address:")

    def clear(self) -> None:
        self.error_id = self.shown_count = None
        self.notice.hide()
        self.browser_button.hide()
        self.title.setText("Select an error to see its details")
        for label in (self.exception, self.culprit, *self.fields.values()):
            label.clear()
        self.stack_trace.clear()
        self.copy_button.setEnabled(False)
        self.status = None
        self.status_changed.emit()
        self.cleared.emit()

    def show_summary(self, error: ErrorSummary) -> None:
        """What the list already knows, shown at once while the details load."""
        if error.id != self.error_id:  # another error: its title and buttons first, not where the last one was
            self.summary_scroll.verticalScrollBar().setValue(0)
        self.error_id = error.id
        self.shown_count = error.count
        self.copy_button.setEnabled(False)  # until this error's details are in
        self.title.setText(error.title)
        self.culprit.setText(error.culprit or "")
        self.show_status(error.status)
        self.fields["Events"].setText(str(error.count))
        self.fields["Users affected"].setText(str(error.user_count))
        self.fields["First seen"].setText(short_time(error.first_seen))
        self.fields["Last seen"].setText(short_time(error.last_seen))
        self.stack_trace.show_message("Loading the stack trace…")

    def show_status(self, status: str) -> None:
        self.fields["Status"].setText(status.capitalize())
        self.status = status
        self.status_changed.emit()

    def show_details(self, detail: ErrorDetails) -> None:
        error = detail.error
        self.error_id = detail.id
        self.shown_count = error.count
        self.copy_button.setEnabled(True)
        self.title.setText(error.title)
        kind = detail.exception_type or str(detail.tags.get("level") or "") or error.type
        message = error.message or ""
        self.exception.setText(f"{kind}: {message}" if kind and message else kind or message)
        self.culprit.setText(error.culprit)
        self.show_status(detail.status)
        self.fields["Events"].setText(str(error.count))
        self.fields["Users affected"].setText(str(error.userCount))
        self.fields["First seen"].setText(short_time(error.firstSeen))
        self.fields["Last seen"].setText(short_time(error.lastSeen))
        self.fields["First release"].setText(error.firstReleaseShortVersion or "—")
        self.fields["Last release"].setText(error.lastReleaseShortVersion or "—")
        tags = {key: str(value) for key, value in detail.tags.items() if value}
        self.fields["Environment"].setText(tags.get("environment") or detail.environment or "—")
        self.fields["Tags"].setText("   ".join(f"{key}: {value}" for key, value in tags.items()) or "—")
        self.fields["Release health"].setText("\n".join(
            f"{row.release} ({row.environment}): {row.sessions} sessions, {row.crashed} crashed"
            + (f", {row.crash_free_rate}% crash-free" if row.crash_free_rate is not None else "")
            for row in detail.release_health) or "—")

    def show_stack_trace(self, exceptions: list[ExceptionValue], message: str | None,
                         log_message: str | None = None) -> None:
        if exceptions:
            self.stack_trace.show_exceptions(exceptions, log_message)
        else:
            self.stack_trace.show_message(f"No stack trace: reported as a message ({message})" if message
                                          else "No stack trace was sent with this error.")
