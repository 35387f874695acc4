"""GitLab's vulnerability exports API (project, group and instance level)."""

from __future__ import annotations

from fastapi import APIRouter, FastAPI, Request
from fastapi.responses import JSONResponse, StreamingResponse

from outpost_server import errors
from outpost_server.accounts.service import find_group_for, find_project_for
from outpost_server.auth import CurrentUserDep
from outpost_server.db import SessionDep
from outpost_server.exports import service
from outpost_server.exports.jobs import ExportWorker
from outpost_server.exports.models import FORMATS
from outpost_server.params import ParamsDep

router = APIRouter(tags=["vulnerability exports"])


def _create(request: Request, session, user, params, *, project=None, group=None) -> dict:
    export = service.create_export(session, author=user, project=project, group=group,
                                   export_format=params.choice("export_format", FORMATS, "csv"),
                                   lifetime_seconds=request.app.state.settings.export_lifetime_seconds)
    session.commit()
    request.app.state.export_worker.wake()
    return service.export_entity(request, export)


# Parameters are validated before the project or group is looked up, as Grape does.
@router.post("/security/projects/{project_id}/vulnerability_exports", status_code=201)
def create_project_export(request: Request, session: SessionDep, user: CurrentUserDep, params: ParamsDep,
                          project_id: str):
    params.choice("export_format", FORMATS)
    project = find_project_for(session, project_id, user, service.CREATE_LEVEL)
    return _create(request, session, user, params, project=project)


@router.post("/security/groups/{group_id}/vulnerability_exports", status_code=201)
def create_group_export(request: Request, session: SessionDep, user: CurrentUserDep, params: ParamsDep,
                        group_id: str):
    params.choice("export_format", FORMATS)
    group = find_group_for(session, group_id, user, service.CREATE_LEVEL)
    return _create(request, session, user, params, group=group)


@router.post("/security/vulnerability_exports", status_code=201)
def create_instance_export(request: Request, session: SessionDep, user: CurrentUserDep, params: ParamsDep):
    return _create(request, session, user, params)


@router.get("/security/vulnerability_exports/{export_id}")
def get_export(request: Request, session: SessionDep, user: CurrentUserDep, export_id: str):
    export = service.find_export_for(session, user, export_id)
    body = service.export_entity(request, export)
    if export.status in ("finished", "failed"):
        return body
    return JSONResponse(body, status_code=202, headers={"Poll-Interval": str(service.POLL_INTERVAL_MS)})


@router.get("/security/vulnerability_exports/{export_id}/download")
def download_export(request: Request, session: SessionDep, user: CurrentUserDep, export_id: str):
    export = service.find_export_for(session, user, export_id)
    if export.status != "finished":
        raise errors.not_found("Vulnerability Export")
    headers = {"Content-Disposition": service.content_disposition(export.file_name),
               "Content-Length": str(export.byte_size)}
    return StreamingResponse(service.iter_file(request.app.state.sessionmaker, export.id),
                             media_type="application/octet-stream", headers=headers)


def install(app: FastAPI) -> None:
    """Runs the export worker for as long as the server runs."""

    async def start_worker(app: FastAPI) -> None:
        worker = ExportWorker(app.state.sessionmaker, lease_seconds=app.state.settings.export_lease_seconds)
        app.state.export_worker = worker
        if app.state.settings.export_worker:
            worker.start()

    async def stop_worker(app: FastAPI) -> None:
        await app.state.export_worker.stop()

    app.state.startup_hooks.append(start_worker)
    app.state.shutdown_hooks.append(stop_worker)
