"""Who may upload and manage source maps: Sentry's release permission mapped onto GitLab roles.

Reading needs what Sentry's web API needs (a readable project); uploading, creating releases and
deleting need a token with scope `api` and Maintainer or more on the project (a Developer gets
Sentry's 403). Organization endpoints (chunk upload, assemble) need Maintainer on at least one of the
organization's projects; assemble then checks each project it names and answers Sentry's 404 for
one the caller may not release to.
"""

from __future__ import annotations

from typing import Any

from sqlalchemy.orm import Session

from outpost_server.accounts.models import Project
from outpost_server.sentry_api.access import (
    NO_PERMISSION,
    SLUG_SEPARATOR,
    Caller,
    detail,
    may_release,
    not_found,
    project_for,
    readable_projects,
    slugs_of,
)

UPLOAD_SCOPE = "event:write"


def organization_projects(session: Session, caller: Caller, organization: str) -> list[Project]:
    """The organization's projects the caller may read; 404 when there are none (an unknown slug)."""
    projects = [project for project in readable_projects(session, caller) if slugs_of(project)[0] == organization]
    if not projects:
        raise not_found()
    return projects


def require_release_access(session: Session, caller: Caller, organization: str) -> list[Project]:
    """The organization's projects the caller may release to; 403 when none (or a read-only token)."""
    projects = organization_projects(session, caller, organization)
    if UPLOAD_SCOPE not in caller.scopes:
        raise detail(403, NO_PERMISSION)
    allowed = [project for project in projects if may_release(session, caller, project)]
    if not allowed:
        raise detail(403, NO_PERMISSION)
    return allowed


def releasable_project(session: Session, caller: Caller, organization: str, project_slug: str) -> Project:
    """A project the caller may upload to: 404 when unreadable, 403 below Maintainer."""
    project = project_for(session, caller, organization, project_slug)
    if UPLOAD_SCOPE not in caller.scopes or not may_release(session, caller, project):
        raise detail(403, NO_PERMISSION)
    return project


def multipart_body(*fields: tuple[str, str]) -> dict[str, Any]:
    """The `openapi_extra` of an upload read as multipart/form-data: (name, "binary" or "string") fields."""
    properties = {name: {"type": "string", **({"format": "binary"} if kind == "binary" else {})}
                  for name, kind in fields}
    return {"requestBody": {"content": {"multipart/form-data": {"schema": {"type": "object",
                                                                           "properties": properties}}}}}


def named_projects(allowed: list[Project], names: list[str]) -> list[Project] | None:
    """The projects named by slug or id among `allowed`; None when any name matches none."""
    found = []
    for name in dict.fromkeys(names):
        match = [project for project in allowed
                 if str(project.id) == name or slugs_of(project)[1] == name.replace("/", SLUG_SEPARATOR)]
        if not match:
            return None
        found.append(match[0])
    return found
