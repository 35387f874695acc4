"""Events: an issue's events (paginated, filterable by tag), its latest and oldest, and one event by id."""

from __future__ import annotations

import json
import re

from fastapi import APIRouter, Request, Response
from sqlalchemy.orm import Session

from outpost_model.sentry_events import Event
from outpost_server.accounts.models import Project
from outpost_server.db import SessionDep
from outpost_server.entity_json import EntityResponse
from outpost_server.error_tracking.models import ErrorEvent, TrackedError
from outpost_server.error_tracking.read import events
from outpost_server.params import Param, Params, ParamsDep, query_params

from ..access import CallerDep, detail, issue_for, not_found
from ..cursors import CURSOR, keyset_links, limit_param, page_limit, parse_cursor, sentry_json
from ..event_json import event_json, summary_json

router = APIRouter()

_FILTER = re.compile(r'(?P<key>[^\s:"]+):(?P<value>"(?:[^"\\]|\\.)*"|\S+)')
_USER_FIELDS = {"user.id": "id", "user.email": "email", "user.username": "username", "user.ip": "ip"}
EVENT_ID = re.compile(r"[0-9a-fA-F]{32}")
# `full` is a string as Sentry reads it: "1" or "true" asks for whole events, and any other value does not.
EVENT_LIST_PARAMS = (Param("query"), CURSOR, limit_param("per_page"), limit_param("limit", None), Param("full"))


def tag_filters(query: str | None) -> dict[str, str]:
    """`browser:Chrome release:"web 1.2" user.email:"a@b"` as tag key -> value (user.* as Sentry's user tag)."""
    filters: dict[str, str] = {}
    rest = _FILTER.sub(" ", query or "").strip()
    if rest:
        raise detail(400, "Only key:value tag filters are supported in query.")
    for match in _FILTER.finditer(query or ""):
        key, value = match.group("key"), match.group("value")
        if value.startswith('"') and value.endswith('"') and len(value) >= 2:
            value = value[1:-1].replace('\\"', '"')
        if key in _USER_FIELDS:
            key, value = "user", f"{_USER_FIELDS[key]}:{value}"
        filters[key] = value
    return filters


def _event_body(session: Session, project: Project, error: TrackedError, row: ErrorEvent) -> Event:
    payload = events.payloads(session, error_id=error.id, event_ids=[row.event_id],
                              received=[row.received_at]).get(row.event_id, {})
    previous_id, next_id = events.neighbours(session, event=row, error=error)
    return event_json(project, error, row, payload, size=len(json.dumps(payload)) if payload else 0,
                      previous_id=previous_id, next_id=next_id)


def events_page(request: Request, params: Params, session: Session, project: Project,
                error: TrackedError) -> EntityResponse:
    """Newest first; `full=true` gives every event in full, as Sentry's `full` parameter does."""
    cursor = parse_cursor(params.str("cursor"))
    limit = page_limit(params, "per_page", "limit")
    try:
        window = events.events_window(session, error=error, limit=limit, tags=tag_filters(params.str("query")),
                                      boundary_id=cursor.value if cursor else None,
                                      backwards=bool(cursor and cursor.is_prev))
    except events.UnknownBoundary:
        raise detail(400, "Invalid cursor parameter.") from None
    rows = window.rows
    link = keyset_links(request, window, cursor)
    if params.str("full") in ("1", "true"):
        return sentry_json([_event_body(session, project, error, row) for row in rows], link=link)
    tags = events.stored_tags(session, error_id=error.id, event_ids=[row.event_id for row in rows],
                              received=[row.received_at for row in rows])
    return sentry_json([summary_json(project, error, row, events.column_tags(row) + tags[row.event_id])
                        for row in rows], link=link)


def issue_event(session: Session, project: Project, error: TrackedError, which: str) -> EntityResponse:
    """`which` is `latest`, `oldest` or an event id of the issue."""
    if which in ("latest", "oldest"):
        row = events.edge_event(session, error=error, oldest=which == "oldest")
    elif EVENT_ID.fullmatch(which):
        row = events.find_event(session, project_id=project.id, event_id=which, error=error)
    else:
        raise not_found()
    if row is None:
        raise not_found()
    return sentry_json(_event_body(session, project, error, row))


@router.get("/issues/{issue_id}/events/", openapi_extra=query_params(*EVENT_LIST_PARAMS))
def list_events(request: Request, session: SessionDep, caller: CallerDep, params: ParamsDep, issue_id: str) -> Response:
    project, error = issue_for(session, caller, issue_id)
    return events_page(request, params, session, project, error)


@router.get("/issues/{issue_id}/events/{which}/", openapi_extra=query_params())
def one_event(session: SessionDep, caller: CallerDep, issue_id: str, which: str) -> Response:
    """`latest`, `oldest` or an event id."""
    project, error = issue_for(session, caller, issue_id)
    return issue_event(session, project, error, which)
