"""An error's every event and its tag facets, read through Sentry's web API (``/api/0``) on an Outpost server.

GitLab has no such API for a token holder: its GraphQL and REST APIs give one latest stack trace per
error. Outpost serves Sentry's issue resources (details, ``events/``, ``events/latest/``, ``…/oldest/``,
``…/:event_id/``, ``tags/``) below the project, ``/api/0/projects/:org/:project/issues/:id/``, for
either backend: from its own store, or relayed to the project's external Sentry with the token stored
in the project's settings. The console authenticates with its personal access token as a Bearer token.
An event is read into outpost_model's Event, and its entries' data into their declared entities (the functions
below), so the widgets never read Sentry's JSON; the other answers still become the console's records here.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any, TypeVar
from urllib.parse import quote

import msgspec

from console.core.api.client import ApiClient
from outpost_model import decode
from outpost_model.error_tracking import ExceptionFrame, ExceptionValue
from outpost_model.sentry_events import (
    BreadcrumbsEntryData,
    Event,
    EventSummary,
    ExceptionEntryData,
    MessageEntryData,
    RequestEntryData,
    SentryBreadcrumb,
    SentryFrame,
)
from outpost_model.sentry_issues import IssueDetails, TagKey, TagValue

D = TypeVar("D")

# The events walked to place an event among its error's stored events ("event 3 of 25"): Outpost keeps
# 1000 events per error unless told otherwise, so this covers the default and a good deal more.
POSITION_PAGES = 20
PAGE_SIZE = 100
# Shown first among the facets, in this order; the other keys (custom tags among them) follow by name.
FACET_ORDER = ("release", "environment", "browser", "os", "server_name", "user")
# The standard contexts of an event, shown in this order; others follow by name.
CONTEXT_ORDER = ("os", "runtime", "browser", "device", "app")
# Outpost's Sentry slugs: the organization is the top-level namespace, the project the rest of the path
# with this between nested groups' paths (``acme/platform/api`` is ``acme`` and ``platform~api``).
SLUG_SEPARATOR = "~"


def sentry_slugs(path_with_namespace: str) -> tuple[str, str]:
    """(organization slug, project slug) of a project on Outpost."""
    organization, *below = path_with_namespace.split("/")
    return organization, SLUG_SEPARATOR.join(below)


def sentry_project_path(path_with_namespace: str) -> str:
    """`/projects/{organization}/{project}/`: where Sentry's web API serves a project on Outpost, each slug
    quoted."""
    organization, project = sentry_slugs(path_with_namespace)
    return f"/projects/{quote(organization, safe='')}/{quote(project, safe='')}/"


def _entry(event: Event, entry_type: str, kind: type[D]) -> D | None:
    """The data of the event's entry of ``entry_type``, read into ``kind``; None when the event has none."""
    found = next((entry for entry in event.entries if entry.type == entry_type), None)
    return None if found is None else msgspec.convert(found.data, kind)


def _frame(frame: SentryFrame) -> ExceptionFrame:
    return ExceptionFrame(lineNo=frame.lineNo, context=list(frame.context), filename=frame.filename,
                          abs_path=frame.absPath, function=frame.function, colNo=frame.colNo, module=frame.module,
                          in_app=frame.inApp)


def event_exceptions(event: Event) -> list[ExceptionValue]:
    """The event's exceptions, oldest first, in the stack trace view's shape (the error tracking routes')."""
    data = _entry(event, "exception", ExceptionEntryData)
    return [ExceptionValue(type=value.type, value=value.value, module=value.module,
                           frames=[_frame(frame) for frame in (value.stacktrace.frames if value.stacktrace else [])])
            for value in (data.values if data else [])]


def event_log_message(event: Event) -> str | None:
    """The logentry, above the exception of a logged exception, as Sentry shows it."""
    data = _entry(event, "message", MessageEntryData)
    return (data.formatted or None) if data else None


def event_breadcrumbs(event: Event) -> list[SentryBreadcrumb]:
    data = _entry(event, "breadcrumbs", BreadcrumbsEntryData)
    return data.values if data else []


def breadcrumb_text(crumb: SentryBreadcrumb) -> str:
    """The message, or the data as ``name=value`` pairs when the crumb has no message (an HTTP call)."""
    if crumb.message:
        return crumb.message
    data = crumb.data if isinstance(crumb.data, dict) else {}
    return "  ".join(f"{name}={value}" for name, value in data.items())


def event_request(event: Event) -> RequestEntryData | None:
    return _entry(event, "request", RequestEntryData)


def pairs(values: list[list[Any]]) -> list[tuple[str, str]]:
    """A request's [name, value] pairs (headers, query) as text."""
    return [(str(pair[0]), "" if pair[1] is None else str(pair[1])) for pair in values if len(pair) == 2]


def event_user(event: Event) -> dict[str, Any]:
    """The user's fields that say something (no null, empty text or empty object)."""
    return {name: value for name, value in (event.user or {}).items() if value not in (None, "", {})}


def event_contexts(event: Event) -> list[tuple[str, dict[str, Any]]]:
    """The event's contexts, the standard ones first in :data:`CONTEXT_ORDER`, the others by name."""
    contexts = {name: value for name, value in event.contexts.items() if isinstance(value, dict)}
    ordered = [name for name in CONTEXT_ORDER if name in contexts] + sorted(set(contexts) - set(CONTEXT_ORDER))
    return [(name, contexts[name]) for name in ordered]


