"""Loads an error's events and tag facets into the detail pane's *Events* and *Tags* sections.

Everything goes through Sentry's web API on the connected server (``console.core.api.sentry_events``), which
only Outpost serves: for a project on the integrated backend from Outpost's store, for one whose backend
is an external Sentry relayed by the server to that Sentry, so both show the same depth. Where event
history cannot be shown (a GitLab, a failing Sentry), the sections say why and the rest of the detail
pane works as before.

The issue read here counts the error's events afresh: its counts go into the errors repository
(console.core.repositories.errors), so the row and the summary say the same number as "event 40 of 40". Events
or Tags shown again after what they show aged (the events repository's ``is_stale``) read it again.

Late answers: ``errors`` is stamped per selected error, ``events`` per event asked for and ``tagged``
per tag value clicked; an answer lands only while its stamp (and the tab's project choice) is current.
"""

from __future__ import annotations

from collections.abc import Callable, Coroutine
from typing import TYPE_CHECKING, Any

from PySide6.QtCore import QObject, Signal
from PySide6.QtWidgets import QTabWidget

from console.core.api.errors import ApiError, NotFound
from console.core.api.sentry_events import Event, SentryEventsApi, event_exceptions, value_query
from console.core.errors.event_state import EventHistoryState
from console.core.errors.markdown import ErrorFacts, error_markdown
from console.core.operations import Stamp, Token
from console.errors.event_pane import EventPane
from console.errors.facets_pane import FacetsPane
from console.operations import Op
from outpost_model.sentry_issues import IssueDetails, TagValue

if TYPE_CHECKING:
    from console.core.api.error_tracking import ErrorTrackingApi
    from console.core.repositories.events import History
    from console.page_host import ProjectHost

NEEDS_OUTPOST = ("Event history needs an Outpost server: GitLab's API offers one latest stack trace per error, "
                 "shown under Stack trace.")
BACKEND_CHANGED = ("This error is no longer in the project's error tracking: its backend changed since the list "
                   "was loaded. Refresh the list (F5).")
LOADING = "Loading the error's events…"
PRUNED_MEANWHILE = "That event is no longer stored: retention pruned it after it was listed. Choose another."
NONE_STORED = ("No event of this error is stored any more: retention pruned them all. Its counts, dates and tag "
               "facets stay.")
TAGGED_EVENTS_SHOWN = 100


