"""The overview tab: server facts, instance variables, exports and each project's errors, each a way in.

What it counts from the console's store (the instance variables, the exports, the failing monitors) is counted
each time it is drawn, from what the store holds then; only the error figures its own read worked out are kept,
here in the view, and never written back into the store.
"""

from __future__ import annotations

from pathlib import Path
from typing import Any

from PySide6.QtCore import QModelIndex, Qt, QTimer, Signal
from PySide6.QtGui import QShowEvent
from PySide6.QtWidgets import (
    QAbstractItemView,
    QFormLayout,
    QGroupBox,
    QHBoxLayout,
    QHeaderView,
    QLabel,
    QPushButton,
    QTableView,
    QVBoxLayout,
    QWidget,
)

from console.context import AppContext
from console.core.errors import records as error_records
from console.core.operations import Token
from console.core.overview.data import Count, Overview, gather_overview, server_facts, variables_limit, with_monitors
from console.core.repositories.exports import ExportCounts
from console.core.store import Change
from console.errors.frequency import FrequencyBarDelegate
from console.feature import FeatureWidget
from console.fitting import scrolling
from console.operations import Op
from console.overview.mail_status import MailStatusBox
from console.overview.model import PROJECT_ROLE, ProjectErrorsModel
from console.overview.storage_box import StorageBox
from console.settings import app_data_dir

# What the overview counts from the server: when the store learns something new of these, its figures are
# read again. Variables, exports and monitors are counted from the store itself, at once.
COUNTED_KINDS = (error_records.SUMMARY, error_records.DETAIL)
SETTLE_MS = 500  # a burst of answers (a list, then its details) reads the figures once

TREND_COLUMN_WIDTH = 140
ROWS_SHOWN = 4  # the projects the table has room for however short the window


