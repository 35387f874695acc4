"""The Alerts page: a project's alert rules with an editor that says as you type why a rule cannot be saved,
its recipients with *Send test notification*, and its delivery log (failures in red, with their reasons)."""

from __future__ import annotations

from typing import TYPE_CHECKING

from PySide6.QtCore import Qt
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
    QSplitter,
    QTableView,
    QTabWidget,
    QVBoxLayout,
    QWidget,
)

from console.api.alerts import AlertRule, AlertsApi, Delivery, TestResult
from console.api.errors import Forbidden
from console.errors.alert_form import CHANNEL_LABELS, CHANNELS, LEVELS, RuleForm, make_recipient, recipient_problem
from console.errors.alert_models import DeliveryModel, RecipientModel, RuleModel
from console.fitting import scrolling
from console.operations import Op

if TYPE_CHECKING:
    from console.api.error_tracking import ErrorTrackingApi
    from console.page_host import ProjectHost

NEEDS_OUTPOST = "Alert rules need an Outpost server: GitLab's API has no alerts for integrated error tracking."
RULES_EDITOR_SPLIT = [250, 850]  # pixels at the default window size; scaled to the real one
SECRET_ONCE = "Copy the signing secret now, it is shown only once: {secret}"


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


def _table(model) -> QTableView:
    view = QTableView()
    view.setModel(model)
    view.setSelectionBehavior(QAbstractItemView.SelectionBehavior.SelectRows)
    view.setSelectionMode(QAbstractItemView.SelectionMode.SingleSelection)
    view.verticalHeader().hide()
    view.horizontalHeader().setSectionResizeMode(QHeaderView.ResizeMode.Stretch)
    return view


