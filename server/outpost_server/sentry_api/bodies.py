"""Reading a request body the way Sentry's web API (Django REST framework) does."""

from __future__ import annotations

from typing import Any

import orjson
from fastapi import Request

from .access import detail


async def json_body(request: Request) -> dict[str, Any]:
    try:
        body = orjson.loads(await request.body() or b"{}")
    except ValueError:
        raise detail(400, "JSON parse error") from None
    if not isinstance(body, dict):
        raise detail(400, "Invalid data. Expected a dictionary.")
    return body
