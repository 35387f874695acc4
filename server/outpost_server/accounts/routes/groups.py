"""GitLab's /groups endpoints: list, read, create, change, delete, subgroups and the group's projects."""

from __future__ import annotations

from fastapi import APIRouter, Request, Response

from outpost_server import http_errors
from outpost_server.accounts import access, listing, namespaces
from outpost_server.accounts.entities import ACCEPTED, group_entity, project_entity
from outpost_server.accounts.routes.listing_params import GROUP_FILTERS, PROJECT_FILTERS, group_filter, project_filter
from outpost_server.accounts.service import find_group_for
from outpost_server.auth import CurrentUserDep, OptionalUserDep
from outpost_server.db import SessionDep
from outpost_server.entity_json import EntityResponse
from outpost_server.pagination import paginate, paginated
from outpost_server.params import Param, ParamsDep, body_params

router = APIRouter(tags=["groups"])
GROUP_FIELDS = (Param("name"), Param("path"), Param("description"),
                Param("visibility", choices=namespaces.VISIBILITIES))


@router.get("/groups", openapi_extra=paginated(*GROUP_FILTERS))
def list_groups(request: Request, response: Response, session: SessionDep, user: OptionalUserDep,
                params: ParamsDep) -> Response:
    stmt = listing.groups_stmt(session, user=user, filters=group_filter(params))
    return EntityResponse([group_entity(request, g) for g in paginate(session, stmt, params, request, response)],
                          headers=response.headers)


@router.get("/groups/{group_id}")
def get_group(request: Request, session: SessionDep, user: OptionalUserDep, group_id: str) -> Response:
    return EntityResponse(group_entity(request, find_group_for(session, group_id, user)))


@router.get("/groups/{group_id}/subgroups", openapi_extra=paginated(*GROUP_FILTERS))
def list_subgroups(request: Request, response: Response, session: SessionDep, user: OptionalUserDep,
                   params: ParamsDep, group_id: str) -> Response:
    group = find_group_for(session, group_id, user)
    stmt = listing.groups_stmt(session, user=user, filters=group_filter(params), parent_id=group.id)
    return EntityResponse([group_entity(request, g) for g in paginate(session, stmt, params, request, response)],
                          headers=response.headers)


@router.get("/groups/{group_id}/projects", openapi_extra=paginated(
    *PROJECT_FILTERS, Param("include_subgroups", "boolean", default=False)))
def list_group_projects(request: Request, response: Response, session: SessionDep, user: OptionalUserDep,
                        params: ParamsDep, group_id: str) -> Response:
    group = find_group_for(session, group_id, user)
    ids = listing.group_project_namespace_ids(session, group, include_subgroups=params.bool("include_subgroups", False))
    stmt = listing.projects_stmt(session, user=user, filters=project_filter(params), namespace_ids=ids)
    page = [project_entity(request, p) for p in paginate(session, stmt, params, request, response)]
    return EntityResponse(page, headers=response.headers)


@router.post("/groups", status_code=201, openapi_extra=body_params(
    Param("name", required=True), Param("path", required=True), *GROUP_FIELDS[2:], Param("parent_id", "integer")))
def create_group(request: Request, session: SessionDep, user: CurrentUserDep, params: ParamsDep) -> Response:
    visibility = params.choice("visibility", namespaces.VISIBILITIES, "private")
    parent = None
    if (parent_id := params.int("parent_id")) is not None:
        parent = find_group_for(session, parent_id, user, access.MAINTAINER)
    elif not user.can_create_group and not user.is_admin:
        raise http_errors.forbidden()
    group = namespaces.create_group(session, name=params.str("name", ""), path=params.str("path", ""), creator=user,
                                    parent=parent, visibility=visibility, description=params.str("description", ""))
    return EntityResponse(group_entity(request, group), status_code=201)


@router.put("/groups/{group_id}", openapi_extra=body_params(*GROUP_FIELDS))
def update_group(request: Request, session: SessionDep, user: CurrentUserDep, params: ParamsDep,
                 group_id: str) -> Response:
    group = find_group_for(session, group_id, user, access.OWNER)
    for name in ("name", "path"):
        if name in params and not params.str(name):
            raise http_errors.empty_param(name)
    group = namespaces.update_group(session, group=group, name=params.str("name"), path=params.str("path"),
                                    description=params.str("description"),
                                    visibility=params.choice("visibility", namespaces.VISIBILITIES))
    return EntityResponse(group_entity(request, group))


@router.delete("/groups/{group_id}", status_code=202)
def delete_group(session: SessionDep, user: CurrentUserDep, group_id: str) -> Response:
    """GitLab schedules the deletion and answers 202; Outpost deletes at once, in this transaction."""
    namespaces.delete_group(session, group=find_group_for(session, group_id, user, access.OWNER))
    return EntityResponse(ACCEPTED, status_code=202)
