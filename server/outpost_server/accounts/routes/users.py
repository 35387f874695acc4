"""GitLab's /version, /user and /users endpoints: reading, creating, changing, blocking and deleting users."""

from __future__ import annotations

from fastapi import APIRouter, Request, Response
from sqlalchemy.orm import Session

from outpost_model.instance import Kas, Version
from outpost_server import __version__, http_errors
from outpost_server.accounts import users
from outpost_server.accounts.entities import new_token_entity, user_entity
from outpost_server.accounts.models import User
from outpost_server.auth import AdminUserDep, CurrentUserDep, OptionalUserDep
from outpost_server.db import SessionDep
from outpost_server.deps import SecretKeyDep
from outpost_server.entity_json import EntityResponse
from outpost_server.pagination import paginate, paginated
from outpost_server.params import Param, Params, ParamsDep, body_params

router = APIRouter(tags=["users"])

GITLAB_COMPATIBLE_VERSION = "18.6.0"
MIN_PASSWORD_LENGTH = 8
USER_FIELDS = (Param("email"), Param("username"), Param("name"), Param("password"), Param("admin", "boolean"),
               Param("can_create_group", "boolean"), Param("projects_limit", "integer"), Param("bio"))


@router.get("/version")
def get_version(user: CurrentUserDep) -> Response:
    return EntityResponse(Version(
        version=GITLAB_COMPATIBLE_VERSION, revision=f"outpost-{__version__}",
        kas=Kas(enabled=False, externalUrl=None, externalK8sProxyUrl=None, version=None), enterprise=True))


@router.get("/user")
def get_current_user(request: Request, user: CurrentUserDep) -> Response:
    return EntityResponse(user_entity(request, user, with_private=True))


@router.get("/users", openapi_extra=paginated(
    Param("username"), Param("search"), Param("order_by", choices=users.USER_ORDERS, default="id"),
    Param("sort", choices=("asc", "desc"), default="desc")))
def list_users(request: Request, response: Response, session: SessionDep, user: OptionalUserDep,
               params: ParamsDep) -> Response:
    username = params.str("username")
    # GitLab lets anonymous callers look up one user by username, but not list everyone.
    if user is None and not username:
        raise http_errors.forbidden("Not authorized to access /api/v4/users")
    stmt = users.users_stmt(username=username, search=params.str("search"), order_by=params.str("order_by", "id"),
                            sort=params.str("sort", "desc"))
    with_private = user is not None and user.is_admin
    rows = paginate(session, stmt, params, request, response)
    return EntityResponse([user_entity(request, u, with_private=with_private) for u in rows],
                          headers=response.headers)


def _user(session: Session, user_id: str | int) -> User:
    target = users.find_user(session, user_id)
    if target is None:
        raise http_errors.not_found("User")
    return target


@router.get("/users/{user_id}")
def get_user(request: Request, session: SessionDep, user: OptionalUserDep, user_id: str) -> Response:
    if user is None:
        raise http_errors.forbidden("Not authorized!")
    target = _user(session, user_id)
    return EntityResponse(user_entity(request, target, with_private=user.is_admin or target.id == user.id))


def _checked_password(params: Params) -> str | None:
    password = params.str("password")
    if password is not None and len(password) < MIN_PASSWORD_LENGTH:
        raise http_errors.validation_error(
            {"password": [f"is too short (minimum is {MIN_PASSWORD_LENGTH} characters)"]})
    return password


@router.post("/users", status_code=201, openapi_extra=body_params(
    *(Param(field.name, field.kind, required=field.name in ("email", "name", "username")) for field in USER_FIELDS),
    Param("reset_password", "boolean"), Param("force_random_password", "boolean")))
