"""The triage dialogs of the error list: ignore until a condition, and the member picker for Assign."""

from __future__ import annotations

from PySide6.QtWidgets import (
    QButtonGroup,
    QComboBox,
    QDialog,
    QDialogButtonBox,
    QFormLayout,
    QHBoxLayout,
    QLabel,
    QRadioButton,
    QSpinBox,
    QVBoxLayout,
    QWidget,
)

from console.core.api.triage import IgnoreUntil, member_label
from outpost_model.accounts import Member

# Sentry's bound on both windows: a week, in minutes.
MAX_WINDOW = 7 * 24 * 60
MAX_COUNT = 1_000_000


def _spin(value: int, highest: int, suffix: str = "") -> QSpinBox:
    spin = QSpinBox()
    spin.setRange(1, highest)
    spin.setValue(value)
    spin.setSuffix(suffix)
    return spin


class IgnoreDialog(QDialog):
    """Ignore the selected errors for ever, or until more events, more users or some time has passed."""

    def __init__(self, count: int, parent: QWidget | None = None) -> None:
        super().__init__(parent)
        self.setWindowTitle("Ignore errors")
        self.forever = QRadioButton("For ever")
        self.events = QRadioButton("Until it happens")
        self.users = QRadioButton("Until it affects")
        self.duration = QRadioButton("For")
        self.choices = QButtonGroup(self)
        for button in (self.forever, self.events, self.users, self.duration):
            self.choices.addButton(button)
        self.events.setChecked(True)
        self.event_count, self.event_window = _spin(2, MAX_COUNT, " more times"), _spin(60, MAX_WINDOW, " minutes")
        self.user_count, self.user_window = _spin(2, MAX_COUNT, " more users"), _spin(60, MAX_WINDOW, " minutes")
        self.event_windowed, self.user_windowed = QComboBox(), QComboBox()
        for combo in (self.event_windowed, self.user_windowed):
            combo.addItem("from now on", False)
            combo.addItem("within", True)
        self.minutes = _spin(60, 10 * MAX_WINDOW, " minutes")
        form = QFormLayout()
        form.addRow(self.forever)
        form.addRow(self.events, self._row(self.event_count, self.event_windowed, self.event_window))
        form.addRow(self.users, self._row(self.user_count, self.user_windowed, self.user_window))
        form.addRow(self.duration, self.minutes)
        buttons = QDialogButtonBox(QDialogButtonBox.StandardButton.Ok | QDialogButtonBox.StandardButton.Cancel)
        buttons.button(QDialogButtonBox.StandardButton.Ok).setText("Ignore")
        buttons.accepted.connect(self.accept)
        buttons.rejected.connect(self.reject)
        layout = QVBoxLayout(self)
        layout.addWidget(QLabel(f"Ignore {count} error{'s' if count != 1 else ''}: it comes back unresolved once "
                                "the condition is met."))
        layout.addLayout(form)
        layout.addWidget(buttons)

    @staticmethod
    def _row(count: QSpinBox, windowed: QComboBox, window: QSpinBox) -> QWidget:
        row = QWidget()
        line = QHBoxLayout(row)
        line.setContentsMargins(0, 0, 0, 0)
        for widget in (count, windowed, window):
            line.addWidget(widget)
        window.setEnabled(False)
        windowed.currentIndexChanged.connect(lambda: window.setEnabled(bool(windowed.currentData())))
        return row

    def condition(self) -> IgnoreUntil:
        if self.events.isChecked():
            return IgnoreUntil(count=self.event_count.value(),
                               window=self.event_window.value() if self.event_windowed.currentData() else None)
        if self.users.isChecked():
            return IgnoreUntil(user_count=self.user_count.value(),
                               user_window=self.user_window.value() if self.user_windowed.currentData() else None)
        if self.duration.isChecked():
            return IgnoreUntil(duration=self.minutes.value())
        return IgnoreUntil()


class AssignDialog(QDialog):
    """Pick the member to assign the selected errors to, or nobody."""

    def __init__(self, count: int, members: list[Member], parent: QWidget | None = None) -> None:
        super().__init__(parent)
        self.setWindowTitle("Assign errors")
        self.member = QComboBox()
        self.member.addItem("Nobody (unassign)", None)
        for member in sorted(members, key=lambda member: member_label(member).lower()):
            self.member.addItem(member_label(member), member)
        if members:
            self.member.setCurrentIndex(1)
        buttons = QDialogButtonBox(QDialogButtonBox.StandardButton.Ok | QDialogButtonBox.StandardButton.Cancel)
        buttons.button(QDialogButtonBox.StandardButton.Ok).setText("Assign")
        buttons.accepted.connect(self.accept)
        buttons.rejected.connect(self.reject)
        layout = QVBoxLayout(self)
        layout.addWidget(QLabel(f"Assign {count} error{'s' if count != 1 else ''} to a member of the project:"))
        layout.addWidget(self.member)
        layout.addWidget(buttons)

    def chosen(self) -> Member | None:
        data = self.member.currentData()
        return data if isinstance(data, Member) else None

    def choose(self, username: str) -> None:
        for index in range(self.member.count()):
            data = self.member.itemData(index)
            if isinstance(data, Member) and data.username == username:
                self.member.setCurrentIndex(index)
                return
        raise LookupError(username)