class AlertsPage(QWidget):
    def __init__(self, host: ProjectHost[ErrorTrackingApi]) -> None:
        super().__init__()
        self.host = host
        self.editing: AlertRule | None = None
        # The project whose rules are on screen (None until they arrive).
        self.loaded_project: int | None = None
        self.rules = RuleModel(self)
        self.recipients = RecipientModel(self)
        self.deliveries = DeliveryModel(self)
        self.notice = QLabel()
        self.notice.setWordWrap(True)
        self.notice.hide()
        self.rule_table = _table(self.rules)
        self.rule_table.selectionModel().currentRowChanged.connect(lambda *_: self._rule_chosen())
        self.new_button = QPushButton("New rule")
        self.delete_button = QPushButton("Delete rule")
        self.new_button.clicked.connect(lambda: self.edit(None))
        self.delete_button.clicked.connect(self.delete_rule)
        rules_box = QVBoxLayout()
        rules_box.addWidget(self.rule_table, 1)
        rule_buttons = QHBoxLayout()
        rule_buttons.addWidget(self.new_button)
        rule_buttons.addWidget(self.delete_button)
        rules_box.addLayout(rule_buttons)
        rules = QWidget()
        rules.setLayout(rules_box)
        self.delivery_table = _table(self.deliveries)
        self.refresh_log_button = QPushButton("Refresh log")
        self.refresh_log_button.clicked.connect(self.load_deliveries)
        log = QWidget()
        log_layout = QVBoxLayout(log)
        log_layout.addWidget(self.delivery_table, 1)
        log_layout.addWidget(self.refresh_log_button)
        rules_and_editor = QSplitter()
        rules_and_editor.addWidget(rules)
        rules_and_editor.addWidget(self._build_editor())
        rules_and_editor.setStretchFactor(1, 1)
        rules_and_editor.setSizes(RULES_EDITOR_SPLIT)
        # The editor has the page's whole height (Save and the recipients in view at 1100×700), the log its
        # whole width.
        self.sections = QTabWidget()
        self.sections.setDocumentMode(True)
        self.sections.addTab(rules_and_editor, "Rules")
        self.sections.addTab(log, "Delivery log")
        layout = QVBoxLayout(self)
        layout.addWidget(self.notice)
        layout.addWidget(self.sections, 1)
        self.edit(None)

    def _build_editor(self) -> QWidget:
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
        self.recipient_table = _table(self.recipients)
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
        self.result = QLabel()
        self.result.setWordWrap(True)
        self.result.setTextInteractionFlags(Qt.TextInteractionFlag.TextSelectableByMouse)
        self.add_recipient_button.clicked.connect(self.add_recipient)
        self.remove_recipient_button.clicked.connect(self.remove_recipient)
        self.test_button.clicked.connect(self.send_test)
        self.save_button.clicked.connect(self.save)
        for edit in (self.name, self.environments, self.release, self.target, self.key):
            edit.textChanged.connect(self._revalidate)
        for check in (self.on_new, self.on_regression, self.on_monitor, self.count_events, self.count_users):
            check.toggled.connect(self._revalidate)
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
        form.addRow("", _row(self.remove_recipient_button, self.test_button))
        form.addRow("", self.result)
        # At 1100×700 the editor fits; on a smaller window it scrolls rather than growing the window, and
        # what saves the rule (and why it cannot) stays in view below it.
        saving = QHBoxLayout()
        saving.addWidget(self.problems, 1)
        saving.addStretch(0)  # keeps Save at its size while there is nothing to explain
        saving.addWidget(self.save_button, 0, Qt.AlignmentFlag.AlignTop)
        editor_page = QWidget()
        editor_layout = QVBoxLayout(editor_page)
        editor_layout.setContentsMargins(0, 0, 0, 0)
        editor_layout.addWidget(scrolling(editor, "Rule editor"), 1)
        editor_layout.addLayout(saving)
        return editor_page

    # --- the editor -------------------------------------------------------------------------------------

    def form(self) -> RuleForm:
        return RuleForm(
            name=self.name.text(), on_new_error=self.on_new.isChecked(), on_regression=self.on_regression.isChecked(),
            count_events=self.count_events.isChecked(), quantity=self.quantity.value(),
            count_users=self.count_users.isChecked(), users=self.users.value(), timespan_minutes=self.timespan.value(),
            environments=self.environments.text(), min_level=self.min_level.currentData() or "",
            release=self.release.text(), cooldown_minutes=self.cooldown.value(), hourly_cap=self.hourly_cap.value(),
            recipients=list(self.recipients.items), on_monitor_failure=self.on_monitor.isChecked(),
            monitor_slug=self.monitor_slug.text())

    def edit(self, rule: AlertRule | None) -> None:
        self.editing = rule
        form = RuleForm.of(rule) if rule is not None else RuleForm()
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
        self.deliveries.set_items([])
        self.load_deliveries()
        self._channel_changed()

    def _channel_changed(self) -> None:
        email = self.channel.currentData() == "email"
        self.target.setPlaceholderText("addresses, separated by commas (empty: the project's members)" if email
                                       else "https://…")
        self.key.setVisible(self.channel.currentData() == "gitlab")
        self._revalidate()

    def recipient_problem(self) -> str | None:
        if not self.target.text().strip() and self.channel.currentData() != "email":
            return None  # nothing typed yet: nothing to say
        return recipient_problem(self.channel.currentData(), self.target.text(), self.key.text())

    def _revalidate(self) -> None:
        problems = self.form().problems()
        pending = self.recipient_problem()
        if pending:
            problems.append(pending)
        self.problems.setText("\n".join(problems))
        self.problems.setVisible(bool(problems))
        self.add_recipient_button.setEnabled(pending is None and (
            bool(self.target.text().strip()) or self.channel.currentData() == "email"))
        self.save_button.setEnabled(not self.form().problems() and self.host.project is not None)
        self.delete_button.setEnabled(self.editing is not None)
        self.test_button.setEnabled(self.editing is not None and bool(self.editing.recipients))
        self.remove_recipient_button.setEnabled(bool(self.recipients.items))

    def add_recipient(self) -> None:
        if recipient_problem(self.channel.currentData(), self.target.text(), self.key.text()) is not None:
            return
        self.recipients.set_items([*self.recipients.items, make_recipient(self.channel.currentData(),
                                                                           self.target.text(), self.key.text())])
        self.target.clear()
        self.key.clear()
        self._revalidate()

    def remove_recipient(self) -> None:
        row = self.recipient_table.currentIndex().row()
        items = list(self.recipients.items)
        if items:
            del items[row if 0 <= row < len(items) else len(items) - 1]
            self.recipients.set_items(items)
            self._revalidate()

    # --- talking to the server ----------------------------------------------------------------------------

    @property
    def api(self) -> AlertsApi:
        return AlertsApi(self.host.api.client)

    def load(self) -> None:
        project = self.host.project
        if project is None:
            return
        if not self.host.context.server.is_outpost:  # GitLab has no such API: say so without asking
            self._say(NEEDS_OUTPOST)
            return

        def show(rules: list[AlertRule]) -> None:
            self._say("")
            self.loaded_project = project["id"]
            self.rules.set_items(rules)
            keep = next((rule for rule in rules if self.editing and rule.id == self.editing.id), None)
            self.edit(keep)

        Op(self.host, self.api.rules(project["path_with_namespace"]), description="Loading alert rules").success(
            show).stale_when(self.host.project_choice).run()

    def _say(self, text: str) -> None:
        self.notice.setText(text)
        self.notice.setVisible(bool(text))

    def _rule_chosen(self) -> None:
        rule = self.rules.item_at(self.rule_table.currentIndex().row())
        if rule is not None:
            self.edit(rule)

    def save(self) -> None:
        project = self.host.project
        if project is None or self.form().problems():
            return
        rule = self.form().to_rule(self.editing.id if self.editing else None)

        def saved(answer: AlertRule) -> None:
            secrets = [r.secret for r in answer.recipients if r.secret]
            self.editing = answer
            self.load()
            self.result.setText(SECRET_ONCE.format(secret=secrets[0]) if secrets else "Saved.")

        async def work() -> AlertRule:
            try:
                return await self.api.save(project["path_with_namespace"], rule)
            except Forbidden:
                self.result.setText("Only Maintainers and Owners of the project can change alert rules.")
                raise

        Op(self.host, work(), description="Saving the alert rule").success(saved).run()

    def delete_rule(self) -> None:
        project, rule = self.host.project, self.editing
        if project is None or rule is None or rule.id is None:
            return

        def deleted(_: None) -> None:
            self.editing = None
            self.load()

        Op(self.host, self.api.delete(project["path_with_namespace"], rule.id),
           description="Deleting the alert rule").success(deleted).run()

    def send_test(self) -> None:
        project, rule = self.host.project, self.editing
        if project is None or rule is None or rule.id is None:
            return

        def show(results: list[TestResult]) -> None:
            self.result.setText("\n".join(
                f"{CHANNEL_LABELS.get(r.recipient_type, r.recipient_type)}: "
                + ("sent" if r.sent else f"failed: {r.message}") for r in results))
            self.load_deliveries()

        Op(self.host, self.api.send_test(project["path_with_namespace"], rule.id),
           description="Sending test notifications").success(show).run()

    def load_deliveries(self) -> None:
        project, rule = self.host.project, self.editing
        if project is None or rule is None or rule.id is None:
            return

        def show(rows: list[Delivery]) -> None:
            if self.editing is not None and self.editing.id == rule.id:
                self.deliveries.set_items(rows)

        Op(self.host, self.api.deliveries(project["path_with_namespace"], rule.id),
           description="Loading the delivery log").success(show).run()
