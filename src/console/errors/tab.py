"""The Error tracking tab: pick a project, then its errors, settings, client keys, storage, alerts, source maps
and cron monitors."""

from __future__ import annotations

from collections.abc import Callable, Coroutine
from typing import Any, TypeVar

from PySide6.QtCore import QTimer, Signal
from PySide6.QtGui import QHideEvent, QShowEvent
from PySide6.QtWidgets import QComboBox, QHBoxLayout, QLabel, QTabWidget, QVBoxLayout, QWidget

from console.context import AppContext
from console.core.api.error_graphql import ERROR_TRACKING_DISABLED
from console.core.api.error_tracking import ErrorTrackingApi
from console.core.api.errors import NotFound
from console.core.operations import Token
from console.core.repositories.projects import INSTANCE as PROJECT_LIST
from console.errors.actions import ACTIONS, BUTTONS, TRIAGE
from console.errors.alerts_page import AlertsPage
from console.errors.client_keys import ClientKeysPage
from console.errors.error_list import ErrorsPage
from console.errors.monitors_page import MonitorsPage
from console.errors.retention import RetentionPage
from console.errors.source_maps import SourceMapsPage
from console.errors.tracking_settings import SettingsPage
from console.operations import Op
from console.tab import ConsoleTab
from outpost_model.projects import Project

AUTO_REFRESH_MS = 30_000
T = TypeVar("T")


class ProjectGone(NotFound):
    """The chosen project was deleted, or access to it lost, after the project list was loaded."""

    def __init__(self, path: str) -> None:
        self.path = path
        super().__init__(status=404)

    @property
    def message(self) -> str:
        return (f"The project {self.path} no longer exists, or you no longer have access to it. "
                "The project list has been reloaded: choose another.")


