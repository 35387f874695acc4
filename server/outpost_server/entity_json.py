"""Answers whose body is one of outpost_model's entities (or JSON values holding them), encoded by msgspec.

Starlette's JSONResponse goes through `json.dumps`, which knows no structs and is several times slower
(bench/model_encoding.py); FastAPI's own encoder is slower still. A route answers an entity through here.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from fastapi.responses import Response

from outpost_model import encode


class EntityResponse(Response):
    media_type = "application/json"

    def __init__(self, content: Any, status_code: int = 200, headers: Mapping[str, str] | None = None) -> None:
        super().__init__(content, status_code=status_code, headers=headers)

    def render(self, content: Any) -> bytes:
        return encode(content)
