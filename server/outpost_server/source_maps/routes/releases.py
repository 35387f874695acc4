"""Sentry's release and release file endpoints that sentry-cli 2.x's legacy flow calls.

POST /organizations/{org}/releases/ and GET …/releases/{version}/ (organization_releases.py,
organization_release_details.py); GET/POST /projects/{org}/{project}/releases/ (project_releases.py);
GET/POST /projects/{org}/{project}/releases/{version}/files/ (project_release_files.py);
PUT /organizations/{org}/releases/{version}/ and /projects/{org}/{project}/releases/{version}/
(`releases finalize`); GET/DELETE …/files/{file_id}/ (project_release_file_details.py); POST
/organizations/{org}/releases/{version}/assemble/ (organization_release_assemble.py); DELETE
/projects/{org}/{project}/files/source-maps/?name={version} (source_maps.py).
"""

from __future__ import annotations

import datetime as dt
import json
from typing import Any

from fastapi import APIRouter, Request
from fastapi.responses import JSONResponse, Response
from sqlalchemy import delete
from sqlalchemy.orm import Session
from starlette.concurrency import run_in_threadpool
from starlette.datastructures import UploadFile
from starlette.formparsers import MultiPartException

from outpost_model.source_maps import AssembleState
from outpost_server.db import SessionDep, parse_id
from outpost_server.deps import services_of
from outpost_server.entity_json import EntityResponse
from outpost_server.params import Param, ParamsDep, body_params, query_params
from outpost_server.sentry_api.access import Caller, CallerDep, not_found, project_for

from .. import bundles, releases, uploads
from ..access import multipart_body, named_projects, organization_projects, releasable_project, require_release_access
from ..models import ReleaseFile
from ..releases import ReleaseFileRefused
from ..serializers import release_file_json, release_json
from ..uploads import AssembleError
from .uploads import assembled_file, expansion_limits

router = APIRouter()
RELEASE_CHANGES = body_params(Param("dateReleased"), Param("url"))


def _detail(status: int, message: str) -> JSONResponse:
    return JSONResponse({"detail": message}, status_code=status)


async def _json(request: Request) -> Any:
    try:
        return json.loads(await request.body() or b"{}")
    except ValueError:
        return None


def _version_problem(body: Any) -> dict[str, list[str]] | None:
    if not isinstance(body, dict):
        return {"non_field_errors": ["Invalid data. Expected a dictionary, but got list."]}
    version = body.get("version")
    if version is None or version == "":
        return {"version": ["This field is required."]}
    # Django REST framework's CharField refuses NUL before any other check of the field.
    for field in ("version", "url"):
        if isinstance(body.get(field), str) and "\x00" in body[field]:
            return {field: ["Null characters are not allowed."]}
    if not isinstance(version, str) or not bundles.valid_release(version):
        return {"version": ["Release with name %s is not allowed" % version]}
    return None


def _create(session: Session, projects: list, body: dict) -> EntityResponse:
    created_any = False
    first = None
    for project in projects:
        release, created = releases.ensure_release(session, project, body["version"], body.get("url"))
        created_any = created_any or created
        first = first or (release, project)
    session.flush()
    assert first is not None
    return EntityResponse(release_json(*first), status_code=201 if created_any else 208)


@router.post("/organizations/{organization}/releases/", openapi_extra=body_params(
    Param("version", required=True), Param("projects", "array", required=True), Param("url"),
    Param("dateReleased")))
async def create_organization_release(request: Request, session: SessionDep, caller: CallerDep,
                                      organization: str) -> Response:
    body = await _json(request)
    return await run_in_threadpool(_create_in_organization, session, caller, organization, body)


def _create_in_organization(session: Session, caller: Caller, organization: str, body: Any):
    allowed = require_release_access(session, caller, organization)
    problem = _version_problem(body)
    if problem:
        return JSONResponse(problem, status_code=400)
    names = body.get("projects")
    if not names or not isinstance(names, list) or not all(isinstance(name, str) for name in names):
        return JSONResponse({"projects": ["This field is required."]}, status_code=400)
    projects = named_projects(allowed, names)
    if projects is None:
        return JSONResponse({"projects": ["Invalid project slugs"]}, status_code=400)
    return _create(session, projects, body)


@router.post("/projects/{organization}/{project_slug}/releases/", openapi_extra=body_params(
    Param("version", required=True), Param("url"), Param("dateReleased")))
async def create_project_release(request: Request, session: SessionDep, caller: CallerDep, organization: str,
                                 project_slug: str) -> Response:
    body = await _json(request)

    def create():
        project = releasable_project(session, caller, organization, project_slug)
        problem = _version_problem(body)
        if problem:
            return JSONResponse(problem, status_code=400)
        return _create(session, [project], body)

    return await run_in_threadpool(create)


