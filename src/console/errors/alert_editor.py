"""The Alerts page's rule editor: the rule's fields, its recipients, and why it cannot be saved yet, said as
the user types (the logic is console.errors.alert_form's). Talking to the server is the page's."""

from __future__ import annotations

from PySide6.QtCore import Qt, Signal
from PySide6.QtWidgets import (
    QAbstractItemView,
    QCheckBox,
    QComboBox,
    QFormLayout,
    QGroupBox,
    QHBoxLayout,
    QHeaderView,
    QLabel,
    QLineEdit,
    QPushButton,
    QSpinBox,
    QTableView,
    QVBoxLayout,
    QWidget,
)

from console.core.errors.alert_form import CHANNELS, LEVELS, NO_TARGET, RuleForm, make_recipient, recipient_problem
from console.errors.alert_models import RecipientModel
from console.fitting import scrolling


def _spin(low: int, high: int, suffix: str = "") -> QSpinBox:
    box = QSpinBox()
    box.setRange(low, high)
    box.setSuffix(suffix)
    return box


def _row(*widgets: QWidget | tuple[QWidget, int]) -> QHBoxLayout:
    """Widgets side by side (a tuple gives a stretch factor), then space."""
    row = QHBoxLayout()
    stretched = False
    for item in widgets:
        widget, stretch = item if isinstance(item, tuple) else (item, 0)
        row.addWidget(widget, stretch)
        stretched = stretched or stretch > 0
    if not stretched:
        row.addStretch(1)
    return row


def _rows_high(view: QTableView, rows: int) -> int:
    """The height that shows the header and ``rows`` rows."""
    return view.horizontalHeader().sizeHint().height() + rows * view.verticalHeader().defaultSectionSize() + 4


def table(model) -> QTableView:
    """A table of whole rows, one selected at a time, its columns sharing the width."""
    view = QTableView()
    view.setModel(model)
    view.setSelectionBehavior(QAbstractItemView.SelectionBehavior.SelectRows)
    view.setSelectionMode(QAbstractItemView.SelectionMode.SingleSelection)
    view.verticalHeader().hide()
    view.horizontalHeader().setSectionResizeMode(QHeaderView.ResizeMode.Stretch)
    return view


NO_MAIL = ("This server cannot send email: it has no OUTPOST_SMTP_HOST setting. Email notifications would wait "
           "undelivered until an administrator configures it; choose another channel, or configure email first.")
MAIL_UNKNOWN = ("Whether email arrives depends on the server's mail setup, which only an administrator can see: "
                "without it, email notifications wait undelivered. Ask an administrator, or choose another channel.")


