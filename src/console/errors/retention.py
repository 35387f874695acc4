"""The Storage page of the error tracking tab: what a project stores and how long it keeps it.

Retention limits are an Outpost extension; against a GitLab the page says so instead of failing. The page shows
what the retention repository (console.core.repositories.project_settings) holds, read or saved.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

from PySide6.QtWidgets import QCheckBox, QFormLayout, QHBoxLayout, QLabel, QPushButton, QSpinBox, QVBoxLayout, QWidget

from console.core.api.ingestion import describe_ingestion, ingestion_status
from console.core.api.storage import disk_text, human_bytes
from console.core.errors.access import MAINTAINER_ONLY
from console.core.repositories.project_settings import NOT_AVAILABLE
from console.core.store import Change
from console.core.timestamps import short_time
from console.operations import Op
from console.page_host import project_path
from outpost_model.ingestion import Ingestion
from outpost_model.retention import Retention

if TYPE_CHECKING:
    from console.core.api.error_tracking import ErrorTrackingApi
    from console.page_host import ProjectHost

__all__ = ["MAINTAINER_ONLY", "NOT_AVAILABLE", "RetentionPage"]
MIB = 1024 * 1024
# name -> (label, suffix, unit in bytes or 1, maximum in those units)
LIMITS = {
    "retention_days": ("Keep events for", " days", 1, 36_500),
    "events_per_error": ("Events kept per error", " events", 1, 10_000_000),
    "max_stored_bytes": ("Disk budget", " MiB", MIB, 4_000_000),
}


class LimitRow(QWidget):
    """One limit: a number (0 = no limit), or the instance default."""

    def __init__(self, name: str) -> None:
        super().__init__()
        label, suffix, self.unit, maximum = LIMITS[name]
        self.loaded_value = 0
        self.value = QSpinBox()
        self.value.setRange(0, maximum)
        self.value.setSuffix(suffix)
        self.value.setSpecialValueText("no limit")
        self.value.setAccessibleName(label)
        self.use_default = QCheckBox("Instance default")
        self.use_default.toggled.connect(lambda checked: self.value.setEnabled(not checked))
        layout = QHBoxLayout(self)
        layout.setContentsMargins(0, 0, 0, 0)
        layout.addWidget(self.value, 1)
        layout.addWidget(self.use_default)

    def show_limit(self, value: int, default: int, overridden: bool) -> None:
        self.loaded_value = value
        self.value.setValue(value // self.unit)
        shown_default = "no limit" if default == 0 else f"{default // self.unit}{self.value.suffix()}"
        self.use_default.setText(f"Instance default ({shown_default})")
        self.use_default.setChecked(not overridden)

    def chosen(self) -> int | None:
        if self.use_default.isChecked():
            return None
        if self.value.value() == self.loaded_value // self.unit:  # unchanged: keep the exact figure
            return self.loaded_value
        return self.value.value() * self.unit


class RetentionPage(QWidget):
    def __init__(self, host: ProjectHost[ErrorTrackingApi]) -> None:
        super().__init__()
        self.host = host
        self.repository = host.context.repositories.retention
        self.usage = QLabel()
        self.usage.setWordWrap(True)
        # Administrators also see the server's ingestion queue and its lag.
        self.ingestion = QLabel()
        self.ingestion.setWordWrap(True)
        self.ingestion.setAccessibleName("Ingestion on this server")
        self.ingestion.hide()
        self.notice = QLabel()
        self.notice.setWordWrap(True)
        self.notice.hide()
        self.rows = {name: LimitRow(name) for name in LIMITS}
        form = QFormLayout()
        for name, row in self.rows.items():
            form.addRow(LIMITS[name][0], row)
        self.save_button = QPushButton("Save")
        self.save_button.clicked.connect(self.save)
        self.saved_label = QLabel()
        hint = QLabel("Older events are removed in the background. Counts, users affected, first and last seen "
                      "and frequencies stay as they are.")
        hint.setWordWrap(True)
        buttons = QHBoxLayout()
        buttons.addWidget(self.save_button)
        buttons.addWidget(self.saved_label)
        buttons.addStretch(1)
        layout = QVBoxLayout(self)
        layout.addWidget(self.notice)
        layout.addWidget(self.usage)
        layout.addLayout(form)
        layout.addWidget(hint)
        layout.addLayout(buttons)
        layout.addWidget(self.ingestion)
        layout.addStretch(1)
        self._set_editable(False)
        self.repository.subscribe_view(self, self._held_changed, lambda: project_path(self.host))

    @property
    def loaded(self) -> Retention | None:
        """The chosen project's limits and usage as held; None while not read or not shown (a reason instead)."""
        path = project_path(self.host)
        held = self.repository.retention(path) if path is not None else None
        return held if isinstance(held, Retention) else None

    def _held_changed(self, _change: Change) -> None:
        path = project_path(self.host)
        held = self.repository.retention(path) if path is not None else None
        if held is not None:
            self._show(held)

    def _set_editable(self, editable: bool) -> None:
        for row in self.rows.values():
            row.setEnabled(editable)
        self.save_button.setEnabled(editable)

    def load(self) -> None:
        project = self.host.project
        if project is None:
            return
        self.saved_label.clear()
        path = project.path_with_namespace
        if not self.host.context.server.is_outpost:  # GitLab has no such API: say so without asking
            self.repository.hold_reason(path, NOT_AVAILABLE)
            self._show(NOT_AVAILABLE)
            return
        Op(self.host, self.repository.fetch(self.host.api, path, project.id),
           description="Loading retention settings").stale_when(self.host.project_choice).run()
        if self.host.context.is_admin:
            Op(self.host, ingestion_status(self.host.api.client), description="Loading ingestion figures").success(
                self._show_ingestion).run()

    def _show_ingestion(self, status: Ingestion) -> None:
        self.ingestion.setText(describe_ingestion(status))
        self.ingestion.show()

    def _show(self, result: Retention | str) -> None:
        if isinstance(result, str):
            self.notice.setText(result)
            self.notice.show()
            self.usage.clear()
            self._set_editable(False)
            return
        self.notice.hide()
        pruned = short_time(result.last_pruned_at) if result.last_pruned_at else "not yet"
        disk = f", {disk_text(result.disk_bytes, result.disk_basis)}" if result.disk_basis else ""
        self.usage.setText(f"Stored: {result.stored_events:,} events, {human_bytes(result.stored_bytes)} of "
                           f"payloads{disk}. Last pruned: {pruned}.")
        for name, row in self.rows.items():
            row.show_limit(getattr(result, name), getattr(result.instance_defaults, name), name in result.overridden)
        self._set_editable(True)

    def save(self) -> None:
        project = self.host.project
        if project is None or self.loaded is None:
            return
        limits = {name: row.chosen() for name, row in self.rows.items()}
        self.saved_label.clear()
        work = self.repository.save(self.host.api, project.path_with_namespace, project.id, limits)
        Op(self.host, work, description="Saving retention settings").success(
            lambda _saved: self.saved_label.setText("Saved.")).stale_when(self.host.project_choice).run()