@router.get("/projects/{organization}/{project_slug}/releases/", openapi_extra=query_params())
def list_project_releases(session: SessionDep, caller: CallerDep, organization: str, project_slug: str) -> Response:
    project = project_for(session, caller, organization, project_slug)
    return EntityResponse([release_json(release, project)
                           for release in releases.project_releases(session, project.id)])


@router.get("/organizations/{organization}/releases/{version}/", openapi_extra=query_params())
def organization_release(session: SessionDep, caller: CallerDep, organization: str, version: str) -> Response:
    for project in organization_projects(session, caller, organization):
        release = releases.find_release(session, project.id, version)
        if release is not None:
            return EntityResponse(release_json(release, project))
    raise not_found()


def parse_timestamp(value: Any) -> dt.datetime | None:
    """An ISO 8601 time as sentry-cli sends dateReleased (UTC when it names no zone)."""
    try:
        parsed = dt.datetime.fromisoformat(value) if isinstance(value, str) else None
    except ValueError:
        return None
    return parsed.replace(tzinfo=parsed.tzinfo or dt.timezone.utc) if parsed else None


def _update(session: Session, projects: list, version: str, body: Any):
    """Sets a release's dateReleased and url (sentry-cli's `releases finalize`) in the projects that have it."""
    if not isinstance(body, dict):
        return JSONResponse({"non_field_errors": ["Invalid data."]}, status_code=400)
    if isinstance(body.get("url"), str) and "\x00" in body["url"]:
        return JSONResponse({"url": ["Null characters are not allowed."]}, status_code=400)
    released = body.get("dateReleased")
    when = parse_timestamp(released) if released is not None else None
    if released is not None and when is None:
        return JSONResponse({"dateReleased": ["Datetime has wrong format."]}, status_code=400)
    changed = None
    for project in projects:
        release = releases.find_release(session, project.id, version)
        if release is None:
            continue
        if when is not None:
            release.date_released = when
        if isinstance(body.get("url"), str):
            release.url = body["url"]
        changed = changed or (release, project)
    if changed is None:
        raise not_found()
    return EntityResponse(release_json(*changed))


@router.put("/organizations/{organization}/releases/{version}/", openapi_extra=RELEASE_CHANGES)
async def update_organization_release(request: Request, session: SessionDep, caller: CallerDep, organization: str,
                                      version: str) -> Response:
    body = await _json(request)
    return await run_in_threadpool(lambda: _update(
        session, require_release_access(session, caller, organization), version, body))


@router.put("/projects/{organization}/{project_slug}/releases/{version}/", openapi_extra=RELEASE_CHANGES)
async def update_project_release(request: Request, session: SessionDep, caller: CallerDep, organization: str,
                                 project_slug: str, version: str) -> Response:
    body = await _json(request)
    return await run_in_threadpool(lambda: _update(
        session, [releasable_project(session, caller, organization, project_slug)], version, body))


def _release(session: Session, caller: Caller, organization: str, project_slug: str, version: str, *,
             write: bool):
    project = (releasable_project if write else project_for)(session, caller, organization, project_slug)
    release = releases.find_release(session, project.id, version)
    if release is None:
        raise not_found()
    return release


@router.get("/projects/{organization}/{project_slug}/releases/{version}/files/", openapi_extra=query_params())
def list_release_files(session: SessionDep, caller: CallerDep, organization: str, project_slug: str,
                       version: str) -> Response:
    release = _release(session, caller, organization, project_slug, version, write=False)
    return EntityResponse([release_file_json(file) for file in releases.release_files(session, release)])


@router.post("/projects/{organization}/{project_slug}/releases/{version}/files/", openapi_extra=multipart_body(
    ("file", "binary"), ("name", "string"), ("dist", "string"), ("header", "string")))
async def upload_release_file(request: Request, session: SessionDep, caller: CallerDep, organization: str,
                              project_slug: str, version: str) -> Response:
    release = await run_in_threadpool(_release, session, caller, organization, project_slug, version, write=True)
    config = services_of(request.app).config
    try:
        form = await request.form(max_files=1, max_part_size=config.source_maps_max_file_bytes)
    except MultiPartException:
        return _detail(400, "File too large")
    upload = form.get("file")
    if not isinstance(upload, UploadFile):
        return _detail(400, "Missing uploaded file")
    name = form.get("name") or upload.filename
    if not isinstance(name, str) or not name or name == "file":
        return _detail(400, "File name must be specified")
    data = await upload.read()
    dist = form.get("dist")
    headers = [value for value in form.getlist("header") if isinstance(value, str)]

    def store():
        try:
            parsed = releases.parse_headers(headers, upload.content_type)
            row = releases.add_release_file(session, release, name=name, dist=dist if isinstance(dist, str) else "",
                                            data=data, headers=parsed, budget=config.source_maps_project_bytes)
        except ReleaseFileRefused as refused:
            session.rollback()
            return _detail(refused.status, str(refused))
        session.flush()
        return EntityResponse(release_file_json(row), status_code=201)

    return await run_in_threadpool(store)


