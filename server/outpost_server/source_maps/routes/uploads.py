"""Sentry's chunk upload and artifact bundle assemble endpoints, as sentry-cli calls them.

GET/POST /api/0/organizations/{org}/chunk-upload/ (src/sentry/api/endpoints/chunk.py) and
POST /api/0/organizations/{org}/artifactbundle/assemble/
(src/sentry/api/endpoints/organization_artifactbundle_assemble.py). Assembly runs in the request, in
one transaction, so a failed upload stores nothing; the answer is still Sentry's `created`, and the
poll that follows reads `ok` or `error` with its detail.
"""

from __future__ import annotations

import gzip
import json
import re
import zlib
from typing import Any

from fastapi import APIRouter, Request
from fastapi.responses import JSONResponse, Response
from sqlalchemy.orm import Session
from starlette.concurrency import run_in_threadpool
from starlette.datastructures import UploadFile
from starlette.formparsers import MultiPartException

from outpost_model.source_maps import AssembleState, ChunkUploadOptions
from outpost_server.config import ServerConfig
from outpost_server.db import SessionDep
from outpost_server.deps import services_of
from outpost_server.entity_json import EntityResponse
from outpost_server.params import Param, body_params, query_params
from outpost_server.sentry_api.access import Caller, CallerDep, may_release, not_found
from outpost_server.urls import public_base_url

from .. import bundles, uploads
from ..access import multipart_body, named_projects, organization_projects, require_release_access
from ..archive import ExpansionLimits
from ..uploads import AssembleError, ChunkRefused

router = APIRouter()
SHA1 = re.compile(r"^[0-9a-f]{40}$")
FIELD_ERRORS = {
    "version": 'The version field cannot be empty and cannot contain any "/" characters.',
    "dist": "The dist field must be a string.",
    "projects": "The projects field is required and must be provided as an array of strings.",
    "checksum": "The checksum field is required and must be a 40-character hexadecimal string.",
    "chunks": "The chunks field is required and must be provided as an array of 40-character hexadecimal strings.",
}


def error(status: int, message: str) -> JSONResponse:
    return JSONResponse({"error": message}, status_code=status)


@router.get("/organizations/{organization}/chunk-upload/", openapi_extra=query_params())
def chunk_upload_options(request: Request, session: SessionDep, caller: CallerDep, organization: str) -> Response:
    require_release_access(session, caller, organization)
    return EntityResponse(ChunkUploadOptions(
        url=f"{public_base_url(request)}/api/0/organizations/{organization}/chunk-upload/",
        chunkSize=uploads.CHUNK_SIZE,
        chunksPerRequest=uploads.MAX_CHUNKS_PER_REQUEST,
        maxFileSize=services_of(request.app).config.source_maps_max_file_bytes,
        maxRequestSize=uploads.MAX_REQUEST_SIZE,
        concurrency=uploads.MAX_CONCURRENCY,
        hashAlgorithm=uploads.HASH_ALGORITHM,
        compression=["gzip"],
        accept=list(uploads.ACCEPT),
    ))


async def _chunks(request: Request) -> list[tuple[str, bytes]]:
    """The request's chunks (`file` and gzip-compressed `file_gzip` parts, named by their SHA-1)."""
    try:
        form = await request.form(max_files=10_000, max_part_size=uploads.MAX_REQUEST_SIZE)
    except MultiPartException:
        raise ChunkRefused("Request too large") from None
    chunks = []
    for field in ("file", "file_gzip"):
        for part in form.getlist(field):
            if not isinstance(part, UploadFile):
                continue
            data = await part.read()
            if field == "file_gzip":
                try:
                    # Bounded: a chunk never expands beyond one byte over the chunk size.
                    data = zlib.decompressobj(16 + zlib.MAX_WBITS).decompress(data, uploads.CHUNK_SIZE + 1)
                except (zlib.error, gzip.BadGzipFile, EOFError):
                    raise ChunkRefused("Invalid gzip chunk") from None
            chunks.append((part.filename or "", data))
    return chunks


@router.post("/organizations/{organization}/chunk-upload/",
             openapi_extra=multipart_body(("file", "binary"), ("file_gzip", "binary")))
async def upload_chunks(request: Request, session: SessionDep, caller: CallerDep, organization: str) -> Response:
    await run_in_threadpool(require_release_access, session, caller, organization)
    try:
        chunks = await _chunks(request)
        if chunks:
            await run_in_threadpool(_store_chunks, session, organization, chunks)
    except ChunkRefused as refused:
        return error(400, str(refused))
    return Response(status_code=200)


