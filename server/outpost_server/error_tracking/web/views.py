"""The project's error tracking JSON endpoints, under `/<namespace>/<project>/-/`.

They authenticate with the API's tokens. Errors come from the integrated backend or, when the
project's setting selects it, from the external Sentry; failures answer `{"message": ...}` with the
status GitLab's controllers use.
"""

from __future__ import annotations

import datetime as dt
from typing import Any

from fastapi import APIRouter, Request
from fastapi.responses import JSONResponse
from sqlalchemy.orm import Session

from outpost_server import errors
from outpost_server.accounts import access
from outpost_server.accounts.models import Project, User
from outpost_server.accounts.service import find_project_for, project_access_level
from outpost_server.auth import CurrentUserDep
from outpost_server.db import SessionDep
from outpost_server.error_tracking.external import mapping
from outpost_server.error_tracking.external.client import SentryClient, SentryError
from outpost_server.error_tracking.external.settings import (
    build_api_url_from,
    full_messages,
    sentry_client_for,
    slugs_of,
    stored_token,
    validation_messages,
)
from outpost_server.error_tracking import service
from outpost_server.error_tracking.models import ERROR_STATUSES, ErrorTrackingSetting
from outpost_server.error_tracking.web import integrated
from outpost_server.error_tracking.web.entities import detailed_error_entity, error_entity
from outpost_server.error_tracking.web.search import parse_search
from outpost_server.params import STRING, ParamsDep, declared_body, declared_query
from outpost_server.timefmt import iso

router = APIRouter()

# Each endpoint also answers without ".json", as Rails routes do. The ".json" decorator sits next to the
# function so it is registered first: "/{issue_id}" must not swallow "123.json".
BASE = "/{project_path:path}/-/error_tracking"
POLL_INTERVAL = {"Poll-Interval": "1000"}
# GitLab's text, typo included.
OUTSIDE_PROJECT = "The Sentry issue appers to be outside of the configured Sentry project"
SORTS = tuple(integrated.SORT_COLUMNS)


def _message(text: str, status: int = 400) -> errors.ApiError:
    return errors.ApiError(status, {"message": text})


def _project(session: Session, user: User, project_path: str, min_level: int) -> Project:
    """The project when the user may use its error tracking; 404 otherwise, as GitLab's web controllers."""
    project = find_project_for(session, project_path, user)
    if project.monitor_access_level == "disabled":
        raise errors.not_found()
    if not user.is_admin and project_access_level(session, user, project) < min_level:
        raise errors.not_found()
    return project


def _enabled_setting(session: Session, project: Project) -> ErrorTrackingSetting:
    setting = service.get_setting(session, project=project)
    if setting is None or not setting.enabled:
        raise _message("Error Tracking is not enabled")
    return setting


def _sentry(session: Session, request: Request, setting: ErrorTrackingSetting) -> SentryClient:
    token = stored_token(setting, request.app.state.secret_key)
    if not setting.api_url or not token:
        raise _message("Access denied", 401)
    return sentry_client_for(session, api_url=setting.api_url, token=token,
                             timeout=request.app.state.settings.error_tracking_external_timeout)


def _sentry_call(call, *args, **kwargs) -> Any:
    try:
        return call(*args, **kwargs)
    except SentryError as exc:
        raise _message(exc.message, exc.http_status) from None


def _sentry_issue(session: Session, request: Request, setting: ErrorTrackingSetting, issue_id: str
                  ) -> dict[str, Any]:
    """The external issue, refused when it belongs to another project than the configured one."""
    issue = _sentry_call(_sentry(session, request, setting).issue_details, issue_id)
    _organization, slug = slugs_of(setting.api_url)
    if (issue.get("project") or {}).get("slug") != slug:
        raise _message(OUTSIDE_PROJECT)
    return issue


def _json(body: Any) -> JSONResponse:
    return JSONResponse(body, headers=POLL_INTERVAL)


LIST_QUERY = declared_query(issue_status=STRING, sort=STRING, search_term=STRING, cursor=STRING)


@router.get(BASE, openapi_extra=LIST_QUERY)
@router.get(BASE + ".json", openapi_extra=LIST_QUERY)
def list_errors(request: Request, session: SessionDep, user: CurrentUserDep, params: ParamsDep, project_path: str):
    project = _project(session, user, project_path, access.REPORTER)
    setting = _enabled_setting(session, project)
    issue_status = params.str("issue_status") or "unresolved"
    if issue_status not in ERROR_STATUSES:
        raise _message("Bad Request: Invalid issue_status")
    sort = params.str("sort") or "last_seen"
    search_term = params.str("search_term") or ""
    cursor = params.str("cursor") or None
    if not setting.integrated:
        if sort not in SORTS:
            raise _message("Invalid value for sort param")
        client = _sentry(session, request, setting)
        issues, pagination = _sentry_call(client.list_issues, issue_status=issue_status, limit=integrated.PAGE_SIZE,
                                          search_term=search_term, sort=sort, cursor=cursor)
        errors_json = [_sentry_call(mapping.error_entity, issue, api_url=setting.api_url) for issue in issues]
        return _json({"errors": errors_json, "pagination": pagination, "external_url": setting.sentry_external_url})
    if sort not in SORTS:
        raise _message("Invalid value for sort param")
    query = parse_search(search_term)
    try:
        page = integrated.list_errors(session, project_id=project.id, status=query.status or issue_status,
                                      query=query, sort=sort, cursor=cursor)
    except integrated.InvalidCursor:
        raise _message("Bad Request: Invalid cursor") from None
    return _json({
        "errors": [error_entity(request, project, error, page.frequencies[error.id]) for error in page.errors],
        "pagination": page.pagination,
        "external_url": setting.sentry_external_url,
    })


