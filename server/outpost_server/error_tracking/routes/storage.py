"""The instance's error tracking storage, for administrators: an Outpost extension, not in GitLab.

GET /error_tracking/storage: events, payload bytes and estimated size on disk per project that
has stored events, and the instance's totals (storage_usage.py says what is exact and what estimated).
"""

from __future__ import annotations

from fastapi import APIRouter, Response

from outpost_model.retention import ProjectStorage, Storage
from outpost_server.auth import AdminUserDep
from outpost_server.db import SessionDep
from outpost_server.entity_json import EntityResponse
from outpost_server.error_tracking.retention import storage_usage
from outpost_server.params import query_params

router = APIRouter(tags=["error tracking"])


@router.get("/error_tracking/storage", openapi_extra=query_params())
def get_storage(session: SessionDep, _admin: AdminUserDep) -> Response:
    storage = storage_usage.instance_storage(session)
    return EntityResponse(Storage(
        projects=[ProjectStorage(project_id=row.project_id, path_with_namespace=row.full_path, events=row.events,
                                 payload_bytes=row.payload_bytes, disk_bytes=row.disk_bytes)
                  for row in storage.projects],
        events=storage.events, payload_bytes=storage.payload_bytes, disk_bytes=storage.disk_bytes,
        disk_basis=storage.basis))
