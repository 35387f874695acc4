"""GitLab's /personal_access_tokens endpoints: list, read, revoke and rotate, by id or as "self"."""

from __future__ import annotations

from fastapi import APIRouter, Request, Response
from sqlalchemy.orm import Session

from outpost_server import http_errors
from outpost_server.accounts import users
from outpost_server.accounts.entities import new_token_entity, token_entity
from outpost_server.accounts.models import PersonalAccessToken, User
from outpost_server.auth import CurrentUserDep, PrincipalDep
from outpost_server.db import SessionDep
from outpost_server.deps import SecretKeyDep
from outpost_server.entity_json import EntityResponse
from outpost_server.pagination import paginate, paginated
from outpost_server.params import Param, ParamsDep, body_params

router = APIRouter(tags=["personal_access_tokens"])
ROTATE_BODY = body_params(Param("expires_at"))


TIMES = ("created_before", "created_after", "last_used_before", "last_used_after")


@router.get("/personal_access_tokens", openapi_extra=paginated(
    Param("user_id", "integer"), Param("state", choices=("active", "inactive")), Param("revoked", "boolean"),
    Param("search"), *(Param(name, "datetime") for name in TIMES)))
def list_personal_access_tokens(request: Request, response: Response, session: SessionDep, user: CurrentUserDep,
                                params: ParamsDep) -> Response:
    user_id = params.int("user_id")
    times = {name: params.datetime(name) for name in TIMES}
    if not user.is_admin and user_id is not None and user_id != user.id:
        raise http_errors.unauthorized()  # GitLab's restrict_non_admins!
    if user.is_admin and user_id is not None and users.find_user(session, user_id) is None:
        raise http_errors.not_found()
    filters = users.TokenFilter(user_id=user_id if user.is_admin else user.id, state=params.str("state"),
                                revoked=params.bool("revoked"), search=params.str("search"), **times)
    rows = paginate(session, users.tokens_stmt(filters=filters), params, request, response)
    return EntityResponse([token_entity(pat) for pat in rows], headers=response.headers)


def _current_token(principal) -> PersonalAccessToken:
    if principal is None:
        raise http_errors.unauthorized()
    return principal.token


def _token_for(session: Session, user: User, token_id: str) -> PersonalAccessToken:
    """A token the user may manage; only administrators learn that an id does not exist (401 vs 404)."""
    token = users.find_token(session, token_id)
    if token is not None and (token.user_id == user.id or user.is_admin):
        return token
    raise http_errors.not_found() if user.is_admin else http_errors.unauthorized()


@router.get("/personal_access_tokens/self")
def get_own_token(principal: PrincipalDep) -> Response:
    return EntityResponse(token_entity(_current_token(principal)))


@router.get("/personal_access_tokens/{token_id}")
def get_personal_access_token(session: SessionDep, user: CurrentUserDep, token_id: str) -> Response:
    return EntityResponse(token_entity(_token_for(session, user, token_id)))


@router.delete("/personal_access_tokens/self", status_code=204)
def revoke_own_token(session: SessionDep, principal: PrincipalDep) -> Response:
    users.revoke_token(session, token=_current_token(principal))
    return Response(status_code=204)


@router.delete("/personal_access_tokens/{token_id}", status_code=204)
def revoke_personal_access_token(session: SessionDep, user: CurrentUserDep, token_id: str) -> Response:
    token = users.find_token(session, token_id)
    if token is None:
        raise http_errors.record_not_found()
    if token.user_id != user.id and not user.is_admin:
        raise http_errors.bad_request()  # GitLab's RevokeService refuses; the API answers a bare 400
    users.revoke_token(session, token=token)
    return Response(status_code=204)


@router.post("/personal_access_tokens/self/rotate", openapi_extra=ROTATE_BODY)
def rotate_own_token(session: SessionDep, principal: PrincipalDep, params: ParamsDep,
                     secret_key: SecretKeyDep) -> Response:
    return _rotate(secret_key, session, _current_token(principal), params)


@router.post("/personal_access_tokens/{token_id}/rotate", openapi_extra=ROTATE_BODY)
def rotate_personal_access_token(session: SessionDep, user: CurrentUserDep, params: ParamsDep, secret_key: SecretKeyDep,
                                 token_id: str) -> Response:
    return _rotate(secret_key, session, _token_for(session, user, token_id), params)


def _rotate(secret_key: str, session: Session, token: PersonalAccessToken, params) -> EntityResponse:
    new_token, plaintext = users.rotate_token(session, token=token, secret_key=secret_key,
                                              expires_at=params.date("expires_at"))
    return EntityResponse(new_token_entity(new_token, plaintext))
