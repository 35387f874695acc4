"""Triage of the error list's selection: Resolve, Ignore (until a condition), Assign and Merge several errors at
once through Sentry's bulk update on Outpost, and the rows' assignees.

Offered only where the server has the API (Outpost) and to whom the project lets triage (its Developers and
above, as the project's Sentry ``access`` says); on GitLab the actions stay off and say what GitLab lacks.
Every answer is written into the store for all the affected errors at once, so their rows change together.
"""

from __future__ import annotations

import logging
from typing import TYPE_CHECKING, Protocol

from PySide6.QtCore import QObject, Signal, SignalInstance

from console.core.api.error_tracking import EVERY_STATUS, NO_STATUS_API
from console.core.api.triage import NO_TRIAGE_API, NOT_ALLOWED, IgnoreUntil, TriageApi
from console.core.errors import records
from console.errors.triage_dialogs import AssignDialog, IgnoreDialog
from console.operations import Op
from outpost_model.accounts import Member

if TYPE_CHECKING:
    from console.core.api.error_tracking import ErrorSummary, ErrorTrackingApi
    from console.core.operations import Token
    from console.core.store import Store
    from console.errors.detail import ErrorDetailView
    from console.errors.error_filters import ErrorFilters
    from console.errors.error_table import ErrorTable
    from console.errors.models import ErrorListModel
    from console.page_host import ProjectHost

log = logging.getLogger(__name__)


class TriagedPage(Protocol):
    """What triage uses of the errors page (console.errors.error_list, which holds it)."""

    host: ProjectHost[ErrorTrackingApi]
    table: ErrorTable
    model: ErrorListModel
    store: Store
    filters: ErrorFilters
    detail: ErrorDetailView
    detail_requests: Token

    def selected_error(self) -> ErrorSummary | None: ...

    def show_empty_state(self) -> None: ...

    @property
    def errors_loaded(self) -> SignalInstance: ...

    def reload(self) -> None: ...


