"""The Errors page: the list with search, sort and status filter beside the selected error's details.

Answers that arrive after the user moved on (another project, another filter) are dropped: each list
request takes a stamp from ``self.requests`` and its answer is used only while the stamp is current.
Every answer about an error (the list, its detail, a status change, the watcher's poll) is written into the
console's store (console.core.errors.records); the list's rows and the detail render from it when told it changed.
"""

from __future__ import annotations

import logging
from typing import TYPE_CHECKING

from PySide6.QtCore import QModelIndex, Qt, Signal
from PySide6.QtGui import QGuiApplication, QShowEvent
from PySide6.QtWidgets import (
    QLabel,
    QSplitter,
    QVBoxLayout,
    QWidget,
)

from console.core import outpost_links
from console.core.api.error_tracking import NO_STATUS_API, ErrorPage, ErrorSummary
from console.core.api.errors import ApiError, NotFound
from console.core.api.sentry_events import issue_count
from console.core.errors import records
from console.core.errors.markdown import error_markdown, issue_from_detail
from console.core.operations import Token
from console.core.repositories.errors import NEWS, ListQuery
from console.core.repositories.shown_error import ShownError
from console.core.store import Change
from console.errors.detail import ErrorDetailView
from console.errors.error_filters import ErrorFilters
from console.errors.error_table import ErrorTable
from console.errors.event_history import EventHistory
from console.errors.event_pane import EventPane
from console.errors.facets_pane import FacetsPane
from console.errors.models import PENDING, ErrorListModel, explained_in_place, list_failure
from console.errors.triage import Triage
from console.operations import Op

if TYPE_CHECKING:
    from console.core.api.error_tracking import ErrorTrackingApi
    from console.page_host import ProjectHost

log = logging.getLogger(__name__)

LOOKING = "Looking for news"

DETAIL_MIN_WIDTH = 360
SPLIT_AT_DEFAULT_SIZE = [640, 420]


