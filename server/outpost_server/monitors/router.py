"""Sentry's monitors API under `/api/0/organizations/{organization}/monitors/`: the list, one monitor
(GET, PUT, DELETE) by slug or id, and its check-ins; fields, statuses and bodies as Sentry's
MonitorSerializer and MonitorCheckInSerializer write them.

Reading needs what reading the project's issues needs (an organization where the caller reads no
project is Sentry's 404); `?project=` (ids) narrows every route to those projects, and a slug that
several of them share is a 400 without it; changing a monitor, Maintainer or more and a
token with `api` scope. A 400 is DRF's `{"field": ["message"]}`.
"""

from __future__ import annotations

from typing import Annotated, Any

from fastapi import APIRouter, Depends, Request, Response
from sqlalchemy.orm import Session

from outpost_server.accounts.models import Project
from outpost_server.db import SessionDep
from outpost_server.domain_errors import Invalid, NotFound
from outpost_server.http_errors import ApiError
from outpost_server.params import Param, Params, ParamsDep, body_params, query_params
from outpost_server.sentry_api.access import (
    NO_PERMISSION,
    Caller,
    CallerDep,
    detail,
    may_release,
    not_found,
    readable_projects,
    slugs_of,
)
from outpost_server.sentry_api.bodies import json_body
from outpost_server.sentry_api.cursors import CURSOR, limit_param, offset_links, page_limit, parse_cursor, sentry_json

from . import service
from .entities import check_in_json, config_json, monitor_json
from .service import Ambiguous

router = APIRouter(tags=["monitors"])

MONITORS = "/organizations/{organization_slug}/monitors/"
MONITOR = MONITORS + "{monitor_slug}/"
BodyDep = Annotated[dict[str, Any], Depends(json_body)]
PROJECT = Param("project", "array")
# A slug two readable projects share, with no `?project=` to choose between them.
AMBIGUOUS = "More than one monitor has this slug: name its project with ?project=."
UPDATE_PARAMS = (Param("name"), Param("slug"), Param("status", choices=service.STATUSES),
                 Param("isMuted", "boolean"), Param("config", "object"))


def _projects(session: Session, caller: Caller, organization_slug: str, params: Params) -> list[Project]:
    """The organization's projects the caller may read, narrowed to `?project=` ids (-1: all); 404 for an
    organization where the caller reads nothing, as its releases answer."""
    projects = [project for project in readable_projects(session, caller) if slugs_of(project)[0] == organization_slug]
    if not projects:
        raise not_found()
    wanted = {str(value) for value in params.list("project") or []}
    if wanted and "-1" not in wanted:
        projects = [project for project in projects if str(project.id) in wanted]
    return projects


def _monitor(session: Session, caller: Caller, params: Params, organization_slug: str, monitor_slug: str
             ) -> service.MonitorView:
    try:
        return service.find_monitor(session, projects=_projects(session, caller, organization_slug, params),
                                    slug=monitor_slug)
    except NotFound:
        raise not_found() from None
    except Ambiguous:
        raise detail(400, AMBIGUOUS) from None


def _managed(session: Session, caller: Caller, params: Params, organization_slug: str, monitor_slug: str
             ) -> service.MonitorView:
    view = _monitor(session, caller, params, organization_slug, monitor_slug)
    caller.require("event:write")
    if not may_release(session, caller, view.project):
        raise detail(403, NO_PERMISSION)
    return view


@router.get(MONITORS, openapi_extra=query_params(CURSOR, limit_param("per_page"), PROJECT,
                                                 Param("environment", "array")))
def list_monitors(request: Request, session: SessionDep, caller: CallerDep, params: ParamsDep,
                  organization_slug: str) -> Response:
    projects = _projects(session, caller, organization_slug, params)
    environments = set(params.list("environment") or [])
    cursor = parse_cursor(params.str("cursor"))
    limit = page_limit(params, "per_page")
    offset = cursor.offset if cursor else 0
    views = service.list_monitors(session, projects=projects)
    link = offset_links(request, offset=offset, limit=limit, has_more=offset + limit < len(views))
    return sentry_json([monitor_json(view, environments) for view in views[offset:offset + limit]], link=link)


@router.get(MONITOR, openapi_extra=query_params(PROJECT, Param("environment", "array")))
def get_monitor(session: SessionDep, caller: CallerDep, params: ParamsDep, organization_slug: str,
                monitor_slug: str) -> Response:
    view = _monitor(session, caller, params, organization_slug, monitor_slug)
    return sentry_json(monitor_json(view, set(params.list("environment") or [])))


@router.put(MONITOR, openapi_extra=body_params(*UPDATE_PARAMS, PROJECT))
def update_monitor(session: SessionDep, caller: CallerDep, params: ParamsDep, body: BodyDep, organization_slug: str,
                   monitor_slug: str) -> Response:
    view = _managed(session, caller, params, organization_slug, monitor_slug)
    try:
        service.update_monitor(session, view=view, changes=body)
    except Invalid as invalid:
        raise ApiError(400, invalid.messages) from None
    return sentry_json(monitor_json(view, set()))


@router.delete(MONITOR, status_code=202, openapi_extra=query_params(PROJECT))
def delete_monitor(session: SessionDep, caller: CallerDep, params: ParamsDep, organization_slug: str,
                   monitor_slug: str) -> Response:
    service.delete_monitor(session, view=_managed(session, caller, params, organization_slug, monitor_slug))
    return Response(status_code=202)


@router.get(MONITOR + "checkins/", openapi_extra=query_params(CURSOR, limit_param("per_page"), PROJECT,
                                                              Param("environment", "array")))
def list_check_ins(request: Request, session: SessionDep, caller: CallerDep, params: ParamsDep,
                   organization_slug: str, monitor_slug: str) -> Response:
    view = _monitor(session, caller, params, organization_slug, monitor_slug)
    cursor = parse_cursor(params.str("cursor"))
    limit = page_limit(params, "per_page")
    offset = cursor.offset if cursor else 0
    rows, more = service.list_check_ins(session, view=view, environments=params.list("environment") or [],
                                        offset=offset, limit=limit)
    link = offset_links(request, offset=offset, limit=limit, has_more=more)
    config = config_json(view)
    return sentry_json([check_in_json(check_in, environment, config) for check_in, environment in rows], link=link)
