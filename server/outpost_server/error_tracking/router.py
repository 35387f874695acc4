"""GitLab's error tracking API under /api/v4: settings and client keys, and retention; `install`
adds the collector's shortcut in front of the application."""

from __future__ import annotations

from fastapi import APIRouter, FastAPI

from . import collector
from .routes import retention, settings

router = APIRouter()
for _module in (settings, retention):
    router.include_router(_module.router)


def install(app: FastAPI) -> None:
    collector.install(app)
