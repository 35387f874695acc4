"""Retention limits and storage use of a project's error tracking: an Outpost extension, not in GitLab.

GET and PUT /projects/:id/error_tracking/retention (Maintainer or more, like the settings API).
"""

from __future__ import annotations

from fastapi import APIRouter, Response

from outpost_model.retention import Retention, RetentionPolicy
from outpost_server import http_errors
from outpost_server.auth import CurrentUserDep
from outpost_server.compat.gitlab_time import iso
from outpost_server.config import ServerConfig
from outpost_server.db import MAX_ROW_ID, SessionDep
from outpost_server.deps import ConfigDep
from outpost_server.entity_json import EntityResponse
from outpost_server.error_tracking.access import managed_project
from outpost_server.error_tracking.models import PruneLease
from outpost_server.error_tracking.retention import limits, storage_usage
from outpost_server.error_tracking.retention.pruner import LEASE_ID
from outpost_server.params import Param, Params, ParamsDep, body_params, query_params
from outpost_server.source_maps.bundles import project_usage

router = APIRouter(tags=["error tracking"])


def _retention_entity(session, config: ServerConfig, project_id: int) -> Retention:
    defaults = limits.instance_policy(config)
    override = limits.find_override(session, project_id=project_id)
    policy = limits.project_policy(defaults, override)
    tables_bytes = storage_usage.event_tables_bytes(session)  # before the counters (storage_usage.instance_storage)
    usage = limits.stored_usage(session, project_id=project_id)
    lease = session.get(PruneLease, LEASE_ID)
    return Retention(
        **{name: getattr(policy, name) for name in limits.LIMIT_NAMES},
        instance_defaults=RetentionPolicy(**{name: getattr(defaults, name) for name in limits.LIMIT_NAMES}),
        overridden=[name for name in limits.LIMIT_NAMES
                    if override is not None and getattr(override, name) is not None],
        stored_events=usage.events,
        stored_bytes=usage.payload_bytes,
        disk_bytes=storage_usage.project_disk_bytes(session, events=usage.events, tables_bytes=tables_bytes),
        disk_basis=storage_usage.disk_basis(session),
        last_pruned_at=iso(lease.last_finished_at) if lease is not None else None,
        artifact_bytes=project_usage(session, project_id),
        artifact_budget_bytes=config.source_maps_project_bytes,
    )


# Byte budgets go beyond the 32-bit limit of ordinary integer parameters (their column is BIGINT); days
# and event counts live in INTEGER columns.
LIMIT_MAXIMUM = {"max_stored_bytes": 2**62}


def _limit(params: Params, name: str) -> int | None:
    """A limit: a whole number of at least 0 (0 = no limit); an empty value means the instance default."""
    value = params.raw(name)
    if value in ("", None):
        return None
    if isinstance(value, str) and value.strip().isascii() and value.strip().isdigit():
        value = int(value.strip())
    if isinstance(value, bool) or not isinstance(value, int) or not 0 <= value <= LIMIT_MAXIMUM.get(name, MAX_ROW_ID):
        raise http_errors.invalid_param(name)
    return value


@router.get("/projects/{project_id}/error_tracking/retention", openapi_extra=query_params())
def get_retention(config: ConfigDep, session: SessionDep, user: CurrentUserDep, project_id: str) -> Response:
    project = managed_project(session, project_id, user)
    return EntityResponse(_retention_entity(session, config, project.id))


# Each limit: a whole number, 0 for no limit, empty for the instance default.
@router.put("/projects/{project_id}/error_tracking/retention", openapi_extra=body_params(
    *(Param(name, "integer") for name in limits.LIMIT_NAMES)))
def put_retention(config: ConfigDep, session: SessionDep, user: CurrentUserDep, params: ParamsDep,
                  project_id: str) -> Response:
    project = managed_project(session, project_id, user)
    changes = {name: _limit(params, name) for name in limits.LIMIT_NAMES if name in params}
    if not changes:
        # Grape's `at_least_one_of` message.
        raise http_errors.ApiError(400, {"error": f"{', '.join(limits.LIMIT_NAMES)} are missing, "
                                             "at least one parameter must be provided"})
    limits.save_override(session, project_id=project.id, changes=changes)
    return EntityResponse(_retention_entity(session, config, project.id))
