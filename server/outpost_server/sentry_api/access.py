"""Who is calling and what they may reach: bearer tokens, Sentry scopes, organizations and projects.

A personal access token is the auth token: `read_api` gives `project:read` and `event:read`, `api`
adds `event:write`. The organization slug is the project's top-level namespace and the project slug
its path below it, with `~` between the paths of nested groups (`acme/platform/api` is organization
`acme`, project `platform~api`): `~` cannot occur in a path, so every project has exactly one slug.
Failures answer Sentry's `{"detail": ...}` bodies.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Annotated

from fastapi import Depends, Request
from sqlalchemy.orm import Session

from outpost_server import http_errors
from outpost_server.accounts.models import Project, User
from outpost_server.accounts.service import find_project, visible_projects_stmt
from outpost_server.auth import TokenRefused, admit, resolve_token
from outpost_server.db import SessionDep, parse_id
from outpost_server.error_tracking.access import may_manage, may_read, may_triage
from outpost_server.error_tracking.models import TrackedError
from outpost_server.error_tracking.read.tracked_errors import merged_target

NOT_FOUND = "The requested resource does not exist"
NO_PERMISSION = "You do not have permission to perform this action."
SLUG_SEPARATOR = "~"
READ_SCOPES = frozenset({"org:read", "project:read", "event:read"})
WRITE_SCOPES = READ_SCOPES | {"event:write"}
# Sentry's bodies for a refused token; any other reason is a user who is not active.
SENTRY_REFUSALS = {"unknown": "Invalid token", "revoked": "Invalid token", "expired": "Token expired"}


def detail(status: int, text: str) -> http_errors.ApiError:
    return http_errors.ApiError(status, {"detail": text})


def not_found() -> http_errors.ApiError:
    return detail(404, NOT_FOUND)


@dataclass(frozen=True)
class Caller:
    user: User
    scopes: frozenset[str]

    def require(self, scope: str) -> None:
        if scope not in self.scopes:
            raise detail(403, NO_PERMISSION)


def sentry_scopes(token_scopes: list[str]) -> frozenset[str]:
    if "api" in token_scopes:
        return WRITE_SCOPES
    if "read_api" in token_scopes:
        return READ_SCOPES
    return frozenset()


def authenticate(request: Request, session: SessionDep) -> Caller:
    scheme, _, credentials = request.headers.get("authorization", "").partition(" ")
    if scheme.lower() != "bearer" or not credentials.strip():
        raise detail(401, "Authentication credentials were not provided.")
    try:
        token = resolve_token(request, session, credentials.strip())
    except TokenRefused as refused:
        raise detail(401, SENTRY_REFUSALS.get(refused.reason, "User inactive or deleted")) from None
    assert token is not None
    admit(request, token)
    return Caller(token.user, sentry_scopes(list(token.scopes)))


CallerDep = Annotated[Caller, Depends(authenticate)]


# --- organizations and projects -------------------------------------------------------------


def slugs_of(project: Project) -> tuple[str, str]:
    """(organization slug, project slug)."""
    organization, *below = project.full_path.split("/")
    return organization, SLUG_SEPARATOR.join(below)


def project_for(session: Session, caller: Caller, organization: str, project_slug: str) -> Project:
    caller.require("project:read")
    full_path = f"{organization}/{project_slug.replace(SLUG_SEPARATOR, '/')}"
    project = find_project(session, full_path) if "/" not in project_slug else None
    if project is None or not may_read(session, caller.user, project):
        raise not_found()
    return project


def may_release(session: Session, caller: Caller, project: Project) -> bool:
    """Sentry's release permission (source maps): error tracking's manage rule, for packages that
    sit below error tracking and so reach it through this module."""
    return may_manage(session, caller.user, project)


def readable_projects(session: Session, caller: Caller) -> list[Project]:
    caller.require("project:read")
    return [project for project in session.scalars(visible_projects_stmt(session, caller.user))
            if may_read(session, caller.user, project)]


def issue_for(session: Session, caller: Caller, issue_id: str, scope: str = "event:read"
              ) -> tuple[Project, TrackedError]:
    caller.require(scope)
    row_id = parse_id(issue_id)
    error = session.get(TrackedError, row_id) if row_id is not None else None
    project = session.get(Project, error.project_id) if error is not None else None
    if error is None or project is None or not may_read(session, caller.user, project):
        raise not_found()
    if scope == "event:write":
        require_triage(session, caller, project)
    # A merged issue's id answers as the issue it joined, as Sentry's GroupRedirect does.
    return project, merged_target(session, error)


def project_scopes(session: Session, caller: Caller, project: Project) -> frozenset[str]:
    """The token's scopes the caller may use on the project: event:write only where they may triage."""
    if may_triage(session, caller.user, project):
        return caller.scopes
    return caller.scopes - {"event:write"}


def require_triage(session: Session, caller: Caller, project: Project) -> None:
    """GitLab's update_sentry_issue (Developer or more) on top of the token's event:write: Sentry's 403."""
    caller.require("event:write")
    if not may_triage(session, caller.user, project):
        raise detail(403, NO_PERMISSION)
