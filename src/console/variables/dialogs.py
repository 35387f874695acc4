"""Add/Edit dialog that explains problems while typing, and the import preview dialog."""

from __future__ import annotations

from collections.abc import Awaitable, Callable

from PySide6.QtCore import Qt, QTimer, Signal
from PySide6.QtWidgets import (
    QCheckBox,
    QComboBox,
    QDialog,
    QDialogButtonBox,
    QFormLayout,
    QHeaderView,
    QLabel,
    QLineEdit,
    QMessageBox,
    QPlainTextEdit,
    QProgressBar,
    QPushButton,
    QScrollArea,
    QTableView,
    QVBoxLayout,
    QWidget,
)

from console.context import AppContext
from console.core.api.errors import ApiError
from console.core.api.variables import ENV_VAR, FILE, Outcome, Variable, VariablesApi, new_variable, value_of
from console.core.variables.bulk import ADDED, CHANGED, INVALID, REMOVED, UNCHANGED, ImportPlan
from console.core.variables.rules import variable_problems
from console.looks import colours
from console.operations import Op
from console.unsaved import ask_to_save
from console.variables.models import ImportPlanModel

SaveFunction = Callable[[Variable], Awaitable[Variable]]
PROGRESS_INTERVAL_MS = 100
MESSAGE_LINES = 4  # kept free below the form for the dialog's messages


def _error_label() -> QLabel:
    label = QLabel()
    label.setWordWrap(True)
    label.setStyleSheet(f"color: {colours()['error']};")
    label.setTextInteractionFlags(Qt.TextInteractionFlag.TextSelectableByMouse)
    label.hide()
    return label


