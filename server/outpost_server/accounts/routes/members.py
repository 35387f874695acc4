"""GitLab's /projects/:id/members and /groups/:id/members endpoints."""

from __future__ import annotations

from fastapi import APIRouter, Request, Response
from sqlalchemy.orm import Session

from outpost_server import http_errors
from outpost_server.accounts import access, namespaces, users
from outpost_server.accounts.entities import member_entity
from outpost_server.accounts.models import Group, Project, User
from outpost_server.accounts.service import find_group_for, find_project_for
from outpost_server.auth import CurrentUserDep
from outpost_server.db import SessionDep
from outpost_server.entity_json import EntityResponse
from outpost_server.pagination import paginate, paginated
from outpost_server.params import Param, ParamsDep, body_params

router = APIRouter(tags=["members"])
MEMBER_BODY = body_params(Param("user_id", "integer"), Param("username"),
                          Param("access_level", "integer", required=True),
                          Param("expires_at"))


def _target(session: Session, user: User, kind: str, ident: str, *, manage: bool) -> Project | Group:
    # Project maintainers manage project members; only owners manage a group's members.
    if kind == "projects":
        return find_project_for(session, ident, user, access.MAINTAINER if manage else access.NO_ACCESS)
    return find_group_for(session, ident, user, access.OWNER if manage else access.NO_ACCESS)


def _bind(kind: str) -> None:
    @router.get(f"/{kind}/{{ident}}/members", name=f"list_{kind}_members", openapi_extra=paginated())
    def list_members(request: Request, response: Response, session: SessionDep, user: CurrentUserDep,
                     params: ParamsDep, ident: str) -> Response:
        target = _target(session, user, kind, ident, manage=False)
        rows = paginate(session, namespaces.member_stmt(target), params, request, response)
        return EntityResponse([member_entity(request, m) for m in rows], headers=response.headers)

    @router.get(f"/{kind}/{{ident}}/members/{{user_id}}", name=f"get_{kind}_member")
    def get_member(request: Request, session: SessionDep, user: CurrentUserDep, ident: str, user_id: int) -> Response:
        target = _target(session, user, kind, ident, manage=False)
        return EntityResponse(member_entity(request, namespaces.find_member(session, target=target, user_id=user_id)))

    @router.post(f"/{kind}/{{ident}}/members", status_code=201, name=f"add_{kind}_member", openapi_extra=MEMBER_BODY)
    def create_member(request: Request, session: SessionDep, user: CurrentUserDep, params: ParamsDep,
                      ident: str) -> Response:
        target = _target(session, user, kind, ident, manage=True)
        if params.raw("user_id") is None and params.raw("username") is None:
            raise http_errors.ApiError(400, {"error": "user_id, username are missing, "
                                                 "exactly one parameter must be provided"})
        level = params.int("access_level")
        if level not in access.VALID_LEVELS:
            raise http_errors.invalid_value("access_level")
        if params.raw("user_id") is not None:
            member_user = users.find_user(session, params.int("user_id") or 0)
        else:
            member_user = users.find_user_by_username(session, params.str("username") or "")
        if member_user is None:
            raise http_errors.not_found("User")
        member = namespaces.add_member(session, target=target, user=member_user, access_level=level,
                                       expires_at=params.date("expires_at"))
        return EntityResponse(member_entity(request, member), status_code=201)

    @router.delete(f"/{kind}/{{ident}}/members/{{user_id}}", status_code=204, name=f"remove_{kind}_member")
    def delete_member(session: SessionDep, user: CurrentUserDep, ident: str, user_id: int) -> Response:
        target = _target(session, user, kind, ident, manage=True)
        namespaces.remove_member(session, target=target, user_id=user_id)
        return Response(status_code=204)


for _kind in ("projects", "groups"):
    _bind(_kind)