def _release_file(session: Session, caller: Caller, organization: str, project_slug: str, version: str,
                  file_id: str, *, write: bool) -> ReleaseFile:
    release = _release(session, caller, organization, project_slug, version, write=write)
    row_id = parse_id(file_id)
    file = releases.find_release_file(session, release, row_id) if row_id is not None else None
    if file is None:
        raise not_found()
    return file


@router.get("/projects/{organization}/{project_slug}/releases/{version}/files/{file_id}/",
            openapi_extra=query_params(Param("download")))
def release_file(session: SessionDep, caller: CallerDep, params: ParamsDep, organization: str, project_slug: str,
                 version: str, file_id: str) -> Response:
    file = _release_file(session, caller, organization, project_slug, version, file_id, write=False)
    if params.str("download") in ("1", "true"):
        return Response(file.data, media_type="application/octet-stream", headers={
            "Content-Disposition": f'attachment; filename="{file.name.rsplit("/", 1)[-1]}"'})
    return EntityResponse(release_file_json(file))


@router.delete("/projects/{organization}/{project_slug}/releases/{version}/files/{file_id}/",
               openapi_extra=query_params())
def delete_release_file(session: SessionDep, caller: CallerDep, organization: str, project_slug: str, version: str,
                        file_id: str) -> Response:
    file = _release_file(session, caller, organization, project_slug, version, file_id, write=True)
    session.delete(file)
    return Response(status_code=204)


@router.delete("/projects/{organization}/{project_slug}/files/source-maps/",
               openapi_extra=query_params(Param("name", required=True)))
def delete_release_archive(session: SessionDep, caller: CallerDep, params: ParamsDep, organization: str,
                           project_slug: str) -> Response:
    """A missing `name` is answered as Sentry's handler does (400, its own words)."""
    project = releasable_project(session, caller, organization, project_slug)
    name = params.str("name")
    release = releases.find_release(session, project.id, name) if name else None
    if release is None:
        return JSONResponse({"error": f"Supplied an invalid name {name}"}, status_code=400)
    session.execute(delete(ReleaseFile).where(ReleaseFile.release_id == release.id))
    return Response(status_code=204)


@router.post("/organizations/{organization}/releases/{version}/assemble/", openapi_extra=body_params(
    Param("checksum", required=True), Param("chunks", "array", required=True)))
async def assemble_release(request: Request, session: SessionDep, caller: CallerDep, organization: str,
                           version: str) -> Response:
    body = await _json(request)
    return await run_in_threadpool(_assemble_release, request, session, caller, organization, version, body)


def _assemble_release(request: Request, session: Session, caller: Caller, organization: str, version: str,
                      body: Any):
    allowed = require_release_access(session, caller, organization)
    found = [release for project in allowed
             if (release := releases.find_release(session, project.id, version)) is not None]
    if not found:
        raise not_found()
    if not isinstance(body, dict) or not isinstance(body.get("checksum"), str) \
            or not isinstance(body.get("chunks"), list):
        return JSONResponse({"error": "Invalid json body"}, status_code=400)
    checksum, chunks = body["checksum"], [str(chunk) for chunk in body["chunks"]]
    task = f"release:{version}"
    status = uploads.get_status(session, organization, task, checksum)
    if status is not None:
        return EntityResponse(AssembleState(state=status[0], detail=status[1], missingChunks=[]))
    if not chunks:
        return EntityResponse(AssembleState(state=uploads.NOT_FOUND, missingChunks=[]))
    missing = uploads.missing_chunks(session, organization, chunks)
    if missing:
        return EntityResponse(AssembleState(state=uploads.NOT_FOUND, missingChunks=missing))
    config = services_of(request.app).config
    try:
        with assembled_file(session, config, organization, checksum, chunks) as file:
            releases.store_release_bundle(session, organization=organization, releases=found, source=file,
                                          budget=config.source_maps_project_bytes, limits=expansion_limits(config))
        uploads.set_status(session, organization, task, checksum, uploads.OK)
    except AssembleError as failure:
        session.rollback()
        uploads.set_status(session, organization, task, checksum, uploads.ERROR, str(failure))
    return EntityResponse(AssembleState(state=uploads.CREATED, missingChunks=[]))
