"""Reading a project's errors from whichever backend its setting selects, as GitLab's entities.

The web JSON endpoints and the GraphQL API both read through here, so they return the same error
for the same id: the integrated store (through `integrated`) or the external Sentry (through its
web API client and `mapping`). Failures raise ReadFailure with the message and HTTP status GitLab's
error tracking services report; each caller decides how to present them.
"""

from __future__ import annotations

import datetime as dt
from collections.abc import Callable
from dataclasses import dataclass
from typing import Any, TypeVar

import msgspec
from sqlalchemy.orm import Session

from outpost_model.error_tracking import ErrorDetail, ErrorList, Pagination, StackTrace
from outpost_server.accounts.models import Project
from outpost_server.compat.gitlab_time import iso
from outpost_server.error_tracking import settings
from outpost_server.error_tracking.digest.event_messages import message_text
from outpost_server.error_tracking.models import ERROR_STATUSES, ErrorTrackingSetting, TrackedError
from outpost_server.error_tracking.read import integrated, release_health, tracked_errors
from outpost_server.error_tracking.read.entities import detailed_error_entity, error_entity
from outpost_server.error_tracking.read.external import mapping
from outpost_server.error_tracking.read.external.client import SentryClient, SentryError
from outpost_server.error_tracking.read.external.sentry_settings import sentry_client_for, slugs_of, stored_token
from outpost_server.error_tracking.read.search import parse_search, without_every_status

SORTS = tuple(integrated.SORT_COLUMNS)
PAGE_SIZE = integrated.PAGE_SIZE
# GitLab's text, typo included.
OUTSIDE_PROJECT = "The Sentry issue appers to be outside of the configured Sentry project"
T = TypeVar("T")


class ReadFailure(Exception):
    def __init__(self, message: str, status: int = 400, *, upstream_status: int | None = None):
        super().__init__(message)
        self.message = message
        self.status = status
        # The failure status an external Sentry answered with, when that is the cause.
        self.upstream_status = upstream_status


class ErrorNotFound(ReadFailure):
    """The integrated store has no such error in the project (GitLab's RecordNotFound)."""

    def __init__(self) -> None:
        super().__init__("404 Not found", 404)


@dataclass(frozen=True)
class ErrorSource:
    """A project whose error tracking is enabled, with what reading its errors needs."""

    session: Session
    project: Project
    setting: ErrorTrackingSetting
    secret_key: str
    external_timeout: float
    base_url: str

    @property
    def integrated(self) -> bool:
        return self.setting.integrated

    @property
    def external_url(self) -> str | None:
        return self.setting.sentry_external_url


def open_source(session: Session, *, project: Project, secret_key: str, external_timeout: float,
                base_url: str) -> ErrorSource:
    setting = settings.get_setting(session, project=project)
    if setting is None or not setting.enabled:
        raise ReadFailure("Error Tracking is not enabled")
    return ErrorSource(session, project, setting, secret_key, external_timeout, base_url)


# --- the external Sentry ----------------------------------------------------------------------


def sentry_client(source: ErrorSource) -> SentryClient:
    token = stored_token(source.setting, source.secret_key)
    if not source.setting.api_url or not token:
        raise ReadFailure("Access denied", 401)
    return sentry_client_for(source.session, api_url=source.setting.api_url, token=token,
                             timeout=source.external_timeout)


def sentry_call(call: Callable[..., T], *args: Any, **kwargs: Any) -> T:
    try:
        return call(*args, **kwargs)
    except SentryError as exc:
        raise ReadFailure(exc.message, exc.http_status, upstream_status=exc.upstream_status) from None


def sentry_issue(source: ErrorSource, issue_id: str) -> dict[str, Any]:
    """The external issue, refused when it belongs to another project than the configured one."""
    issue = sentry_call(sentry_client(source).issue_details, issue_id)
    _organization, slug = slugs_of(source.setting.api_url)
    if (issue.get("project") or {}).get("slug") != slug:
        raise ReadFailure(OUTSIDE_PROJECT)
    return issue


