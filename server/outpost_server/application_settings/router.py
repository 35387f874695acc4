"""`GET/PUT /application/settings`: instance settings an administrator may change.

Only the settings this server implements are shown and accepted.
"""

from __future__ import annotations

from fastapi import APIRouter, Response
from sqlalchemy.orm import Session

from outpost_model.instance import ApplicationSettings
from outpost_server.application_settings.store import get_setting, set_setting
from outpost_server.auth import AdminUserDep
from outpost_server.db import SessionDep
from outpost_server.entity_json import EntityResponse
from outpost_server.params import Param, ParamsDep, body_params, query_params

router = APIRouter()

# Setting name -> default (ApplicationSettings' fields). GitLab's defaults: local requests are refused.
BOOLEAN_SETTINGS = {
    "allow_local_requests_from_web_hooks_and_services": False,
    "allow_local_requests_from_system_hooks": True,
}


def _entity(session: Session) -> EntityResponse:
    return EntityResponse(ApplicationSettings(
        **{name: bool(get_setting(session, name, default)) for name, default in BOOLEAN_SETTINGS.items()}))


@router.get("/application/settings", openapi_extra=query_params())
def show_application_settings(session: SessionDep, _admin: AdminUserDep) -> Response:
    return _entity(session)


@router.put("/application/settings", openapi_extra=body_params(
    *(Param(name, "boolean", default=default) for name, default in BOOLEAN_SETTINGS.items())))
def update_application_settings(session: SessionDep, _admin: AdminUserDep, params: ParamsDep) -> Response:
    for name in BOOLEAN_SETTINGS:
        value = params.bool(name)
        if value is not None:
            set_setting(session, name, value)
    return _entity(session)
