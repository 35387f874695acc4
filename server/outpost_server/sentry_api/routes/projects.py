"""`GET /api/0/projects/`: every project the token's user may read."""

from __future__ import annotations

from fastapi import APIRouter, Request

from outpost_server.db import SessionDep
from outpost_server.params import Param, query_params

from ..access import CallerDep, readable_projects
from ..cursors import offset_links, parse_cursor, parse_limit, sentry_json
from ..serializers import project_json

router = APIRouter()


@router.get("/projects/", openapi_extra=query_params(Param("cursor"), Param("per_page", "integer", default=100)))
def list_projects(request: Request, session: SessionDep, caller: CallerDep):
    cursor = parse_cursor(request.query_params.get("cursor"))
    limit = parse_limit(request.query_params.get("per_page"))
    offset = cursor.offset if cursor else 0
    projects = readable_projects(session, caller)
    page = projects[offset:offset + limit]
    link = offset_links(request, offset=offset, limit=limit, has_more=offset + limit < len(projects))
    return sentry_json([project_json(project) for project in page], link=link)
