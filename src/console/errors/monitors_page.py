"""The Monitors page: a project's cron monitors with their schedule in words, status, environment, last
and next check-in; the selected monitor's recent check-ins as a timeline coloured by status; Mute and
Pause.

The page renders what the monitors repository (console.core.repositories.monitors) holds: whoever read the
monitors last (this page, the Overview counting failing ones, the watcher) it shows, so it can never say *ok* of
a monitor the Overview counts as failing.
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

from PySide6.QtCore import QModelIndex, QRect, Qt, QTimer
from PySide6.QtGui import QBrush, QPainter, QPaintEvent, QShowEvent
from PySide6.QtWidgets import (
    QAbstractItemView,
    QHBoxLayout,
    QHeaderView,
    QLabel,
    QPushButton,
    QTableView,
    QVBoxLayout,
    QWidget,
)

from console.core.api.monitors import Monitor, MonitorCheckIn, MonitorsApi, is_failing, is_paused
from console.core.errors.monitor_words import STATUS_COLOURS, schedule_words, status_words
from console.core.store import Change
from console.core.timestamps import full_time, relative_time, short_time
from console.looks import colour
from console.operations import Op
from console.page_host import project_path
from console.table_model import HeaderedTableModel, Index

if TYPE_CHECKING:
    from console.core.api.error_tracking import ErrorTrackingApi
    from console.page_host import ProjectHost

NEEDS_OUTPOST = "Cron monitors need an Outpost server: GitLab has no cron monitoring."
EMPTY = ("No monitors yet. A monitor is created by the first check-in that carries its configuration: "
         "an SDK's monitor_config, sentry-cli monitors run --schedule, or the HTTP check-in URL.")
BOX = 14
GAP = 3


class MonitorModel(HeaderedTableModel):
    HEADERS = ("Monitor", "Schedule", "Status", "Environment", "Last check-in", "Next check-in")

    LAST_CHECK_IN, NEXT_CHECK_IN = 4, 5

    def __init__(self, parent=None) -> None:
        super().__init__(parent)
        self.monitors: list[Monitor] = []
        # "in 5 min" is true for a minute: the times are said again as the clock moves.
        self._clock = QTimer(self)
        self._clock.setInterval(60_000)
        self._clock.timeout.connect(self.follow_clock)
        self._clock.start()

    def follow_clock(self) -> None:
        if self.monitors:
            self.dataChanged.emit(self.index(0, self.LAST_CHECK_IN), self.index(len(self.monitors) - 1,
                                                                               self.NEXT_CHECK_IN))

    def set_monitors(self, monitors: list[Monitor]) -> None:
        self.beginResetModel()
        self.monitors = list(monitors)
        self.endResetModel()

    def monitor_at(self, row: int) -> Monitor | None:
        return self.monitors[row] if 0 <= row < len(self.monitors) else None

    def rowCount(self, parent: Index = QModelIndex()) -> int:
        return 0 if parent.isValid() else len(self.monitors)

    def cell(self, monitor: Monitor, column: int, say_time=relative_time) -> str:
        """The column's text; ``say_time`` says its times (relative in the cell, full_time in the tooltip)."""
        latest = monitor.environments[0] if monitor.environments else None
        return (monitor.name, schedule_words(monitor.config), status_words(monitor),
                ", ".join(environment.name for environment in monitor.environments),
                say_time(latest.lastCheckIn) if latest else "",
                "" if is_paused(monitor) or latest is None else say_time(latest.nextCheckIn))[column]

    def data(self, index: Index, role: int = Qt.ItemDataRole.DisplayRole) -> Any:
        monitor = self.monitor_at(index.row()) if index.isValid() else None
        if monitor is None:
            return None
        if role == Qt.ItemDataRole.DisplayRole:
            return self.cell(monitor, index.column())
        if role == Qt.ItemDataRole.ToolTipRole:
            return self.cell(monitor, index.column(), full_time)
        if role == Qt.ItemDataRole.ForegroundRole and index.column() == 2:
            if is_failing(monitor) and not is_paused(monitor):
                return QBrush(colour("error"))
            if is_paused(monitor) or monitor.isMuted:
                return QBrush(colour("muted"))
        return None


class Timeline(QWidget):
    """The latest check-ins, oldest on the left, one box each in its status's colour."""

    def __init__(self) -> None:
        super().__init__()
        self.check_ins: list[MonitorCheckIn] = []
        self.setMinimumHeight(BOX + 2 * GAP)
        self.setMouseTracking(True)

    def set_check_ins(self, check_ins: list[MonitorCheckIn]) -> None:
        self.check_ins = list(reversed(check_ins))
        self.setToolTip("")
        self.update()

    def box(self, position: int) -> QRect:
        return QRect(GAP + position * (BOX + GAP), GAP, BOX, BOX)

    def colour_name(self, check_in: MonitorCheckIn) -> str:
        return STATUS_COLOURS.get(check_in.status, "badge")

    def paintEvent(self, event: QPaintEvent) -> None:
        painter = QPainter(self)
        for position, check_in in enumerate(self.check_ins):
            painter.fillRect(self.box(position), colour(self.colour_name(check_in)))
        painter.end()

    def mouseMoveEvent(self, event) -> None:
        position = int(event.position().x()) // (BOX + GAP)
        if 0 <= position < len(self.check_ins):
            check_in = self.check_ins[position]
            took = f", {check_in.duration / 1000:g} s" if check_in.duration is not None else ""
            self.setToolTip(f"{short_time(check_in.dateCreated)}: {check_in.status.replace('_', ' ')}{took} "
                            f"({check_in.environment})")


