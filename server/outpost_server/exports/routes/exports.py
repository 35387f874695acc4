"""GitLab's vulnerability exports API (project, group and instance level)."""

from __future__ import annotations

from fastapi import APIRouter, Request, Response
from fastapi.responses import StreamingResponse
from sqlalchemy.orm import Session

from outpost_model.exports import ArchiveExport, Export
from outpost_server import http_errors
from outpost_server.accounts.models import Group, Project, User
from outpost_server.accounts.service import find_group_for, find_project_for
from outpost_server.auth import CurrentUserDep
from outpost_server.db import SessionDep, after_commit
from outpost_server.deps import Services, ServicesDep
from outpost_server.entity_json import EntityResponse
from outpost_server.exports import filters, report_data, service
from outpost_server.exports.entities import export_entity
from outpost_server.exports.jobs import ExportWorker
from outpost_server.exports.models import FORMATS, VulnerabilityExport
from outpost_server.params import Param, Params, ParamsDep, body_params, query_params
from outpost_server.urls import api_base_url

router = APIRouter(tags=["vulnerability exports"])

EXPORT_FORMAT = Param("export_format", choices=FORMATS, default="csv")
# Default true for pdf, false for csv (GitLab's `given export_format:` blocks).
SEND_EMAIL = Param("send_email", "boolean")
FILTERS = Param("filters", "object")
REPORT_DATA = Param("report_data", "object")
# The instance level declares no report_data in GitLab.
SCOPED_PARAMS = body_params(EXPORT_FORMAT, SEND_EMAIL, FILTERS, REPORT_DATA)
INSTANCE_PARAMS = body_params(EXPORT_FORMAT, SEND_EMAIL, FILTERS)
# How long GitLab tells clients to wait before asking about an unfinished export again.
POLL_INTERVAL_MS = 5000


def _options(params: Params, *, with_report_data: bool) -> service.ExportOptions:
    """Every parameter checked, as Grape does, before the project or group is looked up."""
    export_format = params.choice("export_format", FORMATS, "csv")
    return service.ExportOptions(
        export_format=export_format,
        send_email=params.bool("send_email", export_format == "pdf"),
        filters=filters.parse(params.raw("filters")),
        report_data=report_data.clean(params.raw("report_data")) if with_report_data else {})


def _create(request: Request, services: Services, session: Session, user: User, options: service.ExportOptions, *,
            project: Project | None = None, group: Group | None = None) -> EntityResponse:
    export = service.create_export(session, author=user, project=project, group=group, options=options,
                                   lifetime_seconds=services.config.vulnerability_export_lifetime,
                                   api_base_url=api_base_url(request))
    # The worker looks for new exports in the database: wake it once this one is there.
    after_commit(session, services.part(ExportWorker).wake)
    return EntityResponse(export_entity(export, api_base_url=api_base_url(request)), status_code=201)


@router.post("/security/projects/{project_id}/vulnerability_exports", status_code=201, openapi_extra=SCOPED_PARAMS)
def create_project_export(request: Request, services: ServicesDep, session: SessionDep, user: CurrentUserDep,
                          params: ParamsDep, project_id: str) -> Response:
    options = _options(params, with_report_data=True)
    project = find_project_for(session, project_id, user, service.CREATE_LEVEL)
    return _create(request, services, session, user, options, project=project)


@router.post("/security/groups/{group_id}/vulnerability_exports", status_code=201, openapi_extra=SCOPED_PARAMS)
def create_group_export(request: Request, services: ServicesDep, session: SessionDep, user: CurrentUserDep,
                        params: ParamsDep, group_id: str) -> Response:
    options = _options(params, with_report_data=True)
    group = find_group_for(session, group_id, user, service.CREATE_LEVEL)
    return _create(request, services, session, user, options, group=group)


@router.post("/security/vulnerability_exports", status_code=201, openapi_extra=INSTANCE_PARAMS)
def create_instance_export(request: Request, services: ServicesDep, session: SessionDep, user: CurrentUserDep,
                           params: ParamsDep) -> Response:
    return _create(request, services, session, user, _options(params, with_report_data=False))


def polled(export: VulnerabilityExport, body: Export | ArchiveExport) -> EntityResponse:
    """200 once the export is finished or failed; 202 with Poll-Interval before."""
    if export.status in ("finished", "failed"):
        return EntityResponse(body)
    return EntityResponse(body, status_code=202, headers={"Poll-Interval": str(POLL_INTERVAL_MS)})


@router.get("/security/vulnerability_exports/{export_id}", openapi_extra=query_params())
def get_export(request: Request, session: SessionDep, user: CurrentUserDep, export_id: str) -> Response:
    export = service.find_export_for(session, user, export_id)
    return polled(export, export_entity(export, api_base_url=api_base_url(request)))


def file_response(services: Services, export: VulnerabilityExport, resource: str) -> StreamingResponse:
    """The finished export's file as an attachment; 404 `<resource> Not Found` before."""
    if export.status != "finished" or export.file_name is None:
        raise http_errors.not_found(resource)
    name = export.file_name
    # As Rails' send_data writes it.
    headers = {"Content-Disposition": f"attachment; filename=\"{name}\"; filename*=UTF-8''{name}",
               "Content-Length": str(export.byte_size)}
    return StreamingResponse(service.iter_file(services.sessions, export.id),
                             # GitLab's present_carrierwave_file! -> present_disk_file!: its default
                             # content type, for the PDF as well as the CSV.
                             media_type="application/octet-stream", headers=headers)


@router.get("/security/vulnerability_exports/{export_id}/download", openapi_extra=query_params(),
            response_class=StreamingResponse)
def download_export(services: ServicesDep, session: SessionDep, user: CurrentUserDep, export_id: str) -> Response:
    return file_response(services, service.find_export_for(session, user, export_id), "Vulnerability Export")
