"""Sentry's artifact bundle listing and deletion, for the console's Source maps page and `sentry-cli`.

GET/DELETE /api/0/projects/{org}/{project}/files/artifact-bundles/ (artifact_bundles.py) and
GET /api/0/projects/{org}/{project}/artifact-bundles/{bundle_id}/files/ (project_artifact_bundle_files.py).
"""

from __future__ import annotations

from fastapi import APIRouter
from fastapi.responses import JSONResponse, Response

from outpost_server.db import SessionDep
from outpost_server.entity_json import EntityResponse
from outpost_server.params import Param, ParamsDep, query_params
from outpost_server.sentry_api.access import CallerDep, not_found, project_for

from .. import bundles
from ..access import releasable_project
from ..serializers import bundle_files_json, bundle_json

router = APIRouter()


@router.get("/projects/{organization}/{project_slug}/files/artifact-bundles/", openapi_extra=query_params())
def list_bundles(session: SessionDep, caller: CallerDep, organization: str, project_slug: str) -> Response:
    project = project_for(session, caller, organization, project_slug)
    return EntityResponse([bundle_json(bundle) for bundle, _ in bundles.project_bundles(session, project.id)])


@router.delete("/projects/{organization}/{project_slug}/files/artifact-bundles/",
               openapi_extra=query_params(Param("bundleId", required=True)))
def delete_bundle(session: SessionDep, caller: CallerDep, params: ParamsDep, organization: str,
                  project_slug: str) -> Response:
    """A missing `bundleId` is answered as Sentry's handler does (404, its own words)."""
    project = releasable_project(session, caller, organization, project_slug)
    bundle_id = params.str("bundleId")
    if not bundle_id:
        return JSONResponse({"error": f"Supplied an invalid bundle_id {bundle_id}"}, status_code=404)
    bundle = bundles.find_bundle(session, project.id, bundle_id)
    if bundle is None:
        return JSONResponse({"error": f"Couldn't find a bundle with bundle_id {bundle_id}"}, status_code=404)
    bundles.delete_bundle(session, bundle)
    return Response(status_code=204)


@router.get("/projects/{organization}/{project_slug}/artifact-bundles/{bundle_id}/files/",
            openapi_extra=query_params())
def bundle_files(session: SessionDep, caller: CallerDep, organization: str, project_slug: str,
                 bundle_id: str) -> Response:
    project = project_for(session, caller, organization, project_slug)
    for bundle, files in bundles.project_bundles(session, project.id):
        if bundle.bundle_id == bundle_id:
            return EntityResponse(bundle_files_json(bundle, files))
    raise not_found()
