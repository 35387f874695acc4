"""GitLab's REST API for version, users, tokens, groups, projects and members."""

from __future__ import annotations

import datetime as dt

from fastapi import APIRouter, Request, Response
from sqlalchemy import or_, select

from outpost_server import __version__, http_errors
from outpost_server.accounts import access, service
from outpost_server.accounts.entities import group_entity, member_entity, project_entity, token_entity, user_entity
from outpost_server.accounts.models import Group, GroupMember, PersonalAccessToken, Project, ProjectMember, User
from outpost_server.auth import AdminUserDep, CurrentUserDep, OptionalUserDep, extract_token
from outpost_server.db import MAX_ROW_ID, SessionDep, parse_id
from outpost_server.pagination import paginate
from outpost_server.params import ParamsDep
from outpost_server.security import token_digest

router = APIRouter(tags=["accounts"])

GITLAB_COMPATIBLE_VERSION = "17.5.0"
VISIBILITIES = ("private", "internal", "public")


@router.get("/version")
def get_version(user: CurrentUserDep):
    return {"version": GITLAB_COMPATIBLE_VERSION, "revision": f"outpost-{__version__}",
            "kas": {"enabled": False, "externalUrl": None, "version": None}, "enterprise": True}


@router.get("/user")
def get_current_user(request: Request, user: CurrentUserDep):
    return user_entity(request, user, with_private=True)


@router.get("/users")
def list_users(request: Request, response: Response, session: SessionDep, user: OptionalUserDep, params: ParamsDep):
    stmt = select(User).order_by(User.id)
    username = params.str("username")
    # GitLab lets anonymous callers look up one user by username, but not list everyone.
    if user is None and not username:
        raise http_errors.forbidden("Not authorized to access /api/v4/users")
    if username:
        stmt = stmt.where(User.username == username)
    if search := params.str("search"):
        pattern = f"%{search}%"
        stmt = stmt.where(or_(User.username.ilike(pattern), User.name.ilike(pattern), User.email.ilike(pattern)))
    with_private = user is not None and user.is_admin
    return [user_entity(request, u, with_private=with_private) for u in paginate(session, stmt, request, response)]


@router.get("/users/{user_id}")
def get_user(request: Request, session: SessionDep, user: OptionalUserDep, user_id: str):
    if user is None:
        raise http_errors.forbidden("Not authorized!")
    target = session.get(User, row_id) if (row_id := parse_id(user_id)) is not None else None
    if target is None:
        raise http_errors.not_found("User")
    return user_entity(request, target, with_private=user.is_admin or target.id == user.id)


@router.post("/users", status_code=201)
def create_user(request: Request, session: SessionDep, admin: AdminUserDep, params: ParamsDep):
    params.require("email", "name", "username")
    password = params.str("password")
    if password is None and not params.bool("reset_password") and not params.bool("force_random_password"):
        raise http_errors.ApiError(400, {"error": "password, reset_password, force_random_password are missing, "
                                             "exactly one parameter must be provided"})
    if password is not None and len(password) < 8:
        raise http_errors.validation_error({"password": ["is too short (minimum is 8 characters)"]})
    created = service.create_user(session, username=params.str("username"), name=params.str("name"),
                                  email=params.str("email"), password=password,
                                  is_admin=bool(params.bool("admin", False)))
    session.commit()
    return user_entity(request, created, with_private=True)


@router.post("/users/{user_id}/personal_access_tokens", status_code=201)
def create_personal_access_token(request: Request, session: SessionDep, admin: AdminUserDep, params: ParamsDep,
                                 user_id: int):
    target = session.get(User, user_id) if 0 <= user_id <= MAX_ROW_ID else None
    if target is None:
        raise http_errors.not_found("User")
    params.require("name", "scopes")
    scopes = params.list("scopes") or []
    if not scopes:
        raise http_errors.empty_param("scopes")
    if any(scope not in service.AVAILABLE_SCOPES for scope in scopes):
        raise http_errors.validation_error({"scopes": ["can only contain available scopes"]})
    expires_at = _parse_date(params.str("expires_at"), "expires_at")
    pat, plaintext = service.create_token(session, user=target, name=params.str("name"), scopes=scopes,
                                          expires_at=expires_at, secret_key=request.app.state.secret_key)
    session.commit()
    return token_entity(pat, plaintext=plaintext)