class EventHistory(QObject):
    """Asks the server and fills the panes; what is known of the selected error is ``state``'s (event_state)."""

    event_chosen_from_tags = Signal()  # the Tags section asked to show an event: the pane switches to Events

    def __init__(self, host: ProjectHost[ErrorTrackingApi], events: EventPane, facets: FacetsPane,
                 sections: QTabWidget) -> None:
        super().__init__(events)
        self.host = host
        self.events_pane = events
        self.facets_pane = facets
        self.sections = sections
        # Loading waits until Events or Tags is on screen: browsing the list with the stack trace in view
        # costs no event requests.
        self._waiting: Callable[[], Coroutine[Any, Any, None]] | None = None  # makes the load's coroutine
        sections.currentChanged.connect(lambda _index: self._start_if_shown())
        self.errors, self.events, self.tagged, self.rereads = Token(), Token(), Token(), Token()
        self._first_seen: str | None = None  # the selected error's, as the list said it
        self.state = EventHistoryState()
        self.repository = host.context.repositories.events
        events.navigator.requested.connect(self.show_event)
        facets.facets.value_chosen.connect(self.list_tagged)
        facets.tagged.event_chosen.connect(self._event_from_tags)

    def _stamps(self) -> tuple[Stamp, Stamp]:
        return self.host.project_choice.stamp(), self.errors.stamp()

    def _current(self, stamps: tuple[Stamp, Stamp]) -> bool:
        return stamps[0].current and stamps[1].current

    def clear(self) -> None:
        self._waiting = None
        self.errors.advance()
        self.state.clear()
        self.events_pane.clear()
        self.facets_pane.clear()

    def load(self, error_id: str, first_seen: str | None) -> None:
        """The selected error's latest event, its stored events' ids (for "event 3 of 25") and its facets."""
        self.clear()
        if self.host.project is None:
            return
        self.state.select(error_id)
        self._first_seen = first_seen
        api = self._api()
        if not api.available:
            self.events_pane.say(NEEDS_OUTPOST)
            self.facets_pane.say(NEEDS_OUTPOST)
            return
        stamps, path = self._stamps(), self.host.project.path_with_namespace
        self.events.advance()
        self.events_pane.say(LOADING)
        self.facets_pane.say(LOADING)

        async def load() -> None:
            try:
                await load_history()
            except ApiError as failure:
                self._unavailable(stamps, f"The events could not be loaded. {failure.message}")
                raise

        async def load_history() -> None:
            history = await self._read_history(api, path, error_id, first_seen)
            if history is None:
                return self._unavailable(stamps, BACKEND_CHANGED)
            stored = history.stored
            latest = await self.repository.fetch_event(api, path, error_id, "latest") if stored.ids else None
            if not self._current(stamps):
                return
            self.state.loaded(history.issue, stored)
            self.facets_pane.show_facets(list(history.facets))
            if latest is None:
                self.events_pane.say(NONE_STORED)
            else:
                self._show(latest)

        self._waiting = load
        self._start_if_shown()

    @property
    def waiting(self) -> bool:
        """Whether the selected error's events wait for Events or Tags to be shown."""
        return self._waiting is not None

    def _start_if_shown(self) -> None:
        if self.sections.currentWidget() not in (self.events_pane, self.facets_pane):
            return
        if self._waiting is not None:
            work, self._waiting = self._waiting, None
            Op(self.host, work(), description="Loading the error's events").run()
        else:
            self._read_again_if_aged()

    def _read_again_if_aged(self) -> None:
        """Events or Tags shown again after what they show has aged: the issue, the stored events' ids and the
        facets are read again. New events make the error's count grow, and the list then reads the whole error
        again (its latest event first); otherwise the shown event stays, placed among the stored events now."""
        error_id, project = self.state.error_id, self.host.project
        if error_id is None or project is None or not self.state.browsable:
            return
        path = project.path_with_namespace
        if not self.repository.is_stale((path, error_id)):
            return
        stamps, request, api, first_seen = self._stamps(), self.rereads.advance(), self._api(), self._first_seen

        async def load() -> None:
            history = await self._read_history(api, path, error_id, first_seen)
            if not (self._current(stamps) and request.current):
                return
            if history is None:
                return self._unavailable(stamps, BACKEND_CHANGED)
            self.state.loaded(history.issue, history.stored)
            self.facets_pane.show_facets(list(history.facets))
            if self.state.shown is not None:
                self._show(self.state.shown)

        Op(self.host, load(), description="Reading the error's events again").run()

    async def _read_history(self, api: SentryEventsApi, path: str, error_id: str, first_seen: str | None
                            ) -> History | None:
        """The error's history, held; None when the server's issue is not the listed error (or is gone)."""
        try:
            return await self.repository.fetch_history(
                api, path, error_id, lambda issue: self.state.is_listed_error(issue, first_seen))
        except NotFound:
            return None

    def _api(self) -> SentryEventsApi:
        project = self.host.project
        return SentryEventsApi(self.host.api.client, project.path_with_namespace if project is not None else "")

    def _unavailable(self, stamps: tuple[Stamp, Stamp], text: str) -> None:
        if self._current(stamps):
            self.events_pane.say(text)
            self.facets_pane.say(text)

    def _show(self, event: Event) -> None:
        self.events_pane.show_event(event, self.state.show(event))

    def show_event(self, which: str) -> None:
        """``oldest``, ``latest`` or an event id of the selected error."""
        error_id, stamps = self.state.error_id, self._stamps()
        if error_id is None or not self.state.browsable:
            return
        request, path = self.events.advance(), self.host.project.path_with_namespace if self.host.project else ""
        api = self._api()

        async def load() -> None:
            try:
                event = await self.repository.fetch_event(api, path, error_id, which)
            except NotFound:  # pruned since it was listed: say so, and count the stored events afresh
                recounted = await self.repository.recount(api, path, error_id)
                if self._current(stamps) and request.current:
                    self.state.recounted(recounted)
                    self.events_pane.say(PRUNED_MEANWHILE)
                    self.events_pane.navigator.offer_ends()
                return
            stored = self.state.stored
            if self.state.needs_recount(event.id):  # arrived after the ids were walked
                stored = await self.repository.recount(api, path, error_id)
            if self._current(stamps) and request.current:
                self.state.recounted(stored)
                self._show(event)

        Op(self.host, load(), description="Loading the event").run()

    def list_tagged(self, value: TagValue) -> None:
        error_id, stamps = self.state.error_id, self._stamps()
        if error_id is None:
            return
        request = self.tagged.advance()
        self.facets_pane.listing(value)
        api = self._api()

        async def load() -> None:
            page = await api.events(error_id, query=value_query(value), per_page=TAGGED_EVENTS_SHOWN)
            if self._current(stamps) and request.current:
                self.facets_pane.show_tagged(value, page.events, more_available=page.next_cursor is not None)

        Op(self.host, load(), description=f"Loading the events with {value.key} = {value.name}").run()

    def _event_from_tags(self, event_id: str) -> None:
        self.show_event(event_id)
        self.event_chosen_from_tags.emit()

    def markdown(self, console_link: str | None = None) -> str | None:
        """The error from Sentry's API with the shown event's frames; None where event history is not shown."""
        issue, shown = self.state.issue, self.state.shown
        if issue is None:
            return None
        return error_markdown(ErrorFacts.of_issue(issue), event_exceptions(shown) if shown else [], console_link)

    @property
    def issue(self) -> IssueDetails | None:
        return self.state.issue
