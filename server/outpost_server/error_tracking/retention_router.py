"""Retention limits and storage use of a project's error tracking: an Outpost extension, not in GitLab.

GET and PUT /projects/:id/error_tracking/retention (Maintainer or more, like the settings API).
"""

from __future__ import annotations

from fastapi import APIRouter, FastAPI, Request

from outpost_server import errors
from outpost_server.auth import CurrentUserDep
from outpost_server.db import SessionDep
from outpost_server.params import Params, ParamsDep
from outpost_server.timefmt import iso

from . import retention
from .models import PruneLease
from .pruner import LEASE_ID, Pruner
from .router import _operations_project

router = APIRouter(tags=["error tracking"])


def install(app: FastAPI) -> None:
    settings = app.state.settings
    if not settings.error_tracking_pruner:
        return

    async def start_pruner(app: FastAPI) -> None:
        pruner = Pruner(app.state.sessionmaker, defaults=retention.instance_policy(settings),
                        interval_seconds=settings.error_tracking_prune_interval_seconds)
        pruner.start()
        app.state.error_tracking_pruner = pruner

    async def stop_pruner(app: FastAPI) -> None:
        await app.state.error_tracking_pruner.stop()

    app.state.startup_hooks.append(start_pruner)
    app.state.shutdown_hooks.append(stop_pruner)


def _retention_entity(session, request: Request, project_id: int) -> dict:
    defaults = retention.instance_policy(request.app.state.settings)
    override = retention.find_override(session, project_id=project_id)
    policy = retention.project_policy(defaults, override)
    usage = retention.stored_usage(session, project_id=project_id)
    lease = session.get(PruneLease, LEASE_ID)
    return {
        **{name: getattr(policy, name) for name in retention.LIMIT_NAMES},
        "instance_defaults": {name: getattr(defaults, name) for name in retention.LIMIT_NAMES},
        "overridden": [name for name in retention.LIMIT_NAMES
                       if override is not None and getattr(override, name) is not None],
        "stored_events": usage.events,
        "stored_bytes": usage.payload_bytes,
        "last_pruned_at": iso(lease.last_finished_at) if lease is not None else None,
    }


# Byte budgets go beyond the 32-bit limit of ordinary integer parameters (the column is BIGINT).
LIMIT_MAXIMUM = 2**62


def _limit(params: Params, name: str) -> int | None:
    """A limit: a whole number of at least 0 (0 = no limit); an empty value means the instance default."""
    value = params.raw(name)
    if value in ("", None):
        return None
    if isinstance(value, str) and value.strip().isascii() and value.strip().isdigit():
        value = int(value.strip())
    if isinstance(value, bool) or not isinstance(value, int) or not 0 <= value <= LIMIT_MAXIMUM:
        raise errors.invalid_param(name)
    return value


@router.get("/projects/{project_id}/error_tracking/retention")
def get_retention(request: Request, session: SessionDep, user: CurrentUserDep, project_id: str):
    project = _operations_project(session, project_id, user)
    return _retention_entity(session, request, project.id)


@router.put("/projects/{project_id}/error_tracking/retention")
def put_retention(request: Request, session: SessionDep, user: CurrentUserDep, params: ParamsDep, project_id: str,
                  retention_days: str | None = None, events_per_error: str | None = None,
                  max_stored_bytes: str | None = None):
    project = _operations_project(session, project_id, user)
    changes = {name: _limit(params, name) for name in retention.LIMIT_NAMES if name in params}
    if not changes:
        # Grape's `at_least_one_of` message.
        raise errors.ApiError(400, {"error": f"{', '.join(retention.LIMIT_NAMES)} are missing, "
                                             "at least one parameter must be provided"})
    retention.save_override(session, project_id=project.id, changes=changes)
    session.commit()
    return _retention_entity(session, request, project.id)