@router.get("/personal_access_tokens")
def list_personal_access_tokens(request: Request, response: Response, session: SessionDep, user: CurrentUserDep,
                                params: ParamsDep):
    stmt = select(PersonalAccessToken).order_by(PersonalAccessToken.id)
    user_id = params.int("user_id")
    if not user.is_admin:
        stmt = stmt.where(PersonalAccessToken.user_id == user.id)
    elif user_id is not None:
        stmt = stmt.where(PersonalAccessToken.user_id == user_id)
    return [token_entity(pat) for pat in paginate(session, stmt, request, response)]


@router.delete("/personal_access_tokens/{token_id}", status_code=204)
def revoke_personal_access_token(request: Request, session: SessionDep, user: CurrentUserDep, token_id: str):
    if token_id == "self":
        pat = session.scalar(select(PersonalAccessToken).where(PersonalAccessToken.user_id == user.id,
                                                                PersonalAccessToken.token_digest == _current_digest(request)))
    else:
        pat = session.get(PersonalAccessToken, row_id) if (row_id := parse_id(token_id)) is not None else None
    if pat is None or (pat.user_id != user.id and not user.is_admin):
        raise http_errors.not_found("PersonalAccessToken")
    pat.revoked = True
    session.commit()
    return Response(status_code=204)


def _current_digest(request: Request) -> str:
    return token_digest(extract_token(request) or "", request.app.state.secret_key)


# --- groups -------------------------------------------------------------------------------

@router.get("/groups")
def list_groups(request: Request, response: Response, session: SessionDep, user: OptionalUserDep, params: ParamsDep):
    stmt = service.visible_groups_stmt(session, user)
    if search := params.str("search"):
        stmt = stmt.where(or_(Group.name.ilike(f"%{search}%"), Group.full_path.ilike(f"%{search}%")))
    return [group_entity(request, g) for g in paginate(session, stmt, request, response)]


@router.get("/groups/{group_id}")
def get_group(request: Request, session: SessionDep, user: OptionalUserDep, group_id: str):
    return group_entity(request, service.find_group_for(session, group_id, user))


@router.post("/groups", status_code=201)
def create_group(request: Request, session: SessionDep, user: CurrentUserDep, params: ParamsDep):
    params.require("name", "path")
    visibility = params.choice("visibility", VISIBILITIES, "private")
    parent = None
    if (parent_id := params.int("parent_id")) is not None:
        parent = service.find_group_for(session, parent_id, user, access.MAINTAINER)
    group = service.create_group(session, name=params.str("name"), path=params.str("path"), creator=user,
                                 parent=parent, visibility=visibility, description=params.str("description", ""))
    session.commit()
    return group_entity(request, group)


# --- projects -----------------------------------------------------------------------------

@router.get("/projects")
def list_projects(request: Request, response: Response, session: SessionDep, user: OptionalUserDep, params: ParamsDep):
    stmt = service.visible_projects_stmt(session, user)
    if params.bool("membership") and user is not None:
        member_of = {p.id for p in service.projects_with_access(session, user, access.GUEST)} if not user.is_admin \
            else set(session.scalars(select(ProjectMember.project_id).where(ProjectMember.user_id == user.id)))
        stmt = stmt.where(Project.id.in_(member_of))
    if search := params.str("search"):
        stmt = stmt.where(or_(Project.name.ilike(f"%{search}%"), Project.full_path.ilike(f"%{search}%")))
    return [project_entity(request, p) for p in paginate(session, stmt, request, response)]


@router.get("/projects/{project_id}")
def get_project(request: Request, session: SessionDep, user: OptionalUserDep, project_id: str):
    return project_entity(request, service.find_project_for(session, project_id, user))


@router.post("/projects", status_code=201)
def create_project(request: Request, session: SessionDep, user: CurrentUserDep, params: ParamsDep):
    name, path = params.str("name"), params.str("path")
    if not name and not path:
        raise http_errors.ApiError(400, {"error": "name, path are missing, at least one parameter must be provided"})
    visibility = params.choice("visibility", VISIBILITIES, "private")
    group = None
    if (namespace_id := params.int("namespace_id")) is not None and namespace_id != user.id:
        group = service.find_group_for(session, namespace_id, user, access.MAINTAINER)
    project = service.create_project(session, name=name or path, path=path or service.slugify_path(name),
                                     creator=user, group=group, visibility=visibility,
                                     description=params.str("description", ""))
    session.commit()
    return project_entity(request, project)