def _integrated_error(session: Session, project: Project, issue_id: str):
    error = service.get_error(session, project=project, error_id=issue_id)
    if error is None:
        raise errors.record_not_found()
    return error


@router.get(BASE + "/{issue_id}/details")
@router.get(BASE + "/{issue_id}/details.json")
def error_details(request: Request, session: SessionDep, user: CurrentUserDep, project_path: str, issue_id: str):
    project = _project(session, user, project_path, access.REPORTER)
    setting = _enabled_setting(session, project)
    if not setting.integrated:
        issue = _sentry_issue(session, request, setting, issue_id)
        return _json({"error": _sentry_call(mapping.detailed_error_entity, issue, api_url=setting.api_url)})
    error = _integrated_error(session, project, issue_id)
    releases = set(integrated.error_releases(session, error))
    health = [{"release": row.release, "environment": row.environment, "sessions": row.sessions,
               "crashed": row.crashed, "errored": row.errored, "abnormal": row.abnormal,
               "crash_free_rate": None if row.crash_free_rate is None else round(100 * row.crash_free_rate, 2)}
              for row in service.release_health(session, project=project) if row.release in releases]
    frequency_30d = [[int(dt.datetime.combine(day, dt.time(), dt.timezone.utc).timestamp()), count]
                     for day, count in service.daily_counts(session, error=error)]
    body = detailed_error_entity(request, project, error,
                                 frequency=integrated.hourly_frequency(session, [error.id])[error.id],
                                 frequency_30d=frequency_30d, release_health=health)
    return _json({"error": body})


@router.get(BASE + "/{issue_id}/stack_trace")
@router.get(BASE + "/{issue_id}/stack_trace.json")
def error_stack_trace(request: Request, session: SessionDep, user: CurrentUserDep, project_path: str,
                      issue_id: str):
    project = _project(session, user, project_path, access.REPORTER)
    setting = _enabled_setting(session, project)
    if not setting.integrated:
        issue = _sentry_issue(session, request, setting, issue_id)
        event = _sentry_call(_sentry(session, request, setting).latest_event, issue_id)
        if str(event.get("projectID")) != str((issue.get("project") or {}).get("id")):
            raise _message(OUTSIDE_PROJECT)
        return _json({"error": _sentry_call(mapping.stack_trace_entity, event)})
    error = _integrated_error(session, project, issue_id)
    latest = service.error_events(session, error=error, limit=1)
    payload = service.latest_event_payload(session, error=error) or {}
    entries, exceptions = integrated.stack_trace(payload)
    return _json({"error": {
        "issue_id": str(error.id),
        "date_received": iso(latest[0].received_at) if latest else None,
        "stack_trace_entries": entries,
        "exceptions": exceptions,
        "message": payload.get("message") if isinstance(payload.get("message"), str) else None,
    }})


@router.put(BASE + "/{issue_id}", openapi_extra=declared_body(status=STRING))
@router.put(BASE + "/{issue_id}.json", openapi_extra=declared_body(status=STRING))
def update_error(request: Request, session: SessionDep, user: CurrentUserDep, params: ParamsDep, project_path: str,
                 issue_id: str):
    project = _project(session, user, project_path, access.REPORTER)
    setting = _enabled_setting(session, project)
    status = params.str("status")
    if status not in ERROR_STATUSES:
        raise _message("Bad Request: Invalid status")
    if not setting.integrated:
        _sentry_issue(session, request, setting, issue_id)
        _sentry_call(_sentry(session, request, setting).update_issue, issue_id, {"status": status})
        updated = True
    else:
        error = _integrated_error(session, project, issue_id)
        updated = error.status != status
        service.update_error_status(session, error=error, status=status)
        session.commit()
    return {"result": {"updated": updated, "closed_issue_iid": None, "status": "success"}}


@router.get(BASE + "/projects", openapi_extra=declared_query(api_host=STRING, token=STRING))
@router.get(BASE + "/projects.json", openapi_extra=declared_query(api_host=STRING, token=STRING))
def external_projects(request: Request, session: SessionDep, user: CurrentUserDep, params: ParamsDep,
                      project_path: str):
    project = _project(session, user, project_path, access.MAINTAINER)
    api_host = params.str("api_host") or ""
    token = params.str("token") or ""
    if token and set(token) == {"*"}:
        setting = service.get_setting(session, project=project)
        token = (stored_token(setting, request.app.state.secret_key) if setting is not None else None) or ""
    api_url = build_api_url_from(api_host=api_host, organization_slug="org", project_slug="proj") if api_host else None
    messages = validation_messages(session, api_url=api_url, token=token)
    if messages:
        raise _message(full_messages(messages))
    client = sentry_client_for(session, api_url=api_url, token=token,
                               timeout=request.app.state.settings.error_tracking_external_timeout)
    projects = _sentry_call(client.list_projects)
    return {"projects": [_sentry_call(mapping.project_entity, item) for item in projects]}
