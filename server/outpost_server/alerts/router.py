"""The alerts domain's HTTP surface: GlitchTip's project alerts under /api/0 (`router`) and the
instance mail settings under /api/v4 (`api_router`)."""

from __future__ import annotations

from fastapi import APIRouter

from .routes import mail, rules

router = APIRouter()
router.include_router(rules.router)
api_router = APIRouter()
api_router.include_router(mail.router)
