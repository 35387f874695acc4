"""GitLab's error tracking settings and client keys API (Maintainer or more)."""

from __future__ import annotations

from fastapi import APIRouter, Request, Response
from sqlalchemy.orm import Session

from outpost_server import http_errors
from outpost_server.auth import CurrentUserDep
from outpost_server.db import SessionDep, after_commit
from outpost_server.deps import SecretKeyDep
from outpost_server.entity_json import EntityResponse
from outpost_server.error_tracking import client_keys, settings
from outpost_server.error_tracking.access import managed_project
from outpost_server.error_tracking.entities import client_key_entity, setting_entity
from outpost_server.error_tracking.ingest.collector_parts import Collector, CollectorDep
from outpost_server.error_tracking.ingest.origins import parse_allowed_origins
from outpost_server.error_tracking.read.external.sentry_settings import EXTERNAL_SENTRY_PARAMS, apply_external_params
from outpost_server.pagination import paginate, paginated
from outpost_server.params import Param, Params, ParamsDep, body_params, query_params
from outpost_server.urls import public_base_url

router = APIRouter(tags=["error tracking"])
SETTINGS_PARAMS = (*EXTERNAL_SENTRY_PARAMS,
                   # Outpost extension (a comma-separated string is accepted too).
                   Param("allowed_origins", "array"))


def _apply_allowed_origins(session, setting, params: Params) -> None:
    """Outpost extension: `allowed_origins`, a list or a comma/newline-separated string ("" = any origin)."""
    if "allowed_origins" not in params:
        return
    origins = parse_allowed_origins(params.raw("allowed_origins"))
    if origins is None:
        raise http_errors.invalid_param("allowed_origins")
    settings.save_allowed_origins(session, setting=setting, origins=origins)


def _setting_changed(collector: Collector, session: Session) -> None:
    """Forget the cached collector access once the change is committed: forgetting it earlier would let
    a lookup in between cache the old state again."""
    after_commit(session, collector.access.forget)


@router.get("/projects/{project_id}/error_tracking/settings", openapi_extra=query_params())
def get_error_tracking_setting(session: SessionDep, user: CurrentUserDep, project_id: str) -> Response:
    project = managed_project(session, project_id, user)
    setting = settings.get_setting(session, project=project)
    if setting is None:
        raise http_errors.not_found("Error Tracking Setting")
    return EntityResponse(setting_entity(setting))


@router.patch("/projects/{project_id}/error_tracking/settings", openapi_extra=body_params(
    Param("active", "boolean", required=True), Param("integrated", "boolean"), *SETTINGS_PARAMS))
def patch_error_tracking_setting(session: SessionDep, user: CurrentUserDep, params: ParamsDep,
                                 secret_key: SecretKeyDep, collector: CollectorDep, project_id: str) -> Response:
    project = managed_project(session, project_id, user)
    active = bool(params.bool("active"))
    integrated = params.bool("integrated")
    setting = settings.save_setting(session, project=project, enabled=active, integrated=integrated)
    if setting is None:
        raise http_errors.not_found("Error Tracking Setting")
    apply_external_params(session, setting, params, secret_key=secret_key)
    _apply_allowed_origins(session, setting, params)
    _setting_changed(collector, session)
    return EntityResponse(setting_entity(setting))


@router.put("/projects/{project_id}/error_tracking/settings", openapi_extra=body_params(
    Param("active", "boolean", required=True), Param("integrated", "boolean", required=True), *SETTINGS_PARAMS))
def put_error_tracking_setting(session: SessionDep, user: CurrentUserDep, params: ParamsDep,
                               secret_key: SecretKeyDep, collector: CollectorDep, project_id: str) -> Response:
    project = managed_project(session, project_id, user)
    setting = settings.save_setting(session, project=project, enabled=bool(params.bool("active")),
                                   integrated=bool(params.bool("integrated")), create=True)
    assert setting is not None, "save_setting(create=True) always returns the setting"
    apply_external_params(session, setting, params, secret_key=secret_key)
    _apply_allowed_origins(session, setting, params)
    _setting_changed(collector, session)
    return EntityResponse(setting_entity(setting))


@router.get("/projects/{project_id}/error_tracking/client_keys", openapi_extra=paginated())
def list_client_keys(request: Request, response: Response, session: SessionDep, user: CurrentUserDep,
                     params: ParamsDep, project_id: str) -> Response:
    project = managed_project(session, project_id, user)
    keys = paginate(session, client_keys.client_keys_query(project=project), params, request, response)
    base_url = public_base_url(request)
    # The page's Link and X-* headers, which paginate() set on `response`, go with the answer.
    return EntityResponse([client_key_entity(key, base_url=base_url) for key in keys], headers=response.headers)


@router.post("/projects/{project_id}/error_tracking/client_keys", status_code=201, openapi_extra=body_params())
def create_client_key(request: Request, session: SessionDep, user: CurrentUserDep, collector: CollectorDep,
                      project_id: str) -> Response:
    project = managed_project(session, project_id, user)
    key = client_keys.create_client_key(session, project=project)
    _setting_changed(collector, session)
    return EntityResponse(client_key_entity(key, base_url=public_base_url(request)), status_code=201)


@router.delete("/projects/{project_id}/error_tracking/client_keys/{key_id}", openapi_extra=query_params())
def delete_client_key(request: Request, session: SessionDep, user: CurrentUserDep, collector: CollectorDep,
                      project_id: str, key_id: str) -> Response:
    project = managed_project(session, project_id, user)
    key = client_keys.find_client_key(session, project=project, key_id=key_id)
    if key is None:
        raise http_errors.record_not_found()
    body = client_key_entity(key, base_url=public_base_url(request))
    client_keys.delete_client_key(session, key=key)
    _setting_changed(collector, session)
    return EntityResponse(body)
