"""Opening a project (and maybe one error) in the error tracking tab once its lists have arrived."""

from __future__ import annotations

from typing import Any

from PySide6.QtCore import QObject, QTimer

# The tab loads its project list and error list in the background: look again this often, this many times.
OPEN_RETRY_MS = 250
OPEN_ATTEMPTS = 80


class ProjectNavigator(QObject):
    """Chooses a project, then selects an error, as soon as the tab lists them.

    A newer request (another click, a new connection) supersedes one still waiting.
    """

    def __init__(self, parent: QObject | None = None) -> None:
        super().__init__(parent)
        self._serial = 0

    def supersede(self) -> None:
        self._serial += 1

    def select_project(self, errors: Any, path: str, error_id: str | None = None) -> None:
        self.supersede()
        self._retry_select(errors, path, error_id, OPEN_ATTEMPTS, self._serial)

    def _retry_select(self, errors: Any, path: str, error_id: str | None, attempts: int, serial: int) -> None:
        if serial != self._serial:
            return
        if errors.project is None or errors.project.get("path_with_namespace") != path:
            try:
                errors.select_project(path)
            except LookupError:
                if attempts > 0:  # the timer is dropped if the tab goes away
                    QTimer.singleShot(OPEN_RETRY_MS, errors,
                                      lambda: self._retry_select(errors, path, error_id, attempts - 1, serial))
                return
        if error_id is not None:
            self._select_error(errors.errors_page, error_id, attempts, serial)

    def _select_error(self, page: Any, error_id: str, attempts: int, serial: int) -> None:
        if serial != self._serial:
            return
        rows = [row for row, error in enumerate(page.model.errors) if error.id == error_id]
        if rows:
            page.table.selectRow(rows[0])
        elif attempts > 0:
            QTimer.singleShot(OPEN_RETRY_MS, page, lambda: self._select_error(page, error_id, attempts - 1, serial))