class OverviewTab(FeatureWidget):
    """What needs attention on this server; every item opens its tab already filtered.

    Signals:
        open_requested(target, argument): "variables" (None), "exports" (an export id or None) or
            "errors" (a project path).
        loaded: new numbers are on screen.
    """

    open_requested = Signal(str, object)
    loaded = Signal()

    def __init__(self, context: AppContext, parent: QWidget | None = None, *, history_dir: Path | None = None) -> None:
        super().__init__(context, parent)
        self.setAccessibleName("Overview")
        self.history_dir = history_dir if history_dir is not None else app_data_dir() / "exports"
        self.overview: Overview | None = None
        self.loads = Token()  # an overview from an earlier load (or connection) is stale
        self._stale = True

        self.server_value = QLabel()
        self.kind_value = QLabel()
        self.version_value = QLabel()
        self.role_value = QLabel()
        server_box = QGroupBox("Server")
        form = QFormLayout(server_box)
        for title, label in (("Address", self.server_value), ("Kind", self.kind_value),
                             ("Version", self.version_value), ("Your role", self.role_value)):
            label.setTextInteractionFlags(Qt.TextInteractionFlag.TextSelectableByMouse)
            label.setAccessibleName(title)
            form.addRow(title, label)

        self.variables_button = QPushButton("Instance variables")
        self.variables_button.setAccessibleName("Open instance variables")
        self.variables_button.clicked.connect(lambda: self.open_requested.emit("variables", None))
        self.exports_button = QPushButton("Your exports")
        self.exports_button.setAccessibleName("Open vulnerability exports")
        self.exports_button.clicked.connect(self._open_exports)
        self.refresh_button = QPushButton("Refresh")
        self.refresh_button.setAccessibleName("Refresh the overview")
        self.refresh_button.clicked.connect(self.refresh)
        cards = QHBoxLayout()
        cards.addWidget(self.variables_button)
        cards.addWidget(self.exports_button)
        cards.addStretch(1)
        cards.addWidget(self.refresh_button)

        self.model = ProjectErrorsModel(self)
        self.table = QTableView()
        self.table.setAccessibleName("Errors per project")
        self.table.setModel(self.model)
        self.table.setSelectionBehavior(QAbstractItemView.SelectionBehavior.SelectRows)
        self.table.setSelectionMode(QAbstractItemView.SelectionMode.SingleSelection)
        self.table.setEditTriggers(QAbstractItemView.EditTrigger.NoEditTriggers)
        self.table.verticalHeader().hide()
        self.table.setItemDelegateForColumn(ProjectErrorsModel.TREND, FrequencyBarDelegate(self.table))
        header = self.table.horizontalHeader()
        header.setSectionResizeMode(QHeaderView.ResizeMode.ResizeToContents)
        header.setSectionResizeMode(ProjectErrorsModel.PROJECT, QHeaderView.ResizeMode.Stretch)
        header.setSectionResizeMode(ProjectErrorsModel.TREND, QHeaderView.ResizeMode.Fixed)
        header.resizeSection(ProjectErrorsModel.TREND, TREND_COLUMN_WIDTH)
        self.table.activated.connect(self._open_project)
        self.table.doubleClicked.connect(self._open_project)
        self.projects_note = QLabel()
        self.projects_note.setWordWrap(True)

        errors_box = QGroupBox("Error tracking (unresolved errors; Enter or double-click opens the project)")
        errors_layout = QVBoxLayout(errors_box)
        errors_layout.addWidget(self.table, 1)
        errors_layout.addWidget(self.projects_note)
        # At 900×600 the boxes above left the table one and a half rows: the page scrolls instead, and the table
        # keeps room for a few projects.
        self.table.setMinimumHeight(self.table.horizontalHeader().sizeHint().height()
                                    + ROWS_SHOWN * self.table.verticalHeader().defaultSectionSize() + 4)
        content = QWidget()
        layout = QVBoxLayout(content)
        layout.setContentsMargins(0, 0, 0, 0)
        outer = QVBoxLayout(self)
        outer.addWidget(scrolling(content, "Overview"))
        layout.addWidget(server_box)
        layout.addLayout(cards)
        # Administrators of an Outpost server: whether alerts can send email.
        self.mail_box = MailStatusBox(context)
        layout.addWidget(self.mail_box)
        # Administrators: what error tracking stores on the server.
        self.storage_box = StorageBox(context)
        layout.addWidget(self.storage_box)
        layout.addWidget(errors_box, 1)

        self.recount = QTimer(self)
        self.recount.setSingleShot(True)
        self.recount.setInterval(SETTLE_MS)
        self.recount.timeout.connect(self.refresh)
        context.store.subscribe_view(self, self._store_changed)
        context.connection_changed.connect(self._connection_changed)
        self._connection_changed()

    # loading -----------------------------------------------------------------------
    def _connection_changed(self) -> None:
        self.loads.advance()  # answers for the previous connection are dropped
        self.overview = None
        self.model.set_rows([])
        self._show_facts()
        self._show_counts()
        self._stale = True
        if self.isVisible():
            self.refresh()

    def _store_changed(self, change: Change) -> None:
        repositories = self.context.repositories
        if change.kind in (*repositories.variables.kinds, repositories.exports.kind, repositories.monitors.kind):
            # Counted from what the store holds: the figures follow the variables tab, the exports and the
            # Monitors page at once.
            if self.overview is not None:
                self._show_counts()
        elif change.kind in COUNTED_KINDS:
            # The figures are out of date: read them again now if on screen, else when next shown.
            self._stale = True
            if self.isVisible():
                self.recount.start()

    def showEvent(self, event: QShowEvent) -> None:
        super().showEvent(event)
        if self._stale:
            self.refresh()

    def find_field(self) -> QWidget:
        return self.table

    def refresh(self) -> None:
        client = self.context.client
        if client is None:
            return
        self._stale = False
        self.projects_note.setText("Counting errors…")
        self.storage_box.load()

        def show(overview: Overview) -> None:
            self.overview = overview
            self._show_counts()
            self.loaded.emit()

        work = gather_overview(client, self.context.repositories, version=self.context.server_version,
                               user=self.context.user, history_dir=self.history_dir,
                               profile=self.context.profile_key or "")
        loading = self.loads.advance()
        Op(self.context, work, description="Loading the overview").success(show).stale_when(loading).run()

    # showing -----------------------------------------------------------------------
    def _show_facts(self) -> None:
        client = self.context.client
        facts = server_facts(self.context.server_version, self.context.user) if client else None
        self.server_value.setText(client.base_url if client else "")
        self.kind_value.setText(facts.kind if facts else "")
        revision = self.context.server_version.revision if self.context.server_version is not None else None
        version = f"{facts.version} (revision {revision})" if facts and revision else facts.version if facts else ""
        self.version_value.setText(version)
        self.role_value.setText(facts.role if facts else "")

    def _show_counts(self) -> None:
        overview = self.overview
        if overview is None:
            self.variables_button.setText("Instance variables: loading…")
            self.exports_button.setText("Your exports: loading…")
            self.projects_note.clear()
            return
        variables = overview.variables
        held = self.context.repositories.variables.count()
        if variables.value is not None and held is not None:  # readable: counted from what is held now
            variables = Count(held)
        limit = variables_limit(self.context.repositories.variables)
        self.variables_button.setText(_variables_text(variables, limit))
        self.variables_button.setToolTip(_reasons(variables, limit))
        counted = self.export_counts()
        self.exports_button.setText(f"Your exports: {counted.running} running, {counted.finished} finished")
        self.model.set_rows(with_monitors(overview.projects, self.context.repositories.monitors))
        if not overview.projects:
            self.projects_note.setText("No project you can see has error tracking enabled.")
        else:
            reasons = {count.reason for row in overview.projects
                       for count in (row.new_today, row.unresolved, row.regressions) if count.value is None}
            notes = [overview.projects_note, *(f"Some numbers are not available: {reason}." for reason in reasons)]
            self.projects_note.setText(" ".join(note for note in notes if note))

    # opening -----------------------------------------------------------------------
    def export_counts(self) -> ExportCounts:
        """The exports running and finished, counted from what the repository holds now."""
        return self.context.repositories.exports.counts()

    def _open_exports(self) -> None:
        latest = self.export_counts().latest_finished_id if self.overview else None
        self.open_requested.emit("exports", latest)

    def _open_project(self, index: QModelIndex) -> None:
        path: Any = index.data(PROJECT_ROLE)
        if path:
            self.open_requested.emit("errors", path)


def _variables_text(variables: Count, limit: Count) -> str:
    if variables.value is None:
        return "Instance variables: not available"
    if limit.value is None:
        return f"Instance variables: {variables.value} (limit not available)"
    if limit.value == 0:
        return f"Instance variables: {variables.value} (no limit)"
    return f"Instance variables: {variables.value} of {limit.value}"


def _reasons(*counts: Count) -> str:
    return "; ".join(f"Not available: {count.reason}" for count in counts if count.value is None) \
        or "Open the CI/CD variables tab"
