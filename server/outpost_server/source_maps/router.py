"""The source map endpoints of Sentry's web API, mounted under /api/0 before its catch-all."""

from __future__ import annotations

from fastapi import APIRouter

from . import api_bundles, api_releases, api_uploads

router = APIRouter(tags=["source maps"])
for resource in (api_uploads, api_releases, api_bundles):
    router.include_router(resource.router)
