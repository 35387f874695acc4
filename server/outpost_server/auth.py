"""Authentication as GitLab's API guard does it.

The token comes from the private_token parameter, the PRIVATE-TOKEN header or
"Authorization: Bearer". Scope api allows everything, read_api only GET and HEAD.
"""

from __future__ import annotations

import datetime as dt
from dataclasses import dataclass
from typing import Annotated

from fastapi import Depends, Request
from sqlalchemy.orm import Session

from outpost_server import http_errors
from outpost_server.accounts.models import PersonalAccessToken, User
from outpost_server.accounts.users import note_token_use, token_by_digest
from outpost_server.db import SessionDep
from outpost_server.security import token_digest

READ_METHODS = ("GET", "HEAD")
SELF_TOKEN_PATH = "/api/v4/personal_access_tokens/self"
# Gitlab::Auth::UserAccessDeniedReason's messages for users who may not use the API.
ACCESS_DENIED = {
    "blocked": "Your account has been blocked.",
    "deactivated": "Your account has been deactivated by your administrator. "
                   "Please log back in to reactivate your account.",
}


@dataclass(frozen=True)
class Principal:
    user: User
    token: PersonalAccessToken


def _invalid_token(description: str) -> http_errors.ApiError:
    return http_errors.ApiError(
        401,
        {"error": "invalid_token", "error_description": description},
        {"WWW-Authenticate": f'Bearer realm="", error="invalid_token", error_description="{description}"'},
    )


def _insufficient_scope() -> http_errors.ApiError:
    description = "The request requires higher privileges than provided by the access token."
    return http_errors.ApiError(
        403,
        {"error": "insufficient_scope", "error_description": description, "scope": "api read_api"},
        {"WWW-Authenticate": f'Bearer realm="", error="insufficient_scope", error_description="{description}", '
                             'scope="api read_api"'},
    )


def extract_token(request: Request) -> str | None:
    token = request.query_params.get("private_token") or request.headers.get("private-token")
    if token:
        return token
    authorization = request.headers.get("authorization", "")
    scheme, _, credentials = authorization.partition(" ")
    if scheme.lower() == "bearer" and credentials.strip():
        return credentials.strip()
    return request.query_params.get("access_token")


def _scope_allows(scopes: set[str], request: Request) -> bool:
    if "api" in scopes or ("read_api" in scopes and request.method in READ_METHODS):
        return True
    path = request.url.path
    # GitLab's SelfInformation API takes a token of any scope; self-rotation also takes self_rotate.
    if path == SELF_TOKEN_PATH and scopes:
        return True
    return path == SELF_TOKEN_PATH + "/rotate" and request.method == "POST" and "self_rotate" in scopes


def valid_token(request: Request, session: Session) -> PersonalAccessToken | None:
    """The request's token when it is valid and its user active; None without a token.

    Raises GitLab's 401 for an unknown, revoked or expired token and 403 for a user who is not active.
    Scopes are the caller's to check (the REST API and GraphQL allow different ones).
    """
    token = extract_token(request)
    if token is None:
        return None
    digest = token_digest(token, request.app.state.secret_key)
    pat = token_by_digest(session, digest)
    if pat is None or pat.revoked or pat.is_expired(dt.date.today()):
        _count_failure(request)
    if pat is None:
        raise http_errors.unauthorized()
    if pat.revoked:
        raise _invalid_token("Token was revoked. You have to re-authorize from the user.")
    if pat.is_expired(dt.date.today()):
        raise _invalid_token("Token is expired. You can either do re-authorization or token refresh.")
    if pat.user.state != "active":
        raise http_errors.forbidden(ACCESS_DENIED.get(pat.user.state))
    return pat


def _count_failure(request: Request) -> None:
    """Failed authentications count towards the address's ban (auth_bans.py)."""
    bans = getattr(request.app.state, "auth_bans", None)
    if bans is not None:
        bans.failed(request.client.host if request.client else None)


def authenticate(request: Request, session: SessionDep) -> Principal | None:
    pat = valid_token(request, session)
    if pat is None:
        return None
    if not _scope_allows(set(pat.scopes), request):
        raise _insufficient_scope()
    note_token_use(pat)
    request.state.user_id = pat.user_id
    return Principal(user=pat.user, token=pat)


def require_user(principal: Annotated[Principal | None, Depends(authenticate)]) -> User:
    if principal is None:
        raise http_errors.unauthorized()
    return principal.user


def require_admin(user: Annotated[User, Depends(require_user)]) -> User:
    if not user.is_admin:
        raise http_errors.forbidden()
    return user


def optional_user(principal: Annotated[Principal | None, Depends(authenticate)]) -> User | None:
    return principal.user if principal else None


OptionalUserDep = Annotated[User | None, Depends(optional_user)]
CurrentUserDep = Annotated[User, Depends(require_user)]
AdminUserDep = Annotated[User, Depends(require_admin)]
PrincipalDep = Annotated[Principal | None, Depends(authenticate)]
