"""The project's error tracking JSON endpoints, under `/<namespace>/<project>/-/`.

They authenticate with the API's tokens. Errors come from the integrated backend or, when the
project's setting selects it, from the external Sentry; failures answer `{"message": ...}` with the
status GitLab's controllers use.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any, TypeVar

from fastapi import APIRouter, Request, Response
from sqlalchemy.orm import Session

from outpost_model.error_tracking import (
    ErrorDetailBody,
    ErrorUpdate,
    ErrorUpdateResult,
    ExternalProjectList,
    StackTraceBody,
)
from outpost_server import http_errors
from outpost_server.accounts.models import Project, User
from outpost_server.accounts.service import find_project_for
from outpost_server.auth import CurrentUserDep
from outpost_server.db import SessionDep
from outpost_server.deps import ServicesDep, services_of
from outpost_server.entity_json import EntityResponse
from outpost_server.error_tracking import settings
from outpost_server.error_tracking.access import may_manage, may_read, may_triage
from outpost_server.error_tracking.models import ERROR_STATUSES
from outpost_server.error_tracking.read import reading, tracked_errors
from outpost_server.error_tracking.read.external import mapping
from outpost_server.error_tracking.read.external.sentry_settings import (
    build_api_url_from,
    full_messages,
    sentry_client_for,
    stored_token,
    validation_messages,
)
from outpost_server.outbound.url_policy import same_origin
from outpost_server.params import Param, ParamsDep, body_params, query_params
from outpost_server.urls import public_base_url

router = APIRouter()
T = TypeVar("T")

# Each endpoint also answers without ".json", as Rails routes do. The ".json" decorator sits next to the
# function so it is registered first: "/{issue_id}" must not swallow "123.json".
BASE = "/{project_path:path}/-/error_tracking"
POLL_INTERVAL = {"Poll-Interval": "1000"}


def _message(text: str, status: int = 400) -> http_errors.ApiError:
    return http_errors.ApiError(status, {"message": text})


def _project(session: Session, user: User, project_path: str, *, manage: bool = False) -> Project:
    """The project when the user may read (or manage) its error tracking; 404 otherwise, as GitLab's
    web controllers answer."""
    project = find_project_for(session, project_path, user)
    allowed = may_manage if manage else may_read
    if not allowed(session, user, project):
        raise http_errors.not_found()
    return project


def _failure(failure: reading.ReadFailure) -> http_errors.ApiError:
    if isinstance(failure, reading.ErrorNotFound):
        return http_errors.record_not_found()
    return _message(failure.message, failure.status)


def _source(request: Request, session: Session, user: User, project_path: str) -> reading.ErrorSource:
    project = _project(session, user, project_path)
    try:
        services = services_of(request.app)
        return reading.open_source(session, project=project, secret_key=services.secret_key,
                                   external_timeout=services.config.error_tracking_external_timeout,
                                   base_url=public_base_url(request))
    except reading.ReadFailure as failure:
        raise _failure(failure) from None


def _read(call: Callable[..., T], *args: Any, **kwargs: Any) -> T:
    try:
        return call(*args, **kwargs)
    except reading.ReadFailure as failure:
        raise _failure(failure) from None


def _json(body: Any) -> EntityResponse:
    return EntityResponse(body, headers=POLL_INTERVAL)


# The parameters each endpoint reads (both spellings of a path declare the same).
LIST_QUERY = query_params(Param("search_term"), Param("sort", choices=("last_seen", "first_seen", "frequency"),
                                                      default="last_seen"),
                          Param("cursor"), Param("issue_status", choices=ERROR_STATUSES, default="unresolved"))
NO_PARAMS = query_params()
STATUS_BODY = body_params(Param("status", required=True, choices=ERROR_STATUSES))
SENTRY_PROJECTS_QUERY = query_params(Param("api_host"), Param("token"))


@router.get(BASE, openapi_extra=LIST_QUERY)
@router.get(BASE + ".json", openapi_extra=LIST_QUERY)
def list_errors(request: Request, session: SessionDep, user: CurrentUserDep, params: ParamsDep,
                project_path: str) -> Response:
    source = _source(request, session, user, project_path)
    return _json(_read(reading.list_page, source, issue_status=params.str("issue_status") or "unresolved",
                       search_term=params.str("search_term") or "", sort=params.str("sort") or "last_seen",
                       cursor=params.str("cursor") or None, viewer_id=user.id))


@router.get(BASE + "/{issue_id}/details", openapi_extra=NO_PARAMS)
@router.get(BASE + "/{issue_id}/details.json", openapi_extra=NO_PARAMS)
def error_details(request: Request, session: SessionDep, user: CurrentUserDep, project_path: str,
                  issue_id: str) -> Response:
    source = _source(request, session, user, project_path)
    return _json(ErrorDetailBody(error=_read(reading.error_details, source, issue_id)))


@router.get(BASE + "/{issue_id}/stack_trace", openapi_extra=NO_PARAMS)
@router.get(BASE + "/{issue_id}/stack_trace.json", openapi_extra=NO_PARAMS)
def error_stack_trace(request: Request, session: SessionDep, user: CurrentUserDep, project_path: str,
                      issue_id: str) -> Response:
    source = _source(request, session, user, project_path)
    return _json(StackTraceBody(error=_read(reading.error_stack_trace, source, issue_id)))


@router.put(BASE + "/{issue_id}", openapi_extra=STATUS_BODY)
@router.put(BASE + "/{issue_id}.json", openapi_extra=STATUS_BODY)
def update_error(request: Request, session: SessionDep, user: CurrentUserDep, params: ParamsDep, project_path: str,
                 issue_id: str) -> Response:
    source = _source(request, session, user, project_path)
    if not may_triage(session, user, source.project):  # GitLab's update_sentry_issue: Developer or more
        raise http_errors.not_found()
    status = params.str("status")
    if status not in ERROR_STATUSES:
        raise _message("Bad Request: Invalid status")
    if not source.integrated:
        _read(reading.sentry_issue, source, issue_id)
        client = _read(reading.sentry_client, source)
        _read(reading.sentry_call, client.update_issue, issue_id, {"status": status})
        updated = True
    else:
        error = _read(reading.stored_error, source, issue_id)
        updated = error.status != status
        tracked_errors.update_error_status(session, error=error, status=status)
    return EntityResponse(ErrorUpdate(result=ErrorUpdateResult(updated=updated, closed_issue_iid=None,
                                                               status="success")))


@router.get(BASE + "/projects", openapi_extra=SENTRY_PROJECTS_QUERY)
@router.get(BASE + "/projects.json", openapi_extra=SENTRY_PROJECTS_QUERY)
def external_projects(services: ServicesDep, session: SessionDep, user: CurrentUserDep, params: ParamsDep,
                      project_path: str) -> Response:
    project = _project(session, user, project_path, manage=True)
    api_host = params.str("api_host") or ""
    token = params.str("token") or ""
    if token and set(token) == {"*"}:
        # The masked token stands for the stored one only towards the host it was stored for, as in
        # GitLab's ListProjectsService: anywhere else it would hand the token to whoever runs that host.
        setting = settings.get_setting(session, project=project)
        stored = None
        if setting is not None and setting.api_url and same_origin(setting.api_url, api_host):
            stored = stored_token(setting, services.secret_key)
        token = stored or ""
    api_url = build_api_url_from(api_host=api_host, organization_slug="org", project_slug="proj") if api_host else None
    messages = validation_messages(session, api_url=api_url, token=token)
    if messages or api_url is None:  # without an api_url there is always a message
        raise _message(full_messages(messages))
    client = sentry_client_for(session, api_url=api_url, token=token,
                               timeout=services.config.error_tracking_external_timeout)
    projects = _read(reading.sentry_call, client.list_projects)
    return EntityResponse(ExternalProjectList(
        projects=[_read(reading.sentry_call, mapping.project_entity, item) for item in projects]))
