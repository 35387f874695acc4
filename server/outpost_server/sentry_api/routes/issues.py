"""Issues: a project's list (`query`, `sort`, `limit`, `cursor`), details and status updates."""

from __future__ import annotations

from typing import Annotated, Any

from fastapi import APIRouter, Depends, Request
from fastapi.responses import JSONResponse
from sqlalchemy.orm import Session

from outpost_server.accounts.models import Project
from outpost_server.db import SessionDep
from outpost_server.error_tracking.models import TrackedError
from outpost_server.error_tracking.read import events, integrated, tracked_errors
from outpost_server.error_tracking.read.search import parse_search
from outpost_server.http_errors import ApiError
from outpost_server.params import Param, ParamsDep, body_params, query_params

from ..access import CallerDep, detail, issue_for, project_for
from ..bodies import json_body
from ..cursors import CURSOR, keyset_links, limit_param, page_limit, parse_cursor, sentry_json
from ..serializers import daily_stats, issue_details_json, issue_json

router = APIRouter()

DEFAULT_QUERY = "is:unresolved"
# Sentry's statuses as sent by clients, and the status each one stores.
STATUS_CHANGES = {"resolved": "resolved", "resolvedInNextRelease": "resolved", "unresolved": "unresolved",
                  "ignored": "ignored"}


@router.get("/projects/{organization_slug}/{project_slug}/issues/", openapi_extra=query_params(
    Param("query", default=DEFAULT_QUERY), Param("sort", default="date", choices=tuple(events.ERROR_SORTS)),
    CURSOR, limit_param("limit")))
def list_issues(request: Request, session: SessionDep, caller: CallerDep, params: ParamsDep,
                organization_slug: str, project_slug: str):
    project = project_for(session, caller, organization_slug, project_slug)
    caller.require("event:read")
    raw_query = params.str("query")
    query = parse_search(DEFAULT_QUERY if raw_query is None else raw_query)
    sort = params.str("sort") or "date"
    cursor = parse_cursor(params.str("cursor"))
    limit = page_limit(params, "limit")
    try:
        window = events.errors_window(
            session, project_id=project.id, conditions=integrated.error_filters(project.id, query.status, query),
            sort=sort, limit=limit, boundary_id=cursor.value if cursor else None,
            backwards=bool(cursor and cursor.is_prev))
    except events.UnknownBoundary:
        raise detail(400, "Invalid cursor parameter.") from None
    rows = window.rows
    link = keyset_links(request, window, cursor)
    stats = integrated.hourly_frequency(session, [row.id for row in rows])
    return sentry_json([issue_json(request, project, row, stats[row.id]) for row in rows], link=link)


def issue_details_response(request: Request, session: Session, project: Project, error: TrackedError) -> JSONResponse:
    return sentry_json(issue_details_json(
        request, project, error, stats_24h=integrated.hourly_frequency(session, [error.id])[error.id],
        stats_30d=daily_stats(tracked_errors.daily_counts(session, error=error)),
        facets=events.tag_facets(session, error=error, value_limit=0)))


@router.get("/issues/{issue_id}/", openapi_extra=query_params())
def get_issue(request: Request, session: SessionDep, caller: CallerDep, issue_id: str):
    project, error = issue_for(session, caller, issue_id)
    return issue_details_response(request, session, project, error)


@router.put("/issues/{issue_id}/", openapi_extra=body_params(Param("status", choices=tuple(STATUS_CHANGES))))
def update_issue(request: Request, session: SessionDep, caller: CallerDep,
                 body: Annotated[dict[str, Any], Depends(json_body)], issue_id: str):
    """Changes the status (the only field Outpost keeps) and answers the updated issue, as Sentry does."""
    project, error = issue_for(session, caller, issue_id, scope="event:write")
    status = body.get("status")
    if status is not None:
        if not isinstance(status, str) or status not in STATUS_CHANGES:
            raise ApiError(400, {"status": [f'"{status}" is not a valid choice.']})
        tracked_errors.update_error_status(session, error=error, status=STATUS_CHANGES[status])
    return issue_details_response(request, session, project, error)
