"""GitLab's ErrorEntity and DetailedErrorEntity for errors of the integrated backend."""

from __future__ import annotations

from typing import Any

from outpost_server.accounts.models import Project
from outpost_server.error_tracking.models import TrackedError
from outpost_server.timefmt import iso


def project_web_url(base_url: str, project: Project) -> str:
    return f"{base_url}/{project.full_path}"


def error_entity(base_url: str, project: Project, error: TrackedError, frequency: list[list[int]]
                 ) -> dict[str, Any]:
    return {
        "id": str(error.id),
        "title": error.title,
        "type": error.kind,
        "user_count": error.users_count,
        "count": error.count,
        "first_seen": iso(error.first_seen_at),
        "last_seen": iso(error.last_seen_at),
        "message": error.message,
        "culprit": error.culprit,
        "external_url": f"{project_web_url(base_url, project)}/-/error_tracking/{error.id}/details",
        "project_id": project.id,
        "project_name": project.name,
        "project_slug": project.path,
        "short_id": None,
        "status": error.status,
        "frequency": frequency,
    }


def detailed_error_entity(base_url: str, project: Project, error: TrackedError, *,
                          frequency: list[list[int]], frequency_30d: list[list[int]],
                          release_health: list[dict[str, Any]]) -> dict[str, Any]:
    return error_entity(base_url, project, error, frequency) | {
        "external_base_url": project_web_url(base_url, project),
        "first_release_last_commit": None,
        "first_release_short_version": error.first_release,
        "first_release_version": error.first_release,
        "last_release_last_commit": None,
        "last_release_short_version": error.last_release,
        "last_release_version": error.last_release,
        "gitlab_issue": None,
        "integrated": True,
        "exception_type": error.exception_type,
        "level": error.level,
        "platform": error.platform,
        "environment": error.last_environment,
        "regressed": error.regressed,
        "tags": {"level": error.level, "logger": None, "release": error.last_release,
                 "environment": error.last_environment, "platform": error.platform},
        "frequency_30d": frequency_30d,
        "release_health": release_health,
    }
