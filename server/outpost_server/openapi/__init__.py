"""The /api/v4/openapi.json document: FastAPI's, with every operation's success responses declared
(responses.py, as outpost_model types whose schemas are generated here) and without the 422 FastAPI
assumes, since parameter errors are answered 400 with GitLab's body."""

from __future__ import annotations

from collections.abc import Mapping
from http import HTTPStatus
from typing import Any

from fastapi import FastAPI
from fastapi.openapi.utils import get_openapi

from outpost_model.schema import json_schema
from outpost_server.openapi.responses import RESPONSES, Binary, Body

_VALIDATION_SCHEMAS = ("HTTPValidationError", "ValidationError")


def install(app: FastAPI) -> None:
    """Make `app` serve the document with the declared responses (built once, on first request)."""

    def document() -> dict[str, Any]:
        if app.openapi_schema is None:
            schema = get_openapi(title=app.title, version=app.version, openapi_version=app.openapi_version,
                                 routes=app.routes)
            declare_responses(schema)
            app.openapi_schema = schema
        return app.openapi_schema

    app.openapi = document  # type: ignore[method-assign]  # FastAPI's documented way to customise it


def declare_responses(document: dict[str, Any]) -> None:
    for path, operations in document.get("paths", {}).items():
        for method, operation in operations.items():
            responses = operation.setdefault("responses", {})
            responses.pop("422", None)
            declared = RESPONSES.get(f"{method.upper()} {path}")
            if declared is None:
                continue
            for status in [status for status in responses if status.startswith("2")]:
                del responses[status]
            for status, body in declared.items():
                responses[str(status)] = _response(status, body)
    schemas = document.get("components", {}).get("schemas", {})
    for name in _VALIDATION_SCHEMAS:
        schemas.pop(name, None)
    if "components" in document and not schemas:
        document["components"].pop("schemas", None)
        if not document["components"]:
            del document["components"]


def _response(status: int, body: Body) -> dict[str, Any]:
    response: dict[str, Any] = {"description": HTTPStatus(status).phrase}
    if isinstance(body, Binary):
        response["content"] = {media: {"schema": {"type": "string", "format": "binary"}}
                               for media in body.media_types}
    elif isinstance(body, Mapping):
        # A schema written by hand would drift from what the handler sends.
        raise TypeError(f"declare the {status} body as an outpost_model entity, not as a schema: {body!r}")
    elif body is not None:
        response["content"] = {"application/json": {"schema": json_schema(body)}}
    return response
