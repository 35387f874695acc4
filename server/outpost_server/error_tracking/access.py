"""Who may read and who may manage a project's error tracking, for every path that serves it.

GitLab's `read_sentry_issue` (reading errors: Reporter or more), `update_sentry_issue` (triage: status,
assignment, merge and ignore conditions: Developer or more) and `admin_operations` (settings, client keys,
alert rules, releases: Maintainer or more). Administrators pass without a role. The
project's Monitor feature binds everyone, administrators included: when it is disabled, nobody reads
or manages its error tracking. Each caller answers a refusal in its own API's way.
"""

from __future__ import annotations

from sqlalchemy.orm import Session

from outpost_server import domain_errors as domain
from outpost_server.accounts import access
from outpost_server.accounts.models import Project, User
from outpost_server.accounts.service import find_project_for, project_access_level


def may_read(session: Session, user: User | None, project: Project) -> bool:
    return _allowed(session, user, project, access.REPORTER)


def may_triage(session: Session, user: User | None, project: Project) -> bool:
    return _allowed(session, user, project, access.DEVELOPER)


def may_manage(session: Session, user: User | None, project: Project) -> bool:
    return _allowed(session, user, project, access.MAINTAINER)


def managed_project(session: Session, ident: str | int, user: User) -> Project:
    """The project for GitLab's REST settings, keys and retention APIs: 404 unseen, 403 not allowed."""
    project = find_project_for(session, ident, user)
    if not may_manage(session, user, project):
        raise domain.Forbidden()
    return project


def _allowed(session: Session, user: User | None, project: Project, min_level: int) -> bool:
    if user is None or project.monitor_access_level == "disabled":
        return False
    return user.is_admin or project_access_level(session, user, project) >= min_level