def _store_chunks(session: Session, organization: str, chunks: list[tuple[str, bytes]]) -> None:
    try:
        uploads.store_chunks(session, organization, chunks)
    except ChunkRefused:
        session.rollback()  # a refused request keeps none of its chunks
        raise


def _validate_assemble(body: Any) -> str | None:
    """The first schema violation's message (Sentry validates with jsonschema), or None."""
    if not isinstance(body, dict):
        return f"{body!r} is not of type 'object'"
    for field in ("checksum", "chunks", "projects"):
        if field not in body:
            return f"'{field}' is a required property"
    extra = set(body) - {"version", "dist", "projects", "checksum", "chunks"}
    if extra:
        return f"Additional properties are not allowed ({', '.join(repr(name) for name in sorted(extra))} " \
               f"{'were' if len(extra) > 1 else 'was'} unexpected)"
    valid = {
        "version": lambda value: isinstance(value, str) and re.fullmatch(r"[^/]+", value) is not None,
        "dist": lambda value: isinstance(value, str),
        "projects": lambda value: isinstance(value, list) and all(isinstance(item, str) for item in value),
        "checksum": lambda value: isinstance(value, str) and SHA1.match(value) is not None,
        "chunks": lambda value: isinstance(value, list)
        and all(isinstance(item, str) and SHA1.match(item) for item in value),
    }
    for field, check in valid.items():
        if field in body and not check(body[field]):
            return FIELD_ERRORS[field]
    return None


@router.post("/organizations/{organization}/artifactbundle/assemble/", openapi_extra=body_params(
    Param("checksum", required=True), Param("chunks", "array", required=True),
    Param("projects", "array", required=True), Param("version"), Param("dist")))
async def assemble_artifact_bundle(request: Request, session: SessionDep, caller: CallerDep,
                                   organization: str) -> Response:
    await run_in_threadpool(require_release_access, session, caller, organization)
    try:
        body = json.loads(await request.body())
    except ValueError:
        return error(400, "Invalid json body")
    return await run_in_threadpool(_assemble, request, session, caller, organization, body)


def _assemble(request: Request, session: Session, caller: Caller, organization: str, body: Any):
    problem = _validate_assemble(body)
    if problem:
        return error(400, problem)
    if not body["projects"]:
        return error(400, "You need to specify at least one project")
    projects = named_projects(organization_projects(session, caller, organization), body["projects"])
    if projects is None:
        return error(400, "One or more projects are invalid")
    if not all(may_release(session, caller, project) for project in projects):
        raise not_found()
    checksum, chunks = body["checksum"], body["chunks"]
    missing = uploads.missing_chunks(session, organization, chunks)
    if missing:
        return EntityResponse(AssembleState(state=uploads.NOT_FOUND, missingChunks=missing))
    task = uploads.bundle_task(project.id for project in projects)
    status = uploads.get_status(session, organization, task, checksum)
    if status is not None:
        state, detail = status
        return EntityResponse(AssembleState(state=state, detail=None if state == uploads.OK else detail,
                                            missingChunks=[]))
    if not chunks:
        return EntityResponse(AssembleState(state=uploads.NOT_FOUND, missingChunks=[]))
    version, dist = body.get("version"), body.get("dist")
    if not version and dist:
        return error(400, "You need to specify a release together with a dist")
    config = services_of(request.app).config
    try:
        with assembled_file(session, config, organization, checksum, chunks) as file:
            bundles.store_bundle(session, projects=projects, source=file, checksum=checksum, release=version,
                                 dist=dist, budget=config.source_maps_project_bytes, limits=expansion_limits(config))
        uploads.set_status(session, organization, task, checksum, uploads.OK)
    except AssembleError as failure:
        session.rollback()
        uploads.set_status(session, organization, task, checksum, uploads.ERROR, str(failure))
    return EntityResponse(AssembleState(state=uploads.CREATED, missingChunks=[]))


def expansion_limits(config: ServerConfig) -> ExpansionLimits:
    return ExpansionLimits(member_bytes=config.source_maps_max_member_bytes,
                           total_bytes=config.source_maps_max_expanded_bytes)


def assembled_file(session: Session, config: ServerConfig, organization: str, checksum: str, chunks: list[str]):
    """The assembled upload as a temporary file in the data directory (not /tmp, which may be memory)."""
    return uploads.assembled(session, organization, checksum, chunks, max_size=config.source_maps_max_file_bytes,
                             directory=config.data_dir)