class ErrorTrackingTab(ConsoleTab[ErrorTrackingApi]):
    """The feature tab: pick a project, then its errors, settings and client keys."""

    api_factory = ErrorTrackingApi
    projects_loaded = Signal()  # the project picker lists the connection's projects

    def __init__(self, context: AppContext) -> None:
        super().__init__(context)
        self.project: Project | None = None
        self.projects = context.repositories.projects
        self.project_lists = Token()
        self.project_choice = Token()
        self.project_picker = QComboBox()
        self.project_picker.setMinimumWidth(320)
        self.project_picker.setPlaceholderText("Choose a project")
        self.project_picker.currentIndexChanged.connect(self._project_chosen)
        top = QHBoxLayout()
        top.addWidget(QLabel("Project"))
        top.addWidget(self.project_picker)
        top.addStretch(1)
        self.errors_page = ErrorsPage(self)
        self.settings_page = SettingsPage(self)
        self.keys_page = ClientKeysPage(self)
        self.retention_page = RetentionPage(self)
        self.alerts_page = AlertsPage(self)
        self.source_maps_page = SourceMapsPage(self)
        self.monitors_page = MonitorsPage(self)
        self.pages = QTabWidget()
        self.pages.addTab(self.errors_page, "Errors")
        self.pages.addTab(self.settings_page, "Settings")
        self.pages.addTab(self.keys_page, "Client keys")
        self.pages.addTab(self.retention_page, "Storage")
        self.pages.addTab(self.alerts_page, "Alerts")
        self.pages.addTab(self.source_maps_page, "Source maps")
        self.pages.addTab(self.monitors_page, "Monitors")
        self._stale_pages: set[QWidget] = set()
        self._page_shown: QWidget = self.errors_page
        self.pages.currentChanged.connect(self._page_chosen)
        self.settings_page.modified_changed.connect(
            lambda modified: self.pages.setTabText(self.pages.indexOf(self.settings_page),
                                                   "Settings*" if modified else "Settings"))
        layout = QVBoxLayout(self)
        layout.addLayout(top)
        layout.addWidget(self.pages, 1)
        self.refresh_timer = QTimer(self)
        self.refresh_timer.setInterval(AUTO_REFRESH_MS)
        self.refresh_timer.timeout.connect(self.errors_page.auto_refresh)
        self.settings_page.saved.connect(self.errors_page.reload)
        context.connection_changed.connect(self.load_projects)
        self.install_actions(ACTIONS)
        for name, status in BUTTONS.items():
            self.bind_button(self.errors_page.detail.action_buttons[status], name)
        # The list's context menu offers the same actions, and the triage of the selected rows.
        self.errors_page.table.addActions([self.tab_actions()[name] for name in (*BUTTONS, *TRIAGE)])
        self.errors_page.detail.status_changed.connect(self.update_actions)
        self.errors_page.triage.changed.connect(self._triage_changed)
        self.load_projects()

    def _triage_changed(self) -> None:
        """The triage actions follow the selection and the user's rights; off, they say why."""
        self.update_actions()
        why = self.errors_page.triage.why_not()
        for name in TRIAGE:
            action = self.tab_actions()[name]
            action.setToolTip(why or action.text().replace("&", ""))

    def load_projects(self) -> None:
        """The picker starts again, empty, and lists the connection's projects once read."""
        self.project_lists.advance()
        self.project_picker.blockSignals(True)
        self.project_picker.clear()
        self.project_picker.blockSignals(False)
        self._set_project(None)
        self.settings_page.forget()  # the last connection's draft must not stay on screen, nor mark the window
        if self.context.client is not None:
            self._read_projects()

    def _read_projects(self) -> None:
        request = self.project_lists.advance()

        def show(_projects: list[Project]) -> None:
            self._show_projects()
            self.projects_loaded.emit()

        Op(self, self.projects.fetch(self.api), description="Loading projects").success(show).stale_when(request).run()

    def _show_projects(self) -> None:
        """The picker lists what the projects repository holds; the chosen project stays chosen while listed."""
        chosen = self.project.path_with_namespace if self.project is not None else None
        self.project_picker.blockSignals(True)
        self.project_picker.clear()
        for project in self.projects.projects() or ():
            self.project_picker.addItem(project.path_with_namespace, project)
        index = self.project_picker.findText(chosen) if chosen is not None else -1
        self.project_picker.setCurrentIndex(index)
        self.project_picker.blockSignals(False)
        if chosen is not None and index < 0:  # no longer listed: deleted, or access lost
            self._set_project(None)

    async def explain(self, work: Coroutine[Any, Any, T]) -> T:
        """A page's work; a 404 because the chosen project is gone is explained and the list reloaded."""
        project = self.project
        try:
            return await work
        except NotFound as error:
            # "Error tracking is not enabled" names an existing project: nothing to look up.
            if (project is None or error.detail == ERROR_TRACKING_DISABLED
                    or not await self.projects.is_gone(self.api, project)):
                raise
            if project is self.project:
                self.load_projects()
            raise ProjectGone(project.path_with_namespace) from None

    # what the window asks of every tab ------------------------------------------------------------
    def refresh(self) -> None:
        self.errors_page.reload()

    def find_field(self) -> QWidget:
        """The error search once a project is chosen and the list is on screen, else the project picker."""
        if self.project is not None and self.pages.currentWidget() is self.errors_page:
            return self.errors_page.filters.search
        return self.project_picker

    def select_project(self, path: str) -> None:
        index = self.project_picker.findText(path)
        if index < 0:
            raise LookupError(path)
        self.project_picker.setCurrentIndex(index)

    def _project_chosen(self, index: int) -> None:
        if self.project is not None and self.project_picker.itemText(index) != self.project.path_with_namespace:
            shown = self.project_picker.findText(self.project.path_with_namespace)
            if not self.settings_page.may_leave(lambda: self.project_picker.setCurrentIndex(index)):
                self.project_picker.blockSignals(True)  # the user answers first; their project stays meanwhile
                self.project_picker.setCurrentIndex(shown)
                self.project_picker.blockSignals(False)
                return
        self._set_project(self.project_picker.itemData(index) if index >= 0 else None)

    def _page_chosen(self, _index: int) -> None:
        chosen = self.pages.currentWidget()
        if self._page_shown is self.settings_page and chosen is not self.settings_page:
            if not self.settings_page.may_leave(lambda: self.pages.setCurrentWidget(chosen)):
                self.pages.blockSignals(True)  # the user answers first; the settings stay on screen meanwhile
                self.pages.setCurrentWidget(self.settings_page)
                self.pages.blockSignals(False)
                return
        self._page_shown = chosen
        self._load_current_page()

    def may_close(self, then: Callable[[], object]) -> bool:
        # One question at a time: once the settings are settled, ``then`` (closing again) asks about the rule.
        # The page holding the changes is shown under the question (already loaded: showing it reloads nothing).
        for page in (self.settings_page, self.alerts_page):
            if not page.may_leave(then):
                self.pages.setCurrentWidget(page)
                return False
        return True

    def _set_project(self, project: Project | None) -> None:
        self.project = project
        self.project_choice.advance()  # what the pages asked about the previous project is stale now
        self.pages.setEnabled(project is not None)
        # Each page loads the chosen project's data when it is shown: choosing a project costs only
        # the requests of the page on screen.
        self._stale_pages = {self.errors_page, self.settings_page, self.keys_page, self.retention_page,
                             self.alerts_page, self.source_maps_page, self.monitors_page}
        if project is None:
            self.errors_page.reload()
            self.keys_page.model.set_keys([])
        else:
            self._load_current_page()

    def _load_current_page(self) -> None:
        current = self.pages.currentWidget()
        for page in (self.errors_page, self.settings_page, self.keys_page, self.retention_page, self.alerts_page,
                     self.source_maps_page, self.monitors_page):
            if page is current and self.project is not None and page in self._stale_pages:
                self._stale_pages.discard(page)
                page.load()

    # Auto-refresh only while the tab is on screen, and once as it comes back: what changed meanwhile (and its
    # news) shows then, not at the next interval.
    def showEvent(self, event: QShowEvent) -> None:
        super().showEvent(event)
        self.refresh_timer.start()
        self.errors_page.auto_refresh()
        # The project list too, when what was listed has aged (projects made or deleted meanwhile then show);
        # not while the connection's first read is on its way.
        if (self.context.client is not None and self.projects.projects() is not None
                and self.projects.is_stale(PROJECT_LIST)):
            self._read_projects()

    def hideEvent(self, event: QHideEvent) -> None:
        super().hideEvent(event)
        self.refresh_timer.stop()