class ErrorsPage(QWidget):
    """The error list with search, sort and status filter, and the selected error's details.

    Signals:
        errors_loaded: a page of the list has arrived and is shown.
    """

    errors_loaded = Signal()

    def __init__(self, host: ProjectHost[ErrorTrackingApi]) -> None:
        super().__init__()
        self.host = host
        self.requests = Token()  # list requests; an answer counts only while its stamp is current
        self.detail_requests = Token()  # likewise for the selected error's details
        self.listed_path: str | None = None  # the project whose list was last asked for
        self.loading = False
        self.refreshing = False  # an auto-refresh is in flight (a slow server must not stack them up)
        self.filters = ErrorFilters()
        self.filters.changed.connect(self.reload)

        self.model = ErrorListModel(self)
        self.model.fetch_more_requested.connect(self._fetch_more)
        self.table = ErrorTable(self.model)
        self.table.selectionModel().currentRowChanged.connect(self._row_selected)
        self.empty_label = QLabel()

        self.detail = ErrorDetailView()
        self.events_pane, self.facets_pane = EventPane(), FacetsPane()
        self.detail.add_section(self.events_pane, "Events")
        self.detail.add_section(self.facets_pane, "Tags")
        self.history = EventHistory(host, self.events_pane, self.facets_pane, self.detail.sections)
        self.history.event_chosen_from_tags.connect(lambda: self.detail.sections.setCurrentWidget(self.events_pane))
        self.detail.cleared.connect(self.history.clear)
        self.detail.copy_requested.connect(self.copy_markdown)
        self.shown_errors = host.context.repositories.shown_error  # the detail pane's details and stack trace
        self.store = host.context.store
        self.repository = host.context.repositories.errors
        self.store.subscribe_view(self, self._store_changed)
        self.triage = Triage(self)  # Resolve, Ignore, Assign and Merge of the selected rows
        left = QWidget()
        left_layout = QVBoxLayout(left)
        left_layout.setContentsMargins(0, 0, 0, 0)
        left_layout.addWidget(self.filters)
        left_layout.addWidget(self.table, 1)
        left_layout.addWidget(self.empty_label)
        # The detail fits its width; its summary scrolls above its sections (stack trace, events, tags).
        self.detail.setAccessibleName("Error detail")
        self.detail.setMinimumWidth(DETAIL_MIN_WIDTH)
        self.splitter = QSplitter(Qt.Orientation.Horizontal)
        self.splitter.addWidget(left)
        self.splitter.addWidget(self.detail)
        self.splitter.setStretchFactor(0, 3)
        self.splitter.setStretchFactor(1, 2)
        self.splitter.setSizes(SPLIT_AT_DEFAULT_SIZE)  # pixels at the default window size; scaled to the real one
        layout = QVBoxLayout(self)
        layout.setContentsMargins(0, 0, 0, 0)
        layout.addWidget(self.splitter)

    # --- list --------------------------------------------------------------------------------

    def load(self) -> None:
        self.reload()

    def adapt_to_server(self) -> None:
        """Offer only what the connected server does; say why where a control does nothing there."""
        api = self.host.api
        self.filters.adapt(api.can_filter_status)
        for button in self.detail.action_buttons.values():
            button.setToolTip("" if api.can_change_status else NO_STATUS_API)

    def reload(self) -> None:
        project = self.host.project
        request = self.requests.advance()
        # A filter change keeps the chosen error where the new list still has it; another project's list does not.
        path = project.path_with_namespace if project is not None else None
        kept = self.detail.error_id if path is not None and path == self.listed_path else None
        self.listed_path = path
        self.filters.take_search()
        self.detail.clear()
        self.model.reset_page(ErrorPage([], None))
        self.empty_label.clear()
        if project is None:
            return
        self.adapt_to_server()
        self.loading = True
        self.empty_label.setText("Loading errors…")

        query = self.query()

        async def load() -> None:
            try:
                page = await self.repository.fetch_list(self.host.api, project.path_with_namespace, query)
            except ApiError as error:
                if request.current:
                    self.empty_label.setText(list_failure(error))
                if explained_in_place(error):
                    return  # the list says what to do; it is no failure of the console's
                raise
            finally:
                if request.current:
                    self.loading = False
            if request.current:
                self.model.reset_page(page)
                self.show_empty_state(page)
                if kept is not None and (row := self.model.row_of(kept)) >= 0:
                    self.table.selectRow(row)
                self.errors_loaded.emit()
            self.look_for_news(project.path_with_namespace, page if query == NEWS else None)

        Op(self.host, load(), description="Loading errors").run()

    def query(self) -> ListQuery:
        return self.filters.query()

    def look_for_news(self, path: str, page: ErrorPage | None = None) -> None:
        """Each read of the list is also a look for news of the project (a new error, a regression), shared
        with the watcher's (console.core.error_news): a new user hears of them without switching watching on.
        Where the list shows what a look reads (the unresolved errors, most recently seen first), its ``page``
        is the look's: the news and the list come from one read."""
        Op(self.host, self.host.context.error_news.look(self.host.api, path, page), description=LOOKING,
           quiet=True).failure(lambda exc: log.info("%s in %s failed: %s", LOOKING, path, exc)).run()

    def show_empty_state(self, page: ErrorPage | None = None) -> None:
        if page is not None and page.pending:
            self.empty_label.setText(PENDING)
        else:
            self.empty_label.setText("" if self.model.rowCount() else "No errors match.")

    def _fetch_more(self, cursor: str) -> None:
        project, request = self.host.project, self.requests.stamp()
        if project is None:
            return

        async def load_more() -> None:
            try:
                page = await self.repository.fetch_list(self.host.api, project.path_with_namespace,
                                                        self.query(), cursor)
            except BaseException:
                if request.current:
                    self.model.more_failed()
                raise
            if request.current:
                self.model.append_page(page)
                self.errors_loaded.emit()

        Op(self.host, load_more(), description="Loading more errors").run()

    def auto_refresh(self) -> None:
        """Fresh counts for the rows on screen; the first page is re-read when only it is shown."""
        project = self.host.project
        if project is None or self.loading or self.refreshing or not self.isVisible():
            return
        self.refreshing = True

        query = self.query()

        async def refresh() -> None:
            try:  # the rows follow the read (its change, in _store_changed)
                page = await self.repository.fetch_list(self.host.api, project.path_with_namespace, query)
            finally:
                self.refreshing = False
            self.look_for_news(project.path_with_namespace, page if query == NEWS else None)

        # A poll says nothing: what it finds shows in the rows, news in the notifications.
        Op(self.host, refresh(), description="Refreshing errors", quiet=True).run()

    def showEvent(self, event: QShowEvent) -> None:
        """Shown again (back from another page): what it shows is read again once it is no longer fresh."""
        super().showEvent(event)
        project = self.host.project
        if project is not None and self.repository.is_list_stale(project.path_with_namespace, self.query()):
            self.auto_refresh()

    def _take_list(self, page: ErrorPage) -> None:
        """A newer read of the list's own query (its poll, a look for news): its rows, the selection kept."""
        shown = {error.id for error in self.model.errors}
        if self.model.rowCount() > len(page.errors) or shown == {error.id for error in page.errors}:
            return  # more pages on screen than one read brings; or the same errors, whose rows already followed
        selected = self.detail.error_id
        self.model.reset_page(page)
        self.show_empty_state()
        row = self.model.row_of(selected) if selected else -1
        if row >= 0:
            self.table.selectRow(row)
        else:
            self.detail.clear()
        self.errors_loaded.emit()

    # --- selection and detail ----------------------------------------------------------------

    def _row_selected(self, current: QModelIndex, _previous: QModelIndex) -> None:
        error = self.model.error_at(current.row())
        if error is None:
            return
        if self.detail.error_id != error.id:
            self.show_detail(error)

    def show_detail(self, error: ErrorSummary) -> None:
        project, request = self.host.project, self.requests.stamp()
        if project is None:
            return
        self.detail.show_summary(error)
        self.history.load(error.id, error.first_seen)
        path, shown = project.path_with_namespace, self.detail_requests.advance()
        self._show_held(path, error.id)  # what an earlier read found, until this one lands

        async def load() -> None:
            try:
                await self.shown_errors.fetch(self.host.api, path, error.id)
            except NotFound as missing:  # gone meanwhile, or GitLab still fetching it from Sentry: say so here
                if request.current and shown.current:
                    self.detail.stack_trace.show_message(f"The details could not be loaded. {missing.message}")
                return
            if request.current and shown.current:
                self._show_held(path, error.id)

        Op(self.host, load(), description="Loading the error").run()

    def _show_held(self, path: str, error_id: str) -> None:
        held = self.shown_errors.shown(path, error_id)
        if held is not None:
            self.detail.show_details(held.detail)
            self.detail.show_stack_trace(held.trace.exceptions, held.trace.message, held.trace.log_message)

    @property
    def shown_error(self) -> ShownError | None:
        """The details and stack trace of the error in the detail pane, once read (from its repository)."""
        project, error_id = self.host.project, self.detail.error_id
        if project is None or error_id is None:
            return None
        return self.shown_errors.shown(project.path_with_namespace, error_id)

    def copy_markdown(self) -> None:
        """From Sentry's API with the shown event where event history is on; else from the details shown."""
        project, error = self.host.project, self.selected_error()
        console_link = None
        if project is not None and error is not None:
            console_link = outpost_links.error_link(self.host.api.client.base_url, project.path_with_namespace,
                                                    str(error.id))
        text = self.history.markdown(console_link)
        held = self.shown_error
        if text is None and held is not None and project is not None:
            link = held.detail.error.externalUrl or self.host.api.error_page_url(project.path_with_namespace,
                                                                                 held.detail.id)
            text = error_markdown(issue_from_detail(held.detail.error, link), held.trace.exceptions, console_link)
        if text:
            QGuiApplication.clipboard().setText(text)
            self.host.context.say("The error is on the clipboard as Markdown")

    def _store_changed(self, change: Change) -> None:
        """The rows and the open detail show what the store now holds about the chosen project's errors."""
        project = self.host.project
        if project is None:
            return
        path, query = project.path_with_namespace, self.query()
        if change.touches(self.repository.kind, path, query.key) and not self.loading:
            page = self.repository.listed(path, query)
            if page is not None:
                self._take_list(page)
        if change.touches(records.SUMMARY, path):
            self.model.refresh_rows([error for error_id in change.ids
                                     if (error := records.summary(self.store, path, error_id)) is not None])
            if query != NEWS and any(self.model.row_of(error_id) < 0 for error_id in change.ids):
                # Another read (the watcher's) saw an error this filtered list lacks: ask with the list's own query.
                # Unfiltered, the read that saw it tells its list next, and the rows follow that.
                self.auto_refresh()
        shown = self.detail.error_id
        if shown is None or not (change.touches(records.SUMMARY, path, shown)
                                 or change.touches(records.DETAIL, path, shown)):
            return
        held, summary = records.detail(self.store, path, shown), records.summary(self.store, path, shown)
        counted = self.history.issue  # the Events section's read, which may be what brought the new count
        if summary is not None and summary.count != self.detail.shown_count and not (
                counted is not None and counted.id == shown and issue_count(counted) == summary.count):
            self.show_detail(summary)  # new events: its details, stack trace and events are read again
        elif held is not None:
            self.detail.show_details(held)
        elif summary is not None:
            self.detail.show_summary(summary)

    def selected_error(self) -> ErrorSummary | None:
        return self.model.error_at(self.table.currentIndex().row())
