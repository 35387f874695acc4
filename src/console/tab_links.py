"""What ties the tabs to each other and to the window's remembered state.

The overview's items open their tab; its unresolved counts show beside the projects of the error
tracking picker; an export the exports tab sees finish is announced once (console.notifications);
the error tracking tab opens on the project last used with the profile, or else the one with the most
recent error; a notification or an overview item opens what it points at.
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Protocol

from PySide6.QtCore import QObject

from console.core import settings_keys as keys
from console.feature import FeatureWidget
from console.navigation import ProjectNavigator

if TYPE_CHECKING:
    from PySide6.QtWidgets import QWidget

    from console.context import AppContext
    from console.errors.tab import ErrorTrackingTab
    from console.notifications import Target, Watcher
    from console.overview.view import OverviewTab
    from console.tabs import LazyTabs
    from console.window_state import ProfileState


class LinkedWindow(Protocol):
    """What the tabs' links use of the main window (console.main_window, which makes them)."""

    context: AppContext
    tabs: LazyTabs
    state: ProfileState
    watcher: Watcher

    def window(self) -> QWidget: ...


class TabLinks(QObject):
    def __init__(self, window: LinkedWindow) -> None:
        super().__init__(window.window())
        self.window = window
        self.navigator = ProjectNavigator(self)

    def _overview(self) -> OverviewTab | None:
        from console.overview.view import OverviewTab  # built already, or there is nothing to ask

        return self.window.tabs.created_as("overview", OverviewTab)

    def _errors(self) -> ErrorTrackingTab | None:
        from console.errors.tab import ErrorTrackingTab

        return self.window.tabs.created_as("errors", ErrorTrackingTab)

    def project_paths(self) -> list[str]:
        """The overview's projects, most recent error first (none before it has loaded)."""
        overview = self._overview()
        return [row.path for row in overview.model.rows] if overview is not None else []

    def tab_created(self, name: str, feature: FeatureWidget) -> None:
        from console.errors.tab import ErrorTrackingTab
        from console.exports.views import ExportsTab
        from console.overview.view import OverviewTab

        if isinstance(feature, OverviewTab):
            feature.open_requested.connect(lambda kind, argument: self.open_target((kind, argument)))
            feature.loaded.connect(self.show_project_counts)
        elif isinstance(feature, ExportsTab):
            feature.export_finished.connect(self.window.watcher.announce_export)
        elif isinstance(feature, ErrorTrackingTab):
            from console.project_picker import make_searchable

            picker = feature.project_picker
            make_searchable(picker)
            picker.currentIndexChanged.connect(lambda index: self._remember_project(picker.itemText(index)))
            picker.model().rowsInserted.connect(lambda *_: self.show_project_counts())
            self.open_remembered_project(feature)

    # the error tracking tab's project ----------------------------------------------------------------
    def show_project_counts(self) -> None:
        """The overview's unresolved counts beside the projects in the error tracking picker."""
        overview, errors = self._overview(), self._errors()
        if overview is None or errors is None:
            return
        from console.project_picker import show_counts

        counts = {row.path: row.unresolved.text for row in overview.model.rows if row.unresolved.value is not None}
        show_counts(errors.project_picker, counts)

    def _remember_project(self, path: str) -> None:
        if path:
            self.window.state.set_value(keys.ERRORS_PROJECT, path)

    def open_remembered_project(self, errors: ErrorTrackingTab) -> None:
        """The project last used in this profile, else the one with the most recent error."""
        path = self.window.state.text(keys.ERRORS_PROJECT)
        if path is None:
            path = next(iter(self.project_paths()), None)
        if path is not None:
            self.navigator.select_project(errors, path)

    def restore_profile(self) -> None:
        """A connection changed: open the profile's last tab and project."""
        self.navigator.supersede()  # a project still awaited belongs to the previous connection
        window = self.window
        if not window.context.is_connected:
            return
        last = window.state.text(keys.LAST_TAB)
        if last in window.tabs.names:
            window.tabs.show_tab(last)
        errors = self._errors()
        if errors is not None:
            self.open_remembered_project(errors)

    # opening what the overview and notifications point at ------------------------------------------------
    def open_target(self, target: Target) -> None:
        from console.errors.tab import ErrorTrackingTab
        from console.exports.views import ExportsTab

        kind, argument = target
        tabs = self.window.tabs
        if kind == "variables":
            tabs.show_tab("variables")
        elif kind == "exports":
            exports = tabs.show_as("exports", ExportsTab)
            if isinstance(argument, int):
                exports.select_export(argument)
        elif kind == "errors":
            path, error_id = argument if isinstance(argument, tuple) else (argument, None)
            self.navigator.select_project(tabs.show_as("errors", ErrorTrackingTab), str(path), error_id)