# --- reads --------------------------------------------------------------------------------------


def list_page(source: ErrorSource, *, issue_status: str = "unresolved", search_term: str = "",
              sort: str = "last_seen", cursor: str | None = None, limit: int = PAGE_SIZE,
              viewer_id: int | None = None) -> ErrorList:
    """GitLab's list body: a page of ErrorEntity, its cursors and the external URL; `viewer_id` is who
    `assigned:me` names."""
    if issue_status not in ERROR_STATUSES:
        raise ReadFailure("Bad Request: Invalid issue_status")
    if sort not in SORTS:
        raise ReadFailure("Invalid value for sort param")
    query = parse_search(search_term, viewer_id=viewer_id)
    if not source.integrated:
        client = sentry_client(source)
        status = None if query.every_status else issue_status
        issues, pagination = sentry_call(client.list_issues, issue_status=status, limit=limit,
                                         search_term=without_every_status(search_term), sort=sort, cursor=cursor)
        found = [sentry_call(mapping.error_entity, issue, api_url=source.setting.api_url) for issue in issues]
        return ErrorList(errors=found, pagination=msgspec.convert(pagination, Pagination),
                         external_url=source.external_url)
    try:
        page = integrated.list_errors(source.session, project_id=source.project.id,
                                      status=query.status or (None if query.every_status else issue_status),
                                      query=query, sort=sort, cursor=cursor, limit=limit)
    except integrated.InvalidCursor:
        raise ReadFailure("Bad Request: Invalid cursor") from None
    return ErrorList(errors=[error_entity(source.base_url, source.project, error, page.frequencies[error.id])
                             for error in page.errors],
                     pagination=msgspec.convert(page.pagination, Pagination), external_url=source.external_url)


def stored_error(source: ErrorSource, issue_id: str) -> TrackedError:
    error = tracked_errors.get_error(source.session, project=source.project, error_id=issue_id)
    if error is None:
        raise ErrorNotFound()
    return error


def error_details(source: ErrorSource, issue_id: str) -> ErrorDetail:
    """GitLab's DetailedErrorEntity of one error."""
    if not source.integrated:
        issue = sentry_issue(source, issue_id)
        return sentry_call(mapping.detailed_error_entity, issue, api_url=source.setting.api_url)
    session, project = source.session, source.project
    error = stored_error(source, issue_id)
    releases = set(integrated.error_releases(session, error))
    health = [row for row in release_health.release_health(session, project=project) if row.release in releases]
    frequency_30d = [[int(dt.datetime.combine(day, dt.time(), dt.timezone.utc).timestamp()), count]
                     for day, count in tracked_errors.daily_counts(session, error=error)]
    return detailed_error_entity(source.base_url, project, error,
                                 frequency=integrated.hourly_frequency(session, [error.id])[error.id],
                                 frequency_30d=frequency_30d, release_health=health,
                                 latest_payload=tracked_errors.latest_event_payload(session, error=error))


def error_stack_trace(source: ErrorSource, issue_id: str) -> StackTrace:
    """The latest event's stack trace: `issue_id`, `date_received`, `stack_trace_entries` (GitLab's frames)."""
    if not source.integrated:
        issue = sentry_issue(source, issue_id)
        event = sentry_call(sentry_client(source).latest_event, issue_id)
        if str(event.get("projectID")) != str((issue.get("project") or {}).get("id")):
            raise ReadFailure(OUTSIDE_PROJECT)
        return sentry_call(mapping.stack_trace_entity, event)
    error = stored_error(source, issue_id)
    latest = tracked_errors.error_events(source.session, error=error, limit=1)
    payload = tracked_errors.latest_event_payload(source.session, error=error) or {}
    entries, exceptions = integrated.stack_trace(payload)
    return StackTrace(issue_id=str(error.id), date_received=iso(latest[0].received_at) if latest else None,
                      stack_trace_entries=entries, exceptions=exceptions,
                      # The log message (logentry), also of a logged exception: the console shows it above
                      # the exception.
                      message=message_text(payload))