class Triage(QObject):
    """The errors page's triage of its selected rows.

    Signals:
        changed: what the actions may do changed (the selection, the user's rights, an answer).
    """

    changed = Signal()

    def __init__(self, page: TriagedPage) -> None:
        super().__init__(page.table)  # goes with the page's table, whose selection it acts on
        self.page = page
        self.allowed: dict[str, bool] = {}  # project path: may the user triage there
        self.dialog: IgnoreDialog | AssignDialog | None = None
        page.table.selectionModel().selectionChanged.connect(lambda *_: self.changed.emit())
        page.errors_loaded.connect(self._rows_loaded)

    @property
    def api(self) -> TriageApi:
        return TriageApi(self.page.host.api.client)

    @property
    def path(self) -> str | None:
        project = self.page.host.project
        return project.path_with_namespace if project is not None else None

    # --- what may be done -------------------------------------------------------------------

    def selected_ids(self) -> list[str]:
        rows = sorted(index.row() for index in self.page.table.selectionModel().selectedRows())
        return [error.id for row in rows if (error := self.page.model.error_at(row)) is not None]

    def may_triage(self) -> bool:
        path = self.path
        return path is not None and self.page.host.context.client is not None and self.api.available \
            and self.allowed.get(path, False)

    def can(self, least_selected: int = 1) -> bool:
        return self.may_triage() and len(self.selected_ids()) >= least_selected

    def why_not(self) -> str:
        """What the actions' tooltips say while they are off."""
        if self.page.host.context.client is not None and not self.api.available:
            return NO_TRIAGE_API
        if self.path is not None and self.allowed.get(self.path) is False:
            return NOT_ALLOWED
        return ""

    # --- reading ----------------------------------------------------------------------------

    def _rows_loaded(self) -> None:
        """Each page of the list on Outpost: the rows' assignees, and once per project whether the user may
        triage it."""
        path, ids = self.path, [error.id for error in self.page.model.errors]
        if path is None or self.page.host.context.client is None or not self.api.available:
            self.changed.emit()
            return
        api, store = self.api, self.page.store

        async def read() -> None:
            if path not in self.allowed:
                self.allowed[path] = await api.may_triage(path)
                self.changed.emit()
            if ids:
                records.write_triage(store, path, ids, assignees=await api.assignees(path, ids))

        Op(self.page.host, read(), description="Reading assignees", quiet=True).failure(
            lambda exc: log.info("reading the assignees of %s failed: %s", path, exc)).run()

    # --- actions ----------------------------------------------------------------------------

    def resolve(self) -> None:
        self._set_status("resolved", None)

    def ignore(self) -> None:
        ids = self.selected_ids()
        self.dialog = dialog = IgnoreDialog(len(ids), self.page.table)
        dialog.accepted.connect(lambda: self._set_status("ignored", dialog.condition(), ids))
        dialog.open()

    def assign(self) -> None:
        ids, project = self.selected_ids(), self.page.host.project
        if project is None or not ids:
            return
        api = self.api

        async def pick() -> None:
            members = await api.members(project.id)
            self.dialog = dialog = AssignDialog(len(ids), members, self.page.table)
            dialog.accepted.connect(lambda: self._assign(ids, dialog.chosen()))
            dialog.open()

        Op(self.page.host, pick(), description="Reading the project's members").run()

    def merge(self) -> None:
        path, ids, api = self.path, self.selected_ids(), self.api
        if path is None or len(ids) < 2:
            return

        async def merge() -> None:
            merged = await api.merge(path, ids)
            self.page.host.context.say(f"Merged {len(merged.children)} errors into error {merged.parent}")
            self.page.store.remove(records.SUMMARY, path, merged.children)
            self.page.reload()  # the parent's counts, events and tags are the merged ones now

        Op(self.page.host, merge(), description=f"Merging {len(ids)} errors").run()

    def _assign(self, ids: list[str], member: Member | None) -> None:
        path, api = self.path, self.api
        if path is None:
            return

        async def assign() -> None:
            name = await api.assign(path, ids, member)
            records.write_triage(self.page.store, path, ids, assignees=dict.fromkeys(ids, name))
            self.page.host.context.say(f"{len(ids)} error{'s' if len(ids) != 1 else ''} "
                                       + (f"assigned to {name}" if name else "unassigned"))

        Op(self.page.host, assign(), description="Assigning errors").run()

    def _set_status(self, status: str, until: IgnoreUntil | None, ids: list[str] | None = None) -> None:
        path, api = self.path, self.api
        ids = ids if ids is not None else self.selected_ids()
        if path is None or not ids:
            return

        async def update() -> None:
            await api.set_status(path, ids, status, until)
            records.write_triage(self.page.store, path, ids, status=status)  # every row at once
            how = f" {until.describe()}" if until is not None and status == "ignored" else ""
            self.page.host.context.say(f"{len(ids)} error{'s' if len(ids) != 1 else ''} {status}{how}")
            if self.page.filters.status.currentData() not in (EVERY_STATUS, status):
                self.page.table.selectionModel().clear()
                if self.page.detail.error_id in ids:
                    self.page.detail.clear()
                for error_id in ids:
                    self.page.model.remove_error(error_id)
            self.changed.emit()

        Op(self.page.host, update(), description=f"Marking {len(ids)} errors {status}").run()

    # --- the error shown: Resolve, Ignore, Unresolve (Ctrl+R...) -----------------------------------

    def can_set_shown_status(self, status: str) -> bool:
        """Whether an error is shown whose status is not ``status`` already."""
        return self.page.detail.error_id is not None and self.page.detail.status not in (None, status)

    def set_shown_status(self, status: str) -> None:
        """Give the shown error ``status`` (Resolve, Ignore, Unresolve)."""
        project, error_id, api = self.page.host.project, self.page.detail.error_id, self.page.host.api
        if project is None or error_id is None:
            self.page.host.context.say("Select an error in the list first")
            return
        if not api.can_change_status:  # say so, and offer the error's page instead of failing
            self.page.detail.offer_browser(NO_STATUS_API, api.error_page_url(project.path_with_namespace, error_id))
            return

        async def update() -> None:
            await self.page.host.api.update_status(project.path_with_namespace, error_id, status)
            self.page.host.context.say(f"The error is now {status}")
            records.write_status(self.page.store, project.path_with_namespace, error_id, status)  # row and detail
            if self.page.filters.status.currentData() not in (EVERY_STATUS, status):
                if self.page.detail.error_id == error_id:
                    self.page.detail_requests.advance()  # its details, if still on their way, have nowhere to go
                    self.page.detail.clear()
                if (selected := self.page.selected_error()) is not None and selected.id == error_id:
                    # Nothing is selected after it: a second Ctrl+R must not resolve the next error unseen.
                    self.page.table.selectionModel().clear()
                self.page.model.remove_error(error_id)
                self.page.show_empty_state()

        Op(self.page.host, update(), description=f"Marking the error {status}").run()
