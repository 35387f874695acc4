"""Sentry's web API JSON turned into GitLab's error tracking entities (reference §3.6)."""

from __future__ import annotations

import re
from typing import Any

import msgspec

from outpost_model.error_tracking import (
    ErrorDetail,
    ErrorListItem,
    ExceptionFrame,
    ExceptionValue,
    ExternalProject,
    StackTrace,
)
from outpost_server.error_tracking.read.external.client import SentryError


def _fetch(data: dict[str, Any], key: str) -> Any:
    if not isinstance(data, dict) or key not in data:
        raise SentryError(f'Sentry API response is missing keys. key not found: "{key}"', 500)
    return data[key]


def sentry_web_base(api_url: str) -> str:
    """`https://HOST/api/0/projects/org/proj/` -> `https://HOST/org/proj`."""
    return api_url.replace("api/0/projects/", "", 1).rstrip("/")


def project_entity(project: dict[str, Any]) -> ExternalProject:
    organization = _fetch(project, "organization")
    return ExternalProject(id=project.get("id"), name=_fetch(project, "name"), status=project.get("status"),
                           slug=_fetch(project, "slug"), organization_name=_fetch(organization, "name"),
                           organization_id=organization.get("id"),
                           organization_slug=_fetch(organization, "slug"))


def error_entity(issue: dict[str, Any], *, api_url: str) -> ErrorListItem:
    issue_id = str(_fetch(issue, "id"))
    project = issue.get("project") or {}
    metadata = issue.get("metadata") or {}
    return ErrorListItem(
        id=issue_id, title=issue.get("title"), type=issue.get("type"), user_count=issue.get("userCount"),
        count=issue.get("count"), first_seen=issue.get("firstSeen"), last_seen=issue.get("lastSeen"),
        message=metadata.get("value"), culprit=issue.get("culprit"),
        external_url=f"{sentry_web_base(api_url)}/issues/{issue_id}", project_id=project.get("id"),
        project_name=project.get("name"), project_slug=project.get("slug"), short_id=issue.get("shortId"),
        status=issue.get("status"), frequency=(issue.get("stats") or {}).get("24h") or [])


def _gitlab_issue(issue: dict[str, Any]) -> str | None:
    for annotation in issue.get("annotations") or []:
        match = re.search(r'href="([^"]+)"', str(annotation))
        if match:
            return match.group(1)
    for plugin_issue in issue.get("pluginIssues") or []:
        if isinstance(plugin_issue, dict) and plugin_issue.get("id") == "gitlab":
            return ((plugin_issue.get("issue") or {}).get("url"))
    return None


def detailed_error_entity(issue: dict[str, Any], *, api_url: str) -> ErrorDetail:
    first_release = issue.get("firstRelease") or {}
    last_release = issue.get("lastRelease") or {}
    stats = issue.get("stats") or {}
    return ErrorDetail(
        **msgspec.structs.asdict(error_entity(issue, api_url=api_url)),
        external_base_url=sentry_web_base(api_url),
        first_release_last_commit=first_release.get("lastCommit"),
        first_release_short_version=first_release.get("shortVersion"),
        first_release_version=first_release.get("version"),
        last_release_last_commit=last_release.get("lastCommit"),
        last_release_short_version=last_release.get("shortVersion"),
        last_release_version=last_release.get("version"),
        gitlab_issue=_gitlab_issue(issue),
        tags={"level": issue.get("level"), "logger": issue.get("logger")},
        exception_type=(issue.get("metadata") or {}).get("type"),
        frequency_30d=stats.get("30d") or [],
        integrated=False,
    )


def stack_trace_entity(event: dict[str, Any]) -> StackTrace:
    """The latest event's raw frames, from the first exception value that has a stack trace."""
    issue_id = str(_fetch(event, "groupID"))
    values: list[dict[str, Any]] = []
    for entry in event.get("entries") or []:
        if isinstance(entry, dict) and entry.get("type") == "exception":
            values = [v for v in ((entry.get("data") or {}).get("values") or []) if isinstance(v, dict)]
    frames: list[Any] = []
    for value in values:
        stacktrace = value.get("stacktrace") or {}
        if stacktrace.get("frames"):
            frames = stacktrace["frames"]
            break
    return StackTrace(
        issue_id=issue_id,
        date_received=event.get("dateReceived"),
        stack_trace_entries=frames,
        exceptions=[
            ExceptionValue(type=v.get("type"), value=v.get("value"), module=v.get("module"),
                           frames=[_sentry_frame(f) for f in ((v.get("stacktrace") or {}).get("frames") or [])
                                   if isinstance(f, dict)])
            for v in values
        ],
    )


def _sentry_frame(frame: dict[str, Any]) -> ExceptionFrame:
    return ExceptionFrame(filename=frame.get("filename"), abs_path=frame.get("absPath"), function=frame.get("function"),
                          module=frame.get("module"), lineNo=frame.get("lineNo"), colNo=frame.get("colNo"),
                          in_app=bool(frame.get("inApp")), context=frame.get("context") or [])