class VariableDialog(QDialog):
    """Adds a variable (``variable`` is None) or edits one; nothing is sent while a rule is broken."""

    def __init__(self, context: AppContext, *, save: SaveFunction, taken: set[str],
                 variable: Variable | None = None, parent: QWidget | None = None) -> None:
        super().__init__(parent)
        self._context = context
        self._save = save
        self._taken = set(taken) - ({variable.key} if variable else set())
        self.editing = variable is not None
        self.saved_variable: Variable | None = None
        self.setWindowTitle(f"Edit variable {variable.key}" if variable else "Add variable")
        self.setMinimumWidth(520)

        self.key_edit = QLineEdit()
        self.key_edit.setPlaceholderText("e.g. DEPLOY_TOKEN")
        self.value_edit = QPlainTextEdit()
        self.value_edit.setTabChangesFocus(True)
        self.value_edit.setMinimumHeight(90)
        self.type_combo = QComboBox()
        self.type_combo.addItem("Variable", ENV_VAR)
        self.type_combo.addItem("File", FILE)
        self.protected_check = QCheckBox("Protect variable")
        self.protected_check.setToolTip("Export the variable to pipelines on protected branches and tags only")
        self.masked_check = QCheckBox("Mask variable")
        self.masked_check.setToolTip("Hide the value in job logs; the value must meet the masking rules")
        self.expand_check = QCheckBox("Expand variable reference")
        self.expand_check.setToolTip("$ is treated as the start of a reference to another variable")
        self.description_edit = QLineEdit()
        self.description_edit.setPlaceholderText("Optional")
        self.problems_label = _error_label()
        self.problems_label.setObjectName("problems")
        self.server_error_label = _error_label()
        self.server_error_label.setObjectName("serverError")
        self.buttons = QDialogButtonBox(QDialogButtonBox.StandardButton.Save | QDialogButtonBox.StandardButton.Cancel)
        self.save_button = self.buttons.button(QDialogButtonBox.StandardButton.Save)

        form = QFormLayout()
        form.addRow("Type", self.type_combo)
        form.addRow("Key", self.key_edit)
        form.addRow("Value", self.value_edit)
        form.addRow("Description", self.description_edit)
        flags = QVBoxLayout()
        for check in (self.protected_check, self.masked_check, self.expand_check):
            flags.addWidget(check)
        form.addRow("Flags", flags)
        layout = QVBoxLayout(self)
        layout.addLayout(form)
        layout.addWidget(self._message_area())
        layout.addWidget(self.buttons)

        initial = variable or new_variable("", "")
        self.key_edit.setText(initial.key)
        if self.editing:
            self.key_edit.setReadOnly(True)
            self.key_edit.setStyleSheet("QLineEdit { background: palette(window); }")
            self.key_edit.setToolTip("The key of an existing variable cannot be changed")
        self.value_edit.setPlainText(value_of(initial))
        self.type_combo.setCurrentIndex(self.type_combo.findData(initial.variable_type))
        self.protected_check.setChecked(initial.protected)
        self.masked_check.setChecked(initial.masked)
        self.expand_check.setChecked(not initial.raw)
        self.description_edit.setText(initial.description or "")

        for signal in (self.key_edit.textChanged, self.value_edit.textChanged, self.description_edit.textChanged,
                       self.masked_check.toggled, self.expand_check.toggled):
            signal.connect(self.validate)
        self.buttons.accepted.connect(self.submit)
        self.buttons.rejected.connect(self.reject)
        self.validate()
        self._as_opened = self.current_variable()
        self.question: QMessageBox | None = None  # the last "save the changes?" asked (kept for tests)

    def reject(self) -> None:
        """Cancel, Escape or the close button: asks first when the form holds changes."""
        if self.current_variable() == self._as_opened:
            super().reject()
            return
        key = self.key_edit.text().strip()
        self.question = ask_to_save(self, f"Save the changes to variable {key}?" if key else "Save the new variable?",
                                    save=self.submit, discard=super().reject, earlier=self.question)

    def _message_area(self) -> QScrollArea:
        """The problems and the server's refusal, in a space kept for them from the start: nothing moves when a
        message appears; a long one scrolls."""
        inner = QWidget()
        inner_layout = QVBoxLayout(inner)
        inner_layout.setContentsMargins(0, 0, 0, 0)
        inner_layout.addWidget(self.problems_label)
        inner_layout.addWidget(self.server_error_label)
        inner_layout.addStretch(1)
        self.messages = QScrollArea()
        self.messages.setObjectName("messages")
        self.messages.setFrameShape(QScrollArea.Shape.NoFrame)
        self.messages.setWidgetResizable(True)
        self.messages.setHorizontalScrollBarPolicy(Qt.ScrollBarPolicy.ScrollBarAlwaysOff)
        self.messages.setWidget(inner)
        self.messages.setFixedHeight(self.fontMetrics().lineSpacing() * MESSAGE_LINES + 8)
        return self.messages

    def current_variable(self) -> Variable:
        description = self.description_edit.text()
        return new_variable(
            key=self.key_edit.text().strip(), value=self.value_edit.toPlainText(),
            variable_type=self.type_combo.currentData(), protected=self.protected_check.isChecked(),
            masked=self.masked_check.isChecked(), raw=not self.expand_check.isChecked(),
            description=description if description or self.editing else None)

    def problems(self) -> list[str]:
        return variable_problems(self.current_variable(), taken=self._taken)

    def validate(self) -> None:
        problems = self.problems()
        # An empty key on a fresh dialog is not an error yet, just not ready.
        untouched = not self.editing and not self.key_edit.text() and problems == ["Enter a key."]
        self.problems_label.setText("\n".join(f"• {problem}" for problem in problems))
        self.problems_label.setVisible(bool(problems) and not untouched)
        self.save_button.setEnabled(not problems)

    def submit(self) -> None:
        if self.problems():
            return
        variable = self.current_variable()
        self.save_button.setEnabled(False)
        self.server_error_label.hide()
        Op(self._context, self._submit(variable), description=f"Saving variable {variable.key}").run()

    async def _submit(self, variable: Variable) -> None:
        try:
            self.saved_variable = await self._save(variable)
        except ApiError as exc:
            self.server_error_label.setText(exc.message)
            self.server_error_label.show()
            self.save_button.setEnabled(True)
            raise
        self.accept()


