"""GitLab's vulnerability archive exports API: a project's vulnerabilities detected within a range of days."""

from __future__ import annotations

from fastapi import APIRouter, Request, Response
from fastapi.responses import StreamingResponse

from outpost_server import http_errors
from outpost_server.accounts.service import find_project_for
from outpost_server.auth import CurrentUserDep
from outpost_server.db import SessionDep, after_commit
from outpost_server.deps import ServicesDep
from outpost_server.entity_json import EntityResponse
from outpost_server.exports import service
from outpost_server.exports.entities import archive_export_entity
from outpost_server.exports.jobs import ExportWorker
from outpost_server.exports.models import ARCHIVE, ARCHIVE_FORMATS
from outpost_server.params import Param, ParamsDep, body_params, query_params
from outpost_server.urls import api_base_url

from .exports import file_response, polled

router = APIRouter(tags=["vulnerability archive exports"])


@router.post("/security/projects/{project_id}/vulnerability_archive_exports", status_code=201,
             openapi_extra=body_params(Param("start_date", required=True), Param("end_date", required=True),
                                       Param("export_format", choices=ARCHIVE_FORMATS, default="csv")))
def create_archive_export(request: Request, services: ServicesDep, session: SessionDep, user: CurrentUserDep,
                          params: ParamsDep, project_id: str) -> Response:
    start_date, end_date = params.date("start_date"), params.date("end_date")
    export_format = params.choice("export_format", ARCHIVE_FORMATS, "csv")
    if start_date is None or end_date is None:
        raise http_errors.missing_params(*(name for name, value in (("start_date", start_date),
                                                                    ("end_date", end_date)) if value is None))
    if end_date < start_date:
        raise http_errors.validation_error({"end_date": ["must be on or after start_date"]})
    project = find_project_for(session, project_id, user, service.CREATE_LEVEL)
    options = service.ExportOptions(export_format=export_format, kind=ARCHIVE, start_date=start_date,
                                    end_date=end_date)
    export = service.create_export(session, author=user, project=project, options=options,
                                   lifetime_seconds=services.config.vulnerability_export_lifetime,
                                   api_base_url=api_base_url(request))
    after_commit(session, services.part(ExportWorker).wake)
    return EntityResponse(archive_export_entity(export, api_base_url=api_base_url(request)), status_code=201)


@router.get("/security/vulnerability_archive_exports/{export_id}", openapi_extra=query_params())
def get_archive_export(request: Request, session: SessionDep, user: CurrentUserDep, export_id: str) -> Response:
    export = service.find_export_for(session, user, export_id, kind=ARCHIVE)
    return polled(export, archive_export_entity(export, api_base_url=api_base_url(request)))


@router.get("/security/vulnerability_archive_exports/{export_id}/download", openapi_extra=query_params(),
            response_class=StreamingResponse)
def download_archive_export(services: ServicesDep, session: SessionDep, user: CurrentUserDep,
                            export_id: str) -> Response:
    return file_response(services, service.find_export_for(session, user, export_id, kind=ARCHIVE), "Archive Export")
