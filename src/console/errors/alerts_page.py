"""The Alerts page: a project's alert rules beside the rule editor (console.errors.alert_editor), with
*Send test notification* and each rule's delivery log (failures in red, with their reasons).

The rules and the logs are shown from the alerts repository (console.core.repositories.alerts): what this
page reads and saves and what the watcher's poll reads are held there, and the page follows every write. An
edit in progress is never overwritten by a rule that changed on the server meanwhile. Shown again, the page
reads the rules again when they are no longer fresh.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

from PySide6.QtGui import QShowEvent
from PySide6.QtWidgets import (
    QHBoxLayout,
    QLabel,
    QMessageBox,
    QPushButton,
    QSplitter,
    QTabWidget,
    QVBoxLayout,
    QWidget,
)

from console.core.api.alerts import AlertRule, AlertsApi, AlertTestResult
from console.core.api.errors import Forbidden, ValidationFailed
from console.core.errors.alert_form import CHANNEL_LABELS, RuleForm
from console.core.operations import ShowsFailures
from console.core.store import EVERYTHING, Change
from console.errors.alert_editor import RuleEditor, table
from console.errors.alert_models import DeliveryModel, RuleModel
from console.operations import Op
from console.unsaved import ask_to_save

if TYPE_CHECKING:
    from collections.abc import Callable

    from console.core.api.error_tracking import ErrorTrackingApi
    from console.page_host import ProjectHost

NEEDS_OUTPOST = "Alert rules need an Outpost server: GitLab's API has no alerts for integrated error tracking."
RULES_EDITOR_SPLIT = [250, 850]  # pixels at the default window size; scaled to the real one
SECRET_ONCE = "Copy the signing secret now, it is shown only once: {secret}"


SAVING = "Saving the alert rule"


class AlertsPage(QWidget):
    def __init__(self, host: ProjectHost[ErrorTrackingApi]) -> None:
        super().__init__()
        self.host = host
        self.store = host.context.store
        self.repository = host.context.repositories.alerts
        self.editing: AlertRule | None = None
        self.question: QMessageBox | None = None  # the last "save the changes?" asked (kept for tests)
        # The project whose rules are on screen (None until they arrive).
        self.loaded_project: int | None = None
        self.rules = RuleModel(self)
        self.deliveries = DeliveryModel(self)
        self.notice = QLabel()
        self.notice.setWordWrap(True)
        self.notice.hide()
        self.rule_table = table(self.rules)
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
        self.editor = RuleEditor()
        self.editor.revalidated.connect(self._update_buttons)
        self.editor.save_button.clicked.connect(lambda: self.save())
        self.editor.test_button.clicked.connect(self.send_test)
        self.delivery_table = table(self.deliveries)
        self.refresh_log_button = QPushButton("Refresh log")
        self.refresh_log_button.clicked.connect(self.load_deliveries)
        log = QWidget()
        log_layout = QVBoxLayout(log)
        log_layout.addWidget(self.delivery_table, 1)
        log_layout.addWidget(self.refresh_log_button)
        rules_and_editor = QSplitter()
        rules_and_editor.addWidget(rules)
        rules_and_editor.addWidget(self.editor)
        rules_and_editor.setStretchFactor(1, 1)
        rules_and_editor.setSizes(RULES_EDITOR_SPLIT)
        # The editor has the page's whole height (Save and the recipients in view at 1100×700), the log its
        # whole width.
        self.sections = QTabWidget()
        self.sections.setDocumentMode(True)
        self.sections.addTab(rules_and_editor, "Rules")
        self.sections.addTab(log, "Delivery log")
        # Read again each time it is looked at: deliveries are retried and new ones made while it is away.
        self.sections.currentChanged.connect(lambda index: self.load_deliveries() if index == 1 else None)
        layout = QVBoxLayout(self)
        layout.addWidget(self.notice)
        layout.addWidget(self.sections, 1)
        self.store.subscribe_view(self, self._store_changed)
        self.edit(None)

    # --- what is shown ------------------------------------------------------------------------------------

    @property
    def path(self) -> str | None:
        project = self.host.project
        return project.path_with_namespace if project is not None else None

    def edit(self, rule: AlertRule | None) -> None:
        """Show ``rule`` (None: a new one) in the editor, with its delivery log."""
        self.editing = rule
        self.editor.show_form(RuleForm.of(rule) if rule is not None else RuleForm())
        self.deliveries.set_items(self.repository.deliveries(self.path or "", rule.id) if rule else [])
        self.load_deliveries()
        self._update_buttons()

    def unsaved(self) -> bool:
        """Whether the editor holds changes not saved to the rule it shows."""
        return self.editor.form() != (RuleForm.of(self.editing) if self.editing is not None else RuleForm())

    def _store_changed(self, change: Change) -> None:
        path = self.path
        if change.kind == EVERYTHING:
            self.loaded_project = None
            self.rules.set_items([])
            self.edit(None)
        elif path is not None and change.touches(self.repository.kind, path):
            self._show_rules()
            held = self.repository.rule(path, self.editing.id) if self.editing is not None else None
            if self.editing is not None and held != self.editing and not self.unsaved():
                self.edit(held)  # changed (or deleted) on the server: shown as it now is
        elif path is not None and self.editing is not None and change.touches(
                self.repository.deliveries_kind, path, str(self.editing.id)):
            self.deliveries.set_items(self.repository.deliveries(path, self.editing.id))

    def _show_rules(self) -> None:
        self.rules.set_items(self.repository.rules(self.path or ""))
        row = next((row for row, rule in enumerate(self.rules.items)
                    if self.editing is not None and rule.id == self.editing.id), -1)
        if row >= 0:
            self.rule_table.selectRow(row)

    def _rule_chosen(self) -> None:
        rule = self.rules.item_at(self.rule_table.currentIndex().row())
        if rule is not None and (self.editing is None or rule.id != self.editing.id):
            self.edit(rule)

    def _update_buttons(self) -> None:
        self.editor.save_button.setEnabled(not self.editor.form().problems() and self.host.project is not None)
        self.delete_button.setEnabled(self.editing is not None)
        self.editor.test_button.setEnabled(self.editing is not None and bool(self.editing.alertRecipients))

    def _say(self, text: str) -> None:
        self.notice.setText(text)
        self.notice.setVisible(bool(text))

    # --- talking to the server ----------------------------------------------------------------------------

    @property
    def api(self) -> AlertsApi:
        return AlertsApi(self.host.api.client)

    def load(self) -> None:
        project, path = self.host.project, self.path
        if project is None or path is None:
            return
        if not self.host.context.server.is_outpost:  # GitLab has no such API: say so without asking
            self._say(NEEDS_OUTPOST)
            return

        def show(_rules: list[AlertRule]) -> None:
            self._say("")
            self.loaded_project = project.id
            self._show_rules()
            self.edit(self.repository.rule(path, self.editing.id) if self.editing else None)

        Op(self.host, self.repository.fetch(self.api, path), description="Loading alert rules").success(
            show).stale_when(self.host.project_choice).run()
        if self.host.context.is_admin:  # only administrators may ask whether the server sends email
            Op(self.host, self.api.mail_status(), description="Checking the server's email", quiet=True).success(
                lambda status: self.editor.set_mail_configured(status.configured)).run()
        else:
            self.editor.set_mail_configured(None)

    def may_leave(self, then: Callable[[], object]) -> bool:
        """True when the editor holds nothing unsaved; otherwise asks Save, Discard or Cancel, returns False and
        calls ``then`` once the rule is saved or the draft discarded."""
        if not self.unsaved():
            return True

        def discard() -> None:
            self.edit(self.editing)
            if isinstance(self.host, ShowsFailures):  # a failed save of the discarded draft no longer stands
                self.host.clear_failure(SAVING)
            then()

        name = self.editor.form().name.strip() or "the new alert rule"
        self.question = ask_to_save(self, f"Save the changes to {name}?", save=lambda: self.save(then),
                                    discard=discard, earlier=self.question)
        return False

    def save(self, then: Callable[[], object] | None = None) -> None:
        path, form = self.path, self.editor.form()
        if path is None or form.problems():
            return
        rule, rule_id = form.to_rule(), self.editing.id if self.editing else None

        def saved(answer: AlertRule) -> None:
            secrets = [r.secret for r in answer.alertRecipients if isinstance(r.secret, str) and r.secret]
            self.editing = answer
            self.edit(answer)
            self.editor.result.setText(SECRET_ONCE.format(secret=secrets[0]) if secrets else "Saved.")
            if then is not None:
                then()

        async def work() -> AlertRule:
            try:
                return await self.repository.save(self.api, path, rule, rule_id)
            except Forbidden:
                self.editor.result.setText("Only Maintainers and Owners of the project can change alert rules.")
                raise
            except ValidationFailed as refused:  # the server's reason, beside the form the user can correct
                self.editor.result.setText(f"Not saved: {refused.detail or refused.message}")
                raise

        Op(self.host, work(), description=SAVING).success(saved).stale_when(
            self.host.project_choice).run()

    def delete_rule(self) -> None:
        path, rule = self.path, self.editing
        if path is None or rule is None or rule.id is None:
            return
        rule_id = rule.id

        def deleted(_: None) -> None:
            self.editing = None
            self.edit(None)

        Op(self.host, self.repository.delete(self.api, path, rule_id), description="Deleting the alert rule").success(
            deleted).stale_when(self.host.project_choice).run()

    def send_test(self) -> None:
        path, rule = self.path, self.editing
        if path is None or rule is None or rule.id is None:
            return

        def show(results: list[AlertTestResult]) -> None:
            self.editor.result.setText("\n".join(
                f"{CHANNEL_LABELS.get(r.recipientType, r.recipientType)}: "
                + ("sent" if r.status == "sent" else f"failed: {r.message}") for r in results))
            self.load_deliveries()

        Op(self.host, self.api.send_test(path, rule.id), description="Sending test notifications").success(
            show).run()

    def load_deliveries(self) -> None:
        path, rule = self.path, self.editing
        if path is None or rule is None or rule.id is None:
            return
        rule_id = rule.id

        Op(self.host, self.repository.fetch_deliveries(self.api, path, rule_id),
           description="Loading the delivery log").stale_when(self.host.project_choice).run()

    def showEvent(self, event: QShowEvent) -> None:
        """Shown again: the rules are read again when no longer fresh (its first showing is the tab's load)."""
        super().showEvent(event)
        path = self.path
        if self.loaded_project is not None and path is not None and self.repository.is_stale(path):
            self.load()