class ImportPreviewDialog(QDialog):
    """Shows what an import would change; applies it with progress and reports each failure."""

    applied = Signal()

    def __init__(self, context: AppContext, *, api: VariablesApi, source: str,
                 plans: dict[bool, ImportPlan], parent: QWidget | None = None) -> None:
        super().__init__(parent)
        self._context = context
        self._api = api
        self._plans = plans  # by "exact sync"
        self.outcomes: list[Outcome] = []
        self.applying = False
        self.setWindowTitle(f"Import variables from {source}")
        self.resize(760, 480)

        self.summary_label = QLabel()
        self.summary_label.setWordWrap(True)
        self.exact_sync_check = QCheckBox("Exact sync: also remove variables that are not in the file")
        self.model = ImportPlanModel(self)
        self.table = QTableView()
        self.table.setModel(self.model)
        self.table.setSelectionBehavior(QTableView.SelectionBehavior.SelectRows)
        self.table.verticalHeader().hide()
        header = self.table.horizontalHeader()
        # Fitted once per plan, from a sample of rows.
        header.setResizeContentsPrecision(50)
        self.table.verticalHeader().setResizeContentsPrecision(50)
        header.setSectionResizeMode(ImportPlanModel.DETAILS, QHeaderView.ResizeMode.Stretch)
        header.setSectionResizeMode(ImportPlanModel.RESULT, QHeaderView.ResizeMode.Stretch)
        self.progress = QProgressBar()
        self.progress.hide()
        self._flush_timer = QTimer(self)
        self._flush_timer.setSingleShot(True)
        self._flush_timer.setInterval(PROGRESS_INTERVAL_MS)
        self.result_label = QLabel()
        self.result_label.setWordWrap(True)
        self.apply_button = QPushButton("Apply")
        self.apply_button.setDefault(True)
        self.buttons = QDialogButtonBox(QDialogButtonBox.StandardButton.Close)
        self.buttons.addButton(self.apply_button, QDialogButtonBox.ButtonRole.ActionRole)

        layout = QVBoxLayout(self)
        layout.addWidget(self.summary_label)
        layout.addWidget(self.exact_sync_check)
        layout.addWidget(self.table, 1)
        layout.addWidget(self.progress)
        layout.addWidget(self.result_label)
        layout.addWidget(self.buttons)

        self.exact_sync_check.toggled.connect(self.refresh_plan)
        self.apply_button.clicked.connect(self.apply)
        self.buttons.rejected.connect(self.reject)
        self.refresh_plan()

    @property
    def plan(self) -> ImportPlan:
        return self.model.plan

    def refresh_plan(self) -> None:
        plan = self._plans[self.exact_sync_check.isChecked()]
        self.model.set_plan(plan)
        for column in (ImportPlanModel.CHANGE, ImportPlanModel.KEY):
            self.table.resizeColumnToContents(column)
        parts = [f"{plan.count(ADDED)} to add", f"{plan.count(CHANGED)} to change"]
        if self.exact_sync_check.isChecked():
            parts.append(f"{plan.count(REMOVED)} to remove")
        parts.append(f"{plan.count(UNCHANGED)} unchanged")
        if plan.count(INVALID):
            parts.append(f"{plan.count(INVALID)} invalid (will not be sent)")
        self.summary_label.setText(", ".join(parts) + ".")
        self.apply_button.setEnabled(bool(plan.changes()))

    def apply(self) -> Op[None]:
        self.apply_button.setEnabled(False)
        self.exact_sync_check.setEnabled(False)
        self.model.set_results([(row, "Not sent: " + " ".join(item.problems), True)
                                for row, item in enumerate(self.plan.items) if item.kind == INVALID])
        rows_and_changes = self.plan.changes()
        self.progress.setRange(0, len(rows_and_changes))
        self.progress.setValue(0)
        self.progress.show()
        return Op(self._context, self._apply(rows_and_changes), description="Importing variables").run()

    async def _apply(self, rows_and_changes) -> None:
        rows = [row for row, _ in rows_and_changes]
        pending: list[tuple[int, str, bool]] = []

        def flush() -> None:
            # Results arrive faster than a person can read them: show them in batches, so
            # a thousand changes cost a few repaints instead of a thousand.
            self.model.set_results(pending)
            self.progress.setValue(self.progress.value() + len(pending))
            pending.clear()

        self._flush_timer.timeout.connect(flush)

        def record(position: int, outcome: Outcome) -> None:
            if outcome.error is None:
                pending.append((rows[position], "Done", False))
            else:
                pending.append((rows[position], outcome.error.detail or outcome.error.message, True))
            if not self._flush_timer.isActive():
                self._flush_timer.start()

        self.applying = True
        try:
            self.outcomes = await self._api.apply([change for _, change in rows_and_changes], on_outcome=record)
        finally:
            self.applying = False
            self._flush_timer.stop()
            self._flush_timer.timeout.disconnect(flush)
            flush()
            self.applied.emit()
        failed = len(self.model.failed_rows())
        applied = sum(1 for outcome in self.outcomes if outcome.ok)
        text = f"Applied {applied} of {len(rows_and_changes)} changes."
        if failed:
            text += f" {failed} failed: see the Result column."
            self.result_label.setStyleSheet(f"color: {colours()['error']};")
        self.result_label.setText(text)