class MonitorsPage(QWidget):
    def __init__(self, host: ProjectHost[ErrorTrackingApi]) -> None:
        super().__init__()
        self.host = host
        self.loaded_project: int | None = None
        self.model = MonitorModel(self)
        self.notice = QLabel()
        self.notice.setWordWrap(True)
        self.notice.hide()
        self.table = QTableView()
        self.table.setModel(self.model)
        self.table.setSelectionBehavior(QAbstractItemView.SelectionBehavior.SelectRows)
        self.table.setSelectionMode(QAbstractItemView.SelectionMode.SingleSelection)
        self.table.verticalHeader().hide()
        self.table.horizontalHeader().setSectionResizeMode(QHeaderView.ResizeMode.Stretch)
        self.table.selectionModel().currentRowChanged.connect(lambda *_: self._chosen())
        self.timeline = Timeline()
        self.timeline_label = QLabel("Recent check-ins")
        self.mute_button = QPushButton("Mute")
        self.pause_button = QPushButton("Pause")
        self.refresh_button = QPushButton("Refresh")
        self.mute_button.clicked.connect(self.toggle_mute)
        self.pause_button.clicked.connect(self.toggle_pause)
        self.refresh_button.clicked.connect(self.load)
        buttons = QHBoxLayout()
        for button in (self.mute_button, self.pause_button, self.refresh_button):
            buttons.addWidget(button)
        buttons.addStretch(1)
        layout = QVBoxLayout(self)
        layout.addWidget(self.notice)
        layout.addWidget(self.table, 1)
        layout.addWidget(self.timeline_label)
        layout.addWidget(self.timeline)
        layout.addLayout(buttons)
        self._update_buttons()
        self.repository = host.context.repositories.monitors
        self.repository.subscribe_view(self, self._held_changed, lambda: project_path(self.host))

    @property
    def api(self) -> MonitorsApi:
        return MonitorsApi(self.host.api.client)

    def selected(self) -> Monitor | None:
        return self.model.monitor_at(self.table.currentIndex().row())

    def load(self) -> None:
        project = self.host.project
        if project is None:
            return
        if not self.host.context.server.is_outpost:
            self._say(NEEDS_OUTPOST)
            return

        def loaded(_monitors: list[Monitor]) -> None:
            self.loaded_project = project.id
            self._show()

        Op(self.host, self.repository.fetch(self.api, project.path_with_namespace, project.id),
           description="Loading monitors").success(loaded).stale_when(self.host.project_choice).run()

    def showEvent(self, event: QShowEvent) -> None:
        """Shown again: read again what is no longer fresh (its first showing is the tab's load)."""
        super().showEvent(event)
        path = project_path(self.host)
        if self.loaded_project is not None and path is not None and self.repository.is_stale(path):
            self.load()

    def _held_changed(self, change: Change) -> None:
        if change.touches(self.repository.check_ins_kind):
            self._show_check_ins()
        else:
            self._show()

    def _show(self) -> None:
        """The held monitors, the selection kept; nothing until this project's were read."""
        path = project_path(self.host)
        monitors = self.repository.monitors(path) if path is not None else None
        if monitors is None or self.loaded_project is None:
            return
        keep = self.selected()
        self._say("" if monitors else EMPTY)
        self.model.set_monitors(monitors)
        slugs = [monitor.slug for monitor in monitors]
        if keep is not None and keep.slug in slugs:
            self.table.selectRow(slugs.index(keep.slug))
        chosen = self.selected()
        if keep is None or chosen is None or chosen.id != keep.id:
            self._chosen()
        else:
            self._update_buttons()

    def _say(self, text: str) -> None:
        self.notice.setText(text)
        self.notice.setVisible(bool(text))

    def _update_buttons(self) -> None:
        monitor = self.selected()
        self.mute_button.setEnabled(monitor is not None)
        self.pause_button.setEnabled(monitor is not None)
        self.mute_button.setText("Unmute" if monitor and monitor.isMuted else "Mute")
        self.pause_button.setText("Resume" if monitor and is_paused(monitor) else "Pause")

    def _chosen(self) -> None:
        self._update_buttons()
        monitor, project = self.selected(), self.host.project
        if monitor is None or project is None:
            self.timeline.set_check_ins([])
            return
        self._show_check_ins()
        Op(self.host, self.repository.fetch_check_ins(self.api, project.path_with_namespace, monitor.id),
           description="Loading check-ins").stale_when(self.host.project_choice).run()

    def _show_check_ins(self) -> None:
        monitor, path = self.selected(), project_path(self.host)
        held = self.repository.check_ins(path, monitor.id) if monitor is not None and path is not None else None
        self.timeline.set_check_ins(held or [])

    def _change(self, description: str, *, muted: bool | None = None, paused: bool | None = None) -> None:
        monitor, path = self.selected(), project_path(self.host)
        if monitor is None or path is None:
            return
        Op(self.host, self.repository.update(self.api, path, monitor.id, muted=muted, paused=paused),
           description=description).run()  # the row follows the answer, held

    def toggle_mute(self) -> None:
        monitor = self.selected()
        if monitor is not None:
            self._change("Unmuting the monitor" if monitor.isMuted else "Muting the monitor",
                         muted=not monitor.isMuted)

    def toggle_pause(self) -> None:
        monitor = self.selected()
        if monitor is not None:
            paused = is_paused(monitor)
            self._change("Resuming the monitor" if paused else "Pausing the monitor", paused=not paused)
