"""Authentication as GitLab's API guard does it.

The token comes from the private_token parameter, the PRIVATE-TOKEN header or
"Authorization: Bearer". Scope api allows everything, read_api only GET and HEAD.
"""

from __future__ import annotations

import datetime as dt
from dataclasses import dataclass
from typing import Annotated

from fastapi import Depends, Request
from sqlalchemy import select
from sqlalchemy.orm import Session

from outpost_server import errors
from outpost_server.accounts.models import PersonalAccessToken, User
from outpost_server.db import SessionDep, utcnow
from outpost_server.security import token_digest

READ_METHODS = ("GET", "HEAD")


@dataclass(frozen=True)
class Principal:
    user: User
    token: PersonalAccessToken


def _invalid_token(description: str) -> errors.ApiError:
    return errors.ApiError(
        401,
        {"error": "invalid_token", "error_description": description},
        {"WWW-Authenticate": f'Bearer realm="", error="invalid_token", error_description="{description}"'},
    )


def _insufficient_scope() -> errors.ApiError:
    description = "The request requires higher privileges than provided by the access token."
    return errors.ApiError(
        403,
        {"error": "insufficient_scope", "error_description": description, "scope": "api read_api"},
        {"WWW-Authenticate": f'Bearer realm="", error="insufficient_scope", error_description="{description}", scope="api read_api"'},
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


def valid_token(request: Request, session: Session) -> PersonalAccessToken | None:
    """The request's token when it is valid and its user active; None without a token.

    Raises GitLab's 401 for an unknown, revoked or expired token and 403 for a user who is not active.
    """
    token = extract_token(request)
    if token is None:
        return None
    digest = token_digest(token, request.app.state.secret_key)
    pat = session.scalars(select(PersonalAccessToken).where(PersonalAccessToken.token_digest == digest)).first()
    if pat is None:
        raise errors.unauthorized()
    if pat.revoked:
        raise _invalid_token("Token was revoked. You have to re-authorize from the user.")
    if pat.is_expired(dt.date.today()):
        raise _invalid_token("Token is expired. You can either do re-authorization or token refresh.")
    if pat.user.state != "active":
        raise errors.forbidden()
    request.state.user_id = pat.user_id
    return pat


def authenticate(request: Request, session: SessionDep) -> Principal | None:
    pat = valid_token(request, session)
    if pat is None:
        return None
    scopes = set(pat.scopes)
    allowed = "api" in scopes or ("read_api" in scopes and request.method in READ_METHODS)
    if not allowed:
        raise _insufficient_scope()
    return Principal(user=pat.user, token=pat)


def require_user(principal: Annotated[Principal | None, Depends(authenticate)]) -> User:
    if principal is None:
        raise errors.unauthorized()
    return principal.user


def require_admin(user: Annotated[User, Depends(require_user)]) -> User:
    if not user.is_admin:
        raise errors.forbidden()
    return user


def optional_user(principal: Annotated[Principal | None, Depends(authenticate)]) -> User | None:
    return principal.user if principal else None


OptionalUserDep = Annotated[User | None, Depends(optional_user)]
CurrentUserDep = Annotated[User, Depends(require_user)]
AdminUserDep = Annotated[User, Depends(require_admin)]
PrincipalDep = Annotated[Principal | None, Depends(authenticate)]
