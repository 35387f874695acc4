"""GitLab's ErrorEntity and DetailedErrorEntity for errors of the integrated backend."""

from __future__ import annotations

from typing import Any

import msgspec

from outpost_model.error_tracking import ErrorDetail, ErrorListItem, ReleaseHealth, TimeSeries
from outpost_server.accounts.models import Project
from outpost_server.compat.gitlab_time import iso
from outpost_server.error_tracking.models import TrackedError


def project_web_url(base_url: str, project: Project) -> str:
    return f"{base_url}/{project.full_path}"


def error_entity(base_url: str, project: Project, error: TrackedError, frequency: TimeSeries) -> ErrorListItem:
    return ErrorListItem(
        id=str(error.id), title=error.title, type=error.kind, user_count=error.users_count, count=error.count,
        first_seen=iso(error.first_seen_at), last_seen=iso(error.last_seen_at), message=error.message,
        culprit=error.culprit,
        external_url=f"{project_web_url(base_url, project)}/-/error_tracking/{error.id}/details",
        project_id=project.id, project_name=project.name, project_slug=project.path, short_id=None,
        status=error.status, frequency=frequency)


# (marker in the User-Agent, browser name): the first match wins, so Edge and Opera come before Chrome.
_BROWSERS = (("Edg/", "Edge"), ("OPR/", "Opera"), ("Firefox/", "Firefox"), ("Chrome/", "Chrome"),
             ("Version/", "Safari"))


def _user_agent(headers: Any) -> str | None:
    """`request.headers` as an object or as [name, value] pairs (both occur)."""
    pairs = headers.items() if isinstance(headers, dict) else headers if isinstance(headers, list) else []
    for pair in pairs:
        if isinstance(pair, (list, tuple)) and len(pair) == 2 and str(pair[0]).lower() == "user-agent":
            return str(pair[1])
    return None


def _mapping(value: Any) -> dict[str, Any]:
    return value if isinstance(value, dict) else {}


def browser_tags(payload: dict[str, Any] | None) -> dict[str, str]:
    """`browser` and `url` of the latest event, when it has them: the SDK's `contexts.browser`, else its
    User-Agent, and the request's URL."""
    payload = payload or {}
    request_info = _mapping(payload.get("request"))
    contexts = _mapping(payload.get("contexts"))
    browser = _mapping(contexts.get("browser"))
    name = " ".join(str(browser[key]) for key in ("name", "version") if browser.get(key)) or None
    agent = _user_agent(request_info.get("headers"))
    if name is None and agent:
        for marker, label in _BROWSERS:
            if marker in agent:
                name = f"{label} {agent.split(marker, 1)[1].split(' ', 1)[0]}"
                break
    url = request_info.get("url")
    found = {"browser": name, "url": url if isinstance(url, str) else None}
    return {tag: value for tag, value in found.items() if value}


def detailed_error_entity(base_url: str, project: Project, error: TrackedError, *,
                          frequency: TimeSeries, frequency_30d: TimeSeries,
                          release_health: list[ReleaseHealth], latest_payload: dict[str, Any] | None = None
                          ) -> ErrorDetail:
    listed = msgspec.structs.asdict(error_entity(base_url, project, error, frequency))
    return ErrorDetail(
        **listed,
        external_base_url=project_web_url(base_url, project),
        first_release_last_commit=None,
        first_release_short_version=error.first_release,
        first_release_version=error.first_release,
        last_release_last_commit=None,
        last_release_short_version=error.last_release,
        last_release_version=error.last_release,
        gitlab_issue=None,
        integrated=True,
        exception_type=error.exception_type,
        level=error.level,
        platform=error.platform,
        environment=error.last_environment,
        regressed=error.regressed,
        tags={"level": error.level, "logger": None, "release": error.last_release,
              "environment": error.last_environment, "platform": error.platform, **browser_tags(latest_payload)},
        frequency_30d=frequency_30d,
        release_health=release_health,
    )
