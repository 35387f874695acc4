"""`GET /api/0/projects/`: every project the token's user may read; `GET /api/0/projects/:org/:project/`: one,
with the scopes the caller holds on it (Sentry's `access`), so a client offers only what it may do."""

from __future__ import annotations

from fastapi import APIRouter, Request, Response

from outpost_server.db import SessionDep
from outpost_server.params import ParamsDep, query_params

from ..access import CallerDep, project_for, project_scopes, readable_projects
from ..cursors import CURSOR, limit_param, offset_links, page_limit, parse_cursor, sentry_json
from ..serializers import project_details_json, project_json

router = APIRouter()


@router.get("/projects/", openapi_extra=query_params(CURSOR, limit_param("per_page")))
def list_projects(request: Request, session: SessionDep, caller: CallerDep, params: ParamsDep) -> Response:
    cursor = parse_cursor(params.str("cursor"))
    limit = page_limit(params, "per_page")
    offset = cursor.offset if cursor else 0
    projects = readable_projects(session, caller)
    page = projects[offset:offset + limit]
    link = offset_links(request, offset=offset, limit=limit, has_more=offset + limit < len(projects))
    return sentry_json([project_json(project) for project in page], link=link)


@router.get("/projects/{organization_slug}/{project_slug}/", openapi_extra=query_params())
def get_project(session: SessionDep, caller: CallerDep, organization_slug: str, project_slug: str) -> Response:
    project = project_for(session, caller, organization_slug, project_slug)
    return sentry_json(project_details_json(project, sorted(project_scopes(session, caller, project))))
