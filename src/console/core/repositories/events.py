"""An error's event history, as the server last said it: Sentry's issue (its counts), the ids of its stored events,
its tag facets and each event read in full; no Qt here.

The Events and Tags sections read through :class:`EventsRepository`; what they show is what is held, per project
and error, so an event or an issue read once is the same object wherever it is shown, and the errors repository
takes the issue's newer counts from the same read (:meth:`ErrorsRepository.take_counts`). A read that lands after
the connection changed writes nothing.
"""

from __future__ import annotations

import asyncio
import time
from collections.abc import Callable
from typing import NamedTuple

from console.core.api.sentry_events import Event, SentryEventsApi, StoredEvents, issue_count
from console.core.repositories.base import Repository
from console.core.repositories.errors import ErrorsRepository
from console.core.store import Kind, Store
from outpost_model.sentry_issues import IssueDetails, TagKey


class History(NamedTuple):
    """What the Events and Tags sections know of one error."""

    issue: IssueDetails
    stored: StoredEvents
    facets: tuple[TagKey, ...]


HISTORIES: Kind[History] = Kind("event_history")  # by the error's id
EVENTS: Kind[Event] = Kind("event")  # by "<error id>/<event id>"


class EventsRepository(Repository):
    kind = HISTORIES
    events_kind = EVENTS
    kinds = (HISTORIES, EVENTS)

    def __init__(self, store: Store, errors: ErrorsRepository, *, clock: Callable[[], float] = time.monotonic
                 ) -> None:
        super().__init__(store, clock=clock)
        self.errors = errors  # takes the issue's newer counts

    def history(self, project: str, error_id: str) -> History | None:
        return self.store.get(HISTORIES, project, error_id)

    def event(self, project: str, error_id: str, event_id: str) -> Event | None:
        return self.store.get(EVENTS, project, f"{error_id}/{event_id}")

    async def fetch_history(self, api: SentryEventsApi, project: str, error_id: str,
                            is_listed: Callable[[IssueDetails], bool]) -> History | None:
        """The error's issue, its stored events' ids and its facets (the issue read again when an event arrived
        in between), held; the errors repository takes its counts. None when the server's issue is not the error
        the list showed (``is_listed``: its backend changed since)."""
        current = self.scope_guard()
        issue = await api.issue(error_id)
        if not is_listed(issue):
            return None
        stored, facets = await asyncio.gather(api.stored_events(issue.id), api.tag_facets(issue.id))
        if stored.complete and len(stored.ids) > issue_count(issue):  # an event arrived between the two reads
            issue = await api.issue(issue.id)
        found = History(issue, stored, tuple(facets))
        if current():
            self._hold(project, found)
            self.errors.take_counts(project, issue.id, count=issue_count(issue), user_count=issue.userCount,
                                    last_seen=issue.lastSeen)
        return found

    async def recount(self, api: SentryEventsApi, project: str, error_id: str) -> StoredEvents:
        """The stored events' ids walked again (an event arrived after the last walk, or one was pruned)."""
        current = self.scope_guard()
        stored = await api.stored_events(error_id)
        held = self.history(project, error_id)
        if current() and held is not None:
            self._hold(project, held._replace(stored=stored))
        return stored

    def _hold(self, project: str, history: History) -> None:
        self.store.put(HISTORIES, project, history.issue.id, history)
        self.read_now((project, history.issue.id))

    async def fetch_event(self, api: SentryEventsApi, project: str, error_id: str, which: str) -> Event:
        """``which`` is ``latest``, ``oldest`` or an event id; the event is held under its own id."""
        current = self.scope_guard()
        event = await api.event(error_id, which)
        if current():
            self.store.put(EVENTS, project, f"{error_id}/{event.eventID}", event)
        return event
