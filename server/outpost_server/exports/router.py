"""GitLab's vulnerability exports API (project, group and instance level)."""

from __future__ import annotations

from typing import Any

from fastapi import APIRouter, Request
from fastapi.responses import JSONResponse, StreamingResponse
from sqlalchemy.orm import Session

from outpost_server import http_errors
from outpost_server.accounts.models import Group, Project, User
from outpost_server.accounts.service import find_group_for, find_project_for
from outpost_server.auth import CurrentUserDep
from outpost_server.db import SessionDep, after_commit
from outpost_server.exports import service
from outpost_server.exports.entities import export_entity
from outpost_server.exports.models import FORMATS
from outpost_server.params import Param, Params, ParamsDep, body_params, query_params
from outpost_server.urls import api_base_url

router = APIRouter(tags=["vulnerability exports"])

EXPORT_FORMAT = Param("export_format", choices=FORMATS, default="csv")
# How long GitLab tells clients to wait before asking about an unfinished export again.
POLL_INTERVAL_MS = 5000


def _create(request: Request, session: Session, user: User, params: Params, *, project: Project | None = None,
            group: Group | None = None) -> dict[str, Any]:
    export = service.create_export(session, author=user, project=project, group=group,
                                   export_format=params.choice("export_format", FORMATS, "csv"),
                                   lifetime_seconds=request.app.state.config.export_lifetime_seconds)
    # The worker looks for new exports in the database: wake it once this one is there.
    after_commit(session, request.app.state.export_worker.wake)
    return export_entity(export, api_base_url=api_base_url(request))


def _attachment(file_name: str) -> str:
    """Content-Disposition of a download, as Rails' send_data writes it."""
    return f"attachment; filename=\"{file_name}\"; filename*=UTF-8''{file_name}"


# Parameters are validated before the project or group is looked up, as Grape does.
@router.post("/security/projects/{project_id}/vulnerability_exports", status_code=201,
             openapi_extra=body_params(EXPORT_FORMAT))
def create_project_export(request: Request, session: SessionDep, user: CurrentUserDep, params: ParamsDep,
                          project_id: str):
    params.choice("export_format", FORMATS)
    project = find_project_for(session, project_id, user, service.CREATE_LEVEL)
    return _create(request, session, user, params, project=project)


@router.post("/security/groups/{group_id}/vulnerability_exports", status_code=201,
             openapi_extra=body_params(EXPORT_FORMAT))
def create_group_export(request: Request, session: SessionDep, user: CurrentUserDep, params: ParamsDep,
                        group_id: str):
    params.choice("export_format", FORMATS)
    group = find_group_for(session, group_id, user, service.CREATE_LEVEL)
    return _create(request, session, user, params, group=group)


@router.post("/security/vulnerability_exports", status_code=201, openapi_extra=body_params(EXPORT_FORMAT))
def create_instance_export(request: Request, session: SessionDep, user: CurrentUserDep, params: ParamsDep):
    return _create(request, session, user, params)


@router.get("/security/vulnerability_exports/{export_id}", openapi_extra=query_params())
def get_export(request: Request, session: SessionDep, user: CurrentUserDep, export_id: str):
    export = service.find_export_for(session, user, export_id)
    body = export_entity(export, api_base_url=api_base_url(request))
    if export.status in ("finished", "failed"):
        return body
    return JSONResponse(body, status_code=202, headers={"Poll-Interval": str(POLL_INTERVAL_MS)})


@router.get("/security/vulnerability_exports/{export_id}/download", openapi_extra=query_params(),
            response_class=StreamingResponse)
def download_export(request: Request, session: SessionDep, user: CurrentUserDep, export_id: str):
    export = service.find_export_for(session, user, export_id)
    if export.status != "finished" or export.file_name is None:
        raise http_errors.not_found("Vulnerability Export")
    headers = {"Content-Disposition": _attachment(export.file_name), "Content-Length": str(export.byte_size)}
    return StreamingResponse(service.iter_file(request.app.state.sessionmaker, export.id),
                             media_type="application/octet-stream", headers=headers)
