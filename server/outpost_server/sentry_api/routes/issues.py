"""Issues: a project's list (`query`, `sort`, `limit`, `cursor`), details, and updates of one issue or of
many at once (`?id=..&id=..` or `?query=`): status with ignore conditions, assignment, merge."""

from __future__ import annotations

from typing import Annotated, Any

from fastapi import APIRouter, Depends, Request
from fastapi.responses import Response
from sqlalchemy.orm import Session

from outpost_server.accounts.models import Project
from outpost_server.db import SessionDep, parse_id
from outpost_server.entity_json import EntityResponse
from outpost_server.error_tracking.models import TrackedError
from outpost_server.error_tracking.read import events, integrated, tracked_errors
from outpost_server.error_tracking.read.search import parse_search
from outpost_server.params import Declaration, Param, Params, ParamsDep, body_params, query_params

from .. import relay
from ..access import Caller, CallerDep, detail, issue_for, project_for, require_triage
from ..bodies import json_body
from ..cursors import CURSOR, keyset_links, limit_param, page_limit, parse_cursor, sentry_json
from ..group_update import IGNORE_FIELDS, STATUS_CHANGES, apply, read_changes, triage_of
from ..serializers import daily_stats, issue_details_json, issue_json

router = APIRouter()

DEFAULT_QUERY = "is:unresolved"
# Sentry's BULK_MUTATION_LIMIT: the most issues one update by `query=` changes.
BULK_MUTATION_LIMIT = 1000
UPDATE_BODY = body_params(
    Param("status", choices=tuple(STATUS_CHANGES)), Param("statusDetails", kind="object"),
    Param("assignedTo"), Param("merge", kind="boolean"), *(Param(name, kind="integer") for name in IGNORE_FIELDS))
BULK_QUERY = (Param("id", kind="array"), Param("query", default=DEFAULT_QUERY))
BULK_UPDATE = Declaration({**query_params(*BULK_QUERY), **UPDATE_BODY}, BULK_QUERY)


LIST_PARAMS = (Param("query", default=DEFAULT_QUERY), Param("sort", default="date", choices=tuple(events.ERROR_SORTS)),
               CURSOR, limit_param("limit"), Param("group", kind="array"))


def _sent(params: Params, declared: tuple[Param, ...]) -> dict[str, list[str]]:
    """The declared parameters as the caller sent them, for a project's external Sentry to judge."""
    return {param.name: values for param in declared if (values := params.every(param.name))}


@router.get("/projects/{organization_slug}/{project_slug}/issues/", openapi_extra=query_params(*LIST_PARAMS))
def list_issues(request: Request, session: SessionDep, caller: CallerDep, params: ParamsDep,
                organization_slug: str, project_slug: str) -> Response:
    project = project_for(session, caller, organization_slug, project_slug)
    caller.require("event:read")
    if (external := relay.external_source(request, session, project)) is not None:
        return relay.project_issues(request, external, "GET", _sent(params, LIST_PARAMS))
    raw_query = params.str("query")
    query = parse_search(DEFAULT_QUERY if raw_query is None else raw_query, viewer_id=caller.user.id)
    sort = params.str("sort") or "date"
    cursor = parse_cursor(params.str("cursor"))
    limit = page_limit(params, "limit")
    conditions = integrated.error_filters(project.id, query.status, query)
    if groups := params.every("group"):  # these issues only, as Sentry's organization issue list reads `group`
        conditions.append(TrackedError.id.in_([row_id for value in groups if (row_id := parse_id(value))]))
    try:
        window = events.errors_window(
            session, project_id=project.id, conditions=conditions,
            sort=sort, limit=limit, boundary_id=cursor.value if cursor else None,
            backwards=bool(cursor and cursor.is_prev))
    except events.UnknownBoundary:
        raise detail(400, "Invalid cursor parameter.") from None
    rows = window.rows
    link = keyset_links(request, window, cursor)
    stats = integrated.hourly_frequency(session, [row.id for row in rows])
    triage = triage_of(session, rows)
    return sentry_json([issue_json(request, project, row, stats[row.id], triage[row.id]) for row in rows], link=link)


def _search(session: Session, caller: Caller, project: Project, params: Params) -> list[TrackedError]:
    """The issues `?query=` (Sentry's default: is:unresolved) finds, the first BULK_MUTATION_LIMIT by date."""
    raw_query = params.str("query")
    query = parse_search(DEFAULT_QUERY if raw_query is None else raw_query, viewer_id=caller.user.id)
    return events.errors_window(session, project_id=project.id, sort="date", limit=BULK_MUTATION_LIMIT,
                                conditions=integrated.error_filters(project.id, query.status, query)).rows


@router.put("/projects/{organization_slug}/{project_slug}/issues/", openapi_extra=BULK_UPDATE)
def update_issues(request: Request, session: SessionDep, caller: CallerDep, params: ParamsDep,
                  body: Annotated[dict[str, Any], Depends(json_body)], organization_slug: str,
                                                          project_slug: str) -> Response:
    """Sentry's bulk mutation: the issues named by `id` (those of other projects are left out) or found by
    `query`; answers what changed, or 204 when no issue matched. A project whose backend is an external
    Sentry has it carried out there, on that Sentry's project."""
    project = project_for(session, caller, organization_slug, project_slug)
    require_triage(session, caller, project)
    if (external := relay.external_source(request, session, project)) is not None:
        return relay.project_issues(request, external, "PUT", _sent(params, BULK_QUERY), body)
    ids = params.every("id")
    if ids:
        found = [tracked_errors.get_error(session, project=project, error_id=value) for value in ids]
        rows = list({error.id: error for error in found if error is not None}.values())
    else:
        rows = _search(session, caller, project, params)
    if not rows:
        return Response(status_code=204)
    changes = read_changes(session, project, body)
    return sentry_json(apply(session, rows, changes, actor=caller.user))


def issue_details_response(request: Request, session: Session, project: Project, error: TrackedError) -> EntityResponse:
    return sentry_json(issue_details_json(
        request, project, error, stats_24h=integrated.hourly_frequency(session, [error.id])[error.id],
        stats_30d=daily_stats(tracked_errors.daily_counts(session, error=error)),
        facets=events.tag_facets(session, error=error, value_limit=0), triage=triage_of(session, [error])[error.id]))


@router.get("/issues/{issue_id}/", openapi_extra=query_params())
def get_issue(request: Request, session: SessionDep, caller: CallerDep, issue_id: str) -> Response:
    project, error = issue_for(session, caller, issue_id)
    return issue_details_response(request, session, project, error)


@router.put("/issues/{issue_id}/", openapi_extra=UPDATE_BODY)
def update_issue(request: Request, session: SessionDep, caller: CallerDep,
                 body: Annotated[dict[str, Any], Depends(json_body)], issue_id: str) -> Response:
    """Changes status, ignore conditions and assignee, then answers the issue, as Sentry's GroupDetails does."""
    project, error = issue_for(session, caller, issue_id, scope="event:write")
    apply(session, [error], read_changes(session, project, body), actor=caller.user)
    return issue_details_response(request, session, project, error)
