"""GitLab's error tracking API under /api/v4: settings and client keys, retention and the instance's storage; `install`
adds the collector's shortcut in front of the application."""

from __future__ import annotations

from fastapi import APIRouter

from outpost_server.deps import OutpostApp
from outpost_server.error_tracking.ingest import collector
from outpost_server.error_tracking.routes import retention, settings, storage

router = APIRouter()
for _module in (settings, retention, storage):
    router.include_router(_module.router)


def install(app: OutpostApp) -> None:
    collector.install(app)
