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
from outpost_server.auth_bans import BanList
from outpost_server.db import SessionDep
from outpost_server.deps import services_of
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


class TokenRefused(Exception):
    """A presented token that may not be used; each API answers it with its own body.

    `reason` is "unknown", "revoked", "expired" or, for a user who is not active, the user's state.
    """

    def __init__(self, reason: str):
        super().__init__(reason)
        self.reason = reason

    @property
    def user_inactive(self) -> bool:
        return self.reason not in ("unknown", "revoked", "expired")


def resolve_token(request: Request, session: Session, secret: str | None) -> PersonalAccessToken | None:
    """The one lookup of a token for every API (REST, GraphQL, Sentry's): None without a token.

    Raises TokenRefused for an unknown, revoked or expired token and for a user who is not active;
    the first three count towards the address's ban (auth_bans.py). Scopes are the caller's to check,
    and the caller calls `admit` once they pass.
    """
    if secret is None:
        return None
    pat = token_by_digest(session, token_digest(secret, services_of(request.app).secret_key))
    if pat is None:
        raise _counted(request, TokenRefused("unknown"))
    if pat.revoked:
        raise _counted(request, TokenRefused("revoked"))
    if pat.is_expired(dt.date.today()):
        raise _counted(request, TokenRefused("expired"))
    if pat.user.state != "active":
        raise TokenRefused(pat.user.state)
    return pat


def _counted(request: Request, refused: TokenRefused) -> TokenRefused:
    """Failed authentications count towards the address's ban (auth_bans.py)."""
    services_of(request.app).part(BanList).failed(request.client.host if request.client else None)
    return refused


def admit(request: Request, pat: PersonalAccessToken) -> None:
    """The token is used: last_used_at moves and the request log names its user."""
    note_token_use(pat)
    request.state.user_id = pat.user_id


def _rest_refusal(refused: TokenRefused) -> http_errors.ApiError:
    """GitLab's API guard bodies."""
    if refused.reason == "unknown":
        return http_errors.unauthorized()
    if refused.reason == "revoked":
        return _invalid_token("Token was revoked. You have to re-authorize from the user.")
    if refused.reason == "expired":
        return _invalid_token("Token is expired. You can either do re-authorization or token refresh.")
    return http_errors.forbidden(ACCESS_DENIED.get(refused.reason))


def authenticate(request: Request, session: SessionDep) -> Principal | None:
    try:
        pat = resolve_token(request, session, extract_token(request))
    except TokenRefused as refused:
        raise _rest_refusal(refused) from None
    if pat is None:
        return None
    if not _scope_allows(set(pat.scopes), request):
        raise _insufficient_scope()
    admit(request, pat)
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
