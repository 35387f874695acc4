"""Per-profile choices for notifications: whether to watch, how often, and which projects."""

from __future__ import annotations

from PySide6.QtCore import Qt
from PySide6.QtWidgets import (
    QCheckBox,
    QDialog,
    QDialogButtonBox,
    QFormLayout,
    QLabel,
    QListWidget,
    QListWidgetItem,
    QSpinBox,
    QWidget,
)

from console.core import settings_keys as keys
from console.core.settings_keys import DEFAULT_WATCH_SECONDS, MIN_WATCH_SECONDS
from console.window_state import ProfileState

MAX_WATCH_SECONDS = 3600
WITHOUT_WATCHING = ("Watching or not, each time the list of the project open in Error tracking is read "
                    "(choosing it, Refresh, coming back to it, every 30 s while it is on screen) its new and "
                    "regressed errors are news. Watching adds the projects ticked below, checked at this interval "
                    "whatever is on screen, and, on an Outpost server, their failing alert deliveries and cron "
                    "monitors.")


class NotificationSettingsDialog(QDialog):
    def __init__(self, state: ProfileState, projects: list[str], parent: QWidget | None = None) -> None:
        super().__init__(parent)
        self.setWindowTitle("Notification settings")
        self._state = state
        self.enabled = QCheckBox("Watch while the console runs: finished exports, new and regressed errors")
        self.enabled.setAccessibleName("Watch for news")
        self.enabled.setChecked(state.watch_enabled)
        self.interval = QSpinBox()
        self.interval.setAccessibleName("Check every (seconds)")
        self.interval.setRange(MIN_WATCH_SECONDS, MAX_WATCH_SECONDS)
        self.interval.setSuffix(" s")
        self.interval.setValue(state.number(keys.WATCH_INTERVAL, DEFAULT_WATCH_SECONDS))
        self.projects = QListWidget()
        self.projects.setAccessibleName("Watched projects")
        watched = set(state.watched_projects)
        for path in sorted(set(projects) | watched):
            item = QListWidgetItem(path, self.projects)
            item.setFlags(item.flags() | Qt.ItemFlag.ItemIsUserCheckable)
            item.setCheckState(Qt.CheckState.Checked if path in watched else Qt.CheckState.Unchecked)
        buttons = QDialogButtonBox(QDialogButtonBox.StandardButton.Ok | QDialogButtonBox.StandardButton.Cancel)
        buttons.accepted.connect(self.accept)
        buttons.rejected.connect(self.reject)
        form = QFormLayout(self)
        explanation = QLabel(WITHOUT_WATCHING)
        explanation.setWordWrap(True)
        form.addRow(explanation)
        form.addRow(self.enabled)
        form.addRow("Check every", self.interval)
        form.addRow("Projects whose errors are watched", self.projects)
        form.addRow(buttons)

    def accept(self) -> None:
        checked = [self.projects.item(row).text() for row in range(self.projects.count())
                   if self.projects.item(row).checkState() == Qt.CheckState.Checked]
        self._state.set_value(keys.WATCH_ENABLED, self.enabled.isChecked())
        self._state.set_value(keys.WATCH_INTERVAL, self.interval.value())
        self._state.set_value(keys.WATCH_PROJECTS, checked)
        super().accept()
