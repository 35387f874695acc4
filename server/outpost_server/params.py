"""Request parameters the way Grape sees them: query string, form body and JSON body merged."""

from __future__ import annotations

import datetime as dt
import json
from typing import Annotated, Any

from fastapi import Depends, Request

from outpost_server import errors
from outpost_server.db import MAX_ROW_ID

_TRUE = {"1", "t", "true", "y", "yes", "on"}
_FALSE = {"0", "f", "false", "n", "no", "off"}
_MISSING = object()


class Params:
    def __init__(self, values: dict[str, Any]):
        self.values = values

    def __contains__(self, name: str) -> bool:
        return name in self.values

    def raw(self, name: str, default: Any = None) -> Any:
        return self.values.get(name, default)

    def require(self, *names: str) -> None:
        missing = [name for name in names if self.values.get(name) is None]
        if missing:
            raise errors.missing_params(*missing)

    def str(self, name: str, default: str | None = None) -> str | None:
        value = self.values.get(name, _MISSING)
        if value is _MISSING or value is None:
            return default
        if isinstance(value, (dict, list)):
            raise errors.invalid_param(name)
        if isinstance(value, bool):
            return "true" if value else "false"
        value = str(value)
        # PostgreSQL text cannot hold NUL; GitLab refuses such parameters before they reach it.
        if "\x00" in value:
            raise errors.invalid_param(name)
        return value

    def bool(self, name: str, default: bool | None = None) -> bool | None:
        value = self.values.get(name, _MISSING)
        if value is _MISSING or value is None:
            return default
        if isinstance(value, bool):
            return value
        if isinstance(value, int) and value in (0, 1):
            return bool(value)
        if isinstance(value, str):
            lowered = value.strip().lower()
            if lowered == "":
                raise errors.empty_param(name)
            if lowered in _TRUE:
                return True
            if lowered in _FALSE:
                return False
        raise errors.invalid_param(name)

    def int(self, name: str, default: int | None = None) -> int | None:
        value = self.values.get(name, _MISSING)
        if value is _MISSING or value is None or value == "":
            return default
        if isinstance(value, bool):
            raise errors.invalid_param(name)
        if isinstance(value, str):
            try:
                value = int(value.strip())
            except ValueError:
                pass
        # Integer parameters land in INTEGER columns; a number beyond them is as invalid as a word.
        if isinstance(value, int) and -MAX_ROW_ID <= value <= MAX_ROW_ID:
            return value
        raise errors.invalid_param(name)

    def choice(self, name: str, allowed: tuple[str, ...], default: str | None = None) -> str | None:
        value = self.str(name, default)
        if value is not None and value not in allowed:
            raise errors.invalid_value(name)
        return value

    def date(self, name: str) -> dt.date | None:
        value = self.str(name)
        if value is None or value == "":
            return None
        try:
            return dt.date.fromisoformat(value[:10])
        except ValueError:
            raise errors.invalid_param(name) from None

    def list(self, name: str) -> list[str] | None:
        value = self.values.get(name, _MISSING)
        if value is _MISSING or value is None:
            return None
        if isinstance(value, list):
            return [str(item) for item in value]
        if isinstance(value, str):
            return [part for part in value.split(",") if part]
        raise errors.invalid_param(name)


async def read_params(request: Request) -> Params:
    values: dict[str, Any] = {}
    for key, value in request.query_params.multi_items():
        _merge(values, key, value)
    if request.method in ("POST", "PUT", "PATCH", "DELETE"):
        content_type = request.headers.get("content-type", "").split(";")[0].strip().lower()
        if content_type == "application/json":
            body = await request.body()
            if body.strip():
                try:
                    document = json.loads(body)
                except ValueError:
                    raise errors.bad_request("invalid JSON body") from None
                if not isinstance(document, dict):
                    raise errors.bad_request("the JSON body must be an object")
                values.update(document)
        elif content_type in ("application/x-www-form-urlencoded", "multipart/form-data"):
            form = await request.form()
            for key, value in form.multi_items():
                if isinstance(value, str):
                    _merge(values, key, value)
    return Params(values)


def _merge(values: dict[str, Any], key: str, value: str) -> None:
    # Rack's convention: "scopes[]=a&scopes[]=b" is a list named "scopes".
    if key.endswith("[]"):
        values.setdefault(key[:-2], []).append(value)
    else:
        values[key] = value


ParamsDep = Annotated[Params, Depends(read_params)]


# OpenAPI types of the parameters a handler reads from its body through Params.
STRING: dict[str, Any] = {"type": "string"}
INTEGER: dict[str, Any] = {"type": "integer"}
BOOLEAN: dict[str, Any] = {"type": "boolean"}
STRINGS: dict[str, Any] = {"type": "array", "items": STRING}


def declared_body(*, required: tuple[str, ...] = (), **properties: dict[str, Any]) -> dict[str, Any]:
    """`openapi_extra` declaring the body parameters a handler reads, as JSON or as a form.

    Grape merges query, form and JSON parameters, so handlers read them through Params instead of a
    typed body; this makes the OpenAPI document list them all the same.
    """
    schema: dict[str, Any] = {"type": "object", "properties": properties}
    if required:
        schema["required"] = list(required)
    content = {media: {"schema": schema} for media in ("application/json", "application/x-www-form-urlencoded")}
    return {"requestBody": {"required": bool(required), "content": content}}


def declared_query(**parameters: dict[str, Any]) -> dict[str, Any]:
    """`openapi_extra` declaring the query parameters a handler reads through Params."""
    return {"parameters": [{"name": name, "in": "query", "required": False, "schema": schema}
                           for name, schema in parameters.items()]}