@router.put("/projects/{project_id}")
def update_project(request: Request, session: SessionDep, user: CurrentUserDep, params: ParamsDep, project_id: str):
    project = service.find_project_for(session, project_id, user, access.MAINTAINER)
    if params.str("name") is not None:
        project.name = params.str("name")
    if params.str("description") is not None:
        project.description = params.str("description")
    if (visibility := params.choice("visibility", VISIBILITIES)) is not None:
        project.visibility = visibility
    if (monitor := params.choice("monitor_access_level", ("disabled", "private", "enabled"))) is not None:
        project.monitor_access_level = monitor
    session.commit()
    return project_entity(request, project)


# --- members ------------------------------------------------------------------------------

def _member_target(session, user, kind: str, ident: str, *, manage: bool):
    # Project maintainers manage project members; only owners manage a group's members.
    if kind == "projects":
        return service.find_project_for(session, ident, user, access.MAINTAINER if manage else access.NO_ACCESS)
    return service.find_group_for(session, ident, user, access.OWNER if manage else access.NO_ACCESS)


def _member_query(target):
    if isinstance(target, Project):
        return select(ProjectMember).where(ProjectMember.project_id == target.id).order_by(ProjectMember.id)
    return select(GroupMember).where(GroupMember.group_id == target.id).order_by(GroupMember.id)


for _kind in ("projects", "groups"):

    def _bind(kind: str) -> None:
        @router.get(f"/{kind}/{{ident}}/members", name=f"list_{kind}_members")
        def list_members(request: Request, response: Response, session: SessionDep, user: CurrentUserDep,
                         ident: str):
            target = _member_target(session, user, kind, ident, manage=False)
            return [member_entity(request, m) for m in paginate(session, _member_query(target), request, response)]

        @router.get(f"/{kind}/{{ident}}/members/{{user_id}}", name=f"get_{kind}_member")
        def get_member(request: Request, session: SessionDep, user: CurrentUserDep, ident: str, user_id: int):
            target = _member_target(session, user, kind, ident, manage=False)
            member = _find_member(session, target, user_id)
            if member is None:
                raise http_errors.not_found("Member")
            return member_entity(request, member)

        @router.post(f"/{kind}/{{ident}}/members", status_code=201, name=f"add_{kind}_member")
        def create_member(request: Request, session: SessionDep, user: CurrentUserDep, params: ParamsDep,
                          ident: str):
            target = _member_target(session, user, kind, ident, manage=True)
            params.require("access_level")
            if params.raw("user_id") is None and params.raw("username") is None:
                raise http_errors.ApiError(400, {"error": "user_id, username are missing, exactly one parameter must be provided"})
            level = params.int("access_level")
            if level not in access.VALID_LEVELS:
                raise http_errors.invalid_value("access_level")
            if params.raw("user_id") is not None:
                member_user = session.get(User, params.int("user_id"))
            else:
                member_user = session.scalar(select(User).where(User.username == params.str("username")))
            if member_user is None:
                raise http_errors.not_found("User")
            expires_at = _parse_date(params.str("expires_at"), "expires_at")
            member = service.add_member(session, target=target, user=member_user, access_level=level,
                                        expires_at=expires_at)
            session.commit()
            return member_entity(request, member)

        @router.delete(f"/{kind}/{{ident}}/members/{{user_id}}", status_code=204, name=f"remove_{kind}_member")
        def delete_member(session: SessionDep, user: CurrentUserDep, ident: str, user_id: int):
            target = _member_target(session, user, kind, ident, manage=True)
            member = _find_member(session, target, user_id)
            if member is None:
                raise http_errors.not_found("Member")
            session.delete(member)
            session.commit()
            return Response(status_code=204)

    _bind(_kind)


def _find_member(session, target, user_id: int):
    if not -MAX_ROW_ID <= user_id <= MAX_ROW_ID:  # no such id column value
        return None
    return session.scalars(_member_query(target).where(_member_user_column(target) == user_id)).first()


def _member_user_column(target):
    return ProjectMember.user_id if isinstance(target, Project) else GroupMember.user_id


def _parse_date(value: str | None, name: str) -> dt.date | None:
    if value is None or value == "":
        return None
    try:
        return dt.date.fromisoformat(value[:10])
    except ValueError:
        raise http_errors.invalid_param(name) from None

