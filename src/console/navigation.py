"""Opening a project (and maybe one error) in the error tracking tab once its lists have arrived.

The tab says when its project list arrives (``projects_loaded``) and its error list page says when
errors arrive (``errors_loaded``); the navigator tries again on each, so nothing polls.
"""

from __future__ import annotations

from typing import TYPE_CHECKING, NamedTuple

from PySide6.QtCore import QObject

if TYPE_CHECKING:
    from console.errors.tab import ErrorTrackingTab


class _Request(NamedTuple):
    tab: ErrorTrackingTab
    path: str
    error_id: str | None


class ProjectNavigator(QObject):
    """Chooses a project, then selects an error, as soon as the tab lists them.

    A newer request (another click, a new connection) supersedes one still waiting. An error that is not
    in the project's list once it has arrived is not waited for any longer.
    """

    def __init__(self, parent: QObject | None = None) -> None:
        super().__init__(parent)
        self._request: _Request | None = None
        self._listening: list[ErrorTrackingTab] = []

    def supersede(self) -> None:
        self._request = None

    def select_project(self, errors: ErrorTrackingTab, path: str, error_id: str | None = None) -> None:
        self._request = _Request(errors, path, error_id)
        if not any(tab is errors for tab in self._listening):
            self._listening.append(errors)
            errors.projects_loaded.connect(lambda: self._advance(listed=False))
            errors.errors_page.errors_loaded.connect(lambda: self._advance(listed=True))
            errors.destroyed.connect(lambda: self._forget(errors))
        self._advance(listed=False)

    def _forget(self, errors: ErrorTrackingTab) -> None:
        self._listening = [tab for tab in self._listening if tab is not errors]
        if self._request is not None and self._request.tab is errors:
            self._request = None

    def _advance(self, *, listed: bool) -> None:
        """Takes the request as far as the tab's lists allow; ``listed``: an error list has just arrived."""
        request = self._request
        if request is None:
            return
        errors = request.tab
        if errors.project is None or errors.project.path_with_namespace != request.path:
            try:
                errors.select_project(request.path)
            except LookupError:
                return  # the project list has not arrived yet
            listed = False  # the chosen project's errors are on their way
        if request.error_id is None:
            self._request = None
            return
        page = errors.errors_page
        rows = [row for row, error in enumerate(page.model.errors) if error.id == request.error_id]
        if rows:
            page.table.selectRow(rows[0])
            self._request = None
        elif listed and not page.loading:
            self._request = None  # the list has arrived without it
