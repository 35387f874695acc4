"""The source map endpoints of Sentry's web API, mounted under /api/0 before its catch-all."""

from __future__ import annotations

from fastapi import APIRouter

from .routes import bundles, releases, uploads

router = APIRouter(tags=["source maps"])
for resource in (uploads, releases, bundles):
    router.include_router(resource.router)
