"""GitLab's /projects endpoints: list, read, create, change and delete."""

from __future__ import annotations

from fastapi import APIRouter, Request, Response

from outpost_server import http_errors
from outpost_server.accounts import access, listing, namespaces
from outpost_server.accounts.entities import ACCEPTED, project_entity
from outpost_server.accounts.routes.listing_params import PROJECT_FILTERS, project_filter
from outpost_server.accounts.service import find_project_for
from outpost_server.auth import CurrentUserDep, OptionalUserDep
from outpost_server.db import SessionDep
from outpost_server.entity_json import EntityResponse
from outpost_server.pagination import paginate, paginated
from outpost_server.params import Param, ParamsDep, body_params

router = APIRouter(tags=["projects"])
MONITOR_LEVELS = ("disabled", "private", "enabled")


@router.get("/projects", openapi_extra=paginated(*PROJECT_FILTERS))
def list_projects(request: Request, response: Response, session: SessionDep, user: OptionalUserDep,
                  params: ParamsDep) -> Response:
    stmt = listing.projects_stmt(session, user=user, filters=project_filter(params))
    page = [project_entity(request, p) for p in paginate(session, stmt, params, request, response)]
    return EntityResponse(page, headers=response.headers)


@router.get("/projects/{project_id}")
def get_project(request: Request, session: SessionDep, user: OptionalUserDep, project_id: str) -> Response:
    return EntityResponse(project_entity(request, find_project_for(session, project_id, user)))


@router.post("/projects", status_code=201, openapi_extra=body_params(
    Param("name"), Param("path"), Param("namespace_id", "integer"), Param("description"),
    Param("visibility", choices=namespaces.VISIBILITIES, default="private")))
def create_project(request: Request, session: SessionDep, user: CurrentUserDep, params: ParamsDep) -> Response:
    name, path = params.str("name", ""), params.str("path", "")
    if not name and not path:
        raise http_errors.ApiError(400, {"error": "name, path are missing, at least one parameter must be provided"})
    visibility = params.choice("visibility", namespaces.VISIBILITIES, "private")
    namespace = namespaces.namespace_for_new_project(session, user=user, namespace_id=params.int("namespace_id"))
    project = namespaces.create_project(session, name=name or path, path=path or namespaces.slugify_path(name),
                                        creator=user, namespace=namespace, visibility=visibility,
                                        description=params.str("description", ""))
    return EntityResponse(project_entity(request, project), status_code=201)


@router.put("/projects/{project_id}", openapi_extra=body_params(
    Param("name"), Param("description"), Param("visibility", choices=namespaces.VISIBILITIES),
    Param("monitor_access_level", choices=MONITOR_LEVELS)))
def update_project(request: Request, session: SessionDep, user: CurrentUserDep, params: ParamsDep,
                   project_id: str) -> Response:
    project = find_project_for(session, project_id, user, access.MAINTAINER)
    project = namespaces.update_project(
        session, project=project, name=params.str("name"), description=params.str("description"),
        visibility=params.choice("visibility", namespaces.VISIBILITIES),
        monitor_access_level=params.choice("monitor_access_level", MONITOR_LEVELS))
    return EntityResponse(project_entity(request, project))


@router.delete("/projects/{project_id}", status_code=202)
def delete_project(session: SessionDep, user: CurrentUserDep, project_id: str) -> Response:
    """Owners delete projects. GitLab schedules it and answers 202; Outpost deletes at once, in one transaction
    with everything hanging off the project, so its client keys stop working on every replica at commit."""
    namespaces.delete_project(session, project=find_project_for(session, project_id, user, access.OWNER))
    return EntityResponse(ACCEPTED, status_code=202)