def create_user(request: Request, session: SessionDep, admin: AdminUserDep, params: ParamsDep) -> Response:
    password = _checked_password(params)
    if password is None and not params.bool("reset_password") and not params.bool("force_random_password"):
        raise http_errors.ApiError(400, {"error": "password, reset_password, force_random_password are missing, "
                                             "exactly one parameter must be provided"})
    created = users.create_user(session, username=params.str("username", ""), name=params.str("name", ""),
                                email=params.str("email", ""), password=password,
                                is_admin=bool(params.bool("admin", False)),
                                can_create_group=bool(params.bool("can_create_group", True)),
                                projects_limit=params.int("projects_limit", 100_000), bio=params.str("bio", ""))
    return EntityResponse(user_entity(request, created, with_private=True), status_code=201)


@router.put("/users/{user_id}", openapi_extra=body_params(*USER_FIELDS))
def update_user(request: Request, session: SessionDep, admin: AdminUserDep, params: ParamsDep,
                user_id: str) -> Response:
    """What python-gitlab's User.save() sends: the changed attributes."""
    target = _user(session, user_id)
    for name in ("email", "username", "name"):
        if name in params and not params.str(name):
            raise http_errors.empty_param(name)
    changes = users.UserChanges(name=params.str("name"), username=params.str("username"), email=params.str("email"),
                                is_admin=params.bool("admin"), can_create_group=params.bool("can_create_group"),
                                projects_limit=params.int("projects_limit"), bio=params.str("bio"),
                                password=_checked_password(params))
    return EntityResponse(user_entity(request, users.update_user(session, user=target, changes=changes),
                                      with_private=True))


@router.delete("/users/{user_id}", status_code=204,
               openapi_extra=body_params(Param("hard_delete", "boolean", default=False)))
def delete_user(session: SessionDep, admin: AdminUserDep, params: ParamsDep, user_id: str) -> Response:
    target = _user(session, user_id)
    users.delete_user(session, user=target, hard_delete=bool(params.bool("hard_delete", False)))
    return Response(status_code=204)


def _state_answer(result: bool | None) -> EntityResponse:
    # GitLab answers these POSTs 201 with `true`, `false`, or an empty (null) body when nothing changed.
    return EntityResponse(result, status_code=201)


@router.post("/users/{user_id}/block", status_code=201)
def block_user(session: SessionDep, admin: AdminUserDep, user_id: str) -> Response:
    return _state_answer(users.block(session, actor=admin, user=_user(session, user_id)))


@router.post("/users/{user_id}/unblock", status_code=201)
def unblock_user(session: SessionDep, admin: AdminUserDep, user_id: str) -> Response:
    return _state_answer(users.unblock(session, user=_user(session, user_id)))


@router.post("/users/{user_id}/deactivate", status_code=201)
def deactivate_user(session: SessionDep, admin: AdminUserDep, user_id: str) -> Response:
    return _state_answer(users.deactivate(session, user=_user(session, user_id)))


@router.post("/users/{user_id}/activate", status_code=201)
def activate_user(session: SessionDep, admin: AdminUserDep, user_id: str) -> Response:
    return _state_answer(users.activate(session, user=_user(session, user_id)))


@router.post("/users/{user_id}/personal_access_tokens", status_code=201, openapi_extra=body_params(
    Param("name", required=True), Param("scopes", "array", required=True), Param("expires_at")))
def create_personal_access_token(session: SessionDep, admin: AdminUserDep, params: ParamsDep, secret_key: SecretKeyDep,
                                 user_id: int) -> Response:
    target = _user(session, user_id)
    scopes = params.list("scopes") or []
    if not scopes:
        raise http_errors.empty_param("scopes")
    if any(scope not in users.AVAILABLE_SCOPES for scope in scopes):
        raise http_errors.validation_error({"scopes": ["can only contain available scopes"]})
    pat, plaintext = users.create_token(session, user=target, name=params.str("name", ""), scopes=scopes,
                                        expires_at=params.date("expires_at"), secret_key=secret_key)
    return EntityResponse(new_token_entity(pat, plaintext), status_code=201)