def event_release(event: Event) -> str | None:
    return event.release.version if event.release is not None else None


def event_user_label(event: EventSummary) -> str:
    """Who an event happened to, in one word: the user's email, username, id or address, whichever is set."""
    user = event.user or {}
    return next((str(user[name]) for name in ("email", "username", "id", "ip_address") if user.get(name)), "")


def event_tags(event: EventSummary) -> dict[str, str]:
    return {tag.key: tag.value for tag in event.tags}


@dataclass(frozen=True)
class EventPage:
    events: list[EventSummary]
    next_cursor: str | None


def tag_query(key: str, value: str) -> str:
    escaped = value.replace("\\", "\\\\").replace('"', '\\"')
    return f'{key}:"{escaped}"'


def value_query(value: TagValue) -> str:
    """The search that finds the events with this value (Sentry's own for a user, ``user.email:"a@b"``)."""
    return value.query if isinstance(value.query, str) and value.query else tag_query(value.key, value.value)


def tag_share(facet: TagKey, value: TagValue) -> float:
    """The fraction of this key's events that carry ``value``."""
    return value.count / facet.totalValues if facet.totalValues else 0.0


def issue_count(issue: IssueDetails) -> int:
    """Every event the error ever received (Sentry sends the count as text)."""
    try:
        return int(issue.count)
    except ValueError:
        return 0


@dataclass(frozen=True)
class StoredEvents:
    """The ids of an error's stored events, newest first; ``complete`` is False when there were more to walk."""

    ids: list[str]
    complete: bool

    def position(self, event_id: str) -> int | None:
        """1 for the oldest stored event; None when the event is not among the ids walked."""
        if event_id not in self.ids or not self.complete:
            return None
        return len(self.ids) - self.ids.index(event_id)

    def describe(self, event_id: str, total: int) -> str:
        """"event 3 of 25", saying so where retention keeps fewer events than the error counts."""
        position = self.position(event_id)
        if position is None:
            if event_id in self.ids:
                return f"event {self.ids.index(event_id) + 1} from the latest of {total}"
            return f"an event of {total}"
        stored = len(self.ids)
        if stored >= total:
            return f"event {position} of {total}"
        return f"event {position} of {stored} stored ({total} received; retention pruned the others)"


def frame_label(frame: ExceptionFrame) -> str:
    """A frame in one line: where, which function, which line, and why it was not mapped if it was not."""
    where = frame.filename or frame.abs_path or frame.module or "?"
    label = f"{where} in {frame.function or '?'}"
    if frame.lineNo is not None:
        label += f" at line {frame.lineNo}"
    if isinstance(frame.unmapped_reason, str) and frame.unmapped_reason:
        label += f"  (not mapped: {frame.unmapped_reason})"
    return label


class SentryEventsApi:
    """Sentry's web API on the connected server for one project's errors. Only Outpost offers it (``available``)."""

    def __init__(self, client: ApiClient, project_path: str) -> None:
        self.client = client
        self._issues = sentry_project_path(project_path) + "issues/"

    @property
    def available(self) -> bool:
        return self.client.server is not None and self.client.server.is_outpost

    def _issue(self, issue_id: str) -> str:
        return f"{self._issues}{quote(issue_id, safe='')}/"

    async def issue(self, issue_id: str) -> IssueDetails:
        return decode((await self.client.sentry_request(self._issue(issue_id))).content, IssueDetails)

    async def event(self, issue_id: str, which: str) -> Event:
        """``which`` is ``latest``, ``oldest`` or an event id."""
        response = await self.client.sentry_request(f"{self._issue(issue_id)}events/{quote(which, safe='')}/")
        return decode(response.content, Event)

    async def events(self, issue_id: str, *, query: str = "", cursor: str | None = None,
                     per_page: int = PAGE_SIZE) -> EventPage:
        params: dict[str, Any] = {"per_page": per_page}
        if query:
            params["query"] = query
        if cursor:
            params["cursor"] = cursor
        response = await self.client.sentry_request(f"{self._issue(issue_id)}events/", params=params)
        following = response.links.get("next") or {}
        next_cursor = following.get("cursor") if following.get("results") == "true" else None
        return EventPage(decode(response.content, list[EventSummary]), next_cursor)

    async def stored_events(self, issue_id: str, *, pages: int = POSITION_PAGES,
                            per_page: int = PAGE_SIZE) -> StoredEvents:
        ids: list[str] = []
        cursor: str | None = None
        for _ in range(pages):
            page = await self.events(issue_id, cursor=cursor, per_page=per_page)
            ids.extend(event.eventID for event in page.events)
            cursor = page.next_cursor
            if cursor is None:
                return StoredEvents(ids, complete=True)
        return StoredEvents(ids, complete=False)

    async def tag_facets(self, issue_id: str) -> list[TagKey]:
        """The error's tag keys with their most common values, the standard keys first (:data:`FACET_ORDER`)."""
        response = await self.client.sentry_request(f"{self._issue(issue_id)}tags/")
        rank = {key: position for position, key in enumerate(FACET_ORDER)}
        return sorted(decode(response.content, list[TagKey]), key=lambda facet: (rank.get(facet.key, len(rank)),
                                                                                  facet.key))