class RuleEditor(QWidget):
    """One rule's fields. The Save, Send test notification buttons and the result line are the page's to
    connect; the editor says what stops Save.

    Signals:
        revalidated: the form changed and its problems were said; the page enables its buttons.
    """

    revalidated = Signal()

    def __init__(self) -> None:
        super().__init__()
        self.name = QLineEdit()
        self.on_new = QCheckBox("a new error")
        self.on_regression = QCheckBox("a regression")
        self.on_regression.setToolTip("A resolved error seen again")
        self.on_monitor = QCheckBox("a cron monitor fails")
        self.on_monitor.setToolTip("And again when it recovers")
        self.monitor_slug = QLineEdit()
        self.monitor_slug.setPlaceholderText("any monitor; or one monitor's slug")
        self.count_events, self.quantity = QCheckBox("at least"), _spin(1, 1_000_000, " events of one error")
        self.count_users, self.users = QCheckBox("at least"), _spin(1, 1_000_000, " distinct users")
        self.timespan = _spin(1, 7 * 24 * 60, " minutes")
        self.environments = QLineEdit()
        self.environments.setPlaceholderText("any; or names separated by commas, e.g. production, staging")
        self.min_level = QComboBox()
        for level in LEVELS:
            self.min_level.addItem(level or "any level", level)
        self.release = QLineEdit()
        self.release.setPlaceholderText("any release")
        self.cooldown = _spin(0, 7 * 24 * 60, " minutes")
        self.hourly_cap = _spin(1, 10_000, " notifications an hour")
        self.recipients = RecipientModel(self)
        self.recipient_table = table(self.recipients)
        self.channel = QComboBox()
        for value, label in CHANNELS:
            self.channel.addItem(label, value)
        self.target = QLineEdit()
        self.key = QLineEdit()
        self.key.setEchoMode(QLineEdit.EchoMode.Password)
        self.key.setPlaceholderText("GitLab's authorization key")
        self.add_recipient_button = QPushButton("Add recipient")
        self.remove_recipient_button = QPushButton("Remove recipient")
        self.test_button = QPushButton("Send test notification")
        self.save_button = QPushButton("Save rule")
        self.problems = QLabel()
        self.problems.setWordWrap(True)
        # Whether the server sends email: True until it says otherwise; None: only an administrator may know.
        self.mail_configured: bool | None = True
        self.mail_note = QLabel(NO_MAIL)
        self.mail_note.setObjectName("warning")
        self.mail_note.setWordWrap(True)
        self.mail_note.hide()
        self.result = QLabel()
        self.result.setWordWrap(True)
        self.result.setTextInteractionFlags(Qt.TextInteractionFlag.TextSelectableByMouse)
        self.add_recipient_button.clicked.connect(self.add_recipient)
        self.remove_recipient_button.clicked.connect(self.remove_recipient)
        for edit in (self.name, self.environments, self.release, self.target, self.key):
            edit.textChanged.connect(self.revalidate)
        for check in (self.on_new, self.on_regression, self.on_monitor, self.count_events, self.count_users):
            check.toggled.connect(self.revalidate)
        self.channel.currentIndexChanged.connect(self._channel_changed)
        editor = QGroupBox("Rule")
        form = QFormLayout(editor)
        form.addRow("Name", self.name)
        form.addRow("Notify on", _row(self.on_new, self.on_regression, self.on_monitor))
        form.addRow("Monitor", self.monitor_slug)
        for check, spin in ((self.count_events, self.quantity), (self.count_users, self.users)):
            form.addRow("", _row(check, spin))
        form.addRow("within", _row(self.timespan))
        form.addRow("Environments", self.environments)
        form.addRow("Level at least", _row(self.min_level, QLabel("Release"), (self.release, 1)))
        form.addRow("Cooldown per error", _row(self.cooldown))
        form.addRow("Hourly cap", _row(self.hourly_cap))
        self.recipient_table.setMinimumHeight(_rows_high(self.recipient_table, 4))
        form.addRow("Recipients", self.recipient_table)
        form.addRow("", _row((self.channel, 0), (self.target, 2), (self.key, 1), self.add_recipient_button))
        form.addRow("", self.mail_note)
        form.addRow("", _row(self.remove_recipient_button, self.test_button))
        form.addRow("", self.result)
        # At 1100×700 the editor fits; on a smaller window it scrolls rather than growing the window, and
        # what saves the rule (and why it cannot) stays in view below it.
        saving = QHBoxLayout()
        saving.addWidget(self.problems, 1)
        saving.addStretch(0)  # keeps Save at its size while there is nothing to explain
        saving.addWidget(self.save_button, 0, Qt.AlignmentFlag.AlignTop)
        layout = QVBoxLayout(self)
        layout.setContentsMargins(0, 0, 0, 0)
        layout.addWidget(scrolling(editor, "Rule editor"), 1)
        layout.addLayout(saving)

    def form(self) -> RuleForm:
        return RuleForm(
            name=self.name.text(), on_new_error=self.on_new.isChecked(), on_regression=self.on_regression.isChecked(),
            count_events=self.count_events.isChecked(), quantity=self.quantity.value(),
            count_users=self.count_users.isChecked(), users=self.users.value(), timespan_minutes=self.timespan.value(),
            environments=self.environments.text(), min_level=self.min_level.currentData() or "",
            release=self.release.text(), cooldown_minutes=self.cooldown.value(), hourly_cap=self.hourly_cap.value(),
            recipients=list(self.recipients.items), on_monitor_failure=self.on_monitor.isChecked(),
            monitor_slug=self.monitor_slug.text())

    def show_form(self, form: RuleForm) -> None:
        self.name.setText(form.name)
        self.on_new.setChecked(form.on_new_error)
        self.on_regression.setChecked(form.on_regression)
        self.on_monitor.setChecked(form.on_monitor_failure)
        self.monitor_slug.setText(form.monitor_slug)
        self.count_events.setChecked(form.count_events)
        self.quantity.setValue(form.quantity)
        self.count_users.setChecked(form.count_users)
        self.users.setValue(form.users)
        self.timespan.setValue(form.timespan_minutes)
        self.environments.setText(form.environments)
        self.min_level.setCurrentIndex(max(0, self.min_level.findData(form.min_level)))
        self.release.setText(form.release)
        self.cooldown.setValue(form.cooldown_minutes)
        self.hourly_cap.setValue(form.hourly_cap)
        self.recipients.set_items(form.recipients)
        self.result.clear()
        self._channel_changed()

    def _channel_changed(self) -> None:
        email = self.channel.currentData() == "email"
        nothing = self.channel.currentData() in NO_TARGET
        self.target.setEnabled(not nothing)
        self.target.setPlaceholderText("nothing to enter: whoever the error is assigned to then" if nothing
                                       else "addresses, separated by commas (empty: the project's members)" if email
                                       else "https://…")
        self.key.setVisible(self.channel.currentData() == "gitlab")
        self.revalidate()

    def recipient_problem(self) -> str | None:
        if not self.target.text().strip() and self.channel.currentData() != "email":
            return None  # nothing typed yet: nothing to say
        return recipient_problem(self.channel.currentData(), self.target.text(), self.key.text())

    def revalidate(self) -> None:
        problems = self.form().problems()
        pending = self.recipient_problem()
        if pending:
            problems.append(pending)
        self.problems.setText("\n".join(problems))
        self.problems.setVisible(bool(problems))
        self.add_recipient_button.setEnabled(pending is None and (
            bool(self.target.text().strip()) or self.channel.currentData() in ("email", *NO_TARGET)))
        self.remove_recipient_button.setEnabled(bool(self.recipients.items))
        emailing = self.channel.currentData() == "email" or any(
            recipient.recipientType == "email" for recipient in self.recipients.items)
        self.mail_note.setText(MAIL_UNKNOWN if self.mail_configured is None else NO_MAIL)
        self.mail_note.setVisible(self.mail_configured is not True and emailing)
        self.revalidated.emit()

    def set_mail_configured(self, configured: bool | None) -> None:
        """Whether the server can send email (None: only an administrator may know); where it cannot, or it is
        not known, choosing Email says so."""
        self.mail_configured = configured
        self.revalidate()

    def add_recipient(self) -> None:
        if recipient_problem(self.channel.currentData(), self.target.text(), self.key.text()) is not None:
            return
        self.recipients.set_items([*self.recipients.items, make_recipient(self.channel.currentData(),
                                                                           self.target.text(), self.key.text())])
        self.target.clear()
        self.key.clear()
        self.revalidate()

    def remove_recipient(self) -> None:
        row = self.recipient_table.currentIndex().row()
        items = list(self.recipients.items)
        if items:
            del items[row if 0 <= row < len(items) else len(items) - 1]
            self.recipients.set_items(items)
            self.revalidate()
