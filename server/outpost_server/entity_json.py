"""Answers whose body is one of outpost_model's entities (or a list of them), encoded by msgspec.

Starlette's JSONResponse goes through `json.dumps`, which knows no structs and is several times slower
(bench/model_encoding.py); FastAPI's own encoder is slower still. A route answers an entity through here.
The content is typed, and every route handler is annotated to return a Response, so mypy refuses a body
built by hand (tests/server/test_no_hand_built_answers.py checks the annotations).
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from typing import Any

from fastapi.responses import Response

from outpost_model import Entity, encode

# An entity, a list of them, or GitLab's true, false or null (a user's state change).
Answer = Entity | Sequence[Entity] | bool | None


class EntityResponse(Response):
    media_type = "application/json"

    def __init__(self, content: Answer, status_code: int = 200, headers: Mapping[str, str] | None = None) -> None:
        super().__init__(content, status_code=status_code, headers=headers)

    def render(self, content: Any) -> bytes:
        return encode(content)


class RelayedJson(EntityResponse):
    """An external Sentry's JSON passed on as it came, for a project whose backend is that Sentry: not built
    here, so not typed as an entity (the OpenAPI document declares the entity, which Sentry's answers match)."""

    def __init__(self, content: Any, status_code: int = 200, headers: Mapping[str, str] | None = None) -> None:
        Response.__init__(self, content, status_code=status_code, headers=headers)
