"""Vulnerability exports and archive exports under /api/v4."""

from __future__ import annotations

from fastapi import APIRouter

from .routes import archive, exports

router = APIRouter()
for _module in (exports, archive):
    router.include_router(_module.router)
